//! moto's S3 server (`moto_server`, from the test venv: scripts/test sets
//! `ZINTO_MOTO_SERVER` and `ZINTO_REQUIRE_SERVERS`) on 127.0.0.1, for the tests of remote
//! stores: started on a free port, killed when dropped.

#![allow(clippy::unwrap_used, clippy::panic)] // test support: a panic is a failed test

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// moto's S3 server on a free port of 127.0.0.1, killed when dropped.
pub struct Moto {
    child: Child,
    /// Where it listens.
    pub addr: SocketAddr,
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts moto's server (`ZINTO_MOTO_SERVER`, else `moto_server` on the PATH). `None` if there
/// is none and `ZINTO_REQUIRE_SERVERS` is unset: scripts/test sets both, so CI cannot skip.
pub fn moto() -> Option<Moto> {
    let program = std::env::var("ZINTO_MOTO_SERVER").unwrap_or_else(|_| "moto_server".into());
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new(&program)
        .args(["-H", "127.0.0.1", "-p", &port.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    let child = match child {
        Ok(c) => c,
        Err(e) if std::env::var_os("ZINTO_REQUIRE_SERVERS").is_none() => {
            eprintln!("SKIPPED: cannot start {program}: {e} (scripts/test provides it)");
            return None;
        }
        Err(e) => panic!("cannot start {program}: {e}"),
    };
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let moto = Moto { child, addr };
    let deadline = Instant::now() + Duration::from_secs(30);
    while TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_err() {
        assert!(Instant::now() < deadline, "moto did not start in 30 s");
        std::thread::sleep(Duration::from_millis(100));
    }
    Some(moto)
}

/// Sends one request (moto checks no signature) on a connection of its own, and returns the
/// answer's status.
pub fn request(addr: SocketAddr, method: &str, path: &str, body: &[u8]) -> u16 {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\
         Content-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body).unwrap();
    let mut answer = String::new();
    BufReader::new(stream).read_line(&mut answer).unwrap();
    answer.split(' ').nth(1).unwrap().parse().unwrap()
}

/// The settings of an S3 store on moto: its endpoint over plain HTTP, any credentials.
pub fn config(addr: SocketAddr) -> Vec<(String, String)> {
    vec![
        ("aws_endpoint".into(), format!("http://{addr}")),
        ("aws_allow_http".into(), "true".into()),
        ("aws_region".into(), "us-east-1".into()),
        ("aws_access_key_id".into(), "testing".into()),
        ("aws_secret_access_key".into(), "testing".into()),
        ("aws_virtual_hosted_style_request".into(), "false".into()),
    ]
}
