//! `zinto merge`: variable-size chunk files concatenated into one exact buffer, then its
//! fixed-width records sorted in place by a key field.

use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use crate::core::codec::{BytesCodecs, Checksums, Compressor};
use crate::core::formats::npy::MAGIC as NPY_MAGIC;
use crate::core::records::{RecordLayout, prepare_keys, sort_records_by_key_stable};
use crate::{ConcatPiece, ConcatPlan, FileStore, ReadOptions, SegmentFormat, SegmentsHeld, Store};

use crate::cli::{AnyStore, Failure, StoreArgs, check_output, rss, write_output};

/// Scratch for `--stable`: merges whose smaller side fits are one pass; larger ones split.
pub const STABLE_SCRATCH_LEN: usize = 16 << 20;

/// How the chunk files are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CodecArg {
    /// By file name (`.npy`, `.msgpack`, `.zst` / `.zstd`, `.gz`), else by the first bytes
    /// (the `.npy`, zstd and gzip magic numbers), else raw.
    Auto,
    /// NumPy `.npy` files (`np.save`): type and shape from their headers.
    Npy,
    /// Arrays packed by msgpack-numpy: type and shape from their headers.
    Msgpack,
    /// Uncompressed bytes.
    Raw,
    /// One zstd frame per file, with its content size (as `zstd` and one-shot encoders write).
    Zstd,
    /// One gzip member per file.
    Gzip,
}

/// What `zinto merge` was asked to do.
pub struct MergeArgs<'a> {
    pub files: &'a [PathBuf],
    pub remote: StoreArgs,
    pub record_size: Option<NonZeroUsize>,
    pub key: Option<&'a str>,
    pub codec: CodecArg,
    pub stable: bool,
    pub threads: Option<NonZeroUsize>,
    pub out: Option<&'a Path>,
    pub json: bool,
}

/// Parses `TYPE@OFFSET`, with an optional `le`/`be` after the type (`f64@8`, `u32be@0`), or,
/// for segment files, `col=N`: the row's N-th number, of the segments' type.
pub fn parse_key(
    spec: &str,
    record_size: usize,
    held: Option<&SegmentsHeld>,
) -> Result<RecordLayout, String> {
    match held {
        Some(held) => held.key_layout(spec).map_err(|e| format!("--{e}")),
        None if spec.starts_with("col=") => Err(format!(
            "--key {spec:?}: col= needs files that carry their type (.npy, msgpack-numpy)"
        )),
        None => RecordLayout::parse(spec, record_size).map_err(|e| format!("--key {spec:?}: {e}")),
    }
}

/// The format of the file at `key` of `store`, by its name, else by its first bytes.
fn codec_of(store: &dyn Store, key: &str) -> CodecArg {
    match Path::new(key)
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("npy") => CodecArg::Npy,
        Some("msgpack" | "msgpk" | "mpk") => CodecArg::Msgpack,
        Some("zst" | "zstd") => CodecArg::Zstd,
        Some("gz") => CodecArg::Gzip,
        _ => sniff(store, key),
    }
}

/// The format by the file's first bytes: the `.npy`, zstd and gzip magic numbers, else raw
/// (also for a file that cannot be read: the read proper then says why).
fn sniff(store: &dyn Store, key: &str) -> CodecArg {
    let mut head = [0u8; 6];
    let n = match store.size(key) {
        Ok(Some(len)) => usize::try_from(len).unwrap_or(usize::MAX).min(head.len()),
        _ => 0,
    };
    let Some(head) = head.get_mut(..n) else {
        return CodecArg::Raw;
    };
    if store.read_into(key, 0, head).is_err() {
        return CodecArg::Raw;
    }
    match &*head {
        h if h.starts_with(NPY_MAGIC) => CodecArg::Npy,
        [0x28, 0xB5, 0x2F, 0xFD, ..] => CodecArg::Zstd,
        [0x1F, 0x8B, ..] => CodecArg::Gzip,
        _ => CodecArg::Raw,
    }
}

/// How the files are read: as segments with headers, or as chunks of bytes.
enum Inputs {
    Segments(SegmentFormat),
    Chunks(BytesCodecs),
}

fn resolve_codec(codec: CodecArg, store: &dyn Store, keys: &[String]) -> Result<Inputs, Failure> {
    let codec = if codec == CodecArg::Auto {
        let first = keys.first().map_or(CodecArg::Raw, |k| codec_of(store, k));
        if let Some(other) = keys.iter().find(|k| codec_of(store, k) != first) {
            return Err(Failure::Usage(format!(
                "{other} is not stored like {} (by its name or first bytes); pass --codec",
                keys.first().map_or("", String::as_str)
            )));
        }
        first
    } else {
        codec
    };
    let compressor = match codec {
        CodecArg::Npy => return Ok(Inputs::Segments(SegmentFormat::Npy)),
        CodecArg::Msgpack => return Ok(Inputs::Segments(SegmentFormat::MsgpackNumpy)),
        CodecArg::Zstd => Some(Compressor::ZSTD),
        CodecArg::Gzip => Some(Compressor::GZIP),
        CodecArg::Raw | CodecArg::Auto => None,
    };
    Ok(Inputs::Chunks(BytesCodecs {
        compressor,
        checksums: Checksums::NONE,
    }))
}

/// The store the files are in, and their keys: absolute paths in a store rooted at `/`, so
/// that errors name the file; or, for URLs (all on one bucket or server), paths below it.
fn inputs_of(files: &[PathBuf], remote: StoreArgs) -> Result<(AnyStore, Vec<String>), Failure> {
    let urls: Vec<&str> = files
        .iter()
        .filter_map(|f| f.to_str().filter(|s| s.contains("://")))
        .collect();
    if urls.is_empty() {
        let mut keys = Vec::with_capacity(files.len());
        for file in files {
            let path = std::fs::canonicalize(file)
                .map_err(|e| Failure::Other(format!("{}: {e}", file.display())))?;
            let key = path
                .to_str()
                .ok_or_else(|| Failure::Other(format!("{}: path is not UTF-8", file.display())))?;
            keys.push(key.to_owned());
        }
        return Ok((std::sync::Arc::new(FileStore::new("/")), keys));
    }
    if urls.len() != files.len() {
        return Err(Failure::Usage(
            "a mix of local files and URLs: pass either".into(),
        ));
    }
    let options = crate::cli::remote_options(remote);
    let (store, keys) = crate::store::objects(&urls, options).map_err(|e| match e {
        crate::StoreError::BadUrl { .. } => Failure::Usage(e.to_string()),
        other => Failure::Other(other.to_string()),
    })?;
    Ok((std::sync::Arc::new(store), keys))
}

/// Runs `zinto merge`.
pub fn merge(args: &MergeArgs<'_>) -> Result<(), Failure> {
    check_output(args.out, args.json)?;
    let (store, keys) = inputs_of(args.files, args.remote)?;
    let inputs = resolve_codec(args.codec, store.as_ref(), &keys)?;
    let npy_out = args.out.is_some_and(|p| {
        p.extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e.eq_ignore_ascii_case("npy"))
    });
    let threads = ReadOptions {
        threads: args.threads,
        progress: None,
        ..ReadOptions::default()
    }
    .workers();

    let baseline = rss::current_rss_bytes();
    let start = Instant::now();
    let (plan, held) = plan_of(&store, &keys, inputs, npy_out)?;
    let record_size = record_size_of(held.as_ref(), args.record_size)?;
    let layout = args
        .key
        .map(|k| parse_key(k, record_size, held.as_ref()))
        .transpose()
        .map_err(Failure::Usage)?;
    let prepare = layout.as_ref().filter(|_| !args.stable);
    let mut buf = decode(&store, &plan, record_size, prepare, threads)?;
    let decode_seconds = start.elapsed().as_secs_f64();

    let sort_start = Instant::now();
    if let Some(layout) = &layout {
        sort(&mut buf, layout, args.stable, threads)?;
    }
    let sort_seconds = sort_start.elapsed().as_secs_f64();

    let write_start = Instant::now();
    match (&held, npy_out) {
        (Some(h), true) => write_npy(args.out, h, &buf)?,
        _ => write_output(args.out, &buf)?,
    }
    let summary = Summary {
        files: keys.len(),
        bytes: buf.len(),
        records: buf.len() / record_size,
        sorted: layout.is_some(),
        threads,
        seconds: [
            decode_seconds,
            sort_seconds,
            write_start.elapsed().as_secs_f64(),
        ],
        baseline,
    };
    summary.print(args, held.as_ref());
    Ok(())
}

/// The plan of the merge: segments whose headers say their rows, or chunks of one codec.
fn plan_of(
    store: &AnyStore,
    keys: &[String],
    inputs: Inputs,
    npy_out: bool,
) -> Result<(ConcatPlan, Option<SegmentsHeld>), Failure> {
    match inputs {
        Inputs::Segments(format) => ConcatPlan::segments(store, keys, format)
            .map_err(|e| Failure::Other(e.to_string())),
        Inputs::Chunks(_) if npy_out => Err(Failure::Usage(
            "--out FILE.npy needs files that carry their type (.npy, msgpack-numpy); raw, zstd and gzip chunks are written raw".into(),
        )),
        Inputs::Chunks(codecs) => ConcatPlan::new(store, keys, codecs)
            .map(|plan| (plan, None))
            .map_err(|e| Failure::Other(e.to_string())),
    }
}

/// The record size: the segments' row, which `--record-size` must match if given, or the
/// one `--record-size` gives for chunks that do not say.
fn record_size_of(
    held: Option<&SegmentsHeld>,
    given: Option<NonZeroUsize>,
) -> Result<usize, Failure> {
    match (held, given) {
        (Some(h), given) => {
            let row = usize::try_from(h.row_len())
                .ok()
                .and_then(NonZeroUsize::new)
                .ok_or_else(|| Failure::Other(format!("rows of {} bytes", h.row_len())))?;
            if given.is_some_and(|g| g != row) {
                return Err(Failure::Usage(format!(
                    "--record-size {}: the files hold rows of {} bytes ({}, shape {:?} after the first dimension)",
                    given.map_or(0, NonZeroUsize::get),
                    row,
                    h.dtype,
                    h.row_dims.as_slice()
                )));
            }
            Ok(row.get())
        }
        (None, Some(given)) => Ok(given.get()),
        (None, None) => Err(Failure::Usage(
            "--record-size is needed for raw, zstd and gzip chunk files (.npy and msgpack-numpy files carry it)".into(),
        )),
    }
}

/// Decodes every input into one buffer of the plan's length; with `prepare`, keys are
/// prepared for the parallel sort chunk by chunk as each is decoded, in cache.
fn decode(
    store: &AnyStore,
    plan: &ConcatPlan,
    record_size: usize,
    prepare: Option<&RecordLayout>,
    threads: NonZeroUsize,
) -> Result<Vec<u8>, Failure> {
    if let Some(piece) = plan.pieces().iter().find(|p| p.len % record_size != 0) {
        return Err(Failure::Other(format!(
            "chunk {}: decodes to {} bytes, not a whole number of {record_size}-byte records",
            piece.key, piece.len
        )));
    }
    let len = plan.len();
    let mut buf = crate::zeroed_buffer(len)
        .ok_or_else(|| Failure::Other(format!("cannot allocate {len} bytes for the output")))?;
    let options = ReadOptions {
        threads: Some(threads),
        progress: None,
        ..ReadOptions::default()
    };
    let unprepared = AtomicBool::new(false);
    let then = |_: &ConcatPiece, bytes: &mut [u8]| {
        if let Some(layout) = prepare
            && prepare_keys(bytes, layout).is_err()
        {
            unprepared.store(true, Ordering::Relaxed); // not whole records: checked above
        }
    };
    plan.read_into_and_then(store, &mut buf, &options, &then)
        .map_err(|e| Failure::Other(e.to_string()))?;
    if unprepared.load(Ordering::Relaxed) {
        return Err(Failure::Other("a chunk is not whole records".into()));
    }
    Ok(buf)
}

/// Sorts the records of `buf` by `layout`'s key: stable in one pass, or in parallel on keys
/// prepared while decoding.
fn sort(
    buf: &mut [u8],
    layout: &RecordLayout,
    stable: bool,
    threads: NonZeroUsize,
) -> Result<(), Failure> {
    let sorted = if stable {
        let mut scratch = vec![0u8; STABLE_SCRATCH_LEN.min(buf.len() / 2)];
        sort_records_by_key_stable(buf, layout, &mut scratch)
    } else {
        crate::sort_prepared_parallel(buf, layout, threads)
            .and_then(|()| crate::restore_keys_parallel(buf, layout, threads))
    };
    sorted.map_err(|e| Failure::Other(e.to_string()))
}

/// What a merge did, for its summary line or `--json`.
struct Summary {
    files: usize,
    bytes: usize,
    records: usize,
    sorted: bool,
    threads: NonZeroUsize,
    /// Decoding, sorting, writing.
    seconds: [f64; 3],
    baseline: Option<u64>,
}

impl Summary {
    fn print(&self, args: &MergeArgs<'_>, held: Option<&SegmentsHeld>) {
        let peak = rss::peak_rss_bytes();
        let over = match (peak, self.baseline) {
            (Some(p), Some(b)) if self.bytes > 0 => Some((p as f64 - b as f64) / self.bytes as f64),
            _ => None,
        };
        let [decode_seconds, sort_seconds, write_seconds] = self.seconds;
        if args.json {
            let summary = serde_json::json!({
                "files": self.files,
                "bytes": self.bytes,
                "records": self.records,
                "sorted": self.sorted,
                "stable": args.stable,
                "threads": self.threads.get(),
                "decode_seconds": decode_seconds,
                "sort_seconds": sort_seconds,
                "write_seconds": write_seconds,
                "peak_rss_bytes": peak,
                "baseline_rss_bytes": self.baseline,
                "peak_over_output": over,
                "dtype": held.map(|h| h.dtype.to_string()),
                "shape": held.map(SegmentsHeld::shape),
            });
            // A summary nobody reads any more is no failure.
            let _ = crate::cli::print_line(summary);
        } else {
            // As `read` says it: the ratio only where the output outweighs the process.
            let memory = match (peak, over) {
                (_, Some(o)) if self.bytes >= crate::cli::RATIO_MIN_BYTES => {
                    format!("peak memory {o:.3}x the output")
                }
                (Some(p), _) => format!("peak RSS {:.1} MB", p as f64 / 1e6),
                _ => "peak memory unknown".to_owned(),
            };
            eprintln!(
                "merged {} file(s) into {} records ({} bytes) in {decode_seconds:.3} s, sorted in {sort_seconds:.3} s; {memory}",
                self.files, self.records, self.bytes
            );
        }
    }
}

/// Writes the merged rows as a `.npy` of the segments' type, shaped (rows, row dims...).
fn write_npy(out: Option<&Path>, held: &SegmentsHeld, buf: &[u8]) -> Result<(), Failure> {
    let Some(path) = out else { return Ok(()) };
    let header =
        crate::cli::npy::header(&held.dtype.to_string(), &held.shape()).map_err(Failure::Other)?;
    let written = std::fs::File::create(path).and_then(|f| {
        use std::io::Write;
        let mut w = std::io::BufWriter::new(f);
        w.write_all(&header)?;
        w.write_all(buf)?;
        w.flush()
    });
    written.map_err(|e| Failure::Other(format!("writing {}: {e}", path.display())))
}
