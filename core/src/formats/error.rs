//! Why a segment header was refused.

use core::fmt;

/// Why a segment file's header was refused. Each names what is true of the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FormatError {
    /// It does not begin as the format does.
    NotThisFormat {
        /// The format expected.
        format: &'static str,
    },
    /// A `.npy` version this reader does not know.
    Version {
        /// Major version.
        major: u8,
        /// Minor version.
        minor: u8,
    },
    /// The header is longer than [`MAX_HEADER_LEN`](super::MAX_HEADER_LEN).
    HeaderTooLong {
        /// Its length, as declared.
        len: u64,
        /// The limit.
        max: u64,
    },
    /// The file ends inside its header.
    Truncated,
    /// The header does not parse.
    Malformed {
        /// What is wrong, in a few words.
        what: &'static str,
    },
    /// The element type is not a fixed-width number (bool, int, uint, float).
    UnsupportedType {
        /// The type as the header gives it (up to 24 bytes of it).
        descr: [u8; 24],
        /// How many bytes of `descr` are the type.
        len: u8,
    },
    /// The data is not the size the header says.
    DataSize {
        /// Bytes the shape and type make.
        declared: u64,
        /// Bytes the file holds after the header.
        present: u64,
    },
}

impl FormatError {
    /// An [`FormatError::UnsupportedType`] naming `descr`.
    pub(crate) fn unsupported(descr: &[u8]) -> Self {
        let mut buf = [0u8; 24];
        let n = descr.len().min(buf.len());
        if let (Some(dst), Some(src)) = (buf.get_mut(..n), descr.get(..n)) {
            dst.copy_from_slice(src);
        }
        let len = u8::try_from(n).unwrap_or(u8::MAX); // at most 24
        Self::UnsupportedType { descr: buf, len }
    }
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotThisFormat { format } => write!(f, "not a {format} file"),
            Self::Version { major, minor } => {
                write!(
                    f,
                    ".npy version {major}.{minor} (1.0, 2.0 and 3.0 are read)"
                )
            }
            Self::HeaderTooLong { len, max } => {
                write!(f, "a header of {len} bytes (at most {max} are read)")
            }
            Self::Truncated => f.write_str("the file ends inside its header"),
            Self::Malformed { what } => write!(f, "malformed header: {what}"),
            Self::UnsupportedType { descr, len } => {
                let text = descr.get(..usize::from(*len)).unwrap_or(&[]);
                write!(
                    f,
                    "element type {:?} is not a fixed-width number (bool, int, uint or float)",
                    core::str::from_utf8(text).unwrap_or("?")
                )
            }
            Self::DataSize { declared, present } => write!(
                f,
                "the header declares {declared} bytes of data, the file holds {present}"
            ),
        }
    }
}

impl core::error::Error for FormatError {}
