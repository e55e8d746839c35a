//! Scratch directories and what the write tests count in them.

use std::path::{Path, PathBuf};

/// A fresh directory name under the system's temporary directory, unique to this process,
/// `kind` and `name`; anything left there by an earlier run is removed.
pub fn temp_dir(kind: &str, name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("zinto-{kind}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// Every file under `dir`, recursively.
pub fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = vec![];
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// The chunk files under `dir`: every file but the metadata (`zarr.json`, `.zarray`,
/// `.zattrs`) and the writers' lock file ([`zinto::LOCK_FILE`]).
pub fn chunk_files(dir: &Path) -> usize {
    walk(dir)
        .iter()
        .filter(|p| {
            !p.ends_with("zarr.json")
                && !p.ends_with(".zarray")
                && !p.ends_with(".zattrs")
                && !p.ends_with(zinto::LOCK_FILE)
        })
        .count()
}
