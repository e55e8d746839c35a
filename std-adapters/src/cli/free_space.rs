//! Whether an output fits: the bytes it needs against the free space of the file system it
//! goes to, checked before anything is written (`read --out`, `create`, `convert`), so that an
//! export larger than the disk is refused at once instead of running until the disk is full.
//! `--no-space-check` writes anyway; a write that then meets a full disk fails as any write
//! does, leaving no partial file (each output is written under a temporary name).

use std::path::Path;

use super::Failure;

/// What is written where: `what` names the output in messages (`--out x.npy`, `new.zarr`),
/// `place` is a path on the file system it goes to (need not exist yet: its nearest existing
/// ancestor is asked), `needed` the bytes it takes.
pub struct Output<'a> {
    pub what: &'a str,
    pub place: &'a Path,
    pub needed: u64,
}

/// Refuses `out` if its file system has fewer bytes free (for an unprivileged user) than it
/// needs. A file system that cannot say (not Unix, or `statvfs` fails) is not checked.
pub fn check(out: &Output<'_>) -> Result<(), Failure> {
    let Some(free) = available(out.place) else {
        return Ok(());
    };
    if out.needed <= free {
        return Ok(());
    }
    Err(Failure::Other(format!(
        "{} needs {} bytes, and its file system has {free} bytes free: nothing was written \
         (free some space or write elsewhere; --no-space-check writes anyway)",
        out.what, out.needed
    )))
}

/// Refuses the array `builder` describes at `dst` if it is a directory whose file system has
/// less free space than the array's chunks take, where that is known before writing
/// ([`ArrayBuilder::stored_len_bound`]: uncompressed chunks). Object stores are not checked.
pub fn check_array(dst: &Path, builder: &crate::ArrayBuilder) -> Result<(), Failure> {
    let is_url = dst.to_str().is_some_and(|p| p.contains("://"));
    match builder.stored_len_bound() {
        Some(needed) if !is_url => check(&Output {
            what: &dst.display().to_string(),
            place: dst,
            needed,
        }),
        _ => Ok(()),
    }
}

/// Bytes free for an unprivileged user on the file system holding `place`, or its nearest
/// existing ancestor.
#[cfg(unix)]
pub fn available(place: &Path) -> Option<u64> {
    let existing = place
        .ancestors()
        .map(|p| match p.as_os_str().is_empty() {
            true => Path::new("."),
            false => p,
        })
        .find(|p| p.exists())?;
    let s = rustix::fs::statvfs(existing).ok()?;
    Some(s.f_bavail.saturating_mul(s.f_frsize))
}

/// Not known off Unix: outputs are not checked there.
#[cfg(not(unix))]
pub fn available(_place: &Path) -> Option<u64> {
    None
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn an_output_larger_than_the_free_space_is_refused_naming_both() {
        let dir = std::env::temp_dir();
        let free = available(&dir).expect("statvfs of the temporary folder");
        let fits = Output {
            what: "--out a.npy",
            place: &dir.join("not/yet/there"),
            needed: 1,
        };
        check(&fits).unwrap();
        let too_large = Output {
            needed: free.saturating_add(1 << 40),
            ..fits
        };
        let Err(Failure::Other(msg)) = check(&too_large) else {
            panic!("an output past the free space was not refused");
        };
        assert!(
            msg.contains("--out a.npy needs") && msg.contains("bytes free"),
            "{msg}"
        );
    }
}
