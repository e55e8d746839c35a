//! What parsing a metadata document may cost: its top level read once without building a
//! JSON tree of it (each field's text borrowed from the document), every field but the large
//! ones (`attributes`, `consolidated_metadata`) refused past [`MAX_FIELD_LEN`] before any
//! tree is built of it, and unknown fields checked for `"must_understand": false` as they go
//! by. A generic tree costs about twenty times its text (a number of two characters becomes
//! a 32-byte value); so parsing a document holds the document, the large fields' own
//! structures, and trees of at most a few small fields.

use std::fmt;

use serde::Deserialize;
use serde::de::{MapAccess, Visitor};
use serde_json::value::RawValue;

use super::MetadataError;

/// The most JSON text a metadata field other than attributes and consolidated metadata may
/// hold (codecs, data type, fill value, chunk grid, shape, names): 1 MiB, thousands of times
/// what real metadata holds in any of them.
pub const MAX_FIELD_LEN: usize = 1 << 20;

/// What a metadata document's top level says before its fields are parsed.
#[derive(Debug, Default)]
pub(crate) struct TopLevel {
    /// `node_type`, if present and a string.
    pub(crate) node_type: Option<String>,
    /// The first field neither known nor an object marked `"must_understand": false`: an
    /// extension this reader must understand, so the document is refused naming it.
    pub(crate) not_understood: Option<String>,
}

/// The fields of a document: those the reader knows, and those of them that may be large.
pub(crate) struct Known<'k> {
    /// Every field the reader understands.
    pub(crate) fields: &'k [&'k str],
    /// The known fields exempt from [`MAX_FIELD_LEN`] (parsed into structures of their own
    /// size, or kept as text).
    pub(crate) large: &'k [&'k str],
}

/// Reads the top level of `json` (an object) as [`TopLevel`] says, refusing a known field
/// past [`MAX_FIELD_LEN`] that is not one of `known.large`.
pub(crate) fn top_level(json: &[u8], known: &Known<'_>) -> Result<TopLevel, MetadataError> {
    let mut de = serde_json::Deserializer::from_slice(json);
    let mut refused = None;
    let gate = Gate {
        known,
        refused: &mut refused,
    };
    let top = serde::Deserializer::deserialize_map(&mut de, gate)
        .map_err(|e| refused.take().unwrap_or(MetadataError::Json(e)))?;
    de.end().map_err(MetadataError::Json)?;
    Ok(top)
}

/// `raw`'s JSON type, named for a message (which should not echo a large value).
pub(crate) fn kind_of_raw(raw: &RawValue) -> &'static str {
    match raw.get().as_bytes().first() {
        Some(b'{') => "an object",
        Some(b'[') => "a list",
        Some(b'"') => "a string",
        Some(b't' | b'f') => "a boolean",
        Some(b'n') => "null",
        _ => "a number",
    }
}

/// A serde visitor over the top-level object.
struct Gate<'k, 'r> {
    known: &'k Known<'k>,
    /// Why the gate refused the document, when it did (serde's error then only stops it).
    refused: &'r mut Option<MetadataError>,
}

/// Whether an unknown field may be ignored: an object saying `"must_understand": false`.
#[derive(Deserialize)]
struct MustUnderstand {
    #[serde(default)]
    must_understand: Option<bool>,
}

impl<'de> Visitor<'de> for Gate<'_, '_> {
    type Value = TopLevel;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a metadata document (a JSON object)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TopLevel, A::Error> {
        let mut top = TopLevel::default();
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            let raw: &'de RawValue = map.next_value()?;
            let text = raw.get();
            if self.known.fields.contains(&key.as_ref()) {
                if text.len() > MAX_FIELD_LEN && !self.known.large.contains(&key.as_ref()) {
                    *self.refused = Some(MetadataError::Invalid(format!(
                        "{key} is {} bytes of JSON, more than the {MAX_FIELD_LEN} a metadata \
                         field other than attributes may hold",
                        text.len()
                    )));
                    return Err(serde::de::Error::custom("refused"));
                }
                if key == "node_type" {
                    top.node_type = serde_json::from_str::<String>(text).ok();
                }
            } else if top.not_understood.is_none() {
                let optional = serde_json::from_str::<MustUnderstand>(text)
                    .is_ok_and(|m| m.must_understand == Some(false));
                if !optional {
                    top.not_understood = Some(key.into_owned());
                }
            }
        }
        Ok(top)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KNOWN: Known<'static> = Known {
        fields: &["node_type", "codecs", "attributes"],
        large: &["attributes"],
    };

    #[test]
    fn unknown_fields_must_say_they_need_not_be_understood() {
        let top = top_level(
            br#"{"node_type": "array", "x": {"must_understand": false, "big": [1, 2]}}"#,
            &KNOWN,
        )
        .unwrap();
        assert_eq!(top.node_type.as_deref(), Some("array"));
        assert_eq!(top.not_understood, None);
        for doc in [
            &br#"{"x": {"must_understand": true}}"#[..],
            br#"{"x": 1}"#,
            br#"{"x": {}}"#,
        ] {
            let top = top_level(doc, &KNOWN).unwrap();
            assert_eq!(top.not_understood.as_deref(), Some("x"));
        }
    }

    #[test]
    fn a_known_field_past_the_limit_is_refused_unless_it_may_be_large() {
        let numbers = format!("[{}0]", "0,".repeat(MAX_FIELD_LEN / 2));
        let doc = format!(r#"{{"codecs": {numbers}}}"#);
        let e = top_level(doc.as_bytes(), &KNOWN).unwrap_err();
        assert!(
            matches!(&e, MetadataError::Invalid(w) if w.starts_with("codecs is ")),
            "{e}"
        );
        let doc = format!(r#"{{"attributes": {{"a": {numbers}}}}}"#);
        assert!(top_level(doc.as_bytes(), &KNOWN).is_ok());
    }

    #[test]
    fn malformed_documents_are_json_errors() {
        for doc in [&b"[1]"[..], b"{", b"{\"a\": 1} x", b"nul"] {
            let e = top_level(doc, &KNOWN).unwrap_err();
            assert!(matches!(e, MetadataError::Json(_)), "{e}");
        }
    }
}
