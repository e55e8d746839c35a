//! A remote store's guard of one chunk's update ([`Store::lock_update`](crate::store::Store::lock_update)):
//! no lock, but a conditional write. Before the write reads the old chunk, one HEAD notes the
//! object's version (its ETag, or its generation on GCS; or that it is absent); the write of
//! the merged chunk, on the same thread, is a PUT that the server carries out only if the
//! object is still that version (`If-Match`, or `If-None-Match: *` for an absent one), and
//! refuses otherwise ([`StoreError::Replaced`]): the writer then reads it again and merges
//! again (`write::update`). One request more than an unguarded update, when no other writer
//! comes between.
//!
//! Such a write is one PUT, never a multipart upload (a multipart upload's completion takes
//! no such condition here): a chunk written under a condition is held whole until it is sent.

use std::cell::RefCell;
use std::sync::Arc;

use object_store::path::Path;
use object_store::{ObjectMeta, ObjectStore, ObjectStoreExt, PutMode, UpdateVersion};

use super::{RemoteStore, error_for};
use crate::redact::Secrets;
use crate::store::update_lock::Condition;
use crate::store::{StoreError, UpdateLock};

thread_local! {
    /// The conditional updates this thread has begun and not ended: each object's entry
    /// ([`entry_of`]) and the condition its write takes.
    static NOTED: RefCell<Vec<(String, PutMode)>> = const { RefCell::new(Vec::new()) };
}

/// What names the object `key` of `store` in [`NOTED`]: the store's client and the object's
/// URL (two stores of one URL on different endpoints are different objects).
pub(super) fn entry_of(store: &RemoteStore, key: &str) -> String {
    format!("{:p} {}", Arc::as_ptr(&store.store), store.url_of(key))
}

/// The condition a write of the object `entry` ([`entry_of`]) on this thread takes: that of
/// the update this thread began on it, if any.
pub(super) fn condition_of(entry: &str) -> Option<PutMode> {
    NOTED.with_borrow(|noted| {
        noted
            .iter()
            .rev()
            .find(|(e, _)| e == entry)
            .map(|(_, mode)| mode.clone())
    })
}

impl RemoteStore {
    /// Begins a conditional update of `key`: its version noted for this thread's write of it.
    pub(super) fn begin_update(&self, key: &str) -> Result<UpdateLock, StoreError> {
        let url = self.url_of(key);
        let entry = entry_of(self, key);
        let location = self.location(key).ok_or_else(|| StoreError::BadKey {
            key: key.to_owned(),
        })?;
        // An update within one this thread began already (a caller's update of a chunk, and
        // the write of it inside): the outer one's condition, not a newer version's.
        let outer = condition_of(&entry);
        let nested = outer.is_some();
        let mode = match outer {
            Some(mode) => mode,
            None => {
                let found = self.runtime.block_on(self.store.head(&location));
                match found {
                    Ok(meta) => PutMode::Update(version_of(meta, &url)?),
                    Err(object_store::Error::NotFound { .. }) => PutMode::Create,
                    Err(e) => return Err(self.error(key, e)),
                }
            }
        };
        NOTED.with_borrow_mut(|noted| noted.push((entry.clone(), mode.clone())));
        Ok(UpdateLock::conditional(Noted {
            store: Arc::clone(&self.store),
            runtime: Arc::clone(&self.runtime),
            secrets: self.secrets.clone(),
            location,
            url,
            entry,
            mode,
            nested,
        }))
    }
}

/// The version a conditional write of `url` names: its ETag and (GCS, versioned buckets) its
/// generation. A server that gives neither cannot take a condition.
fn version_of(meta: ObjectMeta, url: &str) -> Result<UpdateVersion, StoreError> {
    if meta.e_tag.is_none() && meta.version.is_none() {
        let why = format!("{url}: the server gave no ETag, so a write cannot be made conditional");
        return Err(StoreError::Io(std::io::Error::other(why)));
    }
    Ok(UpdateVersion {
        e_tag: meta.e_tag,
        version: meta.version,
    })
}

/// A conditional update begun on this thread: its entry in [`NOTED`] until it drops (on this
/// thread: [`UpdateLock`] is not `Send`), and what it takes to ask whether the object changed.
struct Noted {
    store: Arc<dyn ObjectStore>,
    runtime: Arc<tokio::runtime::Runtime>,
    secrets: Secrets,
    location: Path,
    url: String,
    entry: String,
    mode: PutMode,
    /// Whether the condition is an outer update's on this thread.
    nested: bool,
}

impl Condition for Noted {
    fn is_nested(&self) -> bool {
        self.nested
    }

    /// One HEAD: whether the object's version is still the one noted.
    fn replaced(&self) -> Result<bool, StoreError> {
        let found = self.runtime.block_on(self.store.head(&self.location));
        match (found, &self.mode) {
            (Ok(meta), PutMode::Update(was)) => {
                Ok(meta.e_tag != was.e_tag || meta.version != was.version)
            }
            (Ok(_), PutMode::Create | PutMode::Overwrite) => Ok(true),
            (Err(object_store::Error::NotFound { .. }), PutMode::Create) => Ok(false),
            (
                Err(object_store::Error::NotFound { .. }),
                PutMode::Update(_) | PutMode::Overwrite,
            ) => Ok(true),
            (Err(e), _) => Err(error_for(|| self.url.clone(), &self.secrets, e)),
        }
    }
}

impl Drop for Noted {
    fn drop(&mut self) {
        NOTED.with_borrow_mut(|noted| {
            if let Some(i) = noted.iter().rposition(|(e, _)| *e == self.entry) {
                noted.remove(i);
            }
        });
    }
}

/// `e`, from a conditional write of `url`, as a store error: another writer's replacement
/// (the precondition failed, or an object appeared where none was) is
/// [`StoreError::Replaced`].
pub(super) fn refused(
    e: object_store::Error,
    url: impl FnOnce() -> String,
    secrets: &Secrets,
) -> StoreError {
    match e {
        object_store::Error::Precondition { .. } | object_store::Error::AlreadyExists { .. } => {
            StoreError::Replaced {
                key: url(),
                tries: 1,
            }
        }
        other => error_for(url, secrets, other),
    }
}
