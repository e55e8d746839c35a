//! Writing objects to a remote store: one PUT for an object smaller than a part, a multipart
//! upload for larger ones (parts of [`PART_LEN`], sent as they fill); one conditional PUT for
//! the write of a conditional update (`update.rs`), however large. Either becomes visible
//! whole, at its last request: a reader sees the old object or the new one. An upload dropped
//! before its commit is aborted.
//!
//! Each writer holds up to one part: S3 and its kin need each request's length before its
//! body, so a chunk up to [`PART_LEN`] is gathered whole (docs/memory.md). Bytes reserved to be
//! filled later ([`ObjectWriter::reserve`]: a shard's index at its start, a Blosc frame's
//! header) hold the part, from them on, until they are filled: an object store writes forward
//! only.

use object_store::path::Path;
use object_store::{MultipartUpload, ObjectStoreExt, PutMode, PutPayload};

use super::{RemoteStore, update};
use crate::store::write::{Reservations, write_zeros};
use crate::store::{ObjectWriter, StoreError};

/// Bytes of one part of a multipart upload (S3's least is 5 MiB for all but the last).
pub const PART_LEN: usize = 8 << 20;

/// An object being written to a [`RemoteStore`].
pub(super) struct RemoteWriter<'a> {
    store: &'a RemoteStore,
    key: String,
    location: Path,
    part: Vec<u8>,
    upload: Option<Box<dyn MultipartUpload>>,
    /// Bytes sent in parts so far, and written in all.
    sent: u64,
    written: u64,
    /// Reservations not yet filled: while there are any, `part` is not sent.
    open: Reservations,
    /// The condition of the update this thread began on the object (`update.rs`): the object
    /// is then gathered whole and sent in one conditional PUT.
    condition: Option<PutMode>,
}

impl<'a> RemoteWriter<'a> {
    pub(super) fn new(store: &'a RemoteStore, key: &str) -> Result<Self, StoreError> {
        let location = store.location(key).ok_or_else(|| StoreError::BadKey {
            key: key.to_owned(),
        })?;
        Ok(Self {
            store,
            key: key.to_owned(),
            location,
            part: Vec::new(),
            upload: None,
            sent: 0,
            written: 0,
            open: Reservations::default(),
            condition: store
                .conditional
                .then(|| update::condition_of(&update::entry_of(store, key)))
                .flatten(),
        })
    }

    /// Sends the gathered part, starting the upload if this is its first.
    fn send_part(&mut self) -> Result<(), StoreError> {
        let store = self.store;
        self.sent += self.part.len() as u64;
        let payload = PutPayload::from(std::mem::take(&mut self.part));
        let result = store.runtime.block_on(async {
            if self.upload.is_none() {
                self.upload = Some(start_upload(store, &self.location).await?);
            }
            match self.upload.as_mut() {
                Some(upload) => upload.put_part(payload).await,
                None => Ok(()),
            }
        });
        result.map_err(|e| store.error(&self.key, e))
    }
}

/// Starts a multipart upload. object_store retries the request, but not an answer whose body
/// is cut short (it holds the upload's id): that is a `Generic` error, tried again here up to
/// the store's `retries`. Starting an upload is safe to repeat: one whose answer was lost is
/// never completed, and never becomes an object.
async fn start_upload(
    store: &RemoteStore,
    location: &Path,
) -> object_store::Result<Box<dyn MultipartUpload>> {
    let mut tries = 0;
    loop {
        match store.store.put_multipart(location).await {
            Err(object_store::Error::Generic { .. }) if tries < store.options.retries => {
                tries += 1;
            }
            done => return done,
        }
    }
}

impl ObjectWriter for RemoteWriter<'_> {
    fn write(&mut self, mut bytes: &[u8]) -> Result<(), StoreError> {
        self.written += bytes.len() as u64;
        if !self.open.is_empty() || self.condition.is_some() {
            self.part.try_reserve(bytes.len()).map_err(|_| {
                StoreError::Io(std::io::Error::from(std::io::ErrorKind::OutOfMemory))
            })?;
            self.part.extend_from_slice(bytes);
            return Ok(());
        }
        while !bytes.is_empty() {
            if self.part.capacity() == 0 {
                self.part.try_reserve_exact(PART_LEN).map_err(|_| {
                    StoreError::Io(std::io::Error::from(std::io::ErrorKind::OutOfMemory))
                })?;
            }
            let room = PART_LEN - self.part.len();
            let (now, later) = bytes.split_at(bytes.len().min(room));
            self.part.extend_from_slice(now);
            bytes = later;
            if self.part.len() == PART_LEN {
                self.send_part()?;
            }
        }
        Ok(())
    }

    fn reserve(&mut self, len: usize) -> Result<u64, StoreError> {
        let offset = self.written;
        self.open.open(offset, len);
        write_zeros(self, len)?;
        Ok(offset)
    }

    fn fill(&mut self, offset: u64, bytes: &[u8]) -> Result<(), StoreError> {
        self.open
            .fill_held((&mut self.part, self.sent), offset, bytes)?;
        // Every reservation filled: what was held is final, and goes out in parts of PART_LEN
        // (some stores refuse parts of unequal sizes), the rest kept for the next.
        while self.open.is_empty() && self.condition.is_none() && self.part.len() >= PART_LEN {
            let rest = self.part.split_off(PART_LEN);
            self.send_part()?;
            self.part = rest;
        }
        Ok(())
    }

    fn commit(mut self: Box<Self>) -> Result<(), StoreError> {
        let store = self.store;
        self.open.check_filled()?;
        if let Some(mode) = self.condition.take() {
            let payload = PutPayload::from(std::mem::take(&mut self.part));
            let put = store.store.put_opts(&self.location, payload, mode.into());
            return store
                .runtime
                .block_on(put)
                .map(|_| ())
                .map_err(|e| update::refused(e, || store.url_of(&self.key), &store.secrets));
        }
        if self.upload.is_none() {
            let payload = PutPayload::from(std::mem::take(&mut self.part));
            return store
                .runtime
                .block_on(store.store.put(&self.location, payload))
                .map(|_| ())
                .map_err(|e| store.error(&self.key, e));
        }
        if !self.part.is_empty() {
            self.send_part()?;
        }
        let mut upload = self.upload.take().ok_or(StoreError::Internal {
            what: "an upload lost before its commit",
        })?;
        store
            .runtime
            .block_on(upload.complete())
            .map(|_| ())
            .map_err(|e| store.error(&self.key, e))
    }
}

impl Drop for RemoteWriter<'_> {
    /// An upload not committed is aborted: its parts are not kept by the server.
    fn drop(&mut self) {
        if let Some(mut upload) = self.upload.take() {
            let _ = self.store.runtime.block_on(upload.abort());
        }
    }
}
