//! Requests that fail at once where a retry cannot help: a host name that does not resolve,
//! or a connection the host refuses.
//!
//! object_store retries every connection error (five times, about 1.2 s with the default
//! backoff), which is right for a reset or a timeout but only delays "no such host" and
//! "connection refused": the user waits, then reads the same cause. [`FailFast`] wraps the
//! client object_store would build and hands those two back as errors it does not retry; every
//! other error keeps its kind, and so its retries.

use std::error::Error;

use object_store::client::{
    HttpClient, HttpConnector, HttpError, HttpErrorKind, HttpRequest, HttpResponse, HttpService,
    ReqwestConnector,
};

/// Builds object_store's own reqwest client, wrapped in [`FailFast`].
#[derive(Debug, Default)]
pub(crate) struct FailFastConnector;

impl HttpConnector for FailFastConnector {
    fn connect(&self, options: &object_store::ClientOptions) -> object_store::Result<HttpClient> {
        let inner = ReqwestConnector::default().connect(options)?;
        Ok(HttpClient::new(FailFast(inner)))
    }
}

/// A client whose name-resolution failures and refused connections are not retried.
#[derive(Debug)]
pub(crate) struct FailFast(HttpClient);

#[async_trait::async_trait]
impl HttpService for FailFast {
    async fn call(&self, req: HttpRequest) -> Result<HttpResponse, HttpError> {
        self.0.execute(req).await.map_err(|e| match hopeless(&e) {
            // `Unknown` is the kind object_store never retries; the error is kept whole, so its
            // messages (and the root cause zinto shows) are the same.
            true => HttpError::new(HttpErrorKind::Unknown, NotRetried(e)),
            false => e,
        })
    }
}

/// An error handed back unretried: it reads as its cause, so that object_store's message
/// does not say "HTTP error" twice.
#[derive(Debug)]
struct NotRetried(HttpError);

impl std::fmt::Display for NotRetried {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0.source() {
            Some(cause) => write!(f, "{cause}"),
            None => write!(f, "{}", self.0),
        }
    }
}

impl Error for NotRetried {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        self.0.source().and_then(Error::source)
    }
}

/// Whether `e` failed to connect for a reason a retry a moment later would meet again: the
/// name did not resolve (hyper's "dns error"), or the host refused the connection.
fn hopeless(e: &HttpError) -> bool {
    if e.kind() != HttpErrorKind::Connect {
        return false;
    }
    let mut cause: Option<&(dyn Error + 'static)> = e.source();
    while let Some(c) = cause {
        let refused = c
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::ConnectionRefused);
        if refused || c.to_string().starts_with("dns error") {
            return true;
        }
        cause = c.source();
    }
    false
}
