//! Codec chains written as text, as `zinto create --codec SPEC` and Python's
//! `zinto.create(codecs=[...])` take them: `raw`, `zstd[:LEVEL]` (default 3), `gzip[:LEVEL]`,
//! `zlib[:LEVEL]` (default 5), `lz4` (numcodecs' LZ4, Zarr v2 only), `crc32c`,
//! `blosc:CNAME[:CLEVEL[:SHUFFLE]]` (CNAME `lz4`,
//! `lz4hc`, `zstd` or `zlib`; CLEVEL 0 to 9, default 5; SHUFFLE `noshuffle`, `shuffle`
//! (default) or `bitshuffle`); at most one compressor.

use zinto_core::codec::blosc::{BloscCname, BloscShuffle};
use zinto_core::codec::{BloscConfig, Compressor, Gzip, Lz4, Zlib, Zstd};

use crate::ArrayBuilder;

/// The codecs zinto writes, as their specs are written (for messages).
pub const WRITTEN: &str =
    "raw, zstd[:LEVEL], gzip[:LEVEL], zlib[:LEVEL], lz4, crc32c, blosc:CNAME[:CLEVEL[:SHUFFLE]]";

/// A codec spec that is not one zinto writes, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodecSpecError {
    /// The spec as given.
    pub spec: String,
    /// What is wrong with it.
    pub why: String,
}

impl std::fmt::Display for CodecSpecError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "codec {:?}: {}", self.spec, self.why)
    }
}

impl std::error::Error for CodecSpecError {}

impl ArrayBuilder {
    /// The codec chain `specs` states, in order (see the module's documentation).
    ///
    /// ```
    /// let b = zinto::ArrayBuilder::new(&[100], zinto::DataType::Float32, &[10]);
    /// assert!(b.clone().codec_specs(&["zstd:5", "crc32c"]).is_ok());
    /// let err = b.codec_specs(&["zstd:99"]).unwrap_err();
    /// assert_eq!(err.to_string(), "codec \"zstd:99\": LEVEL is 0 to 22");
    /// ```
    ///
    /// # Errors
    /// [`CodecSpecError`] for a codec zinto does not write, a level out of range, or a second
    /// compressor.
    pub fn codec_specs<S: AsRef<str>>(mut self, specs: &[S]) -> Result<Self, CodecSpecError> {
        let mut compressed = false;
        for spec in specs {
            let spec = spec.as_ref();
            let fail = |why: String| CodecSpecError {
                spec: spec.to_owned(),
                why,
            };
            let compressor = match parse(spec).map_err(fail)? {
                Parsed::Raw => continue,
                Parsed::Crc32c => {
                    self = self.crc32c();
                    continue;
                }
                Parsed::Compressor(c) => c,
            };
            if compressed {
                return Err(fail("one compressor at most".into()));
            }
            compressed = true;
            self = self.compressor(compressor);
        }
        Ok(self)
    }
}

enum Parsed {
    Raw,
    Crc32c,
    Compressor(Compressor),
}

/// One spec's codec, or why it is not one zinto writes.
fn parse(spec: &str) -> Result<Parsed, String> {
    let (name, arg) = spec
        .split_once(':')
        .map_or((spec, None), |(n, a)| (n, Some(a)));
    let level = |max: u8, default: u8| -> Result<u8, String> {
        arg.map_or(Ok(default), |a| match a.parse::<u8>() {
            Ok(l) if l <= max => Ok(l),
            _ => Err(format!("LEVEL is 0 to {max}")),
        })
    };
    let no_level = |p: Parsed| match arg {
        None => Ok(p),
        Some(_) => Err(format!("{name} takes no LEVEL")),
    };
    match name {
        "raw" => no_level(Parsed::Raw),
        "crc32c" => no_level(Parsed::Crc32c),
        "zstd" => Ok(Parsed::Compressor(Compressor::Zstd(Zstd {
            level: Some(i32::from(level(22, 3)?)),
            checksum: false,
        }))),
        "gzip" => Ok(Parsed::Compressor(Compressor::Gzip(Gzip {
            level: Some(level(9, 5)?),
        }))),
        "zlib" => Ok(Parsed::Compressor(Compressor::Zlib(Zlib {
            level: Some(level(9, 5)?),
        }))),
        "lz4" => no_level(Parsed::Compressor(Compressor::Lz4(Lz4 {
            acceleration: Some(1),
        }))),
        "blosc" => blosc(arg.unwrap_or("")).map(Parsed::Compressor),
        _ => Err(format!("not a codec zinto writes ({WRITTEN})")),
    }
}

/// `CNAME[:CLEVEL[:SHUFFLE]]` of a `blosc:` spec.
fn blosc(arg: &str) -> Result<Compressor, String> {
    let mut parts = arg.split(':');
    let cname = match parts.next().unwrap_or("") {
        "lz4" => BloscCname::Lz4,
        "lz4hc" => BloscCname::Lz4Hc,
        "zstd" => BloscCname::Zstd,
        "zlib" => BloscCname::Zlib,
        "blosclz" => BloscCname::BloscLz,
        "snappy" => {
            return Err("zinto writes Blosc with blosclz, lz4, lz4hc, zstd or zlib inside".into());
        }
        _ => {
            return Err(
                "blosc:CNAME[:CLEVEL[:SHUFFLE]], CNAME blosclz, lz4, lz4hc, zstd or zlib".into(),
            );
        }
    };
    let clevel = match parts.next() {
        None => 5,
        Some(l) => match l.parse::<u8>() {
            Ok(l) if l <= 9 => l,
            _ => return Err("CLEVEL is 0 to 9".into()),
        },
    };
    let shuffle = match parts.next() {
        None | Some("shuffle") => BloscShuffle::Shuffle,
        Some("noshuffle") => BloscShuffle::NoShuffle,
        Some("bitshuffle") => BloscShuffle::BitShuffle,
        Some(_) => return Err("SHUFFLE is noshuffle, shuffle or bitshuffle".into()),
    };
    if parts.next().is_some() {
        return Err("blosc:CNAME[:CLEVEL[:SHUFFLE]] takes three parts at most".into());
    }
    Ok(Compressor::Blosc(BloscConfig {
        cname: Some(cname),
        clevel: Some(clevel),
        shuffle: Some(shuffle),
        typesize: None,
        blocksize: Some(0),
    }))
}
