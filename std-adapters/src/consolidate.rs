//! Metadata written back on request: attribute updates of an array or a group, and a group's
//! consolidated metadata (v3 `consolidated_metadata` in its `zarr.json`, v2 `.zmetadata`),
//! gathered from what the store holds below the group now.

use serde_json::{Map, Value, json};

use crate::doc::{MAX_METADATA_LEN, join};
use crate::error::{Error, ErrorKind, MetadataError};
use crate::metadata::ZarrFormat;
use crate::store::{Store, StoreError};
use crate::{Array, Group};

/// Most levels below a group that consolidation descends.
pub const MAX_CONSOLIDATE_DEPTH: usize = 64;

/// The JSON document at `key`, if there is one.
fn read_json<S: Store + ?Sized>(store: &S, key: &str) -> Result<Option<Value>, ErrorKind> {
    let Some(bytes) = store
        .read_whole(key, MAX_METADATA_LEN)
        .map_err(ErrorKind::Store)?
    else {
        return Ok(None);
    };
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|e| ErrorKind::Metadata(MetadataError::Invalid(format!("{key}: {e}"))))
}

/// `doc` written at `key`, pretty-printed as zarr-python writes it.
fn write_json<S: Store + ?Sized>(store: &S, key: &str, doc: &Value) -> Result<(), ErrorKind> {
    let bytes = serde_json::to_vec_pretty(doc).map_err(|e| ErrorKind::Encode(e.to_string()))?;
    store.write_from(key, &bytes).map_err(ErrorKind::Store)
}

/// Writes `attributes` as the node's at `path`: into `zarr.json` (v3) or `.zattrs` (v2).
fn write_attributes<S: Store + ?Sized>(
    store: &S,
    path: &str,
    format: ZarrFormat,
    attributes: &Map<String, Value>,
) -> Result<(), ErrorKind> {
    match format {
        ZarrFormat::V3 => {
            let key = join(path, "zarr.json");
            let mut doc =
                read_json(store, &key)?.ok_or_else(|| ErrorKind::Store(StoreError::Missing))?;
            let obj = doc.as_object_mut().ok_or_else(|| {
                ErrorKind::Metadata(MetadataError::Invalid(format!("{key}: not an object")))
            })?;
            obj.insert("attributes".into(), Value::Object(attributes.clone()));
            write_json(store, &key, &doc)
        }
        ZarrFormat::V2 => write_json(
            store,
            &join(path, ".zattrs"),
            &Value::Object(attributes.clone()),
        ),
    }
}

impl<S: Store> Array<S> {
    /// Replaces the array's attributes, in the store and here. In v2, where xarray keeps
    /// dimension names among the attributes (`_ARRAY_DIMENSIONS`), the array's names are kept
    /// unless `attributes` states them.
    ///
    /// # Errors
    /// [`ErrorKind::Store`] if the metadata cannot be read or written.
    pub fn set_attributes(&mut self, attributes: Map<String, Value>) -> Result<(), Error> {
        let mut attributes = attributes;
        let format = self.metadata().format;
        if format == ZarrFormat::V2
            && let Some(names) = self.dimension_names()
        {
            attributes
                .entry("_ARRAY_DIMENSIONS")
                .or_insert_with(|| json!(names));
        }
        write_attributes(self.store(), self.path(), format, &attributes)
            .map_err(|kind| Error::new(self.path(), None, kind))?;
        self.metadata_mut().set_attributes(attributes);
        Ok(())
    }
}

impl<S: Store> Group<S> {
    /// Replaces the group's attributes, in the store and here.
    ///
    /// # Errors
    /// [`ErrorKind::Store`] if the metadata cannot be read or written.
    pub fn set_attributes(&mut self, attributes: Map<String, Value>) -> Result<(), Error> {
        write_attributes(self.store(), self.path(), self.format(), &attributes)
            .map_err(|kind| Error::group(self.path(), kind))?;
        self.set_cached_attributes(attributes);
        Ok(())
    }

    /// Writes the group's consolidated metadata from what the store holds below it now (v3:
    /// `consolidated_metadata` in its `zarr.json`, every member's `zarr.json` by its path; v2:
    /// `.zmetadata`, every `.zarray`, `.zgroup` and `.zattrs` by key), as zarr-python's
    /// `consolidate_metadata` writes it. Call it after creating or changing members: readers
    /// that trust consolidated metadata (zinto, zarr-python, xarray) list members from it.
    /// The group opened here keeps its old listing; open it again to see the new one.
    ///
    /// # Errors
    /// [`ErrorKind::Store`] if the store cannot list (a plain HTTP server) or fails;
    /// [`ErrorKind::Metadata`] for a document that does not parse, or a hierarchy deeper than
    /// [`MAX_CONSOLIDATE_DEPTH`].
    pub fn consolidate(&self) -> Result<(), Error> {
        let err = |kind| Error::group(self.path(), kind);
        let mut found = Map::new();
        gather(self.store(), self.path(), "", self.format(), &mut found, 0).map_err(err)?;
        let store = self.store();
        match self.format() {
            ZarrFormat::V3 => {
                let key = join(self.path(), "zarr.json");
                let mut doc = read_json(store, &key)
                    .map_err(err)?
                    .ok_or_else(|| err(ErrorKind::Store(StoreError::Missing)))?;
                if let Some(obj) = doc.as_object_mut() {
                    obj.insert(
                        "consolidated_metadata".into(),
                        json!({"kind": "inline", "must_understand": false, "metadata": found}),
                    );
                }
                write_json(store, &key, &doc).map_err(err)
            }
            ZarrFormat::V2 => {
                for name in [".zgroup", ".zattrs"] {
                    if let Some(doc) = read_json(store, &join(self.path(), name)).map_err(err)? {
                        found.insert(name.into(), doc);
                    }
                }
                let doc = json!({"zarr_consolidated_format": 1, "metadata": found});
                write_json(store, &join(self.path(), ".zmetadata"), &doc).map_err(err)
            }
        }
    }
}

/// Every node below `base/rel` into `found`: v3 `path -> zarr.json`, v2 `path/.zarray -> doc`.
fn gather<S: Store + ?Sized>(
    store: &S,
    base: &str,
    rel: &str,
    format: ZarrFormat,
    found: &mut Map<String, Value>,
    depth: usize,
) -> Result<(), ErrorKind> {
    if depth > MAX_CONSOLIDATE_DEPTH {
        return Err(ErrorKind::Metadata(MetadataError::Unsupported(format!(
            "consolidating groups nested deeper than {MAX_CONSOLIDATE_DEPTH}"
        ))));
    }
    for name in store.list_dir(&join(base, rel)).map_err(ErrorKind::Store)? {
        // Documents, and hidden files (a write's temporary ones), are not members.
        if name.starts_with('.') || name == "zarr.json" {
            continue;
        }
        let child = join(rel, &name);
        let at = join(base, &child);
        let is_group = match format {
            ZarrFormat::V3 => match read_json(store, &join(&at, "zarr.json"))? {
                Some(mut doc) => {
                    let group = doc.get("node_type").and_then(Value::as_str) == Some("group");
                    if let Some(obj) = doc.as_object_mut() {
                        obj.remove("consolidated_metadata");
                    }
                    found.insert(child.clone(), doc);
                    group
                }
                None => false,
            },
            ZarrFormat::V2 => {
                let mut any = false;
                for doc_name in [".zarray", ".zgroup", ".zattrs"] {
                    if let Some(doc) = read_json(store, &join(&at, doc_name))? {
                        found.insert(join(&child, doc_name), doc);
                        any = true;
                    }
                }
                any && found.contains_key(&join(&child, ".zgroup"))
            }
        };
        if is_group {
            gather(store, base, &child, format, found, depth + 1)?;
        }
    }
    Ok(())
}
