//! Copying an LZ77 match inside the output, shared by the LZ4 and BloscLZ decoders: a match
//! of `len` bytes starting `op - start` bytes back, which may overlap its own output (then it
//! repeats the last `op - start` bytes). Safe Rust, written so the optimiser drops the bounds
//! checks.

/// Copies `len` bytes from `dst[start..]` to `dst[op..]`, byte by byte in effect (a match
/// that overlaps its own output repeats the last `op - start` bytes). The caller has checked
/// `start < op` and `op + len <= dst.len()`.
#[inline]
pub(crate) fn copy_match(dst: &mut [u8], start: usize, op: usize, len: usize) {
    let distance = op - start;
    let end = op + len;
    if distance >= 16 {
        if len <= 16 {
            // One 16-byte chunk when it fits: source and destination do not overlap.
            let (head, tail) = dst.split_at_mut(op);
            if let (Some(from), Some(to)) = (
                head.get(start..).and_then(|h| h.first_chunk::<16>()),
                tail.first_chunk_mut::<16>(),
            ) {
                *to = *from;
                return;
            }
        }
        if distance >= len && len > 64 {
            // Long and not overlapping: one memmove.
            dst.copy_within(start..start + len, op);
        } else if distance >= 32 || len <= 32 {
            copy_chunks::<16>(dst, start, op, end);
        } else {
            repeat_period(dst, start, op, end);
        }
    } else if distance == 1 {
        // `start < op <= dst.len()`, checked by the caller (see above).
        let b = dst[start];
        if let Some(d) = dst.get_mut(op..end) {
            d.fill(b);
        }
    } else if len > 32 {
        repeat_period(dst, start, op, end);
    } else if distance >= 8 {
        copy_chunks::<8>(dst, start, op, end);
    } else {
        // A short match with a period of 2 to 7: write the pattern out to 16 bytes, then
        // copy 8-byte chunks from the largest multiple of the period at most 16 bytes back.
        let mut pattern = [0u8; 16];
        if let Some(period) = dst.get(start..op) {
            for (p, &b) in pattern.iter_mut().zip(period.iter().cycle()) {
                *p = b;
            }
        }
        if let Some(d) = dst.get_mut(op..).and_then(|d| d.first_chunk_mut::<16>()) {
            *d = pattern;
            let step = 16 / distance * distance;
            if len > step {
                copy_chunks::<8>(dst, op, op + step, end);
            }
        } else if let (Some(d), Some(p)) = (dst.get_mut(op..end), pattern.get(..len)) {
            // Near the end of `dst` (so `len < 16`): exactly `len` bytes.
            d.copy_from_slice(p);
        }
    }
}

/// Fills `dst[op..end]` with the period `dst[start..op]` (2 to 31 bytes) repeated: 32-byte
/// stores of a pattern built once, so no store waits on the one before it.
fn repeat_period(dst: &mut [u8], start: usize, op: usize, end: usize) {
    let mut pattern = [0u8; 32];
    let Some(period) = dst.get(start..op) else {
        return;
    };
    for (p, &b) in pattern.iter_mut().zip(period.iter().cycle()) {
        *p = b;
    }
    let step = 32 / period.len() * period.len();
    let mut d = op;
    while d < end {
        if let Some(chunk) = dst.get_mut(d..).and_then(|s| s.first_chunk_mut::<32>()) {
            *chunk = pattern;
            d += step;
        } else {
            // The last stretch does not leave room for 32 bytes: exactly what is left.
            if let (Some(to), Some(from)) = (dst.get_mut(d..end), pattern.get(..end - d)) {
                to.copy_from_slice(from);
            }
            return;
        }
    }
}

/// Copies `dst[s..s + (end - d)]` to `dst[d..end]` in `W`-byte chunks, where `d - s >= W`, so
/// each chunk reads bytes already in place. Chunks may run past `end` while `dst` has room.
#[inline(always)]
fn copy_chunks<const W: usize>(dst: &mut [u8], mut s: usize, mut d: usize, end: usize) {
    while d < end {
        let (head, tail) = dst.split_at_mut(d);
        match (head.get(s..s + W), tail.get_mut(..W)) {
            (Some(from), Some(to)) => to.copy_from_slice(from),
            _ => {
                // The last chunk does not fit in `dst`: copy exactly what is left.
                let n = end - d;
                if let (Some(from), Some(to)) = (head.get(s..s + n), tail.get_mut(..n)) {
                    to.copy_from_slice(from);
                }
                return;
            }
        }
        s += W;
        d += W;
    }
}
