//! numcodecs `fletcher32`: HDF5's (and netCDF's) Fletcher-32, always stored at the end (its
//! configuration has no `location`).
//!
//! It is HDF5's `H5_checksum_fletcher32` exactly, which numcodecs copied from netCDF-C: the
//! data is read as **big-endian** 16-bit words (first byte high); `sum1 += word; sum2 += sum1`
//! in `u32`; both sums are folded (`s = (s & 0xffff) + (s >> 16)`) after every 360 words and
//! after the last, shorter block; an odd trailing byte counts as a word with a zero low byte,
//! added and folded once more; then both sums are folded a final time and the value is
//! `sum2 << 16 | sum1`. The folds do not reduce modulo 65535, so a sum may end as `0xffff`
//! (720 bytes of `0xff` give `0xffffffff`): this is not Wikipedia's Fletcher-32.

use super::{Location, RunningSum};

/// How many 16-bit words are added between folds (HDF5's block length).
const BLOCK: u16 = 360;

const fn fold(s: u32) -> u32 {
    (s & 0xffff) + (s >> 16)
}

/// A running Fletcher-32; bytes may come in pieces split anywhere, also inside a word.
#[derive(Debug, Clone, Copy)]
pub struct Fletcher32 {
    sum1: u32,
    sum2: u32,
    /// Words added since the last fold, below [`BLOCK`].
    words: u16,
    /// The first byte of a word whose second byte has not arrived yet.
    pending: Option<u8>,
}

impl Fletcher32 {
    pub(crate) const NAMES: &'static [&'static str] = &["numcodecs.fletcher32"];
    pub(crate) const V2_ID: Option<&'static str> = Some(Self::CODEC_ID);
    pub(crate) const CODEC_ID: &'static str = "fletcher32";
    pub(crate) const DEFAULT_LOCATION: Location = Location::End;
    pub(crate) const HAS_LOCATION_KEY: bool = false;

    fn add(&mut self, hi: u8, lo: u8) {
        self.sum1 = self
            .sum1
            .wrapping_add(u32::from(u16::from_be_bytes([hi, lo])));
        self.sum2 = self.sum2.wrapping_add(self.sum1);
        self.words += 1;
        if self.words == BLOCK {
            self.sum1 = fold(self.sum1);
            self.sum2 = fold(self.sum2);
            self.words = 0;
        }
    }
}

impl RunningSum for Fletcher32 {
    fn new() -> Self {
        Self {
            sum1: 0,
            sum2: 0,
            words: 0,
            pending: None,
        }
    }

    fn update(&mut self, data: &[u8]) {
        let mut rest = data;
        if let Some(hi) = self.pending {
            let Some((&lo, tail)) = rest.split_first() else {
                return;
            };
            self.add(hi, lo);
            rest = tail;
        }
        let mut pairs = rest.chunks_exact(2);
        for pair in &mut pairs {
            if let &[hi, lo] = pair {
                self.add(hi, lo);
            }
        }
        self.pending = pairs.remainder().first().copied();
    }

    fn value(&self) -> u32 {
        let (mut sum1, mut sum2) = (self.sum1, self.sum2);
        if self.words > 0 {
            sum1 = fold(sum1);
            sum2 = fold(sum2);
        }
        if let Some(hi) = self.pending {
            sum1 = sum1.wrapping_add(u32::from(hi) << 8);
            sum2 = sum2.wrapping_add(sum1);
            sum1 = fold(sum1);
            sum2 = fold(sum2);
        }
        sum1 = fold(sum1);
        sum2 = fold(sum2);
        (sum2 << 16) | sum1
    }
}
