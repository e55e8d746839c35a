//! Conformance: arrays written by zarr-python 3.1.6 (tests/fixtures/generate.py) and by
//! tensorstore (tests/fixtures/generate_tensorstore.py), read whole and through unaligned
//! selections, compared with the SHA-256 the generating scripts computed from the source NumPy
//! arrays. Only one selection, marked as such, is empty (and those of an array with a
//! zero-length dimension, which has nothing else to select).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a panic is a failed test

use std::path::PathBuf;

use serde_json::Value;
use sha2::{Digest, Sha256};
use zinto::{Array, FileStore, Region};

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

fn shape(v: &Value) -> Vec<u64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect()
}

/// The bytes as little-endian, whatever the machine: the manifest hashes little-endian data.
fn to_little_endian(mut bytes: Vec<u8>, unit: usize) -> Vec<u8> {
    if cfg!(target_endian = "big") && unit > 1 {
        bytes.chunks_exact_mut(unit).for_each(<[u8]>::reverse);
    }
    bytes
}

/// Reads every selection of every array `file` lists and compares its SHA-256. Each array has
/// four selections that select something (the whole array first), unless a dimension has length
/// zero; besides those, exactly `marked_empty` selections in the file are marked `"empty": true`
/// and select nothing on purpose. Any other empty selection fails: it would check nothing.
fn check_manifest(file: &str, at_least: usize, marked_empty: usize) {
    let manifest: Vec<Value> =
        serde_json::from_slice(&std::fs::read(fixtures().join(file)).unwrap()).unwrap();
    assert!(
        manifest.len() >= at_least,
        "{file} lists {} arrays",
        manifest.len()
    );
    let store = FileStore::new(fixtures().join("data"));
    let (mut checked, mut marked) = (0, 0);
    // Every array is tried, and every failure listed, before the test fails.
    let mut failures = vec![];
    for entry in &manifest {
        let name = entry["name"].as_str().unwrap();
        let array = match Array::open(&store, name) {
            Ok(a) => a,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        let array_shape = shape(&entry["shape"]);
        assert_eq!(array.shape(), array_shape.as_slice(), "{name}");
        let zero_length = array_shape.contains(&0);
        let unit = array.metadata().dtype.scalar_size();
        let selections = entry["selections"].as_array().unwrap();
        assert_eq!(
            shape(&selections[0]["shape"]),
            array_shape,
            "{name}: the first selection is the whole array"
        );
        let mut unmarked = 0;
        for sel in selections {
            let (start, extent) = (shape(&sel["start"]), shape(&sel["shape"]));
            let empty = extent.contains(&0);
            if sel.get("empty").and_then(Value::as_bool) == Some(true) {
                assert!(
                    empty,
                    "{name} {start:?} {extent:?} is marked empty but is not"
                );
                marked += 1;
            } else {
                assert!(
                    !empty || zero_length,
                    "{name} {start:?} {extent:?} is empty without being marked so"
                );
                unmarked += 1;
            }
            let region = Region::new(&start, &extent).unwrap();
            match array.read_to_vec(&region) {
                Err(e) => failures.push(format!("{name} {region:?}: {e}")),
                Ok(bytes) => {
                    let got = hex(&Sha256::digest(to_little_endian(bytes, unit)));
                    if got != sel["sha256"].as_str().unwrap() {
                        failures.push(format!("{name} {region:?}: other bytes than expected"));
                    }
                }
            }
            checked += 1;
        }
        assert_eq!(unmarked, 4, "{name}");
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(marked, marked_empty, "{file}: selections marked empty");
    assert_eq!(checked, manifest.len() * 4 + marked_empty);
}

#[test]
fn every_zarr_python_fixture_reads_whole_and_through_unaligned_selections() {
    check_manifest("manifest.json", 40, 1);
}

#[test]
fn every_numcodecs_fixture_reads_whole_and_through_unaligned_selections() {
    // Blosc (every inner compressor, shuffle, typesize, block size), the numcodecs
    // compressors, checksums and filters, v2 and v3: tests/fixtures/generate_numcodecs.py.
    check_manifest("manifest_numcodecs.json", 140, 0);
}

#[test]
fn numcodecs_codecs_zinto_does_not_decode_are_refused_by_name() {
    let list: Vec<Value> =
        serde_json::from_slice(&std::fs::read(fixtures().join("refused_numcodecs.json")).unwrap())
            .unwrap();
    assert!(!list.is_empty());
    let store = FileStore::new(fixtures().join("data"));
    for entry in list {
        let (name, codec) = (
            entry["name"].as_str().unwrap(),
            entry["codec"].as_str().unwrap(),
        );
        let e = Array::open(&store, name).expect_err(name).to_string();
        assert!(e.contains(&format!("{codec:?}")), "{name}: {e}");
    }
}

#[test]
fn every_zarr_python_34_fixture_reads_whole_and_through_unaligned_selections() {
    // What zarr-python 3.4.2 writes (tests/fixtures/generate_zarr34.py).
    check_manifest("manifest_zarr34.json", 24, 0);
}

#[test]
fn every_tensorstore_fixture_reads_whole_and_through_unaligned_selections() {
    check_manifest("manifest_tensorstore.json", 4, 0);
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
