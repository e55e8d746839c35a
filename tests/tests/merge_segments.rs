//! `.npy` and msgpack-numpy segments merged (`ConcatPlan::segments`), against what NumPy and
//! msgpack-numpy wrote (tests/fixtures/generate_segments.py): the rows stacked as
//! `np.concatenate` stacks them, sorted as `np.argsort(kind="stable")` orders them; segments
//! that disagree, Fortran order, other types and hostile headers refused by name.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a panic is a failed test

use std::path::{Path, PathBuf};

use zinto::core::codec::Endian;
use zinto::core::dtype::Number;
use zinto::core::formats::{FormatError, npy};
use zinto::core::records::{KeyType, RecordLayout, sort_records_by_key_stable};
use zinto::{ConcatPlan, ErrorKind, FileStore, MemoryStore, ReadOptions, SegmentFormat};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/segments")
}

/// The data of a `.npy` file NumPy wrote.
fn npy_data(path: &Path) -> Vec<u8> {
    let file = std::fs::read(path).unwrap();
    let h = npy::parse(&file, file.len() as u64).unwrap();
    file[h.data_offset as usize..].to_vec()
}

fn keys(sub: &str, ext: &str) -> Vec<String> {
    (0..4).map(|i| format!("{sub}/segm-{i}.{ext}")).collect()
}

#[test]
fn segments_merge_and_sort_as_numpy_does() {
    let store = FileStore::new(dir());
    let expected = npy_data(&dir().join("expected_by_col1.npy"));
    for (sub, ext, format) in [
        ("npy", "npy", SegmentFormat::Npy),
        ("msgpack", "msgpack", SegmentFormat::MsgpackNumpy),
    ] {
        let (plan, held) = ConcatPlan::segments(&store, &keys(sub, ext), format).unwrap();
        let held = held.unwrap();
        assert_eq!(held.dtype.to_string(), "<f8");
        assert_eq!((held.rows, held.columns, held.row_len()), (121, 3, 24));
        assert_eq!(held.shape(), [121, 3]);
        let mut out = plan.read_to_vec(&store, &ReadOptions::default()).unwrap();
        // Column 1, as `--key col=1` sorts it.
        let layout = RecordLayout::new(24, 8, KeyType::F64, Endian::Little).unwrap();
        let mut scratch = vec![0u8; out.len()];
        sort_records_by_key_stable(&mut out, &layout, &mut scratch).unwrap();
        assert!(
            out == expected,
            "{sub}: not what NumPy's stable argsort gives"
        );
    }
}

#[test]
fn every_npy_version_and_byte_order_reads() {
    let store = FileStore::new(dir().join("odd"));
    let small = npy_data(&dir().join("odd/small.npy"));
    for v in ["v2.npy", "v3.npy"] {
        let (plan, held) = ConcatPlan::segments(&store, &[v], SegmentFormat::Npy).unwrap();
        assert_eq!(held.unwrap().shape(), [4, 3], "{v}");
        assert_eq!(
            plan.read_to_vec(&store, &ReadOptions::default()).unwrap(),
            small,
            "{v}"
        );
    }
    let (plan, held) =
        ConcatPlan::segments(&store, &["big_endian.npy"], SegmentFormat::Npy).unwrap();
    let held = held.unwrap();
    assert!(held.dtype.big_endian && held.dtype.number == Number::Float64);
    let be = plan.read_to_vec(&store, &ReadOptions::default()).unwrap();
    let swapped: Vec<u8> = be.chunks(8).flat_map(|c| c.iter().rev().copied()).collect();
    assert_eq!(swapped, small);
    let (_, held) = ConcatPlan::segments(&store, &["one_d.npy"], SegmentFormat::Npy).unwrap();
    let held = held.unwrap();
    assert_eq!((held.shape(), held.columns), (vec![10], 1));
}

#[test]
fn segments_that_disagree_or_cannot_be_merged_are_named() {
    let store = FileStore::new(dir().join("odd"));
    let e =
        ConcatPlan::segments(&store, &["small.npy", "int32.npy"], SegmentFormat::Npy).unwrap_err();
    assert_eq!(e.key(), Some("int32.npy"));
    assert!(
        matches!(e.kind(), ErrorKind::SegmentsDisagree { .. }),
        "{e}"
    );
    let msg = e.to_string();
    assert!(
        msg.contains("<i4") && msg.contains("<f8") && msg.contains("small.npy"),
        "{msg}"
    );
    let e =
        ConcatPlan::segments(&store, &["small.npy", "one_d.npy"], SegmentFormat::Npy).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::SegmentsDisagree { .. }),
        "{e}"
    );
    let e = ConcatPlan::segments(&store, &["fortran.npy"], SegmentFormat::Npy).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::FortranOrder {
                rows: 5,
                columns: 3
            }
        ),
        "{e}"
    );
    for f in ["strings.npy", "structured.npy"] {
        let e = ConcatPlan::segments(&store, &[f], SegmentFormat::Npy).unwrap_err();
        assert!(
            matches!(
                e.kind(),
                ErrorKind::Segment(FormatError::UnsupportedType { .. })
            ),
            "{f}: {e}"
        );
        assert_eq!(e.key(), Some(f));
    }
    // A .npy read as msgpack-numpy, and the other way round.
    let e = ConcatPlan::segments(&store, &["small.npy"], SegmentFormat::MsgpackNumpy).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::Segment(FormatError::NotThisFormat { .. })
        ),
        "{e}"
    );
    let store = FileStore::new(dir());
    let e =
        ConcatPlan::segments(&store, &["msgpack/segm-0.msgpack"], SegmentFormat::Npy).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::Segment(FormatError::NotThisFormat { .. })
        ),
        "{e}"
    );
}

#[test]
fn truncated_and_lying_segments_are_errors_naming_the_file() {
    let good = std::fs::read(dir().join("npy/segm-0.npy")).unwrap();
    let packed = std::fs::read(dir().join("msgpack/segm-0.msgpack")).unwrap();
    let mut store = MemoryStore::new();
    store.insert("short.npy", &good[..good.len() - 8]);
    store.insert("long.npy", [&good[..], &[0u8; 8]].concat());
    store.insert("header.npy", &good[..40]);
    store.insert("short.msgpack", &packed[..packed.len() - 1]);
    for (key, format) in [
        ("short.npy", SegmentFormat::Npy),
        ("long.npy", SegmentFormat::Npy),
        ("short.msgpack", SegmentFormat::MsgpackNumpy),
    ] {
        let e = ConcatPlan::segments(&store, &[key], format).unwrap_err();
        assert_eq!(e.key(), Some(key));
        assert!(
            matches!(e.kind(), ErrorKind::Segment(FormatError::DataSize { .. })),
            "{key}: {e}"
        );
    }
    let e = ConcatPlan::segments(&store, &["header.npy"], SegmentFormat::Npy).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::Segment(FormatError::Truncated)),
        "{e}"
    );
    // A header declaring terabytes: refused from the header, nothing allocated for it.
    let mut huge = good.clone();
    let at = huge.windows(7).position(|w| w == b"(50, 3)").unwrap();
    huge[at..at + 7].copy_from_slice(b"(9e9,3)");
    store.insert("huge.npy", huge);
    let e = ConcatPlan::segments(&store, &["huge.npy"], SegmentFormat::Npy).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::Segment(FormatError::Malformed { .. })),
        "{e}"
    );
}
