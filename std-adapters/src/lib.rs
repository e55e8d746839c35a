//! # zinto
//!
//! Reads chunked, compressed N-dimensional arrays straight into a buffer the caller owns. The
//! layout math lives in [`zinto_core`], re-exported here as [`core`].

pub use zinto_core as core;
