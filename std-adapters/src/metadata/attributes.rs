//! User attributes, kept as their JSON text when a node is opened and parsed into a tree the
//! first time they are asked for. They are not needed to read data and may be most of a
//! document (a tree of them costs about twenty times their text), so opening holds only
//! their text; a bad one is reported when asked for, not when the node opens.

use std::sync::{Arc, OnceLock};

use serde_json::{Map, Value};

use super::MetadataError;

/// A node's attributes: their text (or why it could not be had), and the tree once asked for.
#[derive(Debug, Clone)]
pub(crate) struct Attributes {
    text: Source,
    tree: OnceLock<Result<Map<String, Value>, Arc<MetadataError>>>,
}

#[derive(Debug, Clone)]
enum Source {
    /// No attributes: an empty object.
    None,
    /// A JSON document that should be an object.
    Text(Arc<str>),
    /// Why they could not be had.
    Error(Arc<MetadataError>),
}

impl Attributes {
    /// No attributes.
    pub(crate) fn none() -> Self {
        Self::of(Source::None)
    }

    /// The attributes `json` holds (v3 `attributes`, v2 `.zattrs`), checked when asked for.
    pub(crate) fn text(json: &str) -> Self {
        Self::of(Source::Text(json.into()))
    }

    /// The attributes `json` holds, as bytes read from a store (`.zattrs`).
    pub(crate) fn bytes(json: &[u8]) -> Self {
        match std::str::from_utf8(json) {
            Ok(text) => Self::text(text),
            // Not UTF-8: serde_json says where, as it would have parsing the bytes.
            Err(_) => match serde_json::from_slice::<Map<String, Value>>(json) {
                Ok(map) => Self::tree(map),
                Err(e) => Self::error(MetadataError::Json(e)),
            },
        }
    }

    /// Attributes already parsed (after they were written to the store).
    pub(crate) fn tree(map: Map<String, Value>) -> Self {
        let tree = OnceLock::new();
        let _ = tree.set(Ok(map));
        Self {
            text: Source::None,
            tree,
        }
    }

    /// Attributes that could not be read, and why.
    pub(crate) fn error(e: MetadataError) -> Self {
        Self::of(Source::Error(Arc::new(e)))
    }

    fn of(text: Source) -> Self {
        Self {
            text,
            tree: OnceLock::new(),
        }
    }

    /// Bytes of the attributes' JSON text, while they are text (not yet parsed, nor set as a
    /// tree): what a caller checks before asking for a tree about twenty times larger.
    pub(crate) fn text_len(&self) -> Option<usize> {
        match (&self.text, self.tree.get()) {
            (Source::Text(text), None) => Some(text.len()),
            _ => None,
        }
    }

    /// The attributes as an object, parsed now if not yet.
    ///
    /// # Errors
    /// [`MetadataError::Json`] if the text is not a JSON object, or the error they were kept
    /// with.
    pub(crate) fn get(&self) -> Result<&Map<String, Value>, &MetadataError> {
        self.tree
            .get_or_init(|| match &self.text {
                Source::None => Ok(Map::new()),
                Source::Text(text) => {
                    serde_json::from_str(text).map_err(|e| Arc::new(MetadataError::Json(e)))
                }
                Source::Error(e) => Err(Arc::clone(e)),
            })
            .as_ref()
            .map_err(|e| &**e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_parsed_when_asked_for_and_errors_kept() {
        let a = Attributes::text(r#"{"a": [1, 2]}"#);
        assert_eq!(a.get().unwrap()["a"], serde_json::json!([1, 2]));
        assert!(Attributes::none().get().unwrap().is_empty());
        assert!(matches!(
            Attributes::text("[1]").get(),
            Err(MetadataError::Json(_))
        ));
        assert!(matches!(
            Attributes::bytes(b"{\"a\": \"\xff\"}").get(),
            Err(MetadataError::Json(_))
        ));
        let e = Attributes::error(MetadataError::Invalid("gone".into()));
        assert!(e.get().unwrap_err().to_string().contains("gone"));
    }
}
