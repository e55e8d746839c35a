//! Blosc chunks and the block decoders inside them (LZ4, BloscLZ): hostile input, and
//! differential runs against reference implementations (lz4_flex; c-blosc from the fuzz crate).

use zinto::core::codec::blosc::{BloscCname, BloscShuffle};
use zinto::core::codec::{
    BloscConfig, BytesCodecs, Checksums, ChunkDecoder, CodecName, Compressor, DecodeError, Status,
    blosclz, lz4, lz4_encode,
};

use super::decode::{assert_same_outcome, feed_windowed, ruzstd_bound, window_for};
use super::input::Input;
use crate::alloc::with_cap;
use crate::guard::Guarded;

/// Blosc, with whatever configuration (decoding follows each chunk's header).
pub const BLOSC: BytesCodecs = BytesCodecs {
    compressor: Some(Compressor::Blosc(BloscConfig {
        cname: Some(BloscCname::Lz4),
        clevel: None,
        shuffle: Some(BloscShuffle::Shuffle),
        typesize: None,
        blocksize: None,
    })),
    checksums: Checksums::NONE,
};

/// The heap a Blosc chunk of `stored` bytes decoding to `dst_len` may take
/// (docs/memory.md): its scratch, the block table and one block (each at most the stored or
/// the decoded size), and, for zstd inside, ruzstd's bound for a frame of at most `dst_len`.
pub fn blosc_bound(stored: usize, dst_len: usize) -> usize {
    stored + dst_len + ruzstd_bound(dst_len.max(1024).next_power_of_two())
}

/// Decodes `stored` as a Blosc chunk of `dst_len` bytes, fed in pieces of `piece` bytes, into
/// a guarded destination, within [`blosc_bound`]: the bytes, or the error. The decoder has the
/// std crate's backends, as a read has: with `zstd-c`, zstd inside Blosc is the C library's,
/// as in c-blosc (ruzstd's own agreement with it is `zstd_differential`'s business).
pub fn decode_blosc_chunk(
    stored: &[u8],
    dst_len: usize,
    piece: usize,
) -> Result<Vec<u8>, DecodeError> {
    let mut out = Guarded::new(dst_len);
    let mut decoder = ChunkDecoder::new();
    zinto::backend::install(&mut decoder)?;
    let result: Result<Status, DecodeError> = with_cap(blosc_bound(stored.len(), dst_len), || {
        decoder.start(&BLOSC, stored.len() as u64, dst_len)?;
        let mut status = decoder.feed(&[], out.dst())?.status;
        for p in stored.chunks(piece.max(1)) {
            status = decoder.feed(p, out.dst())?.status;
        }
        Ok(status)
    });
    out.check();
    match result? {
        Status::Done => {
            assert_eq!(
                decoder.written(),
                dst_len,
                "done before filling the destination"
            );
            Ok(out.bytes().to_vec())
        }
        _ => Err(DecodeError::Truncated {
            codec: CodecName::Blosc,
        }),
    }
}

/// `[piece, dst_len: u16, stored...]`: `stored` as a Blosc chunk through a [`ChunkDecoder`],
/// in pieces of `piece` bytes, into a guarded destination of `dst_len` bytes, within
/// [`blosc_bound`]. Whatever the split, the outcome is the same as fed whole.
pub fn decode_blosc(data: &[u8]) {
    let mut input = Input::new(data);
    let piece = usize::from(input.u8());
    let dst_len = usize::from(input.u16());
    let stored = input.rest();
    let split = decode_blosc_chunk(stored, dst_len, piece);
    let whole = decode_blosc_chunk(stored, dst_len, stored.len());
    assert_eq!(
        split, whole,
        "the outcome depends on how the input is split"
    );
    // Through a window of at least one block: the same outcome.
    let window = window_for(&BLOSC, piece, stored, dst_len);
    let mut decoder = ChunkDecoder::new();
    if zinto::backend::install(&mut decoder).is_ok() {
        let windowed = with_cap(
            blosc_bound(stored.len(), dst_len) + window + dst_len,
            || feed_windowed(&mut decoder, &BLOSC, stored, piece, dst_len, window),
        );
        assert_same_outcome(&whole.map(Some), &windowed);
    }
}

/// `[dst_len: u16, block...]`: one LZ4 block into a guarded destination of `dst_len` bytes,
/// allocating nothing. Where lz4_flex (safe decoder) and zinto both decode, the bytes agree;
/// and the block's own bytes, compressed by lz4_flex and by zinto's streaming encoder (through
/// output windows of `dst_len % 97 + 1` bytes, allocating nothing), decode back exactly.
pub fn decode_lz4(data: &[u8]) {
    let mut input = Input::new(data);
    let dst_len = usize::from(input.u16());
    let block = input.rest();
    let mut out = Guarded::new(dst_len);
    let ours = with_cap(0, || lz4::decompress(block, out.dst()));
    out.check();
    let mut theirs = vec![0u8; dst_len];
    if let (Ok(n), Ok(m)) = (ours, lz4_flex::block::decompress_into(block, &mut theirs)) {
        assert_eq!(n, m, "lz4_flex decoded another length");
        assert!(
            out.bytes()[..n] == theirs[..m],
            "lz4_flex decoded other bytes"
        );
    }
    let packed = lz4_flex::block::compress(block);
    let mut back = Guarded::new(block.len());
    let n = with_cap(0, || lz4::decompress(&packed, back.dst()));
    back.check();
    assert_eq!(n, Ok(block.len()), "an lz4_flex block did not decode");
    assert!(
        back.bytes() == block,
        "an lz4_flex block decoded to other bytes"
    );
    let ours = encode_lz4(block, dst_len % 97 + 1);
    let theirs = lz4_flex::block::decompress(&ours, block.len());
    assert!(
        theirs.as_deref().ok() == Some(block),
        "lz4_flex did not decode zinto's block back"
    );
}

/// `block` through zinto's LZ4 block encoder, `window` bytes of output at a time.
fn encode_lz4(block: &[u8], window: usize) -> Vec<u8> {
    let mut table = Box::new([0u32; lz4_encode::HASH_ENTRIES]);
    let mut encoder = lz4_encode::Lz4Encoder::new();
    let mut out = vec![0u8; window];
    let mut stored = Vec::with_capacity(block.len() + block.len() / 255 + 16);
    loop {
        let step = with_cap(0, || encoder.encode(block, &mut out, &mut table));
        let (n, done) = step.expect("a block under 4 GiB");
        stored.extend_from_slice(&out[..n]);
        if done {
            return stored;
        }
        assert_eq!(n, window, "an unfinished call filled its window");
    }
}

/// `[dst_len: u16, stream...]`: one BloscLZ stream into a guarded destination of `dst_len`
/// bytes, allocating nothing. (Its reference is c-blosc, through `blosc_differential`.)
pub fn decode_blosclz(data: &[u8]) {
    let mut input = Input::new(data);
    let dst_len = usize::from(input.u16());
    let stream = input.rest();
    let mut out = Guarded::new(dst_len);
    let n = with_cap(0, || blosclz::decompress(stream, out.dst()));
    out.check();
    if let Ok(n) = n {
        assert!(n <= dst_len, "wrote {n} bytes into {dst_len}");
    }
}

/// Decodes a Blosc chunk the way a reference library does: `Some(bytes)` or `None` if it
/// refuses the chunk.
pub type Reference = fn(&[u8], usize) -> Option<Vec<u8>>;

/// Errors by which zinto is stricter than c-blosc 1.21 on purpose (docs/reliability.md):
/// gaps between blocks stored in order, blocks out of order that share bytes or start inside
/// the table, stream sizes larger than the stream, empty streams, bytes after an inner
/// stream; an LZ4 match offset of 0 (the format
/// forbids it; lz4 copies from the byte being written); a zstd stream that is more than one
/// frame (zstd's own decoders are compared by `zstd_differential`).
fn stricter_on_purpose(e: &DecodeError, inner: u8) -> bool {
    match e {
        DecodeError::Block { .. } | DecodeError::TrailingData { .. } => true,
        DecodeError::Corrupt {
            codec: CodecName::Lz4,
            reason,
        } => *reason == lz4::ZERO_OFFSET,
        _ => inner == ZSTD_INNER,
    }
}

/// Blosc's inner compressor codes (the flags' top three bits).
const LZ4_INNER: u8 = 1;
const ZSTD_INNER: u8 = 4;

/// `[chunk...]`: one Blosc chunk, whose header says what it decodes to (at most 1 MiB here),
/// through zinto and through `reference` (c-blosc, from the fuzz crate; `None` in `cargo test`,
/// which then checks zinto alone). What zinto decodes, the reference decodes to the same bytes;
/// what the reference decodes, zinto decodes too, unless it refuses on one of its stricter
/// rules.
pub fn blosc_differential(data: &[u8], reference: Option<Reference>) {
    let Some(nbytes) = data.get(4..8) else {
        return;
    };
    let nbytes = u32::from_le_bytes([nbytes[0], nbytes[1], nbytes[2], nbytes[3]]) as usize;
    if nbytes > 1 << 20 {
        return;
    }
    let ours = decode_blosc_chunk(data, nbytes, data.len());
    let Some(reference) = reference else {
        return;
    };
    let inner = data.get(2).map_or(0, |flags| flags >> 5);
    let memcpyed = data.get(2).is_some_and(|flags| flags & 0x02 != 0);
    match (ours, reference(data, nbytes)) {
        (Ok(a), Some(b)) => assert!(a == b, "zinto and c-blosc decoded different bytes"),
        // lz4's safe decoder also holds a block to the encoder's end-of-block rules (no match
        // in the last 5 bytes, ...), which zinto's LZ4 does not (src/codec/lz4.rs): encoders
        // never break them, and the bytes of what both decode are compared above.
        (Ok(_), None) if inner == LZ4_INNER && !memcpyed => {}
        (Ok(_), None) => panic!("zinto decoded a chunk c-blosc refuses"),
        (Err(e), Some(_)) => assert!(
            stricter_on_purpose(&e, inner),
            "zinto refused ({e:?}) a chunk c-blosc decodes"
        ),
        (Err(_), None) => {}
    }
}

/// `[cname, shuffle and type, blocksize / 64, clevel, bytes..]`: the bytes written by zinto's
/// write path as one Blosc chunk (an array of one chunk in a `MemoryStore`), then decoded by
/// zinto and, when given, by the reference (c-blosc): both give the bytes back. The encoder's
/// output is held to what the reference decodes, not only to zinto's own decoder.
pub fn blosc_written(data: &[u8], reference: Option<Reference>) {
    use zinto::{ArrayBuilder, DataType, MemoryStore, Region, WriteOptions};

    let mut input = Input::new(data);
    let cnames = [
        BloscCname::Lz4,
        BloscCname::Lz4Hc,
        BloscCname::BloscLz,
        BloscCname::Zstd,
        BloscCname::Zlib,
    ];
    let cname = cnames[usize::from(input.u8()) % cnames.len()];
    let kind = input.u8();
    let shuffle = [
        BloscShuffle::NoShuffle,
        BloscShuffle::Shuffle,
        BloscShuffle::BitShuffle,
    ][usize::from(kind % 3)];
    let dtype = [
        DataType::UInt8,
        DataType::UInt16,
        DataType::UInt32,
        DataType::UInt64,
    ][usize::from(kind >> 2) % 4];
    let blocksize = u64::from(input.u8()) * 64;
    let clevel = input.u8() % 10;
    let elem = dtype.fixed_size().expect("a fixed size");
    let bytes = input.rest();
    let n = bytes.len() / elem;
    let inside = match cname {
        BloscCname::Zstd => "zstd",
        BloscCname::Zlib => "zlib",
        _ => "",
    };
    if n == 0 || !crate::build_writes(inside) {
        return;
    }
    let bytes = &bytes[..n * elem];
    let config = BloscConfig {
        cname: Some(cname),
        clevel: Some(clevel),
        shuffle: Some(shuffle),
        typesize: None,
        blocksize: Some(blocksize),
    };
    let array = ArrayBuilder::new(&[n as u64], dtype, &[n as u64])
        .compressor(Compressor::Blosc(config))
        .create(MemoryStore::new(), "")
        .expect("a valid array");
    let whole = Region::whole(&[n as u64]).expect("a region");
    // A chunk all zeros (the fill value) is written too.
    let options = WriteOptions {
        extra: zinto::WriteExtra {
            write_empty_chunks: true,
            ..zinto::WriteExtra::default()
        },
        ..WriteOptions::default()
    };
    array
        .write_from_with(&whole, bytes, &options)
        .expect("the write succeeds");
    let stored = array.store().get("c/0").expect("the chunk was written");
    assert!(
        decode_blosc_chunk(&stored, bytes.len(), 64).is_ok_and(|d| d == bytes),
        "zinto does not read back the Blosc chunk it wrote"
    );
    if let Some(reference) = reference {
        assert!(
            reference(&stored, bytes.len()).is_some_and(|d| d == bytes),
            "c-blosc does not read back the Blosc chunk zinto wrote ({cname:?})"
        );
    }
}
