//! Whether a command's source and destination are apart: `convert A A` (or into a folder
//! inside A, or A inside the destination) would overwrite what it is still reading.
//!
//! Folders are compared as the file system knows them, not as spelt: each is identified by its
//! device and inode, and the destination's folders up to the root (and the source's) are
//! looked at one by one, so links, `..`, other spellings and bind mounts (the same folder
//! mounted twice has one inode) are all seen through. URLs are compared by bucket and prefix.

use std::path::{Path, PathBuf};

use super::Failure;
use crate::redact::printable_url;
use crate::store::is_remote_url;

/// Refuses `src` and `dst` when one is the other or lies inside it, naming both.
pub(super) fn check(src: &Path, dst: &Path) -> Result<(), Failure> {
    let relation = match (url_of(src), url_of(dst)) {
        (Some(a), Some(b)) => urls(a, b),
        (None, None) => folders(src, dst).map_err(|e| {
            Failure::Other(format!(
                "cannot tell whether {} and {} are apart: {e}",
                src.display(),
                dst.display()
            ))
        })?,
        _ => None,
    };
    let (shown_src, shown_dst) = (shown(src), shown(dst));
    let why = match relation {
        None => return Ok(()),
        Some(Relation::Same) => format!(
            "the destination {shown_dst} is the source {shown_src} (the same folder, however \
             spelt): converting an array into itself would destroy it; write to another \
             folder, then replace the source with it"
        ),
        Some(Relation::DstInside) => format!(
            "the destination {shown_dst} lies inside the source {shown_src}: writing it would \
             change what is being read; write it outside the source"
        ),
        Some(Relation::SrcInside) => format!(
            "the source {shown_src} lies inside the destination {shown_dst}: writing it could \
             overwrite what is being read; write it elsewhere"
        ),
    };
    Err(Failure::Usage(why))
}

/// How two locations lie.
#[derive(Debug, PartialEq, Eq)]
enum Relation {
    Same,
    /// The destination is below the source.
    DstInside,
    /// The source is below the destination.
    SrcInside,
}

fn url_of(p: &Path) -> Option<&str> {
    p.to_str().filter(|s| s.contains("://"))
}

fn shown(p: &Path) -> String {
    match url_of(p) {
        Some(url) => printable_url(url),
        None => p.display().to_string(),
    }
}

/// Two URLs: the same store (scheme, bucket or host) and one prefix the other's ancestor.
/// Anything but a remote URL (refused elsewhere) is taken as apart.
fn urls(a: &str, b: &str) -> Option<Relation> {
    if !is_remote_url(a) || !is_remote_url(b) {
        return None;
    }
    let parts = |u: &str| -> Vec<String> {
        let (scheme, rest) = u.split_once("://").unwrap_or(("", u));
        // Query and fragment are not part of where an object lives.
        let rest = rest.split(['?', '#']).next().unwrap_or("");
        let scheme = match scheme.to_ascii_lowercase().as_str() {
            "s3a" => "s3".to_owned(),
            other => other.to_owned(),
        };
        std::iter::once(scheme)
            .chain(rest.split('/').filter(|s| !s.is_empty()).map(str::to_owned))
            .collect()
    };
    relate(&parts(a), &parts(b))
}

/// `a` and `b` as lists of steps from a common root.
fn relate<T: PartialEq>(a: &[T], b: &[T]) -> Option<Relation> {
    if a == b {
        Some(Relation::Same)
    } else if b.starts_with(a) {
        Some(Relation::DstInside)
    } else if a.starts_with(b) {
        Some(Relation::SrcInside)
    } else {
        None
    }
}

/// Two folders (the destination perhaps not made yet), as the file system identifies them.
fn folders(src: &Path, dst: &Path) -> std::io::Result<Option<Relation>> {
    let src_id = Id::of(src)?;
    // The destination, or the nearest folder above it that exists.
    let (existing, made) = nearest_existing(dst)?;
    let dst_chain = chain(&existing)?;
    if let Some(i) = dst_chain.iter().position(|id| *id == src_id) {
        return Ok(Some(if i == 0 && !made {
            Relation::Same
        } else {
            Relation::DstInside
        }));
    }
    if made {
        // A folder still to be made holds nothing yet.
        return Ok(None);
    }
    let dst_id = dst_chain.first().copied();
    let src_chain = chain(src)?;
    Ok(match dst_id {
        Some(d) if src_chain.contains(&d) => Some(Relation::SrcInside),
        _ => None,
    })
}

/// `path` if it exists, else the nearest existing folder above it, and whether that is above
/// it (`path` still to be made).
fn nearest_existing(path: &Path) -> std::io::Result<(PathBuf, bool)> {
    for (i, p) in path.ancestors().enumerate() {
        let p = if p.as_os_str().is_empty() {
            Path::new(".")
        } else {
            p
        };
        if std::fs::symlink_metadata(p).is_ok() {
            return Ok((p.to_path_buf(), i > 0));
        }
    }
    Ok((PathBuf::from("."), true))
}

/// The identities of `path` and of every folder above it, resolved as the file system
/// resolves it (links and `..` followed).
fn chain(path: &Path) -> std::io::Result<Vec<Id>> {
    let resolved = std::fs::canonicalize(path)?;
    resolved.ancestors().map(Id::of).collect()
}

/// A file system object's identity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Id {
    dev: u64,
    ino: u64,
}

impl Id {
    #[cfg(unix)]
    fn of(path: &Path) -> std::io::Result<Self> {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata(path)?;
        Ok(Self {
            dev: m.dev(),
            ino: m.ino(),
        })
    }

    /// Elsewhere the resolved path stands for the identity (bind mounts are not seen through).
    #[cfg(not(unix))]
    fn of(path: &Path) -> std::io::Result<Self> {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        std::fs::canonicalize(path)?.hash(&mut h);
        Ok(Self {
            dev: 0,
            ino: h.finish(),
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn urls_relate_by_bucket_and_prefix() {
        let r = |a, b| urls(a, b);
        assert_eq!(r("s3://b/x.zarr", "s3://b/x.zarr/"), Some(Relation::Same));
        assert_eq!(r("s3a://b/x.zarr", "S3://b//x.zarr"), Some(Relation::Same));
        assert_eq!(
            r("s3://b/x.zarr", "s3://b/x.zarr/y"),
            Some(Relation::DstInside)
        );
        assert_eq!(
            r("s3://b/x.zarr/y", "s3://b/x.zarr"),
            Some(Relation::SrcInside)
        );
        assert_eq!(r("s3://b/x.zarr", "s3://b/x.zarr2"), None);
        assert_eq!(r("s3://b/x.zarr", "gs://b/x.zarr"), None);
    }

    #[cfg(unix)]
    #[test]
    fn folders_relate_through_links_and_dots() {
        let base = std::env::temp_dir().join(format!("zinto-apart-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let a = base.join("a");
        std::fs::create_dir_all(a.join("sub")).unwrap();
        std::fs::create_dir_all(base.join("b")).unwrap();
        std::os::unix::fs::symlink(&a, base.join("link")).unwrap();
        let f = |x: &str, y: &str| folders(&base.join(x), &base.join(y)).unwrap();
        assert_eq!(f("a", "link"), Some(Relation::Same));
        assert_eq!(f("a", "b/../a"), Some(Relation::Same));
        assert_eq!(f("a", "link/sub"), Some(Relation::DstInside));
        assert_eq!(f("a", "link/new/deeper"), Some(Relation::DstInside));
        assert_eq!(f("link/sub", "a"), Some(Relation::SrcInside));
        assert_eq!(f("a", "b"), None);
        assert_eq!(f("a", "b/new"), None);
        std::fs::remove_dir_all(&base).unwrap();
    }
}
