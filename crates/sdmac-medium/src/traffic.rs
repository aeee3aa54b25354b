//! Frames entering the queues: a frame put in a queue (and the channel access it
//! starts), the arrivals of each traffic flow (constant bit rate, Poisson, saturated)
//! and the beacons a station queues at each target beacon transmission time.

use crate::config::{Dest, RateSeries, StationId, TrafficPattern};
use crate::event::Event;
use crate::medium::{queue_ac, Medium};
use crate::report::{Cause, FrameKind, Sink};
use crate::request::EnqueueError;
use crate::station::{Queued, BEACON_QUEUE};
use crate::time::Time;

impl Medium {
    /// Puts a frame in a queue, scheduling access if the queue was empty. A `late`
    /// frame came earlier, while the station was blocked (`lookahead`): it is taken as
    /// it was then, and may go on air as the station's state now allows.
    pub(crate) fn push_frame(
        &mut self,
        t: Time,
        station: StationId,
        qi: usize,
        f: Queued,
        late: bool,
    ) -> Result<(), EnqueueError> {
        let limit = self.stations[station as usize].cfg.queue_limit;
        let slot_ns = self.cfg.phy.slot_ns;
        let st = &mut self.stations[station as usize];
        let may_access = st.may_access();
        let can_access = may_access && !late;
        let q = &mut st.queues[qi];
        if q.frames.len() >= limit && qi != BEACON_QUEUE {
            return Err(EnqueueError::QueueFull { station, ac: queue_ac(qi), limit });
        }
        q.frames.push_back(f);
        let first = q.frames.len() == 1;
        if qi != BEACON_QUEUE {
            self.count_backlog(t, true);
        }
        let unsensed =
            if first && !late && !can_access { self.unsensed_access(t, station, qi) } else { None };
        let st = &mut self.stations[station as usize];
        let q = &mut st.queues[qi];
        if first {
            if late {
                if q.access.backoff == 0 && !q.access.backoff_running {
                    q.access.draw_backoff(&mut self.mac_rng);
                }
                if may_access {
                    // It became idle since: its AIFS counts from then (`reschedule`).
                    q.access.expiry = q.access.backoff_end(slot_ns);
                    self.mark_dirty(station);
                }
            } else if can_access {
                q.access.expiry = (q.access.backoff_end(slot_ns)).max(t);
                self.mark_dirty(station);
            } else if let Some(at) = unsensed {
                // The busy medium began too recently to be sensed (aCCATime): the
                // frame goes on air as on an idle medium, into the other transmission.
                q.access.anchor = at;
                q.access.expiry = at;
                self.mark_dirty(station);
            } else if q.access.backoff == 0 && !q.access.backoff_running {
                // A frame that finds the medium busy with no backoff pending invokes
                // the backoff procedure (IEEE 802.11-2016 §10.3.4.3); otherwise every
                // station whose frame arrived during a busy period would transmit
                // DIFS after it, all in the same slot.
                q.access.draw_backoff(&mut self.mac_rng);
            }
        }
        Ok(())
    }

    pub(crate) fn arrival<S: Sink + ?Sized>(
        &mut self,
        t: Time,
        station: StationId,
        flow: u16,
        sink: &mut S,
    ) {
        let f = self.stations[station as usize].cfg.flows[flow as usize];
        match f.pattern {
            TrafficPattern::Saturated => {
                self.refill(t, station, flow, sink);
                return;
            }
            TrafficPattern::ConstantBitRate { interval_ns } => {
                let next = t + interval_ns.max(1);
                if next < f.stop_ns {
                    self.events.push(next, Event::Arrival { station, flow });
                }
            }
            TrafficPattern::Poisson { mean_interval_ns } => {
                let gap = self.traffic_rng.exponential(mean_interval_ns as f64).round() as Time;
                let next = t + gap.max(1);
                if next < f.stop_ns {
                    self.events.push(next, Event::Arrival { station, flow });
                }
            }
        }
        self.generate(t, station, flow, sink);
    }

    /// Keeps a saturated flow's queue non-empty.
    pub(crate) fn refill<S: Sink + ?Sized>(
        &mut self,
        t: Time,
        station: StationId,
        flow: u16,
        sink: &mut S,
    ) {
        let f = self.stations[station as usize].cfg.flows[flow as usize];
        if f.pattern != TrafficPattern::Saturated || t < f.start_ns || t >= f.stop_ns {
            return;
        }
        let st = &self.stations[station as usize];
        let qi = self.queue_index(st, f.ac);
        let pending = st.queues[qi].frames.iter().filter(|q| q.flow == Some(flow)).count();
        if pending == 0 {
            self.generate(t, station, flow, sink);
        }
    }

    fn generate<S: Sink + ?Sized>(&mut self, t: Time, station: StationId, flow: u16, sink: &mut S) {
        let st = &self.stations[station as usize];
        let f = st.cfg.flows[flow as usize];
        let rates = f.rates.unwrap_or(st.cfg.default_rates);
        let handle = self.next_handle;
        self.next_handle += 1;
        let qi = self.queue_index(st, f.ac);
        let q = Queued {
            handle,
            dst: f.dst,
            len: f.mpdu_len,
            rates,
            no_ack: f.dst == Dest::Broadcast,
            t_queued: t,
            kind: FrameKind::Data,
            flow: Some(flow),
        };
        let pushed = self.push_frame(t, station, qi, q, false);
        let st = &mut self.stations[station as usize];
        st.stats.tx_requests += 1;
        if pushed.is_err() {
            st.stats.tx_dropped += 1;
            self.stats.dropped[queue_ac(qi) as usize] += 1;
            let r = rates.entries()[0].0;
            let report = crate::report::TxReport::not_sent(
                station,
                handle,
                f.dst,
                f.ac,
                f.mpdu_len,
                Some(flow),
                r,
                Cause::QueueFull,
                t,
                t,
            );
            sink.tx_done(&report);
        }
    }

    pub(crate) fn tbtt(&mut self, t: Time, station: StationId) {
        let st = &self.stations[station as usize];
        let Some(b) = st.cfg.beacon else { return };
        self.events.push(t + b.interval_ns.max(1), Event::Tbtt { station });
        if !st.queues[BEACON_QUEUE].frames.is_empty() {
            return; // the previous beacon is still waiting
        }
        let rate = b.rate.unwrap_or_else(|| self.lowest_basic_rate());
        let handle = self.next_handle;
        self.next_handle += 1;
        let q = Queued {
            handle,
            dst: Dest::Broadcast,
            len: b.len,
            rates: RateSeries::single(rate, 1),
            no_ack: true,
            t_queued: t,
            kind: FrameKind::Beacon,
            flow: None,
        };
        let _ = self.push_frame(t, station, BEACON_QUEUE, q, false);
    }
}
