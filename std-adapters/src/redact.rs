//! URLs as they may be printed: without the secrets some of them carry.
//!
//! A URL may hold a password (`https://alice:secret@host/...`) or be presigned: its query
//! then carries a signature or credential that is as good as a password for a while
//! (`X-Amz-Signature`, `X-Amz-Credential`, `X-Amz-Security-Token`, Azure SAS `sig=`,
//! `X-Goog-Signature`, `X-Goog-Credential`). Error messages end up in logs, CI output and bug
//! reports, so every message zinto forms about a URL names it through [`printable_url`]:
//! the user information becomes `***`, and so does the value of every query parameter whose
//! name holds `sig`, `credential`, `token`, `secret`, `password` or `key` (any case).
//!
//! Messages zinto does not form itself (object_store's, reqwest's) pass through [`scrub`],
//! which makes every URL in a text printable, and through [`Secrets::hide`], which replaces
//! the very secrets of the URL a store was opened with wherever they appear (a client may
//! print a URL's parts apart). A remote error is kept only in that form ([`Scrubbed`]).

use std::borrow::Cow;
use std::fmt;

/// What stands for a secret in a printable URL or message.
pub const HIDDEN: &str = "***";

/// Query parameter names (lower case) whose values are secrets, by what they contain.
const SECRET_PARAMS: [&str; 6] = ["sig", "credential", "token", "secret", "password", "key"];

/// Whether a query parameter or setting named `name` carries a secret (`X-Amz-Signature`,
/// `sig`, `aws_secret_access_key`, `azure_storage_sas_token`, ...).
pub fn secret_name(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    SECRET_PARAMS.iter().any(|s| name.contains(s))
}

/// A URL's parts around its authority: `scheme://`, the user information (without its `@`),
/// the host and the rest (path, query, fragment).
struct Parts<'a> {
    scheme: &'a str,
    userinfo: Option<&'a str>,
    host: &'a str,
    path: &'a str,
    query: Option<&'a str>,
    fragment: Option<&'a str>,
}

impl<'a> Parts<'a> {
    fn of(url: &'a str) -> Option<Self> {
        let (scheme, rest) = url.split_once("://")?;
        // The user information ends at the last `@` before the path: a password may hold a
        // raw `?` or `#` (which URL syntax wants escaped, and users do not always escape), so
        // those do not end it. (A `@` in a query without a path is then taken for one too:
        // hidden more than needed, never less.)
        let slash = rest.find('/').unwrap_or(rest.len());
        let (userinfo, after) = match rest.get(..slash).and_then(|a| a.rfind('@')) {
            Some(at) => (rest.get(..at), rest.get(at + 1..).unwrap_or("")),
            None => (None, rest),
        };
        let end = after.find(['/', '?', '#']).unwrap_or(after.len());
        let (host, tail) = after.split_at(end);
        let (before_fragment, fragment) = match tail.split_once('#') {
            Some((b, f)) => (b, Some(f)),
            None => (tail, None),
        };
        let (path, query) = match before_fragment.split_once('?') {
            Some((p, q)) => (p, Some(q)),
            None => (before_fragment, None),
        };
        Some(Self {
            scheme,
            userinfo,
            host,
            path,
            query,
            fragment,
        })
    }

    /// The query's secret values.
    fn secret_values(&self) -> impl Iterator<Item = &'a str> {
        self.query
            .into_iter()
            .flat_map(|q| q.split('&'))
            .filter_map(|pair| pair.split_once('='))
            .filter(|(name, value)| secret_name(name) && !value.is_empty())
            .map(|(_, value)| value)
    }
}

/// `url` as it may be printed: its user information and the values of its secret query
/// parameters replaced by `***`. A text that is not a URL is returned as it is.
///
/// ```
/// use zinto::redact::printable_url;
/// assert_eq!(
///     printable_url("https://alice:hunter2@host/a.zarr?X-Amz-Signature=abc&part=1"),
///     "https://***@host/a.zarr?X-Amz-Signature=***&part=1"
/// );
/// assert_eq!(printable_url("s3://bucket/a.zarr"), "s3://bucket/a.zarr");
/// ```
pub fn printable_url(url: &str) -> String {
    let Some(p) = Parts::of(url) else {
        return url.to_owned();
    };
    let mut out = format!("{}://", p.scheme);
    if p.userinfo.is_some() {
        out.push_str(HIDDEN);
        out.push('@');
    }
    out.push_str(p.host);
    out.push_str(p.path);
    if let Some(q) = p.query {
        out.push('?');
        for (i, pair) in q.split('&').enumerate() {
            if i > 0 {
                out.push('&');
            }
            match pair.split_once('=') {
                Some((name, _)) if secret_name(name) => {
                    out.push_str(name);
                    out.push('=');
                    out.push_str(HIDDEN);
                }
                _ => out.push_str(pair),
            }
        }
    }
    if let Some(f) = p.fragment {
        out.push('#');
        out.push_str(f);
    }
    out
}

/// Whether `c` may be part of a URL's scheme.
fn scheme_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')
}

/// Whether `c` ends a URL inside a text (whitespace, quotes, brackets that delimit it).
fn ends_url(c: char) -> bool {
    c.is_whitespace() || matches!(c, '"' | '\'' | '<' | '>' | '`' | '\\')
}

/// `text` with every URL in it made printable ([`printable_url`]): a URL starts at its
/// scheme before `://` and ends at whitespace, a quote or an angle bracket, less any
/// punctuation that ends a sentence around it.
///
/// ```
/// use zinto::redact::scrub;
/// let said = r#"GET "http://bob:pw@127.0.0.1:9/x" failed"#;
/// assert_eq!(scrub(said), r#"GET "http://***@127.0.0.1:9/x" failed"#);
/// ```
pub fn scrub(text: &str) -> Cow<'_, str> {
    if !text.contains("://") {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        let scheme_start = rest[..at]
            .char_indices()
            .rev()
            .take_while(|&(_, c)| scheme_char(c))
            .last()
            .map_or(at, |(i, _)| i);
        let mut end = rest[at..].find(ends_url).map_or(rest.len(), |i| at + i);
        // Punctuation after a URL in a sentence ("failed for URL: ...") is the sentence's.
        while end > at + 3 && rest[..end].ends_with(['.', ',', ':', ';', ')']) {
            end -= 1;
        }
        out.push_str(&rest[..scheme_start]);
        out.push_str(&printable_url(&rest[scheme_start..end]));
        rest = &rest[end..];
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// The secrets of one URL (its password or whole user information, its secret query values),
/// to be hidden wherever a message shows them.
#[derive(Clone, Default)]
pub struct Secrets(Vec<String>);

impl fmt::Debug for Secrets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Secrets({} hidden)", self.0.len())
    }
}

impl Secrets {
    /// Those of `url`: its user information (and the password in it, on its own) and the
    /// values of its secret query parameters, each also percent-decoded. Values under 4
    /// characters are left out: hiding them would garble messages and protect nothing.
    pub fn of(url: &str) -> Self {
        let Some(p) = Parts::of(url) else {
            return Self::default();
        };
        let password = p.userinfo.and_then(|u| u.split_once(':')).map(|(_, pw)| pw);
        let mut found: Vec<String> = Vec::new();
        for s in p
            .userinfo
            .into_iter()
            .chain(password)
            .chain(p.secret_values())
        {
            found.push(s.to_owned());
            if let Some(decoded) = percent_decoded(s) {
                found.push(decoded);
            }
        }
        found.retain(|s| s.chars().count() >= 4);
        // Longest first, so a secret inside another is not hidden in part first.
        found.sort_by_key(|s| std::cmp::Reverse(s.len()));
        found.dedup();
        Self(found)
    }

    /// These and the values of the `settings` whose names are secret ([`secret_name`]: a
    /// store's access keys, SAS tokens), of 4 characters or more.
    pub fn with_settings(mut self, settings: &[(String, String)]) -> Self {
        for (name, value) in settings {
            if secret_name(name) && value.chars().count() >= 4 && !self.0.contains(value) {
                self.0.push(value.clone());
            }
        }
        self.0.sort_by_key(|s| std::cmp::Reverse(s.len()));
        self
    }

    /// `text` with every URL made printable and each of these secrets replaced by `***`.
    pub fn hide(&self, text: &str) -> String {
        let mut out = scrub(text).into_owned();
        for s in &self.0 {
            if out.contains(s.as_str()) {
                out = out.replace(s.as_str(), HIDDEN);
            }
        }
        out
    }
}

/// `s` percent-decoded, if it holds an escape and decodes to UTF-8.
fn percent_decoded(s: &str) -> Option<String> {
    if !s.contains('%') {
        return None;
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (b, hex) {
            (b'%', Some(v)) => {
                out.push(v);
                i += 3;
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

/// An error another library formed (object_store, reqwest), kept only as its messages with
/// the secrets hidden: its `Display`, its `Debug` and those of every error below it, each
/// through [`Secrets::hide`]. Nothing of the original, which may print a URL's password, is
/// kept.
#[derive(Clone)]
pub struct Scrubbed {
    display: String,
    debug: String,
    source: Option<Box<Scrubbed>>,
}

impl Scrubbed {
    /// `e` and the chain of errors below it, scrubbed of `secrets` and of every URL's.
    pub fn of(e: &(dyn std::error::Error + 'static), secrets: &Secrets) -> Self {
        Self {
            display: secrets.hide(&e.to_string()),
            debug: secrets.hide(&format!("{e:?}")),
            source: e.source().map(|s| Box::new(Self::of(s, secrets))),
        }
    }
}

impl fmt::Display for Scrubbed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.display)
    }
}

impl fmt::Debug for Scrubbed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.debug)
    }
}

impl std::error::Error for Scrubbed {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.as_deref().map(|s| s as _)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_of_secret_is_hidden() {
        let cases = [
            (
                "http://alice:hunter2secret@127.0.0.1:9/data.zarr",
                "http://***@127.0.0.1:9/data.zarr",
            ),
            ("https://token@host/x", "https://***@host/x"),
            (
                "https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4&X-Amz-Credential=AKIA%2F1\
                 &X-Amz-Signature=deadbeef&X-Amz-Security-Token=tok",
                "https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4&X-Amz-Credential=***\
                 &X-Amz-Signature=***&X-Amz-Security-Token=***",
            ),
            (
                "https://acct.blob.core.windows.net/c/a.zarr?sv=2022&sp=r&sig=abc%3D",
                "https://acct.blob.core.windows.net/c/a.zarr?sv=2022&sp=r&sig=***",
            ),
            (
                "https://storage.googleapis.com/b/o?X-Goog-Signature=ff&X-Goog-Credential=x#f",
                "https://storage.googleapis.com/b/o?X-Goog-Signature=***&X-Goog-Credential=***#f",
            ),
            ("s3://bucket/prefix/a.zarr", "s3://bucket/prefix/a.zarr"),
            // A password with a raw `#` or `?`, which URL syntax wants escaped.
            ("https://bob:p#w?x@host/x", "https://***@host/x"),
            ("https://host:8443/x?a=b@c", "https://host:8443/x?a=b@c"),
            ("not a url", "not a url"),
        ];
        for (url, want) in cases {
            assert_eq!(printable_url(url), want, "{url}");
            assert_eq!(scrub(&format!("at {url}: x")), format!("at {want}: x"));
        }
    }

    #[test]
    fn texts_lose_every_urls_secrets_and_the_stores_own() {
        let url = "http://alice:hunter2%21secret@127.0.0.1:9/d.zarr?sig=sasvalue1";
        let secrets = Secrets::of(url);
        let said = format!(
            "GET {url}/zarr.json: reqwest::Error {{ url: \"{url}\" }}, password: \
             Some(\"hunter2!secret\"), sig sasvalue1"
        );
        let hidden = secrets.hide(&said);
        for s in ["hunter2", "alice", "sasvalue1"] {
            assert!(!hidden.contains(s), "{s} in {hidden}");
        }
        assert!(
            hidden.contains("http://***@127.0.0.1:9/d.zarr?sig=***"),
            "{hidden}"
        );
        assert_eq!(format!("{secrets:?}"), "Secrets(5 hidden)");
    }

    #[derive(Debug)]
    struct Leaky(Option<Box<Leaky>>);
    impl fmt::Display for Leaky {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("failed for http://u:topsecret@h/x")
        }
    }
    impl std::error::Error for Leaky {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            self.0.as_deref().map(|s| s as _)
        }
    }

    #[test]
    fn a_scrubbed_error_keeps_no_secret_at_any_level() {
        let e = Leaky(Some(Box::new(Leaky(None))));
        let s = Scrubbed::of(&e, &Secrets::of("http://u:topsecret@h/x"));
        let mut level: Option<&(dyn std::error::Error + 'static)> = Some(&s);
        let mut levels = 0;
        while let Some(e) = level {
            for text in [e.to_string(), format!("{e:?}")] {
                assert!(!text.contains("topsecret"), "{text}");
            }
            levels += 1;
            level = e.source();
        }
        assert_eq!(levels, 2);
    }
}
