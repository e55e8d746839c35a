//! Hostile metadata and chunks: open and read an array whose zarr.json and one chunk are the
//! input; errors are fine, panics and huge allocations are not.
#![no_main]
use zinto::{Array, MemoryStore, Region};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let split = data.iter().position(|&b| b == 0).unwrap_or(data.len());
    let (meta, chunk) = data.split_at(split);
    let mut store = MemoryStore::new();
    store.insert("a/zarr.json", meta.to_vec());
    store.insert("a/c/0/0", chunk.to_vec());
    store.insert("a/c/0", chunk.to_vec());
    let Ok(array) = Array::open(&store, "a") else { return };
    // Read at most a small corner: the fuzzer may declare huge shapes.
    let shape: Vec<u64> = array.shape().iter().map(|&n| n.min(4)).collect();
    if let Ok(region) = Region::new(&vec![0; shape.len()], &shape) {
        let _ = array.read_to_vec(&region);
    }
});
