//! `zinto create`: a new array from a `.npy` file, chunked and encoded as asked.

use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::time::Instant;

use crate::core::codec::IndexLocation;
use crate::core::formats::npy;
use crate::{ArrayBuilder, DataType, Region, WriteOptions, ZarrFormat};

use super::{Failure, ReadSummary, StoreArgs, rss, store_to_write};

/// What `zinto create` was asked.
#[derive(clap::Args)]
pub struct CreateArgs {
    /// The new array's directory, or URL (s3://, gs://, az://).
    pub dst: PathBuf,
    /// The `.npy` file to write (C order, this machine's byte order).
    #[arg(long, value_name = "FILE")]
    pub from: PathBuf,
    /// The chunk shape, one size per dimension separated by commas. Example: `--chunks 10,1000,1000`.
    #[arg(long, value_name = "C")]
    pub chunks: String,
    /// Store the chunks in shards of this shape (v3 `sharding_indexed`); each
    /// dimension a multiple of the chunk's. Example: `--shards 50,1000,1000`.
    #[arg(long, value_name = "S")]
    pub shards: Option<String>,
    /// Where each shard's index goes: `end` (default, as zarr-python writes it) or `start`.
    #[arg(long, value_name = "start|end", default_value = "end")]
    pub shard_index: String,
    /// A codec of the chain, in order: `raw`, `zstd[:LEVEL]` (default 3), `gzip[:LEVEL]`,
    /// `zlib[:LEVEL]` (v2; default 5), `crc32c` (v3), `blosc:CNAME[:CLEVEL[:SHUFFLE]]` (CNAME
    /// lz4, lz4hc, zstd or zlib; CLEVEL default 5; SHUFFLE noshuffle, shuffle (default) or
    /// bitshuffle). At most one compressor. Default: raw.
    #[arg(long = "codec", value_name = "SPEC")]
    pub codecs: Vec<String>,
    /// Zarr format: 3 (`zarr.json`) or 2 (`.zarray`).
    #[arg(long, value_name = "2|3", default_value_t = 3)]
    pub zarr_format: u8,
    /// The fill value, as metadata states it (`0`, `-1.5`, `NaN`, `true`). Default 0.
    #[arg(long, value_name = "V", allow_hyphen_values = true)]
    pub fill_value: Option<String>,
    /// Each chunk's memory order: `C` (default) or `F` (v3: a `transpose` codec reversing the
    /// axes; v2: `"order": "F"`).
    #[arg(long, value_name = "C|F", default_value = "C")]
    pub order: String,
    /// Worker threads (default: one per core).
    #[arg(long, short, value_name = "N")]
    pub threads: Option<NonZeroUsize>,
    /// Replace metadata already at DST (chunks there are overwritten as written).
    #[arg(long)]
    pub overwrite: bool,
    /// Print the summary as one JSON object on stdout instead of a line on stderr (the
    /// keys of `read --json`; `bytes` are the input's).
    #[arg(long)]
    pub json: bool,
}

/// The codec chain `--codec` specs make (see [`crate::codec_spec`]).
pub fn codecs(specs: &[String], b: ArrayBuilder) -> Result<ArrayBuilder, Failure> {
    b.codec_specs(specs)
        .map_err(|e| Failure::Usage(format!("--codec {}: {}", e.spec, e.why)))
}

/// `--chunks 10,1000,1000` for an array of `shape`.
pub fn chunk_shape(text: &str, shape: &[u64]) -> Result<Vec<u64>, Failure> {
    let chunks: Vec<u64> = text
        .split(',')
        .map(|c| c.trim().parse::<u64>().ok().filter(|&c| c > 0))
        .collect::<Option<_>>()
        .ok_or_else(|| {
            Failure::Usage(format!(
                "--chunks {text}: positive integers separated by commas"
            ))
        })?;
    if chunks.len() != shape.len() {
        return Err(Failure::Usage(format!(
            "--chunks {text}: {} dimensions, the array has {} ({shape:?})",
            chunks.len(),
            shape.len()
        )));
    }
    Ok(chunks)
}

pub fn create(args: &CreateArgs, remote: StoreArgs) -> Result<(), Failure> {
    let shown = args.from.display();
    let file = std::fs::read(&args.from).map_err(|e| Failure::Other(format!("{shown}: {e}")))?;
    let header = npy::parse(&file, file.len() as u64)
        .map_err(|e| Failure::Other(format!("{shown}: {e}")))?;
    if header.fortran_order {
        return Err(Failure::Other(format!(
            "{shown}: Fortran-ordered; save it C-ordered (np.ascontiguousarray)"
        )));
    }
    if header.dtype.big_endian != cfg!(target_endian = "big") && header.dtype.number.size() > 1 {
        return Err(Failure::Other(format!(
            "{shown}: not in this machine's byte order (zinto writes from native-order data)"
        )));
    }
    let shape = header.shape.as_slice().to_vec();
    let dtype = DataType::from(header.dtype.number);
    let data = usize::try_from(header.data_offset)
        .ok()
        .and_then(|at| file.get(at..))
        .ok_or_else(|| Failure::Other(format!("{shown}: data past the file's end")))?;
    let mut builder = ArrayBuilder::new(&shape, dtype, &chunk_shape(&args.chunks, &shape)?)
        .overwrite(args.overwrite);
    builder = match args.zarr_format {
        2 => builder.zarr_format(ZarrFormat::V2),
        3 => builder,
        n => return Err(Failure::Usage(format!("--zarr-format {n}: 2 or 3"))),
    };
    builder = match args.order.as_str() {
        "C" => builder,
        "F" => builder.order(
            crate::core::MemoryOrder::f(shape.len()).map_err(|e| Failure::Usage(e.to_string()))?,
        ),
        other => return Err(Failure::Usage(format!("--order {other}: C or F"))),
    };
    if let Some(text) = &args.shards {
        builder = builder.shards(&chunk_shape(text, &shape)?);
    }
    builder = builder.shard_index(shard_index(&args.shard_index)?);
    builder = codecs(&args.codecs, builder)?;
    if let Some(fill) = args.fill_value.as_deref() {
        let v = serde_json::from_str(fill)
            .unwrap_or_else(|_| serde_json::Value::String(fill.to_owned()));
        builder = builder.fill_value(v);
    }
    let array = builder
        .create(store_to_write(&args.dst, remote)?, "")
        .map_err(|e| Failure::Other(format!("{}: {e}", args.dst.display())))?;
    let whole = Region::whole(&shape).map_err(|e| Failure::Other(e.to_string()))?;
    let chunks = array.metadata().grid.num_chunks();
    let options = WriteOptions {
        threads: args.threads,
        ..WriteOptions::default()
    };
    let workers = options.threads.map_or_else(
        || std::thread::available_parallelism().map_or(1, NonZeroUsize::get),
        NonZeroUsize::get,
    );
    let baseline = rss::current_rss_bytes();
    let started = Instant::now();
    array
        .write_from_with(&whole, data, &options)
        .map_err(|e| Failure::Other(format!("{}: {e}", args.dst.display())))?;
    let summary = ReadSummary {
        len: data.len(),
        seconds: started.elapsed().as_secs_f64(),
        baseline,
        workers: workers.min(usize::try_from(chunks).unwrap_or(usize::MAX)),
        chunks,
        wrote: true,
    };
    summary.print(args.json, &shape, dtype);
    Ok(())
}

/// `--shard-index`: `start` or `end`.
pub(super) fn shard_index(text: &str) -> Result<IndexLocation, Failure> {
    match text {
        "start" => Ok(IndexLocation::Start),
        "end" => Ok(IndexLocation::End),
        other => Err(Failure::Usage(format!(
            "--shard-index {other}: start or end"
        ))),
    }
}
