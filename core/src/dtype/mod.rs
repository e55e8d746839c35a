//! Element types, in one vocabulary: the fixed-width numbers ([`Number`]), NumPy's type strings
//! ([`TypeStr`], parsed and printed here and nowhere else) and float16 rounding
//! ([`f16_from_f64`]).
//!
//! The other element types of the crate are subsets or wrappers of these:
//! - the numcodecs filters' [`NumType`](crate::codec::filter::NumType) is the numbers they
//!   compute in (no bool, float16 or complex), [`NumType::number`](crate::codec::filter::NumType::number)
//!   and [`NumType::from_number`](crate::codec::filter::NumType::from_number) convert;
//! - a record's sort key, [`KeyType`](crate::records::KeyType), is the 4- and 8-byte integers
//!   and floats ([`KeyType::from_number`](crate::records::KeyType::from_number));
//! - a segment file's [`NumberType`](crate::formats::NumberType) is a [`Number`] with its byte
//!   order;
//! - the std crate's `DataType` adds dates, strings and bytes to [`Number`].
//!
//! ```
//! use zinto_core::dtype::{ByteOrder, Number, TypeStr};
//!
//! let t = TypeStr::parse(">f8").unwrap();
//! assert_eq!((t.order, t.number()), (Some(ByteOrder::Big), Some(Number::Float64)));
//! assert!(t.is_numpy_str());
//! let dates = TypeStr::parse("<M8[10s]").unwrap();
//! assert_eq!((dates.kind, dates.size, dates.unit), ('M', 8, Some("10s")));
//! assert_eq!(format!("{dates}"), "<M8[10s]");
//! ```

mod endian;
mod float16;
mod number;
mod type_str;

pub use endian::Endian;
pub use float16::{f16_from_f64, f16_to_f64};
pub use number::Number;
pub use type_str::{ByteOrder, TypeStr};
