//! numcodecs `lzma`: Python's `lzma` module, that is liblzma, in one of its container formats
//! (`format`: 0 any, 1 `.xz`, 2 `.lzma` "alone", 3 raw with its `filters` chain). zinto-core
//! has no LZMA decoder (its dictionary is up to 64 MiB of state); the std crate `zinto` plugs
//! liblzma in as a [`Backend`](crate::codec::Backend), which decodes it wherever it appears.
//!
//! The configuration is read here: the format, the `check` (which the stream itself states
//! for `.xz`), the `preset`, and for raw streams the one LZMA1 or LZMA2 filter they need, with
//! its `preset` or `dict_size` (numcodecs writes `{"id": 33, "preset": 1}`). Other raw filter
//! chains (delta, branch converters) are refused by name.

use super::FromConfig;
use super::by_backend::ByBackend;
use crate::codec::config::{Config, Reader};
use crate::codec::{ChainError, CodecName};

/// The most a byte of LZMA decodes to, generously: a repeated match costs a small fraction of
/// a bit once the range coder has adapted to it.
const MAX_RATIO: u64 = 1 << 24;

/// The largest dictionary a raw stream's filter may state: 128 MiB (preset 9 and `extreme`
/// use 64 MiB). A decoder allocates its dictionary's size, so it is bounded here.
pub const LZMA_MAX_DICT_SIZE: u32 = 128 << 20;

/// liblzma's filter ids numcodecs configurations name.
const LZMA1_ID: i64 = 0x4000_0000_0000_0001;
const LZMA2_ID: i64 = 0x21;

/// The container: what liblzma calls the format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LzmaFormat {
    /// `FORMAT_AUTO` (0): `.xz` or `.lzma`, whichever the stream is.
    Auto,
    /// `FORMAT_XZ` (1), numcodecs' default.
    Xz,
    /// `FORMAT_ALONE` (2): the legacy `.lzma` container.
    Alone,
    /// `FORMAT_RAW` (3): no container, the one filter below.
    Raw(LzmaRawFilter),
}

/// The filter of a raw LZMA stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LzmaRawFilter {
    /// LZMA2 (`id` 33), rather than LZMA1.
    pub lzma2: bool,
    /// Its preset (0-9), which fixes the dictionary size, if stated.
    pub preset: Option<u8>,
    /// Its dictionary size in bytes, if stated (at most [`LZMA_MAX_DICT_SIZE`]).
    pub dict_size: Option<u32>,
}

/// numcodecs `lzma`, configured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lzma {
    /// The container.
    pub format: LzmaFormat,
    /// The preset (0-9) it was written with, if stated.
    pub preset: Option<u8>,
}

impl Lzma {
    pub(crate) const NAMES: &'static [&'static str] = &["numcodecs.lzma"];
    pub(crate) const V2_ID: Option<&'static str> = Some("lzma");
}

/// A preset: 0 to 9, possibly with liblzma's `PRESET_EXTREME` bit (`0x8000_0000`), which
/// changes the encoder's effort only.
fn preset<C: Config + ?Sized>(
    r: &Reader<'_, C>,
    key: &'static str,
) -> Result<Option<u8>, ChainError> {
    const EXTREME: i64 = 0x8000_0000;
    match r.int(key)? {
        None => Ok(None),
        Some(p) => u8::try_from(p & !EXTREME)
            .ok()
            .filter(|&p| p <= 9)
            .map(Some)
            .ok_or(r.error(key, "is not a preset from 0 to 9")),
    }
}

/// What an entry of `filters` may state (Python's `lzma` filter specs): the ones a decoder
/// needs, and the encoder's own search settings (`mode`, `nice_len`, `mf`, `depth`).
const FILTER_FIELDS: [&str; 10] = [
    "id",
    "preset",
    "dict_size",
    "lc",
    "lp",
    "pb",
    "mode",
    "nice_len",
    "mf",
    "depth",
];

fn raw_filter<C: Config + ?Sized>(r: &Reader<'_, C>) -> Result<LzmaRawFilter, ChainError> {
    match r.list("filters")? {
        Some(1) => {}
        Some(0) | None => return Err(r.error("filters", "is missing for the raw format")),
        Some(_) => {
            return Err(r.error(
                "filters",
                "holds more than the one LZMA filter zinto decodes",
            ));
        }
    }
    if !r.object("filters/0", &FILTER_FIELDS)? {
        return Err(r.error("filters", "holds an entry that is not a filter object"));
    }
    let lzma2 = match r.int("filters/0/id")? {
        Some(LZMA2_ID) => true,
        Some(LZMA1_ID) => false,
        Some(_) => return Err(r.error("filters", "names a filter other than LZMA1 or LZMA2")),
        None => return Err(r.error("filters", "is missing for the raw format")),
    };
    // A raw LZMA1 stream does not state its literal and position bits; the decoder takes
    // liblzma's (lc 3, lp 0, pb 2), so other values are refused rather than misread.
    for (key, default) in [
        ("filters/0/lc", 3),
        ("filters/0/lp", 0),
        ("filters/0/pb", 2),
    ] {
        if r.int(key)?.is_some_and(|v| v != default) {
            return Err(r.error("filters", "sets lc, lp or pb, which zinto does not pass on"));
        }
    }
    let dict_size = r
        .int_in("filters/0/dict_size", 4096, LZMA_MAX_DICT_SIZE.into())?
        .map(|d| u32::try_from(d).map_err(|_| r.error("filters", "dict_size is out of range")))
        .transpose()?;
    Ok(LzmaRawFilter {
        lzma2,
        preset: preset(r, "filters/0/preset")?,
        dict_size,
    })
}

impl FromConfig for Lzma {
    fn from_config<C: Config + ?Sized>(r: &Reader<'_, C>) -> Result<Self, ChainError> {
        // -1 (the format's own default), or one of liblzma's check ids.
        r.int_in("check", -1, 10)?;
        let format = match r.int_in("format", 0, 3)?.unwrap_or(1) {
            0 => LzmaFormat::Auto,
            1 => LzmaFormat::Xz,
            2 => LzmaFormat::Alone,
            _ => LzmaFormat::Raw(raw_filter(r)?),
        };
        let listed = r.list("filters")?.is_some();
        if listed && !matches!(format, LzmaFormat::Raw(_)) {
            return Err(r.error("filters", "is only for the raw format (3)"));
        }
        Ok(Self {
            format,
            preset: preset(r, "preset")?,
        })
    }
}

impl ByBackend for Lzma {
    const CODEC: CodecName = CodecName::Lzma;
    const MAX_RATIO: u64 = MAX_RATIO;
    const SERIALIZES_NUMBERS: bool = false;
    const WITHOUT_BACKEND: &'static str =
        "lzma without a backend (the std crate `zinto` provides one)";
    /// zinto only decodes it.
    const NOT_WRITTEN: &'static str = super::DECODE_ONLY;

    fn show(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let format = match self.format {
            LzmaFormat::Auto => "any format",
            LzmaFormat::Xz => "xz",
            LzmaFormat::Alone => "alone",
            LzmaFormat::Raw(LzmaRawFilter { lzma2: true, .. }) => "raw lzma2",
            LzmaFormat::Raw(LzmaRawFilter { lzma2: false, .. }) => "raw lzma1",
        };
        write!(f, "{}({format}", Self::NAMES[0])?;
        match self.preset {
            Some(p) => write!(f, ", preset {p})"),
            None => f.write_str(")"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::{Compressor, ConfigValue, ConfigValue::Int, NoConfig};

    fn read(config: &[(&str, ConfigValue<'_>)]) -> Result<Lzma, ChainError> {
        match Compressor::from_config(CodecName::Lzma, config)? {
            Some(Compressor::Lzma(l)) => Ok(l),
            other => panic!("{other:?}"),
        }
    }

    /// What numcodecs writes: `.xz` by default, and raw LZMA2 with a preset.
    #[test]
    fn reads_numcodecs_configurations() {
        let xz = read(&[("format", Int(1)), ("check", Int(-1)), ("preset", Int(9))]).unwrap();
        assert_eq!((xz.format, xz.preset), (LzmaFormat::Xz, Some(9)));
        let d = Compressor::from_config(CodecName::Lzma, &NoConfig)
            .unwrap()
            .unwrap();
        assert_eq!(
            d,
            Compressor::Lzma(Lzma {
                format: LzmaFormat::Xz,
                preset: None
            })
        );
        let raw = read(&[
            ("format", Int(3)),
            ("filters", ConfigValue::List(1)),
            ("filters/0", ConfigValue::Object(2)),
            ("filters/0/id", Int(33)),
            ("filters/0/preset", Int(1)),
        ])
        .unwrap();
        let want = LzmaRawFilter {
            lzma2: true,
            preset: Some(1),
            dict_size: None,
        };
        assert_eq!(raw.format, LzmaFormat::Raw(want));
    }

    #[test]
    fn refuses_what_it_cannot_decode_by_name() {
        // The extra entries first: they may restate `filters` (the first entry of a key wins).
        let raw = |extra: &[(&'static str, ConfigValue<'static>)]| {
            let fields = extra
                .iter()
                .filter(|(k, _)| k.starts_with("filters/0/"))
                .count();
            let mut c = vec_of(extra);
            c.extend_from_slice(&[
                ("format", Int(3)),
                ("filters", ConfigValue::List(1)),
                ("filters/0", ConfigValue::Object(fields)),
            ])
            .unwrap();
            read(&c)
        };
        for bad in [
            raw(&[]),
            raw(&[("filters/0/id", Int(3))]),
            raw(&[
                ("filters/0/id", Int(33)),
                ("filters", ConfigValue::List(2)),
                ("filters/1", ConfigValue::Object(1)),
            ]),
            raw(&[("filters/0/id", Int(33)), ("filters/0/lzma", Int(1))]),
            raw(&[
                ("filters/0/id", Int(33)),
                ("filters/0/dict_size", Int(1 << 30)),
            ]),
            raw(&[("filters/0/id", Int(33)), ("filters/0/lc", Int(0))]),
            read(&[("format", Int(4))]),
            read(&[("preset", Int(10))]),
            read(&[("format", Int(1)), ("filters", ConfigValue::List(1))]),
        ] {
            assert!(
                matches!(
                    bad,
                    Err(ChainError::Config {
                        codec: CodecName::Lzma,
                        ..
                    })
                ),
                "{bad:?}"
            );
        }
    }

    fn vec_of<'a>(
        c: &[(&'a str, ConfigValue<'a>)],
    ) -> heapless::Vec<(&'a str, ConfigValue<'a>), 8> {
        c.iter().copied().collect()
    }
}
