//! Every codec setting zinto does not understand is refused, never ignored (issue 61).
//!
//! A property over every fixture array's metadata: each field of each codec configuration (and
//! of the chunk grid and chunk key encoding), at every depth, is malformed in every way that
//! keeps it out of the field's domain (a value of another JSON kind, a list or object where a
//! scalar belongs and the reverse, a list grown by an entry of another kind, an entry wrapped
//! in a list, an unknown field beside the known ones), and the array opened and read whole
//! again. Each mutation must be refused, or read exactly what the valid metadata reads:
//! never something else. An unknown field at the top of a configuration must be refused.
//! `null` may also read as the field left out (numcodecs' configurations say `null` for "the
//! default"), and no other way.
//!
//! Values of the field's own kind (another level, another scale) are not mutations here: they
//! are other valid arrays, which may read otherwise.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a panic is a failed test

use std::collections::{BTreeSet, HashMap};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};
use zinto::{Array, FileStore, Region, Store, StoreError};

/// A fixture array's store, its metadata document replaced.
struct Overlay {
    base: FileStore,
    doc: (String, Vec<u8>),
}

impl Store for Overlay {
    fn size(&self, key: &str) -> Result<Option<u64>, StoreError> {
        if key == self.doc.0 {
            return Ok(Some(self.doc.1.len() as u64));
        }
        self.base.size(key)
    }

    fn read_into(&self, key: &str, offset: u64, dst: &mut [u8]) -> Result<(), StoreError> {
        if key == self.doc.0 {
            return zinto::store::read_from_bytes(&self.doc.1, offset, dst);
        }
        self.base.read_into(key, offset, dst)
    }

    fn read_blocks(
        &self,
        key: &str,
        offset: u64,
        len: u64,
        buf: &mut [u8],
        each: &mut dyn FnMut(&[u8]) -> ControlFlow<()>,
    ) -> Result<(), StoreError> {
        self.base.read_blocks(key, offset, len, buf, each)
    }
}

/// What reading the whole array gives: its bytes (variable-length values with their offsets),
/// or `None` if it was refused.
fn read(dir: &Path, name: &str, doc: &Value) -> Option<Vec<u8>> {
    let store = Overlay {
        base: FileStore::new(dir),
        doc: (name.to_owned(), serde_json::to_vec(doc).unwrap()),
    };
    let array = Array::open(store, "").ok()?;
    let whole = Region::whole(array.shape()).ok()?;
    if array.dtype().fixed_size().is_some() {
        return array.read_to_vec(&whole).ok();
    }
    let data = array.read_vlen(&whole).ok()?;
    let mut out: Vec<u8> = data
        .offsets()
        .iter()
        .flat_map(|o| o.to_le_bytes())
        .collect();
    out.extend_from_slice(data.values());
    Some(out)
}

/// One step into a JSON document.
#[derive(Debug, Clone)]
enum Step {
    Key(String),
    Index(usize),
}

fn at<'v>(doc: &'v mut Value, path: &[Step]) -> &'v mut Value {
    path.iter().fold(doc, |v, step| match step {
        Step::Key(k) => &mut v[k.as_str()],
        Step::Index(i) => &mut v[*i],
    })
}

fn shown(path: &[Step]) -> String {
    path.iter()
        .map(|s| match s {
            Step::Key(k) => format!("/{k}"),
            Step::Index(i) => format!("/{i}"),
        })
        .collect()
}

/// What a mutation may do.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Allowed {
    /// Be refused.
    Refusal,
    /// Be refused, or read what the valid metadata reads.
    RefusalOrEqual,
    /// That, or read as the field left out (`null`).
    AsAbsent,
}

/// A mutated document, what it may do, and what was changed.
struct Mutation {
    doc: Value,
    allowed: Allowed,
    what: String,
}

/// The configuration objects of `doc` (a `zarr.json` or `.zarray`), as paths: every codec's
/// (inside shards too), the chunk grid's and the chunk key encoding's; a v2 array's compressor
/// and filters. Each with the keys not to mutate (v2's `id`).
fn sites(doc: &Value) -> Vec<(Vec<Step>, &'static [&'static str])> {
    let key = |k: &str| Step::Key(k.to_owned());
    let mut out = vec![];
    if doc.get("zarr_format") == Some(&json!(2)) {
        if doc["compressor"].is_object() {
            out.push((vec![key("compressor")], &["id"][..]));
        }
        for (i, f) in doc["filters"].as_array().into_iter().flatten().enumerate() {
            if f.is_object() {
                out.push((vec![key("filters"), Step::Index(i)], &["id"][..]));
            }
        }
        return out;
    }
    for named in ["chunk_grid", "chunk_key_encoding"] {
        if doc[named].is_object() {
            out.push((vec![key(named), key("configuration")], &[][..]));
        }
    }
    fn codecs(list: &Value, path: Vec<Step>, out: &mut Vec<(Vec<Step>, &'static [&'static str])>) {
        for (i, c) in list.as_array().into_iter().flatten().enumerate() {
            let mut here = path.clone();
            here.push(Step::Index(i));
            if !c.is_object() {
                continue;
            }
            here.push(Step::Key("configuration".into()));
            out.push((here.clone(), &[][..]));
            for inner in ["codecs", "index_codecs"] {
                let mut deeper = here.clone();
                deeper.push(Step::Key(inner.into()));
                codecs(&c["configuration"][inner], deeper, out);
            }
        }
    }
    codecs(&doc["codecs"], vec![key("codecs")], &mut out);
    out
}

/// Values of other JSON kinds than `v`, and for a string that names a setting (a field of a
/// configuration itself, `named`), a string no field takes. A string that spells a number
/// (`"NaN"`, `"Infinity"`, `"0x3f80"`: scalar map entries, scale_offset's settings) is in the
/// numbers' domain: numbers are not other kinds for it. A string in a list (a categorize label)
/// may be any string: only other kinds replace it.
fn other_kinds(v: &Value, named: bool) -> Vec<Value> {
    let numeric = v
        .as_str()
        .is_some_and(|s| ["NaN", "Infinity", "-Infinity"].contains(&s) || s.starts_with("0x"));
    let candidates = [
        json!(true),
        json!(7),
        json!(-2.5),
        json!("zinto-not-a-value"),
        json!([]),
        json!({}),
    ];
    candidates
        .into_iter()
        .filter(|c| {
            let same_kind = std::mem::discriminant(c) == std::mem::discriminant(v);
            let in_domain = numeric && c.is_number();
            (!same_kind && !in_domain) || (v.is_string() && named && c != v)
        })
        .collect()
}

/// Every mutation of the value at `path` in `doc`, and of what it holds, to `depth`.
fn mutate(doc: &Value, path: &[Step], depth: usize, out: &mut Vec<Mutation>) {
    let mut original = doc.clone();
    let value = at(&mut original, path).clone();
    let mut push = |new: Value, allowed, what: &str| {
        let mut m = doc.clone();
        *at(&mut m, path) = new;
        out.push(Mutation {
            doc: m,
            allowed,
            what: format!("{} {what}", shown(path)),
        });
    };
    let named = matches!(path.last(), Some(Step::Key(_)));
    for other in other_kinds(&value, named) {
        push(
            other.clone(),
            Allowed::RefusalOrEqual,
            &format!("as {other}"),
        );
    }
    push(Value::Null, Allowed::AsAbsent, "as null");
    push(
        json!([value.clone()]),
        Allowed::RefusalOrEqual,
        "wrapped in a list",
    );
    if depth >= 3 {
        return;
    }
    match &value {
        Value::Array(items) => {
            let odd = if items.first().is_some_and(Value::is_number) {
                json!("zinto-not-a-value")
            } else {
                json!(0)
            };
            let mut grown = items.clone();
            grown.push(odd);
            push(Value::Array(grown), Allowed::RefusalOrEqual, "grown");
            // The first and last entries stand for the rest (a label list may be long).
            let ends: BTreeSet<usize> = [0, items.len().saturating_sub(1)].into();
            for i in ends.into_iter().filter(|&i| i < items.len()) {
                let mut deeper = path.to_vec();
                deeper.push(Step::Index(i));
                mutate(doc, &deeper, depth + 1, out);
            }
        }
        Value::Object(fields) => {
            let mut more = fields.clone();
            more.insert("zinto_unknown_field".into(), json!(1));
            push(
                Value::Object(more),
                Allowed::RefusalOrEqual,
                "with an unknown field",
            );
            for k in fields.keys() {
                let mut deeper = path.to_vec();
                deeper.push(Step::Key(k.clone()));
                mutate(doc, &deeper, depth + 1, out);
            }
        }
        _ => {}
    }
}

/// Every mutation of `doc`'s configurations.
fn mutations(doc: &Value) -> Vec<Mutation> {
    let mut out = vec![];
    for (path, keep) in sites(doc) {
        let mut unknown = doc.clone();
        let config = at(&mut unknown, &path);
        if config.is_null() {
            *config = Value::Object(Map::new());
        }
        if let Some(obj) = config.as_object_mut() {
            obj.insert("zinto_unknown_field".into(), json!(1));
            out.push(Mutation {
                doc: unknown,
                allowed: Allowed::Refusal,
                what: format!("{} with an unknown field", shown(&path)),
            });
        }
        let mut original = doc.clone();
        let fields: Vec<String> = at(&mut original, &path)
            .as_object()
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default();
        for k in fields.iter().filter(|k| !keep.contains(&k.as_str())) {
            let mut field = path.clone();
            field.push(Step::Key(k.clone()));
            mutate(doc, &field, 0, &mut out);
        }
    }
    out
}

/// The read with the field the mutation nulled left out.
fn read_without(dir: &Path, name: &str, doc: &Value, m: &Mutation) -> Option<Vec<u8>> {
    // The nulled value is the only difference: find it and remove its key.
    fn remove_null_diff(valid: &Value, mutated: &mut Value) -> bool {
        match (valid, mutated) {
            (Value::Object(a), Value::Object(b)) => {
                let nulled = b
                    .iter()
                    .find(|(k, v)| v.is_null() && a.get(*k).is_some_and(|x| !x.is_null()))
                    .map(|(k, _)| k.clone());
                if let Some(k) = nulled {
                    b.remove(&k);
                    return true;
                }
                b.iter_mut()
                    .any(|(k, v)| a.get(k).is_some_and(|x| remove_null_diff(x, v)))
            }
            (Value::Array(a), Value::Array(b)) => {
                b.iter_mut().zip(a).any(|(v, x)| remove_null_diff(x, v))
            }
            _ => false,
        }
    }
    let mut without = m.doc.clone();
    if !remove_null_diff(doc, &mut without) {
        return None;
    }
    read(dir, name, &without)
}

/// The fixture arrays, one per distinct set of configurations (arrays that differ only in
/// shape or data test nothing more).
fn fixtures() -> Vec<(PathBuf, &'static str, Value)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/data");
    let mut found = vec![];
    let mut seen = BTreeSet::new();
    let mut dirs = vec![root];
    while let Some(dir) = dirs.pop() {
        let mut entries: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                dirs.push(p);
                continue;
            }
            let name = match p.file_name().and_then(|n| n.to_str()) {
                Some("zarr.json") => "zarr.json",
                Some(".zarray") => ".zarray",
                _ => continue,
            };
            let Ok(doc) = serde_json::from_slice::<Value>(&std::fs::read(&p).unwrap()) else {
                continue;
            };
            if name == "zarr.json" && doc["node_type"] != "array" {
                continue;
            }
            let signature = json!([
                doc["data_type"],
                doc["dtype"],
                doc["codecs"],
                doc["compressor"],
                doc["filters"],
                doc["chunk_grid"]["name"],
                doc["chunk_key_encoding"],
            ]);
            if seen.insert(signature.to_string()) {
                found.push((dir.clone(), name, doc));
            }
        }
    }
    found
}

#[test]
fn a_malformed_codec_setting_is_refused_or_reads_the_same_never_otherwise() {
    let mut tried = 0usize;
    let mut refused_by_kind: HashMap<&'static str, usize> = HashMap::new();
    let mut failures = vec![];
    let mut unread = vec![];
    let arrays = fixtures();
    assert!(arrays.len() >= 60, "fixtures found: {}", arrays.len());
    for (dir, name, doc) in &arrays {
        let Some(valid) = read(dir, name, doc) else {
            // A fixture zinto refuses on purpose (kept to check the refusal elsewhere).
            unread.push(dir.display().to_string());
            continue;
        };
        for m in mutations(doc) {
            tried += 1;
            let got = read(dir, name, &m.doc);
            let ok = match (m.allowed, &got) {
                (_, None) => {
                    *refused_by_kind.entry("refused").or_default() += 1;
                    true
                }
                (Allowed::Refusal, Some(_)) => false,
                (_, Some(bytes)) if *bytes == valid => true,
                (Allowed::AsAbsent, Some(bytes)) => {
                    read_without(dir, name, doc, &m).as_ref() == Some(bytes)
                }
                (Allowed::RefusalOrEqual, Some(_)) => false,
            };
            if !ok {
                failures.push(format!("{}: {}", dir.display(), m.what));
            }
        }
    }
    assert!(tried > 2000, "mutations tried: {tried}");
    // The fixtures zinto refuses are few and known (a codec it does not decode: conformance
    // checks each refusal by name); a valid fixture refused here would hide its codec's fields.
    assert!(
        unread.len() <= 2,
        "{} fixtures unread: {unread:?}",
        unread.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {tried} mutations read otherwise than the valid metadata:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
