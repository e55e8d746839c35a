//! The `zinto` command, as a library function: the binary (`src/bin/zinto.rs`) and the Python
//! package's `zinto` console script both call [`run`](crate::cli::run).
//!
//! `zinto`: look into a Zarr array, or read (a selection of) it into one buffer.
//!
//! Exit codes: 0 success, 2 usage error (bad arguments or selection), 1 any other error.

mod apart;
mod buffer;
mod convert;
mod create;
mod dates;
mod describe;
mod free_space;
mod info;
mod json_values;
mod merge;
mod npy;
mod output;
mod read;
mod rss;
mod selection;
mod slabs;

use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::redact::{printable_url, scrub};
use crate::store::{ReadAheadBudget, RemoteOptions, RemoteStore, is_remote_url};
use crate::{Array, DataType, FileStore, Node, Store, VlenData};
use clap::{Parser, Subcommand};

use crate::cli::convert::ConvertArgs;
use crate::cli::create::CreateArgs;
use crate::cli::output::Format;

#[derive(Parser)]
#[command(
    name = "zinto",
    version,
    about = "Read chunked, compressed arrays (Zarr v3 and v2) straight into one buffer, and write them from one",
    long_about = "Read chunked, compressed arrays (Zarr v3 and v2) straight into one buffer.\n\n\
        PATH is the directory of an array (the folder holding zarr.json, or .zarray for v2) or \
        of a group (zarr.json, or .zgroup): `info` shows either, `read` reads an array. It may \
        be a URL: s3://bucket/prefix, gs://, az://, http(s)://. Credentials, region and \
        endpoint come from the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, \
        AWS_REGION, AWS_ENDPOINT_URL, AWS_ALLOW_HTTP=true for plain-HTTP endpoints; \
        GOOGLE_SERVICE_ACCOUNT; AZURE_STORAGE_ACCOUNT_NAME, ...).",
    after_help = "Examples:\n  zinto info examples/data/weather.zarr\n  \
        zinto read examples/data/temperature.zarr --select 10:200,5:90 --out part.npy\n  \
        zinto read examples/data/weather.zarr/station --format json\n  \
        zinto read examples/data/temperature.zarr --threads 1 --json\n  \
        zinto info --anonymous s3://bucket/dataset.zarr\n  \
        zinto merge --record-size 24 --key f64@8 --out merged.bin spectra/*.zst"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// For URLs: send requests unsigned (public buckets), whatever credentials the environment
    /// holds.
    #[arg(long, global = true)]
    anonymous: bool,
    /// For URLs: objects fetched ahead of the decoding threads, at most (requests in flight;
    /// default 64).
    #[arg(long, global = true, value_name = "N")]
    in_flight: Option<NonZeroUsize>,
    /// For URLs: bytes of response bodies a read of an unsharded array may hold ahead of its
    /// decoding threads, so that more bodies arrive than threads decode (default: 2% of the output, at least
    /// 8 MiB; 0 holds none ahead).
    #[arg(long, global = true, value_name = "BYTES")]
    read_ahead: Option<u64>,
    /// For URLs: a request (with its retries) gives up after about SECONDS (at most twice
    /// that), so a slow or stalled server cannot hold a command for long (default 300;
    /// decimals allowed: 0.5).
    #[arg(long, global = true, value_name = "SECONDS", value_parser = seconds)]
    timeout: Option<std::time::Duration>,
    /// For URLs: a request fails when no byte arrives for SECONDS: its answer, or the next
    /// part of its body (default 30, and never more than --timeout).
    #[arg(long, global = true, value_name = "SECONDS", value_parser = seconds)]
    stall_timeout: Option<std::time::Duration>,
    /// For directories: refuse every symbolic link inside the array or group, on reads (info,
    /// read, convert's source) and writes (create, convert's destination) alike (each a store
    /// error naming the link), so that nothing outside it is read or written through one. By
    /// default reads follow links and writes refuse only those that lead out of the
    /// destination. Refused where no directory is named (URLs, merge, which reads the files it
    /// is given as named).
    #[arg(long, global = true)]
    no_symlinks: bool,
}

/// A positive number of seconds, decimals allowed (`30`, `0.5`).
fn seconds(text: &str) -> Result<std::time::Duration, String> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s > 0.0 && *s < 1e9)
        .map(std::time::Duration::from_secs_f64)
        .ok_or_else(|| format!("{text:?} is not a positive number of seconds (30, 0.5)"))
}

/// How to reach stores, from the command line.
#[derive(Clone, Copy)]
struct StoreArgs {
    anonymous: bool,
    in_flight: Option<NonZeroUsize>,
    read_ahead: Option<u64>,
    timeout: Option<std::time::Duration>,
    stall_timeout: Option<std::time::Duration>,
    /// Refuse symbolic links inside a directory store.
    no_symlinks: bool,
}

/// The store of a command: a directory or an object-store URL.
type AnyStore = Arc<dyn Store>;

#[derive(Subcommand)]
enum Command {
    /// Show an array (format, shape, type, chunking, codecs, fill value, storage, dimension
    /// names, attributes), or the tree of a group's hierarchy with each array's summary.
    #[command(
        after_help = "Examples:\n  zinto info examples/data/temperature.zarr\n  \
        zinto info examples/data/weather.zarr\n  zinto info --json examples/data/weather.zarr"
    )]
    Info {
        /// The array's or group's directory (or URL).
        path: PathBuf,
        /// Print one JSON object instead: an array's fields (node_type, name, path,
        /// zarr_format, shape, dtype, numpy_dtype, chunks, shards, codecs, fill_value,
        /// dimension_names, attributes), or a group's (node_type, name, path, zarr_format,
        /// consolidated, attributes, members: the same objects, nested).
        #[arg(long)]
        json: bool,
    },
    /// Read the array (or a selection) into one buffer; write it as .npy, JSON or raw bytes,
    /// or discard it.
    #[command(after_help = "Examples:\n  \
        zinto read examples/data/temperature.zarr\n  \
        zinto read examples/data/temperature.zarr --select 10:200,5:90 --out part.npy\n  \
        zinto read examples/data/temperature.zarr --select -1,-10: --format json\n  \
        zinto read examples/data/temperature.zarr --select 3 --out - | od -f | head")]
    Read {
        /// The array's directory (or URL).
        array: PathBuf,
        /// What to read, NumPy-like, one item per dimension separated by commas:
        /// `start:stop[:step]`, `:`, `start:`, `:stop`, an index, a list of indices
        /// `[3,1,-1]` (any order, repeats), or `...`. Negative values count from the end;
        /// stops past the end are clamped; an index drops its dimension from .npy and JSON
        /// output (raw bytes are the same either way). Lists and steps select along their
        /// dimension each on its own (as zarr-python's oindex) into one buffer (--memory does
        /// not apply), numbers only. Missing trailing items select whole dimensions. Example:
        /// `--select 10:200,-5:` or `--select '[3,1,7],::2'`.
        #[arg(
            long,
            short,
            value_name = "SEL",
            default_value = "",
            allow_hyphen_values = true
        )]
        select: String,
        /// Worker threads (default: one per core). Example: `--threads 1`.
        #[arg(long, short, value_name = "N")]
        threads: Option<NonZeroUsize>,
        /// Write the data to FILE (`-` for stdout, which must not be a terminal for binary
        /// formats). Without it, the data is read and discarded (useful to time a read), or
        /// printed for `--format json`. Example: `--out part.npy`.
        #[arg(long, short, value_name = "FILE")]
        out: Option<PathBuf>,
        /// How to write the data: `npy` (NumPy, for `np.load`), `json` (nested lists, for small
        /// selections), or `raw` (C-order bytes, native byte order). Default: from the --out
        /// extension (.npy, .json), else raw.
        #[arg(long, value_enum, value_name = "FORMAT")]
        format: Option<Format>,
        /// With --out (npy or raw): bytes the read's buffer may take. A larger selection is
        /// read and written in slabs of whole shards or chunks along its first dimension longer
        /// than one, so an array larger than memory exports with bounded resident memory.
        /// Default 1 GiB, and then at least one row of chunks; a value given is a bound (a row
        /// of chunks over it is refused). Strings, JSON and reads without --out are read into
        /// one buffer whatever this says.
        #[arg(long, value_name = "BYTES")]
        memory: Option<u64>,
        /// The most one chunk of strings or bytes may decode to (default 1 GiB): a larger one
        /// is refused (a chunk of a few KB can decode to gigabytes). Fixed-size types need no
        /// limit.
        #[arg(long, value_name = "BYTES")]
        decoded_chunk_limit: Option<u64>,
        /// Write --out even if its file system has less free space than the output needs
        /// (by default refused before anything is written: the bytes needed and free are named).
        #[arg(long)]
        no_space_check: bool,
        /// Print the summary as one JSON object on stdout instead of a line on stderr.
        /// Keys: bytes, shape, dtype, seconds (reading), mb_per_s, peak_rss_bytes,
        /// peak_over_output, baseline_rss_bytes (before the read), extra_over_output
        /// ((peak - baseline - buffer) / bytes, the buffer the whole output, or the slab's),
        /// threads, chunks.
        #[arg(long)]
        json: bool,
    },
    /// Create an array from a `.npy` file: chunked, encoded and written by one worker per
    /// core, each chunk straight from the file's data.
    #[command(after_help = "Examples:\n  \
        zinto create t.zarr --from t.npy --chunks 90,120 --codec zstd:3\n  \
        zinto create t2.zarr --from t.npy --chunks 90,120 --codec gzip:5 --zarr-format 2\n  \
        zinto create t3.zarr --from t.npy --chunks 90,120 --codec zstd --codec crc32c --json")]
    Create(CreateArgs),
    /// Re-encode an array into a new one (Zarr v2 to v3 included, optionally rechunked), in
    /// slabs of whole destination chunks: each slab is read into one buffer of at most
    /// `--memory` bytes and written from it before the next is read.
    #[command(after_help = "Examples:\n  \
        zinto convert examples/data/legacy_v2.zarr legacy_v3.zarr\n  \
        zinto convert old.zarr new.zarr --chunks 10,1000,1000 --codec zstd:5 --memory 512000000")]
    Convert(ConvertArgs),
    /// Concatenate variable-size chunk files into one exact buffer and sort its records by a
    /// key field, in place.
    #[command(after_help = "Examples:\n  \
        zinto merge --record-size 24 --key f64@8 --out merged.bin spectra/*.zst\n  \
        zinto merge --record-size 12 --key f32@4 --stable --out - part*.bin | od -f | head\n  \
        zinto merge --record-size 8 --out all.bin a.gz b.gz\n  \
        zinto merge --key col=1 --out merged.npy segm-*.npy")]
    Merge {
        /// The chunk files, concatenated in this order. Each must decode to whole records.
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
        /// Bytes per record. Example: `--record-size 24` for [index, m/z, intensity] as f64.
        /// Needed for raw, zstd and gzip files; `.npy` and msgpack-numpy files carry it (a
        /// (n, 3) float64 array has 24-byte rows).
        #[arg(long, value_name = "BYTES")]
        record_size: Option<NonZeroUsize>,
        /// Sort by this field: TYPE@OFFSET, TYPE one of f32 f64 i32 i64 u32 u64, little endian
        /// unless suffixed `be` (`f64be@8`); or, for `.npy` and msgpack-numpy files, `col=N`,
        /// the row's N-th number. Floats sort -0.0 before +0.0, NaNs last. Without --key the
        /// files are only concatenated. Examples: `--key f64@8`, `--key col=1`.
        #[arg(long, value_name = "TYPE@OFFSET|col=N")]
        key: Option<String>,
        /// How the files are stored (`auto`: `.npy`, `.msgpack`, `.zst` zstd, `.gz` gzip by
        /// name, else the `.npy`, zstd and gzip magic numbers, else raw).
        #[arg(long, value_enum, default_value = "auto")]
        codec: merge::CodecArg,
        /// Keep records with equal keys in input order (one thread; 16 MiB of scratch).
        #[arg(long)]
        stable: bool,
        /// Worker threads for decoding and sorting (default: one per core).
        #[arg(long, short, value_name = "N")]
        threads: Option<NonZeroUsize>,
        /// Write the merged records to FILE (`-` for stdout). Without it, they are merged,
        /// sorted and discarded (useful to time it). A FILE ending in `.npy`, from `.npy` or
        /// msgpack-numpy files, is a `.npy` of their type and shape (rows stacked), as
        /// `np.concatenate` and a sort by the key would give it.
        #[arg(long, short, value_name = "FILE")]
        out: Option<PathBuf>,
        /// Print the summary as one JSON object on stdout. Keys: files, bytes, records, sorted,
        /// stable, threads, decode_seconds, sort_seconds, write_seconds, peak_rss_bytes,
        /// baseline_rss_bytes, peak_over_output ((peak - baseline) / bytes).
        #[arg(long)]
        json: bool,
    },
}

/// An error and the exit code it deserves.
#[derive(Debug)]
enum Failure {
    Usage(String),
    Other(String),
    /// Its reader closed stdout (`zinto info | head`): it has what it wanted, so `zinto` ends
    /// quietly with exit 0.
    StdoutClosed,
}

impl Failure {
    /// An error writing `what`; a closed pipe is [`Failure::StdoutClosed`], not a failure.
    fn writing(what: &str, e: &std::io::Error) -> Self {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            Self::StdoutClosed
        } else {
            Self::Other(format!("writing {what}: {e}"))
        }
    }
}

/// Prints `text` and a newline on stdout (where `println!` would panic on a closed pipe).
fn print_line(text: impl std::fmt::Display) -> Result<(), Failure> {
    use std::io::Write;
    writeln!(std::io::stdout().lock(), "{text}").map_err(|e| Failure::writing("stdout", &e))
}

/// Runs the command with `args` (the program's name first, as [`std::env::args_os`] gives
/// them), printing to stdout and stderr; returns the exit code: 0 success, 2 usage error,
/// 1 any other error.
///
/// ```
/// let code = zinto::cli::run(["zinto", "--version"]);
/// assert_eq!(code, 0);
/// ```
pub fn run<I, T>(args: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            // clap prints help and version to stdout (exit 0), usage errors to stderr (exit 2);
            // an argument it quotes may be a URL with a secret.
            let rendered = scrub(&e.render().to_string()).into_owned();
            let _ = if e.use_stderr() {
                std::io::Write::write_all(&mut std::io::stderr(), rendered.as_bytes())
            } else {
                std::io::Write::write_all(&mut std::io::stdout(), rendered.as_bytes())
            };
            return if e.use_stderr() { 2 } else { 0 };
        }
    };
    let remote = StoreArgs {
        anonymous: cli.anonymous,
        in_flight: cli.in_flight,
        read_ahead: cli.read_ahead,
        timeout: cli.timeout,
        stall_timeout: cli.stall_timeout,
        no_symlinks: cli.no_symlinks,
    };
    let result =
        check_no_symlinks(&cli.command, remote).and_then(|()| dispatch(cli.command, remote));
    match result {
        Ok(()) | Err(Failure::StdoutClosed) => 0,
        Err(Failure::Usage(msg)) => {
            eprintln!("zinto: usage error: {}", scrub(&msg));
            2
        }
        Err(Failure::Other(msg)) => {
            eprintln!("zinto: error: {}", scrub(&msg));
            1
        }
    }
}

/// Runs `command`.
fn dispatch(command: Command, remote: StoreArgs) -> Result<(), Failure> {
    match command {
        Command::Info { path, json } => info(&path, json, remote),
        Command::Read {
            array,
            select,
            threads,
            out,
            format,
            memory,
            decoded_chunk_limit,
            no_space_check,
            json,
        } => read::read(&read::ReadArgs {
            dir: &array,
            remote,
            select: &select,
            threads,
            out: out.as_deref(),
            format,
            memory,
            decoded_chunk_limit,
            space_check: !no_space_check,
            json,
        }),
        Command::Create(args) => create::create(&args, remote),
        Command::Convert(args) => convert::convert(&args, remote),
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
            remote,
            record_size,
            key: key.as_deref(),
            codec,
            stable,
            threads,
            out: out.as_deref(),
            json,
        }),
    }
}

/// The command line's settings for remote stores.
fn remote_options(remote: StoreArgs) -> RemoteOptions {
    let mut options = RemoteOptions {
        anonymous: remote.anonymous,
        ..RemoteOptions::default()
    };
    if let Some(n) = remote.in_flight {
        options.in_flight = n;
    }
    if let Some(bytes) = remote.read_ahead {
        options.read_ahead = ReadAheadBudget::Bytes(bytes);
    }
    if let Some(stall) = remote.stall_timeout {
        options.stall_timeout = stall;
    }
    if let Some(timeout) = remote.timeout {
        options = options.with_timeout(timeout);
    }
    options
}

/// A store over the URL `url`, with the command line's settings.
fn remote_store(url: &str, remote: StoreArgs) -> Result<RemoteStore, Failure> {
    RemoteStore::from_url_with(url, remote_options(remote))
        .map_err(|e| Failure::Other(e.to_string()))
}

/// The store a command writes into at `path`: a directory (made as needed), or a URL.
fn store_to_write(path: &Path, remote: StoreArgs) -> Result<AnyStore, Failure> {
    match path.to_str().filter(|p| p.contains("://")) {
        Some(url) if is_remote_url(url) => Ok(Arc::new(remote_store(url, remote)?)),
        Some(url) => Err(Failure::Usage(format!(
            "{}: not a store zinto writes (s3://, gs://, az://, or a directory)",
            printable_url(url)
        ))),
        None => Ok(Arc::new(file_store(path, remote))),
    }
}

/// The directory store at `path`, refusing links if `--no-symlinks` says so.
fn file_store(path: &Path, remote: StoreArgs) -> FileStore {
    match remote.no_symlinks {
        true => FileStore::new(path).without_symlinks(),
        false => FileStore::new(path),
    }
}

/// Refuses `--no-symlinks` where it would do nothing: a command that names no directory.
fn check_no_symlinks(command: &Command, remote: StoreArgs) -> Result<(), Failure> {
    if !remote.no_symlinks {
        return Ok(());
    }
    let is_dir = |p: &Path| !p.to_str().is_some_and(|s| s.contains("://"));
    let names_a_dir = match command {
        Command::Info { path, .. } => is_dir(path),
        Command::Read { array, .. } => is_dir(array),
        Command::Create(args) => is_dir(&args.dst),
        Command::Convert(args) => is_dir(&args.src) || is_dir(&args.dst),
        Command::Merge { .. } => false,
    };
    if names_a_dir {
        return Ok(());
    }
    Err(Failure::Usage(
        "--no-symlinks applies to array and group directories, and this command names none \
         (URLs have no links; merge reads the files it is given as named)"
            .into(),
    ))
}

/// Opens what is at `path` (a directory or a URL): an array or a group, with messages for what
/// it is not.
fn open_node(path: &Path, remote: StoreArgs) -> Result<Node<AnyStore>, Failure> {
    let shown = path.display();
    if let Some(url) = path.to_str().filter(|p| p.contains("://")) {
        let shown = printable_url(url);
        if !is_remote_url(url) {
            return Err(Failure::Usage(format!(
                "{shown}: not a store zinto reads (s3://, gs://, az://, http(s)://, or a directory)"
            )));
        }
        let store: AnyStore = Arc::new(remote_store(url, remote)?);
        return Node::open(store, "").map_err(|e| Failure::Other(format!("{shown}: {}", e.kind())));
    }
    if path.is_file() {
        let hint = match (path.file_name().and_then(|n| n.to_str()), path.parent()) {
            (Some("zarr.json" | ".zarray" | ".zgroup" | ".zattrs"), Some(dir)) => {
                format!("; pass the directory ({})", dir.display())
            }
            _ => "; pass the directory of an array or group".to_owned(),
        };
        return Err(Failure::Other(format!("{shown} is a file{hint}")));
    }
    if !path.is_dir() {
        return Err(Failure::Other(format!("{shown}: no such directory")));
    }
    let store: AnyStore = Arc::new(file_store(path, remote));
    Node::open(store, "").map_err(|e| Failure::Other(format!("{shown}: {}", e.kind())))
}

/// Opens the array at `dir`; a group is named with its members.
fn open(dir: &Path, remote: StoreArgs) -> Result<Array<AnyStore>, Failure> {
    match open_node(dir, remote)? {
        Node::Array(a) => Ok(a),
        Node::Group(g) => {
            let names: Vec<String> = match g.members() {
                Ok(m) => m.into_iter().map(|m| m.name).collect(),
                Err(e) => {
                    return Err(Failure::Other(format!(
                        "{} is a group, not an array (its members could not be listed: {})",
                        dir.display(),
                        e.kind()
                    )));
                }
            };
            let example = names.first().map_or_else(String::new, |first| {
                format!(", such as {}", dir.join(first).display())
            });
            Err(Failure::Other(format!(
                "{} is a group (members: {}), not an array: pass an array's directory{example}",
                dir.display(),
                names.join(", ")
            )))
        }
    }
}

/// Refuses `--json` with `--out -`: both would print to stdout.
fn check_output(out: Option<&Path>, json: bool) -> Result<(), Failure> {
    if json && out.is_some_and(|p| p.as_os_str() == "-") {
        return Err(Failure::Usage(
            "--json prints to stdout: it cannot be combined with --out -".into(),
        ));
    }
    Ok(())
}

/// Writes `buf` to the `--out` file, or stdout for `-`; nothing without `--out`.
fn write_output(out: Option<&Path>, buf: &[u8]) -> Result<(), Failure> {
    let Some(path) = out else { return Ok(()) };
    let written = if path.as_os_str() == "-" {
        use std::io::Write;
        std::io::stdout().lock().write_all(buf)
    } else {
        std::fs::write(path, buf)
    };
    written.map_err(|e| Failure::writing(&path.display().to_string(), &e))
}

fn info(path: &Path, json: bool, remote: StoreArgs) -> Result<(), Failure> {
    // A URL as it may be printed: without its password or signature.
    let shown = match path.to_str().filter(|p| p.contains("://")) {
        Some(url) => printable_url(url),
        None => path.display().to_string(),
    };
    let name = Path::new(&shown)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(&shown)
        .to_owned();
    match open_node(path, remote)? {
        Node::Array(array) => {
            let storage = info::storage(&array).map_err(Failure::Other)?;
            if json {
                let mut obj = info::array_json(&array, &name);
                if let Some(map) = obj.as_object_mut() {
                    map.insert("chunks_in_all".into(), storage.chunks.into());
                    if let Some((present, stored)) = storage.counted {
                        map.insert("chunks_present".into(), present.into());
                        map.insert("stored_bytes".into(), stored.into());
                    }
                    if let Some(sep) = storage.other_separator {
                        let sep = sep.to_string();
                        map.insert("chunks_under_other_separator".into(), sep.into());
                    }
                }
                print_line(obj)?;
            } else {
                print_line(info::array_text(&array, &shown, &storage).join("\n"))?;
            }
        }
        Node::Group(group) => {
            if json {
                let obj = info::group_json(&group, &name).map_err(Failure::Other)?;
                print_line(obj)?;
            } else {
                let lines = info::group_tree(&group, &shown).map_err(Failure::Other)?;
                print_line(lines.join("\n"))?;
            }
        }
    }
    Ok(())
}

/// What a read produced.
enum Data {
    /// Fixed-size elements, C order, native byte order.
    Fixed(buffer::OutBuf),
    /// Variable-length elements.
    Vlen(VlenData),
}

/// Outputs at least this large get the peak-memory ratio in the summary line; below it the
/// process's own memory dwarfs the output and the ratio means nothing.
pub(crate) const RATIO_MIN_BYTES: usize = 1 << 20;

/// What a read did, for its summary line or `--json`.
struct ReadSummary {
    len: usize,
    seconds: f64,
    baseline: Option<u64>,
    /// Bytes of the buffer the data went through (the whole output, one slab, or none),
    /// not counted as extra memory.
    held: usize,
    workers: usize,
    chunks: u64,
    /// A write (`create`): the bytes are the input's, not an output's.
    wrote: bool,
}

impl ReadSummary {
    fn print(&self, json: bool, out_shape: &[u64], dtype: DataType) {
        let Self {
            len,
            seconds,
            baseline,
            held,
            workers,
            chunks,
            wrote,
        } = *self;
        let peak = rss::peak_rss_bytes();
        let mb_per_s = if seconds > 0.0 {
            len as f64 / seconds / 1e6
        } else {
            0.0
        };
        let over = peak.filter(|_| len > 0).map(|p| p as f64 / len as f64);
        // What the command cost beyond the buffer its data went through and the process as
        // it was before.
        let extra = match (peak, baseline) {
            (Some(p), Some(b)) if len > 0 => Some((p as f64 - b as f64 - held as f64) / len as f64),
            _ => None,
        };
        if json {
            let summary = serde_json::json!({
                "bytes": len,
                "shape": out_shape,
                "dtype": dtype.to_string(),
                "seconds": seconds,
                "mb_per_s": mb_per_s,
                "peak_rss_bytes": peak,
                "peak_over_output": over,
                "baseline_rss_bytes": baseline,
                (if wrote { "extra_over_input" } else { "extra_over_output" }): extra,
                "threads": workers,
                "chunks": chunks,
            });
            // A summary nobody reads any more is no failure.
            let _ = print_line(summary);
            return;
        }
        let (verb, what, from) = match wrote {
            true => ("wrote", "input", "to"),
            false => ("read", "output", "from"),
        };
        let rss = match (peak, over) {
            (Some(p), Some(o)) if len >= RATIO_MIN_BYTES => {
                format!("peak RSS {:.1} MB ({o:.3}x the {what})", p as f64 / 1e6)
            }
            (Some(p), _) => format!("peak RSS {:.1} MB", p as f64 / 1e6),
            _ => "peak RSS unknown".to_owned(),
        };
        eprintln!(
            "{verb} {len} bytes in {seconds:.3} s ({mb_per_s:.1} MB/s) with {workers} thread(s) {from} {chunks} chunk(s); {rss}"
        );
    }
}
