//! Rust element types a typed read may use, each tied to the data types it holds.

use crate::metadata::DataType;

/// A plain Rust type that holds one element of some data types, for
/// [`Array::read_into_typed`](crate::Array::read_into_typed). Sealed: implemented for the
/// numbers (`i8` to `u64`, `f32`, `f64`), `[f32; 2]` and `[f64; 2]` for complex numbers, and
/// `u16` also for `float16` bits.
pub trait Element: bytemuck::Pod + sealed::Sealed {
    /// The type's name, for errors.
    const NAME: &'static str;
    /// Whether this type holds elements of `dtype` exactly.
    fn matches(dtype: DataType) -> bool;
}

mod sealed {
    pub trait Sealed {}
}

macro_rules! element {
    ($t:ty, $name:literal, $($pat:pat_param)|+) => {
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const NAME: &'static str = $name;
            fn matches(dtype: DataType) -> bool {
                matches!(dtype, $($pat)|+)
            }
        }
    };
}

element!(u8, "u8", DataType::UInt8 | DataType::Bool);
element!(i8, "i8", DataType::Int8);
element!(u16, "u16", DataType::UInt16 | DataType::Float16);
element!(i16, "i16", DataType::Int16);
element!(u32, "u32", DataType::UInt32);
element!(i32, "i32", DataType::Int32);
element!(u64, "u64", DataType::UInt64);
element!(
    i64,
    "i64",
    DataType::Int64 | DataType::DateTime64(_) | DataType::TimeDelta64(_)
);
element!(f32, "f32", DataType::Float32);
element!(f64, "f64", DataType::Float64);
element!([f32; 2], "[f32; 2]", DataType::Complex64);
element!([f64; 2], "[f64; 2]", DataType::Complex128);
