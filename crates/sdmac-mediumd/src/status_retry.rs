//! TX statuses the kernel refused because they came too early, sent again.
//!
//! mac80211_hwsim sends a FRAME to the daemon before it puts the frame on the
//! radio's pending queue, and looks a TX_INFO_FRAME's cookie up in that queue: a
//! status that arrives between the two is refused with EINVAL (netlink answers it
//! with an `NLMSG_ERROR` carrying the whole message, as the daemon's socket does not
//! set `NETLINK_CAP_ACK`), and the frame would wait for a status for ever. Such a
//! status is sent again, byte for byte, a little later — [`DELAYS_NS`] after each
//! refusal, so the kernel thread that sends the frame gets the CPU meanwhile — and
//! given up (counted, the first one reported) after [`DELAYS_NS`]`.len()` retries.
//! Errors for other messages (a delivery to an idle radio) are not retried.

use crate::address::Mac;
use crate::medium_io::Output;
use sdmac_medium::Time;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};

/// Wait before each retry of one status (ns): the first, the second, ….
pub const DELAYS_NS: [u64; 4] = [200_000, 1_000_000, 5_000_000, 25_000_000];

/// How long the retries made for a status are remembered after its last one (ns).
const FORGET_NS: u64 = 1_000_000_000;

/// What became of a refused TX status ([`StatusRetries::refused`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RefusedStatus {
    /// It is sent again after `delay_ns` (ns); `retry` counts this status's retries
    /// from 1.
    Retried {
        /// The transmitting radio.
        transmitter: Mac,
        /// The frame's cookie.
        cookie: u64,
        /// How long until it is sent again (ns).
        delay_ns: u64,
        /// Which retry this is (1 for the first).
        retry: usize,
    },
    /// It is given up after `refusals` refusals; `first` when no status was given up
    /// before it.
    GivenUp {
        /// The transmitting radio.
        transmitter: Mac,
        /// The frame's cookie.
        cookie: u64,
        /// How many times the kernel refused it.
        refusals: usize,
        /// The first status given up.
        first: bool,
    },
}

/// The retries made for one status.
#[derive(Debug)]
struct Tried {
    retries: usize,
    last: Time,
}

/// A status waiting to be sent again; ordered by due time, then by when it was
/// refused.
#[derive(Debug)]
struct Pending {
    due: Time,
    seq: u64,
    msg: Vec<u8>,
}

impl PartialEq for Pending {
    fn eq(&self, o: &Pending) -> bool {
        (self.due, self.seq) == (o.due, o.seq)
    }
}
impl Eq for Pending {}
impl PartialOrd for Pending {
    fn partial_cmp(&self, o: &Pending) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Pending {
    fn cmp(&self, o: &Pending) -> std::cmp::Ordering {
        (self.due, self.seq).cmp(&(o.due, o.seq))
    }
}

/// Refused statuses waiting to be sent again, and the counts. Each refusal costs
/// O(log n) in the statuses waiting and O(1) in those remembered, however many
/// the kernel refuses (on a PHY of microsecond timings it can refuse nearly every
/// status once).
#[derive(Debug, Default)]
pub struct StatusRetries {
    /// The statuses to send again, earliest due first.
    pending: BinaryHeap<Reverse<Pending>>,
    /// The retries made, by transmitter and cookie.
    tried: HashMap<(Mac, u64), Tried>,
    /// When each entry of `tried` was last touched, oldest first (an entry touched
    /// again is found here more than once; only its last time counts).
    touched: VecDeque<(Time, (Mac, u64))>,
    /// Refusals so far (orders statuses due at one instant).
    seq: u64,
    /// Statuses sent again.
    pub retries: u64,
    /// Statuses given up after the last retry was refused too.
    pub given_up: u64,
}

impl StatusRetries {
    /// The kernel refused status `msg` (the whole netlink message) of `transmitter`'s
    /// frame `cookie`; seen at `t`. Schedules it again, or gives it up; says which, for
    /// the caller to report.
    pub fn refused(&mut self, t: Time, transmitter: Mac, cookie: u64, msg: &[u8]) -> RefusedStatus {
        self.forget(t);
        let key = (transmitter, cookie);
        let tried = self.tried.entry(key).or_insert(Tried { retries: 0, last: t });
        let n = tried.retries;
        if n >= DELAYS_NS.len() {
            self.tried.remove(&key);
            self.given_up += 1;
            return RefusedStatus::GivenUp {
                transmitter,
                cookie,
                refusals: n + 1,
                first: self.given_up == 1,
            };
        }
        tried.retries += 1;
        tried.last = t;
        self.touched.push_back((t, key));
        self.retries += 1;
        self.seq += 1;
        self.pending.push(Reverse(Pending {
            due: t + DELAYS_NS[n],
            seq: self.seq,
            msg: msg.to_vec(),
        }));
        RefusedStatus::Retried { transmitter, cookie, delay_ns: DELAYS_NS[n], retry: n + 1 }
    }

    /// Forgets the retries of statuses last refused [`FORGET_NS`] or more before `t`.
    fn forget(&mut self, t: Time) {
        while let Some(&(last, key)) = self.touched.front() {
            if t.saturating_sub(last) < FORGET_NS {
                break;
            }
            self.touched.pop_front();
            if self.tried.get(&key).is_some_and(|r| r.last == last) {
                self.tried.remove(&key);
            }
        }
    }

    /// When the next retry is due.
    pub fn next_due(&self) -> Option<Time> {
        self.pending.peek().map(|p| p.0.due)
    }

    /// Moves the retries due by `now` to `out` (all of them when `now` is None),
    /// earliest due first.
    pub fn take_due(&mut self, now: Option<Time>, out: &mut Vec<Output>) {
        while let Some(p) = self.pending.peek() {
            if now.is_some_and(|t| p.0.due > t) {
                break;
            }
            let Some(Reverse(Pending { due, msg, .. })) = self.pending.pop() else { break };
            out.push(Output::Resend { msg, due });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: Mac = Mac::new([0x42, 0, 0, 0, 0, 0]);

    fn resent(out: &[Output]) -> Vec<(Time, Vec<u8>)> {
        out.iter()
            .filter_map(|o| {
                if let Output::Resend { msg, due } = o {
                    Some((*due, msg.clone()))
                } else {
                    None
                }
            })
            .collect()
    }

    #[test]
    fn a_refused_status_is_sent_again_later_then_given_up() {
        let mut r = StatusRetries::default();
        let mut t = 1_000_000;
        let mut out = Vec::new();
        for (k, delay) in DELAYS_NS.iter().enumerate() {
            r.refused(t, A, 7, b"status");
            assert_eq!(r.next_due(), Some(t + delay));
            r.take_due(Some(t + delay - 1), &mut out);
            assert!(out.is_empty(), "not before its time");
            t += delay;
            r.take_due(Some(t), &mut out);
            assert_eq!(resent(&out), vec![(t, b"status".to_vec())]);
            out.clear();
            assert_eq!((r.retries, r.given_up), (k as u64 + 1, 0));
        }
        // The last retry refused too: given up, nothing more to send.
        r.refused(t, A, 7, b"status");
        assert_eq!((r.retries, r.given_up, r.next_due()), (DELAYS_NS.len() as u64, 1, None));
        // Another frame's status has its own retries.
        r.refused(t, A, 8, b"other");
        assert_eq!(r.next_due(), Some(t + DELAYS_NS[0]));
        r.take_due(None, &mut out);
        assert_eq!(resent(&out), vec![(t + DELAYS_NS[0], b"other".to_vec())]);
    }

    #[test]
    fn retries_are_forgotten_a_while_after_the_last() {
        let mut r = StatusRetries::default();
        r.refused(0, A, 7, b"s");
        r.refused(FORGET_NS, A, 7, b"s");
        // Counted from the first delay again: the kernel uses a cookie once.
        assert_eq!(r.next_due(), Some(DELAYS_NS[0]));
        assert_eq!(r.pending.iter().map(|p| p.0.due).max(), Some(FORGET_NS + DELAYS_NS[0]));
    }

    #[test]
    fn many_statuses_are_kept_apart_and_forgotten_in_time() {
        // A PHY of microsecond timings can have the kernel refuse nearly every status
        // once: thousands waiting and remembered at a time.
        let mut r = StatusRetries::default();
        for c in 0..20_000u64 {
            let t = c * 1_000;
            assert!(matches!(r.refused(t, A, c, b"s"), RefusedStatus::Retried { retry: 1, .. }));
        }
        // Each cookie's second refusal is its second retry.
        assert!(matches!(
            r.refused(20_000_000, A, 19_999, b"s"),
            RefusedStatus::Retried { retry: 2, .. }
        ));
        // Due earliest first, whatever order they were refused in.
        let mut out = Vec::new();
        r.take_due(Some(20_000_000 + DELAYS_NS[1]), &mut out);
        let due: Vec<Time> = out.iter().filter_map(Output::due).collect();
        assert_eq!(due.len(), 20_001);
        assert!(due.windows(2).all(|w| w[0] <= w[1]));
        // A second after its last refusal a cookie starts again from the first retry;
        // the others are forgotten at the same time.
        let later = 19_999_000 + FORGET_NS;
        assert!(matches!(r.refused(later, A, 0, b"s"), RefusedStatus::Retried { retry: 1, .. }));
        assert_eq!(r.tried.len(), 2, "cookie 19,999 (refused again at 20 ms) and cookie 0");
    }
}
