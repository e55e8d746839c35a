//! Segment file headers (`.npy`, msgpack-numpy): any bytes, read as a whole file.

use zinto::core::formats::{SegmentHeader, msgpack_numpy, npy};

use crate::alloc::with_cap;

/// `[format, file...]`: `file` read as a `.npy` (even `format`) or msgpack-numpy file, without
/// allocating. A header it reports places the data inside the file, up to its end, of the
/// size its shape and type make, after at most `MAX_HEADER_LEN` and a few bytes of header.
pub fn segment_header(data: &[u8]) {
    let Some((&format, file)) = data.split_first() else {
        return;
    };
    let len = file.len() as u64;
    let parsed = with_cap(0, || {
        if format % 2 == 0 {
            npy::parse(file, len)
        } else {
            msgpack_numpy::parse(file, len)
        }
    });
    if let Ok(h) = parsed {
        check(&h, len);
    }
}

fn check(h: &SegmentHeader, file_len: u64) {
    assert_eq!(
        h.data_offset + h.data_len,
        file_len,
        "the data does not end the file"
    );
    assert!(
        h.data_offset <= zinto::core::formats::MAX_HEADER_LEN as u64 + 16,
        "a header longer than allowed"
    );
    let elements: u64 = h.shape.as_slice().iter().product();
    assert_eq!(
        elements * h.dtype.size() as u64,
        h.data_len,
        "data other than the shape makes"
    );
    assert!(
        matches!(h.dtype.size(), 1 | 2 | 4 | 8),
        "a size no number has"
    );
}
