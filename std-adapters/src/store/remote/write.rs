//! Writing objects to a remote store: one PUT for an object smaller than a part, a multipart
//! upload for larger ones (parts of [`PART_LEN`], sent as they fill). Either becomes visible
//! whole, at its last request: a reader sees the old object or the new one. An upload dropped
//! before its commit is aborted.
//!
//! Each writer holds up to one part: S3 and its kin need each request's length before its
//! body, so a chunk up to [`PART_LEN`] is gathered whole (docs/memory.md). An object whose head
//! is written last ([`ObjectWriter::reserve_head`]: a shard with its index at the start) is
//! held whole until its commit, then sent in one PUT: an object store writes forward only.

use object_store::path::Path;
use object_store::{MultipartUpload, ObjectStoreExt, PutPayload};

use super::RemoteStore;
use crate::store::write::{take_head, write_zeros};
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
    /// The length of a head reserved: from then on the whole object is held in `part`.
    head: Option<usize>,
    /// Whether the head was filled.
    head_filled: bool,
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
            head: None,
            head_filled: false,
        })
    }

    /// Sends the gathered part, starting the upload if this is its first.
    fn send_part(&mut self) -> Result<(), StoreError> {
        let store = self.store;
        let payload = PutPayload::from(std::mem::take(&mut self.part));
        let result = store.runtime.block_on(async {
            if self.upload.is_none() {
                self.upload = Some(store.store.put_multipart(&self.location).await?);
            }
            match self.upload.as_mut() {
                Some(upload) => upload.put_part(payload).await,
                None => Ok(()),
            }
        });
        result.map_err(|e| store.error(&self.key, e))
    }
}

impl ObjectWriter for RemoteWriter<'_> {
    fn write(&mut self, mut bytes: &[u8]) -> Result<(), StoreError> {
        if self.head.is_some() {
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

    fn reserve_head(&mut self, len: usize) -> Result<(), StoreError> {
        if !self.part.is_empty() || self.upload.is_some() || self.head.is_some() {
            return Err(StoreError::Internal {
                what: "a head reserved after other bytes",
            });
        }
        self.head = Some(len);
        write_zeros(self, len)
    }

    fn fill_head(&mut self, head: &[u8]) -> Result<(), StoreError> {
        if self.head_filled {
            return Err(StoreError::Internal {
                what: "a head filled twice",
            });
        }
        let mut reserved = self.head;
        take_head(&mut reserved, head)?;
        self.part
            .get_mut(..head.len())
            .ok_or(StoreError::Internal {
                what: "a head longer than the object",
            })?
            .copy_from_slice(head);
        self.head_filled = true;
        Ok(())
    }

    fn commit(mut self: Box<Self>) -> Result<(), StoreError> {
        let store = self.store;
        if self.head.is_some() && !self.head_filled {
            return Err(StoreError::Internal {
                what: "an object committed before its head was filled",
            });
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
