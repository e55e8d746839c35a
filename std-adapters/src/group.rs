//! A group in a store: its attributes and members, and the arrays and groups below it.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::doc::{MAX_CONSOLIDATED_LEN, MAX_METADATA_LEN, join, read_doc};
use crate::error::{Error, ErrorKind, MetadataError};
use crate::metadata::ZarrFormat;
use crate::metadata::group::{self, GroupMetadata, NodeKind, check_member_path};
use crate::store::Store;

/// A Zarr group (v3 `node_type: group`, or v2 `.zgroup`).
///
/// Members come from the group's consolidated metadata when it has some (v3
/// `consolidated_metadata`, v2 `.zmetadata`), else from listing the store. Consolidated
/// metadata is used to list and nothing more: opening a member reads the member's own
/// metadata, which wins where the two disagree (a consolidated copy goes stale when an array
/// is resized or its attributes change without re-consolidating; reading through it would cut
/// or misread the data).
///
/// ```
/// use zinto::{FileStore, Group, NodeKind};
///
/// # let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/data/weather.zarr");
/// // let dir = "examples/data/weather.zarr";
/// let group = Group::open(FileStore::new(dir), "")?;
/// for member in group.members()? {
///     if member.kind == NodeKind::Array {
///         let array = group.array(&member.name)?;
///         println!("{}: {:?} {}", member.name, array.shape(), array.dtype());
///     }
/// }
/// # Ok::<(), zinto::Error>(())
/// ```
#[derive(Debug)]
pub struct Group<S> {
    store: S,
    path: String,
    meta: GroupMetadata,
    /// The consolidated listing in force: the group's own, or the part of an ancestor's below
    /// this group (paths relative to this group).
    listing: Option<Arc<BTreeMap<String, NodeKind>>>,
}

/// A direct member of a group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// Its name in the group.
    pub name: String,
    /// Array or group.
    pub kind: NodeKind,
}

impl<S: Store> Group<S> {
    /// Opens the group at `path` (`""` for the store's root): v3 `zarr.json`, or v2 `.zgroup`
    /// with its `.zattrs` and `.zmetadata`.
    ///
    /// # Errors
    /// [`ErrorKind::Metadata`]: [`MetadataError::Missing`] if there is no group metadata,
    /// [`MetadataError::NotAnArray`]'s sibling message if the node is an array ("node is an
    /// array, not a group"), or the document does not parse; [`ErrorKind::Store`] if the store
    /// fails.
    pub fn open(store: S, path: &str) -> Result<Self, Error> {
        let path = path.trim_matches('/').to_owned();
        let meta = read_group(&store, &path).map_err(|kind| Error::group(&path, kind))?;
        let listing = meta.consolidated.clone().map(Arc::new);
        Ok(Self {
            store,
            path,
            meta,
            listing,
        })
    }

    /// Creates a group at `path` in `store` with `attributes` (v3 `zarr.json`, or v2
    /// `.zgroup` and `.zattrs`, as zarr-python writes them) and opens it. Metadata of a group
    /// already there is replaced; an array's is refused.
    ///
    /// ```
    /// use zinto::{FileStore, Group, ZarrFormat};
    ///
    /// let dir = std::env::temp_dir().join(format!("zinto-doc-group-{}", std::process::id()));
    /// let mut attrs = serde_json::Map::new();
    /// attrs.insert("title".into(), "weather".into());
    /// let group = Group::create(FileStore::new(&dir), "", ZarrFormat::V3, attrs)?;
    /// assert_eq!(group.attributes()?["title"], "weather");
    /// # std::fs::remove_dir_all(&dir).ok();
    /// # Ok::<(), zinto::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`ErrorKind::Metadata`] if an array's metadata is at `path`; [`ErrorKind::Store`] if the
    /// store fails; then as [`Group::open`].
    pub fn create(
        store: S,
        path: &str,
        format: ZarrFormat,
        attributes: Map<String, Value>,
    ) -> Result<Self, Error> {
        let path = path.trim_matches('/');
        let fail = |key: &str, e| Error::new(path, Some(key), ErrorKind::Store(e));
        for taken in ["zarr.json", ".zarray"] {
            let key = join(path, taken);
            let is_array = match store.read_whole(&key, MAX_METADATA_LEN) {
                Ok(Some(doc)) => {
                    taken == ".zarray" || group::v3_kind(&doc).is_ok_and(|k| k == NodeKind::Array)
                }
                Ok(None) => false,
                Err(e) => return Err(fail(&key, e)),
            };
            if is_array {
                return Err(Error::group(
                    path,
                    ErrorKind::Metadata(MetadataError::Unsupported(format!(
                        "creating a group where the array {key} is"
                    ))),
                ));
            }
        }
        let docs = match format {
            ZarrFormat::V3 => vec![(
                "zarr.json",
                serde_json::json!({"zarr_format": 3, "node_type": "group", "attributes": attributes}),
            )],
            ZarrFormat::V2 => vec![
                (".zgroup", serde_json::json!({"zarr_format": 2})),
                (".zattrs", Value::Object(attributes)),
            ],
        };
        for (name, doc) in docs {
            let key = join(path, name);
            let bytes = serde_json::to_vec_pretty(&doc)
                .map_err(|e| Error::group(path, ErrorKind::Encode(e.to_string())))?;
            store.write_from(&key, &bytes).map_err(|e| fail(&key, e))?;
        }
        Group::open(store, path)
    }

    /// Sets the attributes kept here (after they were written to the store).
    pub(crate) fn set_cached_attributes(&mut self, attributes: Map<String, Value>) {
        self.meta.attributes = crate::metadata::Attributes::tree(attributes);
    }

    /// The group's path in the store.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The store.
    pub fn store(&self) -> &S {
        &self.store
    }

    /// v2 or v3.
    pub fn format(&self) -> ZarrFormat {
        self.meta.format
    }

    /// Whether the members are listed from consolidated metadata (the group's own, or an
    /// ancestor's it was opened through) rather than from the store.
    pub fn is_consolidated(&self) -> bool {
        self.listing.is_some()
    }

    /// The group's attributes (v3 `attributes`, v2 `.zattrs`), empty if there are none.
    ///
    /// # Errors
    /// [`ErrorKind::Metadata`] if they could not be read or parsed.
    pub fn attributes(&self) -> Result<&Map<String, Value>, Error> {
        self.meta.attributes.get().map_err(|e| {
            Error::group(
                &self.path,
                ErrorKind::Metadata(MetadataError::Invalid(format!("attributes: {e}"))),
            )
        })
    }

    /// Bytes of the attributes' JSON text, if they have not been parsed yet (see
    /// [`ArrayMetadata::attributes_text_len`](crate::ArrayMetadata::attributes_text_len)).
    pub fn attributes_text_len(&self) -> Option<usize> {
        self.meta.attributes.text_len()
    }

    /// The direct members, sorted by name: from consolidated metadata if the group has it,
    /// else by listing the store and reading each entry's metadata (entries without any, such
    /// as chunk folders, are skipped).
    ///
    /// # Errors
    /// [`ErrorKind::Store`] if listing fails ([`StoreError::ListingUnsupported`] for a store
    /// that cannot list) or a member's metadata cannot be read, [`ErrorKind::Metadata`] for
    /// metadata that says neither array nor group.
    ///
    /// [`StoreError::ListingUnsupported`]: crate::StoreError::ListingUnsupported
    pub fn members(&self) -> Result<Vec<Member>, Error> {
        let err = |kind| Error::group(&self.path, kind);
        if let Some(listing) = &self.listing {
            return Ok(listing
                .iter()
                .filter(|(path, _)| !path.contains('/'))
                .map(|(name, kind)| Member {
                    name: name.clone(),
                    kind: *kind,
                })
                .collect());
        }
        let names = self
            .store
            .list_dir(&self.path)
            .map_err(|e| err(ErrorKind::Store(e)))?;
        let mut members = vec![];
        for name in names {
            if name.starts_with('.') || name == "zarr.json" || check_member_path(&name).is_err() {
                continue;
            }
            let at = join(&self.path, &name);
            if let Some(kind) = node_kind(&self.store, &at, self.meta.format).map_err(err)? {
                members.push(Member { name, kind });
            }
        }
        Ok(members)
    }

    /// Opens the group `name` (a member, or a deeper path), on a clone of the store (a path
    /// for [`FileStore`](crate::FileStore); open a group on `&store` or an `Arc` for stores
    /// that are costly to clone). A group opened through a group with consolidated metadata
    /// lists its members from that metadata too.
    ///
    /// # Errors
    /// As [`Group::open`]; [`ErrorKind::Metadata`] for a name that leaves the group.
    pub fn group(&self, name: &str) -> Result<Group<S>, Error>
    where
        S: Clone,
    {
        let path = self.child_path(name)?;
        let mut group = Group::open(self.store.clone(), &path)?;
        if group.listing.is_none()
            && let Some(listing) = &self.listing
        {
            let name = name.trim_matches('/');
            let prefix = format!("{name}/");
            group.listing = Some(Arc::new(
                listing
                    .iter()
                    .filter_map(|(p, k)| Some((p.strip_prefix(&prefix)?.to_owned(), *k)))
                    .collect(),
            ));
        }
        Ok(group)
    }

    /// The path of member `name`, checked to stay inside the group.
    pub(crate) fn child_path(&self, name: &str) -> Result<String, Error> {
        let name = name.trim_matches('/');
        check_member_path(name).map_err(|e| Error::group(&self.path, ErrorKind::Metadata(e)))?;
        Ok(join(&self.path, name))
    }
}

/// Reads the group metadata at `path`.
fn read_group<S: Store + ?Sized>(store: &S, path: &str) -> Result<GroupMetadata, ErrorKind> {
    let meta = |e| ErrorKind::Metadata(e);
    if let Some(json) = read_doc(store, &join(path, "zarr.json"), MAX_CONSOLIDATED_LEN)? {
        if group::v3_kind(&json).map_err(meta)? == NodeKind::Array {
            return Err(meta(MetadataError::NotAGroup));
        }
        return group::parse_v3(&json).map_err(meta);
    }
    if let Some(zgroup) = read_doc(store, &join(path, ".zgroup"), MAX_METADATA_LEN)? {
        // Attributes are not needed to list or open members: their error waits until asked.
        let attrs = read_doc(store, &join(path, ".zattrs"), MAX_METADATA_LEN)
            .map_err(|e| MetadataError::Invalid(format!("cannot read .zattrs: {e}")));
        let zmetadata = read_doc(store, &join(path, ".zmetadata"), MAX_CONSOLIDATED_LEN)?;
        return group::parse_v2(&zgroup, attrs, zmetadata.as_deref()).map_err(meta);
    }
    if store
        .size(&join(path, ".zarray"))
        .map_err(ErrorKind::Store)?
        .is_some()
    {
        return Err(meta(MetadataError::NotAGroup));
    }
    Err(meta(MetadataError::Missing))
}

/// What the node at `path` is, judged by its metadata document; `None` if it has none.
/// `format` is the parent's: a v2 hierarchy's nodes have `.zarray`/`.zgroup`, a v3 one's
/// `zarr.json`, and both are tried.
pub(crate) fn node_kind<S: Store + ?Sized>(
    store: &S,
    path: &str,
    format: ZarrFormat,
) -> Result<Option<NodeKind>, ErrorKind> {
    let v3 = |store: &S| -> Result<Option<NodeKind>, ErrorKind> {
        match read_doc(store, &join(path, "zarr.json"), MAX_CONSOLIDATED_LEN)? {
            Some(json) => group::v3_kind(&json).map(Some).map_err(ErrorKind::Metadata),
            None => Ok(None),
        }
    };
    let v2 = |store: &S| -> Result<Option<NodeKind>, ErrorKind> {
        let has = |name: &str| -> Result<bool, ErrorKind> {
            Ok(store
                .size(&join(path, name))
                .map_err(ErrorKind::Store)?
                .is_some())
        };
        Ok(if has(".zarray")? {
            Some(NodeKind::Array)
        } else if has(".zgroup")? {
            Some(NodeKind::Group)
        } else {
            None
        })
    };
    match format {
        ZarrFormat::V3 => match v3(store)? {
            Some(k) => Ok(Some(k)),
            None => v2(store),
        },
        ZarrFormat::V2 => match v2(store)? {
            Some(k) => Ok(Some(k)),
            None => v3(store),
        },
    }
}
