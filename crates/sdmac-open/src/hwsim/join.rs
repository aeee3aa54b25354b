//! Joining the linux backend's confirmations with the medium daemon's truth records:
//! a pure state machine (time is passed in; nothing here reads a clock or touches a
//! socket), like `sdmac_linux::matcher`.
//!
//! A frame is known on both sides by its receiver address and sequence control (the
//! transmitter is the backend's own address, which the truth subscription already
//! filters on). A confirmation waits for as many records as frames its request sent
//! (one per entry of its rate series that was tried); whichever comes first, record
//! or confirmation, waits for the other. A confirmation whose records have not all
//! come within the wait bound goes out without truth, and is counted. Once the
//! daemon is gone, nothing waits. Every confirmation given to [`Joiner::confirm`]
//! comes out of [`Joiner::pop`] exactly once.

use sdmac_api::{Cause, Confirmation, MacAddress, Outcome, Status, Time, Timestamps, Truth};
use std::collections::{HashMap, VecDeque};

/// Most records kept while no confirmation claims them (older ones are dropped).
pub const EARLY_CAPACITY: usize = 4096;

/// What identifies a frame in a confirmation and in a truth record.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct FrameKey {
    /// Receiver address (address 1).
    pub ra: MacAddress,
    /// Sequence control, fragment number included (the Retry bit is not in it).
    pub seq_ctrl: u16,
}

/// One truth record, reduced to what a confirmation takes from it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// The frame.
    pub key: FrameKey,
    /// How it ended on the medium.
    pub outcome: Outcome,
    /// Why its last attempt failed.
    pub cause: Cause,
    /// The destination received the DATA frame in some attempt.
    pub delivered: bool,
    /// Attempts the daemon made for this frame.
    pub attempts: u32,
    /// Start on air of its first attempt (CLOCK_MONOTONIC; zero when never sent).
    pub t_start: Time,
    /// When its outcome was known on the medium.
    pub t_end: Time,
}

/// Counters of the joiner.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct JoinCounters {
    /// Confirmations that went out with the medium's truth.
    pub joined: u64,
    /// Confirmations whose records had not all come within the wait bound.
    pub missing: u64,
    /// Confirmations that went out without truth because the daemon was gone.
    pub unavailable: u64,
    /// Confirmations of frames that never went to the medium (dropped, no report):
    /// no record to wait for.
    pub not_sent: u64,
    /// Records no confirmation claimed in time (dropped).
    pub stray_records: u64,
    /// Records taken.
    pub records: u64,
}

#[derive(Debug)]
struct Held {
    conf: Confirmation,
    need: u32,
    got: Vec<Record>,
    deadline: u64,
}

/// The state machine.
#[derive(Debug)]
pub struct Joiner {
    wait_ns: u64,
    keep_ns: u64,
    available: bool,
    held: HashMap<FrameKey, Held>,
    early: HashMap<FrameKey, VecDeque<(u64, u64, Record)>>,
    early_order: VecDeque<(u64, FrameKey)>,
    early_len: usize,
    serial: u64,
    ready: VecDeque<Confirmation>,
    counters: JoinCounters,
}

impl Joiner {
    /// A joiner that waits at most `wait_ns` for a confirmation's records, and keeps
    /// an unclaimed record for `4 × wait_ns` (at least one second).
    pub fn new(wait_ns: u64) -> Joiner {
        Joiner {
            wait_ns,
            keep_ns: wait_ns.saturating_mul(4).max(1_000_000_000),
            available: true,
            held: HashMap::new(),
            early: HashMap::new(),
            early_order: VecDeque::new(),
            early_len: 0,
            serial: 0,
            ready: VecDeque::new(),
            counters: JoinCounters::default(),
        }
    }

    /// The counters.
    pub fn counters(&self) -> JoinCounters {
        self.counters
    }

    /// Is the daemon's truth still coming?
    pub fn available(&self) -> bool {
        self.available
    }

    /// Confirmations waiting for their records.
    pub fn held(&self) -> usize {
        self.held.len()
    }

    /// Confirmations ready to be read.
    pub fn ready(&self) -> usize {
        self.ready.len()
    }

    /// The next confirmation ready to be read.
    pub fn pop(&mut self) -> Option<Confirmation> {
        self.ready.pop_front()
    }

    /// The earliest time a held confirmation gives up waiting.
    pub fn next_deadline(&self) -> Option<u64> {
        self.held.values().map(|h| h.deadline).min()
    }

    /// How many records a confirmation waits for: one per frame its request sent
    /// (entries of the series tried), none when it never reached the medium.
    fn records_needed(c: &Confirmation) -> u32 {
        match c.status {
            Status::Acked | Status::AckTimeout | Status::Sent => c.n_rates.max(1) as u32,
            Status::NoReport | Status::Dropped(_) => 0,
        }
    }

    /// A confirmation from the linux backend at `now`; `key` is its frame's (None
    /// when no frame was sent).
    pub fn confirm(&mut self, now: u64, conf: Confirmation, key: Option<FrameKey>) {
        let need = Joiner::records_needed(&conf);
        let Some(key) = key.filter(|_| need > 0) else {
            self.counters.not_sent += 1;
            self.ready.push_back(conf);
            return;
        };
        if !self.available {
            self.counters.unavailable += 1;
            self.ready.push_back(conf);
            return;
        }
        if let Some(old) = self.held.remove(&key) {
            // The same frame key again before the first got its records: the first
            // goes out without truth rather than take the second's.
            self.counters.missing += 1;
            self.ready.push_back(old.conf);
        }
        let mut got = Vec::new();
        if let Some(q) = self.early.get_mut(&key) {
            while got.len() < need as usize {
                let Some((_, _, r)) = q.pop_front() else { break };
                got.push(r);
                self.early_len -= 1;
            }
            if q.is_empty() {
                self.early.remove(&key);
            }
        }
        let held = Held { conf, need, got, deadline: now.saturating_add(self.wait_ns) };
        if held.got.len() >= need as usize {
            self.finish(held);
        } else {
            self.held.insert(key, held);
        }
    }

    /// A truth record from the daemon at `now`.
    pub fn record(&mut self, now: u64, rec: Record) {
        self.counters.records += 1;
        if let Some(h) = self.held.get_mut(&rec.key) {
            h.got.push(rec);
            if h.got.len() >= h.need as usize {
                let h = self.held.remove(&rec.key).expect("held");
                self.finish(h);
            }
            return;
        }
        self.serial += 1;
        self.early.entry(rec.key).or_default().push_back((self.serial, now, rec));
        self.early_order.push_back((self.serial, rec.key));
        self.early_len += 1;
        while self.early_len > EARLY_CAPACITY {
            self.drop_oldest_early();
        }
    }

    /// Drops the oldest unclaimed record (entries already claimed are skipped).
    fn drop_oldest_early(&mut self) -> Option<u64> {
        while let Some((serial, key)) = self.early_order.pop_front() {
            let Some(q) = self.early.get_mut(&key) else { continue };
            if q.front().map(|e| e.0) != Some(serial) {
                continue;
            }
            let (_, t, _) = q.pop_front().expect("front");
            if q.is_empty() {
                self.early.remove(&key);
            }
            self.early_len -= 1;
            self.counters.stray_records += 1;
            return Some(t);
        }
        None
    }

    /// Lets every held confirmation whose bound has passed at `now` go without
    /// truth, and drops records nobody claimed for too long.
    pub fn expire(&mut self, now: u64) {
        let due: Vec<FrameKey> =
            self.held.iter().filter(|(_, h)| h.deadline <= now).map(|(k, _)| *k).collect();
        for k in due {
            let h = self.held.remove(&k).expect("held");
            self.counters.missing += 1;
            self.ready.push_back(h.conf);
        }
        loop {
            let oldest = self.early_order.iter().find_map(|(s, k)| {
                let q = self.early.get(k)?;
                q.front().filter(|e| e.0 == *s).map(|e| e.1)
            });
            match oldest {
                Some(t) if now.saturating_sub(t) >= self.keep_ns => {
                    self.drop_oldest_early();
                }
                _ => break,
            }
        }
    }

    /// The daemon is gone: every held confirmation goes out without truth, and
    /// later ones do not wait.
    pub fn unavailable(&mut self) {
        self.available = false;
        self.release_all(true);
        self.early.clear();
        self.early_order.clear();
        self.early_len = 0;
    }

    /// Every held confirmation goes out now without truth (the backend closed).
    pub fn release_all(&mut self, daemon_gone: bool) {
        let mut keys: Vec<(u64, FrameKey)> =
            self.held.iter().map(|(k, h)| (h.conf.id, *k)).collect();
        keys.sort_unstable_by_key(|e| e.0);
        for (_, k) in keys {
            let h = self.held.remove(&k).expect("held");
            if daemon_gone {
                self.counters.unavailable += 1;
            } else {
                self.counters.missing += 1;
            }
            self.ready.push_back(h.conf);
        }
    }

    fn finish(&mut self, h: Held) {
        let mut c = h.conf;
        let (first, last) = (h.got[0], h.got[h.got.len() - 1]);
        c.truth = Some(Truth {
            outcome: last.outcome,
            cause: last.cause,
            delivered: h.got.iter().any(|r| r.delivered),
            collisions: h.got.iter().filter(|r| r.cause == Cause::Collision).count().min(255) as u8,
        });
        if c.ts != Timestamps::default() {
            c.ts.t_start = first.t_start;
            if last.attempts == 1 {
                c.ts.t_last_start = last.t_start;
            }
            c.ts.t5 = last.t_end;
        }
        self.counters.joined += 1;
        self.ready.push_back(c);
    }
}

#[cfg(test)]
#[path = "join_tests.rs"]
mod tests;
