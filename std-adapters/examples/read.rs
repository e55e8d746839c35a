//! Reads a Zarr array (or a selection of it) from a directory into one buffer and prints what
//! it read. The `zinto` command will replace this (issue 6).
//!
//! ```sh
//! cargo run --release --example read -- tests/fixtures/data/v3_shard_end 2:15,3:11
//! ```

use std::process::ExitCode;
use std::time::Instant;

use zinto::{Array, FileStore, Region};

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .ok_or("usage: read ARRAY_DIR [start:stop,start:stop,...]")?;
    let array = Array::open(FileStore::new(&path), "")?;
    let shape = array.shape().to_vec();
    let (start, size) = match args.next() {
        None => (vec![0; shape.len()], shape.clone()),
        Some(sel) => parse_selection(&sel, &shape)?,
    };
    let region = Region::new(&start, &size)?;
    let mut out = vec![0u8; array.selection_len(&region)?];
    let t = Instant::now();
    array.read_into(&region, &mut out)?;
    let secs = t.elapsed().as_secs_f64();
    let meta = array.metadata();
    println!(
        "{path}: {:?} {} of shape {shape:?}, codecs {:?}",
        meta.format, meta.dtype, meta.codec_names
    );
    println!(
        "read {size:?} at {start:?}: {} bytes in {:.6} s; first bytes {:02x?}",
        out.len(),
        secs,
        &out[..out.len().min(16)]
    );
    Ok(())
}

fn parse_selection(sel: &str, shape: &[u64]) -> Result<(Vec<u64>, Vec<u64>), String> {
    let items: Vec<&str> = sel.split(',').collect();
    if items.len() != shape.len() {
        return Err(format!(
            "selection has {} items, array has {} dimensions",
            items.len(),
            shape.len()
        ));
    }
    let mut start = vec![];
    let mut size = vec![];
    for (item, &n) in items.iter().zip(shape) {
        let num = |s: &str| s.parse::<u64>().map_err(|_| format!("bad index {s:?}"));
        let (a, b) = match item.split_once(':') {
            // A single index keeps the dimension with length 1.
            None => (num(item)?, num(item)?.saturating_add(1)),
            Some((a, b)) => (
                if a.is_empty() { 0 } else { num(a)? },
                if b.is_empty() { n } else { num(b)? },
            ),
        };
        if a > b || b > n {
            return Err(format!("{item} is outside 0..{n}"));
        }
        start.push(a);
        size.push(b - a);
    }
    Ok((start, size))
}
