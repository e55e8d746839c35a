//! Record sorts on hostile layouts and keys.

use zinto::core::codec::Endian;
use zinto::core::records::{
    KeyType, RecordLayout, sort_records_by_key, sort_records_by_key_stable,
};

use super::input::Input;
use crate::alloc::with_cap;

/// `[size, offset, type, endian, scratch, records...]`: any layout (invalid ones refused) over
/// any bytes (a partial record refused). The unstable sort yields the same records with keys
/// in order; the stable sort, given `scratch` records of scratch, equals the standard
/// library's stable sort by the same key. Neither allocates.
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

    let mut expected: Vec<&[u8]> = bytes.chunks(size).collect();
    expected.sort_by_key(|r| layout.order_key(r).expect("one record"));
    let expected = expected.concat();

    let mut unstable = bytes.to_vec();
    with_cap(0, || sort_records_by_key(&mut unstable, &layout)).expect("whole records");
    let keys: Vec<u64> = unstable
        .chunks(size)
        .map(|r| layout.order_key(r).expect("one record"))
        .collect();
    assert!(keys.windows(2).all(|w| w[0] <= w[1]), "keys out of order");
    let mut a: Vec<&[u8]> = unstable.chunks(size).collect();
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
