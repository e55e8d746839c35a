//! `zlib` and `gzip`: DEFLATE inflated straight into the destination, by miniz_oxide or by a
//! faster [`RawInflate`] the std crate plugs in.
//!
//! With miniz_oxide the destination doubles as the DEFLATE window (its non-wrapping mode), so
//! nothing is allocated: the whole state is the [`DeflateDecoder`] the caller owns. The wrappers
//! are read here, whichever inflater decodes the raw DEFLATE body: zlib's header and Adler-32,
//! gzip's header, CRC-32 and ISIZE, so that both report the same faults alike.

use super::error::{INPUT_OVERRUN, OUTPUT_OVERRUN};
use miniz_oxide::inflate::TINFLStatus;
use miniz_oxide::inflate::core::{DecompressorOxide, decompress, inflate_flags};

use super::crc::{CRC32, Crc32};
use super::{CodecName, DecodeError, Progress, Status};

/// Which wrapper surrounds the DEFLATE data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeflateFormat {
    /// RFC 1950: two-byte header, Adler-32 trailer.
    Zlib,
    /// RFC 1952: header with optional fields, CRC-32 and ISIZE trailer.
    Gzip,
}

impl DeflateFormat {
    fn codec(self) -> CodecName {
        match self {
            Self::Zlib => CodecName::Zlib,
            Self::Gzip => CodecName::Gzip,
        }
    }
}

const FHCRC: u8 = 0x02;
const FEXTRA: u8 = 0x04;
const FNAME: u8 = 0x08;
const FCOMMENT: u8 = 0x10;
const FRESERVED: u8 = 0xE0;

/// A raw DEFLATE decoder (RFC 1951, no wrapper). zinto-core's own is miniz_oxide's
/// ([`MinizInflate`]); another plugs in through the same trait, for
/// [`DeflateDecoder::with_inflater`], and through [`ChunkDecoder::set_inflater`] for every
/// gzip and zlib stream a decoder meets (Blosc's inner zlib included): the std crate's
/// zlib-rs.
///
/// [`ChunkDecoder::set_inflater`]: super::ChunkDecoder::set_inflater
pub trait RawInflate: Send {
    /// Starts a new stream.
    fn reset(&mut self);

    /// Decodes as much of `input` as it can into `dst[pos..]`, where `dst[..pos]` holds the
    /// stream's earlier output when `dst` is the whole destination (an inflater keeping its
    /// own window need not look at it). Returns (consumed, written, where it stands).
    ///
    /// # Errors
    /// [`DecodeError::Corrupt`] for invalid DEFLATE data (the decoder names the stream's codec
    /// in it, gzip or zlib).
    fn inflate(
        &mut self,
        input: &[u8],
        dst: &mut [u8],
        pos: usize,
    ) -> Result<(usize, usize, RawStatus), DecodeError>;

    /// As [`RawInflate::inflate`], into a ring: `ring` is the same slice on every call of the
    /// stream, and its bytes before `pos` (wrapping around) are the stream's latest output.
    /// By default the same call: an inflater that keeps its own window writes at `pos` and
    /// never reads the ring.
    ///
    /// # Errors
    /// As [`RawInflate::inflate`].
    fn inflate_ring(
        &mut self,
        input: &[u8],
        ring: &mut [u8],
        pos: usize,
    ) -> Result<(usize, usize, RawStatus), DecodeError> {
        self.inflate(input, ring, pos)
    }
}

/// miniz_oxide's inflater, zinto-core's own [`RawInflate`]: it keeps no window, reading back
/// into the destination (or the ring) instead, so it needs no heap.
pub struct MinizInflate(DecompressorOxide);

impl MinizInflate {
    /// An inflater with nothing started.
    pub fn new() -> Self {
        Self(DecompressorOxide::new())
    }

    fn run(
        &mut self,
        input: &[u8],
        dst: &mut [u8],
        pos: usize,
        ring: bool,
    ) -> Result<(usize, usize, RawStatus), DecodeError> {
        let mut flags = inflate_flags::TINFL_FLAG_HAS_MORE_INPUT;
        if !ring {
            flags |= inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
        }
        let (status, n_in, n_out) = decompress(&mut self.0, input, dst, pos, flags);
        // zinto-core names the stream's codec (gzip or zlib) in place of Zlib here.
        let status = match status {
            TINFLStatus::Done => RawStatus::Done,
            TINFLStatus::NeedsMoreInput => RawStatus::NeedsInput,
            TINFLStatus::HasMoreOutput => RawStatus::OutputFull,
            TINFLStatus::FailedCannotMakeProgress => {
                return Err(DecodeError::Truncated {
                    codec: CodecName::Zlib,
                });
            }
            _ => {
                return Err(DecodeError::Corrupt {
                    codec: CodecName::Zlib,
                    reason: "invalid DEFLATE data",
                });
            }
        };
        Ok((n_in, n_out, status))
    }
}

impl Default for MinizInflate {
    fn default() -> Self {
        Self::new()
    }
}

impl RawInflate for MinizInflate {
    fn reset(&mut self) {
        self.0.init();
    }

    fn inflate(
        &mut self,
        input: &[u8],
        dst: &mut [u8],
        pos: usize,
    ) -> Result<(usize, usize, RawStatus), DecodeError> {
        self.run(input, dst, pos, false)
    }

    fn inflate_ring(
        &mut self,
        input: &[u8],
        ring: &mut [u8],
        pos: usize,
    ) -> Result<(usize, usize, RawStatus), DecodeError> {
        self.run(input, ring, pos, true)
    }
}

/// Where a raw DEFLATE stream stands after one [`RawInflate::inflate`] call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RawStatus {
    /// The final block ended.
    Done,
    /// It needs more input.
    NeedsInput,
    /// `dst` is full and the stream may have more to write (or may only need input to end).
    OutputFull,
}

/// The inflater of a [`DeflateDecoder`].
#[allow(clippy::large_enum_variant)] // miniz_oxide's state stays inline: no heap without `alloc`
enum Inflater {
    Miniz(MinizInflate),
    #[cfg(feature = "alloc")]
    Other(alloc::boxed::Box<dyn RawInflate>),
}

/// Where the wrapper parser stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// The two zlib header bytes; `n` seen so far, the first in `cmf`.
    ZlibHeader { n: u8, cmf: u8 },
    /// The 4-byte zlib trailer (Adler-32, big-endian).
    ZlibTrailer { n: u8 },
    /// The 10 fixed header bytes; `n` seen so far.
    Fixed { n: u8 },
    /// Two bytes of FEXTRA length.
    ExtraLen { n: u8, len: u16 },
    /// Skipping `left` bytes of FEXTRA.
    Extra { left: u16 },
    /// Skipping a zero-terminated file name.
    Name,
    /// Skipping a zero-terminated comment.
    Comment,
    /// Two bytes of header CRC-16.
    HeaderCrc { n: u8, value: u16 },
    /// DEFLATE data.
    Body,
    /// The 8-byte gzip trailer (CRC-32, ISIZE).
    Trailer { n: u8 },
    /// Finished and verified.
    Done,
}

/// A streaming zlib or gzip decoder; reusable across chunks with [`DeflateDecoder::reset`].
pub struct DeflateDecoder {
    format: DeflateFormat,
    inflate: Inflater,
    phase: Phase,
    flags: u8,
    header_crc: Crc32,
    data_crc: Crc32,
    /// zlib: the Adler-32 of what was decoded so far.
    adler: adler2::Adler32,
    trailer: [u8; 8],
    body_written: u64,
}

impl core::fmt::Debug for DeflateDecoder {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DeflateDecoder")
            .field("format", &self.format)
            .field("phase", &self.phase)
            .field("body_written", &self.body_written)
            .finish_non_exhaustive()
    }
}

/// The most one byte of DEFLATE decodes to, rounded up: a length-258 match costs at least
/// two bits, so about 1032 bytes a byte.
pub(crate) const MAX_RATIO: u64 = 1032;

/// The smallest ring [`DeflateDecoder::decode_ring`] takes: DEFLATE's window.
pub const RING_MIN: usize = 32 * 1024;

/// Where a stream's DEFLATE body stands after one call into miniz_oxide.
enum Body {
    Finished,
    /// It wants more input.
    More,
    /// It filled the ring to its end and has more to write.
    RingFull,
}

impl DeflateDecoder {
    /// A decoder for one `format` stream, inflating with miniz_oxide.
    pub fn new(format: DeflateFormat) -> Self {
        Self::with(format, Inflater::Miniz(MinizInflate::new()))
    }

    /// A decoder for one `format` stream, inflating with `inflater`.
    #[cfg(feature = "alloc")]
    pub fn with_inflater(
        format: DeflateFormat,
        inflater: alloc::boxed::Box<dyn RawInflate>,
    ) -> Self {
        Self::with(format, Inflater::Other(inflater))
    }

    fn with(format: DeflateFormat, inflate: Inflater) -> Self {
        let mut d = Self {
            format,
            inflate,
            phase: Phase::Body,
            flags: 0,
            header_crc: Crc32::new(&CRC32),
            data_crc: Crc32::new(&CRC32),
            adler: adler2::Adler32::new(),
            trailer: [0; 8],
            body_written: 0,
        };
        d.reset(format);
        d
    }

    /// Its inflater, through the one trait.
    fn raw(&mut self) -> &mut dyn RawInflate {
        match &mut self.inflate {
            Inflater::Miniz(m) => m,
            #[cfg(feature = "alloc")]
            Inflater::Other(o) => o.as_mut(),
        }
    }

    /// Makes the decoder ready for a new stream of `format`, keeping its memory.
    pub fn reset(&mut self, format: DeflateFormat) {
        self.format = format;
        self.raw().reset();
        self.phase = match format {
            DeflateFormat::Zlib => Phase::ZlibHeader { n: 0, cmf: 0 },
            DeflateFormat::Gzip => Phase::Fixed { n: 0 },
        };
        self.flags = 0;
        self.header_crc = Crc32::new(&CRC32);
        self.data_crc = Crc32::new(&CRC32);
        self.adler = adler2::Adler32::new();
        self.trailer = [0; 8];
        self.body_written = 0;
    }

    fn corrupt(&self, reason: &'static str) -> DecodeError {
        DecodeError::Corrupt {
            codec: self.format.codec(),
            reason,
        }
    }

    /// Decodes as much of `input` as it can into `dst[pos..]`, where `dst[..pos]` holds what
    /// this stream already wrote (it is the DEFLATE window).
    ///
    /// # Errors
    /// [`DecodeError::Corrupt`] for an invalid header or DEFLATE data,
    /// [`DecodeError::ChecksumMismatch`] for a bad Adler-32, CRC-32 or header CRC,
    /// [`DecodeError::SizeMismatch`] for a wrong ISIZE, [`DecodeError::OutputOverflow`] if the
    /// stream holds more than `dst`.
    pub fn decode(
        &mut self,
        input: &[u8],
        dst: &mut [u8],
        pos: usize,
    ) -> Result<Progress, DecodeError> {
        self.run(input, dst, pos, false)
    }

    /// Decodes as much of `input` as it can into the ring `ring`, from `ring[pos..]`: the
    /// DEFLATE window is the ring itself, so it must be the same slice on every call of one
    /// stream, its length a power of two of at least [`RING_MIN`] bytes. The bytes written are
    /// `ring[pos..pos + written]`; [`Status::NeedsOutput`] when the ring's end is reached with
    /// more to write: use those bytes, then call again with `pos` 0 (and the rest of the input).
    ///
    /// # Errors
    /// As [`DeflateDecoder::decode`]; [`DecodeError::Internal`] for a ring of another size.
    pub fn decode_ring(
        &mut self,
        input: &[u8],
        ring: &mut [u8],
        pos: usize,
    ) -> Result<Progress, DecodeError> {
        if ring.len() < RING_MIN || !ring.len().is_power_of_two() || pos >= ring.len() {
            return Err(DecodeError::Internal {
                what: "a DEFLATE ring not a power of two of 32 KiB or more, or a position past it",
            });
        }
        self.run(input, ring, pos, true)
    }

    fn run(
        &mut self,
        input: &[u8],
        dst: &mut [u8],
        pos: usize,
        ring: bool,
    ) -> Result<Progress, DecodeError> {
        let mut consumed = 0;
        let mut written = 0;
        loop {
            let rest = input.get(consumed..).ok_or(INPUT_OVERRUN)?;
            match self.phase {
                Phase::Done => break,
                Phase::Body => {
                    let (n_in, n_out, step) = self.inflate_some(rest, dst, pos + written, ring)?;
                    consumed += n_in;
                    written += n_out;
                    match step {
                        Body::Finished => {}
                        Body::More => break,
                        Body::RingFull => {
                            return Ok(Progress::with_status(
                                consumed,
                                written,
                                Status::NeedsOutput,
                            ));
                        }
                    }
                }
                _ => {
                    let Some(&byte) = rest.first() else { break };
                    self.wrapper_byte(byte)?;
                    consumed += 1;
                }
            }
        }
        Ok(Progress::new(consumed, written, self.phase == Phase::Done))
    }

    /// One call into the inflater, into `dst` or (with `ring`) the ring `dst`. Returns
    /// (consumed, written, where the body stands).
    fn inflate_some(
        &mut self,
        input: &[u8],
        dst: &mut [u8],
        pos: usize,
        ring: bool,
    ) -> Result<(usize, usize, Body), DecodeError> {
        let codec = self.format.codec();
        let raw = self.raw();
        let result = if ring {
            raw.inflate_ring(input, dst, pos)
        } else {
            raw.inflate(input, dst, pos)
        };
        let (n_in, n_out, status) = result.map_err(|e| match e {
            DecodeError::Corrupt { reason, .. } => DecodeError::Corrupt { codec, reason },
            DecodeError::Truncated { .. } => DecodeError::Truncated { codec },
            other => other,
        })?;
        let new = dst
            .get(pos..pos.saturating_add(n_out))
            .ok_or(OUTPUT_OVERRUN)?;
        match self.format {
            DeflateFormat::Gzip => self.data_crc.update(new),
            DeflateFormat::Zlib => self.adler.write_slice(new),
        }
        self.body_written = self.body_written.wrapping_add(n_out as u64);
        match status {
            RawStatus::Done => {
                self.phase = match self.format {
                    DeflateFormat::Zlib => Phase::ZlibTrailer { n: 0 },
                    DeflateFormat::Gzip => Phase::Trailer { n: 0 },
                };
                Ok((n_in, n_out, Body::Finished))
            }
            RawStatus::NeedsInput => Ok((n_in, n_out, Body::More)),
            // A ring is full at its end: the caller moves on to its start.
            RawStatus::OutputFull if ring && pos + n_out == dst.len() => {
                Ok((n_in, n_out, Body::RingFull))
            }
            // With the destination full, an inflater also says this when it merely needs more
            // input (say, for the end-of-block code): only input left unread proves overflow.
            RawStatus::OutputFull if n_in == input.len() && !ring => Ok((n_in, n_out, Body::More)),
            RawStatus::OutputFull => Err(DecodeError::OutputOverflow {
                codec,
                capacity: dst.len() as u64,
            }),
        }
    }

    /// Advances the gzip wrapper parser by one byte.
    fn wrapper_byte(&mut self, b: u8) -> Result<(), DecodeError> {
        let in_header = matches!(
            self.phase,
            Phase::Fixed { .. }
                | Phase::ExtraLen { .. }
                | Phase::Extra { .. }
                | Phase::Name
                | Phase::Comment
        );
        if in_header {
            self.header_crc.update(&[b]);
        }
        self.phase = match self.phase {
            Phase::ZlibHeader { n, cmf } => self.zlib_header_byte(n, cmf, b)?,
            Phase::ZlibTrailer { n } => self.zlib_trailer_byte(n, b)?,
            Phase::Fixed { n } => self.gzip_fixed_byte(n, b)?,
            Phase::ExtraLen { n: 0, .. } => Phase::ExtraLen {
                n: 1,
                len: u16::from(b),
            },
            Phase::ExtraLen { len, .. } => {
                let left = len | (u16::from(b) << 8);
                if left == 0 {
                    self.after(FEXTRA)
                } else {
                    Phase::Extra { left }
                }
            }
            Phase::Extra { left } => {
                if left <= 1 {
                    self.after(FEXTRA)
                } else {
                    Phase::Extra { left: left - 1 }
                }
            }
            Phase::Name if b == 0 => self.after(FNAME),
            Phase::Comment if b == 0 => self.after(FCOMMENT),
            Phase::Name | Phase::Comment => self.phase,
            Phase::HeaderCrc { n: 0, .. } => Phase::HeaderCrc {
                n: 1,
                value: u16::from(b),
            },
            Phase::HeaderCrc { value, .. } => self.header_crc_byte(value, b)?,
            Phase::Trailer { n } => {
                if let Some(slot) = self.trailer.get_mut(usize::from(n)) {
                    *slot = b;
                }
                if n < 7 {
                    Phase::Trailer { n: n + 1 }
                } else {
                    self.check_trailer()?;
                    Phase::Done
                }
            }
            Phase::Body | Phase::Done => self.phase,
        };
        Ok(())
    }

    /// Byte `n` of the zlib header (`cmf` is the first).
    fn zlib_header_byte(&self, n: u8, cmf: u8, b: u8) -> Result<Phase, DecodeError> {
        if n == 0 {
            if b & 0x0F != 8 {
                return Err(self.corrupt("zlib method is not DEFLATE"));
            }
            if b >> 4 > 7 {
                return Err(self.corrupt("zlib window larger than 32 KiB"));
            }
            return Ok(Phase::ZlibHeader { n: 1, cmf: b });
        }
        if (u16::from(cmf) << 8 | u16::from(b)) % 31 != 0 {
            return Err(self.corrupt("zlib header check bits do not match"));
        }
        if b & 0x20 != 0 {
            return Err(DecodeError::Unsupported {
                codec: CodecName::Zlib,
                what: "zlib streams with a preset dictionary",
            });
        }
        Ok(Phase::Body)
    }

    /// Byte `n` of the zlib trailer; the last checks the Adler-32.
    fn zlib_trailer_byte(&mut self, n: u8, b: u8) -> Result<Phase, DecodeError> {
        if let Some(slot) = self.trailer.get_mut(usize::from(n)) {
            *slot = b;
        }
        if n < 3 {
            return Ok(Phase::ZlibTrailer { n: n + 1 });
        }
        let [a, b2, c, d, ..] = self.trailer;
        let expected = u32::from_be_bytes([a, b2, c, d]);
        let found = self.adler.checksum();
        if expected != found {
            return Err(DecodeError::ChecksumMismatch {
                codec: CodecName::Zlib,
                expected,
                found,
            });
        }
        Ok(Phase::Done)
    }

    /// Byte `n` of the gzip header's ten fixed bytes (magic, method, flags, ...).
    fn gzip_fixed_byte(&mut self, n: u8, b: u8) -> Result<Phase, DecodeError> {
        // z5py stores zlib streams under its `gzip` codec: a first byte that is no gzip magic
        // but a zlib header's (DEFLATE method) begins one, read as zlib with its own checks.
        if n == 0 && b != 0x1F && b & 0x0F == 8 {
            self.format = DeflateFormat::Zlib;
            return self.zlib_header_byte(0, 0, b);
        }
        match (n, b) {
            (0, 0x1F) | (1, 0x8B) | (2, 8) => {}
            (0 | 1, _) => return Err(self.corrupt("bad gzip magic")),
            (2, _) => return Err(self.corrupt("gzip method is not DEFLATE")),
            (3, f) if f & FRESERVED != 0 => {
                return Err(self.corrupt("reserved gzip flag bits set"));
            }
            (3, f) => self.flags = f,
            _ => {}
        }
        Ok(if n < 9 {
            Phase::Fixed { n: n + 1 }
        } else {
            self.after(FEXTRA - 1)
        })
    }

    /// The second byte of the gzip header's CRC-16, checked against the header read.
    fn header_crc_byte(&self, low: u16, b: u8) -> Result<Phase, DecodeError> {
        let stored = low | (u16::from(b) << 8);
        // The low 16 bits of the CRC-32 of the header.
        #[allow(clippy::cast_possible_truncation)]
        let found = (self.header_crc.value() & 0xFFFF) as u16;
        if stored != found {
            return Err(DecodeError::ChecksumMismatch {
                codec: CodecName::Gzip,
                expected: u32::from(stored),
                found: u32::from(found),
            });
        }
        Ok(Phase::Body)
    }

    /// The header phase that follows the optional field `done` (a flag bit), in RFC 1952 order.
    fn after(&self, done: u8) -> Phase {
        let f = self.flags;
        if done < FEXTRA && f & FEXTRA != 0 {
            Phase::ExtraLen { n: 0, len: 0 }
        } else if done < FNAME && f & FNAME != 0 {
            Phase::Name
        } else if done < FCOMMENT && f & FCOMMENT != 0 {
            Phase::Comment
        } else if f & FHCRC != 0 {
            Phase::HeaderCrc { n: 0, value: 0 }
        } else {
            Phase::Body
        }
    }

    fn check_trailer(&self) -> Result<(), DecodeError> {
        let [c0, c1, c2, c3, s0, s1, s2, s3] = self.trailer;
        let stored_crc = u32::from_le_bytes([c0, c1, c2, c3]);
        let found = self.data_crc.value();
        if stored_crc != found {
            return Err(DecodeError::ChecksumMismatch {
                codec: CodecName::Gzip,
                expected: stored_crc,
                found,
            });
        }
        let isize = u32::from_le_bytes([s0, s1, s2, s3]);
        // ISIZE is the length modulo 2^32.
        let got = (self.body_written & 0xFFFF_FFFF) as u32;
        if isize != got {
            return Err(DecodeError::SizeMismatch {
                codec: CodecName::Gzip,
                expected: u64::from(isize),
                got: u64::from(got),
            });
        }
        Ok(())
    }
}
