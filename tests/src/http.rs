//! Real HTTP servers on `127.0.0.1` for integration tests, using only `std`.
//!
//! - [`FileServer`] serves a directory over HTTP/1.1 (keep-alive, `GET`/`HEAD`, single byte
//!   ranges, `ETag`/`Last-Modified`), enough for reqwest/hyper and `object_store`'s `HttpStore`.
//! - [`FaultProxy`] forwards requests to an upstream server and injects one [`Fault`] per
//!   request (in arrival order), to test retries, timeouts and truncated bodies.
//!
//! Both record every request they receive ([`RequestLog`]) so tests can assert on the traffic,
//! and both stop, closing their connections and joining their threads, when dropped.

use std::collections::HashMap;
use std::fs::{File, Metadata};
use std::io::{self, BufRead, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, UNIX_EPOCH};

/// How long a socket may wait for the peer before the connection is given up.
const TIMEOUT: Duration = Duration::from_secs(10);
/// Write buffer size: file bodies stream through it, so large files never sit in memory.
const BUF_SIZE: usize = 64 * 1024;
/// A fixed, valid HTTP date: clients only need the header to exist and parse.
const LAST_MODIFIED: &str = "Thu, 01 Jan 2015 00:00:00 GMT";

/// One request as a server received it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestLog {
    /// The method, e.g. `GET`.
    pub method: String,
    /// The request target as sent (not percent-decoded, with any query string).
    pub path: String,
    /// The `Range` header's value, if any.
    pub range: Option<String>,
    /// The `Authorization` header's value, if any.
    pub authorization: Option<String>,
}

/// What [`FaultProxy`] does with one request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// Forward to upstream and relay the response.
    Pass,
    /// Close the client connection without answering.
    Drop,
    /// Wait, then behave as [`Fault::Pass`].
    Delay(Duration),
    /// Answer with this status and a small body, without contacting upstream.
    Status(u16),
    /// Forward, relay only this many body bytes (keeping the original `Content-Length`), then
    /// close the connection.
    Truncate(usize),
    /// Answer `302 Found` with a `Location` of the same target on this other server.
    Redirect(SocketAddr),
    /// Forward, then relay the body one byte at a time with this pause before each.
    Dribble(Duration),
    /// Forward, then answer `200 OK` claiming a `Content-Length` of 1 TiB: the real body, then
    /// bytes that never end (until the client goes away).
    Endless,
    /// Forward without the `Range` header: the whole object, `200 OK`, for a range asked.
    IgnoreRange,
}

/// A static file server over a directory; stops when dropped.
#[derive(Debug)]
pub struct FileServer {
    server: Background,
}

impl FileServer {
    /// Serves the files under `root` on a fresh port of `127.0.0.1`.
    ///
    /// # Errors
    /// When the listener cannot be bound or its thread cannot be started.
    pub fn start(root: impl Into<PathBuf>) -> io::Result<FileServer> {
        let root = root.into();
        let server = Background::start(move |stream, log| serve_files(stream, &root, log))?;
        Ok(FileServer { server })
    }

    /// The address the server listens on.
    pub fn addr(&self) -> SocketAddr {
        self.server.addr
    }

    /// The base URL, `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.server.addr)
    }

    /// Every request received so far, in arrival order.
    pub fn requests(&self) -> Vec<RequestLog> {
        lock(&self.server.log).clone()
    }
}

/// A forwarding proxy in front of an upstream server that injects faults; stops when dropped.
#[derive(Debug)]
pub struct FaultProxy {
    server: Background,
    /// Dribbled bodies the client went away from before their end.
    hung_up: Arc<AtomicUsize>,
}

impl FaultProxy {
    /// Forwards to `upstream`, applying `faults[i]` to the `i`-th request received (counted
    /// across all connections) and [`Fault::Pass`] to every request after them.
    ///
    /// # Errors
    /// When the listener cannot be bound or its thread cannot be started.
    pub fn start(upstream: SocketAddr, faults: Vec<Fault>) -> io::Result<FaultProxy> {
        Self::start_then(upstream, faults, Fault::Pass)
    }

    /// Forwards to `upstream`, applying `fault` to every request: [`Fault::Delay`] stands for
    /// a distant server (`tests/examples/fault_proxy.rs` runs it on its own).
    ///
    /// # Errors
    /// As [`FaultProxy::start`].
    pub fn start_every(upstream: SocketAddr, fault: Fault) -> io::Result<FaultProxy> {
        Self::start_then(upstream, Vec::new(), fault)
    }

    /// `faults[i]` for the `i`-th request, `after` for every request after them.
    fn start_then(
        upstream: SocketAddr,
        faults: Vec<Fault>,
        after: Fault,
    ) -> io::Result<FaultProxy> {
        let hung_up = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&hung_up);
        let server = Background::start(move |stream, log| {
            proxy_connection(stream, upstream, (&faults, after), (log, &counter))
        })?;
        Ok(FaultProxy { server, hung_up })
    }

    /// How many bodies sent with [`Fault::Dribble`] the client went away from before their
    /// end (it closed the connection: the request was cancelled, not waited out).
    pub fn hung_up(&self) -> usize {
        self.hung_up.load(Ordering::SeqCst)
    }

    /// The address the proxy listens on.
    pub fn addr(&self) -> SocketAddr {
        self.server.addr
    }

    /// The base URL, `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.server.addr)
    }

    /// Every request received so far, in arrival order (including failed ones).
    pub fn requests(&self) -> Vec<RequestLog> {
        lock(&self.server.log).clone()
    }
}

type Log = Arc<Mutex<Vec<RequestLog>>>;

/// A listener with an accept thread and one thread per connection.
#[derive(Debug)]
struct Background {
    addr: SocketAddr,
    log: Log,
    stop: Arc<AtomicBool>,
    acceptor: Option<JoinHandle<()>>,
}

impl Background {
    fn start<H>(handler: H) -> io::Result<Background>
    where
        H: Fn(TcpStream, &Log) -> io::Result<()> + Send + Sync + 'static,
    {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let addr = listener.local_addr()?;
        let log = Log::default();
        let stop = Arc::new(AtomicBool::new(false));
        let (log2, stop2) = (Arc::clone(&log), Arc::clone(&stop));
        let acceptor = thread::Builder::new()
            .name(format!("http-test-{addr}"))
            .spawn(move || accept_loop(&listener, &stop2, &log2, Arc::new(handler)))?;
        Ok(Background {
            addr,
            log,
            stop,
            acceptor: Some(acceptor),
        })
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // `accept` blocks: a connection of our own wakes it up to see the flag.
        let woke = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1)).is_ok();
        // If it could not connect, joining could block forever: leave the thread instead.
        if let Some(acceptor) = self.acceptor.take().filter(|_| woke) {
            let _ = acceptor.join();
        }
    }
}

/// Accepts until stopped, then shuts down open connections so their threads end, and joins them.
fn accept_loop<H>(listener: &TcpListener, stop: &AtomicBool, log: &Log, handler: Arc<H>)
where
    H: Fn(TcpStream, &Log) -> io::Result<()> + Send + Sync + 'static,
{
    let open: Arc<Mutex<HashMap<u64, TcpStream>>> = Arc::default();
    let mut workers: Vec<JoinHandle<()>> = Vec::new();
    for id in 0u64.. {
        let accepted = listener.accept();
        if stop.load(Ordering::SeqCst) {
            break;
        }
        let Ok((stream, _)) = accepted else {
            thread::sleep(Duration::from_millis(10)); // e.g. out of file descriptors
            continue;
        };
        let Ok(registered) = configure(&stream).and_then(|()| stream.try_clone()) else {
            continue;
        };
        lock(&open).insert(id, registered);
        let (open, log, handler) = (Arc::clone(&open), Arc::clone(log), Arc::clone(&handler));
        let worker = thread::Builder::new().spawn(move || {
            let _ = handler(stream, &log); // an error only ends this connection
            if let Some(stream) = lock(&open).remove(&id) {
                let _ = stream.shutdown(Shutdown::Both);
            }
        });
        workers.retain(|w| !w.is_finished());
        workers.extend(worker.ok());
    }
    for stream in lock(&open).values() {
        let _ = stream.shutdown(Shutdown::Both);
    }
    for worker in workers {
        let _ = worker.join();
    }
}

fn configure(stream: &TcpStream) -> io::Result<()> {
    stream.set_nonblocking(false)?; // some platforms inherit the listener's mode
    stream.set_read_timeout(Some(TIMEOUT))?;
    stream.set_write_timeout(Some(TIMEOUT))?;
    stream.set_nodelay(true)
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Appends the request to the log and returns its index in arrival order.
fn record(log: &Log, req: &Request) -> usize {
    let mut log = lock(log);
    log.push(RequestLog {
        method: req.method.clone(),
        path: req.target.clone(),
        range: req.header("range").map(str::to_owned),
        authorization: req.header("authorization").map(str::to_owned),
    });
    log.len() - 1
}

// ---------------------------------------------------------------------------------------------
// HTTP/1.1 messages

type Headers = Vec<(String, String)>;

/// A start line and header fields.
struct Head {
    start_line: String,
    headers: Headers,
}

#[derive(Clone)]
struct Request {
    method: String,
    target: String,
    version: String,
    headers: Headers,
    body: Vec<u8>,
}

impl Request {
    fn header(&self, name: &str) -> Option<&str> {
        header(&self.headers, name)
    }

    /// Whether the connection must close after the response (HTTP/1.1 keeps it by default).
    fn wants_close(&self) -> bool {
        let connection = self.header("connection").unwrap_or("").to_ascii_lowercase();
        let has = |token: &str| connection.split(',').any(|t| t.trim() == token);
        has("close") || (self.version == "HTTP/1.0" && !has("keep-alive"))
    }
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

fn is_chunked(headers: &[(String, String)]) -> bool {
    header(headers, "transfer-encoding").is_some_and(|v| v.to_ascii_lowercase().contains("chunked"))
}

/// Headers that describe one connection, not the message, so a proxy must not forward them.
fn is_hop_by_hop(name: &str) -> bool {
    [
        "connection",
        "keep-alive",
        "proxy-connection",
        "transfer-encoding",
        "te",
        "trailer",
        "upgrade",
    ]
    .iter()
    .any(|h| name.eq_ignore_ascii_case(h))
}

fn invalid(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.to_owned())
}

/// One line without its line ending; end of stream is an error.
fn read_line(reader: &mut impl BufRead) -> io::Result<String> {
    let mut line = String::new();
    if reader.read_line(&mut line)? == 0 {
        return Err(io::ErrorKind::UnexpectedEof.into());
    }
    Ok(line.trim_end_matches(['\r', '\n']).to_owned())
}

/// A message head, or `None` when the peer closed the connection between messages.
fn read_head(reader: &mut impl BufRead) -> io::Result<Option<Head>> {
    if reader.fill_buf()?.is_empty() {
        return Ok(None);
    }
    let start_line = read_line(reader)?;
    let mut headers = Headers::new();
    loop {
        let line = read_line(reader)?;
        if line.is_empty() {
            return Ok(Some(Head {
                start_line,
                headers,
            }));
        }
        let (name, value) = line
            .split_once(':')
            .ok_or_else(|| invalid("bad header line"))?;
        headers.push((name.trim().to_owned(), value.trim().to_owned()));
    }
}

fn read_request(reader: &mut impl BufRead) -> io::Result<Option<Request>> {
    let Some(head) = read_head(reader)? else {
        return Ok(None);
    };
    let mut parts = head.start_line.split_whitespace().map(str::to_owned);
    let (Some(method), Some(target), Some(version)) = (parts.next(), parts.next(), parts.next())
    else {
        return Err(invalid("bad request line"));
    };
    let body = read_body(reader, &head.headers)?.unwrap_or_default();
    Ok(Some(Request {
        method,
        target,
        version,
        headers: head.headers,
        body,
    }))
}

/// A body framed by chunked encoding or `Content-Length`; `None` if neither is given.
fn read_body(
    reader: &mut impl BufRead,
    headers: &[(String, String)],
) -> io::Result<Option<Vec<u8>>> {
    if is_chunked(headers) {
        return read_chunked(reader).map(Some);
    }
    let Some(length) = header(headers, "content-length") else {
        return Ok(None);
    };
    let length: usize = length.parse().map_err(|_| invalid("bad Content-Length"))?;
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    Ok(Some(body))
}

/// Decodes a chunked body (RFC 9112 §7.1), skipping extensions and trailers.
fn read_chunked(reader: &mut impl BufRead) -> io::Result<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let line = read_line(reader)?;
        let size = line.split(';').next().unwrap_or("").trim();
        let size = usize::from_str_radix(size, 16).map_err(|_| invalid("bad chunk size"))?;
        if size == 0 {
            while !read_line(reader)?.is_empty() {}
            return Ok(body);
        }
        let start = body.len();
        body.resize(start + size, 0);
        reader.read_exact(&mut body[start..])?;
        read_line(reader)?; // the CRLF closing the chunk
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        206 => "Partial Content",
        302 => "Found",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        416 => "Range Not Satisfiable",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        _ => "Unknown",
    }
}

fn status_line(status: u16) -> String {
    format!("HTTP/1.1 {status} {}", reason(status))
}

fn write_head(
    w: &mut impl Write,
    start: &str,
    headers: &[(String, String)],
    close: bool,
) -> io::Result<()> {
    write!(w, "{start}\r\n")?;
    for (name, value) in headers {
        write!(w, "{name}: {value}\r\n")?;
    }
    if close {
        w.write_all(b"Connection: close\r\n")?;
    }
    w.write_all(b"\r\n")
}

fn field(name: &str, value: impl ToString) -> (String, String) {
    (name.to_owned(), value.to_string())
}

/// A response with a short text body naming the status.
fn write_simple(w: &mut impl Write, status: u16, head_only: bool, close: bool) -> io::Result<()> {
    let body = format!("{status} {}\n", reason(status));
    let headers = [
        field("Content-Type", "text/plain"),
        field("Content-Length", body.len()),
    ];
    write_head(w, &status_line(status), &headers, close)?;
    if !head_only {
        w.write_all(body.as_bytes())?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// FileServer

fn serve_files(stream: TcpStream, root: &Path, log: &Log) -> io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut writer = BufWriter::with_capacity(BUF_SIZE, stream);
    while let Some(req) = read_request(&mut reader)? {
        record(log, &req);
        let close = req.wants_close();
        serve_file(&mut writer, root, &req, close)?;
        writer.flush()?;
        if close {
            break;
        }
    }
    Ok(())
}

fn serve_file(w: &mut impl Write, root: &Path, req: &Request, close: bool) -> io::Result<()> {
    let head_only = req.method == "HEAD";
    if req.method != "GET" && !head_only {
        return write_simple(w, 405, false, close);
    }
    let Some((mut file, meta)) = resolve(root, &req.target).and_then(|p| open_file(&p)) else {
        return write_simple(w, 404, head_only, close);
    };
    let total = meta.len();
    let mtime = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok());
    let etag = format!("\"{total:x}-{:x}\"", mtime.map_or(0, |d| d.as_nanos()));
    let mut headers = vec![
        field("Accept-Ranges", "bytes"),
        field("Last-Modified", LAST_MODIFIED),
        field("ETag", etag),
        field("Content-Type", "application/octet-stream"),
    ];
    let (status, start, length) = match parse_range(req.header("range"), total) {
        Span::Full => (200, 0, total),
        Span::Partial { start, end } => {
            headers.push(field(
                "Content-Range",
                format!("bytes {start}-{end}/{total}"),
            ));
            (206, start, end - start + 1)
        }
        Span::Unsatisfiable => {
            headers.push(field("Content-Range", format!("bytes */{total}")));
            (416, 0, 0)
        }
    };
    headers.push(field("Content-Length", length));
    write_head(w, &status_line(status), &headers, close)?;
    if head_only || length == 0 {
        return Ok(());
    }
    file.seek(SeekFrom::Start(start))?;
    if io::copy(&mut file.take(length), w)? != length {
        return Err(io::ErrorKind::UnexpectedEof.into()); // the file shrank: the client must not wait
    }
    Ok(())
}

/// The file a request target names under `root`; `None` for anything that could escape it.
fn resolve(root: &Path, target: &str) -> Option<PathBuf> {
    let path = target.split(['?', '#']).next()?;
    let decoded = percent_decode(path)?;
    let mut resolved = root.to_path_buf();
    for segment in decoded.split('/') {
        match segment {
            "" | "." => {}
            ".." => return None,
            s if s.contains(['\\', '\0']) => return None,
            s => resolved.push(s),
        }
    }
    Some(resolved)
}

fn open_file(path: &Path) -> Option<(File, Metadata)> {
    let file = File::open(path).ok()?;
    let meta = file.metadata().ok()?;
    meta.is_file().then_some((file, meta))
}

fn percent_decode(s: &str) -> Option<String> {
    let hex = |b: u8| char::from(b).to_digit(16);
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            let (hi, lo) = (hex(*bytes.get(i + 1)?)?, hex(*bytes.get(i + 2)?)?);
            out.push(u8::try_from(hi * 16 + lo).ok()?);
            i += 3;
        } else {
            out.push(b);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// What part of a file to send.
#[derive(Debug, PartialEq, Eq)]
enum Span {
    Full,
    /// Inclusive byte positions, both within the file.
    Partial {
        start: u64,
        end: u64,
    },
    Unsatisfiable,
}

/// Parses a single `bytes=` range. Malformed and multi-range headers are ignored (the whole
/// file is sent), which RFC 9110 §14.2 allows.
fn parse_range(header: Option<&str>, total: u64) -> Span {
    let Some(spec) = header.and_then(|h| h.trim().strip_prefix("bytes=")) else {
        return Span::Full;
    };
    let Some((first, last)) = spec.split_once('-').filter(|_| !spec.contains(',')) else {
        return Span::Full;
    };
    let (first, last) = (first.trim(), last.trim());
    if first.is_empty() {
        // A suffix: the last `n` bytes.
        return match last.parse::<u64>() {
            Err(_) => Span::Full,
            Ok(0) => Span::Unsatisfiable,
            Ok(_) if total == 0 => Span::Unsatisfiable,
            Ok(n) => Span::Partial {
                start: total - n.min(total),
                end: total - 1,
            },
        };
    }
    let Ok(start) = first.parse::<u64>() else {
        return Span::Full;
    };
    let end = match last.parse::<u64>() {
        _ if last.is_empty() => u64::MAX,
        Ok(end) if end >= start => end,
        _ => return Span::Full,
    };
    if start >= total {
        Span::Unsatisfiable
    } else {
        Span::Partial {
            start,
            end: end.min(total - 1),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// FaultProxy

fn proxy_connection(
    stream: TcpStream,
    upstream: SocketAddr,
    (faults, after): (&[Fault], Fault),
    (log, hung_up): (&Log, &AtomicUsize),
) -> io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut writer = BufWriter::with_capacity(BUF_SIZE, stream);
    while let Some(req) = read_request(&mut reader)? {
        let fault = faults.get(record(log, &req)).copied().unwrap_or(after);
        let close = req.wants_close();
        match fault {
            Fault::Drop => return Ok(()), // the caller closes the socket
            Fault::Status(status) => {
                write_simple(&mut writer, status, req.method == "HEAD", close)?;
            }
            Fault::Delay(delay) => {
                thread::sleep(delay);
                relay(upstream, &req, &mut writer, close, None)?;
            }
            Fault::Pass => relay(upstream, &req, &mut writer, close, None)?,
            Fault::Truncate(limit) => {
                relay(upstream, &req, &mut writer, close, Some(limit))?;
                return writer.flush();
            }
            Fault::Redirect(to) => {
                let location = field("Location", format!("http://{to}{}", req.target));
                write_head(
                    &mut writer,
                    &status_line(302),
                    &[location, field("Content-Length", 0)],
                    close,
                )?;
            }
            Fault::Dribble(pause) => {
                let mut body = Vec::new();
                relay(upstream, &req, &mut body, true, None)?;
                let sent = dribble(&mut writer, &body, pause);
                if sent.is_err() {
                    hung_up.fetch_add(1, Ordering::SeqCst);
                }
                return sent;
            }
            Fault::Endless => {
                let mut response = Vec::new();
                relay(upstream, &req, &mut response, true, None)?;
                return endless(&mut writer, &response);
            }
            Fault::IgnoreRange => {
                let mut whole = req.clone();
                whole
                    .headers
                    .retain(|(n, _)| !n.eq_ignore_ascii_case("range"));
                relay(upstream, &whole, &mut writer, close, None)?;
            }
        }
        writer.flush()?;
        if close {
            break;
        }
    }
    Ok(())
}

/// Writes the response `raw` (head and body) one byte at a time, `pause` before each body
/// byte; stops when the client goes away.
fn dribble(w: &mut impl Write, raw: &[u8], pause: Duration) -> io::Result<()> {
    let head_end = raw
        .windows(4)
        .position(|x| x == b"\r\n\r\n")
        .map_or(raw.len(), |i| i + 4);
    let (head, body) = raw.split_at(head_end);
    w.write_all(head)?;
    w.flush()?;
    for b in body {
        thread::sleep(pause);
        w.write_all(std::slice::from_ref(b))?;
        w.flush()?;
    }
    Ok(())
}

/// `body` (a whole response, head and body, as upstream gave it) answered as `200 OK`
/// claiming 1 TiB: the real body, then bytes without end, until the client goes away (or an
/// hour passes).
fn endless(w: &mut impl Write, response: &[u8]) -> io::Result<()> {
    let head_end = response
        .windows(4)
        .position(|x| x == b"\r\n\r\n")
        .map_or(response.len(), |i| i + 4);
    write_head(
        w,
        &status_line(200),
        &[field("Content-Length", 1u64 << 40)],
        true,
    )?;
    w.write_all(&response[head_end..])?;
    let chunk = [b'x'; 4096];
    let started = std::time::Instant::now();
    while started.elapsed() < Duration::from_secs(3600) {
        w.write_all(&chunk)?;
        w.flush()?;
    }
    Ok(())
}

/// Forwards `req` on a fresh upstream connection and relays the response, or answers 502 if
/// upstream cannot be reached. `limit` caps the body bytes relayed.
fn relay(
    upstream: SocketAddr,
    req: &Request,
    client: &mut impl Write,
    close: bool,
    limit: Option<usize>,
) -> io::Result<()> {
    let Ok((mut reader, head)) = ask_upstream(upstream, req) else {
        return write_simple(client, 502, req.method == "HEAD", close);
    };
    // Answer as HTTP/1.1 whatever upstream spoke: it is our connection's version.
    let status_text = head
        .start_line
        .split_once(' ')
        .map_or("502 Bad Gateway", |(_, s)| s);
    let start = format!("HTTP/1.1 {status_text}");
    let status: u16 = status_text
        .get(..3)
        .and_then(|s| s.parse().ok())
        .unwrap_or(502);
    let mut headers: Headers = head
        .headers
        .iter()
        .filter(|(n, _)| !is_hop_by_hop(n))
        .cloned()
        .collect();

    if req.method == "HEAD" || status < 200 || status == 204 || status == 304 {
        return write_head(client, &start, &headers, close);
    }
    let length = header(&headers, "content-length").and_then(|l| l.parse::<u64>().ok());
    if let Some(length) = length.filter(|_| !is_chunked(&head.headers)) {
        // Stream the body: it may be large.
        write_head(client, &start, &headers, close)?;
        let wanted = limit.map_or(length, |l| length.min(u64::try_from(l).unwrap_or(u64::MAX)));
        if io::copy(&mut reader.take(wanted), client)? != wanted {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        return Ok(());
    }
    // Chunked or delimited by EOF: buffer it so the client gets a Content-Length.
    let mut body = Vec::new();
    if let Some(chunked) = read_body(&mut reader, &head.headers)? {
        body = chunked;
    } else {
        reader.read_to_end(&mut body)?;
    }
    headers.retain(|(n, _)| !n.eq_ignore_ascii_case("content-length"));
    headers.push(field("Content-Length", body.len()));
    write_head(client, &start, &headers, close)?;
    let relayed = limit.map_or(body.len(), |limit| limit.min(body.len()));
    client.write_all(&body[..relayed])
}

/// Sends `req` upstream with `Connection: close` and reads the response head.
fn ask_upstream(upstream: SocketAddr, req: &Request) -> io::Result<(BufReader<TcpStream>, Head)> {
    let stream = TcpStream::connect_timeout(&upstream, TIMEOUT)?;
    configure(&stream)?;
    let mut w = BufWriter::new(stream.try_clone()?);
    write!(w, "{} {} HTTP/1.1\r\n", req.method, req.target)?;
    let forwarded = req
        .headers
        .iter()
        .filter(|(n, _)| !is_hop_by_hop(n) && !n.eq_ignore_ascii_case("content-length"));
    for (name, value) in forwarded {
        write!(w, "{name}: {value}\r\n")?;
    }
    if !req.body.is_empty() || req.header("content-length").is_some() {
        write!(w, "Content-Length: {}\r\n", req.body.len())?;
    }
    w.write_all(b"Connection: close\r\n\r\n")?;
    w.write_all(&req.body)?;
    w.flush()?;
    let mut reader = BufReader::with_capacity(BUF_SIZE, stream);
    let head = read_head(&mut reader)?.ok_or(io::ErrorKind::UnexpectedEof)?;
    Ok((reader, head))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::time::Instant;

    /// A response as a test client sees it.
    struct Reply {
        status: u16,
        headers: Headers,
        body: Vec<u8>,
    }

    impl Reply {
        fn header(&self, name: &str) -> Option<&str> {
            header(&self.headers, name)
        }
    }

    const DATA_LEN: usize = 1000;

    fn data() -> Vec<u8> {
        (0..DATA_LEN)
            .map(|i| u8::try_from(i * 7 % 251).unwrap())
            .collect()
    }

    /// A temporary directory, removed on drop.
    struct TempDir(PathBuf);

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// A fresh directory holding `data.bin`, `with space.bin` and a subdirectory `sub`.
    fn fixture() -> TempDir {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::SeqCst);
        let dir = std::env::temp_dir().join(format!("zinto-http-{}-{n}", std::process::id()));
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(dir.join("data.bin"), data()).unwrap();
        std::fs::write(dir.join("with space.bin"), b"spaced").unwrap();
        TempDir(dir)
    }

    fn send(stream: &mut TcpStream, method: &str, path: &str, extra: &[&str]) {
        let mut req = format!("{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n");
        for line in extra {
            req.push_str(line);
            req.push_str("\r\n");
        }
        req.push_str("\r\n");
        stream.write_all(req.as_bytes()).unwrap();
    }

    /// Reads one response; its body by Content-Length (none for HEAD).
    fn receive(reader: &mut impl BufRead, head_only: bool) -> Reply {
        let head = read_head(reader).unwrap().expect("a response");
        let status = head
            .start_line
            .split_whitespace()
            .nth(1)
            .unwrap()
            .parse()
            .unwrap();
        let length: usize = header(&head.headers, "content-length")
            .unwrap()
            .parse()
            .unwrap();
        let mut body = vec![0; if head_only { 0 } else { length }];
        reader.read_exact(&mut body).unwrap();
        Reply {
            status,
            headers: head.headers,
            body,
        }
    }

    fn connect(addr: SocketAddr) -> (TcpStream, BufReader<TcpStream>) {
        let stream = TcpStream::connect(addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        let reader = BufReader::new(stream.try_clone().unwrap());
        (stream, reader)
    }

    /// One request on its own connection, with `Connection: close`.
    fn fetch(addr: SocketAddr, method: &str, path: &str, range: Option<&str>) -> Reply {
        let (mut stream, mut reader) = connect(addr);
        let range = range.map(|r| format!("Range: {r}"));
        let mut extra = vec!["Connection: close"];
        extra.extend(range.as_deref());
        send(&mut stream, method, path, &extra);
        receive(&mut reader, method == "HEAD")
    }

    #[test]
    fn serves_whole_files_with_validators() {
        let dir = fixture();
        let server = FileServer::start(dir.0.clone()).unwrap();
        let reply = fetch(server.addr(), "GET", "/data.bin", None);
        assert_eq!(reply.status, 200);
        assert_eq!(reply.body, data());
        assert_eq!(reply.header("accept-ranges"), Some("bytes"));
        assert_eq!(reply.header("last-modified"), Some(LAST_MODIFIED));
        assert!(reply.header("etag").is_some_and(|e| e.starts_with('"')));
        assert_eq!(
            fetch(server.addr(), "GET", "/with%20space.bin", None).body,
            b"spaced"
        );
        assert!(server.url().starts_with("http://127.0.0.1:"));
    }

    #[test]
    fn serves_ranges() {
        let dir = fixture();
        let server = FileServer::start(dir.0.clone()).unwrap();
        let cases = [
            ("bytes=10-19", 10, 19),
            ("bytes=990-", 990, 999),
            ("bytes=-5", 995, 999),
            ("bytes=995-5000", 995, 999),
        ];
        for (range, start, end) in cases {
            let reply = fetch(server.addr(), "GET", "/data.bin", Some(range));
            assert_eq!(reply.status, 206, "{range}");
            assert_eq!(
                reply.header("content-range"),
                Some(&*format!("bytes {start}-{end}/1000"))
            );
            assert_eq!(reply.body, data()[start..=end], "{range}");
        }
        for range in ["bytes=1000-", "bytes=-0"] {
            let reply = fetch(server.addr(), "GET", "/data.bin", Some(range));
            assert_eq!(reply.status, 416, "{range}");
            assert_eq!(reply.header("content-range"), Some("bytes */1000"));
        }
        assert_eq!(parse_range(Some("bytes=5-2"), 10), Span::Full);
        assert_eq!(parse_range(Some("bytes=0-1,4-5"), 10), Span::Full);
    }

    #[test]
    fn refuses_missing_directories_and_escapes() {
        let dir = fixture();
        let server = FileServer::start(dir.0.join("sub")).unwrap();
        for path in [
            "/missing",
            "/",
            "/../data.bin",
            "/%2e%2e/data.bin",
            "/a/..%2F..%2Fdata.bin",
        ] {
            assert_eq!(
                fetch(server.addr(), "GET", path, None).status,
                404,
                "{path}"
            );
        }
    }

    #[test]
    fn head_and_keep_alive() {
        let dir = fixture();
        let server = FileServer::start(dir.0.clone()).unwrap();
        let (mut stream, mut reader) = connect(server.addr());
        send(&mut stream, "HEAD", "/data.bin", &[]);
        let head = receive(&mut reader, true);
        assert_eq!(
            (head.status, head.header("content-length")),
            (200, Some("1000"))
        );
        send(&mut stream, "GET", "/data.bin", &["Range: bytes=0-3"]);
        assert_eq!(receive(&mut reader, false).body, data()[..4]);
        send(&mut stream, "GET", "/data.bin", &["Connection: close"]);
        assert_eq!(receive(&mut reader, false).body, data());
        assert_eq!(
            reader.read(&mut [0; 1]).unwrap(),
            0,
            "closed after Connection: close"
        );
        let methods: Vec<_> = server.requests().into_iter().map(|r| r.method).collect();
        assert_eq!(methods, ["HEAD", "GET", "GET"]);
        assert_eq!(server.requests()[1].range.as_deref(), Some("bytes=0-3"));
    }

    #[test]
    fn drop_closes_idle_connections_promptly() {
        let dir = fixture();
        let server = FileServer::start(dir.0.clone()).unwrap();
        let (_stream, mut reader) = connect(server.addr());
        thread::sleep(Duration::from_millis(50)); // let the server accept it
        let started = Instant::now();
        drop(server);
        assert!(started.elapsed() < Duration::from_secs(2));
        assert_eq!(reader.read(&mut [0; 1]).unwrap_or(0), 0);
    }

    #[test]
    fn proxy_passes_and_injects_status() {
        let dir = fixture();
        let server = FileServer::start(dir.0.clone()).unwrap();
        let proxy = FaultProxy::start(server.addr(), vec![Fault::Status(503)]).unwrap();
        let (mut stream, mut reader) = connect(proxy.addr());
        send(&mut stream, "GET", "/data.bin", &[]);
        assert_eq!(receive(&mut reader, false).status, 503);
        send(&mut stream, "GET", "/data.bin", &["Range: bytes=-5"]);
        let reply = receive(&mut reader, false);
        assert_eq!((reply.status, reply.body.as_slice()), (206, &data()[995..]));
        assert_eq!(reply.header("content-range"), Some("bytes 995-999/1000"));
        assert_eq!(proxy.requests().len(), 2);
        assert_eq!(server.requests().len(), 1, "the 503 never reached upstream");
    }

    #[test]
    fn proxy_truncates_drops_and_delays() {
        let dir = fixture();
        let server = FileServer::start(dir.0.clone()).unwrap();
        let delay = Duration::from_millis(200);
        let faults = vec![Fault::Truncate(10), Fault::Drop, Fault::Delay(delay)];
        let proxy = FaultProxy::start(server.addr(), faults).unwrap();

        let (mut stream, mut reader) = connect(proxy.addr());
        send(&mut stream, "GET", "/data.bin", &[]);
        let head = read_head(&mut reader).unwrap().unwrap();
        assert_eq!(header(&head.headers, "content-length"), Some("1000"));
        let mut body = Vec::new();
        reader.read_to_end(&mut body).unwrap();
        assert_eq!(body, data()[..10]);

        let (mut stream, mut reader) = connect(proxy.addr());
        send(&mut stream, "GET", "/data.bin", &[]);
        assert_eq!(
            reader.read(&mut [0; 1]).unwrap_or(0),
            0,
            "dropped without an answer"
        );

        let started = Instant::now();
        assert_eq!(fetch(proxy.addr(), "GET", "/data.bin", None).body, data());
        assert!(started.elapsed() >= delay);
        assert_eq!(proxy.requests().len(), 3);
    }

    #[test]
    fn proxy_dechunks_upstream_bodies() {
        let upstream = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = upstream.local_addr().unwrap();
        let fake = thread::spawn(move || {
            let (mut stream, _) = upstream.accept().unwrap();
            read_request(&mut BufReader::new(stream.try_clone().unwrap())).unwrap();
            let reply = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6;x=y\r\n world\r\n0\r\n\r\n";
            stream.write_all(reply.as_bytes()).unwrap();
        });
        let proxy = FaultProxy::start(addr, Vec::new()).unwrap();
        let reply = fetch(proxy.addr(), "GET", "/x", None);
        assert_eq!(
            (reply.status, reply.body.as_slice()),
            (200, &b"hello world"[..])
        );
        assert_eq!(reply.header("transfer-encoding"), None);
        fake.join().unwrap();
    }
}
