//! Group documents (v3 `zarr.json` with `node_type: group`, v2 `.zgroup` and `.zattrs`) and the
//! consolidated metadata they may carry (v3 `consolidated_metadata`, v2 `.zmetadata`).

use std::collections::BTreeMap;

use serde::Deserialize;
use serde::de::{MapAccess, Visitor};
use serde_json::value::RawValue;

use super::document::{Known, kind_of_raw, top_level};
use super::{Attributes, MetadataError, ZarrFormat};

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
    pub(crate) attributes: Attributes,
    /// Every node below the group that its consolidated metadata lists, by path relative to
    /// the group (`a`, `a/b`), if it has any.
    pub(crate) consolidated: Option<BTreeMap<String, NodeKind>>,
}

/// Top-level fields of a v3 group document this reader understands.
const KNOWN: Known<'static> = Known {
    fields: &[
        "zarr_format",
        "node_type",
        "attributes",
        "consolidated_metadata",
    ],
    large: &["attributes", "consolidated_metadata"],
};

/// The node type a v3 `zarr.json` states (its other fields are skipped unparsed).
pub(crate) fn v3_kind(json: &[u8]) -> Result<NodeKind, MetadataError> {
    let doc: NodeTypeOf<'_> = serde_json::from_slice(json).map_err(MetadataError::Json)?;
    doc.kind()
}

/// A document read only for its `node_type`.
#[derive(Deserialize)]
struct NodeTypeOf<'a> {
    #[serde(borrow)]
    node_type: Option<&'a RawValue>,
}

impl NodeTypeOf<'_> {
    fn kind(&self) -> Result<NodeKind, MetadataError> {
        let Some(raw) = self.node_type else {
            return Err(MetadataError::Invalid("zarr.json without node_type".into()));
        };
        match serde_json::from_str::<&str>(raw.get()) {
            Ok("array") => Ok(NodeKind::Array),
            Ok("group") => Ok(NodeKind::Group),
            _ => Err(MetadataError::Unsupported(format!(
                "node_type {}",
                shown(raw)
            ))),
        }
    }
}

/// A v3 group document's fields, each its text in the document.
#[derive(Deserialize)]
struct V3Group<'a> {
    #[serde(borrow)]
    zarr_format: Option<&'a RawValue>,
    #[serde(borrow)]
    node_type: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    attributes: Option<&'a RawValue>,
    #[serde(default, borrow)]
    consolidated_metadata: Option<&'a RawValue>,
}

/// A field that is present, whatever its value (`null` included), as its text.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&'de RawValue>::deserialize(d).map(Some)
}

/// A short value's text as it stands, a long one's kind (messages do not echo large values).
fn shown(raw: &RawValue) -> String {
    let text = raw.get();
    if text.len() <= 64 {
        text.to_owned()
    } else {
        kind_of_raw(raw).to_owned()
    }
}

/// Parses a v3 group `zarr.json`, in memory proportional to it: the attributes are kept as
/// text, consolidated metadata read member by member into the members' kinds.
pub(crate) fn parse_v3(json: &[u8]) -> Result<GroupMetadata, MetadataError> {
    let top = top_level(json, &KNOWN)?;
    let doc: V3Group<'_> = serde_json::from_slice(json).map_err(MetadataError::Json)?;
    match doc.zarr_format {
        Some(raw) if raw.get() == "3" => {}
        other => {
            return Err(MetadataError::Unsupported(format!(
                "zarr_format {}",
                other.map_or_else(|| "null".to_owned(), shown)
            )));
        }
    }
    let kind = NodeTypeOf {
        node_type: doc.node_type,
    }
    .kind()?;
    if kind != NodeKind::Group {
        return Err(MetadataError::Invalid("not a group".into()));
    }
    if let Some(key) = top.not_understood {
        return Err(MetadataError::Unsupported(format!(
            "group metadata field {key:?} (an extension this reader must understand)"
        )));
    }
    let attributes = match doc.attributes {
        None => Attributes::none(),
        Some(raw) if raw.get().starts_with('{') => Attributes::text(raw.get()),
        Some(_) => Attributes::error(MetadataError::Invalid(
            "attributes must be an object".into(),
        )),
    };
    let consolidated = match doc.consolidated_metadata {
        Some(raw) if raw.get() != "null" => Some(consolidated_v3(raw)?),
        _ => None,
    };
    Ok(GroupMetadata {
        format: ZarrFormat::V3,
        attributes,
        consolidated,
    })
}

/// v3 `consolidated_metadata`: `{"kind": "inline", "metadata": {path: zarr.json, ...}}`.
#[derive(Deserialize)]
struct Consolidated<'a> {
    #[serde(borrow)]
    kind: Option<&'a RawValue>,
    #[serde(borrow)]
    metadata: Option<&'a RawValue>,
}

fn consolidated_v3(raw: &RawValue) -> Result<BTreeMap<String, NodeKind>, MetadataError> {
    if !raw.get().starts_with('{') {
        return Err(MetadataError::Invalid(
            "consolidated_metadata must be an object".into(),
        ));
    }
    let c: Consolidated<'_> = serde_json::from_str(raw.get()).map_err(MetadataError::Json)?;
    match c.kind {
        Some(k) if k.get() == r#""inline""# => {}
        other => {
            return Err(MetadataError::Unsupported(format!(
                "consolidated_metadata kind {}",
                other.map_or_else(|| "null".to_owned(), shown)
            )));
        }
    }
    let members = c
        .metadata
        .filter(|m| m.get().starts_with('{'))
        .ok_or_else(|| {
            MetadataError::Invalid("consolidated_metadata without a metadata object".into())
        })?;
    members_of(members.get(), |path, doc| {
        check_member_path(path)?;
        if !doc.get().starts_with('{') {
            return Err(MetadataError::Invalid(format!(
                "consolidated metadata of {path:?} is not an object"
            )));
        }
        let kind = serde_json::from_str::<NodeTypeOf<'_>>(doc.get())
            .map_err(MetadataError::Json)
            .and_then(|d| d.kind())
            .map_err(|e| MetadataError::Invalid(format!("consolidated member {path:?}: {e}")))?;
        Ok(Some(kind))
    })
}

/// The members of a consolidated-metadata object `json` (`{key: document, ...}`), each
/// judged by `kind_of` (`None`: not a member) as it is read: no tree of the documents is built.
fn members_of(
    json: &str,
    kind_of: impl FnMut(&str, &RawValue) -> Result<Option<NodeKind>, MetadataError>,
) -> Result<BTreeMap<String, NodeKind>, MetadataError> {
    let mut refused = None;
    let visitor = MembersVisitor {
        kind_of,
        refused: &mut refused,
    };
    let mut de = serde_json::Deserializer::from_str(json);
    serde::Deserializer::deserialize_map(&mut de, visitor)
        .map_err(|e| refused.take().unwrap_or(MetadataError::Json(e)))
}

struct MembersVisitor<'r, F> {
    kind_of: F,
    refused: &'r mut Option<MetadataError>,
}

impl<'de, F> Visitor<'de> for MembersVisitor<'_, F>
where
    F: FnMut(&str, &RawValue) -> Result<Option<NodeKind>, MetadataError>,
{
    type Value = BTreeMap<String, NodeKind>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an object of metadata documents by path")
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out = BTreeMap::new();
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            let doc: &'de RawValue = map.next_value()?;
            match (self.kind_of)(&key, doc) {
                Ok(Some(kind)) => {
                    out.insert(key.into_owned(), kind);
                }
                Ok(None) => {}
                Err(e) => {
                    *self.refused = Some(e);
                    return Err(serde::de::Error::custom("refused"));
                }
            }
        }
        Ok(out)
    }
}

pub(crate) fn parse_v2(
    zgroup: &[u8],
    attrs: Result<Option<Vec<u8>>, MetadataError>,
    zmetadata: Option<&[u8]>,
) -> Result<GroupMetadata, MetadataError> {
    let doc: V3Group<'_> = serde_json::from_slice(zgroup).map_err(MetadataError::Json)?;
    match doc.zarr_format {
        Some(raw) if raw.get() == "2" => {}
        other => {
            return Err(MetadataError::Unsupported(format!(
                ".zgroup with zarr_format {}",
                other.map_or_else(|| "null".to_owned(), shown)
            )));
        }
    }
    let attributes = match attrs {
        Ok(None) => Attributes::none(),
        Ok(Some(a)) => Attributes::bytes(&a),
        Err(e) => Attributes::error(e),
    };
    let consolidated = zmetadata.map(consolidated_v2).transpose()?;
    Ok(GroupMetadata {
        format: ZarrFormat::V2,
        attributes,
        consolidated,
    })
}

/// v2 `.zmetadata`: `{"zarr_consolidated_format": 1, "metadata": {key: document, ...}}`.
#[derive(Deserialize)]
struct Zmetadata<'a> {
    #[serde(borrow)]
    zarr_consolidated_format: Option<&'a RawValue>,
    #[serde(borrow)]
    metadata: Option<&'a RawValue>,
}

fn consolidated_v2(json: &[u8]) -> Result<BTreeMap<String, NodeKind>, MetadataError> {
    let doc: Zmetadata<'_> = serde_json::from_slice(json).map_err(MetadataError::Json)?;
    match doc.zarr_consolidated_format {
        Some(v) if v.get() == "1" => {}
        other => {
            return Err(MetadataError::Unsupported(format!(
                ".zmetadata zarr_consolidated_format {}",
                other.map_or_else(|| "null".to_owned(), shown)
            )));
        }
    }
    let members = doc
        .metadata
        .filter(|m| m.get().starts_with('{'))
        .ok_or_else(|| MetadataError::Invalid(".zmetadata without a metadata object".into()))?;
    members_of(members.get(), |key, _| {
        let (path, name) = key.rsplit_once('/').unwrap_or(("", key));
        let kind = match name {
            ".zarray" => NodeKind::Array,
            ".zgroup" => NodeKind::Group,
            ".zattrs" => return Ok(None),
            other => {
                return Err(MetadataError::Invalid(format!(
                    ".zmetadata key {key:?} names no metadata document ({other:?})"
                )));
            }
        };
        // The group itself (or a root array, which a group cannot be) is not a member.
        if path.is_empty() {
            return Ok(None);
        }
        check_member_path(path)?;
        Ok(Some(kind))
    })
    .map(|found| {
        found
            .into_iter()
            .map(|(key, kind)| (member_path(&key), kind))
            .collect()
    })
}

/// The member path of a `.zmetadata` key (`a/b/.zarray` is `a/b`).
fn member_path(key: &str) -> String {
    key.rsplit_once('/').map_or("", |(p, _)| p).to_owned()
}

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
        assert_eq!(g.attributes.get().unwrap()["title"], "t");
        assert!(g.consolidated.is_none());
        let e = parse_v3(br#"{"zarr_format": 3, "node_type": "group", "extra": 1}"#);
        assert!(e.unwrap_err().to_string().contains("extra"));
    }
}
