//! `crc32c` (v3) and numcodecs `crc32c`: CRC-32C (Castagnoli, reflected polynomial
//! 0x82F63B78, initial value 0), stored at the end.

use super::{Location, RunningSum};
use crate::codec::crc::{CRC32C, Crc32 as Table};

/// A running CRC-32C.
#[derive(Debug, Clone, Copy)]
pub struct Crc32c(Table);

impl Crc32c {
    pub(crate) const NAMES: &'static [&'static str] = &["crc32c", "numcodecs.crc32c"];
    pub(crate) const V2_ID: Option<&'static str> = Some(Self::CODEC_ID);
    pub(crate) const CODEC_ID: &'static str = "crc32c";
    pub(crate) const DEFAULT_LOCATION: Location = Location::End;
    pub(crate) const HAS_LOCATION_KEY: bool = true;
}

impl RunningSum for Crc32c {
    fn new() -> Self {
        Self(Table::new(&CRC32C))
    }

    fn update(&mut self, data: &[u8]) {
        self.0.update(data);
    }

    fn value(&self) -> u32 {
        self.0.value()
    }
}
