//! `write_roundtrip`: random arrays, chains and regions written into a `MemoryStore` through
//! `Array::write_from`, each write checked against a C-order model by reading the whole array
//! back. Layout: `[ndim, dims.., chunks.., shard flags, chain, writes]`, then per write
//! `[start.., extent..]` and its values from the rest.

use serde_json::json;
use zinto::core::MemoryOrder;
use zinto::core::codec::blosc::{BloscCname, BloscShuffle};
use zinto::core::codec::{Compressor, Endian, Lz4};
use zinto::{ArrayBuilder, DataType, MemoryStore, Region, ZarrFormat};

use super::input::Input;

const TYPES: [DataType; 6] = [
    DataType::UInt8,
    DataType::Int16,
    DataType::Float32,
    DataType::Float64,
    DataType::Bool,
    DataType::Complex64,
];

/// The array the input's first bytes state: at most 3 dimensions of at most 12.
fn builder(input: &mut Input<'_>) -> (Vec<u64>, ArrayBuilder) {
    let ndim = 1 + usize::from(input.u8() % 3);
    let shape: Vec<u64> = (0..ndim).map(|_| 1 + u64::from(input.u8() % 12)).collect();
    let chunks: Vec<u64> = shape
        .iter()
        .map(|&d| 1 + u64::from(input.u8()) % d)
        .collect();
    let shard_factor = input.u8();
    let chain = input.u8();
    let dtype = TYPES[usize::from(chain % 6)];
    let mut b = ArrayBuilder::new(&shape, dtype, &chunks);
    let v2 = chain & 0x80 != 0 && shard_factor & 1 == 0;
    // Compressors this build does not write (`--no-default-features`) are stored raw.
    let (zstd, deflate) = (crate::build_writes("zstd"), crate::build_writes("gzip"));
    b = match (chain >> 3) % 4 {
        1 if zstd => b.zstd(1),
        2 if deflate => b.gzip(1),
        3 if v2 && deflate => b.zlib(1),
        3 if !v2 && zstd => b.zstd(3),
        _ => b,
    };
    // Blosc (LZ4 or BloscLZ inside, small chunks: one block each) in place of the compressor, with no
    // checksum after it (refused: its header is written last).
    let blosc = shard_factor & 0x20 != 0;
    if blosc {
        let shuffle = [
            BloscShuffle::NoShuffle,
            BloscShuffle::Shuffle,
            BloscShuffle::BitShuffle,
        ][usize::from(chain >> 5 & 1) + usize::from(shard_factor >> 7)];
        // The compressor's bits pick the inner codec: zinto-core's BloscLZ or lz4_flex's LZ4.
        let cname = match (chain >> 3) & 1 {
            0 => BloscCname::Lz4,
            _ => BloscCname::BloscLz,
        };
        b = b.blosc(cname, 5, shuffle);
    }
    // numcodecs' LZ4 (v2, with the bit that asks v3 for a checksum), in the machine's byte
    // order (refused in the other: it needs each chunk in one slice).
    if v2 && !blosc && shard_factor & 2 != 0 && chain & 0x20 == 0 {
        b = b.compressor(Compressor::Lz4(Lz4 {
            acceleration: Some(1),
        }));
    }
    if chain & 0x20 != 0 {
        b = b.endian(Endian::Big);
    }
    if chain & 0x40 != 0 {
        b = b.order(MemoryOrder::f(ndim).expect("at most 3 dimensions"));
    }
    if v2 {
        b = b.zarr_format(ZarrFormat::V2);
    } else {
        if shard_factor & 2 != 0 && !blosc {
            b = b.crc32c();
        }
        if shard_factor & 4 != 0 {
            let shards: Vec<u64> = chunks
                .iter()
                .map(|&c| c * (1 + u64::from(shard_factor >> 6)))
                .collect();
            b = b.shards(&shards);
            if shard_factor & 0x10 != 0 {
                b = b.shard_index(zinto::core::codec::IndexLocation::Start);
            }
        }
    }
    if shard_factor & 8 != 0 {
        b = b.fill_value(match dtype {
            DataType::Bool => json!(true),
            DataType::Complex64 => json!([1.0, -0.5]),
            _ => json!(1),
        });
    }
    (shape, b)
}

pub fn write_roundtrip(data: &[u8]) {
    let mut input = Input::new(data);
    let (shape, builder) = builder(&mut input);
    let writes = 1 + input.u8() % 4;
    let array = builder
        .create(MemoryStore::new(), "")
        .expect("a valid array");
    let elem = array.dtype().fixed_size().expect("a fixed size");
    let whole = Region::whole(&shape).expect("a region");
    let fill = array.metadata().fill_value.as_bytes().to_vec();
    let mut model = fill.repeat(whole.num_elements().expect("small") as usize);
    for _ in 0..writes {
        let start: Vec<u64> = shape.iter().map(|&d| u64::from(input.u8()) % d).collect();
        let extent: Vec<u64> = shape
            .iter()
            .zip(&start)
            .map(|(&d, &s)| 1 + u64::from(input.u8()) % (d - s))
            .collect();
        let region = Region::new(&start, &extent).expect("inside the array");
        let n = region.num_elements().expect("small") as usize * elem;
        let mut values = input.bytes(n).to_vec();
        values.resize(n, 0);
        if array.dtype() == DataType::Bool {
            values.iter_mut().for_each(|b| *b &= 1);
        }
        array
            .write_from(&region, &values)
            .expect("the write succeeds");
        write_model(&mut model, &shape, elem, &region, &values);
        let back = array.read_to_vec(&whole).expect("the read succeeds");
        assert!(
            back == model,
            "the array is not the model after writing {region:?}"
        );
    }
}

/// `values` (C order over `region`) into the C-order `model` of `shape`.
fn write_model(model: &mut [u8], shape: &[u64], elem: usize, region: &Region, values: &[u8]) {
    let count = region.num_elements().expect("small") as usize;
    let mut at = vec![0u64; shape.len()];
    for i in 0..count {
        let mut linear = 0u64;
        for d in 0..shape.len() {
            linear = linear * shape[d] + region.start()[d] + at[d];
        }
        let dst = linear as usize * elem;
        model[dst..dst + elem].copy_from_slice(&values[i * elem..(i + 1) * elem]);
        for d in (0..shape.len()).rev() {
            at[d] += 1;
            if at[d] < region.shape()[d] {
                break;
            }
            at[d] = 0;
        }
    }
}
