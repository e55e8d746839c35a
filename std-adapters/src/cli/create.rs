//! `zinto create`: a new array from a `.npy` file, chunked and encoded as asked.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::core::codec::IndexLocation;
use crate::core::dtype::Number;
use crate::core::formats::{MAX_HEADER_LEN, npy};
use crate::{Array, ArrayBuilder, DataType, Region, WriteOptions, ZarrFormat};

use super::slabs;
use super::{AnyStore, Failure, ReadSummary, StoreArgs, rss, store_to_write};
use crate::slabs::Slabs;

/// What `zinto create` was asked.
#[derive(clap::Args)]
pub struct CreateArgs {
    /// The new array's directory, or URL (s3://, gs://, az://).
    pub dst: PathBuf,
    /// The `.npy` file to write (C order, this machine's byte order); with `--dtype` and
    /// `--shape`, a raw file of C-order values instead.
    #[arg(long, value_name = "FILE")]
    pub from: PathBuf,
    /// The raw file's element type (`float32`, `int16`, `uint8`, `bool`, `complex64`, ... or
    /// NumPy's `double`, `single`, `half`, `int`), in this machine's byte order. Needs `--shape`.
    #[arg(long, value_name = "TYPE", requires = "shape")]
    pub dtype: Option<String>,
    /// The raw file's shape, one size per dimension separated by commas; the file holds
    /// exactly that many elements. Needs `--dtype`. Example: `--shape 100,1000,1000`.
    #[arg(long, value_name = "N,...", requires = "dtype")]
    pub shape: Option<String>,
    /// The chunk shape, one size per dimension separated by commas. Example: `--chunks 10,1000,1000`.
    /// Or a rectilinear grid (Zarr v3), as zarr-python 3.4 spells it: per dimension a list
    /// of its chunk sizes or one size, `--chunks '[[10,20,30,40],25]'`.
    #[arg(long, value_name = "C")]
    pub chunks: String,
    /// Store the chunks in shards of this shape (v3 `sharding_indexed`); each
    /// dimension a multiple of the chunk's. Example: `--shards 50,1000,1000`. Or shards on a
    /// rectilinear grid, spelt as for `--chunks` (`--shards '[[40,60],60]'`, each edge a
    /// multiple of the chunk's); `--chunks` is then the regular inner chunk shape.
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
    /// The fill value, as metadata states it (`0`, `-1.5`, `NaN`, `true`). Default 0 (NaT for
    /// dates and durations, as zarr-python).
    #[arg(long, value_name = "V", allow_hyphen_values = true)]
    pub fill_value: Option<String>,
    /// Each chunk's memory order: `C` (default) or `F` (v3: a `transpose` codec reversing the
    /// axes; v2: `"order": "F"`).
    #[arg(long, value_name = "C|F", default_value = "C")]
    pub order: String,
    /// Bytes the input's buffer may take: a larger file is read and written in slabs of
    /// whole chunks (or shards) along its first dimension longer than one, each written before
    /// the next is read. Default 1 GiB, and then at least one row of chunks; a value given is a bound.
    #[arg(long, value_name = "BYTES")]
    pub memory: Option<u64>,
    /// Worker threads (default: one per core).
    #[arg(long, short, value_name = "N")]
    pub threads: Option<NonZeroUsize>,
    /// Replace metadata already at DST (chunks there are overwritten as written).
    #[arg(long)]
    pub overwrite: bool,
    /// Write even if DST's file system has less free space than the array's chunks take
    /// (by default refused before anything is written, naming the bytes needed and free;
    /// known, and so checked, for uncompressed chunks only).
    #[arg(long)]
    pub no_space_check: bool,
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

/// `--chunks 10,1000,1000` for an array of `shape`; for a rectilinear grid
/// (`--chunks '[[10,20,30,40],25]'`) its longest edges.
pub fn chunk_shape(text: &str, shape: &[u64]) -> Result<Vec<u64>, Failure> {
    if let Some((longest, _)) = rectilinear(text, shape)? {
        return Ok(longest);
    }
    // A 0-d array's chunk shape has no dimensions: `--chunks ""`.
    if shape.is_empty() && text.trim().is_empty() {
        return Ok(Vec::new());
    }
    let chunks: Vec<u64> = text
        .split(',')
        .map(|c| c.trim().parse::<u64>().ok().filter(|&c| c > 0))
        .collect::<Option<_>>()
        .ok_or_else(|| {
            Failure::Usage(format!(
                "--chunks {text}: positive integers separated by commas, or a rectilinear \
                 grid as zarr-python 3.4 writes it ('[[10,20,30,40],25]')"
            ))
        })?;
    dims_match(text, chunks.len(), shape)?;
    Ok(chunks)
}

/// A rectilinear grid's chunk sizes, per dimension (`None` for a regular dimension).
pub type GridEdges = Vec<Option<Vec<u64>>>;

/// A rectilinear grid given to `--chunks` as zarr-python 3.4 spells it, a JSON list with one
/// entry per dimension: the chunk sizes along it in order (`[10,20,30,40]`), or one size for
/// a regular dimension (`25`). `(longest edges, edges per dimension)`, or `None` for a text
/// that is not a list (a regular chunk shape).
pub fn rectilinear(text: &str, shape: &[u64]) -> Result<Option<(Vec<u64>, GridEdges)>, Failure> {
    if !text.trim_start().starts_with('[') {
        return Ok(None);
    }
    let bad = || {
        Failure::Usage(format!(
            "--chunks {text}: a rectilinear grid is a list with one entry per dimension, a \
             list of its chunk sizes or one size (as '[[10,20,30,40],25]'), sizes positive"
        ))
    };
    let dims: Vec<serde_json::Value> = serde_json::from_str(text).map_err(|_| bad())?;
    dims_match(text, dims.len(), shape)?;
    let positive = |v: &serde_json::Value| v.as_u64().filter(|&n| n > 0);
    let mut longest = Vec::with_capacity(dims.len());
    let mut edges = Vec::with_capacity(dims.len());
    for dim in &dims {
        if let Some(n) = positive(dim) {
            longest.push(n);
            edges.push(None);
            continue;
        }
        let list: Vec<u64> = dim
            .as_array()
            .ok_or_else(bad)?
            .iter()
            .map(positive)
            .collect::<Option<_>>()
            .ok_or_else(bad)?;
        longest.push(list.iter().copied().max().ok_or_else(bad)?);
        edges.push(Some(list));
    }
    Ok(Some((longest, edges)))
}

/// `--chunks` names as many dimensions as the array has.
fn dims_match(text: &str, n: usize, shape: &[u64]) -> Result<(), Failure> {
    if n == shape.len() {
        return Ok(());
    }
    Err(Failure::Usage(format!(
        "--chunks {text}: {n} dimensions, the array has {} ({shape:?})",
        shape.len()
    )))
}

/// The text of the outer grid, the one a rectilinear grid is given for: `--shards` where there
/// are shards (as zarr-python's `shards=[[40, 60], 60]`), else `--chunks`. Inner chunks are
/// regular: a rectilinear `--chunks` beside `--shards` is refused.
pub fn outer_grid<'a>(chunks: &'a str, shards: Option<&'a str>) -> Result<&'a str, Failure> {
    match shards {
        None => Ok(chunks),
        Some(_) if chunks.trim_start().starts_with('[') => Err(Failure::Usage(format!(
            "--chunks {chunks}: with --shards the inner chunks are regular; give the \
             rectilinear grid to --shards (as '[[40,60],60]')"
        ))),
        Some(shards) => Ok(shards),
    }
}

/// Slabs of `whole` for writing an array whose outer grid (chunks or shards) `grid` spells:
/// whole outer chunks within `memory`, ending on a rectilinear grid's edges (none cuts a chunk
/// in two, which would rewrite it).
pub fn outer_slabs(
    whole: &Region,
    grid: &str,
    elem: u64,
    memory: Option<u64>,
) -> Result<Slabs, Failure> {
    let shape = whole.shape();
    let slabs = slabs::cut(whole, &chunk_shape(grid, shape)?, elem, memory)?;
    match rectilinear(grid, shape)? {
        Some((_, edges)) => slabs
            .along_edges(&starts_of(&edges))
            .map_err(slabs::failure),
        None => Ok(slabs),
    }
}

/// Where each dimension's chunks start (and one past the last) on a rectilinear grid, for
/// slabs that end on its edges; `None` for a regular dimension.
pub fn starts_of(edges: &[Option<Vec<u64>>]) -> Vec<Option<Vec<u64>>> {
    edges
        .iter()
        .map(|dim| {
            dim.as_ref().map(|dim| {
                std::iter::once(0)
                    .chain(dim.iter().scan(0u64, |at, &e| {
                        *at = at.saturating_add(e);
                        Some(*at)
                    }))
                    .collect()
            })
        })
        .collect()
}

pub fn create(args: &CreateArgs, remote: StoreArgs) -> Result<(), Failure> {
    let shown = args.from.display();
    let (mut file, shape, number) = match (&args.dtype, &args.shape) {
        (Some(name), Some(shape)) => open_raw(&args.from, name, shape)?,
        _ => open_npy(&args.from)?,
    };
    let dtype = DataType::from(number);
    let whole = Region::whole(&shape).map_err(|e| Failure::Other(e.to_string()))?;
    // Slabs of whole shards, where there are: a slab that cut shards would rewrite them.
    // Cut before the array is made, so that a --memory too small leaves nothing behind.
    let grid = outer_grid(&args.chunks, args.shards.as_deref())?;
    let slabs = outer_slabs(&whole, grid, number.size() as u64, args.memory)?;
    let array = new_array(args, (&shape, dtype), remote)?;
    let options = WriteOptions {
        threads: args.threads,
        ..WriteOptions::default()
    };
    let baseline = rss::current_rss_bytes();
    let mut writing = Duration::ZERO;
    let (len, held) = slabs::run(&slabs, |region, part| {
        file.read_exact(part)
            .map_err(|e| Failure::Other(format!("{shown}: {e}")))?;
        let started = Instant::now();
        array
            .write_from_with(region, part, &options)
            .map_err(|e| Failure::Other(format!("{}: {e}", args.dst.display())))?;
        writing += started.elapsed();
        Ok(())
    })?;
    let workers = options.threads.map_or_else(
        || std::thread::available_parallelism().map_or(1, NonZeroUsize::get),
        NonZeroUsize::get,
    );
    let chunks = array.metadata().grid.num_chunks();
    let summary = ReadSummary {
        len,
        seconds: writing.as_secs_f64(),
        baseline,
        held,
        workers: workers.min(usize::try_from(chunks).unwrap_or(usize::MAX)),
        chunks,
        wrote: true,
    };
    summary.print(args.json, &shape, dtype);
    Ok(())
}

/// What `--from` gives: the file at its first value, the array's shape and element type.
type Input = (File, Vec<u64>, Number);

/// `path` opened at its data: a C-ordered `.npy` in this machine's byte order, long enough
/// for the data its header states.
fn open_npy(path: &Path) -> Result<Input, Failure> {
    let shown = path.display();
    let fail = |e: &dyn std::fmt::Display| Failure::Other(format!("{shown}: {e}"));
    let mut file = File::open(path).map_err(|e| fail(&e))?;
    let file_len = file.metadata().map_err(|e| fail(&e))?.len();
    let mut head = vec![0u8; usize::try_from(file_len).map_or(HEAD, |n| n.min(HEAD))];
    file.read_exact(&mut head).map_err(|e| fail(&e))?;
    let header = npy::parse(&head, file_len).map_err(|e| fail(&e))?;
    if header.fortran_order {
        return Err(fail(
            &"Fortran-ordered; save it C-ordered (np.ascontiguousarray)",
        ));
    }
    if header.dtype.big_endian != cfg!(target_endian = "big") && header.dtype.number.size() > 1 {
        return Err(fail(
            &"not in this machine's byte order (zinto writes from native-order data)",
        ));
    }
    file.seek(SeekFrom::Start(header.data_offset))
        .map_err(|e| fail(&e))?;
    Ok((file, header.shape.as_slice().to_vec(), header.dtype.number))
}

/// `path`, a raw file of C-order `type_name` values of `shape` (`--dtype`, `--shape`): its
/// length must be theirs exactly.
fn open_raw(path: &Path, type_name: &str, shape: &str) -> Result<Input, Failure> {
    let shown = path.display();
    let number = Number::from_numpy_name(type_name).ok_or_else(|| {
        Failure::Usage(format!(
            "--dtype {type_name}: not a number type (bool, int8 ... uint64, float16, float32, float64, complex64, complex128)"
        ))
    })?;
    let shape: Vec<u64> = shape
        .split(',')
        .map(|n| n.trim().parse::<u64>().ok())
        .collect::<Option<_>>()
        .ok_or_else(|| Failure::Usage(format!("--shape {shape}: sizes separated by commas")))?;
    let want = shape
        .iter()
        .try_fold(number.size() as u64, |n, &d| n.checked_mul(d))
        .ok_or_else(|| Failure::Usage("--shape: the array's size overflows".into()))?;
    let file = File::open(path).map_err(|e| Failure::Other(format!("{shown}: {e}")))?;
    let len = file
        .metadata()
        .map_err(|e| Failure::Other(format!("{shown}: {e}")))?
        .len();
    if len != want {
        return Err(Failure::Other(format!(
            "{shown}: holds {len} bytes; --dtype {type_name} and --shape state {want}"
        )));
    }
    Ok((file, shape, number))
}

/// Bytes read for a `.npy` header: all of the longest one [`npy::parse`] takes.
const HEAD: usize = MAX_HEADER_LEN + 12;

/// The new array `args` asks for, of `shape` and `dtype`, its metadata written.
fn new_array(
    args: &CreateArgs,
    (shape, dtype): (&[u64], DataType),
    remote: StoreArgs,
) -> Result<Array<AnyStore>, Failure> {
    let mut builder = ArrayBuilder::new(shape, dtype, &chunk_shape(&args.chunks, shape)?)
        .overwrite(args.overwrite);
    let grid = outer_grid(&args.chunks, args.shards.as_deref())?;
    if let Some((_, edges)) = rectilinear(grid, shape)? {
        builder = builder.chunk_edges(edges);
    }
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
        builder = builder.shards(&chunk_shape(text, shape)?);
    }
    builder = builder.shard_index(shard_index(&args.shard_index)?);
    builder = codecs(&args.codecs, builder)?;
    if let Some(fill) = args.fill_value.as_deref() {
        let v = serde_json::from_str(fill)
            .unwrap_or_else(|_| serde_json::Value::String(fill.to_owned()));
        builder = builder.fill_value(v);
    }
    if !args.no_space_check {
        super::free_space::check_array(&args.dst, &builder)?;
    }
    builder
        .create(store_to_write(&args.dst, remote)?, "")
        .map_err(|e| Failure::Other(format!("{}: {e}", args.dst.display())))
}

pub(super) fn shard_index(text: &str) -> Result<IndexLocation, Failure> {
    match text {
        "start" => Ok(IndexLocation::Start),
        "end" => Ok(IndexLocation::End),
        other => Err(Failure::Usage(format!(
            "--shard-index {other}: start or end"
        ))),
    }
}
