//! Record sorts on hostile layouts and keys.

use std::cmp::Ordering;

use zinto::core::codec::Endian;
use zinto::core::records::{
    KeyType, RecordLayout, sort_records_by_key, sort_records_by_key_stable,
};

use super::input::Input;
use crate::alloc::with_cap;

/// `[size, offset, type, endian, scratch, records...]`: any layout (invalid ones refused) over
/// any bytes (a partial record refused). The unstable sort yields the same records with keys
/// in order; the stable sort, given `scratch` records of scratch, equals the standard
/// library's stable sort with `compare`, a comparator written from the key order's spec,
/// not zinto's own `order_key` (which the sorts use: checking them against it would pass
/// whatever order it defined). Neither allocates.
pub fn records_sort(data: &[u8]) {
    let mut input = Input::new(data);
    let size = usize::from(input.u8() % 72);
    let offset = usize::from(input.u8() % 72);
    let key_type = KeyType::ALL[usize::from(input.u8() % 6)];
    let endian = if input.u8() & 1 == 0 {
        Endian::Little
    } else {
        Endian::Big
    };
    let scratch_records = usize::from(input.u8() % 8);
    let bytes = input.rest();
    let Ok(layout) = RecordLayout::new(size, offset, key_type, endian) else {
        return;
    };
    let whole = bytes.len() - bytes.len() % size;
    let mut partial = bytes.to_vec();
    if whole != bytes.len() {
        assert!(with_cap(0, || sort_records_by_key(&mut partial, &layout)).is_err());
        assert!(partial == bytes, "a refused buffer was changed");
    }
    let bytes = &bytes[..whole];
    let order = |a: &[u8], b: &[u8]| compare(key_type, read_key(&layout, a), read_key(&layout, b));

    let mut expected: Vec<&[u8]> = bytes.chunks(size).collect();
    expected.sort_by(|a, b| order(a, b));
    let expected = expected.concat();

    let mut unstable = bytes.to_vec();
    with_cap(0, || sort_records_by_key(&mut unstable, &layout)).expect("whole records");
    let records: Vec<&[u8]> = unstable.chunks(size).collect();
    assert!(
        records
            .windows(2)
            .all(|w| order(w[0], w[1]) != Ordering::Greater),
        "keys out of order"
    );
    let mut a = records;
    let mut b: Vec<&[u8]> = expected.chunks(size).collect();
    a.sort_unstable();
    b.sort_unstable();
    assert!(a == b, "the sort lost or changed records");

    let mut stable = bytes.to_vec();
    let mut scratch = vec![0u8; scratch_records * size];
    with_cap(0, || {
        sort_records_by_key_stable(&mut stable, &layout, &mut scratch)
    })
    .expect("whole records");
    assert!(
        stable == expected,
        "the stable sort differs from a stable reference"
    );
}

/// The key of `record` as raw bits (the low `width` bytes), read without zinto's help.
fn read_key(layout: &RecordLayout, record: &[u8]) -> u64 {
    let w = layout.key_type().width();
    let mut raw = [0u8; 8];
    raw[..w].copy_from_slice(&record[layout.key_offset()..layout.key_offset() + w]);
    if layout.endian() == Endian::Big {
        raw[..w].reverse();
    }
    u64::from_le_bytes(raw)
}

/// The reference order, from the keys' values: integers by value; floats by value with -0.0
/// before +0.0, then NaNs with the sign clear, then NaNs with it set, each by bit pattern.
///
/// A copy of `compare` in `core/tests/records.rs`: that file cannot be imported from here and
/// core's tests cannot depend on this crate, so the small comparator is kept in both (change
/// them together).
fn compare(t: KeyType, a: u64, b: u64) -> Ordering {
    // Floats widened to f64 keep NaN-ness and sign; `a` and `b` (bits) break ties between NaNs.
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
                .expect("neither is NaN")
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
