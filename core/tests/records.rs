//! Record sorts against a reference: the output is a permutation of the input, keys are in
//! order, and the stable sort equals the standard library's stable sort with a comparator
//! written independently from the spec (numbers by value, -0.0 before +0.0, then NaNs with
//! the sign clear, then NaNs with it set, each by bit pattern).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![allow(clippy::cast_possible_truncation)] // key bits are narrowed on purpose

use std::cmp::Ordering;

use proptest::prelude::*;
use zinto_core::codec::Endian;
use zinto_core::records::{
    KeyType, RecordError, RecordLayout, partition_prepared, prepare_keys, prepared_key,
    restore_keys, sort_records_by_key, sort_records_by_key_stable, sort_rows_by_column,
};

/// Interesting key values for each type, as raw bits (low `width` bytes used).
fn pool(t: KeyType) -> Vec<u64> {
    match t {
        KeyType::F32 => [
            0.0f32,
            -0.0,
            1.5,
            -1.5,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            -f32::NAN,
            3.25e-40,
            1e30,
        ]
        .iter()
        .map(|v| u64::from(v.to_bits()))
        .collect(),
        KeyType::F64 => [
            0.0f64,
            -0.0,
            1.5,
            -1.5,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            -f64::NAN,
            5e-310,
            1e300,
        ]
        .iter()
        .map(|v| v.to_bits())
        .collect(),
        KeyType::I32 => [0i32, -1, 1, i32::MIN, i32::MAX, 7]
            .iter()
            .map(|v| u64::from(v.cast_unsigned()))
            .collect(),
        KeyType::I64 => [0i64, -1, 1, i64::MIN, i64::MAX, 7]
            .iter()
            .map(|v| v.cast_unsigned())
            .collect(),
        KeyType::U32 => [0u32, 1, u32::MAX, 1 << 31, 7]
            .iter()
            .map(|&v| u64::from(v))
            .collect(),
        KeyType::U64 => [0u64, 1, u64::MAX, 1 << 63, 7].to_vec(),
    }
}

/// The reference comparator, from the key's value. The `records_sort` fuzz harness
/// (`tests/src/harness/records.rs`) keeps a copy: change them together.
fn compare(t: KeyType, a: u64, b: u64) -> Ordering {
    // Floats widened to f64 keep NaN-ness and sign; `bits` break ties between NaNs.
    let float = |x: f64, y: f64| -> Ordering {
        match (x.is_nan(), y.is_nan()) {
            (true, true) => x
                .is_sign_negative()
                .cmp(&y.is_sign_negative())
                .then(a.cmp(&b)),
            (true, false) => Ordering::Greater,
            (false, true) => Ordering::Less,
            _ => x
                .partial_cmp(&y)
                .unwrap()
                .then(y.is_sign_negative().cmp(&x.is_sign_negative())),
        }
    };
    match t {
        KeyType::F32 => float(
            f64::from(f32::from_bits(a as u32)),
            f64::from(f32::from_bits(b as u32)),
        ),
        KeyType::F64 => float(f64::from_bits(a), f64::from_bits(b)),
        KeyType::I32 => (a as u32 as i32).cmp(&(b as u32 as i32)),
        KeyType::I64 => (a as i64).cmp(&(b as i64)),
        KeyType::U32 | KeyType::U64 => a.cmp(&b),
    }
}

fn read_key(layout: &RecordLayout, record: &[u8]) -> u64 {
    let w = layout.key_type().width();
    let mut raw = [0u8; 8];
    let field = &record[layout.key_offset()..layout.key_offset() + w];
    match layout.endian() {
        Endian::Little => raw[..w].copy_from_slice(field),
        Endian::Big => {
            raw[..w].copy_from_slice(field);
            raw[..w].reverse();
        }
    }
    u64::from_le_bytes(raw)
}

fn write_key(layout: &RecordLayout, record: &mut [u8], bits: u64) {
    let w = layout.key_type().width();
    let mut raw = bits.to_le_bytes();
    if layout.endian() == Endian::Big {
        raw[..w].reverse();
    }
    record[layout.key_offset()..layout.key_offset() + w].copy_from_slice(&raw[..w]);
}

#[derive(Debug, Clone)]
struct Case {
    layout: RecordLayout,
    bytes: Vec<u8>,
    scratch_records: usize,
}

fn case() -> impl Strategy<Value = Case> {
    (
        0usize..6,
        0usize..2,
        4usize..=70,
        any::<u64>(),
        0usize..400,
        0usize..5,
    )
        .prop_flat_map(|(t, e, size, offset_seed, n, scratch)| {
            let t = KeyType::ALL[t];
            let size = size.max(t.width());
            let offset = (offset_seed as usize) % (size - t.width() + 1);
            let endian = if e == 0 { Endian::Little } else { Endian::Big };
            let layout = RecordLayout::new(size, offset, t, endian).unwrap();
            let keys = pool(t);
            (
                Just(layout),
                proptest::collection::vec((0..keys.len(), any::<u8>()), n),
                Just(keys),
                Just([0usize, 1, 3, 50, 1000][scratch]),
            )
        })
        .prop_map(|(layout, picks, keys, scratch_records)| {
            let size = layout.record_size();
            let mut bytes = vec![0u8; picks.len() * size];
            for (i, (k, fill)) in picks.iter().enumerate() {
                let record = &mut bytes[i * size..(i + 1) * size];
                // Distinct payload per record (its index) so stability is observable.
                for (j, b) in record.iter_mut().enumerate() {
                    *b = fill.wrapping_add((i >> (8 * (j % 4))) as u8);
                }
                write_key(&layout, record, keys[*k]);
            }
            Case {
                layout,
                bytes,
                scratch_records,
            }
        })
}

fn records(bytes: &[u8], size: usize) -> Vec<Vec<u8>> {
    bytes.chunks(size).map(<[u8]>::to_vec).collect()
}

fn reference_stable(case: &Case) -> Vec<u8> {
    let mut recs = records(&case.bytes, case.layout.record_size());
    let t = case.layout.key_type();
    recs.sort_by(|a, b| compare(t, read_key(&case.layout, a), read_key(&case.layout, b)));
    recs.concat()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn unstable_sort_is_an_ordered_permutation(case in case()) {
        let size = case.layout.record_size();
        let t = case.layout.key_type();
        let mut sorted = case.bytes.clone();
        sort_records_by_key(&mut sorted, &case.layout).unwrap();
        for pair in sorted.chunks(size).collect::<Vec<_>>().windows(2) {
            let (a, b) = (read_key(&case.layout, pair[0]), read_key(&case.layout, pair[1]));
            prop_assert_ne!(compare(t, a, b), Ordering::Greater, "keys {:#x} then {:#x}", a, b);
        }
        let mut before = records(&case.bytes, size);
        let mut after = records(&sorted, size);
        before.sort();
        after.sort();
        prop_assert_eq!(before, after);
    }

    #[test]
    fn stable_sort_equals_the_reference(case in case()) {
        let mut sorted = case.bytes.clone();
        let mut scratch = vec![0u8; case.scratch_records * case.layout.record_size() + 3];
        sort_records_by_key_stable(&mut sorted, &case.layout, &mut scratch).unwrap();
        prop_assert_eq!(sorted, reference_stable(&case));
    }

    #[test]
    fn partition_splits_around_the_pivot(case in case(), pick in any::<prop::sample::Index>()) {
        let size = case.layout.record_size();
        let n = case.bytes.len() / size;
        prop_assume!(n > 0);
        let mut v = case.bytes.clone();
        prepare_keys(&mut v, &case.layout).unwrap();
        let pivot = prepared_key(&v[pick.index(n) * size..][..size], &case.layout).unwrap();
        let split = partition_prepared(&mut v, &case.layout, pivot).unwrap();
        for (i, r) in v.chunks(size).enumerate() {
            prop_assert_eq!(prepared_key(r, &case.layout).unwrap() < pivot, i < split);
        }
        restore_keys(&mut v, &case.layout).unwrap();
        let (mut a, mut b) = (records(&case.bytes, size), records(&v, size));
        a.sort();
        b.sort();
        prop_assert_eq!(a, b);
    }
}

#[test]
fn presorted_runs_merge_stably_with_little_scratch() {
    // 40 sorted runs of 2,500 records (u32 key, u32 tag): the concatenated-chunks case.
    let layout = RecordLayout::new(8, 0, KeyType::U32, Endian::Little).unwrap();
    let mut bytes = Vec::new();
    for run in 0u32..40 {
        for i in 0u32..2_500 {
            let key = (i * 7 + run) % 10_000;
            bytes.extend(key.to_le_bytes());
            bytes.extend((run * 10_000 + i).to_le_bytes());
        }
    }
    let mut keyed: Vec<[u8; 8]> = bytes.chunks(8).map(|c| c.try_into().unwrap()).collect();
    keyed.sort_by_key(|r| u32::from_le_bytes(r[..4].try_into().unwrap()));
    for scratch_len in [0usize, 64, 8 * 1024] {
        let mut v = bytes.clone();
        let mut scratch = vec![0u8; scratch_len];
        sort_records_by_key_stable(&mut v, &layout, &mut scratch).unwrap();
        assert_eq!(v, keyed.concat(), "scratch {scratch_len}");
    }
}

#[test]
fn refusals_name_the_numbers() {
    assert_eq!(
        RecordLayout::new(0, 0, KeyType::U32, Endian::Little),
        Err(RecordError::ZeroRecordSize)
    );
    let e = RecordLayout::new(12, 8, KeyType::F64, Endian::Little).unwrap_err();
    assert_eq!(
        e,
        RecordError::KeyOutsideRecord {
            key_offset: 8,
            key_width: 8,
            record_size: 12
        }
    );
    assert_eq!(
        e.to_string(),
        "a 8-byte key at offset 8 does not fit in a 12-byte record"
    );
    assert!(RecordLayout::new(8, usize::MAX, KeyType::U32, Endian::Little).is_err());
    let layout = RecordLayout::new(24, 8, KeyType::F64, Endian::Little).unwrap();
    let mut odd = vec![0u8; 25];
    assert_eq!(
        sort_records_by_key(&mut odd, &layout),
        Err(RecordError::PartialRecord {
            len: 25,
            record_size: 24
        })
    );
    assert!(sort_records_by_key_stable(&mut odd, &layout, &mut []).is_err());
    assert!(partition_prepared(&mut odd, &layout, 0).is_err());
    assert!(prepare_keys(&mut odd, &layout).is_err());
    let mut rows = [[1u32, 2], [0, 1]];
    assert_eq!(
        sort_rows_by_column(&mut rows, 2),
        Err(RecordError::NoSuchColumn {
            column: 2,
            columns: 2
        })
    );
}

#[test]
fn key_of_a_slice_that_is_not_one_record_is_an_error_not_zero() {
    // Used to read as key 0 (too short) or as the first record's key (too long).
    let layout = RecordLayout::new(8, 4, KeyType::U32, Endian::Little).unwrap();
    let record = [0u8, 0, 0, 0, 7, 0, 0, 0];
    assert_eq!(layout.order_key(&record), Ok(7));
    assert_eq!(prepared_key(&record, &layout), Ok(7));
    for len in [0, 3, 7, 9, 16] {
        let slice = vec![0xffu8; len];
        let refused = Err(RecordError::NotOneRecord {
            len,
            record_size: 8,
        });
        assert_eq!(layout.order_key(&slice), refused, "order_key, {len} bytes");
        assert_eq!(
            prepared_key(&slice, &layout),
            refused,
            "prepared_key, {len} bytes"
        );
    }
    assert_eq!(
        RecordError::NotOneRecord {
            len: 3,
            record_size: 8
        }
        .to_string(),
        "a 3-byte slice is not one 8-byte record"
    );
    assert_eq!(
        RecordError::Internal { what: "x" }.to_string(),
        "an invariant of the sort did not hold: x; a bug"
    );
}

#[test]
fn typed_rows_match_the_byte_sort() {
    let mut rows: Vec<[f64; 3]> = (0..1000)
        .map(|i| {
            let x = f64::from((i * 7919) % 1000) - 500.0;
            [f64::from(i), if i % 97 == 0 { f64::NAN } else { x }, 1.0]
        })
        .collect();
    let mut bytes: Vec<u8> = rows
        .iter()
        .flatten()
        .flat_map(|v| v.to_ne_bytes())
        .collect();
    sort_rows_by_column(&mut rows, 1).unwrap();
    let layout = RecordLayout::new(24, 8, KeyType::F64, Endian::NATIVE).unwrap();
    sort_records_by_key(&mut bytes, &layout).unwrap();
    let keys = |it: &mut dyn Iterator<Item = f64>| it.map(f64::to_bits).collect::<Vec<_>>();
    let from_rows = keys(&mut rows.iter().map(|r| r[1]));
    let from_bytes = keys(
        &mut bytes
            .chunks(24)
            .map(|r| f64::from_ne_bytes(r[8..16].try_into().unwrap())),
    );
    assert_eq!(from_rows, from_bytes);
    assert!(f64::from_bits(*from_rows.last().unwrap()).is_nan());
}
