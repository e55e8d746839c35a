//! Reads through object stores and HTTP, against real servers started here on 127.0.0.1:
//! the harness's Range-capable file server (`zinto_tests::http`), a proxy in front of it that
//! injects faults, and moto's S3 server (`moto_server`, from the test venv: scripts/test sets
//! `ZINTO_MOTO_SERVER`). Every fixture array read remotely must equal its local read; faults
//! are retried to the right bytes or fail with an error naming the chunk's URL; nothing waits
//! longer than a few seconds.

#![cfg(feature = "remote")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a panic is a failed test
#![allow(clippy::cast_possible_truncation)]

use std::net::SocketAddr;
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;
use zinto::store::{RemoteOptions, RemoteStore};
use zinto::{Array, FileStore, ReadOptions, Region, Store, ZarrFormat};
use zinto_tests::http::{Fault, FaultProxy, FileServer};
use zinto_tests::moto::{moto, request};

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// Options for tests: short timeouts and few retries, so that a failing case ends in seconds.
fn quick() -> RemoteOptions {
    let mut o = RemoteOptions::default();
    o.timeout = Duration::from_secs(5);
    o.connect_timeout = Duration::from_secs(2);
    o.retries = 3;
    o.retry_timeout = Duration::from_secs(10);
    o
}

fn remote(url: &str, options: RemoteOptions) -> RemoteStore {
    RemoteStore::from_url_with(url, options).unwrap()
}

/// Every selection of every array in the fixture manifests.
fn selections() -> Vec<(String, Region)> {
    let mut all = vec![];
    for file in [
        "manifest.json",
        "manifest_numcodecs.json",
        "manifest_tensorstore.json",
    ] {
        let manifest: Vec<Value> =
            serde_json::from_slice(&std::fs::read(fixtures().join(file)).unwrap()).unwrap();
        for entry in manifest {
            let name = entry["name"].as_str().unwrap().to_owned();
            for sel in entry["selections"].as_array().unwrap() {
                let v = |k: &str| -> Vec<u64> {
                    sel[k]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|x| x.as_u64().unwrap())
                        .collect()
                };
                all.push((name.clone(), Region::new(&v("start"), &v("shape")).unwrap()));
            }
        }
    }
    all
}

/// Reads every fixture selection through `store` and through the local files; lists every
/// difference before failing. Returns how many selections were compared.
fn same_as_local(store: &RemoteStore) -> usize {
    let local = FileStore::new(fixtures().join("data"));
    let mut failures = vec![];
    let all = selections();
    assert!(all.len() > 700, "{} selections", all.len());
    let mut last: Option<(String, Array<&RemoteStore>, Array<&FileStore>)> = None;
    for (name, region) in &all {
        if last.as_ref().is_none_or(|(n, _, _)| n != name) {
            match Array::open(store, name) {
                Ok(a) => last = Some((name.clone(), a, Array::open(&local, name).unwrap())),
                Err(e) => {
                    failures.push(format!("{name}: open: {e}"));
                    last = None;
                    continue;
                }
            }
        }
        let Some((_, there, here)) = &last else {
            continue;
        };
        match there.read_to_vec(region) {
            Err(e) => failures.push(format!("{name} {region:?}: {e}")),
            Ok(bytes) if bytes != here.read_to_vec(region).unwrap() => {
                failures.push(format!(
                    "{name} {region:?}: other bytes than the local read"
                ));
            }
            Ok(_) => {}
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    all.len()
}

#[test]
fn every_fixture_reads_over_http_as_it_reads_from_disk() {
    let server = FileServer::start(fixtures().join("data")).unwrap();
    let store = remote(&server.url(), quick());
    same_as_local(&store);
}

#[test]
fn every_fixture_reads_the_same_with_no_read_ahead_and_with_one_byte_of_it() {
    // 0: every body pauses at its channel; 1: every frame is larger than the whole budget, so
    // bodies take it one frame at a time, oldest first.
    let server = FileServer::start(fixtures().join("data")).unwrap();
    for bytes in [0, 1] {
        let mut options = quick();
        options.read_ahead = zinto::store::ReadAheadBudget::Bytes(bytes);
        same_as_local(&remote(&server.url(), options));
    }
}

/// `v3_gzip` opened from the local metadata over `store` (no request for the metadata), and
/// its local twin.
fn gzip_array<S: Store>(store: S) -> (Array<S>, Vec<u8>) {
    let name = "v3_gzip";
    let json = std::fs::read(fixtures().join("data").join(name).join("zarr.json")).unwrap();
    let array = Array::from_metadata(store, name, ZarrFormat::V3, &json, None).unwrap();
    let local = Array::open(FileStore::new(fixtures().join("data")), name).unwrap();
    let whole = local
        .read_to_vec(&Region::whole(local.shape()).unwrap())
        .unwrap();
    (array, whole)
}

fn chunk_count(array: &Array<impl Store>) -> usize {
    array
        .shape()
        .iter()
        .zip(array.chunk_shape())
        .map(|(s, c)| s.div_ceil(*c) as usize)
        .product()
}

#[test]
fn a_read_sends_one_get_per_chunk_and_no_head() {
    let server = FileServer::start(fixtures().join("data")).unwrap();
    let store = remote(&server.url(), quick());
    let (array, whole) = gzip_array(&store);
    let got = array
        .read_to_vec(&Region::whole(array.shape()).unwrap())
        .unwrap();
    assert_eq!(got, whole);
    let log = server.requests();
    assert!(log.iter().all(|r| r.method == "GET"), "{log:?}");
    assert!(
        log.iter().all(|r| r.range.is_none()),
        "whole objects: {log:?}"
    );
    assert_eq!(log.len(), chunk_count(&array), "{log:?}");
    let mut paths: Vec<_> = log.iter().map(|r| r.path.clone()).collect();
    paths.sort();
    paths.dedup();
    assert_eq!(paths.len(), log.len(), "each chunk once: {log:?}");
}

#[test]
fn a_sharded_read_gets_each_index_by_a_suffix_range_then_its_chunks_in_one_span() {
    let server = FileServer::start(fixtures().join("data")).unwrap();
    let store = remote(&server.url(), quick());
    let array = Array::open(&store, "v3_shard_end").unwrap();
    let before = server.requests().len();
    let local = Array::open(FileStore::new(fixtures().join("data")), "v3_shard_end").unwrap();
    let region = Region::whole(array.shape()).unwrap();
    assert_eq!(
        array.read_to_vec(&region).unwrap(),
        local.read_to_vec(&region).unwrap()
    );
    let log = &server.requests()[before..];
    let suffixes = log
        .iter()
        .filter(|r| r.range.as_deref().is_some_and(|r| r.starts_with("bytes=-")))
        .count();
    let shards: usize = array
        .shape()
        .iter()
        .zip(array.shard_shape().unwrap())
        .map(|(s, c)| s.div_ceil(*c) as usize)
        .product();
    assert_eq!(suffixes, shards, "one index per shard: {log:?}");
    // zarr-python writes a shard's inner chunks in order: one more GET per shard, for all.
    assert_eq!(log.len(), 2 * shards, "one span per shard: {log:?}");
    assert!(log.iter().all(|r| r.method == "GET"), "{log:?}");
}

#[test]
fn faults_are_retried_to_the_right_bytes() {
    let server = FileServer::start(fixtures().join("data")).unwrap();
    let faults = vec![
        Fault::Status(503),
        Fault::Drop,
        Fault::Truncate(40),
        Fault::Delay(Duration::from_millis(300)),
        Fault::Status(500),
        Fault::Truncate(0),
    ];
    let proxy = FaultProxy::start(server.addr(), faults).unwrap();
    let store = remote(&proxy.url(), quick());
    let (array, whole) = gzip_array(&store);
    for threads in [1, 2] {
        let options = ReadOptions {
            threads: NonZeroUsize::new(threads),
            ..ReadOptions::default()
        };
        let mut out = vec![0u8; whole.len()];
        array
            .read_into_with(&Region::whole(array.shape()).unwrap(), &mut out, &options)
            .unwrap();
        assert_eq!(out, whole);
    }
    // The faulty answers were retried: more requests than two reads of every chunk.
    assert!(proxy.requests().len() > 2 * chunk_count(&array));
}

/// A password planted in the URLs of the failing reads below: no message may show it.
const PLANTED: &str = "planted-hunter2-secret";

/// `url` (`http://host:port`) with user information carrying [`PLANTED`].
fn with_password(url: &str) -> String {
    url.replacen("http://", &format!("http://zinto:{PLANTED}@"), 1)
}

/// Every message `e` gives, `Display` and `Debug`, at every level of its `source()` chain.
fn every_message(e: &(dyn std::error::Error + 'static)) -> Vec<String> {
    let mut all = vec![];
    let mut level = Some(e);
    while let Some(e) = level {
        all.push(e.to_string());
        all.push(format!("{e:?}"));
        level = e.source();
    }
    all
}

/// Fails if any message of `e` shows the planted password.
fn assert_no_secret(e: &(dyn std::error::Error + 'static)) {
    for m in every_message(e) {
        assert!(
            !m.contains(PLANTED) && !m.contains("zinto:"),
            "a secret shown: {m}"
        );
    }
}

/// Reads `v3_gzip` through a proxy that answers every request with `fault`, at a URL whose
/// user information holds a planted password; returns the error's message (which names the
/// chunk's URL without it, as no level of the error shows it) and how long the read took.
fn fail_every_time(fault: Fault, options: RemoteOptions) -> (String, Duration) {
    let server = FileServer::start(fixtures().join("data")).unwrap();
    let proxy = FaultProxy::start(server.addr(), vec![fault; 1000]).unwrap();
    let store = remote(&with_password(&proxy.url()), options);
    let (array, _) = gzip_array(&store);
    let started = Instant::now();
    let e = array
        .read_to_vec(&Region::whole(array.shape()).unwrap())
        .unwrap_err();
    let message = e.to_string();
    eprintln!("{fault:?}: {message}");
    let printable = proxy.url().replacen("http://", "http://***@", 1);
    assert!(
        message.contains(&format!("{printable}/v3_gzip/c/")),
        "the chunk's URL: {message}"
    );
    assert_no_secret(&e);
    (message, started.elapsed())
}

#[test]
fn a_server_that_keeps_failing_ends_the_read_with_the_chunk_named() {
    let (message, took) = fail_every_time(Fault::Status(503), quick());
    assert!(message.contains("503"), "{message}");
    assert!(took < Duration::from_secs(20), "{took:?}");
}

#[test]
fn a_body_cut_short_every_time_is_an_error_not_a_partial_chunk() {
    let (message, took) = fail_every_time(Fault::Truncate(10), quick());
    assert!(took < Duration::from_secs(20), "{took:?}");
    assert!(!message.is_empty());
}

#[test]
fn a_server_that_stalls_past_the_timeout_ends_the_read() {
    let mut options = quick();
    options.timeout = Duration::from_millis(500);
    options.retries = 1;
    let (_, took) = fail_every_time(Fault::Delay(Duration::from_secs(3)), options);
    assert!(took < Duration::from_secs(15), "{took:?}");
}

#[test]
fn forbidden_is_access_denied_not_a_missing_chunk() {
    let (message, _) = fail_every_time(Fault::Status(403), quick());
    assert!(message.contains("access denied: http://***@"), "{message}");
}

#[test]
fn a_missing_chunk_is_one_404_and_reads_as_the_fill_value() {
    let server = FileServer::start(fixtures().join("data")).unwrap();
    let store = remote(&server.url(), quick());
    // Every chunk of v3_fill_int is missing.
    let array = Array::open(&store, "v3_fill_int").unwrap();
    let before = server.requests().len();
    let local = Array::open(FileStore::new(fixtures().join("data")), "v3_fill_int").unwrap();
    let region = Region::whole(array.shape()).unwrap();
    assert_eq!(
        array.read_to_vec(&region).unwrap(),
        local.read_to_vec(&region).unwrap()
    );
    let log = &server.requests()[before..];
    assert_eq!(log.len(), chunk_count(&array), "{log:?}");
    assert!(log.iter().all(|r| r.method == "GET"), "{log:?}");
}

/// A dropped connection and a server that is not there: the client's own messages (reqwest's,
/// hyper's, naming the URL they tried) show no planted password, at any level of the error.
#[test]
fn failed_connections_show_no_secret() {
    let (message, _) = fail_every_time(Fault::Drop, quick());
    assert!(!message.is_empty());
    let mut options = quick();
    options.retries = 0;
    // Port 9 (discard) of 127.0.0.1: nothing listens there.
    let store = remote(&with_password("http://127.0.0.1:9/data.zarr"), options);
    let e = Array::open(&store, "").unwrap_err();
    assert!(
        e.to_string().contains("http://***@127.0.0.1:9/data.zarr"),
        "{e}"
    );
    assert_no_secret(&e);
    // The cause the client's own message hides is said.
    let said = e.to_string();
    assert!(
        said.contains("(cause: ") && said.contains("refused"),
        "{said}"
    );
    let e = RemoteStore::from_url(&with_password("http://127.0.0.1:9/"))
        .map(|_| ())
        .and_then(|()| RemoteStore::from_url(&format!("ftp://zinto:{PLANTED}@host/x")).map(|_| ()))
        .unwrap_err();
    assert!(e.to_string().contains("ftp://***@host/x"), "{e}");
    assert_no_secret(&e);
}

/// A host that refuses the connection, or a name that does not resolve, fails at the first
/// attempt (a retry a moment later would meet the same answer), and says why; a dropped
/// connection is still retried.
#[test]
fn refused_and_unresolved_hosts_are_not_retried() {
    for (url, why) in [
        ("http://127.0.0.1:9/data.zarr", "refused"),
        ("http://nonexistent.invalid/data.zarr", "lookup"),
    ] {
        let store = remote(url, quick());
        let said = Array::open(&store, "").unwrap_err().to_string();
        assert!(said.contains(why), "{said}");
        assert!(!said.contains("retries"), "retried: {said}");
    }
    let (said, _) = fail_every_time(Fault::Drop, quick());
    assert!(said.contains("after 3 retries"), "{said}");
}

// ---- What a hostile server can do (docs/security.md) ----------------------------------------

/// A redirect to another host: S3 requests are signed (an `Authorization` header); the
/// signature is not sent on to the other host, whatever becomes of the read. (An HTTP URL's
/// user information is not sent as basic auth at all: object_store's HTTP store drops it.)
#[test]
fn a_redirect_to_another_host_gets_no_credentials() {
    let root = std::env::temp_dir().join(format!("zinto-redirect-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(fixtures().join("data"), root.join("fixtures")).unwrap();
    let other = FileServer::start(&root).unwrap();
    let proxy = FaultProxy::start(other.addr(), vec![Fault::Redirect(other.addr()); 1000]).unwrap();
    let store = remote("s3://fixtures/v3_gzip", moto_options(proxy.addr()));
    let outcome = Array::open(&store, "").map(|a| a.shape().to_vec());
    eprintln!("{outcome:?}");
    let signed = proxy.requests();
    assert!(!signed.is_empty());
    assert!(
        signed.iter().all(|r| r
            .authorization
            .as_deref()
            .is_some_and(|a| a.starts_with("AWS4"))),
        "{signed:?}"
    );
    let sent_on = other.requests();
    assert!(
        sent_on.iter().all(|r| r.authorization.is_none()),
        "{sent_on:?}"
    );
    std::fs::remove_dir_all(&root).unwrap();
}

/// A body sent a byte at a time (slow loris) ends the read once the request's `timeout`
/// passes, retries included, not when the server pleases.
#[test]
fn a_body_dribbled_slowly_ends_at_the_timeout() {
    let mut options = quick();
    options.timeout = Duration::from_millis(800);
    options.retries = 1;
    let (message, took) = fail_every_time(Fault::Dribble(Duration::from_millis(50)), options);
    assert!(took < Duration::from_secs(15), "{took:?}");
    assert!(!message.is_empty());
}

/// A body that claims 1 TiB and never ends, after the chunk's real bytes: nothing is sized by
/// the claim, the chunk is decoded as it streams, and the read ends at the end of the chunk's
/// stream with an error naming the chunk and the bytes claimed after it, at once.
#[test]
fn an_endless_body_ends_the_read_at_the_end_of_the_chunks_stream() {
    let server = FileServer::start(fixtures().join("data")).unwrap();
    let proxy = FaultProxy::start(server.addr(), vec![Fault::Endless; 1000]).unwrap();
    let store = remote(&proxy.url(), quick());
    let (array, _) = gzip_array(&store);
    let started = Instant::now();
    let e = array
        .read_to_vec(&Region::whole(array.shape()).unwrap())
        .unwrap_err()
        .to_string();
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert!(
        e.contains("chunk v3_gzip/c/") && e.contains("trailing data"),
        "{e}"
    );
}

/// A server that ignores `Range` and sends the whole object (`200 OK`) for a range asked: the
/// bytes are not taken for the range; the read is an error naming the chunk.
#[test]
fn a_whole_object_for_a_range_is_refused() {
    let server = FileServer::start(fixtures().join("data")).unwrap();
    let proxy = FaultProxy::start(server.addr(), vec![Fault::IgnoreRange; 1000]).unwrap();
    let store = remote(&proxy.url(), quick());
    let array = Array::open(&store, "v3_shard_end").unwrap();
    let e = array
        .read_to_vec(&Region::whole(array.shape()).unwrap())
        .unwrap_err();
    eprintln!("{e}");
    assert!(e.to_string().contains("v3_shard_end"), "{e}");
}

#[test]
fn urls_that_cannot_be_addressed_are_refused_by_name() {
    for url in ["ftp://host/x", "no-scheme", "s3://"] {
        let e = RemoteStore::from_url(url).unwrap_err().to_string();
        assert!(e.contains(url), "{url}: {e}");
    }
}

// ---- S3, through moto's server -------------------------------------------------------------

/// Uploads every file below `dir` to `bucket` under its relative path.
fn upload(addr: SocketAddr, bucket: &str, dir: &Path) -> usize {
    assert_eq!(request(addr, "PUT", &format!("/{bucket}"), b""), 200);
    let mut files = vec![dir.to_path_buf()];
    let mut sent = 0;
    while let Some(p) = files.pop() {
        if p.is_dir() {
            files.extend(std::fs::read_dir(&p).unwrap().map(|e| e.unwrap().path()));
            continue;
        }
        let key = p
            .strip_prefix(dir)
            .unwrap()
            .to_str()
            .unwrap()
            .replace('\\', "/");
        let body = std::fs::read(&p).unwrap();
        let status = request(addr, "PUT", &format!("/{bucket}/{key}"), &body);
        assert_eq!(status, 200, "{key}");
        sent += 1;
    }
    sent
}

/// S3 options for moto: its endpoint over plain HTTP, any credentials.
fn moto_options(addr: SocketAddr) -> RemoteOptions {
    let mut o = quick();
    o.config = zinto_tests::moto::config(addr);
    o
}

#[test]
fn every_fixture_reads_from_moto_s3_as_it_reads_from_disk() {
    let Some(moto) = moto() else { return };
    let sent = upload(moto.addr, "fixtures", &fixtures().join("data"));
    assert!(sent > 1000, "{sent} files");
    let store = remote("s3://fixtures", moto_options(moto.addr));
    same_as_local(&store);
    // And below a prefix, listing a group's members (S3 lists; plain HTTP cannot).
    let store = remote("s3://fixtures/v3_gzip", moto_options(moto.addr));
    let array = Array::open(&store, "").unwrap();
    assert_eq!(array.shape(), [20, 13]);
    let names = store.list_dir("").unwrap();
    assert!(names.contains(&"zarr.json".to_owned()), "{names:?}");
    // Objects named by a pattern, expanded by listing (how `zinto merge s3://.../segm-*` finds
    // its segments); a pattern matching nothing, and URLs on two buckets, are refused.
    let (_, keys) =
        zinto::store::objects(&["s3://fixtures/v3_gzip/c/0/*"], moto_options(moto.addr)).unwrap();
    assert_eq!(keys, ["v3_gzip/c/0/0", "v3_gzip/c/0/1"]);
    let e = zinto::store::objects(
        &["s3://fixtures/v3_gzip/c/0/*.npy"],
        moto_options(moto.addr),
    )
    .unwrap_err();
    assert!(e.to_string().contains("matches no object"), "{e}");
    let e = zinto::store::objects(
        &["s3://fixtures/a", "s3://other/b"],
        moto_options(moto.addr),
    )
    .unwrap_err();
    assert!(e.to_string().contains("s3://other/b"), "{e}");
    // A missing bucket is an error, not an array of fill values.
    let store = remote("s3://no-such-bucket", moto_options(moto.addr));
    assert!(Array::open(&store, "v3_gzip").is_err());
    // Credentials given as settings are never shown: not by the store's `Debug`, not by the
    // errors of a bucket that does not exist (moto accepts any key, so the request itself
    // goes through).
    let mut options = moto_options(moto.addr);
    for (k, v) in &mut options.config {
        if k == "aws_secret_access_key" {
            *v = PLANTED.to_owned();
        }
    }
    let store = remote("s3://no-such-bucket", options);
    assert!(!format!("{store:?}").contains(PLANTED), "{store:?}");
    let e = Array::open(&store, "v3_gzip").unwrap_err();
    assert_no_secret(&e);
}

#[test]
fn more_workers_than_requests_in_flight_read_the_right_bytes_and_cancel_without_hanging() {
    let server = FileServer::start(fixtures().join("data")).unwrap();
    let proxy = FaultProxy::start(
        server.addr(),
        vec![Fault::Delay(Duration::from_millis(200)); 1000],
    )
    .unwrap();
    let mut o = quick();
    o.in_flight = NonZeroUsize::new(1).unwrap();
    let store = remote(&proxy.url(), o);
    let (array, whole) = gzip_array(&store);
    let region = Region::whole(array.shape()).unwrap();
    let mut out = vec![0u8; whole.len()];
    let options = ReadOptions {
        threads: NonZeroUsize::new(4),
        ..ReadOptions::default()
    };
    array.read_into_with(&region, &mut out, &options).unwrap();
    assert_eq!(out, whole);
    // Cancelled after the first chunk: every worker, even one waiting for the one request in
    // flight, stops; the read ends well before the 6 chunks' 1.2 s of delays.
    let cancel = std::sync::atomic::AtomicBool::new(false);
    let progress = |_done: u64, _all: u64| cancel.store(true, std::sync::atomic::Ordering::SeqCst);
    let options = ReadOptions {
        threads: NonZeroUsize::new(4),
        progress: Some(&progress),
        cancel: Some(&cancel),
        ..ReadOptions::default()
    };
    let started = Instant::now();
    let e = array
        .read_into_with(&region, &mut out, &options)
        .unwrap_err();
    assert!(matches!(e.kind(), zinto::ErrorKind::Cancelled), "{e}");
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
}

// ---- Writing (issue 28) -----------------------------------------------------------------------

/// Arrays written to moto's S3: a raw chunk larger than a part goes up as a multipart upload,
/// small zstd chunks as single PUTs, a shard with its index at the start; all read back equal; a chunk of fill value is deleted; an
/// upload that fails names the chunk's URL and leaves no object.
#[test]
fn arrays_write_to_s3_and_read_back() {
    use zinto::{ArrayBuilder, DataType};
    let Some(moto) = moto() else { return };
    assert_eq!(request(moto.addr, "PUT", "/written", b""), 200);
    let store = remote("s3://written/data.zarr", moto_options(moto.addr));
    // One 12 MiB chunk: two parts of PART_LEN (8 MiB) and the rest.
    let shape = [3u64, 1024, 1024];
    let big = ArrayBuilder::new(&shape, DataType::Float32, &shape)
        .create(&store, "big")
        .unwrap();
    let values: Vec<u8> = (0..3 * 1024 * 1024u32)
        .flat_map(|i| (i as f32).to_ne_bytes())
        .collect();
    assert!(values.len() > zinto::store::PART_LEN);
    let whole = Region::whole(&shape).unwrap();
    big.write_from(&whole, &values).unwrap();
    assert!(
        big.read_to_vec(&whole).unwrap() == values,
        "the multipart chunk differs"
    );
    assert_eq!(
        store.size("big/c/0/0/0").unwrap(),
        Some(values.len() as u64)
    );

    // The same values in one shard of three 4 MiB inner chunks, its index at the start: held
    // whole until the index is filled (an object store writes forward only), then sent.
    let sharded = ArrayBuilder::new(&shape, DataType::Float32, &[1, 1024, 1024])
        .shards(&shape)
        .shard_index(zinto::core::codec::IndexLocation::Start)
        .create(&store, "sharded")
        .unwrap();
    sharded.write_from(&whole, &values).unwrap();
    assert!(
        sharded.read_to_vec(&whole).unwrap() == values,
        "the shard with its index at the start differs"
    );
    let mut first = [0u8; 8];
    store.read_into("sharded/c/0/0/0", 0, &mut first).unwrap();
    // The first inner chunk starts right after the index: 3 entries of 16 bytes and a CRC.
    assert_eq!(u64::from_le_bytes(first), 3 * 16 + 4);

    let small = ArrayBuilder::new(&[40, 30], DataType::UInt16, &[16, 16])
        .zstd(3)
        .crc32c()
        .create(&store, "small")
        .unwrap();
    let region = Region::whole(&[40, 30]).unwrap();
    let data: Vec<u8> = (0..1200u16)
        .flat_map(|i| (i % 97 + 1).to_ne_bytes())
        .collect();
    small.write_from(&region, &data).unwrap();
    assert_eq!(small.read_to_vec(&region).unwrap(), data);
    // Zeros over the first chunk: it is deleted, and reads as the fill value.
    small
        .write_from(&Region::new(&[0, 0], &[16, 16]).unwrap(), &[0u8; 512])
        .unwrap();
    assert_eq!(store.size("small/c/0/0").unwrap(), None);
    assert_eq!(
        small
            .read_to_vec(&Region::new(&[0, 0], &[1, 2]).unwrap())
            .unwrap(),
        [0u8; 4]
    );
}

/// A write through a proxy that answers every request 503 fails after its retries, naming
/// the chunk's URL, with nothing written.
#[test]
fn a_failed_remote_write_names_the_chunk() {
    use zinto::{ArrayBuilder, DataType, MemoryStore};
    let server = FileServer::start(fixtures().join("data")).unwrap();
    let proxy = FaultProxy::start(server.addr(), vec![Fault::Status(503); 1000]).unwrap();
    let store = remote(&proxy.url(), quick());
    // Metadata from memory: the remote store only takes the chunk.
    let meta = ArrayBuilder::new(&[4], DataType::UInt8, &[4])
        .create(MemoryStore::new(), "")
        .unwrap();
    let json = meta.store().get("zarr.json").unwrap();
    let array = Array::from_metadata(&store, "new", ZarrFormat::V3, &json, None).unwrap();
    let e = array
        .write_from(&Region::whole(&[4]).unwrap(), &[1, 2, 3, 4])
        .unwrap_err();
    let said = e.to_string();
    assert!(said.contains(&format!("{}/new/c/0", proxy.url())), "{said}");
    assert!(said.contains("503"), "{said}");
}

/// Writes to moto's S3 through a proxy that drops connections and answers 503 (four faults,
/// which requests in flight at once share as they come): each request is retried and both arrays (4 MiB chunks sent as single
/// PUTs, one 12 MiB chunk sent as a multipart upload) read back equal. Through a proxy that
/// cuts every answer short, a write either succeeds whole (a PUT's answer has no body to cut)
/// or fails naming the chunk's URL with no object under its key (the upload's start, whose
/// answer holds its id, is tried again: a write whose first answer is cut succeeds). Through a
/// proxy that drops every
/// request, the write fails naming the chunk and leaves no object (issue 28).
#[test]
fn remote_writes_retry_dropped_and_refused_requests_and_leave_nothing_half_visible() {
    use zinto::{ArrayBuilder, DataType};
    let Some(moto) = moto() else { return };
    assert_eq!(request(moto.addr, "PUT", "/faulty", b""), 200);
    let direct = remote("s3://faulty/a.zarr", moto_options(moto.addr));
    let shape = [3u64, 1024, 1024];
    let values: Vec<u8> = (0..3 * 1024 * 1024u32)
        .flat_map(|i| (i as f32 * 0.5).to_ne_bytes())
        .collect();
    let whole = Region::whole(&shape).unwrap();
    let single = [1u64, 1024, 1024];
    let faulty = |faults: Vec<Fault>, name: &str, chunks: &[u64]| {
        // The metadata goes straight to moto; the chunks through the faults.
        let array = ArrayBuilder::new(&shape, DataType::Float32, chunks)
            .create(&direct, name)
            .unwrap();
        let proxy = FaultProxy::start(moto.addr, faults).unwrap();
        // Retries enough for one request to meet every fault.
        let mut options = moto_options(proxy.addr());
        options.retries = 5;
        let through = remote("s3://faulty/a.zarr", options);
        let json = direct
            .read_whole(&format!("{name}/zarr.json"), 1 << 20)
            .unwrap()
            .unwrap();
        let array_through =
            Array::from_metadata(&through, name, ZarrFormat::V3, &json, None).unwrap();
        let result = array_through.write_from(&whole, &values);
        (array, result, proxy.requests().len())
    };
    for (name, chunks) in [("single", &single[..]), ("multipart", &shape[..])] {
        let faults = vec![
            Fault::Drop,
            Fault::Status(503),
            Fault::Pass,
            Fault::Drop,
            Fault::Status(503),
        ];
        let (array, result, seen) = faulty(faults, name, chunks);
        result.unwrap();
        assert!(array.read_to_vec(&whole).unwrap() == values, "{name}");
        // The 3 or 4 requests of a clean write, and one more for each fault.
        assert!(seen >= 7, "{name}: only {seen} requests met the proxy");
    }
    // The answer to the upload's start (its id) cut short once: started again, then written.
    let (array, result, _) = faulty(vec![Fault::Truncate(5)], "cut-once", &shape);
    result.unwrap();
    assert!(array.read_to_vec(&whole).unwrap() == values, "cut-once");
    // Every answer cut short, and every request dropped.
    for (name, fault, chunks) in [
        ("cut-single", Fault::Truncate(5), &single[..]),
        ("cut-multipart", Fault::Truncate(5), &shape[..]),
        ("dropped", Fault::Drop, &shape[..]),
    ] {
        let (array, result, _) = faulty(vec![fault; 1000], name, chunks);
        let keys = ["0/0/0", "1/0/0", "2/0/0"];
        match result {
            Ok(()) => assert!(array.read_to_vec(&whole).unwrap() == values, "{name}"),
            Err(e) => {
                assert!(e.to_string().contains(&format!("{name}/c/")), "{name}: {e}");
                // Each chunk whole or absent, none in part.
                for key in keys {
                    let size = direct.size(&format!("{name}/c/{key}")).unwrap();
                    assert!(
                        matches!(size, None | Some(4194304 | 12582912)),
                        "{name}: {size:?}"
                    );
                }
            }
        }
    }
}

/// A server that sends a body's bytes with long pauses between them: the stall timeout (no
/// byte for that long) ends each attempt, whatever the request's timeout (30 s here, which the
/// body would take minutes to reach).
#[test]
fn a_stalled_body_ends_at_the_stall_timeout() {
    let mut options = quick();
    options.timeout = Duration::from_secs(30);
    options.stall_timeout = Duration::from_millis(300);
    options.retries = 1;
    let (message, took) = fail_every_time(Fault::Dribble(Duration::from_secs(3)), options);
    assert!(took < Duration::from_secs(6), "{took:?}");
    assert!(!message.is_empty());
}

/// `with_timeout` bounds a request with its retries: five retries and a minute's window by
/// default shrink to the timeout's, so a body trickling a byte every 50 ms gives up within
/// about twice the timeout, not after five attempts.
#[test]
fn with_timeout_bounds_a_request_and_its_retries() {
    let mut options = quick();
    options.retries = 5;
    options.retry_timeout = Duration::from_secs(60);
    let options = options.with_timeout(Duration::from_secs(1));
    assert_eq!(options.retry_timeout, Duration::from_secs(1));
    let (_, took) = fail_every_time(Fault::Dribble(Duration::from_millis(50)), options);
    assert!(took < Duration::from_secs(4), "{took:?}");
}

/// A read of a server that sends a byte a second, cancelled: the read ends at once with
/// `Cancelled` (not when a worker next looks between chunks, which a stalled body never
/// lets it do), and its requests are dropped (the server sees its client go away), not
/// waited out.
#[test]
fn a_cancelled_read_of_a_stalled_server_drops_its_requests_at_once() {
    let server = FileServer::start(fixtures().join("data")).unwrap();
    let proxy = FaultProxy::start(
        server.addr(),
        vec![Fault::Dribble(Duration::from_secs(1)); 1000],
    )
    .unwrap();
    let store = remote(&proxy.url(), quick().with_timeout(Duration::from_secs(60)));
    let (array, _) = gzip_array(&store);
    let cancel = std::sync::atomic::AtomicBool::new(false);
    let options = ReadOptions {
        cancel: Some(&cancel),
        ..ReadOptions::default()
    };
    let whole = Region::whole(array.shape()).unwrap();
    let mut out = vec![0u8; array.selection_len(&whole).unwrap()];
    let (set_at, returned_at) = std::thread::scope(|s| {
        let setter = s.spawn(|| {
            std::thread::sleep(Duration::from_millis(500));
            cancel.store(true, std::sync::atomic::Ordering::Relaxed);
            Instant::now()
        });
        let e = array
            .read_into_with(&whole, &mut out, &options)
            .unwrap_err();
        assert!(matches!(e.kind(), zinto::ErrorKind::Cancelled), "{e}");
        (setter.join().unwrap(), Instant::now())
    });
    // Within a few of the watcher's 20 ms looks at the flag.
    let after = returned_at.saturating_duration_since(set_at);
    assert!(
        after < Duration::from_millis(300),
        "returned {after:?} after the cancel"
    );
    let deadline = Instant::now() + Duration::from_secs(5);
    while proxy.hung_up() == 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(proxy.hung_up() > 0, "no request was dropped");
}

/// The command's `--timeout` reaches its requests: a read of a body trickling a byte every
/// 50 ms fails within twice the timeout (the default, 300 s, would wait minutes).
#[cfg(feature = "cli")]
#[test]
fn the_commands_timeout_ends_a_slow_read() {
    let server = FileServer::start(fixtures().join("data")).unwrap();
    let proxy =
        FaultProxy::start_every(server.addr(), Fault::Dribble(Duration::from_millis(50))).unwrap();
    let url = format!("{}/v3_gzip", proxy.url());
    let started = Instant::now();
    let code = zinto::cli::run(["zinto", "--timeout", "1", "read", &url]);
    assert_eq!(code, 1);
    assert!(
        started.elapsed() < Duration::from_secs(6),
        "{:?}",
        started.elapsed()
    );
    for bad in ["0", "-1", "soon"] {
        assert_eq!(
            zinto::cli::run(["zinto", "--timeout", bad, "read", &url]),
            2,
            "{bad}"
        );
    }
}
