//! The station table the data paths and the AP's management thread share: the
//! addresses unicast frames may go to, and which of them are associated with the
//! AP. It grows while the paths run, without a lock or an allocation on their side.
//!
//! The table is a fixed array, sized once ([`StationTable::new`]'s capacity), and a
//! length published with release ordering: an entry is written first, then the
//! length that covers it, so a reader that loads the length (acquire) sees every
//! entry below it whole. Readers only load atomics. Writers (the thread that adds
//! and removes stations) are serialized by a lock of their own, which readers never
//! take. An entry is never reused: a station removed keeps its slot, marked absent,
//! so a station's index (its id in `sdmac tap`) stays its own for the whole run.

use sdmac_types::MacAddress;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

/// Set in an entry's word while its station is present.
const PRESENT: u64 = 1 << 63;

/// One station: its address and presence in one word, and its association.
#[derive(Debug, Default)]
struct Entry {
    word: AtomicU64,
    associated: AtomicBool,
}

fn pack(a: MacAddress) -> u64 {
    a.0.iter().fold(0u64, |w, b| w << 8 | u64::from(*b))
}

/// Why a station could not be added.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AddError {
    /// Every slot is taken (the capacity is given).
    Full(usize),
    /// A station has this address (its index).
    Duplicate(usize),
}

impl std::fmt::Display for AddError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AddError::Full(n) => write!(f, "the station table is full ({n} stations)"),
            AddError::Duplicate(k) => write!(f, "station {k} has this address already"),
        }
    }
}

impl std::error::Error for AddError {}

/// A station table of fixed capacity that grows while it is read.
#[derive(Debug)]
pub struct StationTable {
    entries: Box<[Entry]>,
    len: AtomicUsize,
    writer: Mutex<()>,
}

impl StationTable {
    /// An empty table with room for `capacity` stations (allocated now, once).
    pub fn new(capacity: usize) -> StationTable {
        StationTable {
            entries: (0..capacity).map(|_| Entry::default()).collect(),
            len: AtomicUsize::new(0),
            writer: Mutex::new(()),
        }
    }

    /// A table holding `stations` (in order, present, not associated) with room
    /// for `capacity` in all; `capacity` below their number is raised to it.
    pub fn with_stations(stations: &[MacAddress], capacity: usize) -> StationTable {
        let t = StationTable::new(capacity.max(stations.len()));
        for s in stations {
            // Duplicates in the list keep their first index; the list is the caller's.
            let _ = t.push(*s);
        }
        t
    }

    /// How many stations it can hold.
    pub fn capacity(&self) -> usize {
        self.entries.len()
    }

    /// How many slots are used (removed stations included).
    pub fn len(&self) -> usize {
        self.len.load(Ordering::Acquire)
    }

    /// Whether no station was ever added.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Adds station `a` (present, not associated) in the next slot; returns its index.
    pub fn push(&self, a: MacAddress) -> Result<usize, AddError> {
        let _w = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        let k = self.len.load(Ordering::Relaxed);
        if let Some(i) = self.index(a) {
            return Err(AddError::Duplicate(i));
        }
        let e = self.entries.get(k).ok_or(AddError::Full(self.entries.len()))?;
        e.associated.store(false, Ordering::Relaxed);
        e.word.store(pack(a) | PRESENT, Ordering::Relaxed);
        // Publishes the entry: a reader that sees the new length sees it whole.
        self.len.store(k + 1, Ordering::Release);
        Ok(k)
    }

    /// Marks station `k` absent (and not associated): frames to it are no longer
    /// sent. Its slot is not reused.
    pub fn remove(&self, k: usize) {
        let _w = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(e) = self.entries.get(k) {
            e.associated.store(false, Ordering::Release);
            e.word.fetch_and(!PRESENT, Ordering::Release);
        }
    }

    /// The index of the present station with address `a`.
    #[inline]
    pub fn index(&self, a: MacAddress) -> Option<usize> {
        let want = pack(a) | PRESENT;
        let n = self.len.load(Ordering::Acquire);
        self.entries[..n].iter().position(|e| e.word.load(Ordering::Acquire) == want)
    }

    /// Whether a present station has address `a`.
    #[inline]
    pub fn contains(&self, a: MacAddress) -> bool {
        self.index(a).is_some()
    }

    /// Sets whether station `k` is associated (ignored for an index never added).
    pub fn set_associated(&self, k: usize, on: bool) {
        if k < self.len() {
            self.entries[k].associated.store(on, Ordering::Release);
        }
    }

    /// Whether station `k` is associated.
    #[inline]
    pub fn is_associated(&self, k: usize) -> bool {
        k < self.len() && self.entries[k].associated.load(Ordering::Acquire)
    }

    /// Whether the present station with address `a` is associated.
    #[inline]
    pub fn is_associated_addr(&self, a: MacAddress) -> bool {
        self.index(a).is_some_and(|k| self.entries[k].associated.load(Ordering::Acquire))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn mac(k: u8) -> MacAddress {
        MacAddress([2, 0, 0, 0, 1, k])
    }

    #[test]
    fn grows_to_its_capacity_and_refuses_more() {
        let t = StationTable::with_stations(&[mac(1), mac(2)], 3);
        assert_eq!((t.len(), t.capacity()), (2, 3));
        assert_eq!(t.index(mac(2)), Some(1));
        assert_eq!(t.index(mac(3)), None);
        assert_eq!(t.push(mac(3)), Ok(2));
        assert_eq!(t.index(mac(3)), Some(2));
        assert_eq!(t.push(mac(4)), Err(AddError::Full(3)));
        assert_eq!(t.push(mac(1)), Err(AddError::Duplicate(0)));
        assert_eq!(AddError::Full(3).to_string(), "the station table is full (3 stations)");
    }

    #[test]
    fn association_and_removal() {
        let t = StationTable::with_stations(&[mac(1), mac(2)], 4);
        assert!(!t.is_associated(1) && !t.is_associated_addr(mac(2)));
        t.set_associated(1, true);
        assert!(t.is_associated(1) && t.is_associated_addr(mac(2)));
        t.set_associated(7, true);
        assert!(!t.is_associated(7), "an index never added stays unassociated");
        t.remove(1);
        assert!(!t.contains(mac(2)) && !t.is_associated(1));
        assert_eq!(t.push(mac(5)), Ok(2), "a removed slot is not reused");
        assert_eq!(t.push(mac(2)), Ok(3), "a removed address may come back, in a new slot");
    }

    #[test]
    fn readers_see_every_published_entry_whole() {
        // A reader running while stations are added finds each one, whole, as soon
        // as the length covers it, and never an address that was not added.
        let t = Arc::new(StationTable::new(500));
        let r = {
            let t = t.clone();
            std::thread::spawn(move || {
                let mut seen = 0;
                while seen < 500 {
                    let n = t.len();
                    for k in 0..n {
                        let a = MacAddress([2, 0, 0, (k >> 8) as u8, k as u8, 0x77]);
                        assert_eq!(t.index(a), Some(k), "entry {k} of {n}");
                    }
                    seen = n;
                }
            })
        };
        for k in 0..500usize {
            t.push(MacAddress([2, 0, 0, (k >> 8) as u8, k as u8, 0x77])).unwrap();
        }
        r.join().unwrap();
    }
}
