//! What a [`ChecksumKind`] (the registry's enum of every checksum) answers, and the running
//! [`Checksum`] over any of them; each algorithm is its file's under `codec/checksum/`.

use crate::codec::checksum::{CHECKSUM_LEN, ChecksumError, Location};

use super::{ChecksumKind, SumState};

impl ChecksumKind {
    /// The numcodecs codec id (`"crc32"`, `"crc32c"`, `"adler32"`, `"fletcher32"`). In Zarr v3
    /// metadata the codec name is this id prefixed with `numcodecs.`.
    pub fn codec_id(self) -> &'static str {
        self.facts().codec_id
    }

    /// The kind named by a numcodecs codec id, with or without the v3 `numcodecs.` prefix.
    pub fn from_codec_id(id: &str) -> Option<ChecksumKind> {
        let id = id.strip_prefix("numcodecs.").unwrap_or(id);
        ChecksumKind::ALL.into_iter().find(|k| k.codec_id() == id)
    }

    /// Where numcodecs puts the checksum when the configuration has no `location` key:
    /// the start for `crc32` and `adler32`, the end for `crc32c` and `fletcher32`.
    pub fn default_location(self) -> Location {
        self.facts().default_location
    }

    /// Whether the configuration may carry a `location` key (every kind but `fletcher32`).
    pub fn has_location_key(self) -> bool {
        self.facts().has_location_key
    }

    /// The checksum of `data` in one call.
    pub fn compute(self, data: &[u8]) -> u32 {
        let mut c = Checksum::new(self);
        c.update(data);
        c.value()
    }

    /// Splits a stored buffer into its payload and its stored checksum (read little-endian).
    ///
    /// # Errors
    /// [`ChecksumError::TooShort`] if `stored` has fewer than [`CHECKSUM_LEN`] bytes.
    pub fn split(stored: &[u8], location: Location) -> Result<(&[u8], u32), ChecksumError> {
        let short = ChecksumError::TooShort { len: stored.len() };
        let (payload, sum) = match location {
            Location::Start => {
                let (sum, payload) = stored.split_first_chunk::<CHECKSUM_LEN>().ok_or(short)?;
                (payload, sum)
            }
            Location::End => stored.split_last_chunk::<CHECKSUM_LEN>().ok_or(short)?,
        };
        Ok((payload, u32::from_le_bytes(*sum)))
    }

    /// Checks a stored buffer and returns its payload, as numcodecs' `decode` does.
    ///
    /// # Errors
    /// [`ChecksumError::TooShort`] if `stored` cannot hold a checksum,
    /// [`ChecksumError::Mismatch`] if the stored and computed checksums differ.
    pub fn verify(self, stored: &[u8], location: Location) -> Result<&[u8], ChecksumError> {
        let (payload, expected) = Self::split(stored, location)?;
        let computed = self.compute(payload);
        if computed == expected {
            Ok(payload)
        } else {
            Err(ChecksumError::Mismatch { expected, computed })
        }
    }
}

/// A running checksum of one [`ChecksumKind`]. Feed bytes in pieces of any size, split
/// anywhere (also inside a Fletcher-32 word); the value does not depend on the split. Each
/// algorithm is its file's: [`crc32`](crate::codec::checksum::crc32), [`crc32c`](crate::codec::checksum::crc32c),
/// [`adler32`](crate::codec::checksum::adler32), [`fletcher32`](crate::codec::checksum::fletcher32) (HDF5's exact
/// variant, see its file).
#[derive(Debug, Clone, Copy)]
pub struct Checksum {
    kind: ChecksumKind,
    state: SumState,
}

impl Checksum {
    /// A checksum of nothing yet.
    pub fn new(kind: ChecksumKind) -> Self {
        Self {
            kind,
            state: SumState::new(kind),
        }
    }

    /// Which checksum this is.
    pub fn kind(&self) -> ChecksumKind {
        self.kind
    }

    /// Adds `data` to the checksum.
    pub fn update(&mut self, data: &[u8]) {
        self.state.update(data);
    }

    /// The checksum of everything added so far (the stream may go on afterwards).
    pub fn value(&self) -> u32 {
        self.state.value()
    }
}
