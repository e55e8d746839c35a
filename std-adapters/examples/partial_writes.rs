//! The cost of the update lock (issue 64): partial writes of many small chunks into files,
//! with each chunk's lock (zinto as it is) and without it (a store that answers "no lock",
//! the only difference), alternating, in one process. The array: 1024 x 1024 `int32` in
//! 16 x 16 chunks (4,096 chunks of 1 KiB, raw: the smallest chunks, where a lock weighs the
//! most); each run writes `[:, 1:]`, which cuts every chunk (its old column kept), so every
//! chunk is read, merged and replaced. Prints one JSON line: each run's seconds, by kind.
//! bench/partial_writes.py runs it beside zarr-python and tensorstore.
//!
//! `cargo run --release -p zinto --example partial_writes -- DIR [RUNS] [THREADS]`
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_possible_truncation
)]

use std::ops::ControlFlow;
use std::time::Instant;

use zinto::{
    Array, ArrayBuilder, ChunkUpdate, DataType, FileStore, ObjectWriter, Opened, Region, Store,
    StoreError, UpdateLock, WriteOptions,
};

/// A file store without update locks.
struct Unlocked(FileStore);

impl Store for Unlocked {
    fn size(&self, key: &str) -> Result<Option<u64>, StoreError> {
        self.0.size(key)
    }
    fn open(&self, key: &str) -> Result<Opened<'_>, StoreError> {
        self.0.open(key)
    }
    fn read_into(&self, key: &str, offset: u64, dst: &mut [u8]) -> Result<(), StoreError> {
        self.0.read_into(key, offset, dst)
    }
    fn read_blocks(
        &self,
        key: &str,
        offset: u64,
        len: u64,
        buf: &mut [u8],
        each: &mut dyn FnMut(&[u8]) -> ControlFlow<()>,
    ) -> Result<(), StoreError> {
        self.0.read_blocks(key, offset, len, buf, each)
    }
    fn writer(&self, key: &str) -> Result<Box<dyn ObjectWriter + '_>, StoreError> {
        self.0.writer(key)
    }
    fn delete(&self, key: &str) -> Result<(), StoreError> {
        self.0.delete(key)
    }
    fn prune(&self, prefix: &str) -> Result<(), StoreError> {
        self.0.prune(prefix)
    }
    fn lock_update(&self, _: &ChunkUpdate<'_>) -> Result<UpdateLock, StoreError> {
        Ok(UpdateLock::unguarded())
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = std::path::PathBuf::from(
        args.get(1)
            .expect("usage: partial_writes DIR [RUNS] [THREADS]"),
    );
    let runs: usize = args.get(2).map_or(5, |r| r.parse().unwrap());
    let threads = args.get(3).map(|t| t.parse().unwrap());
    let (n, c) = (1024u64, 16u64);
    let _ = std::fs::remove_dir_all(&dir);
    let array = ArrayBuilder::new(&[n, n], DataType::Int32, &[c, c])
        .create(FileStore::new(&dir), "")
        .unwrap();
    let whole = Region::whole(&[n, n]).unwrap();
    array
        .write_from(&whole, &vec![1u8; (n * n * 4) as usize])
        .unwrap();
    let cut = Region::from_ranges(&[0..n, 1..n]).unwrap();
    let input = vec![2u8; (n * (n - 1) * 4) as usize];
    let options = WriteOptions {
        threads,
        ..WriteOptions::default()
    };
    let locked = Array::open(FileStore::new(&dir), "").unwrap();
    let unlocked = Array::open(Unlocked(FileStore::new(&dir)), "").unwrap();
    let (mut with, mut without) = (vec![], vec![]);
    for _ in 0..runs {
        let t = Instant::now();
        locked.write_from_with(&cut, &input, &options).unwrap();
        with.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        unlocked.write_from_with(&cut, &input, &options).unwrap();
        without.push(t.elapsed().as_secs_f64());
    }
    let list = |v: &[f64]| {
        let items: Vec<String> = v.iter().map(|s| format!("{s:.4}")).collect();
        format!("[{}]", items.join(", "))
    };
    println!(
        "{{\"chunks\": {}, \"locked\": {}, \"unlocked\": {}}}",
        (n / c) * (n / c),
        list(&with),
        list(&without)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
