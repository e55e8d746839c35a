//! `zinto read`: an array, or a selection of it, read by the worker pool and written as `.npy`,
//! raw bytes or JSON. Into a file or stdout, fixed-size elements go in slabs of whole chunks
//! (see [`Slabs`]) through one buffer of at most `--memory` bytes, so an array larger than the
//! machine's memory exports with bounded resident memory; without `--out` the selection is
//! read into one buffer (the read a benchmark times).

use std::io::IsTerminal;
use std::num::NonZeroUsize;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::{Array, ReadOptions, Region};

use super::output::{Format, Output};
use super::selection::{self, Selection};
use super::slabs;
use super::{
    AnyStore, Data, Failure, ReadSummary, StoreArgs, buffer, check_output, json_values, open, rss,
};
use crate::slabs::Slabs;

/// The arguments of `zinto read`.
pub struct ReadArgs<'a> {
    pub dir: &'a Path,
    pub remote: StoreArgs,
    pub select: &'a str,
    pub threads: Option<NonZeroUsize>,
    pub out: Option<&'a Path>,
    pub format: Option<Format>,
    pub memory: Option<u64>,
    /// The most one variable-length chunk may decode to (`None`: the library's default).
    pub decoded_chunk_limit: Option<u64>,
    /// Whether `out` is checked against its file system's free space first.
    pub space_check: bool,
    pub json: bool,
}

/// One read: the array, what was asked, and the workers and chunks it takes.
struct Job<'a> {
    array: &'a Array<AnyStore>,
    args: &'a ReadArgs<'a>,
    threads: NonZeroUsize,
    chunks: u64,
}

/// What a read did: bytes out, bytes of the buffer they went through, seconds reading.
struct Done {
    len: usize,
    held: usize,
    reading: Duration,
}

pub fn read(args: &ReadArgs<'_>) -> Result<(), Failure> {
    check_output(args.out, args.json)?;
    let format = Format::choose(args.format, args.out);
    if args.json && format == Format::Json && args.out.is_none() {
        return Err(Failure::Usage(
            "--json and --format json without --out would both print to stdout: add --out FILE"
                .into(),
        ));
    }
    // Before the read: a missing folder or an unwritable file fails now, not after it.
    let output = Output::prepare(args.out, format)?;
    let array = open(args.dir, args.remote)?;
    let dtype = array.dtype();
    if dtype.is_variable_length() && format == Format::Raw && args.out.is_some() {
        return Err(Failure::Usage(format!(
            "{} holds variable-length {dtype} values, which raw bytes cannot hold: write .npy or .json",
            args.dir.display()
        )));
    }
    let sel = selection::parse(args.select, array.shape()).map_err(Failure::Usage)?;
    if let Some(lists) = &sel.lists {
        return read_lists(args, (&array, lists, &sel.output_shape()), (output, format));
    }
    if format == Format::Json {
        check_json_size(&sel.region)?;
    }
    if args.space_check
        && let Some(path) = args.out.filter(|p| p.as_os_str() != "-")
        && let Some(needed) = output_len(&array, &sel, format)?
    {
        let what = format!("--out {}", path.display());
        super::free_space::check(&super::free_space::Output {
            what: &what,
            place: path,
            needed,
        })?;
    }
    let chunks = array
        .metadata()
        .grid
        .pieces(&sel.region)
        .and_then(|p| p.chunk_count())
        .map_err(|e| Failure::Usage(e.to_string()))?;
    let threads = array.workers(&ReadOptions {
        threads: args.threads,
        ..ReadOptions::default()
    });
    let job = Job {
        array: &array,
        args,
        threads,
        chunks,
    };
    let baseline = rss::current_rss_bytes();
    let streamed = dtype.fixed_size().is_some() && format != Format::Json && args.out.is_some();
    let done = match streamed {
        true => job.in_slabs(&sel, output, format)?,
        false => job.whole(&sel, output, format)?,
    };
    let summary = ReadSummary {
        len: done.len,
        seconds: done.reading.as_secs_f64(),
        baseline,
        held: done.held,
        workers: threads
            .get()
            .min(usize::try_from(chunks).unwrap_or(usize::MAX))
            .max(1),
        chunks,
        wrote: false,
    };
    summary.print(args.json, &sel.output_shape(), dtype);
    Ok(())
}

/// A selection with lists or steps (`--select '[3,1,7],:'`): gathered into one buffer of the
/// output (`--memory` does not cut it in slabs), each chunk read once.
fn read_lists(
    args: &ReadArgs<'_>,
    (array, lists, shape): (&Array<AnyStore>, &zinto_core::selection::Selection, &[u64]),
    (output, format): (Output, Format),
) -> Result<(), Failure> {
    let shown = args.dir.display();
    if array.dtype().is_variable_length() {
        return Err(Failure::Usage(format!(
            "{shown} holds variable-length {} values: lists and steps select numbers (read a \
             range of strings instead)",
            array.dtype()
        )));
    }
    let len = array
        .selected_len(lists)
        .map_err(|e| Failure::Usage(e.to_string()))?;
    if format == Format::Json {
        let elements = len / array.metadata().elem_size().max(1);
        if elements as u64 > json_values::MAX_JSON_ELEMENTS {
            return Err(Failure::Usage(format!(
                "--format json is for small selections: this one has {elements} elements, \
                 more than {}; write .npy instead",
                json_values::MAX_JSON_ELEMENTS
            )));
        }
    }
    let mut buf = buffer::zeroed(len)
        .ok_or_else(|| Failure::Other(format!("{shown}: cannot allocate {len} bytes")))?;
    let options = ReadOptions {
        threads: args.threads,
        ..ReadOptions::default()
    };
    let baseline = rss::current_rss_bytes();
    let started = Instant::now();
    array
        .read_selection_into_with(lists, &mut buf, &options)
        .map_err(|e| Failure::Other(format!("{shown}: {e}")))?;
    let seconds = started.elapsed().as_secs_f64();
    output.write(format, array.dtype(), &Data::Fixed(buf), shape)?;
    let chunks =
        zinto_core::selection::Plan::new(lists, &array.metadata().grid).map_or(0, |p| p.count());
    let summary = ReadSummary {
        len,
        seconds,
        baseline,
        held: len,
        workers: array
            .workers(&options)
            .get()
            .min(usize::try_from(chunks).unwrap_or(usize::MAX))
            .max(1),
        chunks,
        wrote: false,
    };
    summary.print(args.json, shape, array.dtype());
    Ok(())
}

/// The bytes `sel` takes written as `format`, where that is known before reading: a
/// fixed-size type's raw bytes or `.npy` (header and data); not for JSON (small by
/// [`check_json_size`]) nor variable-length values.
fn output_len(
    array: &Array<AnyStore>,
    sel: &Selection,
    format: Format,
) -> Result<Option<u64>, Failure> {
    let dtype = array.dtype();
    let (Some(size), false) = (dtype.fixed_size(), format == Format::Json) else {
        return Ok(None);
    };
    let overflow = || Failure::Other("the selection's size overflows".into());
    let data = sel
        .region
        .num_elements()
        .map_err(|e| Failure::Other(e.to_string()))?
        .checked_mul(size as u64)
        .ok_or_else(overflow)?;
    let header = match (format, dtype.numpy_str()) {
        (Format::Npy, Some(descr)) => super::npy::header(&descr, &sel.output_shape())
            .map_err(Failure::Other)?
            .len() as u64,
        _ => 0,
    };
    data.checked_add(header).map(Some).ok_or_else(overflow)
}

/// Refuses a JSON output of more than [`json_values::MAX_JSON_ELEMENTS`] elements.
fn check_json_size(region: &Region) -> Result<(), Failure> {
    let n = region
        .num_elements()
        .map_err(|e| Failure::Other(e.to_string()))?;
    if n > json_values::MAX_JSON_ELEMENTS {
        return Err(Failure::Usage(format!(
            "--format json is for small selections: this one has {n} elements, more than {}; write .npy instead",
            json_values::MAX_JSON_ELEMENTS
        )));
    }
    Ok(())
}

impl Job<'_> {
    /// The selection into one buffer, then written whole.
    fn whole(&self, sel: &Selection, output: Output, format: Format) -> Result<Done, Failure> {
        let started = Instant::now();
        let data = self.read_data(&sel.region)?;
        let reading = started.elapsed();
        let len = match &data {
            Data::Fixed(buf) => buf.len(),
            Data::Vlen(v) => v
                .values()
                .len()
                .saturating_add(v.offsets().len().saturating_mul(8)),
        };
        output.write(format, self.array.dtype(), &data, &sel.output_shape())?;
        Ok(Done {
            len,
            held: len,
            reading,
        })
    }

    /// The selection slab by slab through one buffer, each slab written before the next is
    /// read.
    fn in_slabs(&self, sel: &Selection, output: Output, format: Format) -> Result<Done, Failure> {
        let shown = self.args.dir.display();
        let slabs = self.slabs(&sel.region)?;
        let mut stream = output.begin(format, self.array.dtype(), &sel.output_shape())?;
        let bar = self.progress_bar();
        let mut reading = Duration::ZERO;
        let (len, held) = slabs::run(&slabs, |region, part| {
            let before = bar.position();
            let progress = |done: u64, _total: u64| bar.set_position(before + done);
            let started = Instant::now();
            self.array
                .read_into_with(region, part, &self.options(&progress))
                .map_err(|e| Failure::Other(format!("{shown}: {e}")))?;
            reading += started.elapsed();
            stream.append(part)
        })?;
        stream.finish()?;
        bar.finish_and_clear();
        Ok(Done { len, held, reading })
    }

    /// The selection's slabs: of whole shards where one row of them fits the memory (so no
    /// shard's index is read for each slab), else of whole chunks.
    fn slabs(&self, region: &Region) -> Result<Slabs, Failure> {
        let elem = self.array.metadata().elem_size() as u64;
        let chunks = self.array.chunk_shape();
        if let Some(shards) = self.array.shard_shape()
            && let Ok(slabs) = slabs::cut(region, shards, elem, Some(self.memory()))
        {
            return Ok(slabs);
        }
        slabs::cut(region, chunks, elem, self.args.memory)
    }

    /// The memory the read's buffer may take: `--memory`, else the default.
    fn memory(&self) -> u64 {
        self.args.memory.unwrap_or(super::slabs::DEFAULT_MEMORY)
    }

    /// Reads `region` on the job's workers, with a progress bar on a terminal.
    fn read_data(&self, region: &Region) -> Result<Data, Failure> {
        let shown = self.args.dir.display();
        if self.array.dtype().is_variable_length() {
            let options = ReadOptions {
                decoded_chunk_limit: self.args.decoded_chunk_limit,
                ..ReadOptions::default()
            };
            return self
                .array
                .read_vlen_with(region, &options)
                .map(Data::Vlen)
                .map_err(|e| Failure::Other(format!("{shown}: {e}")));
        }
        let len = self
            .array
            .selection_len(region)
            .map_err(|e| Failure::Other(e.to_string()))?;
        let bar = self.progress_bar();
        let progress = |done: u64, _total: u64| bar.set_position(done);
        let mut buf = buffer::zeroed(len).ok_or_else(|| {
            Failure::Other(format!(
                "{shown}: cannot allocate {len} bytes for the selection"
            ))
        })?;
        self.array
            .read_into_with(region, &mut buf, &self.options(&progress))
            .map_err(|e| Failure::Other(format!("{shown}: {e}")))?;
        bar.finish_and_clear();
        Ok(Data::Fixed(buf))
    }

    fn options<'p>(&self, progress: &'p (dyn Fn(u64, u64) + Sync)) -> ReadOptions<'p> {
        ReadOptions {
            threads: Some(self.threads),
            progress: Some(progress),
            decoded_chunk_limit: self.args.decoded_chunk_limit,
            ..ReadOptions::default()
        }
    }

    /// A bar of the job's chunks on a terminal (not with `--json`); hidden otherwise.
    fn progress_bar(&self) -> indicatif::ProgressBar {
        if !std::io::stderr().is_terminal() || self.args.json {
            return indicatif::ProgressBar::hidden();
        }
        let bar = indicatif::ProgressBar::new(self.chunks);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} {bar:40} {pos}/{len} chunks {elapsed_precise}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    }
}
