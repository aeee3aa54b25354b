//! Matching TX-status echoes to requests: a pure state machine (time is passed in;
//! nothing here reads a clock or touches a socket).
//!
//! A request is keyed by the frame's receiver address and sequence control, the two
//! things its echo carries back unchanged. An echo either confirms the request
//! (acked, sent, or not acked after the last entry of its rate series) or, when it
//! failed with entries of the series left, asks for the frame to be sent again at
//! the next entry's rate ([`EchoOutcome::Resend`]). A request whose echo has not come
//! by its deadline is confirmed `NoReport`; an echo that comes after that is counted
//! as late and ignored. Every submitted request is confirmed exactly once.
//!
//! An echo's stamp (t7) is carried from another clock, so it can come out a little
//! before the (re)send it echoes or after the echo was read; such a stamp is clamped
//! to that span and counted ([`Counters::clamped_stamps`]): a confirmation's t7 never
//! precedes the send of the frame it reports, nor follows its t8.

use sdmac_api::{Ac, Confirmation, DropReason, MacAddress, RateSeries, Status, Time, Timestamps};
use sdmac_phy::Rate;
use std::collections::{HashMap, HashSet, VecDeque};

/// How many keys of timed-out requests are remembered to recognise late echoes.
const LATE_MEMORY: usize = 4096;

/// What identifies a frame and its echo.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Key {
    /// Receiver address (address 1).
    pub addr1: MacAddress,
    /// Sequence control (sequence number << 4 | fragment number).
    pub seq_ctrl: u16,
}

/// One accepted request.
#[derive(Copy, Clone, Debug)]
pub struct Request {
    /// The caller's id.
    pub id: u64,
    /// Its access category.
    pub ac: Ac,
    /// No ACK expected: asked for, or a group address.
    pub no_ack: bool,
    /// The rate series; None: the driver's rate control.
    pub rates: Option<RateSeries>,
    /// MPDU length on air with FCS.
    pub len: u32,
    /// Timestamps so far (t1..t4); all 0 when none were asked for.
    pub ts: Timestamps,
    /// Record timestamps.
    pub want_ts: bool,
}

/// What an echo says.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Echo {
    /// F_TX_FAIL: a unicast frame was not acknowledged.
    pub failed: bool,
    /// Attempts made (DATA_RETRIES + 1).
    pub attempts: u8,
    /// The rate the echo names, if it names one this crate knows.
    pub rate: Option<Rate>,
    /// When the echo reached the socket (ns, CLOCK_MONOTONIC; 0 unknown). It
    /// follows the last (re)send of its frame and precedes the `now` it is given
    /// with; a stamp outside that span is clamped into it.
    pub t_echo: u64,
}

/// What to do with an echo.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum EchoOutcome {
    /// The request is done.
    Confirmed(Confirmation),
    /// Send the frame again at `rate` with `tries` tries (entry `entry` of its series).
    Resend {
        /// The request's id.
        id: u64,
        /// Entry of the series.
        entry: usize,
        /// Its rate.
        rate: Rate,
        /// Its tries.
        tries: u8,
    },
    /// The echo of a request already confirmed `NoReport`: ignored.
    Late,
    /// No request of ours has this key.
    Unknown,
}

#[derive(Clone, Debug)]
struct Pending {
    req: Request,
    entry: usize,
    used: [(Rate, u8); 4],
    n_used: u8,
    attempts: u8,
    deadline: u64,
    /// When the frame was last (re)sent, or just before: its echo cannot be earlier.
    sent: u64,
}

/// Counters of the matcher.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Requests confirmed (any status).
    pub confirmed: u64,
    /// Confirmed `NoReport`.
    pub no_report: u64,
    /// Echoes that came after their request's `NoReport`.
    pub late_echoes: u64,
    /// Echoes of no request of ours.
    pub unknown_echoes: u64,
    /// Frames sent again at the next entry of a series.
    pub resends: u64,
    /// Echo stamps that came out before their frame's (re)send or after the echo
    /// was read (the clock carry was off) and were clamped to that span.
    pub clamped_stamps: u64,
}

/// The state machine.
#[derive(Debug)]
pub struct Matcher {
    pending: HashMap<Key, Pending>,
    ids: HashMap<u64, Key>,
    per_ac: [usize; 4],
    late: HashSet<Key>,
    late_order: VecDeque<Key>,
    timeout_ns: u64,
    counters: Counters,
}

impl Matcher {
    /// A matcher confirming unreported frames `timeout_ns` after each (re)send.
    pub fn new(timeout_ns: u64) -> Matcher {
        Matcher {
            pending: HashMap::new(),
            ids: HashMap::new(),
            per_ac: [0; 4],
            late: HashSet::new(),
            late_order: VecDeque::new(),
            timeout_ns,
            counters: Counters::default(),
        }
    }

    /// Requests waiting for their echo.
    pub fn len(&self) -> usize {
        self.pending.len()
    }

    /// True when nothing waits.
    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    /// Requests waiting on `ac`.
    pub fn len_ac(&self, ac: Ac) -> usize {
        self.per_ac[ac as usize]
    }

    /// Is this key in use by a waiting request?
    pub fn has_key(&self, key: &Key) -> bool {
        self.pending.contains_key(key)
    }

    /// Is a request with this id waiting?
    pub fn has_id(&self, id: u64) -> bool {
        self.ids.contains_key(&id)
    }

    /// The counters.
    pub fn counters(&self) -> Counters {
        self.counters
    }

    /// The rate and tries of the first entry of a request's series (what to send it
    /// with first); None for the driver's choice.
    pub fn first_entry(req: &Request) -> Option<(Rate, u8)> {
        req.rates.map(|r| r.entries()[0])
    }

    /// Takes a request whose frame (with key `key`) is being sent at `now` (read
    /// before the frame goes to the kernel: its echo cannot be earlier). A
    /// request with the id of one still waiting is confirmed at once as
    /// `Dropped(DuplicateId)` (returned); so is one whose key is in use
    /// (`Dropped(Refused)`), which the caller avoids by numbering frames.
    pub fn submit(&mut self, now: u64, key: Key, req: Request) -> Option<Confirmation> {
        if self.ids.contains_key(&req.id) {
            return Some(self.immediate(now, &req, DropReason::DuplicateId));
        }
        if self.pending.contains_key(&key) {
            return Some(self.immediate(now, &req, DropReason::Refused));
        }
        self.late.remove(&key);
        self.ids.insert(req.id, key);
        self.per_ac[req.ac as usize] += 1;
        let first = Matcher::first_entry(&req).map_or(Rate::Ofdm6, |e| e.0);
        let p = Pending {
            req,
            entry: 0,
            used: [(first, 0); 4],
            n_used: 0,
            attempts: 0,
            deadline: now.saturating_add(self.timeout_ns),
            sent: now,
        };
        self.pending.insert(key, p);
        None
    }

    /// Records t4 (the frame is with the kernel) of a waiting request.
    pub fn set_t4(&mut self, key: &Key, t4: u64) {
        if let Some(p) = self.pending.get_mut(key) {
            if p.req.want_ts {
                p.req.ts.t4 = Time::from_ns(t4);
            }
        }
    }

    /// Forgets a request whose frame could not be handed to the kernel (the caller
    /// reports the error instead of a confirmation).
    pub fn withdraw(&mut self, key: &Key) -> Option<Request> {
        let p = self.pending.remove(key)?;
        self.ids.remove(&p.req.id);
        self.per_ac[p.req.ac as usize] -= 1;
        Some(p.req)
    }

    fn immediate(&mut self, now: u64, req: &Request, why: DropReason) -> Confirmation {
        self.counters.confirmed += 1;
        let mut ts = req.ts;
        if req.want_ts {
            ts.t8 = Time::from_ns(now);
        }
        Confirmation {
            id: req.id,
            status: Status::Dropped(why),
            ac: req.ac,
            attempts: 0,
            rates: [(Rate::Ofdm6, 0); 4],
            n_rates: 0,
            len: req.len,
            truth: None,
            ts,
        }
    }

    fn finish(&mut self, now: u64, key: Key, status: Status, t7: u64) -> Confirmation {
        let p = self.pending.remove(&key).expect("finish of a waiting request");
        self.ids.remove(&p.req.id);
        self.per_ac[p.req.ac as usize] -= 1;
        self.counters.confirmed += 1;
        let mut ts = p.req.ts;
        if p.req.want_ts {
            ts.t7 = Time::from_ns(t7);
            ts.t8 = Time::from_ns(now);
        }
        Confirmation {
            id: p.req.id,
            status,
            ac: p.req.ac,
            attempts: p.attempts,
            rates: p.used,
            n_rates: p.n_used,
            len: p.req.len,
            truth: None,
            ts,
        }
    }

    /// An echo with key `key` was read at `now` (after the echo's stamp was taken).
    /// A resend it asks for is made after `now`.
    pub fn on_echo(&mut self, now: u64, key: Key, echo: Echo) -> EchoOutcome {
        let Some(p) = self.pending.get_mut(&key) else {
            if self.late.remove(&key) {
                self.counters.late_echoes += 1;
                return EchoOutcome::Late;
            }
            self.counters.unknown_echoes += 1;
            return EchoOutcome::Unknown;
        };
        let asked = p.req.rates.map(|r| r.entries()[p.entry]);
        let rate = echo.rate.or(asked.map(|e| e.0)).unwrap_or(Rate::Ofdm6);
        let n = echo.attempts.max(1);
        if (p.n_used as usize) < 4 {
            p.used[p.n_used as usize] = (rate, n);
            p.n_used += 1;
        }
        p.attempts = p.attempts.saturating_add(n);
        let status = if p.req.no_ack {
            Status::Sent
        } else if !echo.failed {
            Status::Acked
        } else if let Some(next) = p.req.rates.and_then(|r| r.entries().get(p.entry + 1).copied()) {
            p.entry += 1;
            p.deadline = now.saturating_add(self.timeout_ns);
            p.sent = now;
            self.counters.resends += 1;
            return EchoOutcome::Resend {
                id: p.req.id,
                entry: p.entry,
                rate: next.0,
                tries: next.1,
            };
        } else {
            Status::AckTimeout
        };
        let mut t7 = echo.t_echo;
        if t7 != 0 && !(p.sent..=now).contains(&t7) {
            t7 = t7.clamp(p.sent, now.max(p.sent));
            self.counters.clamped_stamps += 1;
        }
        EchoOutcome::Confirmed(self.finish(now, key, status, t7))
    }

    /// The earliest deadline of a waiting request.
    pub fn next_deadline(&self) -> Option<u64> {
        self.pending.values().map(|p| p.deadline).min()
    }

    /// Confirms `NoReport` every request whose deadline has passed at `now`.
    pub fn expire(&mut self, now: u64, out: &mut Vec<Confirmation>) {
        let due: Vec<Key> =
            self.pending.iter().filter(|(_, p)| p.deadline <= now).map(|(k, _)| *k).collect();
        for key in due {
            self.counters.no_report += 1;
            out.push(self.finish(now, key, Status::NoReport, 0));
            if self.late.insert(key) {
                self.late_order.push_back(key);
            }
            while self.late_order.len() > LATE_MEMORY {
                if let Some(k) = self.late_order.pop_front() {
                    self.late.remove(&k);
                }
            }
        }
    }

    /// The interface is gone: confirms every waiting request `Dropped(Closed)`.
    pub fn close(&mut self, now: u64, out: &mut Vec<Confirmation>) {
        let keys: Vec<Key> = self.pending.keys().copied().collect();
        for key in keys {
            out.push(self.finish(now, key, Status::Dropped(DropReason::Closed), 0));
        }
    }
}

#[cfg(test)]
mod tests;
