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
    Array, ArrayBuilder, ChunkUpdate, DataType, ErrorKind, FileStore, ObjectWriter, Opened, Region,
    Store, StoreError, UPDATE_TRIES, UpdateLock,
};
use zinto_tests::files::temp_dir;

/// Writers, and rows each writes (one per round).
const WRITERS: u64 = 4;
const ROUNDS: u64 = 16;
const WIDTH: u64 = 64;

/// A store that pauses before each write, and guards updates only if `locks`.
struct Slow<S> {
    inner: S,
    locks: bool,
}

impl<S: Store> Store for Slow<S> {
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
    fn lock_update(&self, update: &ChunkUpdate<'_>) -> Result<UpdateLock, StoreError> {
        match self.locks {
            true => self.inner.lock_update(update),
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
    let base = temp_dir("concurrent", name);
    let lost = lost_rows_in(builder, |sub| FileStore::new(base.join(sub)), locks, false);
    std::fs::remove_dir_all(&base).unwrap();
    lost
}

/// [`lost_rows`] in the stores `store_at` opens (`store_at("")` the root, `store_at("v")` its
/// folder `v`), each writer with a store of its own, as a process would have; with
/// `mixed_roots`, the array is `v` below a group, and half the writers open it there (its
/// chunks' keys `v/c/...`) while the others open its own folder (`c/...`), as the pipeline and
/// `zinto.open` of the array's path do.
fn lost_rows_in<S: Store>(
    builder: &ArrayBuilder,
    store_at: impl Fn(&str) -> S + Sync,
    locks: bool,
    mixed_roots: bool,
) -> Vec<(u64, i32, i32)> {
    let (dir, path) = match mixed_roots {
        true => ("v", "v"),
        false => ("", ""),
    };
    builder.create(store_at(""), path).unwrap();
    std::thread::scope(|s| {
        for w in 0..WRITERS {
            let store_at = &store_at;
            s.spawn(move || {
                let (root, at) = match mixed_roots && w % 2 == 0 {
                    true => ("", path),
                    false => (dir, ""),
                };
                let store = Slow {
                    inner: store_at(root),
                    locks,
                };
                let array = Array::open(store, at).unwrap();
                for r in 0..ROUNDS {
                    let row = ROUNDS * w + r;
                    let region = Region::from_ranges(&[row..row + 1, 0..WIDTH]).unwrap();
                    let values = vec![value(w, r); WIDTH as usize];
                    // Unguarded, a read may meet a shard half replaced (its index from one
                    // version, its chunks from another) and fail: that row is lost too.
                    if let Err(e) = array.write_from(&region, &bytes_of(&values)) {
                        assert!(!locks, "{e}");
                    }
                }
            });
        }
    });
    let array = Array::open(store_at(dir), "").unwrap();
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
            // Unguarded, a shard merged from a read of two versions may keep half a row.
            assert!(
                all_same || !locks,
                "row {row} was written whole or not at all"
            );
            if found != value(w, r) || !all_same {
                lost.push((row, found, value(w, r)));
            }
        }
    }
    lost
}

/// The update of chunk `key` of an array at the store's root.
fn update(key: &str) -> ChunkUpdate<'_> {
    ChunkUpdate {
        key,
        in_array: key,
        lock_key: ".zinto-lock",
        cancel: None,
    }
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
    for (builder, name) in [(one_chunk(), "roots"), (one_shard(), "roots-shard")] {
        let base = temp_dir("concurrent", name);
        let lost = lost_rows_in(&builder, |sub| FileStore::new(base.join(sub)), true, true);
        assert_eq!(lost, vec![]);
        std::fs::remove_dir_all(&base).unwrap();
    }
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
            let held = store.lock_update(&update("c/0/0")).unwrap();
            assert!(held.is_held() && !held.is_conditional());
            // Again on this thread: no wait.
            let again = store.lock_update(&update("c/0/0")).unwrap();
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
    let other = FileStore::new(&dir).lock_update(&update("c/0/1")).unwrap();
    drop(other);
    release_tx.send(()).unwrap();
    holder.join().unwrap();
    array.write_from(&row, &bytes_of(&values)).unwrap();
    assert_eq!(std::fs::metadata(dir.join(".zinto-lock")).unwrap().len(), 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Writers each adding 1 to every element of one chunk, `rounds` times, with
/// `Array::update_chunk` (read, change, write back, as the pipeline's index-list writes do):
/// the elements' final value (every writer's increments, if no update was lost).
fn increments<S: Store>(store_at: impl Fn() -> S + Sync, rounds: i32, locks: bool) -> i32 {
    let builder = ArrayBuilder::new(&[8, 8], DataType::Int32, &[8, 8]).crc32c();
    let whole = Region::whole(&[8, 8]).unwrap();
    builder.create(store_at(), "").unwrap();
    let one = zinto::ReadOptions {
        threads: std::num::NonZeroUsize::new(1),
        ..Default::default()
    };
    let write = zinto::WriteOptions {
        threads: std::num::NonZeroUsize::new(1),
        ..Default::default()
    };
    std::thread::scope(|s| {
        for _ in 0..WRITERS {
            let (store_at, whole, one, write) = (&store_at, &whole, &one, &write);
            s.spawn(move || {
                let array = Array::open(
                    Slow {
                        inner: store_at(),
                        locks,
                    },
                    "",
                )
                .unwrap();
                let mut buf = vec![0u8; 8 * 8 * 4];
                for _ in 0..rounds {
                    array
                        .update_chunk(whole, |_| {
                            array.read_into_with(whole, &mut buf, one)?;
                            for v in buf.chunks_exact_mut(4) {
                                let n = i32::from_ne_bytes(v.try_into().unwrap()) + 1;
                                v.copy_from_slice(&n.to_ne_bytes());
                            }
                            array.write_from_with(whole, &buf, write)
                        })
                        .unwrap();
                }
            });
        }
    });
    let got = Array::open(store_at(), "")
        .unwrap()
        .read_to_vec(&whole)
        .unwrap();
    let first = i32::from_ne_bytes(got[..4].try_into().unwrap());
    assert!(got.chunks_exact(4).all(|v| v == first.to_ne_bytes()));
    first
}

/// A caller's own read-change-write of a chunk under `Array::update_chunk` loses nothing; a
/// region in two chunks is refused by name.
#[test]
fn a_callers_updates_of_one_chunk_lose_nothing() {
    let dir = temp_dir("concurrent", "update-chunk");
    let rounds = 10;
    let total = increments(|| FileStore::new(&dir), rounds, true);
    assert_eq!(total, i32::try_from(WRITERS).unwrap() * rounds);
    // The mutation check: unguarded, increments are lost.
    let unguarded = increments(|| FileStore::new(dir.join("unguarded")), rounds, false);
    assert!(unguarded < total, "{unguarded}");
    let array = ArrayBuilder::new(&[16, 16], DataType::Int32, &[8, 8])
        .create(FileStore::new(&dir), "two")
        .unwrap();
    let two = Region::from_ranges(&[0..1, 0..16]).unwrap();
    let e = array.update_chunk(&two, |_| Ok(())).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::NotOneChunk { chunks: 2 }),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A store whose every write is refused as if another writer had replaced the chunk first.
struct AlwaysReplaced {
    inner: FileStore,
    writes: std::sync::atomic::AtomicU32,
}

struct Refused;

impl ObjectWriter for Refused {
    fn write(&mut self, _: &[u8]) -> Result<(), StoreError> {
        Ok(())
    }
    fn reserve(&mut self, _: usize) -> Result<u64, StoreError> {
        Ok(0)
    }
    fn fill(&mut self, _: u64, _: &[u8]) -> Result<(), StoreError> {
        Ok(())
    }
    fn commit(self: Box<Self>) -> Result<(), StoreError> {
        Err(StoreError::Replaced {
            key: "c/0/0".into(),
            tries: 1,
        })
    }
}

impl Store for AlwaysReplaced {
    fn size(&self, key: &str) -> Result<Option<u64>, StoreError> {
        self.inner.size(key)
    }
    fn read_into(&self, key: &str, offset: u64, dst: &mut [u8]) -> Result<(), StoreError> {
        self.inner.read_into(key, offset, dst)
    }
    fn writer(&self, key: &str) -> Result<Box<dyn ObjectWriter + '_>, StoreError> {
        if key.ends_with("zarr.json") {
            return self.inner.writer(key);
        }
        self.writes
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Ok(Box::new(Refused))
    }
    fn lock_update(&self, update: &ChunkUpdate<'_>) -> Result<UpdateLock, StoreError> {
        self.inner.lock_update(update)
    }
}

/// A merge whose write another writer beats every time is tried again from a fresh read
/// [`UPDATE_TRIES`] times, then fails naming the chunk and the tries; a write of a whole chunk
/// is not tried again (nothing was merged, so nothing of another writer's is at stake).
#[test]
fn a_chunk_replaced_at_every_try_fails_after_the_tries_naming_it() {
    let dir = temp_dir("concurrent", "replaced");
    let store = AlwaysReplaced {
        inner: FileStore::new(&dir),
        writes: 0.into(),
    };
    let array = one_chunk().create(&store, "").unwrap();
    let row = Region::from_ranges(&[0..1, 0..WIDTH]).unwrap();
    let e = array
        .write_from(&row, &bytes_of(&vec![7; WIDTH as usize]))
        .unwrap_err();
    let ErrorKind::Store(StoreError::Replaced { key, tries }) = e.kind() else {
        panic!("{e}");
    };
    assert_eq!((key.as_str(), *tries), ("c/0/0", UPDATE_TRIES));
    assert!(e.to_string().contains("c/0/0"), "{e}");
    let load = std::sync::atomic::Ordering::SeqCst;
    assert_eq!(store.writes.load(load), UPDATE_TRIES);
    let whole = Region::whole(array.shape()).unwrap();
    let len = array.selection_len(&whole).unwrap();
    assert!(array.write_from(&whole, &vec![1; len]).is_err());
    assert_eq!(store.writes.load(load), UPDATE_TRIES + 1);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The same writers on moto's S3 server, each with its own store: every update there is a
/// conditional write (a HEAD notes the chunk's ETag, the PUT names it), tried again from a
/// fresh read when another writer's came first.
#[cfg(feature = "remote")]
mod s3 {
    use std::net::SocketAddr;

    use super::{
        ArrayBuilder, ControlFlow, Store, WRITERS, increments, lost_rows_in, one_chunk, one_shard,
    };
    use zinto::store::{RemoteOptions, RemoteStore};
    use zinto_tests::moto::{config, moto, request};

    fn store_at(addr: SocketAddr, bucket: &str, sub: &str, more: &[(&str, &str)]) -> RemoteStore {
        let mut options = RemoteOptions::default();
        options.config = config(addr);
        options
            .config
            .extend(more.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())));
        let url = match sub.is_empty() {
            true => format!("s3://{bucket}"),
            false => format!("s3://{bucket}/{sub}"),
        };
        RemoteStore::from_url_with(&url, options).unwrap()
    }

    /// Rows lost by the writers on a bucket of a moto of their own; `None` without moto.
    fn lost_on_s3(builder: &ArrayBuilder, bucket: &str, conditions: bool) -> Option<usize> {
        let moto = moto()?;
        assert_eq!(request(moto.addr, "PUT", &format!("/{bucket}"), b""), 200);
        let at = |sub: &str| store_at(moto.addr, bucket, sub, &[]);
        assert!(at("").serialises_updates());
        Some(lost_rows_in(builder, at, conditions, true).len())
    }

    #[test]
    fn writers_of_one_chunk_on_s3_lose_nothing() {
        assert_eq!(lost_on_s3(&one_chunk(), "chunk", true).unwrap_or(0), 0);
    }

    #[test]
    fn writers_of_one_shard_on_s3_lose_nothing() {
        assert_eq!(lost_on_s3(&one_shard(), "shard", true).unwrap_or(0), 0);
    }

    /// The mutation check: without the condition, the same writers lose rows.
    #[test]
    fn without_the_condition_writers_on_s3_lose_rows() {
        let Some(lost) = lost_on_s3(&one_chunk(), "chunk-unguarded", false) else {
            return;
        };
        assert!(lost > 0);
        assert!(lost_on_s3(&one_shard(), "shard-unguarded", false).unwrap_or(0) > 0);
    }

    /// A caller's own updates (`Array::update_chunk`) on S3 lose nothing either.
    #[test]
    fn a_callers_updates_of_one_chunk_on_s3_lose_nothing() {
        let Some(moto) = moto() else { return };
        assert_eq!(request(moto.addr, "PUT", "/counter", b""), 200);
        let total = increments(|| store_at(moto.addr, "counter", "", &[]), 10, true);
        assert_eq!(total, i32::try_from(WRITERS).unwrap() * 10);
    }

    /// The cost of the guard when no other writer comes between: one request more per chunk
    /// updated (the HEAD that notes its version), and none for a chunk written whole. Counted
    /// at a proxy in front of moto.
    #[test]
    fn a_guarded_update_costs_one_head_per_chunk() {
        use zinto::DataType;
        use zinto_tests::http::FaultProxy;
        let Some(moto) = moto() else { return };
        assert_eq!(request(moto.addr, "PUT", "/cost", b""), 200);
        let proxy = FaultProxy::start(moto.addr, vec![]).unwrap();
        let mut methods = vec![];
        for (name, more) in [
            ("on", &[][..]),
            ("off", &[("aws_conditional_put", "disabled")]),
        ] {
            let store = store_at(proxy.addr(), "cost", name, more);
            let array = ArrayBuilder::new(&[16, 16], DataType::Int32, &[8, 8])
                .crc32c()
                .create(&store, "")
                .unwrap();
            let whole = zinto::Region::whole(&[16, 16]).unwrap();
            array.write_from(&whole, &[1; 16 * 16 * 4]).unwrap();
            let before = proxy.requests().len();
            // Rows 4..12 of every column: each of the 4 chunks cut.
            let band = zinto::Region::from_ranges(&[4..12, 0..16]).unwrap();
            array.write_from(&band, &[2; 8 * 16 * 4]).unwrap();
            let mut seen: Vec<String> = proxy.requests()[before..]
                .iter()
                .map(|r| r.method.clone())
                .collect();
            seen.sort();
            methods.push(seen);
        }
        let count = |m: &[String], of: &str| m.iter().filter(|s| *s == of).count();
        let (on, off) = (&methods[0], &methods[1]);
        assert_eq!(count(on, "HEAD"), 4, "{on:?}");
        assert_eq!(count(off, "HEAD"), 0, "{off:?}");
        assert_eq!(on.len(), off.len() + 4, "{on:?} {off:?}");
        assert_eq!((count(on, "PUT"), count(on, "GET")), (4, 4), "{on:?}");
    }

    /// An endpoint set up without conditional writes (`aws_conditional_put=disabled`) says its
    /// updates are not guarded, and guards none.
    #[test]
    fn an_endpoint_without_conditions_says_so() {
        let Some(moto) = moto() else { return };
        let off = [("aws_conditional_put", "disabled")];
        let store = store_at(moto.addr, "any", "", &off);
        assert!(!store.serialises_updates());
        let update = super::update("c/0/0");
        assert!(!store.lock_update(&update).unwrap().is_held());
    }

    /// An object opened on S3 is pinned by its ETag: its reads return its bytes until a
    /// writer replaces it, then fail with `StoreError::Changed` naming its URL (never the new
    /// version's bytes at the old one's offsets); a new open reads the new version.
    #[test]
    fn an_opened_object_reads_its_version_or_fails_as_changed() {
        use zinto::{Opened, StoreError};
        let Some(moto) = moto() else { return };
        assert_eq!(request(moto.addr, "PUT", "/pinned", b""), 200);
        let store = store_at(moto.addr, "pinned", "", &[]);
        assert!(matches!(store.open("k").unwrap(), Opened::Absent));
        store.write_from("k", b"old bytes").unwrap();
        let Opened::Pinned { len, object } = store.open("k").unwrap() else {
            panic!("an S3 object with an ETag is pinned");
        };
        let mut got = [0u8; 5];
        object.read_into("k", 4, &mut got).unwrap();
        assert_eq!((len, &got), (9, b"bytes"));
        store.write_from("k", b"the new, longer bytes").unwrap();
        let e = object.read_into("k", 4, &mut got).unwrap_err();
        assert!(
            matches!(&e, StoreError::Changed { url } if url.ends_with("pinned/k")),
            "{e:?}"
        );
        let e = object
            .read_blocks("k", 0, 9, &mut [0u8; 4], &mut |_| ControlFlow::Continue(()))
            .unwrap_err();
        assert!(matches!(e, StoreError::Changed { .. }), "{e:?}");
        let Opened::Pinned { len, object } = store.open("k").unwrap() else {
            panic!("pinned again");
        };
        object.read_into("k", 4, &mut got).unwrap();
        assert_eq!((len, &got), (21, b"new, "));
        // Opened afresh (a read started again), it is read whole: replacing it then changes
        // nothing read.
        let Opened::Pinned { len, object: whole } = store.reopen("k").unwrap() else {
            panic!("read whole");
        };
        store.write_from("k", b"a third").unwrap();
        whole.read_into("k", 4, &mut got).unwrap();
        assert_eq!((len, &got), (21, b"new, "));
        store.delete("k").unwrap();
        let e = object.read_into("k", 4, &mut got).unwrap_err();
        assert!(matches!(e, StoreError::Changed { .. }), "{e:?}");
        assert!(matches!(store.reopen("k").unwrap(), Opened::Absent));
    }
}

/// A file store that renames a new version over `c/0` right after its first open: a writer
/// replacing the chunk between a variable-length read's two passes, every time.
struct ReplacedAfterOpen {
    inner: FileStore,
    opens: std::sync::atomic::AtomicUsize,
    keep_open: bool,
}

impl Store for ReplacedAfterOpen {
    fn size(&self, key: &str) -> Result<Option<u64>, StoreError> {
        self.inner.size(key)
    }
    fn read_into(&self, key: &str, offset: u64, dst: &mut [u8]) -> Result<(), StoreError> {
        self.inner.read_into(key, offset, dst)
    }
    fn open(&self, key: &str) -> Result<Opened<'_>, StoreError> {
        let opened = match self.keep_open {
            true => self.inner.open(key)?,
            // The mutation: an object that is not kept (each pass reads what is there).
            false => match self.inner.size(key)? {
                Some(len) => Opened::Unpinned { len },
                None => Opened::Absent,
            },
        };
        let n = self
            .opens
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if key == "c/0" && n.is_multiple_of(2) {
            let array = Array::open(&self.inner, "").unwrap();
            let values = strings(n + 1);
            array
                .write_vlen(&Region::whole(&[8]).unwrap(), &values.0, &values.1)
                .unwrap();
        }
        Ok(opened)
    }
}

/// Version `n` of 8 strings: offsets and values, each string `n` and `i % (n + 1)` x's.
fn strings(n: usize) -> (Vec<u64>, Vec<u8>) {
    let mut offsets = vec![0u64];
    let mut values = Vec::new();
    for i in 0..8 {
        values.extend_from_slice(format!("{n}{}", "x".repeat(i % (n + 1))).as_bytes());
        offsets.push(values.len() as u64);
    }
    (offsets, values)
}

/// A chunk of strings replaced between the two passes of a read is read as one version: the
/// one the first pass opened (kept open for the second). The mutation check: nothing pinned
/// or kept, the read meets a new version in the middle of a chunk and fails.
#[test]
fn a_string_chunk_replaced_between_the_passes_reads_one_version() {
    let dir = temp_dir("concurrent", "strings-replaced");
    for keep_open in [true, false] {
        let inner = FileStore::new(dir.join(keep_open.to_string()));
        let array = ArrayBuilder::new(&[8], DataType::String, &[8])
            .create(&inner, "")
            .unwrap();
        let first = strings(0);
        array
            .write_vlen(&Region::whole(&[8]).unwrap(), &first.0, &first.1)
            .unwrap();
        let store = ReplacedAfterOpen {
            inner,
            opens: std::sync::atomic::AtomicUsize::new(0),
            keep_open,
        };
        let read = Array::open(&store, "")
            .unwrap()
            .read_vlen(&Region::whole(&[8]).unwrap());
        match keep_open {
            true => {
                let got = read.unwrap();
                assert_eq!((got.offsets(), got.values()), (&first.0[..], &first.1[..]));
            }
            // A length from one version, bytes from the next: the read fails.
            false => assert!(read.is_err()),
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A write waiting for another writer's lock of a chunk it cuts ends as soon as it is
/// cancelled (Ctrl-C from Python sets the flag), not after the lock's wait of 60 s. The
/// mutation check: without the flag passed to the wait, this waits the 60 s and fails with
/// `LockWait`.
#[test]
fn a_write_waiting_for_a_lock_ends_when_cancelled() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Instant;
    let dir = temp_dir("concurrent", "cancelled");
    let store = FileStore::new(&dir);
    let array = one_chunk().create(&store, "").unwrap();
    let held = store.lock_update(&update("c/0/0")).unwrap();
    assert!(held.is_held());
    let cancel = AtomicBool::new(false);
    let began = Instant::now();
    let result = std::thread::scope(|s| {
        let writer = s.spawn(|| {
            let options = zinto::WriteOptions {
                cancel: Some(&cancel),
                ..zinto::WriteOptions::default()
            };
            let row = Region::from_ranges(&[0..1, 0..WIDTH]).unwrap();
            let values = bytes_of(&[7; WIDTH as usize]);
            Array::open(FileStore::new(&dir), "")
                .unwrap()
                .write_from_with(&row, &values, &options)
        });
        std::thread::sleep(Duration::from_millis(200));
        cancel.store(true, Ordering::Relaxed);
        writer.join().unwrap()
    });
    let e = result.unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Cancelled), "{e}");
    assert!(
        began.elapsed() < Duration::from_secs(10),
        "{:?}",
        began.elapsed()
    );
    drop(held);
    // The chunk was never written: all fill.
    let mut got = vec![0u8; bytes_of(&[0; WIDTH as usize]).len()];
    let row = Region::from_ranges(&[0..1, 0..WIDTH]).unwrap();
    array.read_into(&row, &mut got).unwrap();
    assert!(got.iter().all(|&b| b == 0));
    std::fs::remove_dir_all(&dir).unwrap();
}
