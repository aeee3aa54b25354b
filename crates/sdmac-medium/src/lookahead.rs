//! Running ahead of the wall clock while nothing a request could do would change.
//!
//! A driver on the wall clock (the hwsim medium daemon) wakes when the medium has an
//! output. At a DATA frame's end it reports the delivery; the sender's status follows
//! at the ACK's end, SIFS + ACK later — a second wake-up, unless the daemon knows the
//! status already and has the kernel send it at its time. It may know it when no
//! request that can still come would change anything before then: when every station
//! is *blocked* — busy by carrier sense, sending, owing an ACK, waiting for one — or
//! will sense the ACK before it could send. A frame handed to a blocked station only
//! joins its queue (and draws a backoff if none is pending), and that is the same
//! whenever it happens while the station stays blocked.
//!
//! [`Medium::quiet_until`] finds the earliest time at which some station may stop
//! being blocked; [`Medium::advance_quiet`] runs the medium up to it. A request that
//! then comes with an earlier time is taken as it would have been at its own time:
//! into the queue of a blocked station (see `push_frame`). Other actions of the
//! caller (links, positions, stations added) apply at the medium's time, up to the
//! look-ahead later than their own.

use crate::event::Event;
use crate::medium::Medium;
use crate::report::Sink;
use crate::time::{Time, NEVER};

/// Steps of one run ahead at most (each to the next time some station may stop being
/// blocked).
const MAX_STEPS: usize = 8;

impl Medium {
    /// The latest time up to which the medium can run now without a request that may
    /// still come (with a time from now on) changing what happens: the earliest time
    /// at which some station may stop being blocked. `now()` when there is none
    /// (some station could send at once, or runs generated traffic).
    pub fn quiet_until(&mut self) -> Time {
        let now = self.now;
        // Without an ACK scheduled or on air (someone owes one from a DATA frame's end
        // to the ACK's end), a station that is not blocked stays free: no need to look
        // at the events.
        let acks = self.stations.iter().any(|st| st.responding);
        let free = |(s, st): (usize, &crate::station::Station)| {
            !self.detached[s]
                && (!st.cfg.flows.is_empty() || st.bursting || (!acks && st.may_access()))
        };
        if self.stations.iter().enumerate().any(free) {
            return now;
        }
        let n = self.stations.len();
        // Per station: the earliest event that changes its state (`touch`), and when
        // an ACK already scheduled makes it sense the medium busy (`busy_at`).
        let mut touch = std::mem::take(&mut self.quiet_touch);
        let mut busy_at = std::mem::take(&mut self.quiet_busy_at);
        touch.clear();
        touch.resize(n, NEVER);
        busy_at.clear();
        busy_at.resize(n, NEVER);
        let at_most = |v: &mut Vec<Time>, s: u32, t: Time| {
            if let Some(x) = v.get_mut(s as usize) {
                *x = (*x).min(t);
            }
        };
        for (at, ev) in self.events.iter() {
            match *ev {
                Event::TxEnd { slot } => {
                    at_most(&mut touch, self.air.txs[slot as usize].src, at);
                    // Its receivers at the start: the sender's links, unless they
                    // changed since (then recorded).
                    let src = self.air.txs[slot as usize].src;
                    if self.air.slot_links_gen[slot as usize] == self.links.gen {
                        for l in self.links.of(src) {
                            at_most(&mut touch, l.rx, at);
                        }
                    } else {
                        for &(j, _, _) in &self.air.slot_rx[slot as usize] {
                            at_most(&mut touch, j, at);
                        }
                    }
                }
                Event::SendAck { station, to, rate, .. } => {
                    let end = at + self.cfg.phy.ack_airtime_ns(rate);
                    at_most(&mut touch, station, end);
                    at_most(&mut touch, to, end);
                    for l in self.links.of(station) {
                        at_most(&mut touch, l.rx, end);
                        if l.cs {
                            at_most(&mut busy_at, l.rx, at);
                        }
                    }
                }
                Event::AckTimeout { station, gen } => {
                    let st = &self.stations[station as usize];
                    if st.exchange.is_some() && st.exchange_gen == gen {
                        at_most(&mut touch, station, at);
                    }
                }
                Event::TxopContinue { station, .. }
                | Event::Arrival { station, .. }
                | Event::Tbtt { station } => {
                    at_most(&mut touch, station, at);
                }
                // Whoever's backoff ends then is not blocked (below).
                Event::Access { .. } => {}
            }
        }
        let (sifs, slot, cca) = (self.cfg.phy.sifs_ns, self.cfg.phy.slot_ns, self.cfg.phy.cca_ns);
        let mut quiet = NEVER;
        for (s, st) in self.stations.iter().enumerate() {
            if self.detached[s] {
                continue;
            }
            let until = if !st.cfg.flows.is_empty() || st.bursting {
                now
            } else if !st.may_access() {
                // Blocked until something happens to it; a TXOP's next frame depends
                // on what is queued when the ACK ends.
                let txop = st
                    .exchange
                    .is_some_and(|ex| st.queues[ex.queue as usize].access.params.txop_limit_ns > 0);
                // A station that was idle until a transmission arrived less than
                // aCCATime ago has not sensed it yet: a frame given to it now goes on
                // air (`unsensed_access`), so it is not blocked.
                let unsensed = cca > 0
                    && st.access.idle_before.is_some()
                    && now < st.access.busy_from.saturating_add(cca);
                if txop || unsensed {
                    now
                } else {
                    touch[s]
                }
            } else {
                // Idle (the SIFS before an ACK): a frame given to it now could go on
                // air AIFS after the medium became idle at the earliest. If the ACK
                // makes it busy before that, the frame draws its backoff then, as it
                // would when given during the ACK: blocked from now to the ACK's end —
                // unless it is given within aCCATime of the ACK's arrival and could go
                // on air before it senses it.
                let idle = st.access.idle_since.unwrap_or(now);
                let extra = if st.access.eifs { self.eifs_extra } else { 0 };
                let aifs = st
                    .used
                    .iter()
                    .map(|&qi| st.queues[qi].access.aifs(sifs, slot, 0))
                    .min()
                    .unwrap_or(sifs + slot);
                if busy_at[s].saturating_add(cca) < idle + aifs + extra && touch[s] > busy_at[s] {
                    touch[s]
                } else {
                    now
                }
            };
            quiet = quiet.min(until);
        }
        self.quiet_touch = touch;
        self.quiet_busy_at = busy_at;
        if quiet == NEVER {
            now
        } else {
            quiet.max(now)
        }
    }

    /// Runs the medium up to [`quiet_until`](Self::quiet_until), or `limit` if that is
    /// earlier (reporting to `sink` what happens meanwhile), and on from there while
    /// every station stays blocked; returns the time reached. Requests then given with a time
    /// from the old `now()` on are taken as at their own time (see the module's
    /// documentation). Does nothing while the medium is still ahead of the caller (no
    /// `advance` to the time reached since the last call).
    pub fn advance_quiet<S: Sink + ?Sized>(&mut self, limit: Time, sink: &mut S) -> Time {
        if self.ahead_from.is_some() {
            return self.now;
        }
        let from = self.now;
        for (ok, &away) in self.late_ok.iter_mut().zip(&self.detached) {
            *ok = !away;
        }
        // Again from there while that gets further (an ACKTimeout that finds the ACK
        // on its way ends one step; a station added meanwhile is not in `late_ok`).
        for _ in 0..MAX_STEPS {
            let until = self.quiet_until().min(limit);
            if until <= self.now {
                break;
            }
            self.advance(until, sink);
            self.ahead_from = Some(from);
        }
        self.now
    }

    /// Whether a request for `station` at `at` is taken as at its own time though the
    /// medium has run past it (it ran ahead from at most `at`).
    pub(crate) fn is_late(&self, station: u32, at: Time) -> bool {
        self.ahead_from.is_some_and(|from| at >= from && at < self.now)
            && self.late_ok.get(station as usize).copied().unwrap_or(false)
    }
}
