//! Datasets: groups (nested, consolidated, stale), attributes, dimension names, and the data
//! types datasets hold (dates, durations, fixed and variable-length strings and bytes), as
//! written by xarray and zarr-python 3.1.6 (tests/fixtures/generate_datasets.py) and read back
//! by zarr-python into tests/fixtures/manifest_datasets.json.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a panic is a failed test

use std::path::PathBuf;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use zinto::{
    Array, DataType, ErrorKind, FileStore, Group, MetadataError, Node, NodeKind, Region, Store,
};

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/data")
}

fn manifest() -> Vec<Value> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/manifest_datasets.json");
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn u64s(v: &Value) -> Vec<u64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Nested JSON lists flattened in C order.
fn flatten(v: &Value, out: &mut Vec<Value>) {
    match v {
        Value::Array(items) => items.iter().for_each(|i| flatten(i, out)),
        other => out.push(other.clone()),
    }
}

/// The values an array holds, as the manifest writes them: strings for text, hex for bytes
/// (NumPy strips trailing NULs of fixed-width values), integers for dates.
fn values_as_json<S: Store>(array: &Array<S>) -> Vec<Value> {
    let whole = Region::whole(array.shape()).unwrap();
    match array.dtype() {
        DataType::String => {
            let data = array.read_vlen(&whole).unwrap();
            assert!(data.is_utf8());
            (0..data.len())
                .map(|i| json!(data.get_str(i).unwrap()))
                .collect()
        }
        DataType::Bytes => {
            let data = array.read_vlen(&whole).unwrap();
            data.iter().map(|b| json!(hex(b))).collect()
        }
        DataType::FixedUtf32 { chars } => {
            let bytes = array.read_to_vec(&whole).unwrap();
            bytes
                .chunks_exact(chars as usize * 4)
                .map(|e| {
                    let s: String = e
                        .chunks_exact(4)
                        .map(|c| u32::from_ne_bytes(c.try_into().unwrap()))
                        .take_while(|&c| c != 0)
                        .map(|c| char::from_u32(c).unwrap())
                        .collect();
                    json!(s)
                })
                .collect()
        }
        DataType::FixedBytes { len } => {
            let bytes = array.read_to_vec(&whole).unwrap();
            bytes
                .chunks_exact(len as usize)
                .map(|e| {
                    let end = e.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
                    json!(hex(&e[..end]))
                })
                .collect()
        }
        DataType::DateTime64(_) | DataType::TimeDelta64(_) | DataType::Int32 => {
            let n = whole.num_elements().unwrap() as usize;
            if array.dtype() == DataType::Int32 {
                let mut out = vec![0i32; n];
                array.read_into_typed(&whole, &mut out).unwrap();
                out.into_iter().map(|x| json!(x)).collect()
            } else {
                let mut out = vec![0i64; n];
                array.read_into_typed(&whole, &mut out).unwrap();
                out.into_iter().map(|x| json!(x)).collect()
            }
        }
        other => panic!("no values form for {other}"),
    }
}

/// SHA-256 of a selection read as little-endian bytes.
fn sha_of(array: &Array<&FileStore>, start: &[u64], shape: &[u64]) -> String {
    let mut bytes = array
        .read_to_vec(&Region::new(start, shape).unwrap())
        .unwrap();
    let unit = array.dtype().scalar_size();
    if cfg!(target_endian = "big") && unit > 1 {
        bytes.chunks_exact_mut(unit).for_each(<[u8]>::reverse);
    }
    hex(&Sha256::digest(&bytes))
}

#[test]
fn every_array_reads_as_zarr_python_reads_it() {
    let store = FileStore::new(data_dir());
    let (mut arrays, mut with_values, mut failures) = (0, 0, vec![]);
    for entry in manifest().iter().filter(|e| e["kind"] == "array") {
        let name = entry["name"].as_str().unwrap();
        let array = match Array::open(&store, name) {
            Ok(a) => a,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        arrays += 1;
        assert_eq!(array.shape(), u64s(&entry["shape"]), "{name}");
        let attrs = Value::Object(array.attributes().unwrap().clone());
        assert_eq!(attrs, entry["attributes"], "{name}: attributes");
        let dims = array.dimension_names().map(|d| json!(d));
        assert_eq!(
            dims.unwrap_or(Value::Null),
            entry["dimension_names"],
            "{name}"
        );
        if let Some(sels) = entry.get("selections").and_then(Value::as_array) {
            for sel in sels {
                let (start, shape) = (u64s(&sel["start"]), u64s(&sel["shape"]));
                let got = sha_of(&array, &start, &shape);
                if got != sel["sha256"] {
                    failures.push(format!("{name} {start:?} {shape:?}: sha256 differs"));
                }
            }
        }
        if let Some(expected) = entry.get("values") {
            with_values += 1;
            let mut flat = vec![];
            flatten(expected, &mut flat);
            let got = values_as_json(&array);
            if got != flat {
                failures.push(format!("{name}: values {got:?}, zarr-python {flat:?}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        arrays >= 40 && with_values >= 20,
        "{arrays} arrays, {with_values} with values"
    );
}

#[test]
fn every_group_lists_its_members_and_attributes() {
    let store = FileStore::new(data_dir());
    let mut groups = 0;
    for entry in manifest().iter().filter(|e| e["kind"] == "group") {
        let name = entry["name"].as_str().unwrap();
        let group = Group::open(&store, name).unwrap_or_else(|e| panic!("{name}: {e}"));
        groups += 1;
        assert_eq!(
            Value::Object(group.attributes().unwrap().clone()),
            entry["attributes"],
            "{name}"
        );
        let members: Vec<Value> = group
            .members()
            .unwrap()
            .iter()
            .map(|m| json!({"name": m.name, "kind": m.kind.to_string()}))
            .collect();
        assert_eq!(Value::Array(members), entry["members"], "{name}");
        assert_eq!(
            group.is_consolidated(),
            entry["consolidated"].as_bool().unwrap(),
            "{name}"
        );
    }
    assert!(groups >= 15, "{groups} groups");
}

/// Walks a hierarchy depth first through `Group::group` / `Group::array`, collecting paths.
fn walk<S: Store + Clone>(group: &Group<S>, prefix: &str, out: &mut Vec<String>) {
    for m in group.members().unwrap() {
        let path = format!("{prefix}{}", m.name);
        match m.kind {
            NodeKind::Array => {
                group.array(&m.name).unwrap();
                out.push(path);
            }
            NodeKind::Group => {
                out.push(format!("{path}/"));
                let sub = group.group(&m.name).unwrap();
                walk(&sub, &format!("{path}/"), out);
            }
        }
    }
}

#[test]
fn three_levels_deep_by_listing_and_by_consolidated_metadata() {
    let store = FileStore::new(data_dir());
    for root in ["ds_nested_v2.zarr", "ds_nested_v3.zarr"] {
        let group = Group::open(&store, root).unwrap();
        assert!(!group.is_consolidated(), "{root} is listed from the store");
        let mut paths = vec![];
        walk(&group, "", &mut paths);
        for p in ["x", "a/", "a/y", "a/b/", "a/b/z", "a/b/c/", "a/b/c/w"] {
            assert!(paths.iter().any(|q| q == p), "{root}: {p} not in {paths:?}");
        }
        // Deep paths open directly too, and `Node::open` says what each is.
        let w = Node::open(&store, &format!("{root}/a/b/c/w")).unwrap();
        assert_eq!(w.kind(), NodeKind::Array);
        let c = Node::open(&store, &format!("{root}/a/b/c")).unwrap();
        assert_eq!(c.kind(), NodeKind::Group);
    }
    // A consolidated root lists its subgroups from its own consolidated metadata.
    for root in [
        "ds_consolidated_stale_v2.zarr",
        "ds_consolidated_stale_v3.zarr",
    ] {
        let group = Group::open(&store, root).unwrap();
        assert!(group.is_consolidated());
        let deep = group.group("sub/deep").unwrap();
        assert!(
            deep.is_consolidated(),
            "{root}: inherits the root's listing"
        );
        let names: Vec<String> = deep
            .members()
            .unwrap()
            .into_iter()
            .map(|m| m.name)
            .collect();
        assert_eq!(names, ["c"], "{root}");
    }
}

#[test]
fn a_members_own_metadata_wins_over_stale_consolidated_metadata() {
    let store = FileStore::new(data_dir());
    for entry in manifest()
        .iter()
        .filter(|e| e.get("consolidated_view").is_some())
    {
        let name = entry["name"].as_str().unwrap();
        let (group_path, member) = name.rsplit_once('/').unwrap();
        let group = Group::open(&store, group_path).unwrap();
        let array = group.array(member).unwrap();
        let own = &entry["own"];
        assert_ne!(
            own, &entry["consolidated_view"],
            "{name}: the fixture is stale"
        );
        assert_eq!(array.shape(), u64s(&own["shape"]), "{name}");
        assert_eq!(
            Value::Object(array.attributes().unwrap().clone()),
            own["attributes"],
            "{name}"
        );
        if array.dtype() == DataType::Int32 {
            // All the values the array holds: the consolidated copy would cut them short.
            assert_eq!(
                Value::Array(values_as_json(&array)),
                own["values"],
                "{name}"
            );
        }
    }
}

#[test]
fn wrong_opens_say_what_the_node_is() {
    let store = FileStore::new(data_dir());
    let e = Array::open(&store, "ds_nested_v3.zarr").unwrap_err();
    let msg = e.to_string();
    assert!(
        matches!(e.kind(), ErrorKind::Metadata(MetadataError::NotAnArray(_))),
        "{msg}"
    );
    assert!(msg.contains("group (members: a, x)"), "{msg}");
    let e = Array::open(&store, "ds_nested_v2.zarr/a")
        .unwrap_err()
        .to_string();
    assert!(e.contains("group (members: b, empty, y)"), "{e}");
    let e = Group::open(&store, "ds_nested_v3.zarr/x").unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::Metadata(MetadataError::NotAGroup)),
        "{e}"
    );
    let group = Group::open(&store, "ds_nested_v3.zarr/a").unwrap();
    for escape in ["../x", "b/../../x", "/../x"] {
        let e = group.array(escape).unwrap_err().to_string();
        assert!(e.contains("inside the group"), "{escape}: {e}");
    }
    let e = Node::open(&store, "ds_nested_v3.zarr/nothing").unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::Metadata(MetadataError::Missing)),
        "{e}"
    );
}

#[test]
fn reads_of_the_wrong_kind_are_refused_by_type() {
    let store = FileStore::new(data_dir());
    let strings = Array::open(&store, "ds_types_v3.zarr/vlen_str_zstd").unwrap();
    let whole = Region::whole(strings.shape()).unwrap();
    let e = strings.read_to_vec(&whole).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::WrongType { .. }), "{e}");
    let numbers = Array::open(&store, "ds_nested_v3.zarr/x").unwrap();
    let e = numbers
        .read_vlen(&Region::whole(numbers.shape()).unwrap())
        .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::WrongType { .. }), "{e}");
    let mut wrong = vec![0f32; 5];
    let e = numbers
        .read_into_typed(&Region::whole(&[5]).unwrap(), &mut wrong)
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("int32 cannot be read or written as f32"),
        "{e}"
    );
}

#[test]
fn vlen_selections_match_the_whole_read() {
    let store = FileStore::new(data_dir());
    for name in [
        "ds_types_v2.zarr/vlen_str_2d",
        "ds_types_v3.zarr/vlen_str_2d",
    ] {
        let array = Array::open(&store, name).unwrap();
        let whole = array.read_vlen(&Region::whole(&[5, 7]).unwrap()).unwrap();
        for (start, shape) in [([1, 2], [3, 4]), ([4, 6], [1, 1]), ([0, 0], [0, 3])] {
            let part = array
                .read_vlen(&Region::new(&start, &shape).unwrap())
                .unwrap();
            assert_eq!(part.shape(), shape);
            let mut i = 0;
            for r in start[0]..start[0] + shape[0] {
                for c in start[1]..start[1] + shape[1] {
                    let at = (r * 7 + c) as usize;
                    assert_eq!(part.get(i), whole.get(at), "{name} ({r}, {c})");
                    i += 1;
                }
            }
            assert_eq!(i, part.len());
            // Exact buffers: values hold nothing but the selected elements.
            assert_eq!(part.values().len() as u64, *part.offsets().last().unwrap());
        }
    }
}
