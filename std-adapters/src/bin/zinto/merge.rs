//! `zinto merge`: variable-size chunk files concatenated into one exact buffer, then its
//! fixed-width records sorted in place by a key field.

use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use zinto::core::codec::{BytesCodecs, Checksums, Compressor};
use zinto::core::records::{RecordLayout, prepare_keys, sort_records_by_key_stable};
use zinto::{ConcatPiece, ConcatPlan, FileStore, ReadOptions};

use crate::{Failure, check_output, rss, write_output};

/// Scratch for `--stable`: merges whose smaller side fits are one pass; larger ones split.
pub const STABLE_SCRATCH_LEN: usize = 16 << 20;

/// How the chunk files are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CodecArg {
    /// By file name: `.zst` / `.zstd` is zstd, `.gz` is gzip, anything else raw.
    Auto,
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
    pub record_size: NonZeroUsize,
    pub key: Option<&'a str>,
    pub codec: CodecArg,
    pub stable: bool,
    pub threads: Option<NonZeroUsize>,
    pub out: Option<&'a Path>,
    pub json: bool,
}

/// Parses `TYPE@OFFSET`, with an optional `le`/`be` after the type: `f64@8`, `u32be@0`.
pub fn parse_key(spec: &str, record_size: usize) -> Result<RecordLayout, String> {
    RecordLayout::parse(spec, record_size).map_err(|e| format!("--key {spec:?}: {e}"))
}

fn codec_of(path: &Path) -> CodecArg {
    match path.extension().and_then(|e| e.to_str()) {
        Some("zst" | "zstd") => CodecArg::Zstd,
        Some("gz") => CodecArg::Gzip,
        _ => CodecArg::Raw,
    }
}

fn resolve_codec(codec: CodecArg, files: &[PathBuf]) -> Result<BytesCodecs, Failure> {
    let codec = if codec == CodecArg::Auto {
        let first = files.first().map_or(CodecArg::Raw, |f| codec_of(f));
        if let Some(other) = files.iter().find(|f| codec_of(f) != first) {
            return Err(Failure::Usage(format!(
                "{} is not stored like {} (by its name); pass --codec",
                other.display(),
                files
                    .first()
                    .map_or_else(String::new, |f| f.display().to_string())
            )));
        }
        first
    } else {
        codec
    };
    let compressor = match codec {
        CodecArg::Zstd => Some(Compressor::ZSTD),
        CodecArg::Gzip => Some(Compressor::GZIP),
        CodecArg::Raw | CodecArg::Auto => None,
    };
    Ok(BytesCodecs {
        compressor,
        checksums: Checksums::NONE,
    })
}

/// Runs `zinto merge`.
pub fn merge(args: &MergeArgs<'_>) -> Result<(), Failure> {
    let record_size = args.record_size.get();
    let layout = args
        .key
        .map(|k| parse_key(k, record_size))
        .transpose()
        .map_err(Failure::Usage)?;
    check_output(args.out, args.json)?;
    let codecs = resolve_codec(args.codec, args.files)?;
    // Keys are absolute paths in a store rooted at `/`, so errors name the file.
    let mut keys = Vec::with_capacity(args.files.len());
    for file in args.files {
        let path = std::fs::canonicalize(file)
            .map_err(|e| Failure::Other(format!("{}: {e}", file.display())))?;
        let key = path
            .to_str()
            .ok_or_else(|| Failure::Other(format!("{}: path is not UTF-8", file.display())))?;
        keys.push(key.to_owned());
    }
    let store = FileStore::new("/");
    let threads = ReadOptions {
        threads: args.threads,
        progress: None,
        ..ReadOptions::default()
    }
    .workers();

    let baseline = rss::current_rss_bytes();
    let start = Instant::now();
    let plan = ConcatPlan::new(&store, &keys, codecs).map_err(|e| Failure::Other(e.to_string()))?;
    if let Some(piece) = plan.pieces().iter().find(|p| p.len % record_size != 0) {
        return Err(Failure::Other(format!(
            "chunk {}: decodes to {} bytes, not a whole number of {record_size}-byte records",
            piece.key, piece.len
        )));
    }
    let len = plan.len();
    let mut buf = zinto::zeroed_buffer(len)
        .ok_or_else(|| Failure::Other(format!("cannot allocate {len} bytes for the output")))?;
    let options = ReadOptions {
        threads: Some(threads),
        progress: None,
        ..ReadOptions::default()
    };
    // For the parallel sort, keys are prepared chunk by chunk as each is decoded, in cache.
    let prepare = layout.filter(|_| !args.stable);
    let unprepared = AtomicBool::new(false);
    let then = |_: &ConcatPiece, bytes: &mut [u8]| {
        if let Some(layout) = &prepare
            && prepare_keys(bytes, layout).is_err()
        {
            unprepared.store(true, Ordering::Relaxed); // not whole records: checked above
        }
    };
    plan.read_into_and_then(&store, &mut buf, &options, &then)
        .map_err(|e| Failure::Other(e.to_string()))?;
    if unprepared.load(Ordering::Relaxed) {
        return Err(Failure::Other("a chunk is not whole records".into()));
    }
    let decode_seconds = start.elapsed().as_secs_f64();

    let sort_start = Instant::now();
    if let Some(layout) = &layout {
        let sorted = if args.stable {
            let mut scratch = vec![0u8; STABLE_SCRATCH_LEN.min(len / 2)];
            sort_records_by_key_stable(&mut buf, layout, &mut scratch)
        } else {
            zinto::sort_prepared_parallel(&mut buf, layout, threads)
                .and_then(|()| zinto::restore_keys_parallel(&mut buf, layout, threads))
        };
        sorted.map_err(|e| Failure::Other(e.to_string()))?;
    }
    let sort_seconds = sort_start.elapsed().as_secs_f64();

    let write_start = Instant::now();
    write_output(args.out, &buf)?;
    let write_seconds = write_start.elapsed().as_secs_f64();

    let peak = rss::peak_rss_bytes();
    let over = match (peak, baseline) {
        (Some(p), Some(b)) if len > 0 => Some((p as f64 - b as f64) / len as f64),
        _ => None,
    };
    let records = len / record_size;
    if args.json {
        let summary = serde_json::json!({
            "files": keys.len(),
            "bytes": len,
            "records": records,
            "sorted": layout.is_some(),
            "stable": args.stable,
            "threads": threads.get(),
            "decode_seconds": decode_seconds,
            "sort_seconds": sort_seconds,
            "write_seconds": write_seconds,
            "peak_rss_bytes": peak,
            "baseline_rss_bytes": baseline,
            "peak_over_output": over,
        });
        println!("{summary}");
    } else {
        let memory = over.map_or_else(
            || "peak memory unknown".to_owned(),
            |o| format!("peak memory {o:.3}x the output"),
        );
        eprintln!(
            "merged {} file(s) into {records} records ({len} bytes) in {decode_seconds:.3} s, sorted in {sort_seconds:.3} s; {memory}",
            keys.len()
        );
    }
    Ok(())
}
