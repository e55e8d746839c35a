//! `Array::read_many_into`: a batch of windows read into one stacked buffer is what reading
//! each alone gives, whatever the worker count; a batch that cannot be laid out is refused
//! before anything is read; a failing selection names its chunk.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a panic is a failed test

use std::num::NonZeroUsize;
use std::sync::atomic::AtomicBool;

use zinto::{Array, ArrayBuilder, DataType, ErrorKind, MemoryStore, ReadOptions, Region};

/// A (60, 50) float32 array in (10, 10) chunks, element (r, c) = r * 50 + c; zstd where this
/// build writes it.
fn array() -> Array<MemoryStore> {
    let mut builder = ArrayBuilder::new(&[60, 50], DataType::Float32, &[10, 10]);
    if zinto_tests::build_writes("zstd") {
        builder = builder.zstd(1);
    }
    let array = builder.create(MemoryStore::new(), "a").unwrap();
    let values: Vec<u8> = (0..3000u32)
        .flat_map(|i| (i as f32).to_ne_bytes())
        .collect();
    array
        .write_from(&Region::whole(&[60, 50]).unwrap(), &values)
        .unwrap();
    array
}

fn threads(n: usize) -> ReadOptions<'static> {
    ReadOptions {
        threads: NonZeroUsize::new(n),
        ..ReadOptions::default()
    }
}

#[test]
fn a_batch_is_each_window_read_alone_stacked() {
    let array = array();
    // Aligned, cutting four chunks, at the far edges, one element, one row.
    let windows: Vec<Region> = [[0, 0], [5, 5], [50, 40], [13, 27], [45, 0], [0, 35]]
        .iter()
        .map(|s| Region::new(s, &[10, 10]).unwrap())
        .collect();
    let want: Vec<u8> = windows
        .iter()
        .flat_map(|w| array.read_to_vec(w).unwrap())
        .collect();
    for n in [1, 2, 3, 8] {
        let mut out = vec![0u8; want.len()];
        array
            .read_many_into(&windows, &mut out, &threads(n))
            .unwrap();
        assert!(out == want, "{n} threads");
    }
    // The batch's elements are the array's: window [5, 5]'s first element is 5 * 50 + 5.
    let second = f32::from_ne_bytes(want[400..404].try_into().unwrap());
    assert_eq!(second, 255.0);
    let mut none: [u8; 0] = [];
    array
        .read_many_into(&[], &mut none, &ReadOptions::default())
        .unwrap();
}

#[test]
fn a_batch_that_cannot_be_laid_out_is_refused_before_any_read() {
    let array = array();
    let a = Region::new(&[0, 0], &[10, 10]).unwrap();
    let b = Region::new(&[0, 0], &[10, 9]).unwrap();
    let mut out = vec![7u8; 800];
    let e = array
        .read_many_into(&[a.clone(), b], &mut out, &ReadOptions::default())
        .unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::SelectionsDiffer { index: 1, .. }),
        "{e}"
    );
    let e = array
        .read_many_into(
            &[a.clone(), a.clone()],
            &mut out[..799],
            &ReadOptions::default(),
        )
        .unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::OutputSize {
                expected: 800,
                got: 799
            }
        ),
        "{e}"
    );
    let outside = Region::new(&[55, 0], &[10, 10]).unwrap();
    let e = array
        .read_many_into(&[a, outside], &mut out, &ReadOptions::default())
        .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Layout(_)), "{e}");
    assert!(
        out.iter().all(|&b| b == 7),
        "refused batches wrote into the output"
    );
}

#[test]
fn a_failing_window_names_its_chunk_and_a_cancelled_batch_stops() {
    let mut store = array().store().clone();
    store.insert("a/c/3/2", vec![1, 2, 3]);
    let array = Array::open(store, "a").unwrap();
    let windows = [
        Region::new(&[0, 0], &[10, 10]).unwrap(),
        Region::new(&[30, 20], &[10, 10]).unwrap(),
    ];
    let mut out = vec![0u8; 800];
    let e = array
        .read_many_into(&windows, &mut out, &threads(2))
        .unwrap_err();
    assert!(e.to_string().contains("a/c/3/2"), "{e}");
    let cancel = AtomicBool::new(true);
    let options = ReadOptions {
        cancel: Some(&cancel),
        ..ReadOptions::default()
    };
    let e = array
        .read_many_into(&windows[..1], &mut out[..400], &options)
        .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Cancelled), "{e}");
}
