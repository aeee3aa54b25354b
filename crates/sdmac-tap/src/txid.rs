//! TX ids: a bitset over a fixed array.
//!
//! Each frame handed to the MAC carries an id, which comes back in its
//! confirmation. Ids are the indices of a fixed array of slots; a set bit marks a
//! slot in use. Allocation scans from a cursor for a word with a clear bit (one
//! `trailing_ones` per word), so it is O(1) while the set is not nearly full and
//! at worst O(capacity / 64); freeing clears one bit. Nothing is allocated after
//! construction.

/// A fixed set of `64 * WORDS` TX ids, each with a slot of `T`.
#[derive(Debug)]
pub struct TxIds<T: Copy + Default, const WORDS: usize> {
    bits: [u64; WORDS],
    slots: Box<[T]>,
    cursor: usize,
    used: usize,
}

impl<T: Copy + Default, const WORDS: usize> Default for TxIds<T, WORDS> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Copy + Default, const WORDS: usize> TxIds<T, WORDS> {
    /// How many ids there are.
    pub const CAPACITY: usize = 64 * WORDS;

    /// All ids free.
    pub fn new() -> Self {
        TxIds {
            bits: [0; WORDS],
            slots: vec![T::default(); Self::CAPACITY].into_boxed_slice(),
            cursor: 0,
            used: 0,
        }
    }

    /// Takes a free id and stores `meta` in its slot; `None` when all are in use.
    #[inline]
    pub fn alloc(&mut self, meta: T) -> Option<u32> {
        if self.used == Self::CAPACITY {
            return None;
        }
        for k in 0..WORDS {
            let w = (self.cursor + k) % WORDS;
            let word = self.bits[w];
            if word != u64::MAX {
                let bit = word.trailing_ones() as usize;
                self.bits[w] |= 1 << bit;
                self.cursor = w;
                self.used += 1;
                let id = w * 64 + bit;
                self.slots[id] = meta;
                return Some(id as u32);
            }
        }
        None
    }

    /// Frees `id`; returns its slot, or `None` if it was not in use (or out of range).
    #[inline]
    pub fn free(&mut self, id: u32) -> Option<T> {
        let id = id as usize;
        if id >= Self::CAPACITY {
            return None;
        }
        let (w, bit) = (id / 64, id % 64);
        if self.bits[w] & (1 << bit) == 0 {
            return None;
        }
        self.bits[w] &= !(1 << bit);
        self.used -= 1;
        Some(self.slots[id])
    }

    /// Whether `id` is in use.
    pub fn in_use(&self, id: u32) -> bool {
        let id = id as usize;
        id < Self::CAPACITY && self.bits[id / 64] & (1 << (id % 64)) != 0
    }

    /// Ids in use.
    pub fn used(&self) -> usize {
        self.used
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    #[test]
    fn fills_up_and_frees() {
        let mut ids: TxIds<u16, 2> = TxIds::new();
        let got: Vec<u32> = (0..128).map(|k| ids.alloc(k as u16).unwrap()).collect();
        let mut sorted = got.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), 128);
        assert_eq!(ids.alloc(0), None, "all 128 in use");
        assert_eq!(ids.free(77), Some(got.iter().position(|&i| i == 77).unwrap() as u16));
        assert_eq!(ids.free(77), None, "double free");
        assert_eq!(ids.free(128), None, "out of range");
        assert_eq!(ids.alloc(9), Some(77), "the one freed is the one free");
    }

    proptest! {
        /// Against a map model: ids are unique among those in use, free returns the
        /// slot stored, and allocation fails exactly when all are in use.
        #[test]
        fn behaves_like_a_map(ops in proptest::collection::vec((any::<bool>(), 0u32..200), 1..600)) {
            let mut ids: TxIds<u32, 3> = TxIds::new();
            let mut model: BTreeMap<u32, u32> = BTreeMap::new();
            for (k, (alloc, x)) in ops.into_iter().enumerate() {
                if alloc {
                    match ids.alloc(k as u32) {
                        Some(id) => {
                            prop_assert!((id as usize) < 192);
                            prop_assert!(model.insert(id, k as u32).is_none(), "id {} given twice", id);
                        }
                        None => prop_assert_eq!(model.len(), 192),
                    }
                } else {
                    prop_assert_eq!(ids.free(x), model.remove(&x));
                }
                prop_assert_eq!(ids.used(), model.len());
                prop_assert!(model.keys().all(|&i| ids.in_use(i)));
            }
        }
    }
}
