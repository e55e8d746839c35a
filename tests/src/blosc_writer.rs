//! A small Blosc (c-blosc 1.x format) writer for tests and fuzz seeds: byte shuffle per block,
//! split streams, each stream LZ4-compressed (by lz4_flex) or stored raw when that is not
//! smaller, exactly the layout c-blosc 1.21 writes. Not a reference: the reference is c-blosc
//! itself (the fixtures, and the `blosc_differential` fuzz target).

/// Byte shuffle of one block, leftover bytes copied (c-blosc's `shuffle_generic`).
fn shuffle(block: &[u8], typesize: usize) -> Vec<u8> {
    let n = block.len() / typesize;
    let mut out = block.to_vec();
    for i in 0..n {
        for j in 0..typesize {
            out[j * n + i] = block[i * typesize + j];
        }
    }
    out
}

/// `data` as one Blosc chunk: `typesize`-byte elements in blocks of `blocksize` bytes (a
/// multiple of `typesize`), byte-shuffled if `shuffled`, split into `typesize` streams where
/// c-blosc splits (typesize up to 16, at least 128 elements a block, not the last partial
/// block), LZ4 inside.
pub fn blosc_lz4(data: &[u8], typesize: u8, blocksize: usize, shuffled: bool) -> Vec<u8> {
    let ts = usize::from(typesize);
    assert!(blocksize > 0 && blocksize.is_multiple_of(ts) && !data.is_empty());
    // c-blosc never uses a block longer than the buffer.
    let blocksize = blocksize.min(data.len());
    let blocks: Vec<&[u8]> = data.chunks(blocksize).collect();
    let table_end = 16 + 4 * blocks.len();
    let mut body = Vec::new();
    let mut starts = Vec::new();
    for b in &blocks {
        starts.push(u32::try_from(table_end + body.len()).unwrap());
        let leftover = b.len() != blocksize;
        let split = ts <= 16 && blocksize / ts >= 128 && !leftover;
        let b = if shuffled && ts > 1 {
            shuffle(b, ts)
        } else {
            b.to_vec()
        };
        let streams = if split { ts } else { 1 };
        for s in b.chunks(b.len() / streams) {
            let c = lz4_flex::block::compress(s);
            let stored: &[u8] = if c.len() < s.len() { &c } else { s };
            body.extend(u32::try_from(stored.len()).unwrap().to_le_bytes());
            body.extend(stored);
        }
    }
    let flags = 0x20 | u8::from(shuffled);
    let mut chunk = vec![2u8, 1, flags, typesize];
    let cbytes = table_end + body.len();
    for v in [data.len(), blocksize, cbytes] {
        chunk.extend(u32::try_from(v).unwrap().to_le_bytes());
    }
    for s in starts {
        chunk.extend(s.to_le_bytes());
    }
    chunk.extend(body);
    chunk
}
