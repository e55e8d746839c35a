//! Writers of different parts of one chunk (and of one shard) at once lose nothing: each
//! read-modify-write of a stored chunk holds the chunk's update lock (`Store::lock_update`, a
//! byte of the array's `.zinto-lock` on a file store) from its read of the old chunk to the
//! rename of the new one. Each writer here is a thread with its own open of the array, as a
//! process would have; python/tests/test_concurrent_writes.py runs the same with processes.
//!
//! The store below widens the window between a writer's read and its rename (a few ms
//! before each write starts), so that without the lock (the mutation check: the same test
//! with `lock_update` answering "no lock") updates are lost on every run, not now and then.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a panic is a failed test

use std::ops::ControlFlow;
use std::time::Duration;

use zinto::{
    Array, ArrayBuilder, DataType, ErrorKind, FileStore, ObjectWriter, Opened, Region, Store,
    StoreError, UpdateLock,
};
use zinto_tests::files::temp_dir;

/// Writers, and rows each writes (one per round).
const WRITERS: u64 = 4;
const ROUNDS: u64 = 16;
const WIDTH: u64 = 64;

/// A file store that pauses before each write, and takes update locks only if `locks`.
struct Slow {
    inner: FileStore,
    locks: bool,
}

impl Store for Slow {
    fn size(&self, key: &str) -> Result<Option<u64>, StoreError> {
        self.inner.size(key)
    }
    fn read_into(&self, key: &str, offset: u64, dst: &mut [u8]) -> Result<(), StoreError> {
        self.inner.read_into(key, offset, dst)
    }
    fn read_blocks(
        &self,
        key: &str,
        offset: u64,
        len: u64,
        buf: &mut [u8],
        each: &mut dyn FnMut(&[u8]) -> ControlFlow<()>,
    ) -> Result<(), StoreError> {
        self.inner.read_blocks(key, offset, len, buf, each)
    }
    fn open(&self, key: &str) -> Result<Opened<'_>, StoreError> {
        self.inner.open(key)
    }
    fn writer(&self, key: &str) -> Result<Box<dyn ObjectWriter + '_>, StoreError> {
        std::thread::sleep(Duration::from_millis(3));
        self.inner.writer(key)
    }
    fn delete(&self, key: &str) -> Result<(), StoreError> {
        self.inner.delete(key)
    }
    fn lock_update(&self, key: &str, lock_key: &str) -> Result<UpdateLock, StoreError> {
        match self.locks {
            true => self.inner.lock_update(key, lock_key),
            false => Ok(UpdateLock::unguarded()),
        }
    }
}

/// The value writer `w` writes in round `r`: it owns rows `ROUNDS * w ..`, one per round, and
/// writes row `ROUNDS * w + r` in round `r`, so a lost update in any round shows at the end.
fn value(w: u64, r: u64) -> i32 {
    i32::try_from((w + 1) * 1000 + r).unwrap()
}

/// Every writer's rows written at once, each in its own thread and array handle; then the
/// rows that lost their writer's value: `(row, found, expected)`.
fn lost_rows(builder: &ArrayBuilder, name: &str, locks: bool) -> Vec<(u64, i32, i32)> {
    lost_rows_at(builder, name, locks, false)
}

/// [`lost_rows`]; with `mixed_roots`, the array is `v` below a group, and half the writers
/// open it there (its chunks' keys `v/c/...`) while the others open its own folder (`c/...`),
/// as the pipeline and `zinto.open` of the array's path do.
fn lost_rows_at(
    builder: &ArrayBuilder,
    name: &str,
    locks: bool,
    mixed_roots: bool,
) -> Vec<(u64, i32, i32)> {
    let base = temp_dir("concurrent", name);
    let (dir, path) = match mixed_roots {
        true => (base.join("v"), "v"),
        false => (base.clone(), ""),
    };
    builder.create(FileStore::new(&base), path).unwrap();
    std::thread::scope(|s| {
        for w in 0..WRITERS {
            let (dir, base) = (&dir, &base);
            s.spawn(move || {
                let (root, at) = match mixed_roots && w % 2 == 0 {
                    true => (base, path),
                    false => (dir, ""),
                };
                let store = Slow {
                    inner: FileStore::new(root),
                    locks,
                };
                let array = Array::open(store, at).unwrap();
                for r in 0..ROUNDS {
                    let row = ROUNDS * w + r;
                    let region = Region::from_ranges(&[row..row + 1, 0..WIDTH]).unwrap();
                    let values = vec![value(w, r); WIDTH as usize];
                    array.write_from(&region, &bytes_of(&values)).unwrap();
                }
            });
        }
    });
    let array = Array::open(FileStore::new(&dir), "").unwrap();
    let rows = WRITERS * ROUNDS;
    let got = array
        .read_to_vec(&Region::whole(&[rows, WIDTH]).unwrap())
        .unwrap();
    let got: Vec<i32> = got
        .chunks_exact(4)
        .map(|b| i32::from_ne_bytes(b.try_into().unwrap()))
        .collect();
    let mut lost = vec![];
    for w in 0..WRITERS {
        for r in 0..ROUNDS {
            let row = ROUNDS * w + r;
            let found = got[(row * WIDTH) as usize];
            let all_same = got[(row * WIDTH) as usize..((row + 1) * WIDTH) as usize]
                .iter()
                .all(|&v| v == found);
            assert!(all_same, "row {row} was written whole or not at all");
            if found != value(w, r) {
                lost.push((row, found, value(w, r)));
            }
        }
    }
    std::fs::remove_dir_all(&base).unwrap();
    lost
}

fn bytes_of(values: &[i32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_ne_bytes()).collect()
}

fn one_chunk() -> ArrayBuilder {
    ArrayBuilder::new(
        &[WRITERS * ROUNDS, WIDTH],
        DataType::Int32,
        &[WRITERS * ROUNDS, WIDTH],
    )
    .crc32c()
}

fn one_shard() -> ArrayBuilder {
    ArrayBuilder::new(&[WRITERS * ROUNDS, WIDTH], DataType::Int32, &[32, 32])
        .crc32c()
        .shards(&[WRITERS * ROUNDS, WIDTH])
}

#[test]
fn writers_of_one_chunk_lose_nothing() {
    assert_eq!(lost_rows(&one_chunk(), "chunk", true), vec![]);
}

#[test]
fn writers_of_one_shard_lose_nothing() {
    assert_eq!(lost_rows(&one_shard(), "shard", true), vec![]);
}

/// Writers that opened the array from different roots (below its group, at its own folder)
/// take the same chunk's lock.
#[test]
fn writers_opening_the_array_from_different_roots_lose_nothing() {
    assert_eq!(lost_rows_at(&one_chunk(), "roots", true, true), vec![]);
    assert_eq!(
        lost_rows_at(&one_shard(), "roots-shard", true, true),
        vec![]
    );
}

/// The mutation check: the same writers without the lock lose rows (the store's pause makes
/// it certain in practice: every writer reads the chunk while the others are paused).
#[test]
fn without_the_lock_writers_lose_rows() {
    assert!(!lost_rows(&one_chunk(), "chunk-unlocked", false).is_empty());
    assert!(!lost_rows(&one_shard(), "shard-unlocked", false).is_empty());
}

/// A writer waits a bounded time for a lock another thread holds, then fails naming the chunk
/// and the lock; once the holder lets go, the next writer goes ahead. The thread that holds a
/// lock takes it again at once (a selection's chunk written whole under its own lock).
#[test]
fn a_held_lock_makes_a_writer_fail_after_its_wait_naming_the_chunk() {
    let dir = temp_dir("concurrent", "held");
    let array = one_chunk()
        .create(
            FileStore::new(&dir).with_lock_wait(Duration::from_millis(200)),
            "",
        )
        .unwrap();
    let row = Region::from_ranges(&[0..1, 0..WIDTH]).unwrap();
    let values = vec![7i32; WIDTH as usize];
    let (held_tx, held_rx) = std::sync::mpsc::channel();
    let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
    let holder = {
        let dir = dir.clone();
        std::thread::spawn(move || {
            let store = FileStore::new(&dir).with_lock_wait(Duration::from_millis(200));
            let held = store.lock_update("c/0/0", ".zinto-lock").unwrap();
            assert!(held.is_held());
            // Again on this thread: no wait.
            let again = store.lock_update("c/0/0", ".zinto-lock").unwrap();
            held_tx.send(()).unwrap();
            release_rx.recv().unwrap();
            drop((again, held));
        })
    };
    held_rx.recv().unwrap();
    let e = array.write_from(&row, &bytes_of(&values)).unwrap_err();
    let ErrorKind::Store(StoreError::LockWait { key, lock, .. }) = e.kind() else {
        panic!("{e}");
    };
    assert_eq!(key, "c/0/0");
    assert_eq!(lock.0, dir.join(".zinto-lock"));
    let text = e.to_string();
    assert!(
        text.contains("c/0/0") && text.contains(".zinto-lock"),
        "{text}"
    );
    // Another chunk's byte is free meanwhile, and the lock file holds no data.
    let other = FileStore::new(&dir)
        .lock_update("c/0/1", ".zinto-lock")
        .unwrap();
    drop(other);
    release_tx.send(()).unwrap();
    holder.join().unwrap();
    array.write_from(&row, &bytes_of(&values)).unwrap();
    assert_eq!(std::fs::metadata(dir.join(".zinto-lock")).unwrap().len(), 0);
    std::fs::remove_dir_all(&dir).unwrap();
}
