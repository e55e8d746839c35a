//! `zinto`: look into a Zarr array, or read (a selection of) it into one buffer. The command
//! itself is [`zinto::cli::run`], which the Python package's console script calls too.

fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(zinto::cli::run(std::env::args_os()))
}
