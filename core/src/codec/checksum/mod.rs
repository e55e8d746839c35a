//! The 32-bit checksum codecs of numcodecs: `crc32`, `crc32c`, `adler32` and `fletcher32`.
//!
//! Each one is a bytes-to-bytes codec that stores the payload unchanged plus four checksum
//! bytes. What numcodecs 0.16.6 writes (`numcodecs/checksum32.py`, `numcodecs/fletcher32.pyx`):
//!
//! | codec id     | algorithm                              | default location | `location` key |
//! |--------------|----------------------------------------|------------------|----------------|
//! | `crc32`      | zlib `crc32`, initial value 0          | [`Location::Start`] | yes         |
//! | `adler32`    | zlib `adler32`, initial value 1        | [`Location::Start`] | yes         |
//! | `crc32c`     | CRC-32C (Castagnoli), initial value 0  | [`Location::End`]   | yes         |
//! | `fletcher32` | HDF5's `H5_checksum_fletcher32`        | [`Location::End`]   | no          |
//!
//! In every case the checksum is a `u32` stored **little-endian** ([`CHECKSUM_LEN`] bytes) and
//! covers exactly the payload bytes: not the checksum itself, and no header, length or seed.
//! The stored chunk is `checksum ++ payload` ([`Location::Start`]) or `payload ++ checksum`
//! ([`Location::End`]). The `location` key of the codec configuration (`"start"` or `"end"`) is
//! only written when it was given explicitly, so a configuration without it means the default
//! of that kind; `fletcher32` takes no `location` at all and always stores at the end.
//!
//! numcodecs refuses to decode a stored buffer shorter than four bytes. Its `fletcher32` fails
//! (Cython `IndexError`) on an empty payload both ways, so no stored `fletcher32` chunk has an
//! empty payload; [`Checksum`](crate::codec::Checksum) still defines its value there (0, what the algorithm gives).

pub mod adler32;
pub mod crc32;
pub mod crc32c;
pub mod fletcher32;

/// How many bytes a stored checksum takes.
pub const CHECKSUM_LEN: usize = 4;

/// Where the four checksum bytes sit in a stored buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Location {
    /// Before the payload: `checksum ++ payload`.
    Start,
    /// After the payload: `payload ++ checksum`.
    End,
}

impl Location {
    /// Parses the `location` value of a codec configuration: `"start"` or `"end"`.
    pub fn from_config(s: &str) -> Option<Location> {
        match s {
            "start" => Some(Location::Start),
            "end" => Some(Location::End),
            _ => None,
        }
    }
}

/// Why a stored checksum was not accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ChecksumError {
    /// The stored buffer is shorter than the four checksum bytes.
    TooShort {
        /// The stored buffer's length in bytes.
        len: usize,
    },
    /// The checksum computed over the payload is not the one stored.
    Mismatch {
        /// The checksum stored with the payload.
        expected: u32,
        /// The checksum of the payload as read.
        computed: u32,
    },
}

impl core::fmt::Display for ChecksumError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            ChecksumError::TooShort { len } => write!(
                f,
                "the stored buffer has {len} bytes, fewer than the {CHECKSUM_LEN} of a checksum"
            ),
            ChecksumError::Mismatch { expected, computed } => write!(
                f,
                "the payload's checksum is {computed:#010x} but {expected:#010x} was stored"
            ),
        }
    }
}

/// What each checksum's file gives: its running sum, fed in pieces of any size.
pub(crate) trait RunningSum: Copy + core::fmt::Debug {
    /// The sum of nothing yet.
    fn new() -> Self;
    /// Adds `data`.
    fn update(&mut self, data: &[u8]);
    /// The sum of everything added so far.
    fn value(&self) -> u32;
}

/// A checksum's facts, as its file states them.
pub(crate) struct Facts {
    pub(crate) codec_id: &'static str,
    pub(crate) default_location: Location,
    pub(crate) has_location_key: bool,
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::codec::{Checksum, ChecksumKind};
    use std::string::ToString;

    /// The test data numcodecs was fed: byte `i` is `(i * 167 + 89) & 0xff`.
    fn data(n: usize) -> impl Iterator<Item = u8> {
        (0..n).map(|i| u8::try_from((i * 167 + 89) & 0xff).unwrap())
    }

    fn fill(buf: &mut [u8], n: usize) -> &[u8] {
        for (b, v) in buf.iter_mut().zip(data(n)) {
            *b = v;
        }
        &buf[..n]
    }

    // (kind, length, checksum) from numcodecs 0.16.6 `encode`, read at its default location.
    const VECTORS: [(ChecksumKind, usize, u32); 24] = [
        (ChecksumKind::Crc32, 0, 0x0),
        (ChecksumKind::Crc32, 1, 0xc0b506dd),
        (ChecksumKind::Crc32, 2, 0x2aa0f4e2),
        (ChecksumKind::Crc32, 3, 0xd49efa66),
        (ChecksumKind::Crc32, 1000, 0xf3e91e02),
        (ChecksumKind::Crc32, 1001, 0x8099e4a5),
        (ChecksumKind::Crc32c, 0, 0x0),
        (ChecksumKind::Crc32c, 1, 0x7bea524e),
        (ChecksumKind::Crc32c, 2, 0xbf051b98),
        (ChecksumKind::Crc32c, 3, 0x3c3223df),
        (ChecksumKind::Crc32c, 1000, 0xef3b7dc8),
        (ChecksumKind::Crc32c, 1001, 0x5bb8e7ed),
        (ChecksumKind::Adler32, 0, 0x1),
        (ChecksumKind::Adler32, 1, 0x5a005a),
        (ChecksumKind::Adler32, 2, 0xb4005a),
        (ChecksumKind::Adler32, 3, 0x1b50101),
        (ChecksumKind::Adler32, 1000, 0x6c5df16c),
        (ChecksumKind::Adler32, 1001, 0x5e89f21d),
        // numcodecs raises IndexError for an empty fletcher32 payload; 0 is the algorithm's value.
        (ChecksumKind::Fletcher32, 0, 0x0),
        (ChecksumKind::Fletcher32, 1, 0x59005900),
        (ChecksumKind::Fletcher32, 2, 0x59005900),
        (ChecksumKind::Fletcher32, 3, 0x59010001),
        (ChecksumKind::Fletcher32, 1000, 0x921390be),
        (ChecksumKind::Fletcher32, 1001, 0xd3d241bf),
    ];

    // (kind, length of all-0xff data, checksum): long runs exercise the folds and `b`'s reduction.
    const FF_VECTORS: [(ChecksumKind, usize, u32); 16] = [
        (ChecksumKind::Crc32, 719, 0xe359ec9d),
        (ChecksumKind::Crc32, 720, 0x715db615),
        (ChecksumKind::Crc32, 721, 0x92acb95d),
        (ChecksumKind::Crc32, 100_001, 0x6361c067),
        (ChecksumKind::Crc32c, 719, 0xf60fd1dd),
        (ChecksumKind::Crc32c, 720, 0x930da2a9),
        (ChecksumKind::Crc32c, 721, 0x256a63c8),
        (ChecksumKind::Crc32c, 100_001, 0x7ed70461),
        (ChecksumKind::Adler32, 719, 0x62b8cc50),
        (ChecksumKind::Adler32, 720, 0x3016cd4f),
        (ChecksumKind::Adler32, 721, 0xfe64ce4e),
        (ChecksumKind::Adler32, 100_001, 0x45c5312b),
        (ChecksumKind::Fletcher32, 719, 0xff00ff00),
        (ChecksumKind::Fletcher32, 720, 0xffffffff),
        (ChecksumKind::Fletcher32, 721, 0xff00ff00),
        (ChecksumKind::Fletcher32, 100_001, 0xff00ff00),
    ];

    #[test]
    fn matches_numcodecs() {
        let mut buf = [0u8; 1001];
        for (kind, n, want) in VECTORS {
            let d = fill(&mut buf, n);
            assert_eq!(kind.compute(d), want, "{kind:?} of {n} bytes");
        }
        let ff = [0xffu8; 100_001];
        for (kind, n, want) in FF_VECTORS {
            assert_eq!(kind.compute(&ff[..n]), want, "{kind:?} of {n} bytes 0xff");
        }
    }

    #[test]
    fn every_split_gives_the_same_value() {
        let mut buf = [0u8; 1001];
        for (kind, n, want) in VECTORS {
            let d = fill(&mut buf, n);
            if n <= 3 {
                // Every way of cutting a short input into pieces, including empty pieces.
                for i in 0..=n {
                    for j in i..=n {
                        let mut c = Checksum::new(kind);
                        c.update(&d[..i]);
                        c.update(&[]);
                        c.update(&d[i..j]);
                        c.update(&d[j..]);
                        assert_eq!(c.value(), want, "{kind:?} {n} split at {i},{j}");
                    }
                }
            } else {
                for i in 0..=n {
                    let mut c = Checksum::new(kind);
                    c.update(&d[..i]);
                    c.update(&d[i..]);
                    assert_eq!(c.value(), want, "{kind:?} {n} split at {i}");
                }
                // Byte by byte, and in odd pieces across Fletcher's 360-word blocks.
                let mut c = Checksum::new(kind);
                d.iter().for_each(|b| c.update(core::slice::from_ref(b)));
                assert_eq!(c.value(), want);
                let mut c = Checksum::new(kind);
                d.chunks(7).for_each(|p| c.update(p));
                assert_eq!(c.value(), want);
            }
        }
        for (kind, n, want) in FF_VECTORS {
            let ff = [0xffu8; 100_001];
            let mut c = Checksum::new(kind);
            ff[..n].chunks(719).for_each(|p| c.update(p));
            assert_eq!(c.value(), want, "{kind:?} {n} 0xff in odd pieces");
        }
    }

    #[test]
    fn value_can_be_read_midway() {
        let mut buf = [0u8; 1001];
        let d = fill(&mut buf, 1001);
        for kind in ChecksumKind::ALL {
            let mut c = Checksum::new(kind);
            c.update(&d[..3]);
            assert_eq!(c.value(), kind.compute(&d[..3]));
            c.update(&d[3..]);
            assert_eq!(c.value(), kind.compute(d));
        }
    }

    // numcodecs 0.16.6 `encode` of the first 5 test bytes [89, 0, 167, 78, 245], whole.
    const ENCODED5: [(ChecksumKind, [u8; 9]); 4] = [
        (ChecksumKind::Crc32, [90, 117, 59, 140, 89, 0, 167, 78, 245]),
        (
            ChecksumKind::Crc32c,
            [89, 0, 167, 78, 245, 172, 222, 183, 211],
        ),
        (ChecksumKind::Adler32, [68, 2, 72, 5, 89, 0, 167, 78, 245]),
        (
            ChecksumKind::Fletcher32,
            [89, 0, 167, 78, 245, 79, 245, 159, 78],
        ),
    ];

    #[test]
    fn stored_layouts() {
        for (kind, stored) in ENCODED5 {
            let payload = kind.verify(&stored, kind.default_location()).unwrap();
            assert_eq!(payload, &[89, 0, 167, 78, 245]);
            let other = match kind.default_location() {
                Location::Start => Location::End,
                Location::End => Location::Start,
            };
            assert!(matches!(
                kind.verify(&stored, other),
                Err(ChecksumError::Mismatch { .. })
            ));
        }
        // Explicit locations, from numcodecs: CRC32(location='end'), Adler32(location='end'),
        // CRC32C(location='start') of the first 3 test bytes.
        let crc_end = [0x59, 0x00, 0xa7, 0x66, 0xfa, 0x9e, 0xd4];
        let adler_end = [0x59, 0x00, 0xa7, 0x01, 0x01, 0xb5, 0x01];
        let crc32c_start = [0xdf, 0x23, 0x32, 0x3c, 0x59, 0x00, 0xa7];
        let p = [0x59, 0x00, 0xa7];
        assert_eq!(
            ChecksumKind::Crc32.verify(&crc_end, Location::End),
            Ok(&p[..])
        );
        assert_eq!(
            ChecksumKind::Adler32.verify(&adler_end, Location::End),
            Ok(&p[..])
        );
        assert_eq!(
            ChecksumKind::Crc32c.verify(&crc32c_start, Location::Start),
            Ok(&p[..])
        );
    }

    #[test]
    fn short_and_empty_buffers() {
        for kind in ChecksumKind::ALL {
            for len in 0..4 {
                let stored = [0u8; 3];
                assert_eq!(
                    kind.verify(&stored[..len], kind.default_location()),
                    Err(ChecksumError::TooShort { len })
                );
            }
        }
        // As numcodecs: an empty payload checks against 0 (CRCs) or 1 (Adler-32).
        let empty: &[u8] = &[];
        assert_eq!(
            ChecksumKind::Crc32.verify(&[0; 4], Location::Start),
            Ok(empty)
        );
        assert_eq!(
            ChecksumKind::Crc32c.verify(&[0; 4], Location::End),
            Ok(empty)
        );
        assert_eq!(
            ChecksumKind::Adler32.verify(&[1, 0, 0, 0], Location::Start),
            Ok(empty)
        );
        assert_eq!(
            ChecksumKind::Adler32.verify(&[0; 4], Location::Start),
            Err(ChecksumError::Mismatch {
                expected: 0,
                computed: 1
            })
        );
    }

    #[test]
    fn names_and_defaults() {
        for kind in ChecksumKind::ALL {
            assert_eq!(ChecksumKind::from_codec_id(kind.codec_id()), Some(kind));
        }
        assert_eq!(
            ChecksumKind::from_codec_id("numcodecs.crc32c"),
            Some(ChecksumKind::Crc32c)
        );
        assert_eq!(ChecksumKind::from_codec_id("jenkins_lookup3"), None);
        assert_eq!(ChecksumKind::Crc32.default_location(), Location::Start);
        assert_eq!(ChecksumKind::Adler32.default_location(), Location::Start);
        assert_eq!(ChecksumKind::Crc32c.default_location(), Location::End);
        assert_eq!(ChecksumKind::Fletcher32.default_location(), Location::End);
        assert!(!ChecksumKind::Fletcher32.has_location_key());
        assert_eq!(Location::from_config("end"), Some(Location::End));
        assert_eq!(Location::from_config("START"), None);
    }

    #[test]
    fn display_reads_as_a_sentence() {
        let e = ChecksumError::Mismatch {
            expected: 1,
            computed: 0x10,
        };
        assert_eq!(
            e.to_string(),
            "the payload's checksum is 0x00000010 but 0x00000001 was stored"
        );
        assert!(
            ChecksumError::TooShort { len: 2 }
                .to_string()
                .contains("2 bytes")
        );
    }

    /// Walks the registry's checksums: each is found by its codec name and v2 id, states where
    /// numcodecs puts it, and starts from what its algorithm starts from.
    #[test]
    fn every_checksum_in_the_registry_states_its_facts() {
        use crate::codec::CodecName;
        for kind in ChecksumKind::ALL {
            assert_eq!(ChecksumKind::of(kind.name()), Some(kind));
            assert_eq!(CodecName::from_v2_id(kind.codec_id()), Some(kind.name()));
            assert_eq!(ChecksumKind::from_codec_id(kind.name().name()), Some(kind));
            let fresh = Checksum::new(kind).value();
            assert_eq!(fresh, u32::from(kind == ChecksumKind::Adler32), "{kind:?}");
        }
        assert_eq!(ChecksumKind::of(CodecName::Zstd), None);
        assert_eq!(ChecksumKind::ALL.len(), 4);
        assert!(!ChecksumKind::Fletcher32.has_location_key());
    }
}
