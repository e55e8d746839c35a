//! Looking codecs up by name, in the one table the registry makes (`codec/registry.rs`).

use super::CodecName;
use super::registry::TABLE;

impl CodecName {
    /// The codec with this metadata name (any of its names), if zinto knows it.
    pub fn from_name(name: &str) -> Option<Self> {
        TABLE
            .iter()
            .find(|(_, names, _)| names.contains(&name))
            .map(|(c, _, _)| *c)
    }

    /// The codec with this Zarr v2 (numcodecs) `id`, if zinto knows it.
    pub fn from_v2_id(id: &str) -> Option<Self> {
        TABLE
            .iter()
            .find(|(_, _, v2)| *v2 == Some(id))
            .map(|(c, _, _)| *c)
    }

    /// Its Zarr v2 (numcodecs) `id`, if it has one.
    pub fn v2_id(self) -> Option<&'static str> {
        TABLE
            .iter()
            .find(|(c, _, _)| *c == self)
            .and_then(|(_, _, v2)| *v2)
    }
}

impl core::fmt::Display for CodecName {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}
