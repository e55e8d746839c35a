//! The fetch stage: many GETs in flight ahead of the decoding workers, on the remote store's
//! tokio runtime, each response's body handed to the worker that decodes it as it arrives.
//!
//! A read's pieces are fetched in the order the workers take them (the pool hands them out in
//! index order), at most `in_flight` at a time: a piece's permit is held from its GET until its
//! worker is done with it. Since every piece before the one a worker waits for was taken by a
//! worker that is reading it, the oldest permit is always released: no deadlock, whatever
//! `in_flight` is. A response body waits in a channel of [`FRAMES_AHEAD`] frames; beyond them,
//! a body no worker has taken yet may go on into the read's read-ahead budget (`budget.rs`,
//! granted oldest piece first); then it stops being read (the server's TCP window fills), so
//! the memory held is bounded by the requests in flight times a few frames plus the budget,
//! never by the size of a chunk.
//!
//! What is fetched for a piece:
//! - unsharded: the whole object, one GET, no HEAD first. A 404 is a missing chunk (the fill
//!   value); its length comes from the response.
//! - sharded: the shard's index, one GET of its byte range (a suffix range for an index at the
//!   end), which also gives the shard's length. Once the reader has parsed the index, it says
//!   which byte ranges it will read ([`Store::will_read`]): ranges that follow each other
//!   with gaps under [`SPAN_GAP`] are fetched as one streamed GET each (a whole shard read in
//!   order is one request), one span at a time per worker.

use std::collections::VecDeque;
use std::ops::{ControlFlow, Range};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use futures_util::StreamExt;
use object_store::path::Path;
use object_store::{GetOptions, GetRange, GetResult, ObjectStore, ObjectStoreExt};
use std::sync::atomic::{AtomicBool, Ordering};
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore, mpsc, oneshot};
use tokio::task::JoinSet;

use super::budget::{Budget, Lease};
use super::remote::{Blocks, RemoteStore, Version, filler};
use super::{
    FetchOrder, FirstBytes, Halt, Opened, PieceSource, READ_TRIES, REMOTE_WORKERS_MIN,
    REMOTE_WORKERS_PER_CORE, ReadAhead, Store, StoreError, halt_on_break, settle, update_backoff,
};
use crate::redact::Secrets;
use std::num::NonZeroUsize;

/// Response frames a body may have waiting for its worker.
pub const FRAMES_AHEAD: usize = 2;

/// Byte ranges of a shard closer than this are fetched by one request (the bytes between
/// them are read and dropped): a round trip costs more than this many bytes on most links.
pub const SPAN_GAP: u64 = 1 << 20;

/// What to fetch for one piece.
#[derive(Debug, Clone)]
pub(crate) enum Want {
    /// The whole object.
    Whole,
    /// The last `n` bytes (a shard index at the end).
    Suffix(u64),
    /// The first `n` bytes (a shard index at the start).
    Prefix(u64),
    /// A byte range, streamed (ranges of a shard).
    Span(Range<u64>),
}

impl Want {
    /// The GET's options for this part of the object `at` names.
    fn options(&self, at: Version<'_>) -> GetOptions {
        let range = match self {
            Self::Whole => None,
            Self::Suffix(n) => Some(GetRange::Suffix(*n)),
            Self::Prefix(n) => Some(GetRange::Bounded(0..*n)),
            Self::Span(r) => Some(GetRange::Bounded(r.clone())),
        };
        GetOptions {
            range,
            if_match: at.etag.map(str::to_owned),
            ..GetOptions::default()
        }
    }

    /// Whether the body streams to the worker (else it is gathered whole first).
    fn streams(&self) -> bool {
        matches!(self, Self::Whole | Self::Span(_))
    }
}

/// What lets one body frame wait for its worker: one of the body's [`FRAMES_AHEAD`] places,
/// or bytes of the read's [`Budget`] beyond them.
enum Hold {
    Place { _permit: OwnedSemaphorePermit },
    Ahead { _lease: Lease },
}

/// Whether a worker has taken a piece: from then on its body waits in its own places only
/// (the budget is for bodies no worker reads yet; buffering the one a worker reads gains
/// nothing, and would hold back the pieces after it).
#[derive(Default)]
struct Taken {
    flag: AtomicBool,
    notify: Notify,
}

impl Taken {
    fn set(&self) {
        self.flag.store(true, Ordering::Release);
        // Stored as a permit if the pump is not waiting now.
        self.notify.notify_one();
    }

    fn is_set(&self) -> bool {
        self.flag.load(Ordering::Acquire)
    }
}

/// Where a body's frames may wait: its own places, then, until a worker takes it, the read's
/// budget (if it has one) as `piece` of the read.
struct Room {
    places: Arc<Semaphore>,
    ahead: Option<(Arc<Budget>, u64)>,
    taken: Arc<Taken>,
}

impl Room {
    fn new(ahead: Option<(Arc<Budget>, u64)>) -> Self {
        Self {
            places: Arc::new(Semaphore::new(FRAMES_AHEAD)),
            ahead,
            taken: Arc::default(),
        }
    }

    /// Waits for room for a frame of `len` bytes: a place if one is free (preferred), else
    /// whichever comes first of a place and `len` bytes of the budget, until a worker takes
    /// the piece. `None` only if the places were closed, which they never are.
    async fn wait(&self, len: usize) -> Option<Hold> {
        let place = || Arc::clone(&self.places).acquire_owned();
        let as_place = |_permit| Hold::Place { _permit };
        if let Ok(p) = Arc::clone(&self.places).try_acquire_owned() {
            return Some(as_place(p));
        }
        if let Some((budget, piece)) = &self.ahead
            && !self.taken.is_set()
        {
            tokio::select! {
                biased;
                p = place() => return p.ok().map(as_place),
                _lease = budget.acquire(*piece, len as u64) => {
                    return Some(Hold::Ahead { _lease });
                }
                () = self.taken.notify.notified() => {}
            }
        }
        place().await.ok().map(as_place)
    }
}

/// What the fetch stage got for one piece.
enum Fetched {
    /// A 404: the chunk is missing.
    Missing,
    /// A byte range of an object (the whole of it, or a span), its body arriving.
    Stream {
        /// The object's length, from the response.
        len: u64,
        /// The end of the range (the first byte is where `at` started).
        end: u64,
        /// Body frames, in order, each with what holds its place; an error ends them.
        frames: mpsc::UnboundedReceiver<Result<(Bytes, Hold), StoreError>>,
        /// Offset in the object of the end of the frames taken from `frames` so far.
        at: u64,
        /// What is left of the last frame taken.
        pending: Bytes,
        /// What holds `pending`'s place: given back once it is copied out.
        pending_hold: Option<Hold>,
        /// Set when a worker takes the piece.
        taken: Arc<Taken>,
        /// Held until the worker is done: one request in flight. A shard's spans hold none
        /// (the shard's own permit counts them).
        _permit: Option<OwnedSemaphorePermit>,
    },
    /// A byte range of an object, whole.
    Range {
        /// The object's length.
        len: u64,
        /// Where `bytes` start in it.
        start: u64,
        bytes: Bytes,
        /// The object's ETag, if the server sent one: the rest of a shard's reads must match it.
        etag: Option<String>,
        /// Held until the worker is done with the shard: the fetch stage does not run ahead
        /// of the workers by more than `in_flight` shard indexes either.
        _permit: Option<OwnedSemaphorePermit>,
    },
}

/// Where a worker waits for its piece's response.
type Slot = Mutex<Option<oneshot::Receiver<Result<Fetched, StoreError>>>>;

/// Fired once, when a read stops: every request of the read still running (the stage's, and
/// the shard spans its workers started) is dropped at once, its connection closed, and the
/// workers waiting for them wake.
#[derive(Default)]
pub(crate) struct Stop {
    fired: AtomicBool,
    notify: Notify,
}

impl Stop {
    fn fire(&self) {
        self.fired.store(true, Ordering::SeqCst);
        self.notify.notify_waiters();
    }

    /// Returns once [`Stop::fire`] was called (at once if it was already).
    async fn fired(&self) {
        loop {
            let notified = self.notify.notified();
            tokio::pin!(notified);
            // Registered before the flag is looked at: a fire in between is not missed.
            notified.as_mut().enable();
            if self.fired.load(Ordering::SeqCst) {
                return;
            }
            notified.await;
        }
    }
}

/// The fetches of one read, one slot per piece; dropping it cancels what is in flight.
pub(crate) struct FetchStage {
    slots: Vec<Slot>,
    driver: tokio::task::JoinHandle<()>,
    stop: Arc<Stop>,
}

impl Drop for FetchStage {
    fn drop(&mut self) {
        // Aborting the driver drops its JoinSet, which aborts every fetch it started; the
        // spans started by workers stop on the signal.
        self.stop.fire();
        self.driver.abort();
    }
}

impl FetchStage {
    /// Stops every fetch: for a read that failed or was cancelled. Workers waiting for a
    /// response, or for more of a body, wake with an error instead of waiting for downloads
    /// nobody will use (a piece taken but never read keeps its request's permit: with more
    /// workers than requests in flight, a worker could otherwise wait for a permit forever).
    pub(crate) fn abort(&self) {
        self.stop.fire();
        self.driver.abort();
    }

    /// Starts fetching `want` of each of `keys`, in order; bodies may hold `ahead` bytes
    /// beyond their channels ([`Budget`]).
    pub(crate) fn start(remote: &RemoteStore, keys: Vec<String>, want: Want, ahead: u64) -> Self {
        let mut slots = Vec::with_capacity(keys.len());
        let mut jobs = Vec::with_capacity(keys.len());
        for key in keys {
            let (tx, rx) = oneshot::channel();
            slots.push(Mutex::new(Some(rx)));
            jobs.push((key, tx));
        }
        let permits = Arc::new(Semaphore::new(remote.options.in_flight.get()));
        let by_head = !remote.suffix_ranges;
        // Only whole objects stream ahead of their workers: index ranges are small and whole.
        let budget = Budget::new(ahead).filter(|_| want.streams());
        let store = Arc::clone(&remote.store);
        let locations: Vec<_> = jobs
            .into_iter()
            .map(|(key, tx)| (remote.location(&key), key, tx))
            .collect();
        let errors = ErrorNamer {
            url: remote.url().to_owned(),
            secrets: remote.secrets.clone(),
        };
        let driver = remote.runtime.spawn(async move {
            let mut fetches = JoinSet::new();
            for (piece, (location, key, tx)) in (0u64..).zip(locations) {
                let Ok(permit) = Arc::clone(&permits).acquire_owned().await else {
                    return;
                };
                let Some(location) = location else {
                    let _ = tx.send(Ok(Fetched::Missing));
                    continue;
                };
                let request = Request {
                    store: Arc::clone(&store),
                    location,
                    key,
                    want: want.clone(),
                    if_match: None,
                    by_head,
                    permit: Some(permit),
                    room: Room::new(budget.as_ref().map(|b| (Arc::clone(b), piece))),
                };
                let errors = errors.clone();
                fetches.spawn(async move { request.run(tx, &errors).await });
                // Reap finished fetches so the set stays as small as what is in flight.
                while fetches.try_join_next().is_some() {}
            }
            while fetches.join_next().await.is_some() {}
        });
        Self {
            slots,
            driver,
            stop: Arc::default(),
        }
    }

    /// The store the worker reading piece `index` (of `key`) reads through: the fetched object
    /// first, `remote` for anything else.
    pub(crate) fn piece<'r>(
        &self,
        remote: &'r RemoteStore,
        index: u64,
        key: &str,
    ) -> Result<PieceStore<'r>, StoreError> {
        let taken = usize::try_from(index)
            .ok()
            .and_then(|i| self.slots.get(i))
            .and_then(|slot| slot.lock().ok()?.take())
            .ok_or(StoreError::Internal {
                what: "a piece fetched twice, or never",
            })?;
        // Blocks this worker (never a runtime thread) until the response's headers are in.
        let fetched = taken.blocking_recv().map_err(|_| StoreError::Internal {
            what: "the fetch stage ended before answering",
        })??;
        if let Fetched::Stream { taken, .. } = &fetched {
            taken.set();
        }
        let etag = match &fetched {
            Fetched::Range { etag, .. } => etag.clone(),
            Fetched::Missing | Fetched::Stream { .. } => None,
        };
        Ok(PieceStore {
            remote,
            key: key.to_owned(),
            etag: etag.filter(|_| remote.pins_versions),
            stale: AtomicBool::new(false),
            fetched: Mutex::new(fetched),
            spans: Mutex::new(Spans::default()),
            stop: Arc::clone(&self.stop),
        })
    }
}

impl ReadAhead for RemoteStore {
    /// [`REMOTE_WORKERS_PER_CORE`] per core and at least [`REMOTE_WORKERS_MIN`], at most the
    /// requests in flight.
    fn workers(&self, per_core: NonZeroUsize) -> NonZeroUsize {
        per_core
            .saturating_mul(REMOTE_WORKERS_PER_CORE)
            .max(REMOTE_WORKERS_MIN)
            .min(self.options.in_flight)
    }

    fn begin(&self, plan: FetchOrder) -> Result<Box<dyn PieceSource + '_>, StoreError> {
        let want = match plan.first {
            FirstBytes::Whole => Want::Whole,
            FirstBytes::Suffix(n) => Want::Suffix(n),
            FirstBytes::Prefix(n) => Want::Prefix(n),
        };
        Ok(Box::new(RemoteRead {
            remote: self,
            stage: FetchStage::start(
                self,
                plan.keys,
                want,
                self.options.read_ahead.bytes_for(plan.output_len),
            ),
        }))
    }
}

/// One read's fetch stage, with the store it fetches from.
struct RemoteRead<'r> {
    remote: &'r RemoteStore,
    stage: FetchStage,
}

impl PieceSource for RemoteRead<'_> {
    fn piece(&self, index: u64, key: &str) -> Result<Box<dyn Store + '_>, StoreError> {
        Ok(Box::new(self.stage.piece(self.remote, index, key)?))
    }

    fn abort(&self) {
        self.stage.abort();
    }
}

/// Names the URL of keys in errors, on the runtime (the store itself stays with the caller).
#[derive(Clone)]
struct ErrorNamer {
    url: String,
    secrets: Secrets,
}

impl ErrorNamer {
    fn url_of(&self, key: &str) -> String {
        format!("{}/{key}", self.url)
    }

    /// As [`Version::error`].
    fn error(&self, at: Version<'_>, e: object_store::Error) -> StoreError {
        at.error(|| self.url_of(at.key), &self.secrets, e)
    }
}

/// One GET of the fetch stage: what of which object, and what it holds while in flight.
struct Request {
    store: Arc<dyn ObjectStore>,
    location: Path,
    key: String,
    want: Want,
    /// The ETag the object must still have (`If-Match`): a shard's spans, read after its index.
    if_match: Option<String>,
    /// A suffix is asked as the range its HEAD finds ([`suffix_by_head`]): the store cannot
    /// GET a suffix range (Azure).
    by_head: bool,
    /// One of the read's requests in flight, held until its worker is done (none for a
    /// shard's spans: the shard's own permit counts them).
    permit: Option<OwnedSemaphorePermit>,
    /// Where the body's frames may wait for the worker.
    room: Room,
}

impl Request {
    /// GETs the request and answers `tx`; for a streamed body, then pumps it into the channel
    /// the worker reads, until the body ends or the worker drops it.
    async fn run(self, tx: oneshot::Sender<Result<Fetched, StoreError>>, errors: &ErrorNamer) {
        let Self {
            store,
            location,
            key,
            want,
            if_match,
            by_head,
            permit,
            room,
        } = self;
        let at = Version::pinned(&key, if_match.as_deref());
        let got = get(&*store, &location, &want, (at, by_head)).await;
        let result = match got {
            Ok(Some(r)) => r,
            Err(e) if at.etag.is_some() || !matches!(e, object_store::Error::NotFound { .. }) => {
                let _ = tx.send(Err(errors.error(at, e)));
                return;
            }
            // No object (a 404 for an object not seen before): a missing chunk.
            Ok(None) | Err(_) => {
                let _ = tx.send(Ok(Fetched::Missing));
                return;
            }
        };
        let len = result.meta.size;
        if !want.streams() {
            let start = result.range.start;
            let etag = result.meta.e_tag.clone();
            let answer = result
                .bytes()
                .await
                .map(|bytes| Fetched::Range {
                    len,
                    start,
                    bytes,
                    etag,
                    _permit: permit,
                })
                .map_err(|e| errors.error(at, e));
            let _ = tx.send(answer);
            return;
        }
        let (frames_tx, frames) = mpsc::unbounded_channel();
        let answer = Fetched::Stream {
            len,
            end: result.range.end,
            frames,
            at: result.range.start,
            pending: Bytes::new(),
            pending_hold: None,
            taken: Arc::clone(&room.taken),
            _permit: permit,
        };
        if tx.send(Ok(answer)).is_err() {
            return;
        }
        let mut body = result.into_stream();
        while let Some(frame) = body.next().await {
            let sent = match frame {
                // An empty frame carries nothing: no place or budget is spent on it (a server
                // sending empty frames would otherwise grow the channel without bound).
                Ok(frame) if frame.is_empty() => true,
                Ok(frame) => match room.wait(frame.len()).await {
                    Some(hold) => frames_tx.send(Ok((frame, hold))).is_ok(),
                    None => false,
                },
                Err(e) => {
                    let _ = frames_tx.send(Err(errors.error(at, e)));
                    false
                }
            };
            if !sent {
                return;
            }
        }
    }
}

/// GETs `want` of the object `at` names (at `location`); a suffix `by_head` if the store
/// cannot GET one. `None` if there is no object (where the store says so other than by a 404).
async fn get(
    store: &dyn ObjectStore,
    location: &Path,
    want: &Want,
    (at, by_head): (Version<'_>, bool),
) -> Result<Option<GetResult>, object_store::Error> {
    match (want, by_head) {
        (Want::Suffix(n), true) => suffix_by_head(store, location, *n).await,
        (Want::Whole | Want::Suffix(_) | Want::Prefix(_) | Want::Span(_), _) => {
            store.get_opts(location, want.options(at)).await.map(Some)
        }
    }
}

/// GETs the last `n` bytes of the object at `location` from a store that cannot GET a suffix
/// range: its HEAD finds its length, then a GET of that range must match the ETag the HEAD
/// saw, both again (up to [`READ_TRIES`] times) if a writer replaced it between them. `None`
/// if there is no object. An object of no bytes asks for its first byte (which it has not).
async fn suffix_by_head(
    store: &dyn ObjectStore,
    location: &Path,
    n: u64,
) -> Result<Option<GetResult>, object_store::Error> {
    let mut tries = 1;
    loop {
        let meta = match store.head(location).await {
            Ok(meta) => meta,
            Err(object_store::Error::NotFound { .. }) => return Ok(None),
            Err(e) => return Err(e),
        };
        let start = meta.size.saturating_sub(n);
        let end = meta.size.max(start.saturating_add(1));
        let options = GetOptions {
            range: Some(GetRange::Bounded(start..end)),
            if_match: Version::pinned("", meta.e_tag.as_deref())
                .etag
                .map(str::to_owned),
            ..GetOptions::default()
        };
        let began = std::time::Instant::now();
        match store.get_opts(location, options).await {
            Err(
                object_store::Error::Precondition { .. } | object_store::Error::NotFound { .. },
            ) if tries < READ_TRIES => {
                tokio::time::sleep(update_backoff(tries, began.elapsed())).await;
                tries += 1;
            }
            got => return got.map(Some),
        }
    }
}

/// The store one worker reads one piece through: the object the fetch stage got for it, then
/// the spans of a shard the reader announced, and the remote store for anything else.
pub(crate) struct PieceStore<'r> {
    remote: &'r RemoteStore,
    key: String,
    /// The ETag of the object fetched (a shard whose index was fetched): every later request
    /// for it must match.
    etag: Option<String>,
    /// Set once the piece's read starts again ([`Store::reopen`]): what was fetched is of the
    /// version it found changed, and is served no more.
    stale: AtomicBool,
    fetched: Mutex<Fetched>,
    spans: Mutex<Spans>,
    /// The read's: a span's request ends when it fires.
    stop: Arc<Stop>,
}

/// The spans of a shard still to fetch, in the order they will be read, and the one arriving.
#[derive(Default)]
struct Spans {
    planned: VecDeque<Range<u64>>,
    current: Option<Fetched>,
}

impl PieceStore<'_> {
    /// [`Store::read_blocks`], stopping with [`Halt`] where the consumer says so.
    pub(crate) fn blocks(
        &self,
        key: &str,
        offset: u64,
        len: u64,
        buf: &mut [u8],
        each: &mut dyn FnMut(&[u8]) -> Result<(), Halt>,
    ) -> Result<(), Halt> {
        if len == 0 {
            return Ok(());
        }
        let served = {
            let mut blocks = Blocks::new(buf, len);
            let mut gather = |part: &[u8]| blocks.push(part, each);
            self.serve(key, offset, len, &mut gather)?
        };
        if served {
            Ok(())
        } else {
            self.remote
                .blocks(self.version(key), offset, len, buf, each)
        }
    }

    /// Whether the piece's read started again, from the store ([`Store::reopen`]).
    fn is_stale(&self) -> bool {
        self.stale.load(Ordering::Acquire)
    }

    /// `key` as this piece reads it: pinned to the fetched object's ETag if it is the piece's.
    fn version<'k>(&'k self, key: &'k str) -> Version<'k> {
        match key == self.key && !self.is_stale() {
            true => Version::pinned(key, self.etag.as_deref()),
            false => Version::any(key),
        }
    }

    /// Hands `each` the bytes `key[offset..offset + len]` from what was fetched, or from the
    /// announced span that holds them (fetching it now); `Ok(false)`, having handed nothing,
    /// if none holds them.
    fn serve(
        &self,
        key: &str,
        offset: u64,
        len: u64,
        each: &mut dyn FnMut(&[u8]) -> Result<(), Halt>,
    ) -> Result<bool, Halt> {
        if key != self.key || self.is_stale() {
            return Ok(false);
        }
        let poisoned = || {
            Halt::Store(StoreError::Internal {
                what: "a fetched object's lock poisoned",
            })
        };
        let url = || self.remote.url_of(key);
        {
            let mut fetched = self.fetched.lock().map_err(|_| poisoned())?;
            match &mut *fetched {
                Fetched::Missing => return Err(Halt::Store(StoreError::Missing)),
                Fetched::Range { start, bytes, .. } => {
                    let part = offset
                        .checked_sub(*start)
                        .and_then(|from| usize::try_from(from).ok())
                        .and_then(|from| {
                            bytes.get(from..from.checked_add(usize::try_from(len).ok()?)?)
                        });
                    if let Some(part) = part {
                        each(part)?;
                        return Ok(true);
                    }
                }
                stream @ Fetched::Stream { .. } => {
                    if stream.stream_range(&url, offset, len, each)? {
                        return Ok(true);
                    }
                }
            }
        }
        let mut spans = self.spans.lock().map_err(|_| poisoned())?;
        if let Some(current) = &mut spans.current
            && current.stream_range(&url, offset, len, each)?
        {
            return Ok(true);
        }
        while spans.planned.front().is_some_and(|s| s.end <= offset) {
            spans.planned.pop_front();
        }
        let end = offset.saturating_add(len);
        match spans.planned.front() {
            Some(span) if span.start <= offset && end <= span.end => {
                let span = span.clone();
                spans.planned.pop_front();
                let current = spans.current.insert(self.open_span(key, span)?);
                current.stream_range(&url, offset, len, each)
            }
            _ => Ok(false),
        }
    }

    /// Starts one streamed GET of `span` of `key` and waits for its headers.
    fn open_span(&self, key: &str, span: Range<u64>) -> Result<Fetched, Halt> {
        let location = self
            .remote
            .location(key)
            .ok_or(Halt::Store(StoreError::Missing))?;
        let (tx, rx) = oneshot::channel();
        let store = Arc::clone(&self.remote.store);
        let errors = ErrorNamer {
            url: self.remote.url().to_owned(),
            secrets: self.remote.secrets.clone(),
        };
        let key = key.to_owned();
        let request = Request {
            store,
            location,
            key,
            want: Want::Span(span),
            if_match: self.etag.clone(),
            by_head: false,
            permit: None,
            room: Room::new(None),
        };
        let stop = Arc::clone(&self.stop);
        self.remote.runtime.spawn(async move {
            tokio::select! {
                () = stop.fired() => {}
                () = request.run(tx, &errors) => {}
            }
        });
        match rx.blocking_recv() {
            // The shard was there a moment ago (its index was read): not a missing chunk, a
            // shard deleted during the read, read again from the start.
            Ok(Ok(Fetched::Missing)) => Err(Halt::Store(StoreError::Changed {
                url: self.remote.url_of(&self.key),
            })),
            Ok(Ok(fetched)) => Ok(fetched),
            Ok(Err(e)) => Err(Halt::Store(e)),
            Err(_) => Err(Halt::Store(StoreError::Internal {
                what: "a span's fetch ended before answering",
            })),
        }
    }
}

impl Fetched {
    /// Hands `each` the body's bytes `offset..offset + len` in order, if the body has not
    /// passed `offset` yet (`Ok(false)` otherwise: the caller asks the store again).
    fn stream_range(
        &mut self,
        url: &dyn Fn() -> String,
        offset: u64,
        len: u64,
        each: &mut dyn FnMut(&[u8]) -> Result<(), Halt>,
    ) -> Result<bool, Halt> {
        let Self::Stream {
            len: total,
            end: stream_end,
            frames,
            at,
            pending,
            pending_hold,
            ..
        } = self
        else {
            return Ok(false);
        };
        let end = offset
            .checked_add(len)
            .ok_or(Halt::Store(StoreError::ShortRead {
                offset,
                wanted: len,
                len: *total,
            }))?;
        if end > *total {
            return Err(Halt::Store(StoreError::ShortRead {
                offset,
                wanted: len,
                len: *total,
            }));
        }
        // `pending` holds the object's `at - pending.len()..at`.
        let mut pos = *at - pending.len() as u64;
        if offset < pos || end > *stream_end {
            return Ok(false);
        }
        while pos < end {
            if pending.is_empty() {
                // The last frame is copied out: its place (or budget) goes back.
                *pending_hold = None;
                let (frame, hold) = next_frame(frames, at, *stream_end, url)?;
                *pending = frame;
                *pending_hold = Some(hold);
                continue;
            }
            // Skip what lies before `offset`, hand on what lies before `end`.
            let skip = usize::try_from(offset.saturating_sub(pos))
                .unwrap_or(usize::MAX)
                .min(pending.len());
            let _ = pending.split_to(skip);
            pos += skip as u64;
            let take = usize::try_from(end - pos)
                .unwrap_or(usize::MAX)
                .min(pending.len());
            if take > 0 {
                let part = pending.split_to(take);
                each(&part)?;
                pos += take as u64;
            }
        }
        Ok(true)
    }
}

/// The next frame of a body that ends at `end`, `at` moved past it.
fn next_frame(
    frames: &mut mpsc::UnboundedReceiver<Result<(Bytes, Hold), StoreError>>,
    at: &mut u64,
    end: u64,
    url: &dyn Fn() -> String,
) -> Result<(Bytes, Hold), Halt> {
    let cut = |got| {
        Halt::Store(StoreError::BodyLength {
            url: url(),
            expected: end,
            got,
        })
    };
    let (frame, hold) = match frames.blocking_recv() {
        Some(Ok(frame)) => frame,
        Some(Err(e)) => return Err(Halt::Store(e)),
        None => return Err(cut(*at)),
    };
    *at = at.saturating_add(frame.len() as u64);
    if *at > end {
        return Err(cut(*at));
    }
    Ok((frame, hold))
}

impl Store for PieceStore<'_> {
    /// The remote store's: the fetched object is of the read before, which found it changed
    /// (it is served no more).
    fn reopen(&self, key: &str) -> Result<Opened<'_>, StoreError> {
        if key == self.key {
            self.stale.store(true, Ordering::Release);
        }
        self.remote.reopen(key)
    }

    fn size(&self, key: &str) -> Result<Option<u64>, StoreError> {
        if key == self.key
            && !self.is_stale()
            && let Ok(fetched) = self.fetched.lock()
        {
            return Ok(match &*fetched {
                Fetched::Missing => None,
                Fetched::Stream { len, .. } | Fetched::Range { len, .. } => Some(*len),
            });
        }
        self.remote.size(key)
    }

    fn read_into(&self, key: &str, offset: u64, dst: &mut [u8]) -> Result<(), StoreError> {
        let served = {
            let len = dst.len() as u64;
            let mut fill = filler(dst);
            self.serve(key, offset, len, &mut fill)
        };
        match served {
            Ok(true) => Ok(()),
            Ok(false) => self.remote.read_at(self.version(key), offset, dst),
            Err(Halt::Store(e)) => Err(e),
            Err(e) => Err(e.into_store_error()),
        }
    }

    fn read_blocks(
        &self,
        key: &str,
        offset: u64,
        len: u64,
        buf: &mut [u8],
        each: &mut dyn FnMut(&[u8]) -> ControlFlow<()>,
    ) -> Result<(), StoreError> {
        settle(self.blocks(key, offset, len, buf, &mut halt_on_break(each)))
    }

    /// Plans the spans of the shard to fetch: ranges in the order given, joined while each
    /// starts at or after the one before ends, less than [`SPAN_GAP`] after it.
    fn will_read(&self, key: &str, ranges: &[Range<u64>]) {
        if key != self.key {
            return;
        }
        let Ok(mut spans) = self.spans.lock() else {
            return;
        };
        spans.current = None;
        spans.planned.clear();
        for r in ranges.iter().filter(|r| r.start < r.end) {
            match spans.planned.back_mut() {
                Some(last) if r.start >= last.end && r.start - last.end < SPAN_GAP => {
                    last.end = r.end;
                }
                _ => spans.planned.push_back(r.clone()),
            }
        }
    }
}
