//! The `zinto` command inside the extension: the wheel's `zinto` console script (and
//! `python -m zinto`) runs the same command as the Rust binary, compiled in.

use pyo3::prelude::*;

/// Runs the `zinto` command with `argv` (the program's name first) and returns its exit code
/// (0 success, 2 usage error, 1 any other error). It prints to the process's stdout and
/// stderr, and runs without the GIL.
#[pyfunction]
pub fn run_cli(py: Python<'_>, argv: Vec<std::ffi::OsString>) -> u8 {
    py.detach(move || zinto::cli::run(argv))
}
