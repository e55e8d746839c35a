//! Conformance: arrays written by zarr-python 3.1.6 (tests/fixtures/generate.py) and by
//! tensorstore (tests/fixtures/generate_tensorstore.py), read whole and through unaligned
//! selections, compared with the SHA-256 the generating scripts computed from the source NumPy
//! arrays.

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

fn check_manifest(file: &str, at_least: usize) {
    let manifest: Vec<Value> =
        serde_json::from_slice(&std::fs::read(fixtures().join(file)).unwrap()).unwrap();
    assert!(
        manifest.len() >= at_least,
        "{file} lists {} arrays",
        manifest.len()
    );
    let store = FileStore::new(fixtures().join("data"));
    let mut checked = 0;
    for entry in &manifest {
        let name = entry["name"].as_str().unwrap();
        let array = Array::open(&store, name).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(array.shape(), shape(&entry["shape"]).as_slice(), "{name}");
        let unit = array.metadata().dtype.scalar_size();
        for sel in entry["selections"].as_array().unwrap() {
            let region = Region::new(&shape(&sel["start"]), &shape(&sel["shape"])).unwrap();
            let bytes = array
                .read_to_vec(&region)
                .unwrap_or_else(|e| panic!("{name} {region:?}: {e}"));
            let got = hex(&Sha256::digest(to_little_endian(bytes, unit)));
            assert_eq!(got, sel["sha256"].as_str().unwrap(), "{name} {region:?}");
            checked += 1;
        }
    }
    assert_eq!(checked, manifest.len() * 4);
}

#[test]
fn every_zarr_python_fixture_reads_whole_and_through_unaligned_selections() {
    check_manifest("manifest.json", 40);
}

#[test]
fn every_tensorstore_fixture_reads_whole_and_through_unaligned_selections() {
    check_manifest("manifest_tensorstore.json", 4);
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
