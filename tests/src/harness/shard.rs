//! The shard index.

use zinto::core::codec::{IndexLocation, ShardLayout};

use super::input::Input;
use crate::alloc::with_cap;

/// `[a, b, flags, len, index...]`: a shard of `(a % 8 + 1) * 2` by `(b % 8 + 1) * 2` in 2x2
/// chunks, index at the start or end, with or without crc32c, of `len * 64` bytes. Whatever
/// parses, every range it returns lies inside the shard; nothing allocates.
pub fn shard_index(data: &[u8]) {
    let mut input = Input::new(data);
    let (a, b, flags, len) = (input.u8(), input.u8(), input.u8(), input.u8());
    let index = input.rest();
    let shard = [u64::from(a % 8 + 1) * 2, u64::from(b % 8 + 1) * 2];
    let location = if flags & 2 == 0 {
        IndexLocation::End
    } else {
        IndexLocation::Start
    };
    let Ok(layout) = ShardLayout::new(&shard, &[2, 2], location, flags & 1 == 1) else {
        return;
    };
    let shard_len = u64::from(len) * 64;
    with_cap(0, || {
        if let Ok(parsed) = layout.parse(index, shard_len) {
            for i in 0..layout.grid().num_chunks() {
                if let Ok(Some(r)) = parsed.get_linear(i) {
                    assert!(r.offset + r.len <= shard_len, "range leaves the shard");
                }
            }
        }
    });
}
