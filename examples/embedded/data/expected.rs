// Written by data/generate.py from the arrays zarr-python wrote: do not edit.
pub const GRID_CHUNK_0_0_LEN: usize = 384;
pub const GRID_CHUNK_0_0_FNV: u64 = 0xd2c4ba4e0fed93ce;
pub const GRID_REGION_LEN: usize = 1080;
pub const GRID_REGION_FNV: u64 = 0x2f7bf9f146588e38;
pub const ZLIB_LEN: usize = 4000;
pub const ZLIB_FNV: u64 = 0x73743bfebc51465d;
pub const CRC32C_LEN: usize = 1024;
pub const CRC32C_FNV: u64 = 0x7b396608d5bc7d4d;
pub const SHARD_LEN: usize = 1024;
pub const SHARD_FNV: u64 = 0xe99c8e8fa4bd0f76;
pub const BLOSC_LEN: usize = 4096;
pub const BLOSC_FNV: u64 = 0xfebdf9854999762e;
