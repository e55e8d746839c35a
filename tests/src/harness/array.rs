//! Whole arrays: metadata parsing, and reads whose metadata, chunks and selection are hostile.

use std::num::NonZeroUsize;

use zinto::{Array, BLOCK_LEN, MemoryStore, Node, ReadOptions, Region};

use super::input::Input;
use crate::alloc::with_cap;
use crate::guard::Guarded;

/// Most a compressor can expand its input (zstd; DEFLATE's is 1032): the bound on scratch a
/// chunk can make the read path allocate (docs/memory.md).
const MAX_RATIO: usize = 32_768;
/// Outputs larger than this are not read (the fuzzer may declare huge arrays).
const MAX_OUTPUT: usize = 1 << 20;

/// Heap that parsing `len` bytes of metadata may take: the JSON tree and what is built from it,
/// proportional to the text, never to the sizes it declares.
fn metadata_bound(len: usize) -> usize {
    (64 << 10) + 64 * len
}

/// Opens the array at the root of `store`, within the metadata bound.
fn open(store: &MemoryStore, meta_len: usize) -> Option<Array<&MemoryStore>> {
    with_cap(metadata_bound(meta_len), || Array::open(store, "")).ok()
}

/// `[flags, json...]`: `json` as a v3 `zarr.json` (flags bit 0 clear) or a v2 `.zarray`
/// (set; a `.zattrs` follows a zero byte, if any); with flags bit 1, as a group instead (v3
/// `zarr.json`, or v2 `.zmetadata` beside a `.zgroup`). Opening never panics and allocates in
/// proportion to the text only; an opened array or group answers its questions without
/// panicking.
pub fn metadata(data: &[u8]) {
    let mut input = Input::new(data);
    let flags = input.u8();
    let text = input.rest();
    let mut store = MemoryStore::new();
    if flags & 2 != 0 {
        if flags & 1 == 0 {
            store.insert("zarr.json", text.to_vec());
        } else {
            store.insert(".zgroup", br#"{"zarr_format": 2}"#.to_vec());
            store.insert(".zmetadata", text.to_vec());
        }
        with_cap(metadata_bound(text.len()), || {
            match Node::open(&store, "") {
                Ok(Node::Group(g)) => {
                    let _ = g.attributes();
                    if let Ok(members) = g.members() {
                        for m in members.iter().take(4) {
                            let _ = g.array(&m.name);
                            let _ = g.group(&m.name);
                        }
                    }
                }
                Ok(Node::Array(a)) => {
                    let _ = (a.attributes(), a.dimension_names());
                }
                Err(_) => {}
            }
        });
        return;
    }
    if flags & 1 == 0 {
        store.insert("zarr.json", text.to_vec());
    } else {
        let split = text.iter().position(|&b| b == 0).unwrap_or(text.len());
        let (zarray, zattrs) = text.split_at(split);
        store.insert(".zarray", zarray.to_vec());
        if let Some(attrs) = zattrs.get(1..) {
            store.insert(".zattrs", attrs.to_vec());
        }
    }
    let Some(array) = open(&store, text.len()) else {
        return;
    };
    let grid = &array.metadata().grid;
    let _ = (array.attributes(), array.dimension_names());
    if let Ok(whole) = Region::whole(array.shape()) {
        let _ = array.selection_len(&whole);
    }
    if grid.num_chunks() > 0
        && let Ok(coords) = grid.chunk_coords(grid.num_chunks() - 1)
    {
        let _ = array.chunk_key(&coords);
    }
}

/// `[flags, meta: u16-prefixed, chunk count, chunks: u16-prefixed each, selection...]`: a v3
/// array (v2 if flags bit 0) whose first chunks (in grid order) hold the given bytes, read
/// through a selection made of the remaining bytes on 1 or 2 workers (flags bit 1) into a
/// guarded output. Errors are fine; the heap the read takes stays within docs/memory.md's
/// bound: per worker a block and a scratch no larger than the largest stored chunk times the
/// largest compression ratio, plus the metadata's.
pub fn array_read(data: &[u8]) {
    let mut input = Input::new(data);
    let flags = input.u8();
    let meta = input.prefixed();
    let mut store = MemoryStore::new();
    store.insert(
        if flags & 1 == 0 {
            "zarr.json"
        } else {
            ".zarray"
        },
        meta.to_vec(),
    );
    let Some(array) = open(&store, meta.len()) else {
        return;
    };
    let grid = array.metadata().grid.clone();
    let count = u64::from(input.u8() % 8).min(grid.num_chunks());
    let mut chunks = Vec::new();
    for i in 0..count {
        let bytes = input.prefixed();
        if let Ok(coords) = grid.chunk_coords(i) {
            chunks.push((array.chunk_key(&coords), bytes.to_vec()));
        }
    }
    let largest = chunks.iter().map(|(_, b)| b.len()).max().unwrap_or(0);
    // The selection: a start and a length per dimension, each within the array.
    let shape = array.shape().to_vec();
    let mut start = Vec::new();
    let mut len = Vec::new();
    for &n in &shape {
        let s = u64::from(input.u8()) % (n.min(255) + 1);
        start.push(s);
        len.push(u64::from(input.u8()) % (n - s).min(255).saturating_add(1));
    }
    drop(array);
    for (key, bytes) in chunks {
        store.insert(key, bytes);
    }
    let Some(array) = open(&store, meta.len()) else {
        return;
    };
    let Ok(selection) = Region::new(&start, &len) else {
        return;
    };
    if array.dtype().is_variable_length() {
        read_vlen(&array, &selection, largest, chunks_read(count), meta.len());
        return;
    }
    let Ok(out_len) = array.selection_len(&selection) else {
        return;
    };
    if out_len > MAX_OUTPUT {
        return;
    }
    let threads = NonZeroUsize::new(1 + usize::from(flags >> 1 & 1));
    let workers = threads.map_or(1, NonZeroUsize::get);
    let per_worker = BLOCK_LEN + largest.saturating_mul(MAX_RATIO) + (256 << 10);
    let bound = workers * per_worker + metadata_bound(meta.len());
    let mut out = Guarded::new(out_len);
    let options = ReadOptions {
        threads,
        progress: None,
        ..ReadOptions::default()
    };
    let _ = with_cap(bound, || {
        array.read_into_with(&selection, out.dst(), &options)
    });
    out.check();
}

/// How many chunks the harness wrote (for the bound on variable-length values).
fn chunks_read(count: u64) -> usize {
    usize::try_from(count).unwrap_or(usize::MAX)
}

/// A variable-length read: the heap stays within one worker's chunk scratch (the decoded chunk
/// and where its items start, at most 5 times it), the offsets, and the values, which are at
/// most the fill value once per element plus every decoded chunk once.
fn read_vlen(
    array: &Array<&MemoryStore>,
    selection: &Region,
    largest: usize,
    chunks: usize,
    meta_len: usize,
) {
    let Ok(n) = selection.num_elements() else {
        return;
    };
    let Ok(n) = usize::try_from(n) else { return };
    if n > MAX_OUTPUT / 8 {
        return;
    }
    let fill = array.metadata().fill_value.as_bytes().len();
    let decoded = largest.saturating_mul(MAX_RATIO);
    let bound = (n + 1) * 8
        + n.saturating_mul(fill)
        + chunks.saturating_mul(decoded)
        + BLOCK_LEN
        + decoded.saturating_mul(10)
        + (256 << 10)
        + metadata_bound(meta_len);
    let _ = with_cap(bound, || array.read_vlen(selection));
}
