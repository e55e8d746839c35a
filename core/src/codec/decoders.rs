//! One decoder per compressor, made on first use and reused: the dispatch from a configured
//! [`Compressor`] to the code that decodes it, and the one mechanism by which the std crate
//! plugs in a faster implementation of any codec ([`Backend`]).

#[cfg(feature = "alloc")]
use alloc::{boxed::Box, vec::Vec};

#[cfg(feature = "alloc")]
use super::blosc::BloscDecoder;
use super::blosc::InnerDecompress;
#[cfg(feature = "alloc")]
use super::deflate::RawInflate;
use super::deflate::{DeflateDecoder, DeflateFormat};
#[cfg(feature = "alloc")]
use super::zstd::ZstdDecoder;
use super::{CodecName, Compressor, DecodeError, Progress, Status, blosclz, lz4};

/// A decoder fed before it was started.
pub(crate) const NOT_STARTED: DecodeError = DecodeError::Internal {
    what: "a decoder fed before it was started",
};

/// A stateful decoder of one codec: zinto-core's own zstd decoder is one, and the std crate
/// (or any user) supplies others the same way, in place of zinto-core's (the C zstd library)
/// or where it has none (bzip2). It decodes wherever that codec appears: as a chunk's
/// compressor, and inside Blosc chunks.
#[cfg(feature = "alloc")]
pub trait Backend: Send {
    /// The codec it decodes.
    fn codec(&self) -> CodecName;

    /// Makes the decoder ready for a stream of `encoded_len` bytes that decodes to
    /// `decoded_len` bytes, configured as `compressor` says.
    ///
    /// # Errors
    /// A [`DecodeError`] if the stream cannot be started.
    fn start(
        &mut self,
        compressor: &Compressor,
        encoded_len: u64,
        decoded_len: usize,
    ) -> Result<(), DecodeError>;

    /// Decodes as much of `input` as it can into `dst[pos..]`, where `pos` is what this stream
    /// already wrote and `dst` is the same slice on every call of one stream.
    ///
    /// # Errors
    /// Corrupt or oversized streams.
    fn decode(&mut self, input: &[u8], dst: &mut [u8], pos: usize)
    -> Result<Progress, DecodeError>;

    /// Whether it can decode through a window ([`Backend::start_windowed`]). By default not:
    /// chunks of its codec that land in pieces are then decoded whole into scratch.
    fn windowed(&self) -> bool {
        false
    }

    /// As [`Backend::start`], for a stream decoded through [`Backend::decode_window`].
    ///
    /// # Errors
    /// [`DecodeError::Unsupported`] unless [`Backend::windowed`].
    fn start_windowed(
        &mut self,
        compressor: &Compressor,
        encoded_len: u64,
        decoded_len: usize,
    ) -> Result<(), DecodeError> {
        let _ = (compressor, encoded_len, decoded_len);
        Err(unsupported(self.codec(), "decoding through a window"))
    }

    /// Decodes as much of `input` as it can into `window`, from its start (the bytes written
    /// are `window[..written]`, the stream's next), keeping whatever the stream refers back
    /// to itself; [`Status::NeedsOutput`] when the window is full and more is decoded.
    ///
    /// # Errors
    /// As [`Backend::decode`], for a destination of the `decoded_len` given at the start.
    fn decode_window(&mut self, input: &[u8], window: &mut [u8]) -> Result<Progress, DecodeError> {
        let _ = (input, window);
        Err(unsupported(self.codec(), "decoding through a window"))
    }
}

/// The decoders of one caller, by codec.
#[derive(Default)]
pub(crate) struct Decoders {
    active: Option<Compressor>,
    pub(in crate::codec) deflate: Option<DeflateDecoder>,
    #[cfg(feature = "alloc")]
    pub(in crate::codec) blosc: Option<BloscDecoder<Vec<u8>>>,
    /// A stream decoded in one call once whole (numcodecs lz4): gathered here.
    #[cfg(feature = "alloc")]
    pub(in crate::codec) whole: Vec<u8>,
    #[cfg(feature = "alloc")]
    pub(in crate::codec) whole_len: usize,
    pub(in crate::codec) decoded_len: usize,
    /// Input a codec keeps between calls while a unit of its format spans two of them.
    pub(in crate::codec) carry: Carry,
    #[cfg(feature = "alloc")]
    backends: Vec<Box<dyn Backend>>,
    /// The backend decoding the active stream, if one does.
    #[cfg(feature = "alloc")]
    active_backend: Option<usize>,
    /// Makes the raw DEFLATE inflater of every gzip and zlib stream, in place of miniz_oxide.
    #[cfg(feature = "alloc")]
    inflater: Option<MakeInflater>,
    /// Whether the active stream is decoded through a window.
    windowed: bool,
    /// Where in the window a windowed Blosc stream goes on: a block part-decoded is staged
    /// in the window after what was produced, so the window moves on only at a block's edge
    /// (after [`Status::NeedsOutput`]).
    pub(in crate::codec) window_at: usize,
}

/// A few input bytes any codec may keep between calls, for the active stream, while a unit of
/// its format (base64's group of four characters) spans two calls: codecs that need no more
/// state than this need no field of their own here.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Carry {
    /// The bytes kept, `bytes[..len]`.
    pub(crate) bytes: [u8; 8],
    /// How many.
    pub(crate) len: usize,
}

/// Makes a [`RawInflate`] ([`ChunkDecoder::set_inflater`](super::ChunkDecoder::set_inflater)).
#[cfg(feature = "alloc")]
pub type MakeInflater = fn() -> Box<dyn RawInflate>;

/// A DEFLATE decoder for `format`, with the inflater `make` makes, or miniz_oxide.
fn new_deflate(
    format: DeflateFormat,
    #[cfg(feature = "alloc")] make: Option<MakeInflater>,
) -> DeflateDecoder {
    #[cfg(feature = "alloc")]
    if let Some(make) = make {
        return DeflateDecoder::with_inflater(format, make());
    }
    DeflateDecoder::new(format)
}

/// The inner codecs Blosc needs, borrowed from [`Decoders`] apart from the Blosc decoder.
#[cfg_attr(not(feature = "alloc"), allow(dead_code))]
pub(crate) struct Inner<'a> {
    deflate: &'a mut Option<DeflateDecoder>,
    #[cfg(feature = "alloc")]
    inflater: Option<MakeInflater>,
    #[cfg(feature = "alloc")]
    backends: &'a mut Vec<Box<dyn Backend>>,
}

fn unsupported(codec: CodecName, what: &'static str) -> DecodeError {
    DecodeError::Unsupported { codec, what }
}

/// The index in `backends` of the backend decoding `compressor`: the one plugged in for its
/// codec, or zinto-core's own where its codec is decoded through a backend (zstd's ruzstd),
/// added on first use.
#[cfg(feature = "alloc")]
fn backend_for(backends: &mut Vec<Box<dyn Backend>>, compressor: &Compressor) -> Option<usize> {
    let codec = compressor.name();
    if let Some(i) = backends.iter().position(|b| b.codec() == codec) {
        return Some(i);
    }
    backends.push(compressor.codec().builtin_backend()?);
    Some(backends.len() - 1)
}

/// Runs a streaming decoder over one whole stream and checks it ends exactly there.
#[cfg_attr(not(feature = "alloc"), allow(dead_code))]
fn whole_stream(
    codec: CodecName,
    src: &[u8],
    dst: &mut [u8],
    mut decode: impl FnMut(&[u8], &mut [u8], usize) -> Result<Progress, DecodeError>,
) -> Result<usize, DecodeError> {
    let p = decode(src, dst, 0)?;
    if p.status != Status::Done {
        return Err(DecodeError::Truncated { codec });
    }
    if p.consumed != src.len() {
        return Err(DecodeError::TrailingData {
            codec,
            extra: (src.len() - p.consumed.min(src.len())) as u64,
        });
    }
    Ok(p.written)
}

impl InnerDecompress for Inner<'_> {
    fn decompress(
        &mut self,
        codec: CodecName,
        src: &[u8],
        dst: &mut [u8],
    ) -> Result<usize, DecodeError> {
        #[cfg(feature = "alloc")]
        {
            let compressor = match codec {
                CodecName::Zstd => Some(Compressor::ZSTD),
                CodecName::Zlib => Some(Compressor::ZLIB),
                _ => None,
            };
            let backend = compressor
                .as_ref()
                .and_then(|c| Some((c, backend_for(self.backends, c)?)));
            if let Some((compressor, i)) = backend {
                let b = self.backends.get_mut(i).ok_or(NOT_STARTED)?;
                b.start(compressor, src.len() as u64, dst.len())?;
                return whole_stream(codec, src, dst, |i, d, p| b.decode(i, d, p));
            }
            if self.backends.iter().any(|b| b.codec() == codec) {
                return Err(unsupported(codec, "a backend for this codec inside Blosc"));
            }
        }
        match codec {
            CodecName::Lz4 | CodecName::BloscLz | CodecName::Snappy => {
                LzInner.decompress(codec, src, dst)
            }
            CodecName::Zlib => {
                #[cfg(feature = "alloc")]
                let make = self.inflater;
                let d = self.deflate.get_or_insert_with(|| {
                    new_deflate(
                        DeflateFormat::Zlib,
                        #[cfg(feature = "alloc")]
                        make,
                    )
                });
                d.reset(DeflateFormat::Zlib);
                whole_stream(codec, src, dst, |i, o, p| d.decode(i, o, p))
            }
            _ => Err(unsupported(
                codec,
                "this inner codec without the `alloc` feature",
            )),
        }
    }
}

/// Blosc's inner codecs that need neither a heap nor state: LZ4, BloscLZ and Snappy,
/// zinto-core's own.
/// For a [`BloscDecoder`](super::BloscDecoder) used on its own (firmware, tests); any other
/// inner codec (zlib, zstd) is refused by name. `ChunkDecoder` has its own, with every codec.
///
/// ```
/// use zinto_core::codec::{CodecName, InnerDecompress, LzInner};
///
/// let mut out = [0u8; 3];
/// // An LZ4 block of three literals.
/// assert_eq!(LzInner.decompress(CodecName::Lz4, &[0x30, b'a', b'b', b'c'], &mut out)?, 3);
/// assert_eq!(&out, b"abc");
/// # Ok::<(), zinto_core::codec::DecodeError>(())
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct LzInner;

impl InnerDecompress for LzInner {
    fn decompress(
        &mut self,
        codec: CodecName,
        src: &[u8],
        dst: &mut [u8],
    ) -> Result<usize, DecodeError> {
        match codec {
            CodecName::Lz4 => lz4::decompress(src, dst).map_err(lz4_error),
            CodecName::BloscLz => blosclz::decompress(src, dst).map_err(blosclz_error),
            CodecName::Snappy => super::snappy::decompress(src, dst),
            _ => Err(unsupported(
                codec,
                "this inner codec in LzInner (LZ4, BloscLZ and Snappy only)",
            )),
        }
    }
}

/// An LZ4 error as a [`DecodeError`].
pub(crate) fn lz4_error(e: lz4::Lz4Error) -> DecodeError {
    match e {
        lz4::Lz4Error::OutputOverflow { capacity, .. } => DecodeError::OutputOverflow {
            codec: CodecName::Lz4,
            capacity: capacity as u64,
        },
        lz4::Lz4Error::Truncated { .. } | lz4::Lz4Error::EmptyInput => DecodeError::Truncated {
            codec: CodecName::Lz4,
        },
        lz4::Lz4Error::ZeroOffset { .. } => DecodeError::Corrupt {
            codec: CodecName::Lz4,
            reason: lz4::ZERO_OFFSET,
        },
        lz4::Lz4Error::OffsetTooFar { .. } => DecodeError::Corrupt {
            codec: CodecName::Lz4,
            reason: "a match reaching before the start of the output",
        },
        _ => DecodeError::Corrupt {
            codec: CodecName::Lz4,
            reason: "a length that overflows",
        },
    }
}

/// A BloscLZ error as a [`DecodeError`].
pub(crate) fn blosclz_error(e: blosclz::BloscLzError) -> DecodeError {
    match e {
        blosclz::BloscLzError::OutputOverflow { capacity, .. } => DecodeError::OutputOverflow {
            codec: CodecName::BloscLz,
            capacity: capacity as u64,
        },
        blosclz::BloscLzError::Truncated { .. } | blosclz::BloscLzError::EmptyInput => {
            DecodeError::Truncated {
                codec: CodecName::BloscLz,
            }
        }
        blosclz::BloscLzError::DistanceTooFar { .. } => DecodeError::Corrupt {
            codec: CodecName::BloscLz,
            reason: "a match reaching before the start of the output",
        },
        _ => DecodeError::Corrupt {
            codec: CodecName::BloscLz,
            reason: "a length that overflows",
        },
    }
}

impl Decoders {
    /// Uses ruzstd with this window cap for zstd.
    #[cfg(feature = "alloc")]
    pub(crate) fn set_zstd_window_cap(&mut self, cap: u64) {
        let mut z = ZstdDecoder::new();
        z.set_window_cap(cap);
        self.set_backend(Box::new(z));
    }

    /// Uses `backend` for its codec from now on (replacing an earlier one for the same codec).
    #[cfg(feature = "alloc")]
    pub(crate) fn set_backend(&mut self, backend: Box<dyn Backend>) {
        let codec = backend.codec();
        self.backends.retain(|b| b.codec() != codec);
        self.backends.push(backend);
    }

    /// Whether a stream of `compressor` can be decoded through a window.
    pub(crate) fn can_window(&self, compressor: &Compressor) -> bool {
        #[cfg(feature = "alloc")]
        if let Some(b) = self
            .backends
            .iter()
            .find(|b| b.codec() == compressor.name())
        {
            return b.windowed();
        }
        // zinto-core's own decoder, a built-in backend or not.
        compressor.codec().can_window()
    }

    /// Starts a stream of `compressor`, decoded into a whole destination or (`windowed`)
    /// through a window.
    pub(crate) fn start(
        &mut self,
        compressor: &Compressor,
        encoded_len: u64,
        decoded_len: usize,
        windowed: bool,
    ) -> Result<(), DecodeError> {
        self.active = None;
        self.decoded_len = decoded_len;
        self.carry = Carry::default();
        self.windowed = windowed;
        self.window_at = 0;
        if windowed && !self.can_window(compressor) {
            return Err(unsupported(compressor.name(), "decoding through a window"));
        }
        #[cfg(feature = "alloc")]
        {
            self.active_backend = backend_for(&mut self.backends, compressor);
            if let Some(b) = self.active_backend.and_then(|i| self.backends.get_mut(i)) {
                if windowed {
                    b.start_windowed(compressor, encoded_len, decoded_len)?;
                } else {
                    b.start(compressor, encoded_len, decoded_len)?;
                }
                self.active = Some(*compressor);
                return Ok(());
            }
        }
        compressor
            .codec()
            .start(self, encoded_len, decoded_len, windowed)?;
        self.active = Some(*compressor);
        Ok(())
    }

    /// Resets (or makes) the DEFLATE decoder for a stream of `format`.
    pub(crate) fn reset_deflate(&mut self, format: DeflateFormat) {
        match &mut self.deflate {
            Some(d) => d.reset(format),
            None => {
                self.deflate = Some(new_deflate(
                    format,
                    #[cfg(feature = "alloc")]
                    self.inflater,
                ));
            }
        }
    }

    /// The Blosc decoder, and the inner decoders it borrows apart from it.
    #[cfg(feature = "alloc")]
    pub(crate) fn blosc_and_inner(&mut self) -> Option<(&mut BloscDecoder<Vec<u8>>, Inner<'_>)> {
        let blosc = self.blosc.as_mut()?;
        let inner = Inner {
            deflate: &mut self.deflate,
            inflater: self.inflater,
            backends: &mut self.backends,
        };
        Some((blosc, inner))
    }

    /// Inflates gzip and zlib streams with what `make` makes from now on.
    #[cfg(feature = "alloc")]
    pub(crate) fn set_inflater(&mut self, make: MakeInflater) {
        self.inflater = Some(make);
        self.deflate = None;
    }

    /// Decodes the next piece of the active stream into `dst[pos..]`.
    pub(crate) fn decode(
        &mut self,
        input: &[u8],
        dst: &mut [u8],
        pos: usize,
    ) -> Result<Progress, DecodeError> {
        let Some(active) = self.active.filter(|_| !self.windowed) else {
            return Err(DecodeError::Internal {
                what: "a decoder fed a destination before it was started for one",
            });
        };
        #[cfg(feature = "alloc")]
        if let Some(b) = self.active_backend.and_then(|i| self.backends.get_mut(i)) {
            return b.decode(input, dst, pos);
        }
        active.codec().decode(self, input, dst, pos)
    }

    /// Decodes the next piece of the active windowed stream into `window`, of which `written`
    /// bytes were already decoded. Returns the progress and where in `window` the bytes written
    /// start: 0, but for DEFLATE, whose window is a ring (the same slice on every call, a power
    /// of two of at least [`RING_MIN`](super::deflate::RING_MIN) bytes).
    pub(crate) fn decode_window(
        &mut self,
        input: &[u8],
        window: &mut [u8],
        written: usize,
    ) -> Result<(Progress, usize), DecodeError> {
        let not_started = DecodeError::Internal {
            what: "a decoder fed a window before it was started for one",
        };
        let Some(active) = self.active.filter(|_| self.windowed) else {
            return Err(not_started);
        };
        #[cfg(feature = "alloc")]
        if let Some(b) = self.active_backend.and_then(|i| self.backends.get_mut(i)) {
            return Ok((b.decode_window(input, window)?, 0));
        }
        active.codec().decode_window(self, input, window, written)
    }

    /// Decodes the next piece of the active DEFLATE stream (gzip, zlib) into `dst[pos..]`.
    pub(crate) fn inflate(
        &mut self,
        input: &[u8],
        dst: &mut [u8],
        pos: usize,
    ) -> Result<Progress, DecodeError> {
        self.deflate
            .as_mut()
            .ok_or(NOT_STARTED)?
            .decode(input, dst, pos)
    }

    /// Decodes the next piece of the active DEFLATE stream into the ring `window`, of which
    /// `written` bytes were decoded before; returns where in the ring the new bytes start.
    pub(crate) fn inflate_ring(
        &mut self,
        input: &[u8],
        window: &mut [u8],
        written: usize,
    ) -> Result<(Progress, usize), DecodeError> {
        let at = written.checked_rem(window.len()).ok_or(NOT_STARTED)?;
        let d = self.deflate.as_mut().ok_or(NOT_STARTED)?;
        Ok((d.decode_ring(input, window, at)?, at))
    }

    /// The Blosc decoder, made on first use.
    #[cfg(feature = "alloc")]
    pub(crate) fn blosc(&mut self) -> &mut BloscDecoder<Vec<u8>> {
        self.blosc
            .get_or_insert_with(|| BloscDecoder::new(Vec::new()))
    }
}
