//! Group documents (v3 `zarr.json` with `node_type: group`, v2 `.zgroup` and `.zattrs`) and the
//! consolidated metadata they may carry (v3 `consolidated_metadata`, v2 `.zmetadata`).

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Map, Value};

use super::MetadataError;
use super::ZarrFormat;

/// What a node in a hierarchy is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NodeKind {
    /// An array.
    Array,
    /// A group.
    Group,
}

impl std::fmt::Display for NodeKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Array => "array",
            Self::Group => "group",
        })
    }
}

/// A group's own metadata.
#[derive(Debug, Clone)]
pub(crate) struct GroupMetadata {
    pub(crate) format: ZarrFormat,
    pub(crate) attributes: Result<Map<String, Value>, Arc<MetadataError>>,
    /// Every node below the group that its consolidated metadata lists, by path relative to
    /// the group (`a`, `a/b`), if it has any.
    pub(crate) consolidated: Option<BTreeMap<String, NodeKind>>,
}

/// Group fields a v3 reader understands.
const KNOWN_FIELDS: [&str; 4] = [
    "zarr_format",
    "node_type",
    "attributes",
    "consolidated_metadata",
];

fn object(json: &[u8]) -> Result<Map<String, Value>, MetadataError> {
    serde_json::from_slice(json).map_err(MetadataError::Json)
}

/// The `node_type` of a v3 `zarr.json`, read without validating the rest.
pub(crate) fn v3_kind(json: &[u8]) -> Result<NodeKind, MetadataError> {
    kind_of_doc(&object(json)?)
}

fn kind_of_doc(doc: &Map<String, Value>) -> Result<NodeKind, MetadataError> {
    match doc.get("node_type") {
        Some(Value::String(s)) if s == "array" => Ok(NodeKind::Array),
        Some(Value::String(s)) if s == "group" => Ok(NodeKind::Group),
        Some(other) => Err(MetadataError::Unsupported(format!("node_type {other}"))),
        None => Err(MetadataError::Invalid("zarr.json without node_type".into())),
    }
}

/// Parses a v3 group `zarr.json`.
pub(crate) fn parse_v3(json: &[u8]) -> Result<GroupMetadata, MetadataError> {
    let doc = object(json)?;
    if doc.get("zarr_format") != Some(&Value::from(3)) {
        return Err(MetadataError::Unsupported(format!(
            "zarr_format {}",
            doc.get("zarr_format").unwrap_or(&Value::Null)
        )));
    }
    if kind_of_doc(&doc)? != NodeKind::Group {
        return Err(MetadataError::Invalid("not a group".into()));
    }
    for (key, value) in &doc {
        let optional = value
            .get("must_understand")
            .is_some_and(|m| m == &Value::Bool(false));
        if !KNOWN_FIELDS.contains(&key.as_str()) && !optional {
            return Err(MetadataError::Unsupported(format!(
                "group metadata field {key:?} (an extension this reader must understand)"
            )));
        }
    }
    let attributes = match doc.get("attributes") {
        None => Ok(Map::new()),
        Some(Value::Object(map)) => Ok(map.clone()),
        Some(_) => Err(Arc::new(MetadataError::Invalid(
            "attributes must be an object".into(),
        ))),
    };
    let consolidated = match doc.get("consolidated_metadata") {
        None | Some(Value::Null) => None,
        Some(Value::Object(c)) => Some(consolidated_v3(c)?),
        Some(_) => {
            return Err(MetadataError::Invalid(
                "consolidated_metadata must be an object".into(),
            ));
        }
    };
    Ok(GroupMetadata {
        format: ZarrFormat::V3,
        attributes,
        consolidated,
    })
}

/// v3 `consolidated_metadata`: `{"kind": "inline", "metadata": {path: zarr.json document}}`.
fn consolidated_v3(c: &Map<String, Value>) -> Result<BTreeMap<String, NodeKind>, MetadataError> {
    match c.get("kind") {
        Some(Value::String(k)) if k == "inline" => {}
        other => {
            return Err(MetadataError::Unsupported(format!(
                "consolidated_metadata kind {}",
                other.unwrap_or(&Value::Null)
            )));
        }
    }
    let Some(Value::Object(members)) = c.get("metadata") else {
        return Err(MetadataError::Invalid(
            "consolidated_metadata without a metadata object".into(),
        ));
    };
    let mut out = BTreeMap::new();
    for (path, doc) in members {
        check_member_path(path)?;
        let Value::Object(doc) = doc else {
            return Err(MetadataError::Invalid(format!(
                "consolidated metadata of {path:?} is not an object"
            )));
        };
        let kind = kind_of_doc(doc)
            .map_err(|e| MetadataError::Invalid(format!("consolidated member {path:?}: {e}")))?;
        out.insert(path.clone(), kind);
    }
    Ok(out)
}

/// Parses a v2 group: `.zgroup`, the `.zattrs` beside it (or why it could not be read), and
/// `.zmetadata` if present.
pub(crate) fn parse_v2(
    zgroup: &[u8],
    attrs: Result<Option<Vec<u8>>, MetadataError>,
    zmetadata: Option<&[u8]>,
) -> Result<GroupMetadata, MetadataError> {
    let doc = object(zgroup)?;
    if doc.get("zarr_format") != Some(&Value::from(2)) {
        return Err(MetadataError::Unsupported(format!(
            ".zgroup with zarr_format {}",
            doc.get("zarr_format").unwrap_or(&Value::Null)
        )));
    }
    let attributes = match attrs {
        Ok(None) => Ok(Map::new()),
        Ok(Some(a)) => serde_json::from_slice(&a).map_err(|e| Arc::new(MetadataError::Json(e))),
        Err(e) => Err(Arc::new(e)),
    };
    let consolidated = zmetadata.map(consolidated_v2).transpose()?;
    Ok(GroupMetadata {
        format: ZarrFormat::V2,
        attributes,
        consolidated,
    })
}

/// v2 `.zmetadata`: `{"zarr_consolidated_format": 1, "metadata": {"a/.zarray": {...}, ...}}`.
fn consolidated_v2(json: &[u8]) -> Result<BTreeMap<String, NodeKind>, MetadataError> {
    let doc = object(json)?;
    match doc.get("zarr_consolidated_format") {
        Some(v) if v == &Value::from(1) => {}
        other => {
            return Err(MetadataError::Unsupported(format!(
                ".zmetadata zarr_consolidated_format {}",
                other.unwrap_or(&Value::Null)
            )));
        }
    }
    let Some(Value::Object(members)) = doc.get("metadata") else {
        return Err(MetadataError::Invalid(
            ".zmetadata without a metadata object".into(),
        ));
    };
    let mut out = BTreeMap::new();
    for key in members.keys() {
        let (path, name) = key.rsplit_once('/').unwrap_or(("", key));
        let kind = match name {
            ".zarray" => NodeKind::Array,
            ".zgroup" => NodeKind::Group,
            ".zattrs" => continue,
            other => {
                return Err(MetadataError::Invalid(format!(
                    ".zmetadata key {key:?} names no metadata document ({other:?})"
                )));
            }
        };
        if path.is_empty() {
            // The group itself (or a root array, which a group cannot be).
            continue;
        }
        check_member_path(path)?;
        out.insert(path.to_owned(), kind);
    }
    Ok(out)
}

/// A member path must stay inside its group: segments that are not empty, `.` or `..`, and
/// no backslashes.
pub(crate) fn check_member_path(path: &str) -> Result<(), MetadataError> {
    let bad = path.is_empty()
        || path
            .split('/')
            .any(|seg| seg.is_empty() || seg == "." || seg == ".." || seg.contains('\\'));
    if bad {
        return Err(MetadataError::Invalid(format!(
            "member path {path:?} does not name a node inside the group"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn member_paths_stay_inside() {
        for bad in [
            "",
            "../x",
            "a/../../x",
            "a//b",
            "./a",
            "a/.",
            "/a",
            "a\\..\\b",
        ] {
            assert!(check_member_path(bad).is_err(), "{bad:?}");
        }
        for good in ["a", "a/b/c", "a.b", "..a"] {
            assert!(check_member_path(good).is_ok(), "{good:?}");
        }
    }

    #[test]
    fn consolidated_escapes_are_refused() {
        let v3 = br#"{"zarr_format": 3, "node_type": "group", "consolidated_metadata":
            {"kind": "inline", "must_understand": false,
             "metadata": {"../outside": {"node_type": "array"}}}}"#;
        let e = parse_v3(v3).unwrap_err().to_string();
        assert!(e.contains("../outside"), "{e}");
        let v2 = br#"{"zarr_consolidated_format": 1,
            "metadata": {".zgroup": {}, "../x/.zarray": {}}}"#;
        let e = parse_v2(br#"{"zarr_format": 2}"#, Ok(None), Some(v2))
            .unwrap_err()
            .to_string();
        assert!(e.contains("../x"), "{e}");
    }

    #[test]
    fn v3_group_fields() {
        let g = parse_v3(
            br#"{"zarr_format": 3, "node_type": "group",
            "attributes": {"title": "t"}}"#,
        )
        .unwrap();
        assert_eq!(g.attributes.unwrap()["title"], "t");
        assert!(g.consolidated.is_none());
        let e = parse_v3(br#"{"zarr_format": 3, "node_type": "group", "extra": 1}"#);
        assert!(e.unwrap_err().to_string().contains("extra"));
    }
}
