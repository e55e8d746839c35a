//! Object stores and HTTP servers: `s3://`, `gs://`, `az://`, `http(s)://`, through Apache
//! Arrow's `object_store`.
//!
//! Every call here blocks the calling thread on the store's own tokio runtime; none may be
//! made from inside another async runtime's worker (use `spawn_blocking` there). Whole reads
//! of an array do not go through these calls one chunk at a time: [`crate::Array::read_into`]
//! starts the fetch stage (`fetch.rs`), which keeps many GETs in flight ahead of the decoding
//! workers.

mod update;
mod version;
mod write;
use super::fail_fast::FailFastConnector;
use std::fmt;
use std::num::NonZeroUsize;
use std::ops::{ControlFlow, Range};
use std::sync::Arc;
use std::time::Duration;
pub use write::PART_LEN;

use futures_util::StreamExt;
use object_store::path::Path;
use object_store::{
    ClientConfigKey, GetOptions, GetRange, ObjectStore, ObjectStoreExt, RetryConfig, aws, azure,
    gcp, http,
};

use super::{Halt, Opened, ReadAheadBudget, Store, StoreError, halt_on_break, settle};
use crate::redact::{HIDDEN, Scrubbed, Secrets, printable_url, scrub, secret_name};
pub(crate) use version::Version;

/// How a [`RemoteStore`] connects, retries and fetches. Its `Debug` shows the values of
/// secret settings (access keys, tokens: [`secret_name`]) as `***`.
#[derive(Clone)]
#[non_exhaustive]
pub struct RemoteOptions {
    /// Send requests unsigned (public buckets), whatever credentials the environment holds.
    pub anonymous: bool,
    /// Objects a read fetches ahead of its decoding workers, at most: requests in flight.
    /// Memory held by responses not yet decoded is bounded by this times about three response
    /// frames (docs/memory.md), plus the read-ahead budget.
    pub in_flight: NonZeroUsize,
    /// Bytes of response bodies a read may hold ahead of its workers, beyond each body's few
    /// frames: what lets more bodies arrive than there are workers decoding them.
    pub read_ahead: ReadAheadBudget,
    /// A request, body included, fails after this long (then is retried while
    /// `retry_timeout` allows). Default 300 s; [`RemoteOptions::with_timeout`] sets it with
    /// the retries' window, so that a request with its retries gives up within about twice it.
    pub timeout: Duration,
    /// A request fails when no byte arrives for this long: its headers, or the next part of
    /// its body (a stalled server), whatever the request's `timeout`. Default 30 s.
    pub stall_timeout: Duration,
    /// Connecting fails after this long (then is retried).
    pub connect_timeout: Duration,
    /// Retries of a failed request (5xx answers, resets, timeouts, a body cut short), with
    /// exponential backoff from 100 ms.
    pub retries: usize,
    /// No retry starts this long after a request's first attempt.
    pub retry_timeout: Duration,
    /// Further settings for the store's builder, as `object_store` names them
    /// (`aws_region`, `google_service_account`, ...). The environment is read first.
    pub config: Vec<(String, String)>,
}

impl fmt::Debug for RemoteOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Secret settings hidden, and any URL among the others (an endpoint) printable.
        let config: Vec<(&str, std::borrow::Cow<'_, str>)> = self
            .config
            .iter()
            .map(|(k, v)| {
                (
                    k.as_str(),
                    if secret_name(k) {
                        HIDDEN.into()
                    } else {
                        scrub(v)
                    },
                )
            })
            .collect();
        f.debug_struct("RemoteOptions")
            .field("anonymous", &self.anonymous)
            .field("in_flight", &self.in_flight)
            .field("read_ahead", &self.read_ahead)
            .field("timeout", &self.timeout)
            .field("stall_timeout", &self.stall_timeout)
            .field("connect_timeout", &self.connect_timeout)
            .field("retries", &self.retries)
            .field("retry_timeout", &self.retry_timeout)
            .field("config", &config)
            .finish()
    }
}

impl Default for RemoteOptions {
    fn default() -> Self {
        Self {
            anonymous: false,
            in_flight: NonZeroUsize::MIN.saturating_add(63),
            read_ahead: ReadAheadBudget::Auto,
            timeout: Duration::from_secs(300),
            stall_timeout: Duration::from_secs(30),
            connect_timeout: Duration::from_secs(5),
            retries: 5,
            retry_timeout: Duration::from_secs(60),
            config: Vec::new(),
        }
    }
}

impl RemoteOptions {
    /// These options with requests bounded by `timeout`, their retries included: each attempt
    /// fails after `timeout`, and no retry starts later than `timeout` after the first (the
    /// retries' window shrinks to it, never grows), so a request gives up within about twice
    /// `timeout`. The stall timeout shrinks to it too.
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self.retry_timeout = self.retry_timeout.min(timeout);
        self.stall_timeout = self.stall_timeout.min(timeout);
        self
    }
}

/// A store over an object-store prefix or an HTTP(S) URL.
///
/// Credentials, region and endpoint come from the environment as each service's tools read
/// them (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_REGION`, `AWS_ENDPOINT_URL`,
/// `AWS_ALLOW_HTTP`; `GOOGLE_SERVICE_ACCOUNT`; `AZURE_STORAGE_ACCOUNT_NAME`, ...). A missing
/// object is [`StoreError::Missing`] (a chunk reads as the fill value); a refused request is
/// [`StoreError::AccessDenied`], never a missing chunk.
///
/// ```no_run
/// use zinto::{Array, Region};
/// use zinto::store::RemoteStore;
///
/// let store = RemoteStore::from_url("s3://bucket/climate.zarr")?;
/// let array = Array::open(store, "temperature")?;
/// let mut out = vec![0u8; array.selection_len(&Region::whole(array.shape())?)?];
/// array.read_into(&Region::whole(array.shape())?, &mut out)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct RemoteStore {
    pub(crate) store: Arc<dyn ObjectStore>,
    /// The path below the bucket (or server) that keys are relative to; may be empty.
    prefix: String,
    /// The URL of the prefix, without a trailing `/`, for messages: printable
    /// ([`printable_url`]), so no message made from it shows a secret.
    url: String,
    /// The secrets of the URL it was opened with, hidden in the messages of the errors other
    /// libraries form ([`Scrubbed`]).
    pub(crate) secrets: Secrets,
    pub(crate) runtime: Arc<tokio::runtime::Runtime>,
    pub(crate) options: RemoteOptions,
    /// Whether writes can be made conditional on an object's version (S3, GCS, Azure; not
    /// plain HTTP, nor S3 set up with `aws_conditional_put` `disabled`): updates of a chunk
    /// are then guarded (`remote/update.rs`).
    conditional: bool,
    /// Whether the store GETs a suffix range (`bytes=-n`); Azure's does not (object_store
    /// refuses it): a shard's index at its end is then found by a HEAD first.
    pub(crate) suffix_ranges: bool,
    /// Whether a read of an object in several requests pins them to one version by its ETag
    /// (`If-Match`): on object stores, not on a plain HTTP server (servers behind one name
    /// may give one file different ETags; files there are rarely replaced mid-read).
    pub(crate) pins_versions: bool,
}

impl fmt::Debug for RemoteStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RemoteStore")
            .field("url", &self.url)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

/// Whether `s` names a store this module opens: `s3://`, `s3a://`, `gs://`, `az://`,
/// `abfs(s)://`, `adl://`, `azure://`, `http://`, `https://`.
pub fn is_remote_url(s: &str) -> bool {
    s.split_once("://").is_some_and(|(scheme, _)| {
        matches!(
            scheme.to_ascii_lowercase().as_str(),
            "s3" | "s3a" | "gs" | "az" | "abfs" | "abfss" | "adl" | "azure" | "http" | "https"
        )
    })
}

impl RemoteStore {
    /// [`Store::read_blocks`], stopping with [`Halt`] where the consumer says so.
    pub(crate) fn blocks(
        &self,
        at: Version<'_>,
        offset: u64,
        len: u64,
        buf: &mut [u8],
        each: &mut dyn FnMut(&[u8]) -> Result<(), Halt>,
    ) -> Result<(), Halt> {
        if len == 0 {
            return Ok(());
        }
        let end = offset
            .checked_add(len)
            .ok_or(Halt::Store(StoreError::ShortRead {
                offset,
                wanted: len,
                len: u64::MAX,
            }))?;
        let mut blocks = Blocks::new(buf, len);
        let mut gather = |part: &[u8]| blocks.push(part, each);
        self.runtime
            .block_on(self.get_streamed(at, Some(offset..end), &mut gather))?;
        Ok(())
    }

    /// [`Store::read_into`] of the object `at` names.
    pub(crate) fn read_at(
        &self,
        at: Version<'_>,
        offset: u64,
        dst: &mut [u8],
    ) -> Result<(), StoreError> {
        if dst.is_empty() {
            return Ok(());
        }
        let end = offset
            .checked_add(dst.len() as u64)
            .ok_or(StoreError::ShortRead {
                offset,
                wanted: dst.len() as u64,
                len: u64::MAX,
            })?;
        let mut fill = filler(dst);
        self.runtime
            .block_on(self.get_streamed(at, Some(offset..end), &mut fill))
            .map(|_| ())
            .map_err(Halt::into_store_error)
    }

    /// A store over `url` with [`RemoteOptions::default`].
    ///
    /// # Errors
    /// [`StoreError::BadUrl`] for a URL it cannot address, or a store it cannot configure
    /// (no region, a malformed endpoint).
    pub fn from_url(url: &str) -> Result<Self, StoreError> {
        Self::from_url_with(url, RemoteOptions::default())
    }

    /// A store over `url` with `options`.
    ///
    /// # Errors
    /// As [`Self::from_url`].
    pub fn from_url_with(url: &str, options: RemoteOptions) -> Result<Self, StoreError> {
        let secrets = Secrets::of(url).with_settings(&options.config);
        let bad = |why: String| {
            let mut why = secrets.hide(&why);
            // A builder that finds no account or credential file: say what to set.
            if let Some(hint) = credentials_hint(url)
                .filter(|_| why.contains("credential") || why.contains("Account must be specified"))
            {
                why = format!("{why}; {hint}");
            }
            StoreError::BadUrl {
                url: printable_url(url),
                why,
            }
        };
        let (scheme, rest) = url
            .split_once("://")
            .ok_or_else(|| bad("not a URL (scheme://...)".into()))?;
        let scheme = scheme.to_ascii_lowercase();
        if rest.trim_matches('/').is_empty() {
            return Err(bad("no bucket, container or host".into()));
        }
        let trimmed = url.trim_end_matches('/');
        // Set key by key, not as a whole `ClientOptions`: that would drop what the builders
        // read from the environment (`AWS_ALLOW_HTTP`, a proxy).
        let ms = |d: Duration| format!("{}ms", d.as_millis());
        let mut client = vec![
            (ClientConfigKey::Timeout, ms(options.timeout)),
            (ClientConfigKey::ReadTimeout, ms(options.stall_timeout)),
            (ClientConfigKey::ConnectTimeout, ms(options.connect_timeout)),
        ];
        if scheme == "http" {
            client.push((ClientConfigKey::AllowHttp, "true".to_owned()));
        }
        let settings = Settings {
            client,
            retry: RetryConfig {
                max_retries: options.retries,
                retry_timeout: options.retry_timeout,
                ..RetryConfig::default()
            },
            options: &options,
            bad: &bad,
        };
        let (store, prefix) = match scheme.as_str() {
            "http" | "https" => http_store(url, rest, settings)?,
            other => cloud_store(other, rest, trimmed, settings)?,
        };
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("zinto-fetch")
            .enable_all()
            .build()
            .map_err(StoreError::Io)?;
        let conditional = match scheme.as_str() {
            "http" | "https" => false,
            "s3" | "s3a" => !s3_conditions_disabled(&options),
            _ => true,
        };
        Ok(Self {
            store,
            prefix,
            url: printable_url(trimmed),
            secrets,
            runtime: Arc::new(runtime),
            options,
            conditional,
            suffix_ranges: !matches!(scheme.as_str(), "az" | "abfs" | "abfss" | "adl" | "azure"),
            pins_versions: !matches!(scheme.as_str(), "http" | "https"),
        })
    }

    /// The URL this store reads below, without a trailing `/`, as it may be printed: without
    /// its user information or secret query values ([`printable_url`]).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// How this store connects, retries and fetches.
    pub fn options(&self) -> &RemoteOptions {
        &self.options
    }

    /// The URL of `key`, as errors name it.
    pub fn url_of(&self, key: &str) -> String {
        if key.is_empty() {
            self.url.clone()
        } else {
            format!("{}/{key}", self.url)
        }
    }

    /// The object path of `key`; `None` for a key that would leave the prefix or that
    /// `object_store` cannot address (`..`, `.`, empty segments): such keys are missing.
    pub(crate) fn location(&self, key: &str) -> Option<Path> {
        if key
            .split('/')
            .any(|p| p == ".." || p == "." || p.contains('\\'))
        {
            return None;
        }
        let joined = match (self.prefix.is_empty(), key.is_empty()) {
            (true, _) => key.to_owned(),
            (false, true) => self.prefix.clone(),
            (false, false) => format!("{}/{key}", self.prefix),
        };
        Path::parse(joined).ok()
    }

    /// `e`, from a request for `key`, as a store error: a 404 is [`StoreError::Missing`], a
    /// 401 or 403 [`StoreError::AccessDenied`].
    pub(crate) fn error(&self, key: &str, e: object_store::Error) -> StoreError {
        error_for(|| self.url_of(key), &self.secrets, e)
    }

    /// GETs `range` of the object `at` names (the whole object for `None`), handing each part
    /// of the body to `each` in order; returns the object's length.
    async fn get_streamed(
        &self,
        at: Version<'_>,
        range: Option<Range<u64>>,
        each: &mut dyn FnMut(&[u8]) -> Result<(), Halt>,
    ) -> Result<u64, Halt> {
        let key = at.key;
        let location = self.location(key).ok_or(Halt::Store(StoreError::Missing))?;
        let options = GetOptions {
            range: range.clone().map(GetRange::Bounded),
            if_match: at.etag.map(str::to_owned),
            ..GetOptions::default()
        };
        let result = self
            .store
            .get_opts(&location, options)
            .await
            .map_err(|e| Halt::Store(at.error(|| self.url_of(key), &self.secrets, e)))?;
        let len = result.meta.size;
        let wanted = range.map_or(len, |r| r.end - r.start);
        let got = result.range.end.saturating_sub(result.range.start);
        if got != wanted {
            return Err(Halt::Store(StoreError::ShortRead {
                offset: result.range.start,
                wanted,
                len,
            }));
        }
        let mut stream = result.into_stream();
        let mut received = 0u64;
        while let Some(part) = stream.next().await {
            let part =
                part.map_err(|e| Halt::Store(at.error(|| self.url_of(key), &self.secrets, e)))?;
            received = received.saturating_add(part.len() as u64);
            if received > wanted {
                break;
            }
            each(&part)?;
        }
        if received != wanted {
            return Err(Halt::Store(StoreError::BodyLength {
                url: self.url_of(key),
                expected: wanted,
                got: received,
            }));
        }
        Ok(len)
    }
}

/// What every builder is given: the client's settings, the retries, the caller's options,
/// and how to name a URL that cannot be used.
struct Settings<'a> {
    client: Vec<(ClientConfigKey, String)>,
    retry: RetryConfig,
    options: &'a RemoteOptions,
    bad: &'a dyn Fn(String) -> StoreError,
}

/// A built store, or why not.
type Built = Result<(Arc<dyn ObjectStore>, String), StoreError>;

/// A plain HTTP(S) server: the server is the store, the URL's path the prefix within it.
fn http_store(url: &str, rest: &str, settings: Settings<'_>) -> Built {
    let bad = settings.bad;
    let after = rest.find('/').map_or(rest.len(), |i| i);
    let base = url.len() - rest.len() + after;
    let mut b = http::HttpBuilder::new()
        .with_url(url.get(..base).unwrap_or(url))
        .with_retry(settings.retry)
        .with_http_connector(FailFastConnector);
    for (k, v) in settings.client {
        b = b.with_config(k, v);
    }
    for (k, v) in &settings.options.config {
        let key = k
            .parse()
            .map_err(|e: object_store::Error| bad(e.to_string()))?;
        b = b.with_config(key, v);
    }
    let prefix = rest.get(after..).unwrap_or("").trim_matches('/').to_owned();
    let store = b.build().map_err(|e| bad(e.to_string()))?;
    Ok((Arc::new(store), prefix))
}

/// An S3, GCS or Azure store for `scheme://bucket/prefix` (`trimmed` is the whole URL without
/// a trailing `/`).
fn cloud_store(scheme: &str, rest: &str, trimmed: &str, settings: Settings<'_>) -> Built {
    let Settings {
        client,
        retry,
        options,
        bad,
    } = settings;
    // The cloud builders take the same settings under their own key types: the client's,
    // unsigned requests, then the caller's keys.
    macro_rules! cloud {
        ($builder:expr, $client_key:path) => {{
            let mut b = $builder
                .with_retry(retry)
                .with_http_connector(FailFastConnector);
            for (k, v) in client {
                b = b.with_config($client_key(k), v);
            }
            if options.anonymous {
                b = b.with_skip_signature(true);
            }
            for (k, v) in &options.config {
                let key = k
                    .parse()
                    .map_err(|e: object_store::Error| bad(e.to_string()))?;
                b = b.with_config(key, v);
            }
            let store: Arc<dyn ObjectStore> = Arc::new(b.build().map_err(|e| bad(e.to_string()))?);
            store
        }};
    }
    Ok(match scheme {
        "s3" | "s3a" => {
            let (bucket, prefix) = split_bucket(rest);
            let b = aws::AmazonS3Builder::from_env().with_bucket_name(bucket);
            (cloud!(b, aws::AmazonS3ConfigKey::Client), prefix)
        }
        "gs" => {
            let (bucket, prefix) = split_bucket(rest);
            let b = gcp::GoogleCloudStorageBuilder::from_env().with_bucket_name(bucket);
            (cloud!(b, gcp::GoogleConfigKey::Client), prefix)
        }
        "az" | "abfs" | "abfss" | "adl" | "azure" => {
            // `az://container/prefix`; the account comes from the environment (or the host of
            // an `abfss://container@account...` URL, which the builder parses).
            let b = azure::MicrosoftAzureBuilder::from_env().with_url(trimmed);
            (
                cloud!(b, azure::AzureConfigKey::Client),
                split_bucket(rest).1,
            )
        }
        other => return Err(bad(format!("unsupported scheme {other:?}"))),
    })
}

/// `e`, from a request for the object at `url()` (printable), as a store error: a 404 is
/// [`StoreError::Missing`], a 401 or 403 [`StoreError::AccessDenied`]; any other keeps only
/// `e`'s messages, with `secrets` and every URL's hidden ([`Scrubbed`]).
pub(crate) fn error_for(
    url: impl FnOnce() -> String,
    secrets: &Secrets,
    e: object_store::Error,
) -> StoreError {
    match e {
        object_store::Error::NotFound { .. } => StoreError::Missing,
        object_store::Error::PermissionDenied { .. }
        | object_store::Error::Unauthenticated { .. } => StoreError::AccessDenied { url: url() },
        other => {
            let source = Scrubbed::of(&other, secrets);
            let url = url();
            match credentials_hint(&url).filter(|_| asked_instance_metadata(&source)) {
                Some(hint) => StoreError::NoCredentials { url, hint },
                None => StoreError::Remote {
                    url,
                    source: Box::new(source),
                },
            }
        }
    }
}

/// Whether `e` is the failure of a request to a cloud's instance metadata service: what
/// object_store asks, for credentials, when the environment holds none (AWS's `/latest/api/
/// token` and `/latest/meta-data/`, Google's `computeMetadata`, Azure's `/metadata/identity`).
fn asked_instance_metadata(e: &Scrubbed) -> bool {
    let said = format!("{e} {e:?}");
    [
        "/latest/api/token",
        "/latest/meta-data/",
        "/computeMetadata/",
        "/metadata/identity/",
    ]
    .iter()
    .any(|path| said.contains(path))
}

/// What to set for the service of `url` (its scheme), or `None` for a plain HTTP(S) server.
pub(crate) fn credentials_hint(url: &str) -> Option<&'static str> {
    let scheme = url.split_once("://")?.0.to_ascii_lowercase();
    Some(match scheme.as_str() {
        "s3" | "s3a" => {
            "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE), or read a public \
             bucket unsigned with --anonymous (Python: anonymous=True)"
        }
        "gs" | "gcs" => {
            "set GOOGLE_APPLICATION_CREDENTIALS (or GOOGLE_SERVICE_ACCOUNT) to a service \
             account's key file, or read a public bucket unsigned with --anonymous (Python: \
             anonymous=True)"
        }
        "az" | "abfs" | "abfss" | "adl" | "azure" => {
            "set AZURE_STORAGE_ACCOUNT_NAME, and AZURE_STORAGE_ACCOUNT_KEY (or \
             AZURE_STORAGE_SAS_TOKEN); a public container needs the account name and \
             --anonymous (Python: anonymous=True)"
        }
        _ => return None,
    })
}

/// `bucket/prefix/...` as the bucket and the prefix without surrounding slashes.
fn split_bucket(rest: &str) -> (&str, String) {
    let rest = rest.trim_start_matches('/');
    match rest.split_once('/') {
        Some((bucket, prefix)) => (bucket, prefix.trim_matches('/').to_owned()),
        None => (rest, String::new()),
    }
}

/// Copies the body parts `each` gets into `dst`, in order; `Err` if they overrun it.
pub(crate) fn filler(dst: &mut [u8]) -> impl FnMut(&[u8]) -> Result<(), Halt> + '_ {
    let mut at = 0usize;
    move |part: &[u8]| {
        let end = at
            .checked_add(part.len())
            .ok_or(Halt::Store(StoreError::Internal {
                what: "a response longer than its buffer",
            }))?;
        dst.get_mut(at..end)
            .ok_or(Halt::Store(StoreError::Internal {
                what: "a response longer than its buffer",
            }))?
            .copy_from_slice(part);
        at = end;
        Ok(())
    }
}

impl Store for RemoteStore {
    /// A HEAD request. Reads of chunks do not ask it: they GET, and a 404 is a missing chunk.
    fn size(&self, key: &str) -> Result<Option<u64>, StoreError> {
        let Some(location) = self.location(key) else {
            return Ok(None);
        };
        match self.runtime.block_on(self.store.head(&location)) {
            Ok(meta) => Ok(Some(meta.size)),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(self.error(key, e)),
        }
    }

    /// A HEAD request, like [`Self::size`]; the object's reads are then pinned to the version
    /// it saw by its ETag (`If-Match`), so a writer's replacement between them fails the read
    /// with [`StoreError::Changed`] (and the chunk is read again) instead of mixing two
    /// versions. An object served without a strong ETag is read unpinned.
    fn open(&self, key: &str) -> Result<Opened<'_>, StoreError> {
        version::open(self, key)
    }

    /// One GET of the whole object: read whole into memory if it is at most
    /// [`REREAD_WHOLE_MAX`](super::REREAD_WHOLE_MAX) bytes, else pinned by the ETag of that response (its body dropped).
    fn reopen(&self, key: &str) -> Result<Opened<'_>, StoreError> {
        version::reopen(self, key)
    }

    /// One ranged GET, its body copied into `dst` as it arrives. Nothing is asked for an
    /// empty `dst`.
    fn read_into(&self, key: &str, offset: u64, dst: &mut [u8]) -> Result<(), StoreError> {
        self.read_at(Version::any(key), offset, dst)
    }

    /// One ranged GET for all the blocks, its body gathered into `buf` block by block.
    fn read_blocks(
        &self,
        key: &str,
        offset: u64,
        len: u64,
        buf: &mut [u8],
        each: &mut dyn FnMut(&[u8]) -> ControlFlow<()>,
    ) -> Result<(), StoreError> {
        let at = Version::any(key);
        settle(self.blocks(at, offset, len, buf, &mut halt_on_break(each)))
    }

    /// One GET; the object's length is checked against `max` before its body is gathered.
    fn read_whole(&self, key: &str, max: u64) -> Result<Option<Vec<u8>>, StoreError> {
        let Some(location) = self.location(key) else {
            return Ok(None);
        };
        let result = self.runtime.block_on(async {
            let got = self.store.get(&location).await?;
            if got.meta.size > max {
                return Ok(Err(got.meta.size));
            }
            got.bytes().await.map(Ok)
        });
        match result {
            Ok(Ok(bytes)) => Ok(Some(bytes.to_vec())),
            Ok(Err(len)) => Err(StoreError::TooLarge { len, max }),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(self.error(key, e)),
        }
    }

    /// One PUT, or a multipart upload for objects over [`PART_LEN`].
    fn writer(&self, key: &str) -> Result<Box<dyn super::ObjectWriter + '_>, StoreError> {
        Ok(Box::new(write::RemoteWriter::new(self, key)?))
    }

    /// One DELETE; an absent object is no error.
    fn delete(&self, key: &str) -> Result<(), StoreError> {
        let Some(location) = self.location(key) else {
            return Err(StoreError::BadKey {
                key: key.to_owned(),
            });
        };
        match self.runtime.block_on(self.store.delete(&location)) {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(self.error(key, e)),
        }
    }

    /// One listing request with a delimiter. Plain HTTP servers cannot list:
    /// [`StoreError::ListingUnsupported`].
    fn list_dir(&self, prefix: &str) -> Result<Vec<String>, StoreError> {
        // A prefix no key can have (`..`, empty segments) has nothing below it; `None` would
        // list the bucket's root.
        let Some(location) = self.location(prefix) else {
            return Ok(vec![]);
        };
        let location = (!location.as_ref().is_empty()).then_some(location);
        let listed = self
            .runtime
            .block_on(self.store.list_with_delimiter(location.as_ref()));
        let listed = match listed {
            Ok(l) => l,
            Err(object_store::Error::NotImplemented { .. })
            | Err(object_store::Error::NotSupported { .. }) => {
                return Err(StoreError::ListingUnsupported);
            }
            Err(e) => return Err(self.error(prefix, e)),
        };
        let mut names: Vec<String> = listed
            .common_prefixes
            .iter()
            .filter_map(|p| p.filename().map(str::to_owned))
            .chain(
                listed
                    .objects
                    .iter()
                    .filter_map(|o| o.location.filename().map(str::to_owned)),
            )
            .collect();
        names.sort_unstable();
        names.dedup();
        Ok(names)
    }

    fn read_ahead(&self) -> Option<&dyn super::ReadAhead> {
        Some(self)
    }

    /// On S3, GCS and Azure, a conditional write (`remote/update.rs`): one HEAD notes the
    /// chunk's version, and this thread's write of it replaces only that version. Plain HTTP
    /// has no such write: no guard.
    fn lock_update(
        &self,
        update: &super::ChunkUpdate<'_>,
    ) -> Result<super::UpdateLock, StoreError> {
        match self.conditional {
            true => self.begin_update(update.key),
            false => Ok(super::UpdateLock::unguarded()),
        }
    }

    fn serialises_updates(&self) -> bool {
        self.conditional
    }
}

/// Whether S3's conditional writes are turned off (`aws_conditional_put` set to `disabled`,
/// for an endpoint that does not honour them): by `options`, else by the environment
/// (`AWS_CONDITIONAL_PUT`), as the S3 builder reads them.
fn s3_conditions_disabled(options: &RemoteOptions) -> bool {
    let set = options.config.iter().rev().find(|(k, _)| {
        matches!(
            k.to_ascii_lowercase().as_str(),
            "aws_conditional_put" | "conditional_put"
        )
    });
    let value = match set {
        Some((_, v)) => Some(v.clone()),
        None => std::env::var("AWS_CONDITIONAL_PUT").ok(),
    };
    value.is_some_and(|v| v.trim().eq_ignore_ascii_case("disabled"))
}

/// Gathers body parts into blocks of `buf.len()` bytes (the last one shorter), handing each
/// full block on: [`Store::read_blocks`]'s contract, whatever sizes the network delivers.
pub(crate) struct Blocks<'b> {
    buf: &'b mut [u8],
    /// Bytes of the current block filled.
    filled: usize,
    /// Bytes not yet handed on, this block included.
    left: u64,
}

impl<'b> Blocks<'b> {
    pub(crate) fn new(buf: &'b mut [u8], len: u64) -> Self {
        Self {
            buf,
            filled: 0,
            left: len,
        }
    }

    /// Adds `part`, handing on every block it completes.
    pub(crate) fn push(
        &mut self,
        mut part: &[u8],
        each: &mut dyn FnMut(&[u8]) -> Result<(), Halt>,
    ) -> Result<(), Halt> {
        while !part.is_empty() {
            if self.left == 0 {
                return Err(Halt::Store(StoreError::Internal {
                    what: "a response longer than the range asked for",
                }));
            }
            let block_len = super::next_block(self.buf, self.left)
                .map_err(Halt::Store)?
                .len();
            let take = (block_len - self.filled).min(part.len());
            let (now, later) = part.split_at(take);
            self.buf
                .get_mut(self.filled..self.filled + take)
                .ok_or(Halt::Store(StoreError::Internal {
                    what: "a block past its buffer",
                }))?
                .copy_from_slice(now);
            self.filled += take;
            part = later;
            if self.filled == block_len {
                let block = self
                    .buf
                    .get(..block_len)
                    .ok_or(Halt::Store(StoreError::Internal {
                        what: "a block past its buffer",
                    }))?;
                each(block)?;
                self.left -= block_len as u64;
                self.filled = 0;
            }
        }
        Ok(())
    }
}

/// The objects `urls` name, all on one bucket, container or server: a store at their common
/// root (`scheme://authority`) and each object's key below it, in the order given. A `*` or
/// `?` in the last segment of a URL (`s3://bucket/run/segm-*.msgpack`) is matched against the
/// names listing its folder gives, sorted; it must match at least one.
///
/// # Errors
/// [`StoreError::BadUrl`] for URLs on different roots, one naming no object, a pattern that
/// matches nothing, or a store that cannot be made; a listing's error (plain HTTP servers
/// cannot list: [`StoreError::ListingUnsupported`]).
pub fn objects(
    urls: &[&str],
    options: RemoteOptions,
) -> Result<(RemoteStore, Vec<String>), StoreError> {
    let bad = |url: &str, why: &str| StoreError::BadUrl {
        url: printable_url(url),
        why: scrub(why).into_owned(),
    };
    let mut root: Option<&str> = None;
    let mut wanted = Vec::with_capacity(urls.len());
    for url in urls {
        let (scheme, rest) = url
            .split_once("://")
            .ok_or_else(|| bad(url, "not a URL (scheme://...)"))?;
        let authority = rest.split('/').next().unwrap_or(rest);
        let base = url
            .get(..scheme.len() + 3 + authority.len())
            .ok_or_else(|| bad(url, "not a URL (scheme://...)"))?;
        let key = rest.get(authority.len()..).unwrap_or("").trim_matches('/');
        if key.is_empty() {
            return Err(bad(url, "names no object"));
        }
        if let Some(r) = root.filter(|r| *r != base) {
            return Err(bad(url, &format!("not on {r}, as the URLs before it")));
        }
        root = Some(base);
        wanted.push((*url, key));
    }
    let root = root.ok_or_else(|| bad("", "no URLs"))?;
    let store = RemoteStore::from_url_with(root, options)?;
    let mut keys = Vec::with_capacity(wanted.len());
    for (url, key) in wanted {
        let (folder, name) = key.rsplit_once('/').unwrap_or(("", key));
        if !name.contains(['*', '?']) {
            keys.push(key.to_owned());
            continue;
        }
        let found: Vec<String> = store
            .list_dir(folder)?
            .into_iter()
            .filter(|n| glob_match(name.as_bytes(), n.as_bytes()))
            .map(|n| {
                if folder.is_empty() {
                    n
                } else {
                    format!("{folder}/{n}")
                }
            })
            .collect();
        if found.is_empty() {
            return Err(bad(url, "matches no object"));
        }
        keys.extend(found);
    }
    Ok((store, keys))
}

/// Whether `name` matches `pattern`, where `*` stands for any run of bytes and `?` for one.
fn glob_match(pattern: &[u8], name: &[u8]) -> bool {
    // Greedy with one backtrack point: the last `*` seen, and where its run ended.
    let (mut p, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        match pattern.get(p) {
            Some(b'*') => {
                star = Some((p, n));
                p += 1;
            }
            Some(&c) if c == b'?' || name.get(n) == Some(&c) => {
                p += 1;
                n += 1;
            }
            _ => match star {
                Some((sp, sn)) => {
                    p = sp + 1;
                    n = sn + 1;
                    star = Some((sp, sn + 1));
                }
                None => return false,
            },
        }
    }
    pattern
        .get(p..)
        .is_some_and(|rest| rest.iter().all(|&c| c == b'*'))
}

#[cfg(test)]
mod tests {
    use super::glob_match;

    #[test]
    fn glob_patterns_match_as_a_shell_would() {
        let m = |p: &str, n: &str| glob_match(p.as_bytes(), n.as_bytes());
        assert!(m("segm-*.msgpack", "segm-001.msgpack"));
        assert!(m("*", "anything"));
        assert!(m("a?c", "abc"));
        assert!(m("*.npy", ".npy"));
        assert!(m("a*b*c", "aXbYbZc"));
        assert!(!m("segm-*.msgpack", "segm-001.npy"));
        assert!(!m("a?c", "ac"));
        assert!(!m("abc", "abcd"));
        assert!(!m("*x", "abc"));
    }
}
