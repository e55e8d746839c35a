//! Reads a whole Zarr array (v2 or v3, on disk) with the `zarrs` crate and writes what it
//! read to a file, for a test to compare with what was written:
//! - a fixed-size data type: the elements' bytes, C order, as zarrs holds them in memory
//!   (native endian);
//! - a variable-length one (strings, bytes): the offsets (one more than the elements, each
//!   a little-endian `u64`), then the elements' bytes end to end.
//!
//! It prints one JSON line: `{"kind": "fixed" | "variable", "elements": N}`. Any error zarrs
//! gives is printed and the exit status is 1.
//!
//! With `write`, it makes an array instead, as the zarrs crate writes one: the metadata given
//! (a `zarr.json` document, v3) stored, then the input file's bytes (a fixed-size type, C
//! order, native endian) stored over the whole array, for a test to read with zinto.
//!
//! Usage: zarrs_check <array path> <output file>
//!        zarrs_check write <array path> <zarr.json file> <input file>

use std::sync::Arc;

use zarrs::array::{Array, ArrayBytes, ArrayMetadata};
use zarrs::filesystem::FilesystemStore;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let done = match args.as_slice() {
        [mode, path, meta, input] if mode == "write" => write(path, meta, input),
        [path, out] => check(path, out),
        _ => {
            eprintln!(
                "usage: zarrs_check <array path> <output file>\n       \
                 zarrs_check write <array path> <zarr.json file> <input file>"
            );
            std::process::exit(2);
        }
    };
    if let Err(e) = done {
        eprintln!("zarrs: {e}");
        std::process::exit(1);
    }
}

fn write(path: &str, meta: &str, input: &str) -> Result<(), Box<dyn std::error::Error>> {
    let store = Arc::new(FilesystemStore::new(path)?);
    let metadata: ArrayMetadata = serde_json::from_slice(&std::fs::read(meta)?)?;
    let array = Array::new_with_metadata(store, "/", metadata)?;
    array.store_metadata()?;
    let bytes = ArrayBytes::new_flen(std::fs::read(input)?);
    array.store_array_subset(&array.subset_all(), bytes)?;
    Ok(())
}

fn check(path: &str, out: &str) -> Result<(), Box<dyn std::error::Error>> {
    let store = Arc::new(FilesystemStore::new(path)?);
    let array = Array::open(store, "/")?;
    let elements = array.subset_all().num_elements();
    let read: ArrayBytes<'static> = array.retrieve_array_subset(&array.subset_all())?;
    let (kind, bytes) = match read {
        ArrayBytes::Fixed(bytes) => ("fixed", bytes.into_owned()),
        ArrayBytes::Variable(v) => {
            let (bytes, offsets) = v.into_parts();
            let mut all = Vec::with_capacity(8 * offsets.len() + bytes.len());
            for &o in offsets.iter() {
                all.extend_from_slice(&u64::try_from(o)?.to_le_bytes());
            }
            all.extend_from_slice(&bytes);
            ("variable", all)
        }
        ArrayBytes::Optional(_) => return Err("an optional data type: not compared".into()),
    };
    std::fs::write(out, bytes)?;
    println!("{{\"kind\": \"{kind}\", \"elements\": {elements}}}");
    Ok(())
}
