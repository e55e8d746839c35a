//! A path in a store, opened as whatever it is: an array or a group.

use crate::array::Array;
use crate::error::{Error, ErrorKind, MetadataError};
use crate::group::{Group, node_kind};
use crate::metadata::{NodeKind, ZarrFormat};
use crate::store::Store;

/// An array or a group, as [`Node::open`] found it.
///
/// ```
/// use zinto::{FileStore, Node};
///
/// # let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/data");
/// // let dir = "examples/data";
/// match Node::open(FileStore::new(dir), "weather.zarr/temperature")? {
///     Node::Array(a) => assert_eq!(a.dimension_names().map(|d| d.len()), Some(2)),
///     Node::Group(g) => panic!("{} is a group", g.path()),
/// }
/// # Ok::<(), zinto::Error>(())
/// ```
#[derive(Debug)]
#[allow(clippy::large_enum_variant)] // opened once, used in place
pub enum Node<S> {
    /// An array.
    Array(Array<S>),
    /// A group.
    Group(Group<S>),
}

impl<S: Store> Node<S> {
    /// Opens the node at `path` (`""` for the root): reads its metadata document (v3
    /// `zarr.json`, else v2 `.zarray` or `.zgroup`) and opens it as what it says it is.
    ///
    /// # Errors
    /// [`MetadataError::Missing`] if there is no metadata at `path`; otherwise as
    /// [`Array::open`] or [`Group::open`].
    pub fn open(store: S, path: &str) -> Result<Self, Error> {
        let path = path.trim_matches('/');
        match node_kind(&store, path, ZarrFormat::V3).map_err(|kind| Error::node(path, kind))? {
            Some(NodeKind::Array) => Array::open(store, path).map(Self::Array),
            Some(NodeKind::Group) => Group::open(store, path).map(Self::Group),
            None => Err(Error::node(
                path,
                ErrorKind::Metadata(MetadataError::Missing),
            )),
        }
    }

    /// Array or group.
    pub fn kind(&self) -> NodeKind {
        match self {
            Self::Array(_) => NodeKind::Array,
            Self::Group(_) => NodeKind::Group,
        }
    }
}

impl<S: Store> Group<S> {
    /// Opens the array `name` (a member, or a deeper path such as `a/b/x`) with its own
    /// metadata, on a clone of the store (see [`Self::group`]).
    ///
    /// # Errors
    /// As [`Array::open`]; [`ErrorKind::Metadata`] for a name that leaves the group (`..`).
    pub fn array(&self, name: &str) -> Result<Array<S>, Error>
    where
        S: Clone,
    {
        let path = self.child_path(name)?;
        Array::open(self.store().clone(), &path)
    }
}
