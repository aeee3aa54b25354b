//! When each station may next transmit (its earliest queue expiry), with the stations
//! whose expiry is set kept apart: finding the earliest, or who is due at a time, costs
//! the number of stations with a frame waiting, not the number on the medium (a daemon's
//! channel holds a station for every radio, most of them away or silent).

use crate::config::StationId;
use crate::time::{Time, NEVER};

/// Every station's expiry, NEVER when it has nothing to send or cannot access.
#[derive(Clone, Debug, Default)]
pub(crate) struct Expiries {
    at: Vec<Time>,
    /// Stations whose expiry is not NEVER, in no particular order, and possibly some
    /// whose expiry became NEVER since: those leave at the next `min` (a busy edge
    /// sets every station's expiry to NEVER, so removing them one by one there would
    /// cost as much as the scan that `min` makes anyway).
    set: Vec<StationId>,
    /// Per station: it is in `set`.
    in_set: Vec<bool>,
}

impl Expiries {
    /// Adds a station (the next id), with no expiry.
    pub fn push(&mut self) {
        self.at.push(NEVER);
        self.in_set.push(false);
    }

    /// Sets station `s`'s expiry to `t`; returns the one it replaces.
    pub fn set(&mut self, s: StationId, t: Time) -> Time {
        let i = s as usize;
        let old = std::mem::replace(&mut self.at[i], t);
        if t != NEVER && !self.in_set[i] {
            self.in_set[i] = true;
            self.set.push(s);
        }
        old
    }

    /// The expiry of station `s`.
    pub fn get(&self, s: StationId) -> Time {
        self.at[s as usize]
    }

    /// The earliest expiry, NEVER if none is set (and drops the stations whose expiry
    /// is NEVER from the set).
    pub fn min(&mut self) -> Time {
        let (at, in_set) = (&self.at, &mut self.in_set);
        let mut best = NEVER;
        self.set.retain(|&s| {
            let a = at[s as usize];
            if a == NEVER {
                in_set[s as usize] = false;
                return false;
            }
            best = best.min(a);
            true
        });
        best
    }

    /// The stations whose expiry is `t` (not NEVER), in no particular order.
    pub fn each_due(&self, t: Time) -> impl Iterator<Item = StationId> + '_ {
        self.set.iter().copied().filter(move |&s| t != NEVER && self.at[s as usize] == t)
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
        /// any sequence of settings, whether or not `min` ran in between (it drops the
        /// stations set to NEVER).
        #[test]
        fn agrees_with_a_full_scan(n in 1usize..12, ops in proptest::collection::vec((0usize..12, prop_oneof![Just(NEVER), 0u64..5], any::<bool>()), 0..80)) {
            let mut e = Expiries::default();
            let mut plain = vec![NEVER; n];
            for _ in 0..n {
                e.push();
            }
            let mut due = Vec::new();
            for (s, t, scan) in ops {
                let s = s % n;
                prop_assert_eq!(e.set(s as StationId, t), plain[s]);
                plain[s] = t;
                if scan {
                    prop_assert_eq!(e.min(), plain.iter().copied().min().unwrap());
                }
                prop_assert_eq!(e.each_due(NEVER).count(), 0);
                for probe in 0..5 {
                    e.due_at(probe, &mut due);
                    let want: Vec<StationId> = (0..n).filter(|&i| plain[i] == probe).map(|i| i as StationId).collect();
                    prop_assert_eq!(&due, &want);
                }
            }
        }
    }
}
