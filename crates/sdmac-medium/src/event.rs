//! The event queue. Events run in time order; events at the same nanosecond run in the
//! order they were scheduled (a global sequence number breaks ties), so a run is
//! deterministic for a given seed and input order.

use crate::config::StationId;
use crate::time::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// What happens at an event.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// The earliest backoff on the medium may expire now (valid if `gen` is current).
    Access {
        /// The access generation this expiry was scheduled for.
        gen: u64,
    },
    /// A transmission ends.
    TxEnd {
        /// The transmission's slot in the table of frames on air.
        slot: u32,
    },
    /// A station sends the ACK it owes (SIFS after the DATA frame).
    SendAck {
        /// The station that received the DATA frame.
        station: StationId,
        /// The DATA frame's sender.
        to: StationId,
        /// The DATA frame's handle.
        handle: u64,
        /// The DATA frame's rate (the ACK's rate follows from it).
        rate: sdmac_phy::Rate,
        /// The DATA frame's queue (for airtime accounting).
        queue: u8,
    },
    /// The next frame of a TXOP goes on air (SIFS after the last ACK).
    TxopContinue {
        /// The station holding the TXOP.
        station: StationId,
        /// Its queue.
        queue: u8,
    },
    /// A sender's ACKTimeout expires (valid if `gen` matches its exchange).
    AckTimeout {
        /// The sender waiting for the ACK.
        station: StationId,
        /// The generation of the exchange the timeout belongs to.
        gen: u32,
    },
    /// A traffic flow's next frame arrives.
    Arrival {
        /// The station the flow belongs to.
        station: StationId,
        /// The flow's index in the station's configuration.
        flow: u16,
    },
    /// Target beacon transmission time of an AP.
    Tbtt {
        /// The access point.
        station: StationId,
    },
}

#[derive(Debug)]
struct Scheduled {
    at: Time,
    seq: u64,
    event: Event,
}

impl PartialEq for Scheduled {
    fn eq(&self, other: &Self) -> bool {
        self.at == other.at && self.seq == other.seq
    }
}
impl Eq for Scheduled {}
impl PartialOrd for Scheduled {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Scheduled {
    fn cmp(&self, other: &Self) -> Ordering {
        // BinaryHeap is a max-heap: reverse for earliest first.
        (other.at, other.seq).cmp(&(self.at, self.seq))
    }
}

/// A min-queue of events ordered by (time, scheduling order).
#[derive(Debug, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Scheduled>,
    seq: u64,
}

impl EventQueue {
    /// Makes room for `n` events scheduled at once.
    pub fn reserve(&mut self, n: usize) {
        self.heap.reserve(n.saturating_sub(self.heap.len()));
    }

    /// Schedules `event` at `at`.
    pub fn push(&mut self, at: Time, event: Event) {
        self.seq += 1;
        self.heap.push(Scheduled { at, seq: self.seq, event });
    }

    /// Time of the next event.
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|s| s.at)
    }

    /// Removes the next event if it is due at or before `until`.
    pub fn pop_until(&mut self, until: Time) -> Option<(Time, Event)> {
        if self.heap.peek()?.at > until {
            return None;
        }
        self.heap.pop().map(|s| (s.at, s.event))
    }

    /// Every scheduled event (including stale ones), in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (Time, &Event)> + '_ {
        self.heap.iter().map(|s| (s.at, &s.event))
    }

    /// Number of scheduled events (including stale ones).
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Is the queue empty?
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_time_events_run_in_scheduling_order() {
        let mut q = EventQueue::default();
        q.push(10, Event::Tbtt { station: 1 });
        q.push(5, Event::Tbtt { station: 2 });
        q.push(10, Event::Tbtt { station: 3 });
        q.push(10, Event::Tbtt { station: 0 });
        let order: Vec<_> = std::iter::from_fn(|| q.pop_until(100)).collect();
        assert_eq!(
            order,
            vec![
                (5, Event::Tbtt { station: 2 }),
                (10, Event::Tbtt { station: 1 }),
                (10, Event::Tbtt { station: 3 }),
                (10, Event::Tbtt { station: 0 }),
            ]
        );
    }

    #[test]
    fn pop_until_stops_at_the_bound() {
        let mut q = EventQueue::default();
        q.push(10, Event::Access { gen: 1 });
        assert_eq!(q.pop_until(9), None);
        assert_eq!(q.peek_time(), Some(10));
        assert!(q.pop_until(10).is_some());
        assert!(q.is_empty());
    }
}
