//! `zinto`: look into a Zarr array, or read (a selection of) it into one buffer.
//!
//! Exit codes: 0 success, 2 usage error (bad arguments or selection), 1 any other error.

mod describe;
mod merge;
mod rss;
mod selection;

use std::io::{IsTerminal, Write};
use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand};
use zinto::{Array, FileStore, ReadOptions, Store};

#[derive(Parser)]
#[command(
    name = "zinto",
    version,
    about = "Read chunked, compressed arrays (Zarr v3 and v2) straight into one buffer",
    long_about = "Read chunked, compressed arrays (Zarr v3 and v2) straight into one buffer.\n\n\
        ARRAY is the directory of an array: the folder holding zarr.json (v3) or .zarray (v2).",
    after_help = "Examples:\n  zinto info examples/data/temperature.zarr\n  \
        zinto read examples/data/temperature.zarr --select 10:200,5:90 --out part.bin\n  \
        zinto read examples/data/temperature.zarr --threads 1 --json\n  \
        zinto merge --record-size 24 --key f64@8 --out merged.bin spectra/*.zst"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Show an array's format, shape, type, chunking, codecs, fill value and storage.
    #[command(after_help = "Example:\n  zinto info examples/data/temperature.zarr")]
    Info {
        /// The array's directory.
        array: PathBuf,
    },
    /// Read the array (or a selection) into one buffer; write it C-order or discard it.
    #[command(after_help = "Examples:\n  \
        zinto read examples/data/temperature.zarr\n  \
        zinto read examples/data/temperature.zarr --select 10:200,5:90 --out part.bin\n  \
        zinto read examples/data/temperature.zarr --select 3,: --out - | od -f | head")]
    Read {
        /// The array's directory.
        array: PathBuf,
        /// What to read, numpy-like, one item per dimension separated by commas:
        /// `start:stop`, `:`, `start:`, `:stop`, or a single index (kept as length 1).
        /// Missing trailing items select whole dimensions. Example: `--select 10:200,5:90`.
        #[arg(long, short, value_name = "SEL", default_value = "")]
        select: String,
        /// Worker threads (default: one per core). Example: `--threads 1`.
        #[arg(long, short, value_name = "N")]
        threads: Option<NonZeroUsize>,
        /// Write the bytes, C order, native byte order, to FILE (`-` for stdout). Without it,
        /// the data is read and discarded (useful to time a read). Example: `--out part.bin`.
        #[arg(long, short, value_name = "FILE")]
        out: Option<PathBuf>,
        /// Print the summary as one JSON object on stdout instead of a line on stderr.
        /// Keys: bytes, seconds, mb_per_s, peak_rss_bytes, peak_over_output, baseline_rss_bytes
        /// (before the read), extra_over_output ((peak - baseline - bytes) / bytes), threads,
        /// chunks.
        #[arg(long)]
        json: bool,
    },
    /// Concatenate variable-size chunk files into one exact buffer and sort its records by a
    /// key field, in place.
    #[command(after_help = "Examples:\n  \
        zinto merge --record-size 24 --key f64@8 --out merged.bin spectra/*.zst\n  \
        zinto merge --record-size 12 --key f32@4 --stable --out - part*.bin | od -f | head\n  \
        zinto merge --record-size 8 --out all.bin a.gz b.gz")]
    Merge {
        /// The chunk files, concatenated in this order. Each must decode to whole records.
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
        /// Bytes per record. Example: `--record-size 24` for [index, m/z, intensity] as f64.
        #[arg(long, value_name = "BYTES")]
        record_size: NonZeroUsize,
        /// Sort by this field: TYPE@OFFSET, TYPE one of f32 f64 i32 i64 u32 u64, little endian
        /// unless suffixed `be` (`f64be@8`). Floats sort -0.0 before +0.0, NaNs last.
        /// Without --key the files are only concatenated. Example: `--key f64@8`.
        #[arg(long, value_name = "TYPE@OFFSET")]
        key: Option<String>,
        /// How the files are stored (`auto`: `.zst` zstd, `.gz` gzip, else raw).
        #[arg(long, value_enum, default_value = "auto")]
        codec: merge::CodecArg,
        /// Keep records with equal keys in input order (one thread; 16 MiB of scratch).
        #[arg(long)]
        stable: bool,
        /// Worker threads for decoding and sorting (default: one per core).
        #[arg(long, short, value_name = "N")]
        threads: Option<NonZeroUsize>,
        /// Write the merged records to FILE (`-` for stdout). Without it, they are merged,
        /// sorted and discarded (useful to time it).
        #[arg(long, short, value_name = "FILE")]
        out: Option<PathBuf>,
        /// Print the summary as one JSON object on stdout. Keys: files, bytes, records, sorted,
        /// stable, threads, decode_seconds, sort_seconds, write_seconds, peak_rss_bytes,
        /// baseline_rss_bytes, peak_over_output ((peak - baseline) / bytes).
        #[arg(long)]
        json: bool,
    },
}

/// `info` counts present chunks only up to this many chunks in the grid.
const MAX_CHUNKS_COUNTED: u64 = 1_000_000;

/// An error and the exit code it deserves.
enum Failure {
    Usage(String),
    Other(String),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // clap prints help and version to stdout (exit 0), usage errors to stderr (exit 2).
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let result = match cli.command {
        Command::Info { array } => info(&array),
        Command::Read {
            array,
            select,
            threads,
            out,
            json,
        } => read(&array, &select, threads, out.as_deref(), json),
        Command::Merge {
            files,
            record_size,
            key,
            codec,
            stable,
            threads,
            out,
            json,
        } => merge::merge(&merge::MergeArgs {
            files: &files,
            record_size,
            key: key.as_deref(),
            codec,
            stable,
            threads,
            out: out.as_deref(),
            json,
        }),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(msg)) => {
            eprintln!("zinto: usage error: {msg}");
            ExitCode::from(2)
        }
        Err(Failure::Other(msg)) => {
            eprintln!("zinto: error: {msg}");
            ExitCode::from(1)
        }
    }
}

fn open(dir: &std::path::Path) -> Result<Array<FileStore>, Failure> {
    if !dir.is_dir() {
        return Err(Failure::Other(format!(
            "{}: no such array directory",
            dir.display()
        )));
    }
    Array::open(FileStore::new(dir), "")
        .map_err(|e| Failure::Other(format!("{}: {}", dir.display(), e.kind())))
}

/// Refuses `--json` with `--out -`: both would print to stdout.
fn check_output(out: Option<&std::path::Path>, json: bool) -> Result<(), Failure> {
    if json && out.is_some_and(|p| p.as_os_str() == "-") {
        return Err(Failure::Usage(
            "--json prints to stdout: it cannot be combined with --out -".into(),
        ));
    }
    Ok(())
}

/// Writes `buf` to the `--out` file, or stdout for `-`; nothing without `--out`.
fn write_output(out: Option<&std::path::Path>, buf: &[u8]) -> Result<(), Failure> {
    let Some(path) = out else { return Ok(()) };
    let written = if path.as_os_str() == "-" {
        std::io::stdout().lock().write_all(buf)
    } else {
        std::fs::write(path, buf)
    };
    written.map_err(|e| Failure::Other(format!("writing {}: {e}", path.display())))
}

fn info(dir: &std::path::Path) -> Result<(), Failure> {
    let array = open(dir)?;
    let meta = array.metadata();
    let grid = &meta.grid;
    let elem = meta.dtype.fixed_size().unwrap_or(0) as u64;
    let mut present = 0u64;
    // `None` once the sum overflows (it cannot for real files, but sizes are the store's word).
    let mut stored = Some(0u64);
    // Asking the store about every chunk is one stat each: skip it for huge grids.
    let counted = grid.num_chunks() <= MAX_CHUNKS_COUNTED;
    for i in 0..if counted { grid.num_chunks() } else { 0 } {
        let coords = grid
            .chunk_coords(i)
            .map_err(|e| Failure::Other(e.to_string()))?;
        let key = array.chunk_key(&coords);
        if let Some(n) = array
            .store()
            .size(&key)
            .map_err(|e| Failure::Other(format!("{key}: {e}")))?
        {
            present += 1;
            stored = stored.and_then(|s| s.checked_add(n));
        }
    }
    // The metadata may declare more data than a u64 counts: say so rather than wrap or fail.
    let decoded = zinto::core::product(grid.array_shape())
        .ok()
        .and_then(|n| n.checked_mul(elem));
    let levels = meta.chain.levels();
    let sharded = levels.len() > 1;
    let mut lines = vec![
        format!("array:        {}", dir.display()),
        format!(
            "format:       Zarr {}",
            match meta.format {
                zinto::ZarrFormat::V2 => "v2",
                zinto::ZarrFormat::V3 => "v3",
            }
        ),
        format!("shape:        {:?}", grid.array_shape()),
        format!("data type:    {} ({} bytes)", meta.dtype, elem),
    ];
    if sharded {
        lines.push(format!("shard shape:  {:?}", grid.chunk_shape()));
        // A sharded chain has its inner level last (`CodecChain::innermost`).
        let inner = meta.chain.innermost().chunk_shape.to_vec();
        lines.push(format!("chunk shape:  {inner:?} (inside shards)"));
    } else {
        lines.push(format!("chunk shape:  {:?}", grid.chunk_shape()));
    }
    lines.extend([
        format!("codecs:       {}", describe::codecs(&meta.chain)),
        format!(
            "fill value:   {}",
            describe::fill_value(meta.dtype, &meta.fill_value)
        ),
    ]);
    let kind = if sharded { "shards" } else { "chunks" };
    if counted {
        lines.push(format!(
            "{kind}:  {} in all, {present} present",
            grid.num_chunks()
        ));
        lines.push(format!(
            "stored:       {} for {} of data{}",
            bytes(stored),
            bytes(decoded),
            match (stored, decoded) {
                (Some(s), Some(d)) if s > 0 =>
                    format!(" (compression ratio {:.2})", d as f64 / s as f64),
                _ => String::new(),
            }
        ));
    } else {
        lines.push(format!(
            "{kind}:  {} in all (more than {MAX_CHUNKS_COUNTED}: present ones not counted)",
            grid.num_chunks()
        ));
    }
    println!("{}", lines.join("\n"));
    Ok(())
}

/// A byte count, or what is known of one that overflows a `u64`.
fn bytes(n: Option<u64>) -> String {
    n.map_or_else(
        || "2^64 bytes or more (overflows u64)".to_owned(),
        |n| format!("{n} bytes"),
    )
}

fn read(
    dir: &std::path::Path,
    select: &str,
    threads: Option<NonZeroUsize>,
    out_path: Option<&std::path::Path>,
    json: bool,
) -> Result<(), Failure> {
    check_output(out_path, json)?;
    let array = open(dir)?;
    let region = selection::parse(select, array.shape()).map_err(Failure::Usage)?;
    let len = array
        .selection_len(&region)
        .map_err(|e| Failure::Other(e.to_string()))?;
    let chunks = array
        .metadata()
        .grid
        .pieces(&region)
        .and_then(|p| p.chunk_count())
        .map_err(|e| Failure::Usage(e.to_string()))?;
    let threads = ReadOptions {
        threads,
        progress: None,
    }
    .workers();
    let workers = threads
        .get()
        .min(usize::try_from(chunks).unwrap_or(usize::MAX))
        .max(1);

    let bar = if std::io::stderr().is_terminal() && !json {
        let bar = indicatif::ProgressBar::new(chunks);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} {bar:40} {pos}/{len} chunks {elapsed_precise}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    } else {
        indicatif::ProgressBar::hidden()
    };
    let progress = |done: u64, _total: u64| bar.set_position(done);
    let options = ReadOptions {
        threads: Some(threads),
        progress: Some(&progress),
    };

    let baseline = rss::current_rss_bytes();
    let mut buf = zinto::zeroed_buffer(len).ok_or_else(|| {
        Failure::Other(format!(
            "{}: cannot allocate {len} bytes for the selection",
            dir.display()
        ))
    })?;
    let start = Instant::now();
    array
        .read_into_with(&region, &mut buf, &options)
        .map_err(|e| Failure::Other(format!("{}: {e}", dir.display())))?;
    let seconds = start.elapsed().as_secs_f64();
    bar.finish_and_clear();

    write_output(out_path, &buf)?;

    let peak = rss::peak_rss_bytes();
    let mb_per_s = if seconds > 0.0 {
        len as f64 / seconds / 1e6
    } else {
        0.0
    };
    let over = peak.filter(|_| len > 0).map(|p| p as f64 / len as f64);
    // What the read cost beyond the output and the process as it was before the read.
    let extra = match (peak, baseline) {
        (Some(p), Some(b)) if len > 0 => Some((p as f64 - b as f64 - len as f64) / len as f64),
        _ => None,
    };
    if json {
        let summary = serde_json::json!({
            "bytes": len,
            "seconds": seconds,
            "mb_per_s": mb_per_s,
            "peak_rss_bytes": peak,
            "peak_over_output": over,
            "baseline_rss_bytes": baseline,
            "extra_over_output": extra,
            "threads": workers,
            "chunks": chunks,
        });
        println!("{summary}");
    } else {
        let rss = match (peak, over) {
            (Some(p), Some(o)) => format!("peak RSS {:.1} MB ({o:.3}x the output)", p as f64 / 1e6),
            (Some(p), None) => format!("peak RSS {:.1} MB", p as f64 / 1e6),
            _ => "peak RSS unknown".to_owned(),
        };
        eprintln!(
            "read {len} bytes in {seconds:.3} s ({mb_per_s:.1} MB/s) with {workers} thread(s) from {chunks} chunk(s); {rss}"
        );
    }
    Ok(())
}
