//! Why array or group metadata was refused.

use std::fmt;

use zinto_core::LayoutError;
use zinto_core::codec::ChainError;

/// Why array metadata was refused.
#[derive(Debug)]
#[non_exhaustive]
pub enum MetadataError {
    /// Neither `zarr.json` nor `.zarray` exists at the path.
    Missing,
    /// The JSON does not parse or does not have the expected fields.
    Json(serde_json::Error),
    /// The node is not an array (for example a group): what it is.
    NotAnArray(String),
    /// The node is an array, opened as a group.
    NotAGroup,
    /// A field has a value the spec does not allow.
    Invalid(String),
    /// Something valid that zinto does not read (data type, grid, codec, transformer...).
    Unsupported(String),
    /// A codec name zinto does not know.
    UnknownCodec(String),
    /// A field of a codec's (or grid's, or chunk key encoding's) configuration that zinto does
    /// not read: refused rather than ignored, as ignoring a setting can read the data wrong.
    UnknownField {
        /// The codec (or grid, or encoding).
        codec: String,
        /// The field.
        field: String,
    },
    /// The fill value does not fit the data type.
    FillValue(String),
    /// The codec chain is not valid.
    Chain(ChainError),
    /// Shapes that do not make a chunk grid.
    Layout(LayoutError),
}

impl fmt::Display for MetadataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Missing => f.write_str("no zarr.json, .zarray or .zgroup found"),
            Self::Json(e) => write!(f, "malformed metadata JSON: {e}"),
            Self::NotAnArray(kind) => write!(f, "node is a {kind}, not an array"),
            Self::NotAGroup => f.write_str("node is an array, not a group"),
            Self::Invalid(what) => write!(f, "invalid metadata: {what}"),
            Self::Unsupported(what) => write!(f, "unsupported: {what}"),
            Self::UnknownCodec(name) => write!(f, "unknown codec {name:?}"),
            Self::UnknownField { codec, field } => write!(
                f,
                "{codec}: configuration field {field:?} is not one zinto understands (refused \
                 rather than ignored)"
            ),
            Self::FillValue(what) => write!(f, "{what}"),
            Self::Chain(e) => write!(f, "{e}"),
            Self::Layout(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for MetadataError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Json(e) => Some(e),
            Self::Chain(e) => Some(e),
            Self::Layout(e) => Some(e),
            _ => None,
        }
    }
}
