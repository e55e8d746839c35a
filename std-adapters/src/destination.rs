//! What creating an array may find where it goes, and what an overwrite removes there.
//!
//! A new array goes into an empty (or absent) folder or prefix. Anything there is refused by
//! name unless the caller asked to overwrite; an overwrite then removes only what zarr would
//! read as the array's: its metadata documents and the keys that are chunk keys of the array
//! that was there or of the new one (a stale chunk left at one would read as the new array's
//! data). Every other file stays, the array writers' lock file too.

use crate::metadata::ChunkKeyEncoding;
use crate::store::{Store, StoreError};
use crate::{Array, ErrorKind};

/// Metadata documents of a node, any version: removed (or replaced) by an overwrite.
pub(crate) const METADATA_DOCS: [&str; 5] =
    ["zarr.json", ".zarray", ".zgroup", ".zattrs", ".zmetadata"];

/// Entries named in a refusal, at most.
const NAMED: usize = 5;

/// The chunk keys of an array: how they are encoded, for how many dimensions.
#[derive(Debug, Clone)]
pub(crate) struct ChunkKeys {
    pub(crate) encoding: ChunkKeyEncoding,
    pub(crate) ndim: usize,
}

/// Makes `path` in `store` ready for a new array whose chunk keys are `new`: refused if
/// anything is there and `overwrite` is false (naming what is there), else what the old array
/// and the new one would read as their chunks removed (metadata is the caller's to replace).
/// A store that cannot list (plain HTTP) cannot be written either: nothing is checked there.
pub(crate) fn prepare<S: Store>(
    store: &S,
    path: &str,
    new: &ChunkKeys,
    overwrite: bool,
) -> Result<(), (Option<String>, ErrorKind)> {
    let entries = match store.list_dir(path) {
        // The lock file of an array's writers is empty and never data; it stays (a writer of
        // the old array may hold it).
        Ok(mut entries) => {
            entries.retain(|e| e != crate::store::LOCK_FILE);
            entries
        }
        Err(StoreError::ListingUnsupported) => return Ok(()),
        Err(e) => return Err((Some(path.to_owned()), ErrorKind::Store(e))),
    };
    if entries.is_empty() {
        return Ok(());
    }
    if !overwrite {
        return Err((None, refused(path, &entries)));
    }
    // The old array's chunks first: one of them may be where the new array needs a folder.
    if let Ok(old) = Array::open(store, path) {
        let old = ChunkKeys {
            encoding: old.metadata().key_encoding.clone(),
            ndim: old.shape().len(),
        };
        for levels in old.levels() {
            remove_matching(store, path, &levels, false)?;
        }
    }
    for levels in new.levels() {
        remove_matching(store, path, &levels, true)?;
    }
    Ok(())
}

/// Why a create is refused where `entries` are: a node's metadata, or other files.
fn refused(path: &str, entries: &[String]) -> ErrorKind {
    let node = entries
        .iter()
        .find(|e| METADATA_DOCS[..3].contains(&e.as_str()))
        .map(|doc| crate::doc::join(path, doc).into_boxed_str());
    let mut names: Vec<String> = entries.to_vec();
    names.sort_unstable();
    names.truncate(NAMED);
    ErrorKind::Occupied {
        node,
        names: names.into_boxed_slice(),
        total: entries.len(),
    }
}

/// One level of a chunk key's path: the name a folder or object has there.
#[derive(Debug, Clone, Copy)]
enum Level {
    /// Exactly this name (`c`).
    Exact(&'static str),
    /// A coordinate: a decimal integer as zarr writes it (no sign, no leading zero).
    Coordinate,
    /// Coordinates joined by `sep`, `n` of them, after `prefix` and `sep` if there is one
    /// (`c.1.2`, `1.2`).
    Joined {
        prefix: Option<&'static str>,
        sep: char,
        n: usize,
    },
}

impl ChunkKeys {
    /// The chunk keys' paths, level by level: one list, or two where a v2 array's separator
    /// is not stated (zarr-python 2 wrote `0/0` and `0.0` alike then).
    fn levels(&self) -> Vec<Vec<Level>> {
        let n = self.ndim;
        let nested = |first: Option<Level>| -> Vec<Level> {
            first
                .into_iter()
                .chain(std::iter::repeat_n(Level::Coordinate, n))
                .collect()
        };
        match self.encoding {
            ChunkKeyEncoding::Default { .. } if n == 0 => vec![vec![Level::Exact("c")]],
            ChunkKeyEncoding::Default { separator: '/' } => vec![nested(Some(Level::Exact("c")))],
            ChunkKeyEncoding::Default { separator } => vec![vec![Level::Joined {
                prefix: Some("c"),
                sep: separator,
                n,
            }]],
            ChunkKeyEncoding::V2 { .. } if n == 0 => vec![vec![Level::Exact("0")]],
            ChunkKeyEncoding::V2 {
                separator, stated, ..
            } => {
                let joined = vec![Level::Joined {
                    prefix: None,
                    sep: '.',
                    n,
                }];
                match (separator, stated) {
                    ('/', true) => vec![nested(None)],
                    (_, true) => vec![joined],
                    (_, false) => vec![joined, nested(None)],
                }
            }
        }
    }
}

/// Whether `name` is a coordinate as zarr writes it.
fn is_coordinate(name: &str) -> bool {
    !name.is_empty()
        && name.bytes().all(|b| b.is_ascii_digit())
        && (name == "0" || !name.starts_with('0'))
}

impl Level {
    fn matches(self, name: &str) -> bool {
        match self {
            Self::Exact(e) => name == e,
            Self::Coordinate => is_coordinate(name),
            Self::Joined { prefix, sep, n } => {
                let mut parts = name.split(sep);
                if let Some(p) = prefix
                    && parts.next() != Some(p)
                {
                    return false;
                }
                let coords: Vec<&str> = parts.collect();
                coords.len() == n && coords.iter().all(|c| is_coordinate(c))
            }
        }
    }
}

/// Removes the objects below `dir` whose paths match `levels` (folders are descended only
/// where a level matches their name; a folder where a chunk key ends is left alone). For the
/// new array's keys (`new`), a file where one of its folders belongs is refused.
fn remove_matching<S: Store>(
    store: &S,
    dir: &str,
    levels: &[Level],
    new: bool,
) -> Result<(), (Option<String>, ErrorKind)> {
    let Some((level, deeper)) = levels.split_first() else {
        return Ok(());
    };
    let failed = |key: &str, e| (Some(key.to_owned()), ErrorKind::Store(e));
    let names = match store.list_dir(dir) {
        Ok(names) => names,
        Err(e) => return Err(failed(dir, e)),
    };
    for name in names.iter().filter(|n| level.matches(n)) {
        let key = crate::doc::join(dir, name);
        if !deeper.is_empty() {
            // A file where a folder of chunk keys belongs: writes would fail there.
            if new && let Ok(Some(_)) = store.size(&key) {
                let kind = ErrorKind::InTheWay {
                    key: key.clone().into_boxed_str(),
                };
                return Err((Some(key), kind));
            }
            remove_matching(store, &key, deeper, new)?;
            // The old array's folders, emptied, would be in the way of the new one's files.
            if !new {
                store.prune(&key).map_err(|e| failed(&key, e))?;
            }
            continue;
        }
        match store.size(&key) {
            Ok(Some(_)) => store.delete(&key).map_err(|e| failed(&key, e))?,
            Ok(None) | Err(StoreError::NotAFile { .. }) => {}
            Err(e) => return Err(failed(&key, e)),
        }
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn levels_match_only_keys_zarr_writes() {
        assert!(is_coordinate("0") && is_coordinate("120"));
        for bad in ["", "01", "-1", "+1", "1a", "c"] {
            assert!(!is_coordinate(bad), "{bad}");
        }
        let joined = Level::Joined {
            prefix: Some("c"),
            sep: '.',
            n: 2,
        };
        assert!(joined.matches("c.0.12"));
        for bad in ["c.0", "c.0.1.2", "0.1", "c.0.x", "d.0.1"] {
            assert!(!joined.matches(bad), "{bad}");
        }
        let v2 = ChunkKeys {
            encoding: ChunkKeyEncoding::V2 {
                separator: '.',
                stated: false,
            },
            ndim: 3,
        };
        assert_eq!(v2.levels().len(), 2, "both separators where none is stated");
    }
}
