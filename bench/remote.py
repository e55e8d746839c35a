"""Remote reads: zinto against zarr-python (obstore and s3fs), the zarrs pipeline and tensorstore,
reading over S3 from a local s3s-fs server.

The arrays are bench/peers.py's (written by zarr-python 3.1.6 into bench-data/, not committed; this
script writes any that are missing, the same way). It serves them with s3s-fs on 127.0.0.1 (a free
port) from a temporary directory whose one folder, the bucket `zinto-bench`, holds a symbolic link
per array to its directory in bench-data/, stops the server at the end, and reads each case (the
whole array, or the selection peers.py gives it) in a fresh process per run, with every reader, all
with the same credentials. It prints a Markdown table per case of seconds, MB/s, peak resident
memory over the output size, and the read's extra memory: peak RSS minus the process's RSS just
before the read (after opening the array) minus the output, over the output.

Readers: zarr-python over `zarr.storage.ObjectStore(obstore.store.S3Store(...))`; zarr-python over
`zarr.storage.FsspecStore` (s3fs); the zarrs pipeline (zarrs-python's codec pipeline) over the
obstore store; zarr-python with zinto's codec pipeline (`pip install ./python`) over the obstore
store, which fetches the chunks itself; tensorstore's `s3` kvstore driver; and
`target/release/zinto read s3://...`, which
takes the server from the environment (AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
AWS_REGION, AWS_ALLOW_HTTP). Every reader keeps its defaults (zarr-python's async.concurrency, the
printed one, bounds its requests in flight). As in peers.py every reader gives a checksum and the
script stops if two disagree; a peer that fails stops the run, a zinto that is missing or fails is
skipped with a one-line note. Each reader process is killed after TIMEOUT seconds (default 600).

Two things about s3s-fs 0.14.1 that the script works around, so that the server is not what is measured:
- It does not set TCP_NODELAY on its connections, so on a kept-alive connection a response that
  takes more than one write (anything over a few KiB) waits for the client's delayed ACK: about
  40 ms per request (a 36 KB chunk: 44 ms, against 1.5 ms with TCP_NODELAY), which makes a read of
  many small chunks measure only how many requests a reader keeps in flight. The script builds
  (with `cc`, into the temporary directory) a small LD_PRELOAD library that sets TCP_NODELAY on every
  accepted socket and starts the server with it; `--nagle` starts the server as it is, to see the
  difference. The header gives the median time of 20 sequential GETs of 64 KiB on one connection.
- It computes the MD5 of the whole object on every GET and HEAD unless the object has a sidecar
  file with its ETag (as it writes for objects uploaded through it). The script writes those sidecars
  (`.bucket-B.object-K.internal.json` in the served directory, B and K base64url) and checks, with
  one HEAD, that the server uses them.
Under each table, "the server alone" times GETs of every object of the array, 64 in flight, with no
decoding, by obstore from this script: what s3s-fs serves on this machine (it streams a body in
4 KiB reads, on the cores the readers use), to read the table by. It is not a strict ceiling: a
reader with a leaner client than Python's asyncio over obstore can beat it on many small objects.
The server runs on the same machine as the readers and shares its cores with them; the files are
in the page cache (read once before the runs).

`--plain` starts s3s-fs as it is, with neither workaround (no TCP_NODELAY, an MD5 per GET): how a
user's server (MinIO, Ceph, a proxy) may look. `--delay-ms N` puts the harness's fault proxy
(tests/examples/fault_proxy.rs, built here with cargo) in front of the server, delaying every
request by N ms: a distant endpoint. `--zinto-read-ahead 0,...` adds zinto rows with those
`--read-ahead` budgets (0: no read-ahead); `--zinto-rows 4:0` a row with both set (four workers
and none ahead is how zinto read on two cores before issue 31).

Run from the repository root (the venv needs what peers.py needs, plus obstore and s3fs):
    pip install zarr==3.1.6 numcodecs tensorstore zarrs obstore s3fs   # keep zarr at 3.1.6
    nice -n 19 cargo install s3s-fs@0.14.1 --features binary --locked -j 1   # into ~/.cargo/bin
    cargo build --release --bin zinto
    python3 bench/remote.py [--runs 3] [--cases whole_zstd,small_chunks] [--timeout 600] [--nagle]
                            [--plain] [--delay-ms 20] [--zinto-read-ahead 0] [--zinto-threads 8]
The server binary is found on PATH or in ~/.cargo/bin, or named by the S3S_FS environment
variable. Its log (RUST_LOG=info for more than errors) goes to s3s-fs.log in the temporary
directory, which is kept if the script fails.
"""

import argparse
import base64
import hashlib
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parent))
import peers  # noqa: E402

ROOT = peers.ROOT
ZINTO = peers.ZINTO
BUCKET = "zinto-bench"
# Made-up credentials that s3s-fs is started with; every reader uses them.
ACCESS_KEY = "zinto-bench-key"
SECRET_KEY = "zinto-bench-secret"
REGION = "us-east-1"
DEFAULT_CASES = "whole_zstd,small_chunks"

# A reader's process: argv is kind, bucket, key of the array's directory, Zarr format, selection
# (JSON); the server and credentials come from the environment. Prints what peers.py's reader does.
REMOTE_READER = r"""
import json, os, sys, time, warnings
def rss(field):
    for line in open("/proc/self/status"):
        if line.startswith(field):
            return int(line.split()[1]) * 1024
kind, bucket, key, fmt, sel = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), json.loads(sys.argv[5])
endpoint, region = os.environ["AWS_ENDPOINT_URL"], os.environ["AWS_REGION"]
key_id, secret = os.environ["AWS_ACCESS_KEY_ID"], os.environ["AWS_SECRET_ACCESS_KEY"]
import numpy as np
if kind == "tensorstore":
    import tensorstore as ts
    # Credentials: tensorstore's default chain, which reads AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY.
    arr = ts.open({"driver": "zarr3" if fmt == 3 else "zarr",
                   "kvstore": {"driver": "s3", "bucket": bucket, "path": key + "/",
                               "endpoint": endpoint, "aws_region": region}},
                  read=True).result()
else:
    import zarr
    if kind == "zarr-s3fs":
        store = zarr.storage.FsspecStore.from_url(
            f"s3://{bucket}/{key}", read_only=True,
            storage_options={"endpoint_url": endpoint, "key": key_id, "secret": secret,
                             "client_kwargs": {"region_name": region}})
    else:
        from obstore.store import S3Store
        store = zarr.storage.ObjectStore(
            S3Store(bucket, prefix=key, endpoint=endpoint, access_key_id=key_id,
                    secret_access_key=secret, region=region,
                    client_options={"allow_http": True}),
            read_only=True)
    if kind == "zinto-pipeline":
        import zinto
        zarr.config.set({"codec_pipeline.path": "zinto.ZintoCodecPipeline"})
    if kind == "zarrs":
        import zarrs
        zarr.config.set({"codec_pipeline.path": "zarrs.ZarrsCodecPipeline"})
        # zarrs-python falls back to zarr-python's pipeline, with a warning, for a store it
        # cannot use: that would not be the zarrs pipeline's number.
        warnings.filterwarnings("error", message=".*unsupported by ZarrsCodecPipeline")
    arr = zarr.open_array(store, mode="r", zarr_format=fmt)
    if kind == "zarrs":
        pipeline = arr._async_array.codec_pipeline
        assert type(pipeline).__name__ == "ZarrsCodecPipeline" and pipeline.impl is not None, pipeline
index = tuple(slice(a, b) for a, b in sel) if sel else tuple(slice(None) for _ in arr.shape)
base = rss("VmRSS:")
t = time.perf_counter()
if kind == "tensorstore":
    out = arr[index].read().result()
else:
    out = arr[index]
secs = time.perf_counter() - t
assert isinstance(out, np.ndarray) and out.flags.c_contiguous
if kind == "zinto-pipeline":
    # zinto read it (fetching the chunks itself), not zarr-python's default pipeline.
    assert zinto.pipeline.reads_by_zinto > 0
# Peak before the checksum (a small copy: 1/97 of the output, as float64).
peak = rss("VmHWM:")
print(json.dumps({"seconds": secs, "bytes": out.nbytes, "peak": peak, "base": base,
                  "sum": float(out.reshape(-1)[::97].astype("float64").sum())}))
"""


def s3s_fs_binary():
    found = os.environ.get("S3S_FS") or shutil.which("s3s-fs")
    if found:
        return Path(found)
    cargo = Path.home() / ".cargo/bin/s3s-fs"
    if cargo.exists():
        return cargo
    sys.exit("s3s-fs not found: nice -n 19 cargo install s3s-fs@0.14.1 --features binary --locked -j 1")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def b64(s):
    return base64.urlsafe_b64encode(s.encode()).rstrip(b"=").decode()


def serve_dir(root, arrays, sidecars=True):
    """Fill root: the bucket folder with a link per array folder (served under its name), and
    (with sidecars) an ETag sidecar per object."""
    bucket = root / BUCKET
    bucket.mkdir()
    for data in arrays:
        link = bucket / data.name
        if not link.exists():
            link.symlink_to(data, target_is_directory=True)
            for f in sorted(data.rglob("*")) if sidecars else []:
                if f.is_file():
                    key = f"{data.name}/{f.relative_to(data).as_posix()}"
                    md5 = hashlib.md5(f.read_bytes()).hexdigest()
                    (root / f".bucket-{b64(BUCKET)}.object-{b64(key)}.internal.json").write_text(
                        json.dumps({"e_tag": md5}))


# LD_PRELOAD for s3s-fs: TCP_NODELAY on every connection it accepts (see the top of this file).
NODELAY_C = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
static int nodelay(int fd) {
    int one = 1;
    if (fd >= 0) setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}
int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags) {
    static int (*real)(int, struct sockaddr *, socklen_t *, int);
    if (!real) real = (int (*)(int, struct sockaddr *, socklen_t *, int))dlsym(RTLD_NEXT, "accept4");
    return nodelay(real(fd, addr, len, flags));
}
int accept(int fd, struct sockaddr *addr, socklen_t *len) {
    static int (*real)(int, struct sockaddr *, socklen_t *);
    if (!real) real = (int (*)(int, struct sockaddr *, socklen_t *))dlsym(RTLD_NEXT, "accept");
    return nodelay(real(fd, addr, len));
}
"""


def build_nodelay(root):
    """The LD_PRELOAD library, built in root; None (with a note) if it cannot be built."""
    src, lib = root / "nodelay.c", root / "nodelay.so"
    src.write_text(NODELAY_C)
    try:
        r = subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", str(lib), str(src), "-ldl"],
                           capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        r = None
        err = str(e)
    if r is None or r.returncode != 0:
        err = err if r is None else r.stderr.strip()
        print(f"note: cannot build the TCP_NODELAY library ({err}); s3s-fs runs as it is, "
              "with about 40 ms per response of over a few KiB on a kept-alive connection\n")
        return None
    return lib


def start_server(binary, root, port, preload):
    log = open(root / "s3s-fs.log", "wb")
    env = dict(os.environ)
    if preload:
        env["LD_PRELOAD"] = str(preload)
    server = subprocess.Popen(
        [str(binary), "--host", "127.0.0.1", "--port", str(port),
         "--access-key", ACCESS_KEY, "--secret-key", SECRET_KEY, str(root)],
        stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=env)
    log.close()
    deadline = time.monotonic() + 30
    while True:
        if server.poll() is not None:
            sys.exit(f"s3s-fs exited with status {server.returncode}; log: {root / 's3s-fs.log'}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return server
        except OSError:
            if time.monotonic() > deadline:
                server.kill()
                sys.exit(f"s3s-fs did not listen on port {port} in 30 s")
            time.sleep(0.05)


def start_delay_proxy(port, delay_ms):
    """The harness's fault proxy (tests/examples/fault_proxy.rs) in front of 127.0.0.1:port,
    delaying every request by delay_ms: (process, its port)."""
    build = subprocess.run(["cargo", "build", "--release", "-q", "-p", "zinto-tests", "--example",
                            "fault_proxy", "--message-format", "json"],
                           cwd=ROOT, capture_output=True, text=True)
    if build.returncode != 0:
        sys.exit(f"cannot build the fault proxy:\n{build.stderr}")
    exe = next(m["executable"] for m in map(json.loads, build.stdout.splitlines())
               if m.get("reason") == "compiler-artifact" and m.get("executable")
               and m["target"]["name"] == "fault_proxy")
    proxy = subprocess.Popen([exe, f"127.0.0.1:{port}", str(delay_ms)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    url = proxy.stdout.readline().strip()
    if not url.startswith("http://127.0.0.1:"):
        proxy.kill()
        sys.exit(f"the fault proxy did not start (said {url!r})")
    return proxy, int(url.rsplit(":", 1)[1])


def stop_server(server):
    if server.poll() is None:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def reader_env(port):
    env = dict(os.environ)
    env.update({
        "AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}",
        "AWS_ACCESS_KEY_ID": ACCESS_KEY,
        "AWS_SECRET_ACCESS_KEY": SECRET_KEY,
        "AWS_REGION": REGION,
        "AWS_DEFAULT_REGION": REGION,
        "AWS_ALLOW_HTTP": "true",
        # Nothing from the user's own AWS set-up, and no instance-metadata probing.
        "AWS_CONFIG_FILE": os.devnull,
        "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
        "AWS_EC2_METADATA_DISABLED": "true",
    })
    for k in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN", "AWS_ENDPOINT_URL_S3"):
        env.pop(k, None)
    # The server is local: no HTTP proxy.
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost"
    return env


def check_server(env, key):
    """One HEAD through obstore: the server answers with the sidecar's ETag (not its own hash).
    Returns the median seconds of 20 sequential GETs of key on one connection."""
    from obstore.store import S3Store

    store = S3Store(BUCKET, endpoint=env["AWS_ENDPOINT_URL"], access_key_id=ACCESS_KEY,
                    secret_access_key=SECRET_KEY, region=REGION, client_options={"allow_http": True})
    meta = store.head(key)
    if meta["e_tag"].strip('"') != "sidecar-check":
        print(f"note: s3s-fs ignored the ETag sidecars (HEAD {key} gave {meta['e_tag']}); it hashes "
              "every object it serves, on every request\n")
    times = []
    for _ in range(20):
        t = time.perf_counter()
        bytes(store.get(key).bytes())
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def server_alone(env, data, timeout, in_flight=64):
    """Seconds and bytes for GETs of every object of the array (in_flight at a time, one
    connection pool, no decoding): what s3s-fs serves on this machine, to read the table by."""
    import asyncio

    import obstore
    from obstore.store import S3Store

    store = S3Store(BUCKET, endpoint=env["AWS_ENDPOINT_URL"], access_key_id=ACCESS_KEY,
                    secret_access_key=SECRET_KEY, region=REGION, client_options={"allow_http": True})
    keys = [f"{data.name}/{f.relative_to(data).as_posix()}" for f in sorted(data.rglob("*"))
            if f.is_file()]

    async def get_all():
        limit = asyncio.Semaphore(in_flight)

        async def get(key):
            async with limit:
                return len(await (await obstore.get_async(store, key)).bytes_async())

        return sum(await asyncio.gather(*(get(k) for k in keys)))

    t = time.perf_counter()
    n = asyncio.run(asyncio.wait_for(get_all(), timeout))
    return time.perf_counter() - t, n, len(keys)


class Runner:
    def __init__(self, env, timeout):
        self.env, self.timeout = env, timeout

    def run(self, args):
        return subprocess.run(args, capture_output=True, text=True, env=self.env, timeout=self.timeout)

    def peer(self, kind, key, fmt, sel):
        """A peer's read; its failure stops the script, with the reader's own message."""
        args = [sys.executable, "-c", REMOTE_READER, kind, BUCKET, key, str(fmt), json.dumps(sel)]
        try:
            r = self.run(args)
        except subprocess.TimeoutExpired:
            sys.exit(f"peer reader {kind} timed out after {self.timeout} s on {key}")
        if r.returncode != 0:
            sys.exit(f"peer reader {kind} failed (exit status {r.returncode}) on {key}:\n"
                     + "\n".join(r.stderr.strip().splitlines()[-20:]))
        return json.loads(r.stdout.strip().splitlines()[-1])

    def zinto_args(self, key, sel):
        if not ZINTO.exists():
            raise peers.Skip(f"{ZINTO.relative_to(ROOT)} not built")
        args = [str(ZINTO), "read", f"s3://{BUCKET}/{key}"]
        if sel:
            args += ["--select", ",".join(f"{a}:{b}" for a, b in sel)]
        return args

    def zinto(self, key, sel, threads=None, read_ahead=None):
        args = self.zinto_args(key, sel) + ["--json"]
        if threads:
            args += ["--threads", str(threads)]
        if read_ahead is not None:
            args += ["--read-ahead", str(read_ahead)]
        try:
            r = self.run(args)
        except subprocess.TimeoutExpired:
            raise peers.Skip(f"timed out after {self.timeout} s")
        if r.returncode != 0:
            err = (r.stderr.strip().splitlines() or ["(no message)"])[-1]
            raise peers.Skip(f"exit status {r.returncode}: {err}")
        r = json.loads(r.stdout)
        return {"seconds": r["seconds"], "bytes": r["bytes"], "peak": r["peak_rss_bytes"],
                "base": r["baseline_rss_bytes"]}

    def zinto_checksum(self, key, sel):
        """One untimed `zinto read s3://... --out FILE`, and the checksum of FILE (float32)."""
        import numpy as np

        out = peers.DATA / "zinto-remote-check.bin"
        try:
            args = self.zinto_args(key, sel) + ["--out", str(out)]
            if self.run(args).returncode != 0:
                return None
            data = np.fromfile(out, dtype=np.float32)
            return {"bytes": data.nbytes, "sum": float(data[::97].astype("float64").sum())}
        except (peers.Skip, subprocess.TimeoutExpired):
            return None
        finally:
            out.unlink(missing_ok=True)


def versions(server):
    from importlib.metadata import version

    import zarr

    s3s = subprocess.run([str(server), "--version"], capture_output=True, text=True).stdout.strip()
    return (f"zarr-python {version('zarr')} (async.concurrency {zarr.config.get('async.concurrency')}), "
            f"obstore {version('obstore')}, s3fs {version('s3fs')} (aiobotocore "
            f"{version('aiobotocore')}), zarrs-python {version('zarrs')}, numcodecs "
            f"{version('numcodecs')}, tensorstore {version('tensorstore')}; server {s3s}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--zinto-threads", type=lambda v: [int(x) for x in v.split(",") if x],
                   default=[], help="extra zinto rows with these --threads (e.g. 4,8)")
    p.add_argument("--cases", default=DEFAULT_CASES)
    p.add_argument("--timeout", type=float, default=600, help="seconds per reader process")
    p.add_argument("--zinto-read-ahead", type=lambda v: [int(x) for x in v.split(",") if x],
                   default=[], help="extra zinto rows with these --read-ahead bytes (e.g. 0,16777216)")
    p.add_argument("--zinto-rows", type=lambda v: [tuple(x.split(":")) for x in v.split(",") if x],
                   default=[], help="extra zinto rows THREADS:READ_AHEAD (e.g. 4:0, zinto before "
                                    "issue 31: four workers on two cores, nothing read ahead)")
    p.add_argument("--nagle", action="store_true",
                   help="run s3s-fs as it is, without TCP_NODELAY (about 40 ms per response of over a few KiB)")
    p.add_argument("--plain", action="store_true",
                   help="run s3s-fs plainly: without TCP_NODELAY and without ETag sidecars (it hashes "
                        "each object on every GET), as a user's server may behave")
    p.add_argument("--skip", default="",
                   help="readers to leave out, by the start of their label, separated by ';' "
                        "(e.g. 'zarrs;zarr-python, s3fs')")
    p.add_argument("--delay-ms", type=int, default=0,
                   help="put the harness's fault proxy in front of the server, delaying every request "
                        "by this many ms (a distant endpoint)")
    args = p.parse_args()
    names = args.cases.split(",")
    unknown = [n for n in names if n not in peers.CASES]
    if unknown:
        p.error(f"unknown case(s) {', '.join(unknown)}; known: {', '.join(peers.CASES)}")
    binary = s3s_fs_binary()
    peers.write_arrays(names)

    root = Path(tempfile.mkdtemp(prefix="zinto-s3-"))
    server = proxy = None
    ok = False
    try:
        serve_dir(root, [peers.data_path(n) for n in names], sidecars=not args.plain)
        preload = None if args.nagle or args.plain else build_nodelay(root)
        port = free_port()
        server = start_server(binary, root, port, preload)
        if args.delay_ms:
            proxy, port = start_delay_proxy(port, args.delay_ms)
        env = reader_env(port)
        # The server check: one object of 64 KiB (several writes of a response, which is what
        # waits on the client's delayed ACK without TCP_NODELAY) whose sidecar says "sidecar-check".
        (root / BUCKET / "etag-check").write_bytes(bytes(64 << 10))
        (root / f".bucket-{b64(BUCKET)}.object-{b64('etag-check')}.internal.json").write_text(
            json.dumps({"e_tag": "sidecar-check"}))
        round_trip = check_server(env, "etag-check")
        run = Runner(env, args.timeout)
        readers = [
            ("zinto (C zstd, default threads)", lambda key, fmt, sel: run.zinto(key, sel)),
            *[(f"zinto, {t} threads", lambda key, fmt, sel, t=t: run.zinto(key, sel, t))
              for t in args.zinto_threads],
            *[(f"zinto, --read-ahead {b}", lambda key, fmt, sel, b=b: run.zinto(key, sel, None, b))
              for b in args.zinto_read_ahead],
            *[(f"zinto, {t} threads, --read-ahead {b}",
               lambda key, fmt, sel, t=t, b=b: run.zinto(key, sel, int(t), int(b)))
              for t, b in args.zinto_rows],
            ("zarr-python, obstore", lambda key, fmt, sel: run.peer("zarr-obstore", key, fmt, sel)),
            ("zarr-python, s3fs", lambda key, fmt, sel: run.peer("zarr-s3fs", key, fmt, sel)),
            ("zarrs pipeline, obstore", lambda key, fmt, sel: run.peer("zarrs", key, fmt, sel)),
            ("zarr-python + zinto pipeline, obstore",
             lambda key, fmt, sel: run.peer("zinto-pipeline", key, fmt, sel)),
            ("tensorstore, s3 driver", lambda key, fmt, sel: run.peer("tensorstore", key, fmt, sel)),
        ]
        skip = [x.strip() for x in args.skip.split(";") if x.strip()]
        left_out = [label for label, _ in readers if any(label.startswith(x) for x in skip)]
        readers = [(label, fn) for label, fn in readers if label not in left_out]
        print(f"{os.cpu_count()} cores, shared by the readers and s3s-fs on 127.0.0.1 ("
              + ("with TCP_NODELAY" if preload else "without TCP_NODELAY")
              + ("" if not args.plain else ", without ETag sidecars: MD5 of each object per GET")
              + (f", behind a proxy delaying each request {args.delay_ms} ms" if args.delay_ms else "")
              + f"; a GET of 64 KiB on a kept-alive connection: {round_trip * 1e3:.1f} ms); median "
              f"of {args.runs} runs (readers interleaved, each round starting with the next), each in a fresh process, files in the "
              "page cache (read once before the runs).\n")
        print(f"Peers: {versions(binary)}.\n")
        if left_out:
            print(f"Left out (--skip): {', '.join(left_out)}.\n")
        for name in names:
            c = peers.CASES[name]
            shape, chunks, shards, sel, fmt = c["shape"], c["chunks"], c["shards"], c["sel"], c["zarr_format"]
            key = peers.data_path(name).name
            peers.warm(peers.data_path(name))
            what = "whole array" if sel is None else "selection " + ", ".join(f"{a}:{b}" for a, b in sel)
            print(f"### {name}: s3://{BUCKET}/{key}, float32 {shape}, chunks {chunks}"
                  + (f", shards {shards}" if shards else "")
                  + f", Zarr v{fmt}, {peers.CODECS[c['codec']]}; {what}\n", flush=True)
            by_reader = {label: [] for label, _ in readers}
            skipped = {}
            for r in range(args.runs):
                # Each round starts with the next reader: the first reader of a round measured
                # slower, whichever it was (docs/benchmarks.md at cf4ff61, issue 31), so no reader is
                # always first.
                shift = r % len(readers)
                for label, fn in readers[shift:] + readers[:shift]:
                    if label in skipped:
                        continue
                    try:
                        by_reader[label].append(fn(key, fmt, sel))
                    except peers.Skip as e:
                        skipped[label] = str(e)
            alone = [server_alone(env, peers.data_path(name), args.timeout) for _ in range(args.runs)]
            checked = run.zinto_checksum(key, sel)
            if checked is not None:
                by_reader["zinto, untimed check"] = [checked]
            peers.check_sums(name, by_reader)
            for label, why in skipped.items():
                print(f"note: {label} skipped: {why}")
            if skipped:
                print()
            print("| reader | seconds | MB/s | peak RSS / output | extra / output |")
            print("|---|---:|---:|---:|---:|")
            for label, _ in readers:
                if label in skipped:
                    continue
                results = by_reader[label]
                secs = statistics.median(r["seconds"] for r in results)
                n = results[0]["bytes"]
                peak = max(r["peak"] for r in results)
                extra = max((r["peak"] - r["base"] - r["bytes"]) / r["bytes"] for r in results)
                print(f"| {label} | {secs:.3f} | {n / secs / 1e6:.0f} | {peak / n:.3f} | {extra * 100:.1f}% |")
            secs = statistics.median(a[0] for a in alone)
            print(f"\nThe server alone: GETs of all {alone[0][2]} objects of the array ({alone[0][1] / 1e6:.0f} MB "
                  f"stored), 64 in flight, no decoding (obstore, in this script's process): {secs:.3f} s, "
                  f"{alone[0][2] / secs:.0f} requests/s, {alone[0][1] / secs / 1e6:.0f} MB/s stored.\n", flush=True)
        ok = True
    finally:
        if proxy is not None:
            proxy.stdin.close()
            proxy.wait(timeout=15)
        if server is not None:
            stop_server(server)
        if ok:
            shutil.rmtree(root)
        else:
            print(f"(served directory and s3s-fs.log kept in {root})", file=sys.stderr)


if __name__ == "__main__":
    main()
