//! Channel access: lazily counted backoff per queue, frozen while a station senses the
//! medium busy, AIFS/EIFS after it becomes idle, and the choice of who transmits when
//! backoffs end (collisions between stations, internal collisions between queues).
//! The state these rules move lives in `access` (per queue and per station).

use crate::config::StationId;
use crate::medium::Medium;
use crate::report::Sink;
use crate::time::{Time, NEVER};

impl Medium {
    /// The access event: every station whose backoff ends now transmits.
    pub(crate) fn access<S: Sink + ?Sized>(&mut self, t: Time, sink: &mut S) {
        self.access_at = NEVER;
        self.force_scan = true;
        // Collect first: starting one transmission must not hide another that is
        // committed to the same slot.
        let mut ready = std::mem::take(&mut self.ready);
        self.expiry.due_at(t, &mut ready);
        for &s in &ready {
            self.start_access(t, s, sink);
        }
        self.ready = ready;
    }

    fn start_access<S: Sink + ?Sized>(&mut self, t: Time, s: StationId, sink: &mut S) {
        let st = &mut self.stations[s as usize];
        if st.transmitting || st.exchange.is_some() || st.responding {
            return;
        }
        // Highest-priority queue wins; the others that end in the same slot back off as
        // after a collision (internal collision), without counting a retry.
        let mut winner = None;
        for qi in (0..st.queues.len()).rev() {
            if st.queues[qi].access.expiry != t || st.queues[qi].frames.is_empty() {
                continue;
            }
            if winner.is_none() {
                winner = Some(qi);
            } else {
                let q = &mut st.queues[qi];
                q.access.grow_cw();
                q.access.draw_backoff(&mut self.mac_rng);
                q.access.expiry = NEVER;
            }
        }
        let Some(qi) = winner else { return };
        self.stations[s as usize].txop_start = t;
        self.begin_data(t, s, qi, sink);
    }

    /// A transmission reaches the station at `t`: it senses the medium busy from then
    /// on, and every backoff freezes.
    pub(crate) fn on_busy(&mut self, t: Time, s: StationId) {
        let (slot, cca) = (self.cfg.phy.slot_ns, self.cfg.phy.cca_ns);
        let st = &mut self.stations[s as usize];
        st.access.busy_at(t);
        let mut earliest = NEVER;
        for &qi in st.used.iter() {
            let has_frames = !st.queues[qi].frames.is_empty();
            let q = &mut st.queues[qi].access;
            if q.expiry != NEVER && q.expiry >= t && q.expiry - t < cca.max(1) {
                // Committed: its access begins now or before the CCA could indicate the
                // other transmission (aCCATime), so it transmits too and collides.
                q.backoff = 0;
                earliest = earliest.min(q.expiry);
                continue;
            }
            if t >= q.backoff_end(slot) {
                // The whole backoff elapsed while the medium was idle.
                q.backoff = 0;
                q.backoff_running = false;
            } else if t > q.anchor {
                q.backoff -= ((t - q.anchor) / slot) as u32;
            } else if q.backoff == 0 && !q.backoff_running && has_frames {
                // A frame waiting out AIFS for immediate access finds the medium busy:
                // it invokes the backoff procedure (IEEE 802.11-2016 §10.3.4.3), as
                // one that came while the medium was busy does (`push_frame`).
                q.draw_backoff(&mut self.mac_rng);
            }
            q.expiry = NEVER;
        }
        self.set_expiry(s, earliest);
    }

    /// When a frame given at `t` to a station that senses the medium busy goes on air
    /// anyway: the busy period began less than aCCATime before `t`, after the medium
    /// had been idle, so the station has not sensed it yet and accesses as an idle
    /// station would (at once if idle for AIFS, else at the end of AIFS, provided that
    /// still falls inside the window). None: it has sensed the medium busy.
    pub(crate) fn unsensed_access(&self, t: Time, s: StationId, qi: usize) -> Option<Time> {
        let cca = self.cfg.phy.cca_ns;
        let st = &self.stations[s as usize];
        let idle = st.access.idle_before?;
        if cca == 0 || st.access.idle_since.is_some() || t >= st.access.busy_from + cca {
            return None;
        }
        // Only carrier sense: not sending, owing an ACK or waiting for one.
        if st.transmitting || st.responding || st.bursting || st.exchange.is_some() {
            return None;
        }
        let q = &st.queues[qi].access;
        if q.backoff != 0 || q.backoff_running {
            return None;
        }
        let phy = &self.cfg.phy;
        let extra = if st.access.eifs { self.eifs_extra } else { 0 };
        let aifs = q.aifs(phy.sifs_ns, phy.slot_ns, extra);
        let at = (idle.max(st.access.nav_until) + aifs).max(t);
        (at < st.access.busy_from + cca).then_some(at)
    }

    /// The station senses the medium idle from `t` (or from the end of its NAV).
    pub(crate) fn on_idle(&mut self, t: Time, s: StationId) {
        let st = &mut self.stations[s as usize];
        st.access.idle_since = Some(t.max(st.access.nav_until));
        self.reschedule(s, t);
    }

    /// Recomputes when each queue may transmit, for an idle station at time `t`.
    pub(crate) fn reschedule(&mut self, s: StationId, t: Time) {
        let phy = &self.cfg.phy;
        let (sifs, slot) = (phy.sifs_ns, phy.slot_ns);
        let st = &mut self.stations[s as usize];
        let Some(idle) = st.access.idle_since else { return };
        let extra = if st.access.eifs { self.eifs_extra } else { 0 };
        let blocked = st.exchange.is_some() || st.busy();
        let mut earliest = NEVER;
        for &qi in st.used.iter() {
            let q = &mut st.queues[qi];
            let aifs = q.access.aifs(sifs, slot, extra);
            q.access.anchor = (idle + aifs).max(t);
            q.access.expiry =
                if blocked || q.frames.is_empty() { NEVER } else { q.access.backoff_end(slot) };
            earliest = earliest.min(q.access.expiry);
        }
        self.set_expiry(s, earliest);
    }

    /// Doubles (failure) or resets (success) a queue's contention window and draws a
    /// new backoff.
    pub(crate) fn new_backoff(&mut self, s: StationId, qi: usize, failed: bool) {
        let q = &mut self.stations[s as usize].queues[qi].access;
        if failed {
            q.grow_cw();
        } else {
            q.cw = q.params.cw_min;
        }
        q.draw_backoff(&mut self.mac_rng);
    }
}
