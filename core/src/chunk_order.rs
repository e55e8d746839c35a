//! The order in which a shard's inner chunks are laid out in the shard's bytes.
//!
//! The sharding codec's index says where each inner chunk is, so a reader accepts any layout;
//! the layout is the writer's choice. zarr-python 3.4 writes inner chunks in Morton (Z) order
//! by default (`subchunk_write_order`, not stored in the metadata), so that chunks near each
//! other in the array sit near each other in the shard and a partial read coalesces into fewer
//! ranges; zarr-python 3.1 and the zarrs crate write them lexicographically (C order).
//!
//! Morton order here is zarr-python's "compressed" Morton code: each dimension contributes as
//! many bits as it needs to index its extent (none for an extent of 1), interleaved from the
//! least significant bit, dimension 0 first; codes whose coordinates fall outside the grid
//! are skipped. No allocation: the codes are walked in order and decoded one at a time.

use crate::LayoutError;
use crate::shape::{Dims, dims, product};

/// The order of a shard's inner chunks in its bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ChunkOrder {
    /// Row-major: the last coordinate varies fastest (zarr-python 3.1, the zarrs crate).
    #[default]
    Lexicographic,
    /// Column-major: the first coordinate varies fastest.
    Colexicographic,
    /// Morton (Z) order, as zarr-python 3.4 writes by default.
    Morton,
}

impl ChunkOrder {
    /// The chunks of a grid of `shape` in this order, each as its index in C order.
    ///
    /// ```
    /// use zinto_core::ChunkOrder;
    ///
    /// let z: Vec<u64> = ChunkOrder::Morton.walk(&[3, 2])?.collect();
    /// // (0,0) (1,0) (0,1) (1,1) (2,0) (2,1), as C-order indices of a 3 x 2 grid.
    /// assert_eq!(z, [0, 2, 1, 3, 4, 5]);
    /// # Ok::<(), zinto_core::LayoutError>(())
    /// ```
    ///
    /// # Errors
    /// [`LayoutError::TooManyDims`] past [`MAX_DIMS`](crate::MAX_DIMS);
    /// [`LayoutError::Overflow`] if the grid's chunk count overflows `u64`.
    pub fn walk(self, shape: &[u64]) -> Result<ChunkWalk, LayoutError> {
        let total = product(shape)?;
        let mut bits: Dims = dims(shape)?;
        let mut total_bits = 0u32;
        for b in bits.iter_mut() {
            // The bits needed to index `extent` values: 0 for an extent of 0 or 1.
            let need = u64::BITS - b.saturating_sub(1).leading_zeros();
            *b = u64::from(need);
            total_bits += need;
        }
        // A grid whose count fits u64 needs at most 64 + (dimensions) bits.
        let codes = 1u128.checked_shl(total_bits).ok_or(LayoutError::Overflow)?;
        let end = match (self, total) {
            (_, 0) => 0,
            (Self::Morton, _) => codes,
            _ => u128::from(total),
        };
        Ok(ChunkWalk {
            order: self,
            shape: dims(shape)?,
            bits,
            next: 0,
            end,
        })
    }
}

/// The chunks of a grid in a [`ChunkOrder`], each as its index in C order.
#[derive(Debug, Clone)]
pub struct ChunkWalk {
    order: ChunkOrder,
    shape: Dims,
    /// Bits per dimension of a Morton code.
    bits: Dims,
    /// The next position (a Morton code, or a count).
    next: u128,
    end: u128,
}

impl ChunkWalk {
    /// The C-order index of the chunk at `coords` (each inside the grid).
    fn c_index(&self, coords: &[u64]) -> u64 {
        coords
            .iter()
            .zip(&self.shape)
            .fold(0, |acc, (&c, &n)| acc * n + c)
    }

    /// The coordinates whose column-major position is `at` (below the chunk count).
    fn colex(&self, mut at: u64) -> Dims {
        let mut coords = Dims::new();
        for &n in &self.shape {
            // Capacity: the same count as `shape`.
            let _ = coords.push(at % n);
            at /= n;
        }
        coords
    }

    /// The coordinates of Morton `code`, or `None` if outside the grid.
    fn morton(&self, code: u128) -> Option<Dims> {
        let mut coords = Dims::new();
        for _ in &self.shape {
            let _ = coords.push(0);
        }
        let widest = self.bits.iter().copied().max().unwrap_or(0);
        let mut input = 0u32;
        for bit in 0..widest {
            for (d, &b) in self.bits.iter().enumerate() {
                if bit < b {
                    let set = u64::from(code >> input & 1 == 1);
                    if let Some(c) = coords.get_mut(d) {
                        *c |= set << bit;
                    }
                    input += 1;
                }
            }
        }
        let inside = coords.iter().zip(&self.shape).all(|(c, n)| c < n);
        inside.then_some(coords)
    }
}

impl Iterator for ChunkWalk {
    type Item = u64;

    fn next(&mut self) -> Option<u64> {
        while self.next < self.end {
            let at = self.next;
            self.next += 1;
            // For the two counting orders `at` is below the chunk count, a u64; a Morton code
            // may pass u64 (its bits can outnumber the count's by one a dimension).
            let count = || u64::try_from(at).ok();
            match self.order {
                ChunkOrder::Lexicographic => return count(),
                ChunkOrder::Colexicographic => {
                    return count().map(|i| self.c_index(&self.colex(i)));
                }
                ChunkOrder::Morton => {
                    if let Some(coords) = self.morton(at) {
                        return Some(self.c_index(&coords));
                    }
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec::Vec;

    use super::*;

    fn walk(order: ChunkOrder, shape: &[u64]) -> Vec<u64> {
        order.walk(shape).unwrap().collect()
    }

    #[test]
    fn each_order_visits_every_chunk_once() {
        for shape in [
            &[3u64, 2][..],
            &[5, 1, 3],
            &[1],
            &[7],
            &[4, 4],
            &[3, 3, 3],
            &[],
        ] {
            for order in [
                ChunkOrder::Lexicographic,
                ChunkOrder::Colexicographic,
                ChunkOrder::Morton,
            ] {
                let mut seen = walk(order, shape);
                seen.sort_unstable();
                let n = product(shape).unwrap();
                assert_eq!(seen, (0..n).collect::<Vec<_>>(), "{order:?} {shape:?}");
            }
        }
    }

    #[test]
    fn orders_match_zarr_python() {
        // zarr-python 3.4.2's `_subchunk_order_iter` for a (3, 2) grid, as C-order indices.
        assert_eq!(walk(ChunkOrder::Morton, &[3, 2]), [0, 2, 1, 3, 4, 5]);
        assert_eq!(
            walk(ChunkOrder::Colexicographic, &[3, 2]),
            [0, 2, 4, 1, 3, 5]
        );
        assert_eq!(walk(ChunkOrder::Lexicographic, &[3, 2]), [0, 1, 2, 3, 4, 5]);
        // A 4 x 4 grid: the Z of Z's. (0,0) (1,0) (0,1) (1,1) (2,0) (3,0) (2,1) (3,1) ...
        assert_eq!(
            walk(ChunkOrder::Morton, &[4, 4]),
            [0, 4, 1, 5, 8, 12, 9, 13, 2, 6, 3, 7, 10, 14, 11, 15]
        );
        // A dimension of extent 1 takes no bits.
        assert_eq!(walk(ChunkOrder::Morton, &[1, 3]), [0, 1, 2]);
        assert_eq!(
            walk(ChunkOrder::Morton, &[5, 1, 3]),
            [0, 3, 1, 4, 6, 9, 7, 10, 2, 5, 8, 11, 12, 13, 14]
        );
    }

    #[test]
    fn empty_and_overflowing_grids() {
        assert!(walk(ChunkOrder::Morton, &[0, 5]).is_empty());
        assert_eq!(
            ChunkOrder::Morton.walk(&[u64::MAX, 3]).err(),
            Some(LayoutError::Overflow)
        );
    }
}
