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

#[derive(Debug)]
struct Tried {
    key: (Mac, u64),
    retries: usize,
    last: Time,
}

/// Refused statuses waiting to be sent again, and the counts.
#[derive(Debug, Default)]
pub struct StatusRetries {
    /// Due time and message, in the order they were refused.
    pending: Vec<(Time, Vec<u8>)>,
    tried: Vec<Tried>,
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
        self.tried.retain(|r| t.saturating_sub(r.last) < FORGET_NS);
        let key = (transmitter, cookie);
        let k = match self.tried.iter().position(|r| r.key == key) {
            Some(k) => k,
            None => {
                self.tried.push(Tried { key, retries: 0, last: t });
                self.tried.len() - 1
            }
        };
        let n = self.tried[k].retries;
        if n >= DELAYS_NS.len() {
            self.tried.swap_remove(k);
            self.given_up += 1;
            return RefusedStatus::GivenUp {
                transmitter,
                cookie,
                refusals: n + 1,
                first: self.given_up == 1,
            };
        }
        self.tried[k].retries += 1;
        self.tried[k].last = t;
        self.retries += 1;
        self.pending.push((t + DELAYS_NS[n], msg.to_vec()));
        RefusedStatus::Retried { transmitter, cookie, delay_ns: DELAYS_NS[n], retry: n + 1 }
    }

    /// When the next retry is due.
    pub fn next_due(&self) -> Option<Time> {
        self.pending.iter().map(|(d, _)| *d).min()
    }

    /// Moves the retries due by `now` to `out` (all of them when `now` is None).
    pub fn take_due(&mut self, now: Option<Time>, out: &mut Vec<Output>) {
        if self.pending.is_empty() {
            return;
        }
        let mut k = 0;
        while k < self.pending.len() {
            if now.is_none_or(|t| self.pending[k].0 <= t) {
                let (due, msg) = self.pending.remove(k);
                out.push(Output::Resend { msg, due });
            } else {
                k += 1;
            }
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
        assert_eq!(r.pending.last().map(|p| p.0), Some(FORGET_NS + DELAYS_NS[0]));
    }
}
