//! Bad input, one named test each: a clear error that names the array and chunk, never a panic.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a panic is a failed test

use std::path::Path;

use serde_json::json;
use zinto::core::codec::{ChainError, CodecName, DecodeError, ShardError};
use zinto::{Array, ErrorKind, MemoryStore, MetadataError, Region, StoreError};

/// Loads a fixture array into memory under the key prefix `a`.
fn load(name: &str) -> MemoryStore {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/data")
        .join(name);
    let mut store = MemoryStore::new();
    fn walk(dir: &Path, prefix: &str, store: &mut MemoryStore) {
        for e in std::fs::read_dir(dir).unwrap() {
            let e = e.unwrap();
            let key = format!("{prefix}/{}", e.file_name().to_str().unwrap());
            if e.file_type().unwrap().is_dir() {
                walk(&e.path(), &key, store);
            } else {
                store.insert(key, std::fs::read(e.path()).unwrap());
            }
        }
    }
    walk(&root, "a", &mut store);
    store
}

fn read_all(store: &MemoryStore) -> Result<Vec<u8>, zinto::Error> {
    let array = Array::open(store, "a")?;
    array.read_to_vec(&Region::whole(array.shape()).unwrap())
}

fn edit_metadata(store: &mut MemoryStore, f: impl FnOnce(&mut serde_json::Value)) {
    let mut meta: serde_json::Value =
        serde_json::from_slice(&store.get("a/zarr.json").unwrap()).unwrap();
    f(&mut meta);
    store.insert("a/zarr.json", serde_json::to_vec(&meta).unwrap());
}

#[test]
fn missing_metadata_is_a_metadata_error() {
    let store = MemoryStore::new();
    let e = Array::open(&store, "nowhere").unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::Metadata(MetadataError::Missing)),
        "{e}"
    );
    assert_eq!(e.path(), "nowhere");
    assert!(e.to_string().contains("nowhere"), "{e}");
}

#[test]
fn malformed_json_is_a_json_error() {
    let mut store = load("v3_float32");
    store.insert("a/zarr.json", b"{\"zarr_format\": 3, \"shape\": [".to_vec());
    let e = Array::open(&store, "a").unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::Metadata(MetadataError::Json(_))),
        "{e}"
    );
    assert!(std::error::Error::source(&e).is_some());
}

#[test]
fn unknown_codec_is_named() {
    let mut store = load("v3_float32");
    edit_metadata(&mut store, |m| m["codecs"][1]["name"] = "lz5".into());
    let e = Array::open(&store, "a").unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::Metadata(MetadataError::UnknownCodec(n)) if n == "lz5"),
        "{e}"
    );
}

#[test]
fn unsupported_data_type_and_grid_are_named() {
    let mut store = load("v3_float32");
    edit_metadata(&mut store, |m| m["data_type"] = "float128".into());
    let e = Array::open(&store, "a").unwrap_err();
    assert!(e.to_string().contains("data type \"float128\""), "{e}");
    // A known variable-length type without its codec says which codec it needs.
    let mut store = load("v3_float32");
    edit_metadata(&mut store, |m| m["data_type"] = "string".into());
    let e = Array::open(&store, "a").unwrap_err();
    assert!(e.to_string().contains("needs vlen-utf8"), "{e}");

    let mut store = load("v3_float32");
    edit_metadata(&mut store, |m| m["chunk_grid"]["name"] = "irregular".into());
    let e = Array::open(&store, "a").unwrap_err();
    assert!(e.to_string().contains("chunk grid irregular"), "{e}");
    // A rectilinear grid with a regular grid's configuration names what it lacks.
    let mut store = load("v3_float32");
    edit_metadata(&mut store, |m| {
        m["chunk_grid"]["name"] = "rectilinear".into()
    });
    let e = Array::open(&store, "a").unwrap_err();
    assert!(
        e.to_string()
            .contains("rectilinear chunk grid without its kind"),
        "{e}"
    );
}

/// An array of uint8 on the rectilinear grid `chunk_shapes`, of `shape`, as metadata alone.
fn rect_store(chunk_shapes: serde_json::Value, shape: serde_json::Value) -> MemoryStore {
    let meta = json!({
        "zarr_format": 3, "node_type": "array", "shape": shape, "data_type": "uint8",
        "chunk_grid": {"name": "rectilinear", "configuration": {
            "kind": "inline", "chunk_shapes": chunk_shapes}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": 0,
        "codecs": [{"name": "bytes"}],
    });
    let mut store = MemoryStore::new();
    store.insert("zarr.json", meta.to_string().into_bytes());
    store
}

/// Hostile rectilinear grids (issue 49): edges that stop short, a zero edge, a negative or
/// overflowing count, and ten million explicit edges are refused by name, the last before
/// any tree of them is built (the field is past the 1 MiB a metadata field may take); 2^40
/// edges written as one run open as a few bytes, and a read at its far end is the fill
/// value.
#[test]
fn hostile_rectilinear_grids_are_refused_or_cost_their_document() {
    let refused = |grid: serde_json::Value, shape: serde_json::Value, says: &str| {
        let e = Array::open(rect_store(grid.clone(), shape), "").unwrap_err();
        assert!(e.to_string().contains(says), "{grid}: {e}");
    };
    refused(
        json!([[1, 2]]),
        json!([10]),
        "end before the array's extent 10",
    );
    refused(
        json!([[0, 5]]),
        json!([5]),
        "must be an integer of 1 or more, not 0",
    );
    refused(
        json!([[[1, -3]]]),
        json!([3]),
        "run count along dimension 0",
    );
    refused(json!([[[1u64 << 63, 4]]]), json!([1u64 << 63]), "overflow");
    let many: Vec<u64> = vec![1; 10_000_000];
    refused(json!([many]), json!([10_000_000]), "more than the 1048576");
    let run = 1u64 << 40;
    let array = Array::open(rect_store(json!([[[1, run]]]), json!([run])), "").unwrap();
    assert_eq!(array.metadata().grid.num_chunks(), run);
    let far = Region::new(&[run - 3], &[3]).unwrap();
    assert_eq!(array.read_to_vec(&far).unwrap(), [0, 0, 0]);
}

/// Shards on a rectilinear grid hold whole inner chunks: an edge that is not a multiple of the
/// inner chunk's is refused by name, one past the array's end too (zarr-python checks every
/// edge); multiples open, each shard its own grid of inner chunks.
#[test]
fn rectilinear_shards_of_partial_inner_chunks_are_refused_by_name() {
    let sharded = |chunk_shapes: serde_json::Value| {
        let meta = json!({
            "zarr_format": 3, "node_type": "array", "shape": [60], "data_type": "uint8",
            "chunk_grid": {"name": "rectilinear", "configuration": {
                "kind": "inline", "chunk_shapes": chunk_shapes}},
            "chunk_key_encoding": {"name": "default"}, "fill_value": 0,
            "codecs": [{"name": "sharding_indexed", "configuration": {
                "chunk_shape": [10], "codecs": [{"name": "bytes"}],
                "index_codecs": [{"name": "bytes"}, {"name": "crc32c"}]}}],
        });
        let mut store = MemoryStore::new();
        store.insert("zarr.json", meta.to_string().into_bytes());
        Array::open(store, "")
    };
    for (edges, dim_edge) in [(json!([[20, 35, 5]]), 35), (json!([[20, 40, 15]]), 15)] {
        let e = sharded(edges.clone()).unwrap_err().to_string();
        assert!(
            e.contains(&format!("shard extent {dim_edge} along dimension 0")),
            "{edges}: {e}"
        );
    }
    let array = sharded(json!([[20, [40, 2]]])).unwrap();
    assert_eq!(array.metadata().grid.chunk_shape_at(&[1]).unwrap(), [40]);
}

#[test]
fn hostile_shapes_are_errors_not_allocations() {
    let mut store = load("v3_float32");
    edit_metadata(&mut store, |m| {
        m["shape"] = serde_json::json!([u64::MAX, u64::MAX]);
        m["chunk_grid"]["configuration"]["chunk_shape"] = serde_json::json!([1, 1]);
    });
    let e = Array::open(&store, "a").unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::Metadata(MetadataError::Layout(_))),
        "{e}"
    );

    let mut store = load("v3_float32");
    edit_metadata(&mut store, |m| {
        m["chunk_grid"]["configuration"]["chunk_shape"] = serde_json::json!([0, 2]);
    });
    assert!(Array::open(&store, "a").is_err());
}

#[test]
fn truncated_chunk_names_the_key() {
    let mut store = load("v3_float32");
    let chunk = store.get("a/c/1/1").unwrap().to_vec();
    store.insert("a/c/1/1", chunk[..chunk.len() - 3].to_vec());
    let e = read_all(&store).unwrap_err();
    assert_eq!(e.key(), Some("a/c/1/1"));
    assert!(matches!(e.kind(), ErrorKind::Decode(_)), "{e}");
    assert!(e.to_string().contains("a/c/1/1"), "{e}");
}

#[test]
fn chunk_with_trailing_bytes_is_an_error() {
    let mut store = load("v3_float32");
    let mut chunk = store.get("a/c/0/0").unwrap().to_vec();
    chunk.extend_from_slice(b"extra");
    store.insert("a/c/0/0", chunk);
    let e = read_all(&store).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::Decode(DecodeError::TrailingData { extra: 5, .. })
        ),
        "{e}"
    );
}

#[test]
fn uncompressed_chunk_of_the_wrong_size_is_an_error() {
    let mut store = load("v3_uncompressed");
    let mut chunk = store.get("a/c/0/0").unwrap().to_vec();
    chunk.push(0);
    store.insert("a/c/0/0", chunk);
    let e = read_all(&store).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::Decode(DecodeError::SizeMismatch { .. })
        ),
        "{e}"
    );
}

#[test]
fn corrupt_chunk_is_an_error() {
    let mut store = load("v3_zstd_checksum_crc32c");
    let mut chunk = store.get("a/c/0/0").unwrap().to_vec();
    let mid = chunk.len() / 2;
    chunk[mid] ^= 0xFF;
    store.insert("a/c/0/0", chunk);
    let e = read_all(&store).unwrap_err();
    // The zstd frame fails before the outer crc32c is reached: its own checksum (ruzstd path,
    // with the values) or the C library's verdict (no values) names it.
    assert!(
        matches!(
            e.kind(),
            ErrorKind::Decode(DecodeError::ChecksumMismatch { .. } | DecodeError::Corrupt { .. })
        ),
        "{e}"
    );
    assert_eq!(e.key(), Some("a/c/0/0"));
}

#[test]
fn shard_index_that_lies_is_an_error() {
    let mut store = load("v3_shard_start");
    let mut shard = store.get("a/c/0/0").unwrap().to_vec();
    // The index is at the start: make the first entry's length run past the shard, and fix the
    // index checksum so that only the lie remains.
    let n_entries = (6 / 3) * (6 / 2);
    let len_at = 8;
    shard[len_at..len_at + 8].copy_from_slice(&(1u64 << 40).to_le_bytes());
    let crc = zinto::core::codec::crc32c(&shard[..16 * n_entries]);
    shard[16 * n_entries..16 * n_entries + 4].copy_from_slice(&crc.to_le_bytes());
    store.insert("a/c/0/0", shard);
    let e = read_all(&store).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::Shard(ShardError::EntryOutOfShard { chunk: 0, .. })
        ),
        "{e}"
    );
    assert_eq!(e.key(), Some("a/c/0/0"));
}

#[test]
fn shard_shorter_than_its_index_is_an_error() {
    let mut store = load("v3_shard_end");
    store.insert("a/c/0/0", vec![0u8; 10]);
    let e = read_all(&store).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::Shard(ShardError::ShardTooSmall { .. })),
        "{e}"
    );
}

#[test]
fn wrong_output_size_and_outside_selection_are_errors() {
    let store = load("v3_float32");
    let array = Array::open(&store, "a").unwrap();
    let mut out = vec![0u8; 3];
    let e = array
        .read_into(&Region::whole(array.shape()).unwrap(), &mut out)
        .unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::OutputSize {
                expected: 140,
                got: 3
            }
        ),
        "{e}"
    );
    let e = array
        .read_to_vec(&Region::new(&[5, 0], &[3, 1]).unwrap())
        .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Layout(_)), "{e}");
}

#[test]
fn store_short_read_is_reported() {
    let store = load("v3_float32");
    let mut buf = [0u8; 8];
    let e = zinto::Store::read_into(&store, "a/zarr.json", 1 << 20, &mut buf).unwrap_err();
    assert!(matches!(e, StoreError::ShortRead { .. }), "{e}");
}

#[test]
fn chunk_shape_far_larger_than_the_stored_chunk_is_refused_before_allocating() {
    // The metadata claims 4 TB chunks; the stored chunk is a few hundred bytes of zstd.
    let mut store = load("v3_float32");
    edit_metadata(&mut store, |m| {
        m["shape"] = json!([1u64 << 20, 1u64 << 20]);
        m["chunk_grid"]["configuration"]["chunk_shape"] = json!([1u64 << 20, 1u64 << 20]);
    });
    let array = Array::open(&store, "a").unwrap();
    let e = array
        .read_to_vec(&Region::new(&[0, 0], &[2, 2]).unwrap())
        .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::ChunkTooLarge { .. }), "{e}");
    assert_eq!(e.key(), Some("a/c/0/0"));
}

#[test]
fn output_larger_than_memory_is_an_error_not_an_abort() {
    let mut store = load("v3_float32");
    edit_metadata(&mut store, |m| {
        m["shape"] = json!([1u64 << 60]);
        m["chunk_grid"]["configuration"]["chunk_shape"] = json!([1u64 << 20]);
    });
    let array = Array::open(&store, "a").unwrap();
    let e = array
        .read_to_vec(&Region::whole(array.shape()).unwrap())
        .unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::OutOfMemory { bytes } if *bytes == 1 << 62),
        "{e}"
    );
}

#[test]
fn unknown_metadata_fields_must_be_optional() {
    // An extension marked must_understand: false is ignored: the data reads the same...
    let mut store = load("v3_float32");
    let plain = read_all(&store).unwrap();
    edit_metadata(&mut store, |m| {
        m["my_extension"] = json!({"must_understand": false, "configuration": {"x": 1}});
    });
    assert_eq!(read_all(&store).unwrap(), plain);
    // ...any other unknown field is refused by name.
    let mut store = load("v3_float32");
    edit_metadata(&mut store, |m| {
        m["my_extension"] = json!({"configuration": {"x": 1}})
    });
    let e = Array::open(&store, "a").unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::Metadata(MetadataError::Unsupported(w)) if w.contains("my_extension")),
        "{e}"
    );
}

/// Copies a fixture array into a fresh directory of its own under the system temp dir.
fn copy_to_temp(name: &str, tag: &str) -> std::path::PathBuf {
    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_dir() {
                copy(&e.path(), &to.join(e.file_name()));
            } else {
                std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
            }
        }
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/data")
        .join(name);
    let dir = std::env::temp_dir().join(format!("zinto-bad-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    copy(&src, &dir);
    dir
}

#[test]
fn directory_where_a_chunk_file_belongs_is_an_error_not_fill() {
    let dir = copy_to_temp("v3_float32", "chunk-dir");
    std::fs::remove_file(dir.join("c/1/1")).unwrap();
    std::fs::create_dir(dir.join("c/1/1")).unwrap();
    let store = zinto::FileStore::new(&dir);
    let array = Array::open(&store, "").unwrap();
    let read = array.read_to_vec(&Region::whole(array.shape()).unwrap());
    let direct = zinto::Store::read_into(&store, "c/1/1", 0, &mut [0u8; 4]);
    std::fs::remove_dir_all(&dir).unwrap();

    let e = read.unwrap_err();
    assert_eq!(e.key(), Some("c/1/1"));
    assert!(
        matches!(
            e.kind(),
            ErrorKind::Store(StoreError::NotAFile { key, directory: true }) if key == "c/1/1"
        ),
        "{e}"
    );
    assert!(e.to_string().contains("\"c/1/1\" is a directory"), "{e}");
    let e = direct.unwrap_err();
    assert!(
        matches!(&e, StoreError::NotAFile { key, .. } if key == "c/1/1"),
        "{e}"
    );
}

#[test]
fn directory_named_like_a_metadata_file_is_an_error_absent_metadata_is_not() {
    // zarr.json as a directory: an error naming it, not "no metadata" or a v2 fallback.
    let dir = copy_to_temp("v3_float32", "meta-dir");
    std::fs::remove_file(dir.join("zarr.json")).unwrap();
    std::fs::create_dir(dir.join("zarr.json")).unwrap();
    let e = Array::open(zinto::FileStore::new(&dir), "").unwrap_err();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(
        matches!(e.kind(), ErrorKind::Store(StoreError::NotAFile { key, .. }) if key == "zarr.json"),
        "{e}"
    );

    // A v2 array: no zarr.json and no .zattrs are simply absent; .zattrs as a directory is
    // not, but attributes are not needed to read the data: the array opens, and says so when
    // its attributes are asked for.
    let dir = copy_to_temp("v2_zstd_dot", "zattrs-dir");
    let _ = std::fs::remove_file(dir.join(".zattrs"));
    let opened = Array::open(zinto::FileStore::new(&dir), "").map(|a| a.shape().to_vec());
    std::fs::create_dir(dir.join(".zattrs")).unwrap();
    let array = Array::open(zinto::FileStore::new(&dir), "").unwrap();
    let whole = Region::whole(&[11, 7]).unwrap();
    let read = array.read_to_vec(&whole).unwrap();
    let e = array.metadata().attributes().unwrap_err().to_string();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(opened.unwrap(), [11, 7]);
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/data/v2_zstd_dot");
    let expected = Array::open(zinto::FileStore::new(fixture), "").unwrap();
    assert_eq!(read, expected.read_to_vec(&whole).unwrap());
    assert!(e.contains(".zattrs") && e.contains("is a directory"), "{e}");
}

#[test]
fn order_is_an_unknown_v3_codec() {
    // `order` is a v2 .zarray field, not a v3 codec: unknown, like any other name.
    let mut store = load("v3_float32");
    edit_metadata(&mut store, |m| m["codecs"][1]["name"] = "order".into());
    let e = Array::open(&store, "a").unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::Metadata(MetadataError::UnknownCodec(n)) if n == "order"),
        "{e}"
    );
    assert!(e.to_string().contains("unknown codec \"order\""), "{e}");
}

/// Edits the JSON document at `key` (any metadata file) in place.
fn edit_json(store: &mut MemoryStore, key: &str, f: impl FnOnce(&mut serde_json::Value)) {
    let mut doc: serde_json::Value = serde_json::from_slice(&store.get(key).unwrap()).unwrap();
    f(&mut doc);
    store.insert(key, serde_json::to_vec(&doc).unwrap());
}

#[test]
fn required_metadata_fields_are_errors_when_absent_not_defaults() {
    // (fixture, metadata key, field the spec requires)
    let cases = [
        ("v3_float32", "a/zarr.json", "zarr_format"),
        ("v3_float32", "a/zarr.json", "node_type"),
        ("v3_float32", "a/zarr.json", "shape"),
        ("v3_float32", "a/zarr.json", "data_type"),
        ("v3_float32", "a/zarr.json", "chunk_grid"),
        ("v3_float32", "a/zarr.json", "chunk_key_encoding"),
        ("v3_float32", "a/zarr.json", "fill_value"),
        ("v3_float32", "a/zarr.json", "codecs"),
        ("v2_zstd_dot", "a/.zarray", "zarr_format"),
        ("v2_zstd_dot", "a/.zarray", "shape"),
        ("v2_zstd_dot", "a/.zarray", "chunks"),
        ("v2_zstd_dot", "a/.zarray", "dtype"),
        ("v2_zstd_dot", "a/.zarray", "compressor"),
        ("v2_zstd_dot", "a/.zarray", "fill_value"),
        ("v2_zstd_dot", "a/.zarray", "order"),
        ("v2_zstd_dot", "a/.zarray", "filters"),
    ];
    for (fixture, key, field) in cases {
        let mut store = load(fixture);
        edit_json(&mut store, key, |m| {
            m.as_object_mut().unwrap().remove(field).unwrap();
        });
        let e = Array::open(&store, "a").map(|a| a.shape().to_vec());
        let e = e.expect_err(&format!("{key} without {field} opened"));
        assert!(
            matches!(e.kind(), ErrorKind::Metadata(MetadataError::Json(_))),
            "{key} without {field}: {e}"
        );
        assert!(
            e.to_string().contains(&format!("missing field `{field}`")),
            "{key} without {field}: {e}"
        );
    }
    // Fields the spec makes optional may be absent.
    let optional = [
        ("v3_float32", "a/zarr.json", "attributes"),
        ("v3_float32", "a/zarr.json", "storage_transformers"),
        ("v2_zstd_dot", "a/.zarray", "dimension_separator"),
    ];
    for (fixture, key, field) in optional {
        let mut store = load(fixture);
        let whole = read_all(&store).unwrap();
        edit_json(&mut store, key, |m| {
            m.as_object_mut().unwrap().remove(field).unwrap();
        });
        assert_eq!(read_all(&store).unwrap(), whole, "{key} without {field}");
    }
}

#[test]
fn configuration_values_are_not_defaulted_when_absent_or_mistyped() {
    // (what, edit of zarr.json, expected message part)
    type Edit = fn(&mut serde_json::Value);
    let cases: [(&str, &str, Edit, &str); 4] = [
        (
            "separator of the wrong type",
            "v3_float32",
            |m| m["chunk_key_encoding"]["configuration"]["separator"] = json!(5),
            "separator must be a string",
        ),
        (
            "endian of the wrong type",
            "v3_float32",
            |m| m["codecs"][0]["configuration"]["endian"] = json!(["big"]),
            "endian must be a string",
        ),
        (
            "sharding without index_codecs",
            "v3_shard_end",
            |m| {
                m["codecs"][0]["configuration"]
                    .as_object_mut()
                    .unwrap()
                    .remove("index_codecs");
            },
            "sharding_indexed configuration lacks \"index_codecs\"",
        ),
        (
            "sharding without codecs",
            "v3_shard_end",
            |m| {
                m["codecs"][0]["configuration"]
                    .as_object_mut()
                    .unwrap()
                    .remove("codecs");
            },
            "sharding_indexed configuration lacks \"codecs\"",
        ),
    ];
    for (what, fixture, edit, message) in cases {
        let mut store = load(fixture);
        edit_metadata(&mut store, edit);
        let e = Array::open(&store, "a").map(|a| a.shape().to_vec());
        let e = e.expect_err(what);
        assert!(
            matches!(e.kind(), ErrorKind::Metadata(MetadataError::Invalid(w)) if w.contains(message)),
            "{what}: {e}"
        );
    }
    // A v2 compressor must say which it is.
    let mut store = load("v2_zstd_dot");
    edit_json(&mut store, "a/.zarray", |m| {
        m["compressor"].as_object_mut().unwrap().remove("id");
    });
    let e = Array::open(&store, "a").unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::Metadata(MetadataError::Invalid(w)) if w.contains("compressor without")),
        "{e}"
    );
}

/// A v2 array of 4 uint8 in one chunk stored as `compressor`'s output of `[1, 2, 3, 4]`.
fn v2_u8(compressor: serde_json::Value, chunk: Vec<u8>) -> MemoryStore {
    let mut store = MemoryStore::new();
    let zarray = json!({
        "zarr_format": 2, "shape": [4], "chunks": [4], "dtype": "|u1", "fill_value": 0,
        "order": "C", "filters": null, "compressor": compressor,
    });
    store.insert("a/.zarray", serde_json::to_vec(&zarray).unwrap());
    store.insert("a/0", chunk);
    store
}

#[test]
fn v2_crc32c_location_is_read_and_both_locations_decoded() {
    let data = [1u8, 2, 3, 4];
    let crc = zinto::core::codec::crc32c(&data).to_le_bytes();
    let at_end = [&data[..], &crc].concat();
    let at_start = [&crc[..], &data].concat();
    // numcodecs' CRC32C: `location` "end" by default (`null` is the default there too).
    for config in [
        json!({"id": "crc32c"}),
        json!({"id": "crc32c", "location": "end"}),
        json!({"id": "crc32c", "location": null}),
    ] {
        let store = v2_u8(config.clone(), at_end.clone());
        assert_eq!(read_all(&store).unwrap(), data, "{config}");
    }
    let store = v2_u8(
        json!({"id": "crc32c", "location": "start"}),
        at_start.clone(),
    );
    assert_eq!(read_all(&store).unwrap(), data);
    // The checksum where the configuration says it is not: a mismatch naming crc32c.
    let store = v2_u8(json!({"id": "crc32c", "location": "start"}), at_end.clone());
    let e = read_all(&store).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::Decode(DecodeError::ChecksumMismatch {
                codec: CodecName::Crc32c,
                ..
            })
        ),
        "{e}"
    );
    for location in [json!("middle"), json!(4)] {
        let config = json!({"id": "crc32c", "location": location});
        let store = v2_u8(config.clone(), at_end.clone());
        let e = Array::open(&store, "a")
            .map(|a| a.shape().to_vec())
            .unwrap_err();
        assert!(
            matches!(
                e.kind(),
                ErrorKind::Metadata(MetadataError::Chain(ChainError::Config {
                    key: "location",
                    ..
                }))
            ),
            "{config}: {e}"
        );
    }
}

#[test]
fn bad_attributes_do_not_stop_the_data_from_being_read() {
    let mut store = load("v2_zstd_dot");
    let whole = read_all(&store).unwrap();
    store.insert("a/.zattrs", br#"{"units": "K""#.to_vec()); // cut short
    assert_eq!(read_all(&store).unwrap(), whole);
    let array = Array::open(&store, "a").unwrap();
    let e = array.metadata().attributes().unwrap_err();
    assert!(matches!(e, MetadataError::Json(_)), "{e}");

    store.insert("a/.zattrs", br#"{"units": "K"}"#.to_vec());
    let array = Array::open(&store, "a").unwrap();
    assert_eq!(array.metadata().attributes().unwrap()["units"], "K");

    // Larger than metadata may be: not read at all, and said so when asked for.
    store.insert("a/.zattrs", vec![b' '; (16 << 20) + 1]);
    assert_eq!(read_all(&store).unwrap(), whole);
    let array = Array::open(&store, "a").unwrap();
    let e = array.metadata().attributes().unwrap_err().to_string();
    assert!(
        e.contains("cannot read .zattrs") && e.contains("16777217 bytes"),
        "{e}"
    );

    // v3: attributes that are not an object, likewise.
    let mut store = load("v3_float32");
    let whole = read_all(&store).unwrap();
    edit_metadata(&mut store, |m| m["attributes"] = json!([1, 2]));
    assert_eq!(read_all(&store).unwrap(), whole);
    let array = Array::open(&store, "a").unwrap();
    let e = array.metadata().attributes().unwrap_err();
    assert!(
        matches!(e, MetadataError::Invalid(w) if w.contains("attributes must be an object")),
        "{e}"
    );
}

#[test]
fn hostile_blosc_chunks_name_the_array_the_chunk_and_the_field() {
    let store = load("nc_v2_blosc_lz4_shuffle");
    let whole = read_all(&store).unwrap();
    let good = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/data/nc_v2_blosc_lz4_shuffle/0.0"),
    )
    .unwrap();
    type Mutation = fn(&mut Vec<u8>);
    let cases: [(Mutation, &str); 5] = [
        (|c| c[0] = 3, "header field format version = 3"),
        (|c| c[3] = 0, "header field typesize = 0"),
        (
            |c| c[4..8].copy_from_slice(&u32::MAX.to_le_bytes()),
            "blosc: decoded 4294967295 bytes, expected 3072",
        ),
        (|c| c.truncate(c.len() - 1), "the stream states"),
        (|c| c[2] = 0x50 | (c[2] & 0x1f), "snappy: "),
    ];
    for (mutate, says) in cases {
        let mut store = store.clone();
        let mut chunk = good.clone();
        mutate(&mut chunk);
        store.insert("a/0.0", chunk);
        let e = read_all(&store).unwrap_err().to_string();
        assert!(e.contains(says) && e.contains("0.0"), "{e}");
    }
    // The untouched array still reads.
    assert_eq!(read_all(&store).unwrap(), whole);
}

#[test]
fn a_group_is_named_a_group_not_a_malformed_array() {
    // v3: a group's zarr.json lacks the array fields; it is a group, said before they are missed.
    let mut store = MemoryStore::new();
    store.insert(
        "g/zarr.json",
        br#"{"zarr_format": 3, "node_type": "group", "attributes": {"title": "t"}}"#.to_vec(),
    );
    let e = Array::open(&store, "g")
        .map(|a| a.shape().to_vec())
        .unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::Metadata(MetadataError::NotAnArray(k)) if k.starts_with("group")),
        "{e}"
    );
    assert!(
        e.to_string()
            .contains("node is a group (no members), not an array"),
        "{e}"
    );
    // v2: a directory with .zgroup and no .zarray.
    let mut store = MemoryStore::new();
    store.insert("g/.zgroup", br#"{"zarr_format": 2}"#.to_vec());
    let e = Array::open(&store, "g")
        .map(|a| a.shape().to_vec())
        .unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::Metadata(MetadataError::NotAnArray(_))),
        "{e}"
    );
    assert!(e.to_string().contains("group"), "{e}");
    // Nothing there at all is still "missing".
    let e = Array::open(&MemoryStore::new(), "g")
        .map(|a| a.shape().to_vec())
        .unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::Metadata(MetadataError::Missing)),
        "{e}"
    );
}

#[test]
fn unreadable_group_attributes_do_not_stop_listing_or_reading() {
    // v2: a .zattrs that is not JSON, beside a .zgroup and a member array.
    let mut store = load("ds_nested_v2.zarr");
    store.insert("a/.zattrs", b"{not json".to_vec());
    store.insert("a/a/.zattrs", vec![b' '; 17 << 20]); // over the 16 MiB bound
    let group = zinto::Group::open(&store, "a").unwrap();
    let e = group.attributes().unwrap_err();
    assert!(e.to_string().contains("attributes"), "{e}");
    let names: Vec<String> = group
        .members()
        .unwrap()
        .into_iter()
        .map(|m| m.name)
        .collect();
    assert_eq!(names, ["a", "x"]);
    let sub = group.group("a").unwrap();
    let e = sub.attributes().unwrap_err().to_string();
    assert!(e.contains("more than the 16777216 allowed"), "{e}");
    let x = group.array("x").unwrap();
    x.read_to_vec(&Region::whole(x.shape()).unwrap()).unwrap();
}

#[test]
fn hostile_consolidated_metadata_is_refused_by_name() {
    let group = |consolidated: serde_json::Value| {
        let mut store = MemoryStore::new();
        store.insert(
            "g/zarr.json",
            serde_json::to_vec(&json!({"zarr_format": 3, "node_type": "group",
                "consolidated_metadata": consolidated}))
            .unwrap(),
        );
        zinto::Group::open(&store, "g").map(|_| ())
    };
    for (bad, says) in [
        (
            json!({"kind": "inline", "metadata": {"../../etc": {"node_type": "array"}}}),
            "../../etc",
        ),
        (
            json!({"kind": "inline", "metadata": {"a": {"node_type": "table"}}}),
            "node_type \"table\"",
        ),
        (
            json!({"kind": "inline", "metadata": {"a": 5}}),
            "is not an object",
        ),
        (json!({"kind": "remote", "metadata": {}}), "kind \"remote\""),
        (json!({"kind": "inline"}), "without a metadata object"),
    ] {
        let e = group(bad.clone()).unwrap_err();
        assert!(e.to_string().contains(says), "{bad}: {e}");
        assert!(e.to_string().starts_with("group g:"), "{e}");
    }
}

/// A v3 `string` array of 4 elements in one chunk of 4, uncompressed, with `chunk` as its bytes.
fn strings_with_chunk(chunk: Vec<u8>) -> Result<zinto::VlenData, zinto::Error> {
    strings_stored_with(json!([]), chunk)
}

/// As [`strings_with_chunk`], the chunk stored with `codecs` after `vlen-utf8`.
fn strings_stored_with(
    codecs: serde_json::Value,
    chunk: Vec<u8>,
) -> Result<zinto::VlenData, zinto::Error> {
    let mut chain = vec![json!({"name": "vlen-utf8"})];
    chain.extend(codecs.as_array().unwrap().iter().cloned());
    let mut store = MemoryStore::new();
    store.insert(
        "s/zarr.json",
        serde_json::to_vec(
            &json!({"zarr_format": 3, "node_type": "array", "shape": [4],
            "data_type": "string", "fill_value": "",
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4]}},
            "chunk_key_encoding": {"name": "default"}, "codecs": chain}),
        )
        .unwrap(),
    );
    store.insert("s/c/0", chunk);
    let array = Array::open(&store, "s")?;
    array.read_vlen(&Region::whole(&[4]).unwrap())
}

fn vlen_chunk(count: u32, items: &[&[u8]]) -> Vec<u8> {
    let mut out = count.to_le_bytes().to_vec();
    for item in items {
        out.extend((item.len() as u32).to_le_bytes());
        out.extend(*item);
    }
    out
}

#[test]
fn corrupt_variable_length_chunks_are_named_errors() {
    let good = vlen_chunk(4, &[b"a", b"", b"bc", b"d"]);
    assert_eq!(
        strings_with_chunk(good.clone()).unwrap().get_str(2),
        Some("bc")
    );
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (vec![4, 0], "input ends before"),
        (vlen_chunk(3, &[b"a", b"", b"bc"]), "its shape holds 4"),
        (vlen_chunk(4_000_000_000, &[b"a"]), "its shape holds 4"),
        (good[..good.len() - 1].to_vec(), "input ends before"),
        ([&good[..], b"x"].concat(), "1"),
        (vlen_chunk(4, &[b"a", b"\xff\xfe", b"", b""]), "not utf-8"),
        // A length of u32::MAX: refused, never allocated or sliced.
        (
            [&4u32.to_le_bytes()[..], &u32::MAX.to_le_bytes(), b"ab"].concat(),
            "input ends before",
        ),
    ];
    for (chunk, says) in cases {
        let e = strings_with_chunk(chunk.clone()).unwrap_err();
        let msg = e.to_string();
        assert_eq!(e.key(), Some("s/c/0"), "{msg}");
        assert!(msg.to_lowercase().contains(says), "{chunk:?}: {msg}");
    }
}

/// zlib streams, and zstd frames written without their content size, state no decoded size:
/// a chunk of strings is decoded as its buffer grows. Cut short, or with bytes after the
/// stream, or empty, it is an error naming the chunk.
#[test]
fn string_chunks_that_state_no_size_are_decoded_as_they_grow() {
    use std::io::Write;
    let raw = vlen_chunk(4, &[b"a", b"", b"bc", &[b'd'; 70_000]]);
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::new(6));
    z.write_all(&raw).unwrap();
    let zlib = z.finish().unwrap();
    // A streamed frame declares its window: one past what the stored size can decode to is
    // refused (`WindowTooLarge`) before the library allocates it, so this one declares 128 KiB.
    let mut e = zstd::stream::Encoder::new(Vec::new(), 3).unwrap();
    e.set_parameter(zstd::stream::raw::CParameter::WindowLog(17))
        .unwrap();
    e.write_all(&raw).unwrap();
    let streamed = e.finish().unwrap();
    let zlib_codec = json!([{"name": "numcodecs.zlib", "configuration": {"level": 6}}]);
    let zstd_codec = json!([{"name": "zstd", "configuration": {"level": 3}}]);
    for (codecs, stored) in [(&zlib_codec, &zlib), (&zstd_codec, &streamed)] {
        let got = strings_stored_with(codecs.clone(), stored.clone()).unwrap();
        assert_eq!(got.get_str(2), Some("bc"));
        assert_eq!(got.get(3).map(<[u8]>::len), Some(70_000));
    }
    for bad in [
        zlib[..zlib.len() - 3].to_vec(),
        [&zlib[..], b"x"].concat(),
        Vec::new(),
    ] {
        let e = strings_stored_with(zlib_codec.clone(), bad.clone()).unwrap_err();
        assert_eq!(e.key(), Some("s/c/0"), "{e}");
        assert!(
            matches!(e.kind(), ErrorKind::Decode(_)),
            "{} bytes: {e}",
            bad.len()
        );
    }
}

/// A v3 uint8 array of `len` elements in one chunk, stored with zstd as `frame`.
fn zstd_array(len: u64, frame: Vec<u8>) -> MemoryStore {
    let meta = json!({
        "zarr_format": 3, "node_type": "array", "shape": [len], "data_type": "uint8",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [len]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": 0,
        "codecs": [{"name": "bytes"}, {"name": "zstd", "configuration": {"level": 0}}],
    });
    let mut store = MemoryStore::new();
    store.insert("a/zarr.json", serde_json::to_vec(&meta).unwrap());
    store.insert("a/c/0", frame);
    store
}

#[test]
fn a_frame_declaring_a_window_above_its_chunk_is_read_whole_when_partly_wanted() {
    // No content size, a 192 MiB window, one raw block of 10 bytes: valid zstd. Through a
    // window the C library would keep 192 MiB, so the reader decodes this chunk whole (path
    // 3b) instead; ruzstd keeps no more window than the chunk either way.
    let mut frame = vec![0x28, 0xB5, 0x2F, 0xFD, 0x00, 0x8c];
    frame.extend([(10 << 3) | 1, 0, 0]);
    frame.extend(b"0123456789");
    let store = zstd_array(10, frame);
    let array = Array::open(&store, "a").unwrap();
    let part = array
        .read_to_vec(&Region::new(&[2], &[5]).unwrap())
        .unwrap();
    assert_eq!(part, b"23456");
}

#[test]
fn a_partly_wanted_chunk_that_decodes_short_or_long_is_an_error_naming_it() {
    // The frame's content is 12 bytes for a chunk of 10, then 8: whichever part is wanted, the
    // chunk is decoded to its end and checked.
    for (content, len) in [(&b"0123456789ab"[..], 10u64), (&b"01234567"[..], 10)] {
        let frame = zstd::bulk::compress(content, 3).unwrap();
        let store = zstd_array(len, frame);
        let array = Array::open(&store, "a").unwrap();
        let e = array
            .read_to_vec(&Region::new(&[0], &[3]).unwrap())
            .unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::Decode(_)), "{e}");
        assert_eq!(e.key(), Some("a/c/0"));
    }
}

/// The limits docs/security.md states, each at its value: one past it is an error naming what
/// was too large or too deep, before anything is sized by it; at it (or just inside), the
/// metadata opens.
#[test]
fn the_stated_limits_hold_at_their_values() {
    let opens = |zarray: serde_json::Value| {
        let mut store = MemoryStore::new();
        store.insert("a/.zarray", serde_json::to_vec(&zarray).unwrap());
        Array::open(&store, "a").map(|_| ())
    };
    let v2 = |shape: serde_json::Value, dtype: &str, filters: serde_json::Value| {
        json!({"zarr_format": 2, "shape": shape.clone(), "chunks": shape, "dtype": dtype,
               "fill_value": null, "order": "C", "filters": filters, "compressor": null})
    };
    // 32 dimensions, not 33.
    opens(v2(json!(vec![1; 32]), "|u1", json!(null))).unwrap();
    let e = opens(v2(json!(vec![1; 33]), "|u1", json!(null))).unwrap_err();
    assert!(e.to_string().contains("33"), "{e}");
    // Elements of 1 MiB, not more.
    opens(v2(json!([2]), &format!("|S{}", 1 << 20), json!(null))).unwrap();
    let e = opens(v2(json!([2]), &format!("|S{}", (1 << 20) + 1), json!(null))).unwrap_err();
    assert!(e.to_string().contains("1048576 bytes"), "{e}");
    // Four filters, not five.
    let delta = json!({"id": "delta", "dtype": "|u1"});
    opens(v2(json!([4]), "|u1", json!(vec![delta.clone(); 4]))).unwrap();
    let e = opens(v2(json!([4]), "|u1", json!(vec![delta; 5]))).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::Metadata(MetadataError::Chain(ChainError::TooMany { .. }))
        ),
        "{e}"
    );
    // A metadata document of 16 MiB at most: one of exactly 16 MiB opens, one byte more is
    // refused before it is parsed.
    let sized = |len: usize| {
        let mut doc = serde_json::to_vec(&v2(json!([4]), "|u1", json!(null))).unwrap();
        doc.pop();
        doc.extend_from_slice(br#", "padding": ""#);
        doc.resize(len - 2, b' ');
        doc.extend_from_slice(br#""}"#);
        let mut store = MemoryStore::new();
        store.insert("a/.zarray", doc);
        Array::open(&store, "a").map(|_| ())
    };
    sized(16 << 20).unwrap();
    let e = sized((16 << 20) + 1).unwrap_err();
    assert!(
        e.to_string().contains("more than the 16777216 allowed"),
        "{e}"
    );
    // JSON nested 200 levels deep (past serde_json's limit of 128) is a JSON error, not a
    // stack overflow: in attributes, when they are asked for (opening keeps their text).
    let mut store = load("v3_float32");
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    let doc = String::from_utf8(store.get("a/zarr.json").unwrap().to_vec()).unwrap();
    let with_attributes = doc.replacen(
        r#""attributes": {}"#,
        &format!(r#""attributes": {{"deep": {deep}}}"#),
        1,
    );
    assert_ne!(with_attributes, doc);
    store.insert("a/zarr.json", with_attributes.into_bytes());
    let array = Array::open(&store, "a").unwrap();
    let e = array.attributes().unwrap_err();
    assert!(e.to_string().contains("recursion"), "{e}");
    // In a field the array needs, when it opens.
    let with_codecs = doc.replacen(
        r#""codecs": ["#,
        &format!(r#""codecs": [{{"name": "x", "configuration": {{"deep": {deep}}}}}, "#),
        1,
    );
    assert_ne!(with_codecs, doc);
    store.insert("a/zarr.json", with_codecs.into_bytes());
    let e = Array::open(&store, "a").unwrap_err();
    assert!(e.to_string().contains("recursion"), "{e}");
}

/// A string array in shards as zarr-python lays it out: shard shape [4] of inner chunks of
/// [2] (`vlen-utf8` only), index at the end with its CRC-32C; array shape [7], so the second
/// shard is an edge shard and its second inner chunk an edge chunk (padded, as zarr-python
/// pads it). `inner` gives each shard's inner chunks (`None`: never written);
/// `entry` may rewrite an index entry `(shard, inner chunk, (offset, nbytes))` before the
/// index is sealed.
fn sharded_strings(
    inner: [[Option<&[&str]>; 2]; 2],
    entry: Option<(usize, usize, (u64, u64))>,
) -> MemoryStore {
    let mut store = MemoryStore::new();
    let meta = json!({"zarr_format": 3, "node_type": "array", "shape": [7],
        "data_type": "string", "fill_value": "?",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4]}},
        "chunk_key_encoding": {"name": "default"},
        "codecs": [{"name": "sharding_indexed", "configuration": {"chunk_shape": [2],
            "codecs": [{"name": "vlen-utf8"}],
            "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                             {"name": "crc32c"}],
            "index_location": "end"}}]});
    store.insert("s/zarr.json", meta.to_string().into_bytes());
    for (s, chunks) in inner.iter().enumerate() {
        let mut shard = Vec::new();
        let mut index = Vec::new();
        for (c, items) in chunks.iter().enumerate() {
            let (mut offset, mut nbytes) = (u64::MAX, u64::MAX);
            if let Some(items) = items {
                offset = shard.len() as u64;
                shard.extend_from_slice(&(items.len() as u32).to_le_bytes());
                for item in *items {
                    shard.extend_from_slice(&(item.len() as u32).to_le_bytes());
                    shard.extend_from_slice(item.as_bytes());
                }
                nbytes = shard.len() as u64 - offset;
            }
            if let Some((es, ec, e)) = entry
                && (es, ec) == (s, c)
            {
                (offset, nbytes) = e;
            }
            index.extend_from_slice(&offset.to_le_bytes());
            index.extend_from_slice(&nbytes.to_le_bytes());
        }
        let crc = zinto::core::codec::checksum(&zinto::core::codec::CRC32C, &index);
        shard.extend_from_slice(&index);
        shard.extend_from_slice(&crc.to_le_bytes());
        store.insert(format!("s/c/{s}"), shard);
    }
    store
}

/// The stored bytes of inner chunk `i` of a shard of [`sharded_strings`]' layout (two inner
/// chunks, the index and its CRC-32C at the end).
fn inner_chunk(shard: &[u8], i: usize) -> Vec<u8> {
    let entry = &shard[shard.len() - 36 + 16 * i..][..16];
    let offset = u64::from_le_bytes(entry[..8].try_into().unwrap()) as usize;
    let len = u64::from_le_bytes(entry[8..].try_into().unwrap()) as usize;
    shard[offset..offset + len].to_vec()
}

#[test]
fn strings_in_shards_read_by_their_index_and_bad_entries_are_refused_by_name() {
    let layout: [[Option<&[&str]>; 2]; 2] = [
        [Some(&["ab", "ç"]), Some(&["d", "東京"])],
        [None, Some(&["z", "?"])],
    ];
    let store = sharded_strings(layout, None);
    let array = Array::open(&store, "s").unwrap();
    let all = array.read_vlen(&Region::whole(&[7]).unwrap()).unwrap();
    let got: Vec<&str> = (0..7).map(|i| all.get_str(i).unwrap()).collect();
    assert_eq!(got, ["ab", "ç", "d", "東京", "?", "?", "z"]);
    let part = array.read_vlen(&Region::new(&[1], &[4]).unwrap()).unwrap();
    assert_eq!(
        part.iter().collect::<Vec<_>>(),
        [&b"\xc3\xa7"[..], b"d", "東京".as_bytes(), b"?"]
    );
    // The first inner chunk of shard 0 said to lie past the shard's end.
    let store = sharded_strings(layout, Some((0, 0, (8, 1 << 40))));
    let e = Array::open(&store, "s")
        .unwrap()
        .read_vlen(&Region::whole(&[7]).unwrap())
        .unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::Shard(ShardError::EntryOutOfShard { .. })
        ),
        "{e}"
    );
    assert!(e.to_string().contains("s/c/0"), "{e}");
    // An entry inside the shard but on the wrong bytes (4..12 of shard 1's inner chunk: its
    // first length read as the count): a count that is not the inner chunk's element count.
    let store = sharded_strings(layout, Some((1, 1, (4, 8))));
    let e = Array::open(&store, "s")
        .unwrap()
        .read_vlen(&Region::whole(&[7]).unwrap())
        .unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::Decode(DecodeError::CountMismatch {
                got: 1,
                expected: 2,
                ..
            })
        ),
        "{e}"
    );
    assert!(e.to_string().contains("s/c/1"), "{e}");
    // Written by zinto: a write that cuts shard 0 keeps its other inner chunk (copied as
    // stored) and the rest of the one it cuts (decoded, laid under the new value).
    let store = sharded_strings(layout, None);
    let array = Array::open(&store, "s").unwrap();
    let untouched = inner_chunk(&store.get("s/c/0").unwrap(), 1);
    array
        .write_vlen(&Region::new(&[1], &[1]).unwrap(), &[0, 1], b"x")
        .unwrap();
    let all = array.read_vlen(&Region::whole(&[7]).unwrap()).unwrap();
    let got: Vec<&str> = (0..7).map(|i| all.get_str(i).unwrap()).collect();
    assert_eq!(got, ["ab", "x", "d", "東京", "?", "?", "z"]);
    assert_eq!(
        inner_chunk(&store.get("s/c/0").unwrap(), 1),
        untouched,
        "the inner chunk the write does not touch is copied as stored"
    );
    // A write that cuts a shard whose index points outside it: the old shard is refused by
    // name, and it stays as it was.
    let store = sharded_strings(layout, Some((1, 1, (400, 8))));
    let array = Array::open(&store, "s").unwrap();
    let before = store.get("s/c/1").unwrap();
    let e = array
        .write_vlen(&Region::new(&[6], &[1]).unwrap(), &[0, 1], b"y")
        .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Shard(_)), "{e}");
    assert!(e.to_string().contains("s/c/1"), "{e}");
    assert_eq!(
        store.get("s/c/1").unwrap(),
        before,
        "the bad shard was rewritten"
    );
    // Entries that overlap (the second covering the whole shard): refused before anything is
    // copied, rather than copied once an entry.
    let store = sharded_strings(layout, Some((0, 1, (0, 71))));
    assert_eq!(store.get("s/c/0").unwrap().len(), 71);
    let array = Array::open(&store, "s").unwrap();
    let e = array
        .write_vlen(&Region::new(&[1], &[1]).unwrap(), &[0, 1], b"y")
        .unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::Shard(ShardError::EntriesOverlap {
                covered: 87,
                shard_len: 71
            })
        ),
        "{e}"
    );
    assert!(e.to_string().contains("s/c/0"), "{e}");
}

/// A `cast_value` `scalar_map` of any other shape than `{"encode": [[k, v], ...], "decode":
/// [...]}` was read as no entries: a stored -32768 (mapped back to NaN) read as -32768 / 100.
/// Issue 61's shapes, each refused naming the field; the valid map reads NaN there.
#[test]
fn a_malformed_scalar_map_is_refused_not_read_as_empty() {
    let name = "z34_cast_value_f8_i2";
    let values = read_all(&load(name)).unwrap();
    let nans = values
        .chunks_exact(8)
        .filter(|v| f64::from_le_bytes((*v).try_into().unwrap()).is_nan())
        .count();
    assert!(nans > 0, "the fixture maps a stored -32768 back to NaN");
    for map in [
        json!({"decode": [[1], [-32768, "NaN"]]}),
        json!({"decode": [-32768, "NaN", 9]}),
        json!({"decode": {"-32768": "NaN"}}),
        json!({"decode": "-32768:NaN"}),
        json!([[-32768, "NaN"]]),
        json!("decode"),
        json!({"decode": [[-32768, "NaN"]], "decoded": []}),
    ] {
        let mut store = load(name);
        edit_metadata(&mut store, |m| {
            m["codecs"][1]["configuration"]["scalar_map"] = map.clone();
        });
        let e = read_all(&store).unwrap_err().to_string();
        assert!(e.contains("scalar_map"), "{map}: {e}");
    }
}
