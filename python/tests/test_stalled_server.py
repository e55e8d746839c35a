"""A server that sends a byte a second (issue 61): a Python read of it is bounded by the
timeouts the user sets, and Ctrl-C stops it within a second, its requests dropped (the server
sees its client go away), not only the next chunk skipped."""

import http.server
import os
import signal
import threading
import time

import pytest

import zinto

from fixtures import DATA

NAME = "v3_gzip"


class Stalling(http.server.ThreadingHTTPServer):
    """Serves DATA; metadata at once, every other file's body a byte each `pause` seconds.
    Counts the bodies started and those whose client went away before their end."""

    daemon_threads = True

    def __init__(self, pause):
        self.pause = pause
        self.started = threading.Event()
        self.hung_up = 0
        super().__init__(("127.0.0.1", 0), Handler)


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        path = DATA / self.path.lstrip("/")
        if not path.is_file():
            self.send_error(404)
            return
        body = path.read_bytes()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.flush()
        if path.name in ("zarr.json", ".zarray", ".zattrs", ".zgroup"):
            self.wfile.write(body)
            return
        self.server.started.set()
        try:
            for i in range(len(body)):
                time.sleep(self.server.pause)
                self.wfile.write(body[i:i + 1])
                self.wfile.flush()
        except OSError:
            self.server.hung_up += 1


@pytest.fixture
def stalling():
    server = Stalling(pause=1.0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def url(server):
    return f"http://127.0.0.1:{server.server_address[1]}/{NAME}"


def test_ctrl_c_stops_a_stalled_read_within_a_second(stalling):
    a = zinto.open(url(stalling))
    sent = []

    def interrupt():
        stalling.started.wait(30)
        time.sleep(0.3)
        sent.append(time.perf_counter())
        os.kill(os.getpid(), signal.SIGINT)

    watcher = threading.Thread(target=interrupt)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        watcher.start()
        with pytest.raises(KeyboardInterrupt):
            a[...]
        raised = time.perf_counter()
        watcher.join()
    finally:
        signal.signal(signal.SIGINT, previous)
    assert raised - sent[0] < 1.0, f"raised {raised - sent[0]:.2f} s after Ctrl-C"
    # The requests were dropped: the server sees its client go away (at its next byte).
    deadline = time.monotonic() + 5
    while stalling.hung_up == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert stalling.hung_up > 0, "no request was dropped"


def test_the_timeouts_bound_a_read(stalling):
    started = time.perf_counter()
    with pytest.raises(zinto.StoreError):
        zinto.open(url(stalling), timeout=1.5)[...]
    assert time.perf_counter() - started < 5
    stalling.pause = 3.0
    started = time.perf_counter()
    with pytest.raises(zinto.StoreError):
        zinto.open(url(stalling), stall_timeout=0.5)[...]
    # Each attempt stalls half a second; five retries with their backoff come to about 4 s.
    assert time.perf_counter() - started < 8
    for bad in (0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="positive number of seconds"):
            zinto.open(url(stalling), timeout=bad)
