//! One version of a remote object, named by its ETag: a reader that reads a chunk in several
//! requests (a shard's index, then its inner chunks) sends each with `If-Match`, so a writer's
//! new version between them fails the read ([`StoreError::Changed`]: the chunk is read again)
//! instead of handing it the new version's bytes at the old version's offsets.

use std::ops::ControlFlow;

use object_store::ObjectStoreExt;

use super::{RemoteStore, error_for};
use crate::redact::Secrets;
use crate::store::{Opened, REREAD_WHOLE_MAX, Store, StoreError, halt_on_break, settle};

/// An object's key and, if pinned, the ETag its requests must match.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Version<'k> {
    pub(crate) key: &'k str,
    pub(crate) etag: Option<&'k str>,
}

impl<'k> Version<'k> {
    /// Whatever version the store holds at each request.
    pub(crate) fn any(key: &'k str) -> Self {
        Self { key, etag: None }
    }

    /// The version `etag` names, if the ETag can pin one: a weak ETag (`W/"..."`) never
    /// matches `If-Match` (RFC 9110 compares strongly), so it pins nothing.
    pub(crate) fn pinned(key: &'k str, etag: Option<&'k str>) -> Self {
        Self {
            key,
            etag: etag.filter(|e| !e.starts_with("W/")),
        }
    }

    /// `e`, from a request for this version of the object at `url`, as a store error: a
    /// failed `If-Match` (412), or a 404 once the object was seen, is [`StoreError::Changed`];
    /// anything else as [`error_for`] says.
    pub(crate) fn error(
        &self,
        url: impl FnOnce() -> String,
        secrets: &Secrets,
        e: object_store::Error,
    ) -> StoreError {
        match e {
            object_store::Error::Precondition { .. } | object_store::Error::NotFound { .. }
                if self.etag.is_some() =>
            {
                StoreError::Changed { url: url() }
            }
            e => error_for(url, secrets, e),
        }
    }
}

/// [`Store::open`] of a remote store: one HEAD, the object pinned by its ETag if it has a
/// strong one.
pub(super) fn open<'r>(remote: &'r RemoteStore, key: &str) -> Result<Opened<'r>, StoreError> {
    let Some(location) = remote.location(key) else {
        return Ok(Opened::Absent);
    };
    let meta = match remote.runtime.block_on(remote.store.head(&location)) {
        Ok(meta) => meta,
        Err(object_store::Error::NotFound { .. }) => return Ok(Opened::Absent),
        Err(e) => return Err(remote.error(key, e)),
    };
    let len = meta.size;
    let etag = meta.e_tag.filter(|_| remote.pins_versions);
    Ok(
        match Version::pinned(key, etag.as_deref())
            .etag
            .map(str::to_owned)
        {
            Some(etag) => Opened::Pinned {
                len,
                object: Box::new(PinnedObject {
                    remote,
                    key: key.to_owned(),
                    etag,
                    len,
                }),
            },
            None => Opened::Unpinned { len },
        },
    )
}

/// [`Store::reopen`] of a remote store: one GET of the whole object.
pub(super) fn reopen<'r>(remote: &'r RemoteStore, key: &str) -> Result<Opened<'r>, StoreError> {
    let Some(location) = remote.location(key) else {
        return Ok(Opened::Absent);
    };
    let whole = remote.runtime.block_on(async {
        let got = remote.store.get(&location).await?;
        let etag = got.meta.e_tag.clone().filter(|_| remote.pins_versions);
        let (len, etag) = (got.meta.size, etag);
        if len > REREAD_WHOLE_MAX {
            // Dropping the body closes its connection.
            return Ok((len, etag, None));
        }
        got.bytes().await.map(|bytes| (len, etag, Some(bytes)))
    });
    let (len, etag, bytes) = match whole {
        Ok(got) => got,
        Err(object_store::Error::NotFound { .. }) => return Ok(Opened::Absent),
        Err(e) => return Err(remote.error(key, e)),
    };
    let key = key.to_owned();
    Ok(match (bytes, Version::pinned(&key, etag.as_deref()).etag) {
        (Some(bytes), _) => {
            if bytes.len() as u64 != len {
                return Err(StoreError::BodyLength {
                    url: remote.url_of(&key),
                    expected: len,
                    got: bytes.len() as u64,
                });
            }
            Opened::Pinned {
                len,
                object: Box::new(WholeObject { key, bytes }),
            }
        }
        (None, Some(etag)) => {
            let etag = etag.to_owned();
            Opened::Pinned {
                len,
                object: Box::new(PinnedObject {
                    remote,
                    key,
                    etag,
                    len,
                }),
            }
        }
        (None, None) => Opened::Unpinned { len },
    })
}

/// A remote object read whole into memory.
struct WholeObject {
    key: String,
    bytes: bytes::Bytes,
}

impl Store for WholeObject {
    fn size(&self, key: &str) -> Result<Option<u64>, StoreError> {
        same_key(key, &self.key).map(|()| Some(self.bytes.len() as u64))
    }

    fn read_into(&self, key: &str, offset: u64, dst: &mut [u8]) -> Result<(), StoreError> {
        same_key(key, &self.key)?;
        crate::store::read_from_bytes(&self.bytes, offset, dst)
    }

    fn bytes_held(&self) -> u64 {
        self.bytes.len() as u64
    }
}

/// Refuses a key other than the pinned one (a bug in zinto: a reader of one chunk asking for
/// another).
fn same_key(key: &str, pinned: &str) -> Result<(), StoreError> {
    match key == pinned {
        true => Ok(()),
        false => Err(StoreError::Internal {
            what: "a pinned object read under another key",
        }),
    }
}

/// A remote object pinned by its ETag, `len` bytes long.
struct PinnedObject<'r> {
    remote: &'r RemoteStore,
    key: String,
    etag: String,
    len: u64,
}

impl PinnedObject<'_> {
    /// This object's version, or an internal error for another key.
    fn version(&self, key: &str) -> Result<Version<'_>, StoreError> {
        same_key(key, &self.key).map(|()| Version {
            key: &self.key,
            etag: Some(&self.etag),
        })
    }
}

impl Store for PinnedObject<'_> {
    fn size(&self, key: &str) -> Result<Option<u64>, StoreError> {
        self.version(key).map(|_| Some(self.len))
    }

    fn read_into(&self, key: &str, offset: u64, dst: &mut [u8]) -> Result<(), StoreError> {
        self.remote.read_at(self.version(key)?, offset, dst)
    }

    fn read_blocks(
        &self,
        key: &str,
        offset: u64,
        len: u64,
        buf: &mut [u8],
        each: &mut dyn FnMut(&[u8]) -> ControlFlow<()>,
    ) -> Result<(), StoreError> {
        let at = self.version(key)?;
        settle(
            self.remote
                .blocks(at, offset, len, buf, &mut halt_on_break(each)),
        )
    }
}
