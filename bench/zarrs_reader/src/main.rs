//! Reads a Zarr array (v2 or v3, filesystem store) with the `zarrs` crate into one buffer and
//! prints one JSON line, the fields bench/peers.py's Python readers print:
//! `{"seconds", "bytes", "peak" (VmHWM), "base" (VmRSS just before the read), "sum"}`.
//!
//! Usage: zarrs_reader <array path> [--threads N] [--select a:b,c:d,...]
//!
//! Concurrency: zarrs' default, rayon's global pool (one thread per core, or RAYON_NUM_THREADS)
//! with `codec_concurrent_target` = rayon::current_num_threads(). `--threads N` builds the
//! global pool with N threads and sets the concurrent target to N.
//!
//! The read is `Array::retrieve_array_subset::<ArrayBytes>`: zarrs allocates the output once
//! (uninitialised) and decodes every chunk into its place, in parallel; taking the result as
//! `ArrayBytes` hands that buffer over as is. `retrieve_array_subset::<Vec<f32>>` (and the
//! deprecated `_elements` / `_ndarray`) copy it once more into a `Vec<f32>` (bytemuck's
//! `pod_collect_to_vec`, since a `Vec<u8>` cannot be reinterpreted as `Vec<f32>`), which costs a
//! pass over the output and doubles peak memory. `retrieve_array_subset_into` decodes into a
//! caller's buffer but needs an `ArrayBytesFixedDisjointView` built through unsafe code, for the
//! same work.

use std::sync::Arc;
use std::time::Instant;

use zarrs::array::{Array, ArrayBytes, ArraySubset};
use zarrs::filesystem::FilesystemStore;

fn status_bytes(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("read /proc/self/status");
    for line in status.lines() {
        if let Some(rest) = line.strip_prefix(field) {
            let kb: u64 = rest.split_whitespace().next().unwrap().parse().unwrap();
            return kb * 1024;
        }
    }
    panic!("{field} not in /proc/self/status");
}

fn usage() -> ! {
    eprintln!("usage: zarrs_reader <array path> [--threads N] [--select a:b,c:d,...]");
    std::process::exit(2);
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let mut path = None;
    let mut threads = None;
    let mut select = None;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--threads" => threads = Some(args.next().unwrap_or_else(|| usage()).parse::<usize>()?),
            "--select" => select = Some(args.next().unwrap_or_else(|| usage())),
            _ if path.is_none() && !a.starts_with('-') => path = Some(a),
            _ => usage(),
        }
    }
    let path = path.unwrap_or_else(|| usage());
    if let Some(n) = threads {
        rayon::ThreadPoolBuilder::new().num_threads(n).build_global()?;
        zarrs::config::global_config_mut().set_codec_concurrent_target(n);
    }

    let store = Arc::new(FilesystemStore::new(&path)?);
    let array = Array::open(store, "/")?;
    let subset = match &select {
        None => array.subset_all(),
        Some(s) => {
            let ranges = s
                .split(',')
                .map(|r| {
                    let (a, b) = r.split_once(':').expect("start:stop");
                    Ok(a.parse::<u64>()?..b.parse::<u64>()?)
                })
                .collect::<Result<Vec<_>, std::num::ParseIntError>>()?;
            ArraySubset::new_with_ranges(&ranges)
        }
    };
    let dtype_size = array.data_type().fixed_size().expect("fixed-size data type");
    // The sum reads elements as float32 (bench/peers.py's arrays) or uint16 (bench/cube.py's).
    assert!(
        dtype_size == 4 || dtype_size == 2,
        "this reader sums float32 or uint16 arrays only"
    );

    let base = status_bytes("VmRSS:");
    let t = Instant::now();
    let out: ArrayBytes<'static> = array.retrieve_array_subset(&subset)?;
    let secs = t.elapsed().as_secs_f64();
    let peak = status_bytes("VmHWM:");

    let bytes = out.into_fixed()?;
    assert_eq!(bytes.len() as u64, subset.num_elements() * dtype_size as u64);
    // Every 97th element of the C-order output, as bench/peers.py's Python readers sum it.
    let sum: f64 = bytes
        .chunks_exact(dtype_size)
        .step_by(97)
        .map(|b| match b.try_into() {
            Ok(four) => f64::from(f32::from_ne_bytes(four)),
            Err(_) => f64::from(u16::from_ne_bytes(b.try_into().unwrap())),
        })
        .sum();
    println!(
        "{{\"seconds\": {secs}, \"bytes\": {}, \"peak\": {peak}, \"base\": {base}, \"sum\": {sum}, \
         \"threads\": {}}}",
        bytes.len(),
        rayon::current_num_threads()
    );
    Ok(())
}
