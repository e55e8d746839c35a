//! numcodecs filters on the way to the compressor (`delta`, `fixedscaleoffset` over floats,
//! `astype`: what zinto-core's filter files encode), window by window: a chunk's elements go
//! through each filter in order, the last one's stored elements into the stream's gathering
//! window. Each filter's run (`delta`'s element before) carries from one window to the next;
//! an intermediate filter's output takes a window of its own. No chunk-sized buffer.

use zinto_core::codec::Filter;
use zinto_core::codec::filter::{Elem, Value};
use zinto_core::codec::filter::{EncodeRun, FilterError};

use super::WRITE_WINDOW;

/// The filters of a plan, as a worker runs them.
#[derive(Debug, Clone)]
pub(crate) struct FilterStage {
    /// In encoding order (the chain's order).
    filters: Vec<Filter>,
    /// The elements the first filter is given: the array's type, in the machine's byte order.
    from: Elem,
    /// Each filter's run through the current chunk.
    runs: Vec<EncodeRun>,
    /// The array's fill value as the first filter reads it: stored even where NumPy's cast
    /// of its encoding is undefined, since it pads edge chunks (see [`EncodeRun::exempt`]).
    fill: Option<Value>,
    /// A window for each filter's output but the last's (made on first use).
    mids: Vec<Vec<u8>>,
}

impl FilterStage {
    /// The stage for `filters` over elements `from` of an array filled with `fill` (one
    /// element, native byte order); each filter's `encodes` was asked.
    pub(crate) fn new(filters: Vec<Filter>, from: Elem, fill: &[u8]) -> Self {
        let n = filters.len();
        Self {
            filters,
            from,
            fill: from.read(fill),
            runs: vec![EncodeRun::default(); n],
            mids: vec![Vec::new(); n.saturating_sub(1)],
        }
    }

    /// Starts a chunk: every filter's run from the beginning.
    pub(crate) fn begin(&mut self) {
        self.runs.fill(EncodeRun::default());
        if let Some(first) = self.runs.first_mut() {
            first.exempt = self.fill;
        }
    }

    /// Bytes of the elements the first filter takes.
    pub(crate) fn input_size(&self) -> usize {
        self.from.size()
    }

    /// Bytes of the largest element any filter reads or writes: a window holds
    /// `WRITE_WINDOW / widest` elements at every step.
    pub(crate) fn widest(&self) -> usize {
        self.filters
            .iter()
            .filter_map(Filter::encoded_size)
            .fold(self.from.size(), usize::max)
    }

    /// Bytes the last filter stores for each element.
    pub(crate) fn stored_size(&self) -> usize {
        self.filters
            .last()
            .and_then(Filter::encoded_size)
            .unwrap_or(self.from.size())
    }

    /// Encodes the whole elements of `src` (at most `WRITE_WINDOW / widest` of them) through
    /// every filter, the last one's into the start of `dst`; returns the bytes written there.
    pub(crate) fn encode(&mut self, src: &[u8], dst: &mut [u8]) -> Result<usize, String> {
        let mut elem = self.from;
        // The mid window holding the next filter's input, and its bytes.
        let mut held: Option<(usize, usize)> = None;
        let count = self.filters.len();
        for i in 0..count {
            let filter = &self.filters[i];
            let named = |e: FilterError| format!("the {} filter: {e}", filter.name());
            let stored = filter
                .encoded_elem()
                .ok_or_else(|| format!("the {} filter has no element types", filter.name()))?;
            let mids = self.mids.len();
            let (before, rest) = self.mids.split_at_mut(i.min(mids));
            let input: &[u8] = match held {
                None => src,
                Some((m, len)) => &before[m][..len],
            };
            let last = i + 1 == count;
            let out: &mut [u8] = match rest.first_mut() {
                Some(window) if !last => {
                    if window.len() < WRITE_WINDOW {
                        *window = vec![0u8; WRITE_WINDOW];
                    }
                    window
                }
                _ => &mut *dst,
            };
            let n = filter
                .encode(&mut self.runs[i], input, elem, out)
                .map_err(named)?;
            let bytes = n * stored.size();
            if last {
                return Ok(bytes);
            }
            held = Some((i, bytes));
            elem = stored;
        }
        Ok(0)
    }
}
