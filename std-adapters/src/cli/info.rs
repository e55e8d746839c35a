//! `zinto info`: what an array holds, or the tree of a group's hierarchy; as text or one JSON
//! object.

use crate::core::{Axis, ChunkGrid};
use crate::{Array, Group, NodeKind, Store, ZarrFormat};
use serde_json::{Map, Value, json};

use crate::cli::describe;

/// `info` counts present chunks only up to this many chunks in the grid.
pub const MAX_CHUNKS_COUNTED: u64 = 1_000_000;
/// The deepest group `info` descends into: a hierarchy nested deeper (a hostile consolidated
/// document can name millions of levels) is an error naming where, not a stack overflow.
pub const MAX_TREE_DEPTH: usize = 64;

/// The error for a group below [`MAX_TREE_DEPTH`] levels.
fn too_deep<S: Store>(group: &Group<S>) -> String {
    format!(
        "group {:?}: the hierarchy is nested deeper than {MAX_TREE_DEPTH} levels, which info \
         does not descend",
        group.path()
    )
}
/// Attributes shown per node in the text tree; the rest are counted.
const MAX_ATTRS_SHOWN: usize = 8;
/// An attribute value longer than this (as JSON) is cut in the text tree.
const MAX_ATTR_CHARS: usize = 60;

fn format_name(f: ZarrFormat) -> &'static str {
    match f {
        ZarrFormat::V2 => "v2",
        ZarrFormat::V3 => "v3",
    }
}

fn zarr_format(f: ZarrFormat) -> u8 {
    match f {
        ZarrFormat::V2 => 2,
        ZarrFormat::V3 => 3,
    }
}

/// Chunk counts and stored bytes of an array: (chunks in all, present, stored bytes), the
/// last two `None` for grids too large to stat every chunk; stored `None` also on overflow.
pub struct Storage {
    pub chunks: u64,
    pub counted: Option<(u64, Option<u64>)>,
    /// With no chunk present, the separator the first chunk is found under instead (`/` for
    /// nested chunks of a v2 array whose metadata states no `dimension_separator`).
    pub other_separator: Option<char>,
}

/// Asks the store about every chunk of `array` (one stat each), up to
/// [`MAX_CHUNKS_COUNTED`] chunks; none of a store that reads ahead (a remote one: each stat
/// would be a request).
pub fn storage<S: Store>(array: &Array<S>) -> Result<Storage, String> {
    let grid = &array.metadata().grid;
    let chunks = grid.num_chunks();
    if chunks > MAX_CHUNKS_COUNTED || array.store().read_ahead().is_some() {
        return Ok(Storage {
            chunks,
            counted: None,
            other_separator: None,
        });
    }
    let mut present = 0u64;
    let mut stored = Some(0u64);
    for i in 0..chunks {
        let coords = grid.chunk_coords(i).map_err(|e| e.to_string())?;
        let key = array.chunk_key(&coords);
        if let Some(n) = array
            .store()
            .size(&key)
            .map_err(|e| format!("{key}: {e}"))?
        {
            present += 1;
            stored = stored.and_then(|s| s.checked_add(n));
        }
    }
    let other_separator = if present == 0 && chunks > 0 {
        under_other_separator(array)?
    } else {
        None
    };
    Ok(Storage {
        chunks,
        counted: Some((present, stored)),
        other_separator,
    })
}

/// The separator (`.` or `/`) other than the array's under which its first chunk is stored,
/// if it is: zarr-python 2's `NestedDirectoryStore` wrote `0/0` without saying so in
/// `.zarray`, and zarr-python 3 and zinto then find no chunk at all.
fn under_other_separator<S: Store>(array: &Array<S>) -> Result<Option<char>, String> {
    let first = vec![0; array.shape().len()];
    let key = array.chunk_key(&first);
    let prefix = match array.path() {
        "" => String::new(),
        p => format!("{p}/"),
    };
    let Some(coords) = key.strip_prefix(&prefix).filter(|c| c.len() > 1) else {
        return Ok(None);
    };
    for (from, to) in [('.', '/'), ('/', '.')] {
        if coords.contains(from) {
            let other = format!("{prefix}{}", coords.replace(from, &to.to_string()));
            let found = array
                .store()
                .size(&other)
                .map_err(|e| format!("{other}: {e}"))?;
            return Ok(found.map(|_| to));
        }
    }
    Ok(None)
}

/// A rectilinear grid's edges as the metadata writes them, one entry a dimension: an edge
/// (regular) or a list of edges and `[edge, count]` runs.
fn edges_json(grid: &ChunkGrid) -> Value {
    grid.axes()
        .iter()
        .map(|axis| match axis {
            Axis::Regular(edge) => json!(edge.get()),
            Axis::Runs(t) => t
                .runs()
                .map(|r| match r.count.get() {
                    1 => json!(r.edge.get()),
                    n => json!([r.edge.get(), n]),
                })
                .collect(),
        })
        .collect()
}

/// The edges compactly, a dimension at a time (`[10, 20, [30, 4]] x 25`), each list cut after
/// [`SHOWN_RUNS`] runs.
fn edges_text(grid: &ChunkGrid) -> String {
    let dims: Vec<String> = grid
        .axes()
        .iter()
        .map(|axis| match axis {
            Axis::Regular(edge) => edge.to_string(),
            Axis::Runs(t) => {
                let mut runs: Vec<String> = t
                    .runs()
                    .take(SHOWN_RUNS)
                    .map(|r| match r.count.get() {
                        1 => r.edge.to_string(),
                        n => format!("[{}, {n}]", r.edge),
                    })
                    .collect();
                if t.run_count() > SHOWN_RUNS {
                    runs.push(format!("... {} runs in all", t.run_count()));
                }
                format!("[{}]", runs.join(", "))
            }
        })
        .collect();
    dims.join(" x ")
}

/// Runs of a dimension `info` shows before it says how many there are.
const SHOWN_RUNS: usize = 8;

/// The chunk shape and, if sharded, the shard shape.
fn chunking<S: Store>(array: &Array<S>) -> (Vec<u64>, Option<Vec<u64>>) {
    (
        array.chunk_shape().to_vec(),
        array.shard_shape().map(<[u64]>::to_vec),
    )
}

/// The decoded size of the whole array in bytes, `None` if it overflows a `u64` (or the type
/// has no fixed size).
fn decoded_bytes<S: Store>(array: &Array<S>) -> Option<u64> {
    let elem = array.dtype().fixed_size()? as u64;
    crate::core::product(array.shape())
        .ok()
        .and_then(|n| n.checked_mul(elem))
}

/// An array as a JSON object.
pub fn array_json<S: Store>(array: &Array<S>, name: &str) -> Value {
    let meta = array.metadata();
    let (chunks, shards) = chunking(array);
    json!({
        "node_type": "array",
        "name": name,
        "path": array.path(),
        "zarr_format": zarr_format(meta.format),
        "shape": array.shape(),
        "dtype": array.dtype().to_string(),
        "numpy_dtype": array.dtype().numpy_str(),
        "chunks": chunks,
        "chunk_edges": (!meta.grid.is_regular()).then(|| edges_json(&meta.grid)),
        "shards": shards,
        "codecs": describe::codecs(meta.dtype, &meta.chain),
        "fill_value": describe::fill_value(meta.dtype, &meta.fill_value),
        "dimension_names": array.dimension_names(),
        "attributes": attributes_json(array.metadata().attributes_text_len(), || {
            array.attributes().map_err(|e| e.to_string())
        }),
    })
}

/// Attributes whose JSON text is longer than this are not shown: a tree of them would take
/// about twenty times their text ([`crate::metadata::MAX_FIELD_LEN`], 1 MiB).
const MAX_SHOWN_ATTRIBUTES: usize = crate::metadata::MAX_FIELD_LEN;

/// Attributes, or `{"error": why}` when they could not be read (`info` still shows the node),
/// or `{"not_shown": why, "bytes": n}` past [`MAX_SHOWN_ATTRIBUTES`]. `text_len` is their
/// text's length while unparsed; `attrs` parses them.
fn attributes_json<'a>(
    text_len: Option<usize>,
    attrs: impl FnOnce() -> Result<&'a Map<String, Value>, String>,
) -> Value {
    if let Some(n) = text_len.filter(|&n| n > MAX_SHOWN_ATTRIBUTES) {
        return json!({ "not_shown": not_shown(n), "bytes": n });
    }
    match attrs() {
        Ok(map) => Value::Object(map.clone()),
        Err(e) => json!({ "error": e }),
    }
}

/// Why attributes of `n` bytes of JSON are not shown.
fn not_shown(n: usize) -> String {
    format!("{n} bytes of JSON, more than the {MAX_SHOWN_ATTRIBUTES} info shows")
}

/// The attribute lines of a node whose attributes' text is `text_len` bytes while unparsed,
/// `attrs` parsing them; one line saying so when they are too large to show or unreadable.
fn attributes_text<'a, E: std::fmt::Display>(
    text_len: Option<usize>,
    attrs: impl FnOnce() -> Result<&'a Map<String, Value>, E>,
    indent: &str,
) -> Vec<String> {
    if let Some(n) = text_len.filter(|&n| n > MAX_SHOWN_ATTRIBUTES) {
        return vec![format!("{indent}attributes: {}", not_shown(n))];
    }
    match attrs() {
        Ok(map) => attribute_lines(map, indent),
        Err(e) => vec![format!("{indent}attributes unreadable ({e})")],
    }
}

/// A group and everything below it as one JSON object.
pub fn group_json<S: Store + Clone>(group: &Group<S>, name: &str) -> Result<Value, String> {
    group_json_at(group, name, 0)
}

/// [`group_json`] of a group `depth` levels below the one asked for.
fn group_json_at<S: Store + Clone>(
    group: &Group<S>,
    name: &str,
    depth: usize,
) -> Result<Value, String> {
    if depth > MAX_TREE_DEPTH {
        return Err(too_deep(group));
    }
    let mut members = vec![];
    for m in group.members().map_err(|e| e.to_string())? {
        // A member that cannot be opened still says where it is, as every other entry does.
        let broken = |kind: &str, e: String| {
            let path = match group.path() {
                "" => m.name.clone(),
                parent => format!("{parent}/{}", m.name),
            };
            json!({"node_type": kind, "name": m.name, "path": path, "error": e})
        };
        members.push(match m.kind {
            NodeKind::Array => match group.array(&m.name) {
                Ok(a) => array_json(&a, &m.name),
                Err(e) => broken("array", e.to_string()),
            },
            NodeKind::Group => match group.group(&m.name) {
                Ok(g) => group_json_at(&g, &m.name, depth + 1)?,
                Err(e) => broken("group", e.to_string()),
            },
        });
    }
    Ok(json!({
        "node_type": "group",
        "name": name,
        "path": group.path(),
        "zarr_format": zarr_format(group.format()),
        "consolidated": group.is_consolidated(),
        "attributes": attributes_json(group.attributes_text_len(), || {
            group.attributes().map_err(|e| e.to_string())
        }),
        "members": members,
    }))
}

/// `info` on an array as text lines.
pub fn array_text<S: Store>(array: &Array<S>, shown: &str, storage: &Storage) -> Vec<String> {
    let meta = array.metadata();
    let (chunks, shards) = chunking(array);
    let size = meta
        .dtype
        .fixed_size()
        .map_or_else(|| "variable length".to_owned(), |n| format!("{n} bytes"));
    let mut lines = vec![
        format!("array:        {shown}"),
        format!("format:       Zarr {}", format_name(meta.format)),
        format!("shape:        {:?}", array.shape()),
        format!("data type:    {} ({size})", meta.dtype),
    ];
    if let Some(dims) = array.dimension_names() {
        lines.push(format!("dimensions:   {}", dim_names(dims)));
    }
    match shards {
        Some(_) if !meta.grid.is_regular() => {
            lines.push(format!(
                "shard edges:  {} (rectilinear)",
                edges_text(&meta.grid)
            ));
            lines.push(format!("chunk shape:  {chunks:?} (inside shards)"));
        }
        Some(shards) => {
            lines.push(format!("shard shape:  {shards:?}"));
            lines.push(format!("chunk shape:  {chunks:?} (inside shards)"));
        }
        None if !meta.grid.is_regular() => {
            lines.push(format!(
                "chunk edges:  {} (rectilinear)",
                edges_text(&meta.grid)
            ));
            lines.push(format!("chunk shape:  {chunks:?} (the longest edges)"));
        }
        None => lines.push(format!("chunk shape:  {chunks:?}")),
    }
    lines.extend([
        format!(
            "codecs:       {}",
            describe::codecs(meta.dtype, &meta.chain)
        ),
        format!(
            "fill value:   {}",
            describe::fill_value(meta.dtype, &meta.fill_value)
        ),
    ]);
    let kind = if meta.chain.levels().len() > 1 {
        "shards"
    } else {
        "chunks"
    };
    lines.extend(storage_lines(array, kind, storage));
    match array.metadata().attributes_text_len() {
        Some(n) if n > MAX_SHOWN_ATTRIBUTES => {
            lines.push(format!("attributes:   {}", not_shown(n)));
            return lines;
        }
        _ => {}
    }
    match array.attributes() {
        Ok(attrs) if attrs.is_empty() => {}
        Ok(attrs) => {
            lines.push("attributes:".to_owned());
            lines.extend(attribute_lines(attrs, "  "));
        }
        Err(e) => lines.push(format!("attributes:   unreadable ({})", e.kind())),
    }
    lines
}

/// What `info` says of the stored chunks: how many, how many present, their size.
fn storage_lines<S: Store>(array: &Array<S>, kind: &str, storage: &Storage) -> Vec<String> {
    let meta = array.metadata();
    let mut lines = Vec::new();
    match storage.counted {
        Some((present, stored)) => {
            lines.push(format!(
                "{:<14}{} in all, {present} present",
                format!("{kind}:"),
                storage.chunks
            ));
            if let Some(sep) = storage.other_separator {
                lines.push(format!(
                    "warning:      no chunk under the metadata's separator, but chunks under {sep:?}: \
                     the metadata states another dimension_separator than the chunks were \
                     written with (zarr-python 2's nested stores); they read as the fill value"
                ));
            }
            let decoded = decoded_bytes(array);
            let data = if meta.dtype.is_variable_length() {
                "variable-length data".to_owned()
            } else {
                format!("{} of data", bytes(decoded))
            };
            lines.push(format!(
                "stored:       {} for {data}{}",
                bytes(stored),
                match (stored, decoded) {
                    (Some(s), Some(d)) if s > 0 =>
                        format!(" (compression ratio {:.2})", d as f64 / s as f64),
                    _ => String::new(),
                }
            ));
        }
        None if array.store().read_ahead().is_some() => lines.push(format!(
            "{:<14}{} in all (remote store: present ones not counted, a request each)",
            format!("{kind}:"),
            storage.chunks
        )),
        None => lines.push(format!(
            "{:<14}{} in all (more than {MAX_CHUNKS_COUNTED}: present ones not counted)",
            format!("{kind}:"),
            storage.chunks
        )),
    }
    lines
}

/// A byte count, or what is known of one that overflows a `u64`.
pub fn bytes(n: Option<u64>) -> String {
    n.map_or_else(
        || "2^64 bytes or more (overflows u64)".to_owned(),
        |n| format!("{n} bytes"),
    )
}

fn dim_names(dims: &[Option<String>]) -> String {
    dims.iter()
        .map(|d| d.as_deref().unwrap_or("-"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Attributes as `key: value` lines, values as JSON cut to [`MAX_ATTR_CHARS`], at most
/// [`MAX_ATTRS_SHOWN`] of them.
fn attribute_lines(attrs: &Map<String, Value>, indent: &str) -> Vec<String> {
    let mut lines: Vec<String> = attrs
        .iter()
        .take(MAX_ATTRS_SHOWN)
        .map(|(k, v)| {
            let text = v.to_string();
            let shown = if text.chars().count() > MAX_ATTR_CHARS {
                let cut: String = text.chars().take(MAX_ATTR_CHARS - 1).collect();
                format!("{cut}…")
            } else {
                text
            };
            format!("{indent}{k}: {shown}")
        })
        .collect();
    if attrs.len() > MAX_ATTRS_SHOWN {
        lines.push(format!(
            "{indent}… and {} more",
            attrs.len() - MAX_ATTRS_SHOWN
        ));
    }
    lines
}

/// One line about an array in a tree: type, shape, chunks, codecs, dimension names.
fn array_summary<S: Store>(array: &Array<S>) -> String {
    let (chunks, shards) = chunking(array);
    let mut s = format!("{} {:?}  chunks {chunks:?}", array.dtype(), array.shape());
    if let Some(shards) = shards {
        s.push_str(&format!(" in shards {shards:?}"));
    }
    s.push_str(&format!(
        "  {}",
        describe::codecs(array.dtype(), &array.metadata().chain)
    ));
    if let Some(dims) = array.dimension_names() {
        s.push_str(&format!("  ({})", dim_names(dims)));
    }
    s
}

/// The tree of `group`'s hierarchy as text lines, members sorted, arrays with their attributes.
pub fn group_tree<S: Store + Clone>(group: &Group<S>, shown: &str) -> Result<Vec<String>, String> {
    let mut lines = vec![format!(
        "{shown}  (group, Zarr {}{})",
        format_name(group.format()),
        if group.is_consolidated() {
            ", consolidated metadata"
        } else {
            ""
        }
    )];
    let attrs = || group.attributes().map_err(|e| e.kind().to_string());
    lines.extend(attributes_text(group.attributes_text_len(), attrs, "│ "));
    tree_members(group, "", &mut lines, 0)?;
    Ok(lines)
}

fn tree_members<S: Store + Clone>(
    group: &Group<S>,
    prefix: &str,
    lines: &mut Vec<String>,
    depth: usize,
) -> Result<(), String> {
    if depth > MAX_TREE_DEPTH {
        return Err(too_deep(group));
    }
    let members = group.members().map_err(|e| e.to_string())?;
    let count = members.len();
    for (i, m) in members.into_iter().enumerate() {
        let last = i + 1 == count;
        let (branch, below) = if last {
            ("└── ", "    ")
        } else {
            ("├── ", "│   ")
        };
        let inner = format!("{prefix}{below}");
        match m.kind {
            NodeKind::Array => match group.array(&m.name) {
                Ok(a) => {
                    lines.push(format!("{prefix}{branch}{}  {}", m.name, array_summary(&a)));
                    let attrs = || a.attributes().map_err(|e| e.kind().to_string());
                    let text_len = a.metadata().attributes_text_len();
                    lines.extend(attributes_text(text_len, attrs, &format!("{inner}  ")));
                }
                Err(e) => lines.push(format!("{prefix}{branch}{}  (error: {})", m.name, e.kind())),
            },
            NodeKind::Group => match group.group(&m.name) {
                Ok(g) => {
                    lines.push(format!("{prefix}{branch}{}/", m.name));
                    let attrs = || g.attributes().map_err(|e| e.kind().to_string());
                    let text_len = g.attributes_text_len();
                    lines.extend(attributes_text(text_len, attrs, &format!("{inner}  ")));
                    tree_members(&g, &inner, lines, depth + 1)?;
                }
                Err(e) => lines.push(format!(
                    "{prefix}{branch}{}/  (error: {})",
                    m.name,
                    e.kind()
                )),
            },
        }
    }
    Ok(())
}
