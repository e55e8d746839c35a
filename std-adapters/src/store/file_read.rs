//! Reading a [`FileStore`](super::FileStore)'s open files: positional reads (`pread`), so
//! concurrent readers never share a file cursor, and what a failed open or read means (a
//! missing key, something other than a file, an I/O error).

use std::fs::File;
use std::io::ErrorKind;
use std::path::Path;

use super::{Halt, StoreError};

pub(super) fn not_a_file(key: &str, m: &std::fs::Metadata) -> StoreError {
    StoreError::NotAFile {
        key: key.to_owned(),
        directory: m.is_dir(),
    }
}

/// Why `path` (the file of `key`) could not be opened or read: missing, not a file (a directory
/// opens on Unix but fails to read; on Windows it fails to open), or the I/O error itself.
pub(super) fn failed(key: &str, path: &Path, e: std::io::Error) -> StoreError {
    if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) {
        return StoreError::Missing;
    }
    match std::fs::metadata(path) {
        Ok(m) if !m.is_file() => not_a_file(key, &m),
        _ => StoreError::Io(e),
    }
}

/// [`Store::read_blocks`] from `file`, open already (the object `key` at `path`).
pub(super) fn blocks_of(
    (key, path, file): (&str, &Path, &File),
    offset: u64,
    len: u64,
    buf: &mut [u8],
    each: &mut dyn FnMut(&[u8]) -> Result<(), Halt>,
) -> Result<(), Halt> {
    let mut at = 0u64;
    while at < len {
        let block = super::next_block(buf, len - at)?;
        read_at(key, path, file, offset + at, block)?;
        each(block)?;
        at += block.len() as u64;
    }
    Ok(())
}

/// Fills `dst` from `file` (the object `key` at `path`) at `offset`.
pub(super) fn read_at(
    key: &str,
    path: &Path,
    file: &File,
    offset: u64,
    dst: &mut [u8],
) -> Result<(), StoreError> {
    match read_exact_at(file, dst, offset) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == ErrorKind::UnexpectedEof => {
            let len = file.metadata().map_err(|e| failed(key, path, e))?.len();
            Err(StoreError::ShortRead {
                offset,
                wanted: dst.len() as u64,
                len,
            })
        }
        Err(e) => Err(failed(key, path, e)),
    }
}

#[cfg(unix)]
fn read_exact_at(file: &File, dst: &mut [u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, dst, offset)
}

#[cfg(windows)]
fn read_exact_at(file: &File, mut dst: &mut [u8], mut offset: u64) -> std::io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !dst.is_empty() {
        match file.seek_read(dst, offset) {
            Ok(0) => return Err(ErrorKind::UnexpectedEof.into()),
            Ok(n) => {
                dst = &mut dst[n..];
                offset += n as u64;
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}
