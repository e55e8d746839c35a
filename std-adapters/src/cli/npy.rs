//! NumPy `.npy` files: a header (magic, version, a Python dict of dtype, order and shape), then
//! the data in C order. `np.load(f)` and `np.load(f, mmap_mode="r")` read what this writes.

use std::io::Write;

/// The header for an array of NumPy type `descr` (`"<f4"`) and `shape`, C order. Version 1.0
/// unless the dict is longer than 65 535 bytes (version 2.0). Padded with spaces and ended with
/// a newline so that the data starts at a multiple of 64 bytes, as NumPy writes it.
pub fn header(descr: &str, shape: &[u64]) -> Result<Vec<u8>, String> {
    let dims: Vec<String> = shape.iter().map(u64::to_string).collect();
    let shape = match dims.as_slice() {
        [one] => format!("({one},)"),
        _ => format!("({})", dims.join(", ")),
    };
    let dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    // magic (6) + version (2) + length field (2 bytes in v1.0, 4 in v2.0) + dict + '\n',
    // padded to a multiple of 64.
    let padded = |prefix: usize| (prefix + dict.len() + 1).div_ceil(64) * 64;
    let mut out = Vec::with_capacity(padded(12));
    out.extend_from_slice(b"\x93NUMPY");
    let total = match u16::try_from(padded(10) - 10) {
        Ok(len) => {
            out.extend_from_slice(&[1, 0]);
            out.extend_from_slice(&len.to_le_bytes());
            padded(10)
        }
        Err(_) => {
            out.extend_from_slice(&[2, 0]);
            let len = u32::try_from(padded(12) - 12)
                .map_err(|_| format!("a .npy header of {} bytes", dict.len()))?;
            out.extend_from_slice(&len.to_le_bytes());
            padded(12)
        }
    };
    out.extend_from_slice(dict.as_bytes());
    out.resize(total - 1, b' ');
    out.push(b'\n');
    Ok(out)
}

/// Writes a `.npy` file: the header, then `data` (C order, the type `descr` names).
pub fn write(w: &mut impl Write, descr: &str, shape: &[u64], data: &[u8]) -> std::io::Result<()> {
    let header = header(descr, shape).map_err(std::io::Error::other)?;
    w.write_all(&header)?;
    w.write_all(data)
}

/// Variable-length values (UTF-8 strings, or bytes) as fixed-width NumPy elements: `<U n`
/// (UTF-32, native order) with n the most characters of any, or `|S n` with n the longest;
/// shorter values are zero-padded, as NumPy pads. Returns the type string and the bytes.
pub fn fixed_width(values: &crate::VlenData, utf8: bool) -> Result<(String, Vec<u8>), String> {
    let width = |item: &[u8]| -> usize {
        if utf8 {
            std::str::from_utf8(item).map_or(0, |s| s.chars().count())
        } else {
            item.len()
        }
    };
    // NumPy has no zero-width string type: the narrowest is one unit.
    let n = values.iter().map(width).max().unwrap_or(0).max(1);
    let unit = if utf8 { 4 } else { 1 };
    let total = n
        .checked_mul(unit)
        .and_then(|w| w.checked_mul(values.len()))
        .ok_or("the fixed-width strings overflow the address space")?;
    let mut out = crate::zeroed_buffer(total)
        .ok_or_else(|| format!("cannot allocate {total} bytes for fixed-width strings"))?;
    for (item, slot) in values.iter().zip(out.chunks_exact_mut(n * unit)) {
        if utf8 {
            let s = std::str::from_utf8(item).map_err(|e| format!("a string is not UTF-8: {e}"))?;
            for (c, dst) in s.chars().zip(slot.chunks_exact_mut(4)) {
                dst.copy_from_slice(&u32::from(c).to_ne_bytes());
            }
        } else {
            slot[..item.len()].copy_from_slice(item);
        }
    }
    let width = u32::try_from(n).map_err(|_| format!("strings of {n} units are too wide"))?;
    let ty = if utf8 {
        crate::DataType::FixedUtf32 { chars: width }
    } else {
        crate::DataType::FixedBytes { len: width }
    };
    let descr = ty
        .numpy_str()
        .ok_or("a fixed-width string type has a type string")?;
    Ok((descr, out))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::header;

    #[test]
    fn headers_are_aligned_and_end_in_a_newline() {
        for shape in [&[][..], &[5], &[190, 85], &[1, 2, 3, 4, 5, 6, 7, 8]] {
            let h = header("<f4", shape).unwrap();
            assert_eq!(h.len() % 64, 0, "{shape:?}");
            assert_eq!(&h[..8], b"\x93NUMPY\x01\x00");
            let len = u16::from_le_bytes([h[8], h[9]]) as usize;
            assert_eq!(10 + len, h.len());
            assert_eq!(h.last(), Some(&b'\n'));
        }
        let h = header("<f4", &[5]).unwrap();
        assert!(String::from_utf8_lossy(&h).contains("'shape': (5,), }"));
        let h = header("|b1", &[]).unwrap();
        assert!(String::from_utf8_lossy(&h).contains("'shape': (), }"));
    }
}
