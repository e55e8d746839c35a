//! Shard index parsing and lookups: any index bytes and shard length, never a panic, and every
//! range returned lies inside the shard.
#![no_main]
use zinto_core::codec::{IndexLocation, ShardLayout};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let [a, b, crc, len_byte, index @ ..] = data else { return };
    let shard = [u64::from(*a % 8 + 1) * 2, u64::from(*b % 8 + 1) * 2];
    let Ok(layout) = ShardLayout::new(&shard, &[2, 2], IndexLocation::End, crc & 1 == 1) else {
        return;
    };
    let shard_len = u64::from(*len_byte) * 64;
    if let Ok(parsed) = layout.parse(index, shard_len) {
        for i in 0..layout.grid().num_chunks() {
            if let Ok(Some(r)) = parsed.get_linear(i) {
                assert!(r.offset + r.len <= shard_len);
            }
        }
    }
});
