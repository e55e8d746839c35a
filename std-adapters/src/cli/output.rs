//! Where `zinto read` writes, in which format: checked before the read starts, written after.

use std::fs::File;
use std::io::{BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};

use crate::DataType;

use crate::cli::{Data, Failure, json_values, npy};

/// How `zinto read` writes the data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// C-order bytes, native byte order, no header.
    Raw,
    /// A NumPy `.npy` file.
    Npy,
    /// Nested JSON lists.
    Json,
}

impl Format {
    /// `given`, else from the output file's extension (`.npy`, `.json`), else raw.
    pub fn choose(given: Option<Self>, out: Option<&Path>) -> Self {
        given.unwrap_or_else(|| {
            match out
                .and_then(Path::extension)
                .and_then(|e| e.to_str())
                .map(str::to_ascii_lowercase)
                .as_deref()
            {
                Some("npy") => Self::Npy,
                Some("json") => Self::Json,
                _ => Self::Raw,
            }
        })
    }
}

/// Where the output goes.
pub enum Output {
    /// Nowhere (the data is discarded).
    Discard,
    /// Standard output.
    Stdout,
    /// A file, written under a temporary name beside it and renamed when complete, so a failed
    /// read leaves no partial file and does not clobber an existing one.
    File {
        /// The file asked for.
        path: PathBuf,
        /// The temporary file, created before the read (which proves the folder writable).
        partial: Partial,
        file: File,
    },
}

/// A temporary output file, removed when dropped unless kept.
pub struct Partial {
    path: PathBuf,
    kept: bool,
}

impl Drop for Partial {
    /// A read that failed after the output was prepared leaves no partial file behind.
    fn drop(&mut self) {
        if !self.kept {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

impl Output {
    /// Checks and opens the output before anything is read: the folder exists and is
    /// writable; stdout is not a terminal for binary formats.
    pub fn prepare(out: Option<&Path>, format: Format) -> Result<Self, Failure> {
        let Some(path) = out else {
            return Ok(if format == Format::Json {
                Self::Stdout
            } else {
                Self::Discard
            });
        };
        if path.as_os_str() == "-" {
            if format != Format::Json && std::io::stdout().is_terminal() {
                return Err(Failure::Usage(
                    "--out - would write binary data to the terminal: redirect it (> file, | od) or use --format json"
                        .into(),
                ));
            }
            return Ok(Self::Stdout);
        }
        let folder = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        if !folder.is_dir() {
            return Err(Failure::Other(format!(
                "--out {}: the folder {} does not exist",
                path.display(),
                folder.display()
            )));
        }
        if path.is_dir() {
            return Err(Failure::Other(format!(
                "--out {} is a directory: give a file name",
                path.display()
            )));
        }
        let name = path
            .file_name()
            .map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
        let partial = folder.join(format!(".{name}.zinto-partial-{}", std::process::id()));
        let file = File::create(&partial).map_err(|e| {
            Failure::Other(format!(
                "--out {}: cannot write in {}: {e}",
                path.display(),
                folder.display()
            ))
        })?;
        Ok(Self::File {
            path: path.to_path_buf(),
            partial: Partial {
                path: partial,
                kept: false,
            },
            file,
        })
    }

    /// Writes `data` (of `dtype`, NumPy shape `shape`) in `format`.
    pub fn write(
        self,
        format: Format,
        dtype: DataType,
        data: &Data,
        shape: &[u64],
    ) -> Result<(), Failure> {
        // Discarded data is not encoded either (raw bytes of strings, say, would be refused).
        if let Self::Discard = self {
            return Ok(());
        }
        let mut stream = self.into_stream();
        encode(&mut stream.writer, format, dtype, data, shape)?;
        stream.finish()
    }

    /// Begins an output of fixed-size `dtype` elements in NumPy shape `shape`, written in
    /// pieces ([`Stream::append`]): the `.npy` header now (for [`Format::Npy`]), the data in C
    /// order as it comes.
    pub fn begin(self, format: Format, dtype: DataType, shape: &[u64]) -> Result<Stream, Failure> {
        let mut stream = self.into_stream();
        match format {
            Format::Raw => {}
            Format::Npy => {
                let descr = dtype
                    .numpy_str()
                    .ok_or_else(|| Failure::Other(format!("{dtype} has no NumPy type")))?;
                let header = npy::header(&descr, shape).map_err(Failure::Other)?;
                stream.append(&header)?;
            }
            Format::Json => {
                return Err(Failure::Other(
                    "JSON is written whole, not in pieces".into(),
                ));
            }
        }
        Ok(stream)
    }

    fn into_stream(self) -> Stream {
        let (sink, file): (Box<dyn Write>, _) = match self {
            Self::Discard => (Box::new(std::io::sink()), None),
            Self::Stdout => (Box::new(std::io::stdout().lock()), None),
            Self::File {
                path,
                partial,
                file,
            } => (Box::new(file), Some((path, partial))),
        };
        Stream {
            writer: BufWriter::new(sink),
            file,
        }
    }
}

/// An output being written: bytes in order, then [`Stream::finish`], which renames a file
/// into place (dropped unfinished, the partial file is removed).
pub struct Stream {
    writer: BufWriter<Box<dyn Write>>,
    /// The file asked for and its temporary one; `None` for stdout or nowhere.
    file: Option<(PathBuf, Partial)>,
}

impl Stream {
    /// Writes the next `bytes` of the output.
    pub fn append(&mut self, bytes: &[u8]) -> Result<(), Failure> {
        self.writer.write_all(bytes).map_err(|e| self.failed(&e))
    }

    /// Flushes the output and, for a file, puts it in place under the name asked for.
    pub fn finish(mut self) -> Result<(), Failure> {
        self.writer.flush().map_err(|e| self.failed(&e))?;
        if let Some((path, mut partial)) = self.file.take() {
            std::fs::rename(&partial.path, &path)
                .map_err(|e| Failure::Other(format!("writing {}: {e}", path.display())))?;
            partial.kept = true;
        }
        Ok(())
    }

    fn failed(&self, e: &std::io::Error) -> Failure {
        match &self.file {
            Some((path, _)) => Failure::Other(format!("writing {}: {e}", path.display())),
            None => Failure::writing("stdout", e),
        }
    }
}

fn encode(
    w: &mut impl Write,
    format: Format,
    dtype: DataType,
    data: &Data,
    shape: &[u64],
) -> Result<(), Failure> {
    let io = |e: std::io::Error| Failure::writing("the output", &e);
    match (format, data) {
        (Format::Raw, Data::Fixed(buf)) => w.write_all(buf).map_err(io),
        (Format::Raw, Data::Vlen(_)) => Err(Failure::Usage(format!(
            "raw bytes cannot hold variable-length {dtype} values: write .npy or .json"
        ))),
        (Format::Npy, Data::Fixed(buf)) => {
            let descr = dtype
                .numpy_str()
                .ok_or_else(|| Failure::Other(format!("{dtype} has no NumPy type")))?;
            npy::write(w, &descr, shape, buf).map_err(io)
        }
        (Format::Npy, Data::Vlen(v)) => {
            let (descr, buf) = npy::fixed_width(v, v.is_utf8()).map_err(Failure::Other)?;
            npy::write(w, &descr, shape, &buf).map_err(io)
        }
        (Format::Json, Data::Fixed(buf)) => {
            let value = json_values::fixed(dtype, buf, shape).map_err(Failure::Other)?;
            writeln!(w, "{value}").map_err(io)
        }
        (Format::Json, Data::Vlen(v)) => writeln!(w, "{}", json_values::vlen(v, shape)).map_err(io),
    }
}
