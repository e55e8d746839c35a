//! numcodecs `crc32`: zlib's CRC-32 (reflected polynomial 0xEDB88320, initial value 0),
//! stored at the start unless the configuration says otherwise.

use super::{Location, RunningSum};
use crate::codec::crc::{CRC32, Crc32 as Table};

/// A running zlib CRC-32.
#[derive(Debug, Clone, Copy)]
pub struct Crc32(Table);

impl Crc32 {
    pub(crate) const NAMES: &'static [&'static str] = &["numcodecs.crc32"];
    pub(crate) const V2_ID: Option<&'static str> = Some(Self::CODEC_ID);
    pub(crate) const CODEC_ID: &'static str = "crc32";
    pub(crate) const DEFAULT_LOCATION: Location = Location::Start;
    pub(crate) const HAS_LOCATION_KEY: bool = true;
}

impl RunningSum for Crc32 {
    fn new() -> Self {
        Self(Table::new(&CRC32))
    }

    fn update(&mut self, data: &[u8]) {
        self.0.update(data);
    }

    fn value(&self) -> u32 {
        self.0.value()
    }
}
