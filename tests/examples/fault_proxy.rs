//! The harness's fault proxy on its own, for benchmarks: forwards every request to an upstream
//! server on this machine after a fixed delay, standing for a distant endpoint.
//!
//! ```text
//! cargo run --release -p zinto-tests --example fault_proxy -- 127.0.0.1:9000 20
//! ```
//! prints `http://127.0.0.1:PORT` (the proxy's URL) on one line, then serves until its standard
//! input closes. `bench/remote.py --delay-ms 20` runs it in front of the S3 server.

use std::io::{BufRead, Write};
use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use zinto_tests::http::{Fault, FaultProxy};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(upstream), Some(delay_ms)) = (
        args.first().and_then(|a| a.parse::<SocketAddr>().ok()),
        args.get(1).and_then(|a| a.parse::<u64>().ok()),
    ) else {
        eprintln!("usage: fault_proxy UPSTREAM_ADDR DELAY_MS (e.g. 127.0.0.1:9000 20)");
        return ExitCode::from(2);
    };
    let fault = Fault::Delay(Duration::from_millis(delay_ms));
    let proxy = match FaultProxy::start_every(upstream, fault) {
        Ok(proxy) => proxy,
        Err(e) => {
            eprintln!("fault_proxy: cannot listen: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!("{}", proxy.url());
    let _ = std::io::stdout().flush();
    // Serve until whoever started it closes our standard input.
    for line in std::io::stdin().lock().lines() {
        if line.is_err() {
            break;
        }
    }
    ExitCode::SUCCESS
}
