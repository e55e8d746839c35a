//! Outputs larger than the free space of their file system, on a 4 MiB tmpfs mounted by the
//! test: refused before anything is written (`read --out`, `create`, `convert`), naming the
//! bytes needed and free; with `--no-space-check`, written until the disk is full, then
//! failing with no partial file left behind. Mounting needs root (as CI runs); elsewhere the
//! test says it did not run.

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

/// A tmpfs of `size` mounted at a new folder, unmounted (and the folder removed) when dropped.
struct SmallDisk {
    at: PathBuf,
}

impl SmallDisk {
    /// `None` when not root (mounting is not allowed).
    fn mount(name: &str, size: &str) -> Option<Self> {
        let uid = Command::new("id").arg("-u").output().unwrap();
        if text(&uid.stdout).trim() != "0" {
            eprintln!("not run: mounting a tmpfs needs root");
            return None;
        }
        let at = std::env::temp_dir().join(format!("zinto-disk-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&at).unwrap();
        let options = format!("size={size}");
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &options, "tmpfs"])
            .arg(&at)
            .output()
            .unwrap();
        assert!(out.status.success(), "mount: {}", text(&out.stderr));
        Some(Self { at })
    }

    fn path(&self, name: &str) -> PathBuf {
        self.at.join(name)
    }

    /// Every file below the disk's root, relative to it.
    fn files(&self) -> Vec<String> {
        fn walk(dir: &Path, root: &Path, out: &mut Vec<String>) {
            for e in std::fs::read_dir(dir).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    walk(&p, root, out);
                } else {
                    out.push(p.strip_prefix(root).unwrap().display().to_string());
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.at, &self.at, &mut out);
        out.sort();
        out
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.at).status();
        let _ = std::fs::remove_dir(&self.at);
    }
}

/// An 8 MiB uncompressed float32 array (2048 x 1024) in a new folder outside the small disk.
fn big_array(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("zinto-big-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let raw = dir.join("values.bin");
    let values: Vec<u8> = (0..2048 * 1024u32)
        .flat_map(|i| ((i / 1024 % 7) as f32).to_ne_bytes())
        .collect();
    std::fs::write(&raw, values).unwrap();
    let array = dir.join("a.zarr");
    let out = create_from(&raw, &array);
    assert!(out.status.success(), "{}", text(&out.stderr));
    array
}

/// `zinto create DST` from the raw values `big_array` writes (2048 x 1024 float32, in rows of
/// 256 chunks), uncompressed.
fn create_from(raw: &Path, dst: &Path) -> Output {
    zinto(&[
        "create",
        dst.to_str().unwrap(),
        "--from",
        raw.to_str().unwrap(),
        "--dtype",
        "float32",
        "--shape",
        "2048,1024",
        "--chunks",
        "256,1024",
    ])
}

/// Refused: exit 1, naming the output, the bytes it needs and the bytes free.
fn assert_refused(out: &Output, what: &str) {
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{what}: {err}");
    assert!(
        err.contains("needs") && err.contains("bytes free") && err.contains("--no-space-check"),
        "{what}: {err}"
    );
}

#[test]
fn outputs_larger_than_the_disk_are_refused_before_anything_is_written() {
    let Some(disk) = SmallDisk::mount("refused", "4m") else {
        return;
    };
    let src = big_array("refused");
    let src = src.to_str().unwrap();
    let npy = disk.path("all.npy");
    let out = zinto(&["read", src, "--out", npy.to_str().unwrap()]);
    assert_refused(&out, "read --out");
    assert!(
        text(&out.stderr).contains("needs 8388736 bytes"),
        "{}",
        text(&out.stderr)
    );
    let copy = disk.path("copy.zarr");
    let out = zinto(&["convert", src, copy.to_str().unwrap(), "--codec", "raw"]);
    assert_refused(&out, "convert --codec raw");
    let raw = Path::new(src).parent().unwrap().join("values.bin");
    let out = create_from(&raw, &disk.path("created.zarr"));
    assert_refused(&out, "create");
    assert_eq!(disk.files(), Vec::<String>::new(), "something was written");
    // A selection that fits is written; a compressed array's size is not known before it is
    // written, so it is not refused (and this one, of smooth values, fits).
    let part = disk.path("part.npy");
    let out = zinto(&[
        "read",
        src,
        "--select",
        "0:256",
        "--out",
        part.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = zinto(&["convert", src, copy.to_str().unwrap(), "--codec", "zstd"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn writing_anyway_onto_a_full_disk_fails_and_leaves_no_partial_file() {
    let Some(disk) = SmallDisk::mount("full", "4m") else {
        return;
    };
    let src = big_array("full");
    let src = src.to_str().unwrap();
    let npy = disk.path("all.npy");
    let out = zinto(&[
        "read",
        src,
        "--out",
        npy.to_str().unwrap(),
        "--no-space-check",
    ]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("No space left on device"), "{err}");
    assert_eq!(disk.files(), Vec::<String>::new(), "read --out left {err}");
    let copy = disk.path("copy.zarr");
    let out = zinto(&[
        "convert",
        src,
        copy.to_str().unwrap(),
        "--codec",
        "raw",
        "--no-space-check",
    ]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("No space left on device"), "{err}");
    // Whole chunks and the metadata stay; no chunk is torn, no temporary file is left.
    let files = disk.files();
    assert!(
        files.contains(&"copy.zarr/zarr.json".to_owned()),
        "{files:?}"
    );
    for f in &files {
        assert!(
            !f.contains("zinto-partial"),
            "a temporary file is left: {files:?}"
        );
        if f != "copy.zarr/zarr.json" {
            let len = std::fs::metadata(disk.path(f)).unwrap().len();
            assert_eq!(len, 256 * 1024 * 4, "{f} is torn");
        }
    }
}
