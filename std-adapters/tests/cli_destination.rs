//! The write side of the `zinto` command does not trust its destination (issue 61): a convert
//! never overwrites its own source, writes never follow a link out of the destination, and a
//! folder holding the user's files is not written over without `--overwrite` (which then
//! removes only what zarr reads as the array's).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a panic is a failed test

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn zinto(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zinto"))
        .args(args)
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A fresh folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("zinto-dest-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A `.npy` file of a (64, 64) int32 array counting up, in `dir`.
fn npy(dir: &Path) -> PathBuf {
    let mut header = "{'descr': '<i4', 'fortran_order': False, 'shape': (64, 64), }".to_owned();
    while !(10 + header.len() + 1).is_multiple_of(64) {
        header.push(' ');
    }
    header.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend_from_slice(&u16::try_from(header.len()).unwrap().to_le_bytes());
    bytes.extend_from_slice(header.as_bytes());
    bytes.extend((0..64 * 64).flat_map(|i: i32| i.to_le_bytes()));
    let path = dir.join("a.npy");
    std::fs::write(&path, bytes).unwrap();
    path
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `zinto create` of the counting array into `dst`, chunks 16 x 16, zstd; its output.
fn create(src: &Path, dst: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["create", s(dst), "--from", s(src), "--chunks", "16,16"];
    args.extend_from_slice(&["--codec", "zstd"]);
    args.extend_from_slice(extra);
    zinto(&args)
}

/// The whole array at `dir`, as raw bytes (exit code checked).
fn read(dir: &Path) -> Vec<u8> {
    let out = zinto(&["read", s(dir), "--out", "-", "--format", "raw"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    out.stdout
}

fn counting() -> Vec<u8> {
    (0..64 * 64).flat_map(|i: i32| i.to_ne_bytes()).collect()
}

/// Every file below `dir`, relative, sorted.
fn files(dir: &Path) -> Vec<String> {
    let mut out = vec![];
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() && !p.is_symlink() {
                todo.push(p);
            } else {
                out.push(p.strip_prefix(dir).unwrap().display().to_string());
            }
        }
    }
    out.sort();
    out
}

/// `convert A A` (the case: rechunked smaller, a slab of 512 bytes) destroyed A; so
/// did every other spelling of A as the destination, through a link or `..`, and a destination
/// inside A or around it. Each is refused before anything is written, naming both, and A reads
/// as it did.
#[cfg(unix)]
#[test]
fn convert_never_writes_over_its_own_source() {
    let dir = scratch("itself");
    let a = dir.join("A");
    let out = create(&npy(&dir), &a, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    std::os::unix::fs::symlink(&a, dir.join("L")).unwrap();
    let before = files(&a);
    let cases = [
        (a.clone(), "is the source"),
        (dir.join("L"), "is the source"),
        (dir.join("L/../A"), "is the source"),
        (dir.join("A/./"), "is the source"),
        (dir.join("L/sub"), "lies inside the source"),
        (dir.join("A/new/deeper"), "lies inside the source"),
        (dir.clone(), "lies inside the destination"),
    ];
    for (dst, says) in &cases {
        let out = zinto(&[
            "convert",
            s(&a),
            s(dst),
            "--overwrite",
            "--chunks",
            "8,8",
            "--memory",
            "4096",
        ]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{}: {err}", dst.display());
        assert!(err.contains(says) && err.contains(s(dst)), "{err}");
        assert_eq!(files(&a), before, "{}: the source changed", dst.display());
        assert_eq!(read(&a), counting(), "{}", dst.display());
    }
    // Apart, the same command converts.
    let out = zinto(&["convert", s(&a), s(&dir.join("B")), "--chunks", "8,8"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(read(&dir.join("B")), counting());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A `--memory` too small for one slab was refused after the new array's metadata was written
/// over the destination: it is refused before, and the destination is left as it was.
#[test]
fn a_refused_convert_leaves_the_destination_untouched() {
    let dir = scratch("refused");
    let (a, b) = (dir.join("A"), dir.join("B"));
    assert_eq!(create(&npy(&dir), &a, &[]).status.code(), Some(0));
    assert_eq!(create(&npy(&dir), &b, &[]).status.code(), Some(0));
    let before = std::fs::read(b.join("zarr.json")).unwrap();
    let out = zinto(&[
        "convert",
        s(&a),
        s(&b),
        "--overwrite",
        "--chunks",
        "8,8",
        "--memory",
        "512",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert_eq!(std::fs::read(b.join("zarr.json")).unwrap(), before);
    assert_eq!(read(&b), counting());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A chunk folder of the destination that is a link to a folder elsewhere: create and convert
/// wrote the chunks there and exited 0. Refused now, naming the link, with nothing written
/// outside. A link that stays inside the destination is followed unless `--no-symlinks`.
#[cfg(unix)]
#[test]
fn writes_do_not_follow_links_out_of_the_destination() {
    let dir = scratch("links");
    let from = npy(&dir);
    let outside = dir.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    for verb in ["create", "convert"] {
        let d = dir.join(format!("D-{verb}"));
        std::fs::create_dir_all(&d).unwrap();
        std::os::unix::fs::symlink(&outside, d.join("c")).unwrap();
        let out = match verb {
            "create" => create(&from, &d, &["--overwrite"]),
            _ => {
                let src = dir.join("src");
                if !src.exists() {
                    assert_eq!(create(&from, &src, &[]).status.code(), Some(0));
                }
                zinto(&["convert", s(&src), s(&d), "--overwrite"])
            }
        };
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{verb}: {err}");
        assert!(
            err.contains("symbolic link") && err.contains(s(&d.join("c"))),
            "{verb}: {err}"
        );
        assert!(
            files(&outside).is_empty(),
            "{verb} wrote {:?}",
            files(&outside)
        );
    }
    // A link inside the destination to a folder inside it: followed, unless refused.
    let d = dir.join("inside");
    std::fs::create_dir_all(d.join("real")).unwrap();
    std::os::unix::fs::symlink(d.join("real"), d.join("c")).unwrap();
    let out = create(&from, &d, &["--overwrite"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(d.join("real/0/0").exists());
    assert_eq!(read(&d), counting());
    let out = zinto(&[
        "--no-symlinks",
        "create",
        s(&d),
        "--from",
        s(&from),
        "--chunks",
        "16,16",
        "--overwrite",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("symbolic link"),
        "{}",
        text(&out.stderr)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--no-symlinks` is refused where it would do nothing: merge (which reads the files it is
/// given as named) and a command that names only URLs.
#[test]
fn no_symlinks_is_refused_where_it_does_nothing() {
    for args in [
        &["--no-symlinks", "merge", "--record-size", "8", "a.bin"][..],
        &["--no-symlinks", "info", "s3://bucket/x.zarr"][..],
        &["--no-symlinks", "read", "https://example.com/x.zarr"][..],
    ] {
        let out = zinto(args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("--no-symlinks applies to"), "{err}");
    }
}

/// A folder holding the user's files (one of them at a chunk key, `c/0`): create replaced that
/// file without `--overwrite`. Refused now, naming what is there; with `--overwrite` the
/// user's other files stay, and only what zarr reads as the array's goes (the stale chunks of
/// the array that was there: a chunk all fill value, not written again, must not read old data).
#[test]
fn a_folder_of_the_users_files_is_kept() {
    let dir = scratch("users");
    let from = npy(&dir);
    let u = dir.join("U");
    std::fs::create_dir_all(u.join("c")).unwrap();
    std::fs::write(u.join("notes.txt"), b"mine").unwrap();
    std::fs::write(u.join("c/0"), b"also mine").unwrap();
    let out = create(&from, &u, &[]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("already holds c, notes.txt"), "{err}");
    assert_eq!(std::fs::read(u.join("c/0")).unwrap(), b"also mine");
    // c/0 is a file where the new array's folder c/0/ goes: not the array's, so not removed.
    let out = create(&from, &u, &["--overwrite"]);
    assert!(
        text(&out.stderr).contains("c/0 is a file"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(std::fs::read(u.join("c/0")).unwrap(), b"also mine");
    std::fs::remove_file(u.join("c/0")).unwrap();
    let out = create(&from, &u, &["--overwrite"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(read(&u), counting());
    // Over it, an array of fill values only (no chunk is written): the old chunks must go,
    // the user's file stays.
    let zeros = dir.join("zeros.npy");
    let mut bytes = std::fs::read(&from).unwrap();
    let data = bytes.len() - 64 * 64 * 4;
    bytes[data..].fill(0);
    std::fs::write(&zeros, bytes).unwrap();
    let out = create(&zeros, &u, &["--overwrite"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(read(&u), vec![0u8; 64 * 64 * 4]);
    assert_eq!(files(&u), ["notes.txt", "zarr.json"]);
    // An array there, without --overwrite: refused, naming its metadata.
    let out = create(&from, &u, &[]);
    assert!(
        text(&out.stderr).contains("zarr.json"),
        "{}",
        text(&out.stderr)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The same folder mounted a second time (`mount --bind`): no link and no `..` tell them
/// apart, only the file system (one device and inode). Mounting needs root, as CI has;
/// elsewhere the test says it did not run.
#[cfg(unix)]
#[test]
fn convert_sees_through_a_bind_mount() {
    let dir = scratch("bind");
    let a = dir.join("A");
    assert_eq!(create(&npy(&dir), &a, &[]).status.code(), Some(0));
    let again = dir.join("M");
    std::fs::create_dir_all(&again).unwrap();
    let mounted = Command::new("mount")
        .args(["--bind", s(&a), s(&again)])
        .output()
        .is_ok_and(|o| o.status.success());
    if !mounted {
        eprintln!("not run: mount --bind needs root");
        std::fs::remove_dir_all(&dir).unwrap();
        return;
    }
    let out = zinto(&[
        "convert",
        s(&a),
        s(&again),
        "--overwrite",
        "--chunks",
        "8,8",
    ]);
    let inside = zinto(&["convert", s(&a), s(&again.join("sub")), "--chunks", "8,8"]);
    let _ = Command::new("umount").arg(&again).status();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("is the source"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(inside.status.code(), Some(2), "{}", text(&inside.stderr));
    assert_eq!(read(&a), counting());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A group converted into a folder that holds the user's files: refused without --overwrite,
/// naming them; with it, written beside them.
#[test]
fn a_group_is_not_converted_over_the_users_files() {
    let dir = scratch("group");
    let weather = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/data/weather.zarr");
    let dst = dir.join("W");
    std::fs::create_dir_all(&dst).unwrap();
    std::fs::write(dst.join("notes.txt"), b"mine").unwrap();
    let out = zinto(&["convert", s(&weather), s(&dst)]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("holds notes.txt"), "{err}");
    assert_eq!(files(&dst), ["notes.txt"]);
    let out = zinto(&["convert", s(&weather), s(&dst), "--overwrite"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(std::fs::read(dst.join("notes.txt")).unwrap(), b"mine");
    assert!(dst.join("zarr.json").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}
