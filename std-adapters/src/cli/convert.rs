//! `zinto convert`: re-encode an array (v2 to v3 included, optionally rechunked) into a new
//! one, in slabs of whole destination chunks bounded by `--memory`: each slab is read into one
//! buffer and written from it before the next is read.

use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::cli::info::MAX_TREE_DEPTH;
use crate::{
    Array, ArrayBuilder, Group, Node, NodeKind, ReadOptions, Region, WriteOptions, ZarrFormat,
};

use super::slabs;
use super::{
    AnyStore, Failure, ReadSummary, StoreArgs, apart, create, open_node, rss, store_to_write,
};
use crate::slabs::Slabs;

/// What `zinto convert` was asked.
#[derive(clap::Args)]
pub struct ConvertArgs {
    /// The source array's directory (or URL).
    pub src: PathBuf,
    /// The new array's directory.
    pub dst: PathBuf,
    /// The new chunk shape (default: the source's). Example: `--chunks 10,1000,1000`.
    #[arg(long, value_name = "C")]
    pub chunks: Option<String>,
    /// Store the new chunks in shards of this shape (v3), as for `create`.
    #[arg(long, value_name = "S")]
    pub shards: Option<String>,
    /// Where each shard's index goes: `end` (default, as zarr-python writes it) or `start`.
    #[arg(long, value_name = "start|end", default_value = "end")]
    pub shard_index: String,
    /// A codec of the new chain, as for `create` (default: `zstd:3`).
    #[arg(long = "codec", value_name = "SPEC")]
    pub codecs: Vec<String>,
    /// Zarr format of the new array: 3 or 2.
    #[arg(long, value_name = "2|3", default_value_t = 3)]
    pub zarr_format: u8,
    /// Bytes a slab may take: the read-and-write buffer, beyond the workers' windows. Default
    /// 1 GiB, and then at least one row of destination chunks (or shards); a value given is a
    /// bound (a row of chunks over it is refused).
    #[arg(long, value_name = "BYTES")]
    pub memory: Option<u64>,
    /// The most one chunk of strings or bytes may decode to, as for `read` (default 1 GiB).
    #[arg(long, value_name = "BYTES")]
    pub decoded_chunk_limit: Option<u64>,
    /// Write even if DST's file system has less free space than the new array may need, as
    /// for `read` (checked only for uncompressed chunks, whose size is known before writing).
    #[arg(long)]
    pub no_space_check: bool,
    /// Worker threads, for reading and for writing (default: one per core).
    #[arg(long, short, value_name = "N")]
    pub threads: Option<NonZeroUsize>,
    /// Replace metadata already at DST.
    #[arg(long)]
    pub overwrite: bool,
    /// Print the summary as one JSON object on stdout (the keys of `create --json`).
    #[arg(long)]
    pub json: bool,
}

/// The text of the new array's outer grid (`--shards`, else `--chunks`), if given: where a
/// rectilinear grid goes.
fn outer_grid(args: &ConvertArgs) -> Result<Option<&str>, Failure> {
    match (args.chunks.as_deref(), args.shards.as_deref()) {
        (chunks, Some(shards)) => create::outer_grid(chunks.unwrap_or(""), Some(shards)).map(Some),
        (chunks, None) => Ok(chunks),
    }
}

/// The new array, stated as `args` asks, over `src`'s shape, type, fill value, attributes and
/// dimension names.
fn new_array(
    src: &Array<AnyStore>,
    dst: &Path,
    (args, remote): (&ConvertArgs, StoreArgs),
) -> Result<Array<AnyStore>, Failure> {
    let meta = src.metadata();
    let shape = src.shape();
    let chunks = match args.chunks.as_deref() {
        Some(text) => create::chunk_shape(text, shape)?,
        // The command writes regular grids: a rectilinear source's grid is not kept
        // silently as something else.
        None if !meta.grid.is_regular() => {
            return Err(Failure::Other(format!(
                "{} (array {:?}): its chunk grid is rectilinear, which convert does not copy: \
                 give the new chunk shape, or edges as '[[10,20,30,40],25]', with --chunks",
                args.src.display(),
                src.path()
            )));
        }
        None => src.chunk_shape().to_vec(),
    };
    let fill = meta.fill_value.to_json(meta.dtype).ok_or_else(|| {
        let (root, path) = (args.src.display(), src.path());
        Failure::Other(format!(
            "{root} (array {path:?}): zinto does not write arrays of {} yet",
            meta.dtype
        ))
    })?;
    let attributes = src
        .attributes()
        .map_err(|e| Failure::Other(e.to_string()))?;
    let mut builder = ArrayBuilder::new(shape, meta.dtype, &chunks)
        .fill_value(fill)
        .attributes(attributes.clone())
        .overwrite(args.overwrite);
    if let Some(names) = src.dimension_names() {
        builder = builder.dimension_names(names.to_vec());
    }
    builder = match args.zarr_format {
        2 => builder.zarr_format(ZarrFormat::V2),
        3 => builder,
        n => return Err(Failure::Usage(format!("--zarr-format {n}: 2 or 3"))),
    };
    if let Some(text) = &args.shards {
        builder = builder.shards(&create::chunk_shape(text, shape)?);
    }
    if let Some(grid) = outer_grid(args)?
        && let Some((_, edges)) = create::rectilinear(grid, shape)?
    {
        builder = builder.chunk_edges(edges);
    }
    builder = builder.shard_index(create::shard_index(&args.shard_index)?);
    let default = ["zstd:3".to_owned()];
    let codecs = if args.codecs.is_empty() {
        &default[..]
    } else {
        &args.codecs[..]
    };
    let builder = create::codecs(codecs, builder)?;
    if !args.no_space_check {
        super::free_space::check_array(dst, &builder)?;
    }
    builder
        .create(store_to_write(dst, remote)?, "")
        .map_err(|e| Failure::Other(format!("{}: {e}", dst.display())))
}

pub fn convert(args: &ConvertArgs, remote: StoreArgs) -> Result<(), Failure> {
    // Before anything is opened or written: a destination that is the source (or inside it,
    // or around it) would be overwritten while it is read.
    apart::check(&args.src, &args.dst)?;
    match open_node(&args.src, remote)? {
        Node::Array(src) => convert_array(&src, &args.dst, (args, remote)),
        Node::Group(src) => convert_group(&src, &args.dst, (args, remote), 0),
    }
}

/// A group and everything below it, each array converted as asked, each group with its
/// attributes.
fn convert_group(
    src: &Group<AnyStore>,
    dst: &Path,
    (args, remote): (&ConvertArgs, StoreArgs),
    depth: usize,
) -> Result<(), Failure> {
    let failed = |e: crate::Error| Failure::Other(format!("{}: {e}", src.path()));
    if depth > MAX_TREE_DEPTH {
        return Err(Failure::Other(format!(
            "{}: groups nested deeper than {MAX_TREE_DEPTH}",
            args.src.display()
        )));
    }
    let format = match args.zarr_format {
        2 => ZarrFormat::V2,
        3 => ZarrFormat::V3,
        n => return Err(Failure::Usage(format!("--zarr-format {n}: 2 or 3"))),
    };
    let attributes = src.attributes().map_err(failed)?.clone();
    let store = store_to_write(dst, remote)?;
    if !args.overwrite {
        empty_for_group(&store, dst)?;
    }
    let created = Group::create(store, "", format, attributes)
        .map_err(|e| Failure::Other(format!("{}: {e}", dst.display())))?;
    for member in src.members().map_err(failed)? {
        let to = dst.join(&member.name);
        match member.kind {
            NodeKind::Array => convert_array(
                &src.array(&member.name).map_err(failed)?,
                &to,
                (args, remote),
            )?,
            NodeKind::Group => convert_group(
                &src.group(&member.name).map_err(failed)?,
                &to,
                (args, remote),
                depth + 1,
            )?,
        }
    }
    // A source read through consolidated metadata is written with it, listing the new tree.
    if depth == 0 && src.is_consolidated() {
        created
            .consolidate()
            .map_err(|e| Failure::Other(format!("{}: {e}", dst.display())))?;
    }
    Ok(())
}

/// A group's destination `dst` holds nothing (without `--overwrite`): the user's files there
/// are not replaced. A store that cannot list cannot be written either.
fn empty_for_group(store: &AnyStore, dst: &Path) -> Result<(), Failure> {
    let entries = match store.list_dir("") {
        Ok(entries) => entries,
        Err(crate::store::StoreError::ListingUnsupported) => return Ok(()),
        Err(e) => return Err(Failure::Other(format!("{}: {e}", dst.display()))),
    };
    if entries.is_empty() {
        return Ok(());
    }
    let shown: Vec<&str> = entries.iter().take(5).map(String::as_str).collect();
    let more = match entries.len().saturating_sub(5) {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    Err(Failure::Other(format!(
        "{} holds {}{more}: convert writes into an empty folder, or with --overwrite beside \
         what is there (replacing only the new arrays' metadata and chunk keys)",
        dst.display(),
        shown.join(", ")
    )))
}

/// One array, slab by slab.
fn convert_array(
    src: &Array<AnyStore>,
    to: &Path,
    (args, remote): (&ConvertArgs, StoreArgs),
) -> Result<(), Failure> {
    let whole = Region::whole(src.shape()).map_err(|e| Failure::Other(e.to_string()))?;
    // Slabs of whole shards, where there are: a slab that cut shards would rewrite them; on a
    // rectilinear grid they end on its edges. Cut before the new array is made, so that a
    // --memory too small leaves the destination as it was.
    let elem = src.metadata().elem_size() as u64;
    let fixed = src.dtype().fixed_size().is_some();
    let slabs = match outer_grid(args)? {
        Some(grid) if fixed => Some(create::outer_slabs(&whole, grid, elem, args.memory)?),
        None if fixed && src.metadata().grid.is_regular() => {
            Some(slabs::cut(&whole, src.chunk_shape(), elem, args.memory)?)
        }
        _ => None,
    };
    let dst = new_array(src, to, (args, remote))?;
    if src.dtype().fixed_size().is_none() {
        return convert_vlen(args, (src, &dst));
    }
    let slabs = match slabs {
        Some(slabs) => slabs,
        None => slabs::cut(&whole, dst.chunk_shape(), elem, args.memory)?,
    };
    let baseline = rss::current_rss_bytes();
    let started = Instant::now();
    let (len, held) = slabs::run(&slabs, |region, part| {
        copy_slab(args, (src, &dst), region, part)
    })?;
    print_summary(args, (src, &dst), (len, held), (started, baseline));
    Ok(())
}

/// The summary line `read` prints, for `len` bytes copied from `src` into `dst` through a
/// buffer of `held` bytes since `started`, with the process's resident set at `baseline`
/// before.
fn print_summary(
    args: &ConvertArgs,
    (src, dst): (&Array<AnyStore>, &Array<AnyStore>),
    (len, held): (usize, usize),
    (started, baseline): (Instant, Option<u64>),
) {
    let summary = ReadSummary {
        len,
        seconds: started.elapsed().as_secs_f64(),
        baseline,
        held,
        workers: args.threads.map_or_else(
            || std::thread::available_parallelism().map_or(1, NonZeroUsize::get),
            NonZeroUsize::get,
        ),
        chunks: dst.metadata().grid.num_chunks(),
        wrote: true,
    };
    summary.print(args.json, src.shape(), src.dtype());
}

/// The read and write options of one slab: the threads the command was given.
fn slab_options(args: &ConvertArgs) -> (ReadOptions<'static>, WriteOptions<'static>) {
    let read = ReadOptions {
        threads: args.threads,
        decoded_chunk_limit: args.decoded_chunk_limit,
        ..ReadOptions::default()
    };
    let write = WriteOptions {
        threads: args.threads,
        decoded_chunk_limit: args.decoded_chunk_limit,
        ..WriteOptions::default()
    };
    (read, write)
}

/// A variable-length array (strings, bytes), one row of destination chunks (or shards) at a
/// time: its size is known only once read, so `--memory` cannot size the slab; a slab holds
/// its values and an 8-byte offset per element.
fn convert_vlen(
    args: &ConvertArgs,
    (src, dst): (&Array<AnyStore>, &Array<AnyStore>),
) -> Result<(), Failure> {
    let whole = Region::whole(src.shape()).map_err(|e| Failure::Other(e.to_string()))?;
    let outer = dst.shard_shape().unwrap_or(dst.chunk_shape());
    let (read, write) = slab_options(args);
    let baseline = rss::current_rss_bytes();
    let started = Instant::now();
    let mut bytes = 0usize;
    let cut = Slabs::one_chunk_each(&whole, outer).map_err(slabs::failure)?;
    for slab in cut.iter() {
        let (region, _) = slab.map_err(slabs::failure)?;
        let slab = src
            .read_vlen_with(&region, &read)
            .map_err(|e| Failure::Other(format!("{}: {e}", args.src.display())))?;
        dst.write_vlen_with(&region, slab.offsets(), slab.values(), &write)
            .map_err(|e| Failure::Other(format!("{}: {e}", args.dst.display())))?;
        bytes = bytes.saturating_add(slab.values().len());
    }
    print_summary(args, (src, dst), (bytes, 0), (started, baseline));
    Ok(())
}

/// `region`, read from `src` into `slab`, then written into `dst`.
fn copy_slab(
    args: &ConvertArgs,
    (src, dst): (&Array<AnyStore>, &Array<AnyStore>),
    region: &Region,
    slab: &mut [u8],
) -> Result<(), Failure> {
    let (read, write) = slab_options(args);
    src.read_into_with(region, slab, &read)
        .map_err(|e| Failure::Other(format!("{}: {e}", args.src.display())))?;
    dst.write_from_with(region, slab, &write)
        .map_err(|e| Failure::Other(format!("{}: {e}", args.dst.display())))
}
