//! Memory bounds of the command's slab paths, run in this process with a counting global
//! allocator (docs/memory.md): `zinto read --out`, `zinto create` and `zinto convert` hold one
//! slab of at most `--memory` bytes, plus the workers' windows, whatever the array's size. Each
//! bound is shown to mean something by the same command with a `--memory` of the whole array
//! (one buffer of it all, as the command held before slabs), which goes over it: a change of
//! parameter standing for the mistake, not a change of code.
//!
//! The array is 3.5 MiB, under the size from which the command maps its buffers
//! (`buffer::zeroed`, 4 MiB), so that the allocator sees every one. Not counted: C zstd's
//! contexts (allocated by C), the page cache.
#![cfg(feature = "cli")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a panic is a failed test

use std::path::Path;

use zinto::{ArrayBuilder, BLOCK_LEN, DataType, FileStore, Region, WRITE_WINDOW};
use zinto_tests::alloc::{Counting, measure, one_at_a_time};
use zinto_tests::files::temp_dir;
use zinto_tests::rng::Rng;

#[global_allocator]
static ALLOC: Counting = Counting;

const SHAPE: [u64; 2] = [112, 8192];
const CHUNK: [u64; 2] = [8, 8192];
const CHUNK_LEN: usize = 8 * 8192 * 4; // 256 KiB of float32
const LEN: usize = 112 * 8192 * 4; // 3.5 MiB
/// `--memory`: two chunks' rows.
const SLAB: usize = 2 * CHUNK_LEN;
const THREADS: usize = 2;
/// Headroom for the command's bookkeeping (arguments, metadata, paths, the plan, threads).
const BOOKKEEPING: usize = 96 << 10;

/// Float32 values with noise in their low bits: compressible, not to nothing.
fn field() -> Vec<u8> {
    let mut rng = Rng(7);
    (0..LEN / 4)
        .flat_map(|i| {
            #[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation)]
            let v = ((i % 1000) as f32 * 0.5).to_bits() ^ (rng.next_u64() as u32 & 0xFF);
            f32::from_bits(v).to_le_bytes()
        })
        .collect()
}

/// A zstd-compressed array of the field at `dir`.
fn array_at(dir: &Path, data: &[u8]) {
    let array = ArrayBuilder::new(&SHAPE, DataType::Float32, &CHUNK)
        .codec_specs(&["zstd:3"])
        .unwrap()
        .create(FileStore::new(dir), "")
        .unwrap();
    array
        .write_from(&Region::whole(&SHAPE).unwrap(), data)
        .unwrap();
}

/// The field as a `.npy` file at `path`.
fn npy_at(path: &Path, data: &[u8]) {
    let mut file = b"\x93NUMPY\x01\x00\x76\x00".to_vec();
    let dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (112, 8192), }";
    file.extend_from_slice(dict.as_bytes());
    file.resize(127, b' ');
    file.push(b'\n');
    file.extend_from_slice(data);
    std::fs::write(path, file).unwrap();
}

/// Runs the command with `args` and `--memory memory`; its peak live heap.
fn peak_of(args: &[&str], memory: usize) -> usize {
    let memory = memory.to_string();
    let mut all = vec!["zinto"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--memory", &memory, "--threads", "2"]);
    let (code, _, peak) = measure(|| zinto::cli::run(&all));
    assert_eq!(code, 0, "{all:?}");
    peak
}

/// Checks `peak` against `bound`, and `whole` (the mutation: one buffer of the whole array)
/// over it.
fn check(what: &str, (peak, whole): (usize, usize), bound: usize) {
    assert!(
        peak <= bound,
        "{what}: {peak} bytes live at the peak, bound {bound}"
    );
    assert!(
        whole > bound,
        "{what} with the whole array in one buffer: {whole} bytes, not over the bound {bound}"
    );
    eprintln!("{what}: peak {peak}, bound {bound}, whole-array mutation {whole}");
}

#[test]
fn read_out_holds_one_slab_and_the_file_is_the_array() {
    let _turn = one_at_a_time();
    let dir = temp_dir("cli-memory", "read");
    let data = field();
    array_at(&dir.join("a.zarr"), &data);
    let src = dir.join("a.zarr").display().to_string();
    let out = dir.join("out.raw").display().to_string();
    let args = ["read", &src, "--out", &out, "--format", "raw"];
    let peak = peak_of(&args, SLAB);
    assert!(
        std::fs::read(&out).unwrap() == data,
        "the slabs' file differs"
    );
    let whole = peak_of(&args, LEN);
    // The C decoder writes into the slab: each worker holds one block of compressed bytes.
    check(
        "read --out",
        (peak, whole),
        SLAB + THREADS * BLOCK_LEN + BOOKKEEPING,
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn create_holds_one_slab_of_the_file_and_writes_the_array() {
    let _turn = one_at_a_time();
    let dir = temp_dir("cli-memory", "create");
    let data = field();
    let npy = dir.join("in.npy");
    std::fs::create_dir_all(&dir).unwrap();
    npy_at(&npy, &data);
    let dst = dir.join("b.zarr").display().to_string();
    let npy = npy.display().to_string();
    let args = [
        "create",
        &dst,
        "--from",
        &npy,
        "--chunks",
        "8,8192",
        "--codec",
        "zstd:3",
        "--overwrite",
    ];
    let peak = peak_of(&args, SLAB);
    let array = zinto::Array::open(FileStore::new(dir.join("b.zarr")), "").unwrap();
    let mut back = vec![0u8; LEN];
    array
        .read_into(&Region::whole(&SHAPE).unwrap(), &mut back)
        .unwrap();
    assert!(
        back == data,
        "the array created in slabs reads back otherwise"
    );
    let whole = peak_of(&args, LEN);
    check(
        "create",
        (peak, whole),
        SLAB + THREADS * WRITE_WINDOW + BOOKKEEPING,
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn convert_holds_one_slab() {
    let _turn = one_at_a_time();
    let dir = temp_dir("cli-memory", "convert");
    let data = field();
    array_at(&dir.join("a.zarr"), &data);
    let src = dir.join("a.zarr").display().to_string();
    let dst = dir.join("c.zarr").display().to_string();
    let args = ["convert", &src, &dst, "--codec", "gzip:1", "--overwrite"];
    let peak = peak_of(&args, SLAB);
    let whole = peak_of(&args, LEN);
    // zlib-rs' deflate state at level 1, per worker, with room.
    let deflate = 1 << 20;
    let bound = SLAB + THREADS * (BLOCK_LEN + WRITE_WINDOW + deflate) + BOOKKEEPING;
    check("convert", (peak, whole), bound);
    std::fs::remove_dir_all(dir).unwrap();
}
