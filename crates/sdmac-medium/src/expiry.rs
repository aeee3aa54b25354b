//! When each station may next transmit (its earliest queue expiry), with the stations
//! whose expiry is set kept apart: finding the earliest, or who is due at a time, costs
//! the number of stations with a frame waiting, not the number on the medium (a daemon's
//! channel holds a station for every radio, most of them away or silent).

use crate::config::StationId;
use crate::time::{Time, NEVER};

const UNSET: u32 = u32::MAX;

/// Every station's expiry, NEVER when it has nothing to send or cannot access.
#[derive(Clone, Debug, Default)]
pub(crate) struct Expiries {
    at: Vec<Time>,
    /// Stations whose expiry is not NEVER, in no particular order.
    set: Vec<StationId>,
    /// Each station's index in `set`, UNSET if absent.
    pos: Vec<u32>,
}

impl Expiries {
    /// Adds a station (the next id), with no expiry.
    pub fn push(&mut self) {
        self.at.push(NEVER);
        self.pos.push(UNSET);
    }

    /// Sets station `s`'s expiry to `t`; returns the one it replaces.
    pub fn set(&mut self, s: StationId, t: Time) -> Time {
        let i = s as usize;
        let old = std::mem::replace(&mut self.at[i], t);
        match (old == NEVER, t == NEVER) {
            (true, false) => {
                self.pos[i] = self.set.len() as u32;
                self.set.push(s);
            }
            (false, true) => {
                let k = std::mem::replace(&mut self.pos[i], UNSET) as usize;
                self.set.swap_remove(k);
                if let Some(&moved) = self.set.get(k) {
                    self.pos[moved as usize] = k as u32;
                }
            }
            _ => {}
        }
        old
    }

    /// The earliest expiry, NEVER if none is set.
    pub fn min(&self) -> Time {
        self.set.iter().map(|&s| self.at[s as usize]).min().unwrap_or(NEVER)
    }

    /// The stations whose expiry is `t`, in no particular order.
    pub fn each_due(&self, t: Time) -> impl Iterator<Item = StationId> + '_ {
        self.set.iter().copied().filter(move |&s| self.at[s as usize] == t)
    }

    /// The stations whose expiry is `t`, in increasing id order, into `out` (cleared
    /// first).
    pub fn due_at(&self, t: Time, out: &mut Vec<StationId>) {
        out.clear();
        out.extend(self.each_due(t));
        out.sort_unstable();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Against a plain vector: the same minimum and the same stations due, after
        /// any sequence of settings.
        #[test]
        fn agrees_with_a_full_scan(n in 1usize..12, ops in proptest::collection::vec((0usize..12, prop_oneof![Just(NEVER), 0u64..5]), 0..80)) {
            let mut e = Expiries::default();
            let mut plain = vec![NEVER; n];
            for _ in 0..n {
                e.push();
            }
            let mut due = Vec::new();
            for (s, t) in ops {
                let s = s % n;
                prop_assert_eq!(e.set(s as StationId, t), plain[s]);
                plain[s] = t;
                prop_assert_eq!(e.min(), plain.iter().copied().min().unwrap());
                for probe in 0..5 {
                    e.due_at(probe, &mut due);
                    let want: Vec<StationId> = (0..n).filter(|&i| plain[i] == probe).map(|i| i as StationId).collect();
                    prop_assert_eq!(&due, &want);
                }
            }
        }
    }
}
