//! numcodecs `adler32`: zlib's Adler-32 (starting from 1), stored at the start unless the
//! configuration says otherwise.

use super::{Location, RunningSum};

/// Adler-32's modulus.
const MOD: u32 = 65_521;
/// The most bytes Adler-32 can add before `b` must be reduced (zlib's NMAX).
const NMAX: usize = 5552;

/// A running Adler-32.
#[derive(Debug, Clone, Copy)]
pub struct Adler32 {
    a: u32,
    b: u32,
}

impl Adler32 {
    pub(crate) const NAMES: &'static [&'static str] = &["numcodecs.adler32"];
    pub(crate) const V2_ID: Option<&'static str> = Some(Self::CODEC_ID);
    pub(crate) const CODEC_ID: &'static str = "adler32";
    pub(crate) const DEFAULT_LOCATION: Location = Location::Start;
    pub(crate) const HAS_LOCATION_KEY: bool = true;
}

impl RunningSum for Adler32 {
    fn new() -> Self {
        Self { a: 1, b: 0 }
    }

    fn update(&mut self, data: &[u8]) {
        for block in data.chunks(NMAX) {
            for &byte in block {
                // zlib's NMAX bound: 255 n (n + 1) / 2 + (n + 1) 65520 < 2^32.
                self.a = self.a.wrapping_add(u32::from(byte));
                self.b = self.b.wrapping_add(self.a);
            }
            self.a %= MOD;
            self.b %= MOD;
        }
    }

    fn value(&self) -> u32 {
        (self.b << 16) | self.a
    }
}
