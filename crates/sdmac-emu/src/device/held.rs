//! Requests the device holds before they reach the medium: those delayed by the
//! device profile's request latency (released in arrival order) and timed ones
//! (`not_before`, released at their time).

use crate::channel::DataMsg;
use std::collections::VecDeque;

/// One held request: its release time (`CLOCK_MONOTONIC` ns), its interface, itself.
pub(crate) type Held = (u64, usize, DataMsg);

/// The requests held by the device.
#[derive(Debug, Default)]
pub(crate) struct HeldRequests {
    /// Delayed by the request latency: release times never decrease, so that a later
    /// request never overtakes an earlier one of the same path.
    delayed: VecDeque<Held>,
    /// Timed: sorted by release time, then by interface (so that requests of several
    /// interfaces due at one instant reach the medium in the same order whatever
    /// order their threads queued them in), then in arrival order.
    timed: Vec<Held>,
    /// On the virtual clock: taken at the current instant and not yet handed to the
    /// medium, until every application waits (then in interface order).
    staged: Vec<Held>,
}

impl HeldRequests {
    /// Holds a request for the request latency: released at `at`, or after the last
    /// request held so, whichever is later.
    pub fn push_delayed(&mut self, at: u64, i: usize, m: DataMsg) {
        let at = at.max(self.delayed.back().map_or(0, |h| h.0));
        self.delayed.push_back((at, i, m));
    }

    /// Holds a timed request of interface `i` until `at`.
    pub fn push_timed(&mut self, at: u64, i: usize, m: DataMsg) {
        let k = self.timed.partition_point(|h| (h.0, h.1) <= (at, i));
        self.timed.insert(k, (at, i, m));
    }

    /// Stages a request of interface `i` taken at virtual time `at`.
    pub fn push_staged(&mut self, at: u64, i: usize, m: DataMsg) {
        self.staged.push((at, i, m));
    }

    /// Whether a request is staged.
    pub fn any_staged(&self) -> bool {
        !self.staged.is_empty()
    }

    /// Takes the staged requests out: by interface, then in each one's order.
    pub fn take_staged(&mut self) -> Vec<Held> {
        let mut v = std::mem::take(&mut self.staged);
        v.sort_by_key(|h| h.1);
        v
    }

    /// Whether no request is held for the request latency (a new one may then skip it
    /// when its latency is zero).
    pub fn no_delayed(&self) -> bool {
        self.delayed.is_empty()
    }

    /// The earliest release time.
    pub fn next_time(&self) -> Option<u64> {
        match (self.delayed.front(), self.timed.first()) {
            (Some(d), Some(t)) => Some(d.0.min(t.0)),
            (d, t) => d.or(t).map(|h| h.0),
        }
    }

    /// Takes the earliest request due by `upto` (a delayed one first among equal times).
    pub fn pop_due(&mut self, upto: u64) -> Option<Held> {
        let d = self.delayed.front().map(|h| h.0).filter(|&t| t <= upto);
        let t = self.timed.first().map(|h| h.0).filter(|&t| t <= upto);
        match (d, t) {
            (Some(a), Some(b)) if b < a => Some(self.timed.remove(0)),
            (Some(_), _) => self.delayed.pop_front(),
            (None, Some(_)) => Some(self.timed.remove(0)),
            (None, None) => None,
        }
    }

    /// The held request `id` of interface `i`.
    pub fn find(&self, i: usize, id: u64) -> Option<&DataMsg> {
        self.delayed
            .iter()
            .chain(self.timed.iter())
            .chain(self.staged.iter())
            .find(|h| h.1 == i && h.2.id == id)
            .map(|h| &h.2)
    }

    /// The held request `id` of interface `i`, to change.
    pub fn find_mut(&mut self, i: usize, id: u64) -> Option<&mut DataMsg> {
        self.delayed
            .iter_mut()
            .chain(self.timed.iter_mut())
            .chain(self.staged.iter_mut())
            .find(|h| h.1 == i && h.2.id == id)
            .map(|h| &mut h.2)
    }

    /// Takes the held request `id` of interface `i` out.
    pub fn remove(&mut self, i: usize, id: u64) -> Option<DataMsg> {
        if let Some(k) = self.delayed.iter().position(|h| h.1 == i && h.2.id == id) {
            return self.delayed.remove(k).map(|h| h.2);
        }
        if let Some(k) = self.staged.iter().position(|h| h.1 == i && h.2.id == id) {
            return Some(self.staged.remove(k).2);
        }
        let k = self.timed.iter().position(|h| h.1 == i && h.2.id == id)?;
        Some(self.timed.remove(k).2)
    }

    /// Takes every held request out, earliest first.
    pub fn take_all(&mut self) -> Option<Held> {
        if !self.staged.is_empty() {
            return Some(self.staged.remove(0));
        }
        self.pop_due(u64::MAX)
    }
}
