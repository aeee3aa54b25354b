//! The medium: stations sharing one channel, driven by events.
//!
//! A `Medium` never reads a clock. Callers move it forward with [`Medium::advance`]
//! (process every event due at or before a time) and feed it frames with
//! [`Medium::enqueue`]; a virtual clock calls `advance` as fast as it can, a wall clock
//! paces it to real time (see `clock`).
//!
//! ## How the engine keeps the event count low
//! * Backoff is counted lazily: a queue stores its remaining slots and the instant from
//!   which they count (`anchor`); when the station senses the medium busy, the slots
//!   that elapsed are subtracted arithmetically. No event per slot, no event to freeze.
//! * Only one access event is scheduled per medium: at the earliest expiry over all
//!   stations. Stations whose backoff ends in the same slot all transmit (a collision).
//! * Receptions are decided when a transmission ends, over the interference that
//!   overlapped it.
//!
//! A clean DATA/ACK exchange costs four events: access, DATA end, ACK start, ACK end.

use crate::air::Air;
use crate::config::{
    Ac, Dest, EdcaError, EdcaParams, RateSeries, StationConfig, StationId, TrafficPattern,
};
use crate::event::{Event, EventQueue};
use crate::expiry::Expiries;
use crate::link::LinkTable;
use crate::memo::Memo;
use crate::report::{Cause, FrameKind, MediumStats, Sink, StationStats};
use crate::rng::SimRng;
use crate::station::{Queued, Station, BEACON_QUEUE, NO_SLOT};
use crate::time::{Time, NEVER};
use sdmac_phy::{Phy, Rate};

pub use crate::request::{
    EnqueueError, MediumConfig, QueuedError, QueuedInfo, TxRequest, MAX_MPDU_LEN,
};

/// Media of up to this many stations reserve their air for every station sending at
/// once when a station is added (`Air::reserve`).
const PREALLOCATED_MEDIUM: usize = 64;

/// Events reserved per station in such a medium.
const EVENTS_PER_STATION: usize = 256;

/// Stations sharing one channel.
pub struct Medium {
    /// The configuration it was made with (PHY timing, seed, error model, limits).
    pub(crate) cfg: MediumConfig,
    /// Every station, indexed by its id; each owns its queues and channel access.
    pub(crate) stations: Vec<Station>,
    /// Each station's earliest queue expiry, to find who transmits next.
    pub(crate) expiry: Expiries,
    /// How every transmitter is heard: link budgets, overrides, fading.
    pub(crate) links: LinkTable,
    /// Pending events, in time order (ties in scheduling order).
    pub(crate) events: EventQueue,
    /// The frames on air.
    pub(crate) air: Air,
    /// The time of the event being handled, or the latest time run to.
    pub(crate) now: Time,
    /// Stream 1 of the seed: backoff draws and preamble-miss draws.
    pub(crate) mac_rng: SimRng,
    /// Stream 2 of the seed: the intervals of Poisson traffic flows.
    pub(crate) traffic_rng: SimRng,
    /// Generation of the access event scheduled last; an older one is stale.
    pub(crate) access_gen: u64,
    /// When the access event is scheduled (the earliest expiry); NEVER if none.
    pub(crate) access_at: Time,
    /// Stations whose expiry may have changed since the last `refresh_access`.
    pub(crate) dirty: Vec<StationId>,
    /// Per station: it is in `dirty`.
    pub(crate) is_dirty: Vec<bool>,
    /// Stations away from this medium (`set_detached`): no link to or from them.
    pub(crate) detached: Vec<bool>,
    /// Counters of the whole medium.
    pub(crate) stats: MediumStats,
    /// Frames (beacons aside) in every queue.
    pub(crate) backlog: u64,
    /// Since when `backlog` is non-zero.
    pub(crate) backlog_start: Time,
    /// The handle of the next frame a traffic flow or a beacon generates.
    pub(crate) next_handle: u64,
    /// Scratch of reception: each interferer overlapping a frame, as (start, end,
    /// received power in mW).
    pub(crate) scratch: Vec<(Time, Time, f64)>,
    /// Scratch of `access`: the stations whose backoff ends now.
    pub(crate) ready: Vec<StationId>,
    /// EIFS − DIFS: the extra wait after a frame received in error.
    pub(crate) eifs_extra: Time,
    /// The access event fired, or the station holding the earliest expiry changed
    /// it: find the next one by scanning every station.
    pub(crate) force_scan: bool,
    /// The earliest expiry set since the last `refresh_access` (NEVER if none).
    pub(crate) set_min: Time,
    /// Linear preamble detection threshold.
    pub(crate) preamble_threshold: f64,
    /// The medium ran ahead (`advance_quiet`) from this time, and the caller has not
    /// caught up with it yet.
    pub(crate) ahead_from: Option<Time>,
    /// Per station: blocked through the run ahead, so that a request for it with an
    /// earlier time is taken as at that time.
    pub(crate) late_ok: Vec<bool>,
    /// Scratch of `quiet_until`: per station, when something next happens to it.
    pub(crate) quiet_touch: Vec<Time>,
    /// Scratch of `quiet_until`: per station, when a scheduled transmission next makes
    /// the medium busy for it.
    pub(crate) quiet_busy_at: Vec<Time>,
    /// Error-model answers already computed (see `memo`).
    pub(crate) memo: Memo,
}

/// Handles of frames generated by traffic flows start here.
pub const GENERATED_HANDLE_BASE: u64 = 1 << 62;

impl Medium {
    /// An empty medium.
    pub fn new(cfg: MediumConfig) -> Medium {
        let eifs_extra = cfg.phy.eifs_ns().saturating_sub(cfg.phy.difs_ns());
        let preamble_threshold = 10f64.powf(cfg.preamble_detection_snr_db / 10.0);
        Medium {
            preamble_threshold,
            mac_rng: SimRng::new(cfg.seed, 1),
            traffic_rng: SimRng::new(cfg.seed, 2),
            cfg,
            stations: Vec::new(),
            expiry: Expiries::default(),
            links: LinkTable::default(),
            events: EventQueue::default(),
            air: Air::default(),
            now: 0,
            access_gen: 0,
            access_at: NEVER,
            dirty: Vec::new(),
            is_dirty: Vec::new(),
            detached: Vec::new(),
            stats: MediumStats::default(),
            backlog: 0,
            backlog_start: 0,
            next_handle: GENERATED_HANDLE_BASE,
            scratch: Vec::new(),
            ready: Vec::new(),
            eifs_extra,
            force_scan: false,
            set_min: NEVER,
            ahead_from: None,
            late_ok: Vec::new(),
            quiet_touch: Vec::new(),
            quiet_busy_at: Vec::new(),
            memo: Memo::default(),
        }
    }

    /// The PHY.
    pub fn phy(&self) -> &Phy {
        &self.cfg.phy
    }

    /// The configuration.
    pub fn config(&self) -> &MediumConfig {
        &self.cfg
    }

    /// Time of the last event processed (or the last `advance` bound).
    pub fn now(&self) -> Time {
        self.now
    }

    /// Counters so far. `busy_ns` includes the current busy period up to `now`.
    pub fn stats(&self) -> MediumStats {
        let mut s = self.stats;
        s.at_ns = self.now;
        if self.air.active_count > 0 {
            s.busy_ns += self.now - self.air.busy_start;
        }
        if self.backlog > 0 {
            s.backlog_ns += self.now.saturating_sub(self.backlog_start);
        }
        s
    }

    /// A frame (not a beacon) entered (+1) or left (−1) a queue at `t`.
    pub(crate) fn count_backlog(&mut self, t: Time, entered: bool) {
        if entered {
            if self.backlog == 0 {
                self.backlog_start = t;
            }
            self.backlog += 1;
        } else {
            self.backlog -= 1;
            if self.backlog == 0 {
                self.stats.backlog_ns += t.saturating_sub(self.backlog_start);
            }
        }
    }

    /// Number of stations.
    pub fn station_count(&self) -> usize {
        self.stations.len()
    }

    /// A station's configuration.
    pub fn station(&self, id: StationId) -> Option<&StationConfig> {
        self.stations.get(id as usize).map(|s| &s.cfg)
    }

    /// Time of the next scheduled event.
    pub fn next_event_time(&self) -> Option<Time> {
        self.events.peek_time()
    }

    /// Frames waiting in a station's queue for `ac`.
    pub fn queue_len(&self, station: StationId, ac: Ac) -> usize {
        self.stations
            .get(station as usize)
            .map_or(0, |s| s.queues[self.queue_index(s, ac)].frames.len())
    }

    /// Adds a station at the current time. Its flows start, and an AP starts beaconing.
    pub fn add_station(&mut self, cfg: StationConfig) -> StationId {
        let id = self.stations.len() as StationId;
        let beacon_params = EdcaParams { aifsn: 1, cw_min: 0, cw_max: 0, txop_limit_ns: 0 };
        let mut st = Station::new(cfg, beacon_params);
        st.access.idle_since = Some(self.now);
        for q in st.queues.iter_mut() {
            q.access.backoff = self.mac_rng.uniform_inclusive(q.access.cw);
        }
        self.stations.push(st);
        self.expiry.push();
        self.is_dirty.push(false);
        self.detached.push(false);
        self.late_ok.push(false);
        self.links.from.push(None);
        self.compute_links_of(id);
        let n = self.stations.len();
        if n <= PREALLOCATED_MEDIUM {
            // Room for every station on air at once, twice (frames that ended but
            // still overlap one on air stay), so that the first collision of a
            // real-time run allocates nothing; larger media grow on demand.
            self.air.reserve(2 * n, n);
            // Access events superseded by a later one stay queued until their time:
            // the queue's high-water mark comes late in a lossy run.
            self.events.reserve(EVENTS_PER_STATION * n);
        }
        self.reschedule(id, self.now);
        let now = self.now;
        if let Some(b) = self.stations[id as usize].cfg.beacon {
            let first = if b.offset_ns >= now {
                b.offset_ns
            } else {
                now + b.interval_ns - (now - b.offset_ns) % b.interval_ns
            };
            self.events.push(first, Event::Tbtt { station: id });
        }
        let flows = self.stations[id as usize].cfg.flows.clone();
        for (i, f) in flows.iter().enumerate() {
            let mut start = f.start_ns.max(now);
            if let TrafficPattern::Poisson { mean_interval_ns } = f.pattern {
                // A Poisson process: the first arrival is an exponential gap after start.
                start += self.traffic_rng.exponential(mean_interval_ns as f64).round() as Time;
            }
            if start < f.stop_ns {
                self.events.push(start, Event::Arrival { station: id, flow: i as u16 });
            }
        }
        self.refresh_access();
        id
    }

    /// Sets a station's ACKTimeout (None: the PHY's, 45 µs for 802.11a), counted from
    /// the end of each DATA frame it sends from now on; an ACKTimeout already running
    /// keeps its end. Ignored for an unknown station.
    pub fn set_ack_timeout(&mut self, id: StationId, ns: Option<Time>) {
        if let Some(s) = self.stations.get_mut(id as usize) {
            s.cfg.ack_timeout_ns = ns;
        }
    }

    /// The ACKTimeout a station uses (its own, or the PHY's); None for an unknown station.
    pub fn ack_timeout(&self, id: StationId) -> Option<Time> {
        let s = self.stations.get(id as usize)?;
        Some(s.cfg.ack_timeout_ns.unwrap_or_else(|| self.cfg.phy.ack_timeout_ns()))
    }

    /// Changes the channel access parameters of one queue of a station at run time.
    ///
    /// A QoS station has a queue per AC; a non-QoS station has one DCF queue, set
    /// through `Ac::Be` (any other AC is refused with [`EdcaError::NotQos`]). The
    /// parameters are checked with [`EdcaParams::validate`]. A backoff in progress keeps
    /// its remaining slots: the new CWmin/CWmax apply from the next backoff draw (the
    /// current contention window is clamped into the new [CWmin, CWmax]), the new AIFSN
    /// from the next time the station senses the medium idle, the TXOP limit from the
    /// next access.
    pub fn set_edca(&mut self, id: StationId, ac: Ac, p: EdcaParams) -> Result<(), EdcaError> {
        let st = self.stations.get_mut(id as usize).ok_or(EdcaError::UnknownStation(id))?;
        p.validate()?;
        if !st.cfg.qos && ac != Ac::Be {
            return Err(EdcaError::NotQos { station: id, ac });
        }
        st.cfg.edca[ac as usize] = p;
        let q = &mut st.queues[ac as usize];
        q.access.params = p;
        q.access.cw = q.access.cw.clamp(p.cw_min, p.cw_max);
        Ok(())
    }

    /// The channel access parameters frames of `ac` are sent with at a station (for a
    /// non-QoS station, its DCF parameters whatever the AC); None for an unknown station.
    pub fn edca(&self, id: StationId, ac: Ac) -> Option<EdcaParams> {
        let st = self.stations.get(id as usize)?;
        Some(st.queues[self.queue_index(st, ac)].access.params)
    }

    /// Changes the rate series a station uses for requests that name none, from the
    /// next request queued (frames already queued keep the series they were queued
    /// with). Refused if the PHY cannot send one of its rates.
    pub fn set_default_rates(
        &mut self,
        id: StationId,
        rates: RateSeries,
    ) -> Result<(), EnqueueError> {
        if id as usize >= self.stations.len() {
            return Err(EnqueueError::UnknownStation(id));
        }
        self.check_rates(&rates).map_err(EnqueueError::UnsupportedRate)?;
        self.stations[id as usize].cfg.default_rates = rates;
        Ok(())
    }

    /// The rate series a station uses for requests that name none.
    pub fn default_rates(&self, id: StationId) -> Option<RateSeries> {
        self.stations.get(id as usize).map(|s| s.cfg.default_rates)
    }

    /// Where the request `handle` of station `id` waits: (queue index, position).
    fn find_queued(&self, id: StationId, handle: u64) -> Option<(usize, usize)> {
        let st = self.stations.get(id as usize)?;
        st.used.iter().filter(|&&qi| qi != BEACON_QUEUE).find_map(|&qi| {
            st.queues[qi].frames.iter().position(|f| f.handle == handle).map(|pos| (qi, pos))
        })
    }

    /// A request still in a station's queue (waiting, or being sent), by its handle;
    /// None once it has finished (or if there is no such request).
    pub fn queued(&self, id: StationId, handle: u64) -> Option<QueuedInfo> {
        let (qi, pos) = self.find_queued(id, handle)?;
        let st = &self.stations[id as usize];
        let q = &st.queues[qi];
        let f = &q.frames[pos];
        let attempts = if pos == 0 { q.attempts } else { 0 };
        // A no-ack frame is finished when its only attempt ends, so an attempt made is
        // one on air; an acked one is in its exchange until the ACK or ACKTimeout.
        let on_air =
            attempts > 0 && (f.no_ack || st.exchange.is_some_and(|e| e.queue as usize == qi));
        Some(QueuedInfo {
            ac: queue_ac(qi),
            len: f.len,
            rates: f.rates,
            no_ack: f.no_ack,
            t_queued: crate::time::at(f.t_queued),
            attempts,
            on_air,
        })
    }

    /// Changes the rate series of a queued request before its first attempt.
    pub fn set_queued_rates(
        &mut self,
        id: StationId,
        handle: u64,
        rates: RateSeries,
    ) -> Result<(), QueuedError> {
        let (qi, pos) =
            self.find_queued(id, handle).ok_or(QueuedError::NotQueued { station: id, handle })?;
        self.check_rates(&rates).map_err(|rate| QueuedError::UnsupportedRate { handle, rate })?;
        let q = &mut self.stations[id as usize].queues[qi];
        if pos == 0 && q.attempts > 0 {
            return Err(QueuedError::AlreadyStarted { station: id, handle });
        }
        q.frames[pos].rates = rates;
        Ok(())
    }

    /// A station's counters; None for an unknown station.
    pub fn station_stats(&self, id: StationId) -> Option<StationStats> {
        self.stations.get(id as usize).map(|s| s.stats)
    }

    /// Hands a frame to a station at time `at` (clamped to `now`). Call `advance(at)`
    /// first so that earlier events are processed. After [`Medium::advance_quiet`] ran
    /// the medium past `at`, a frame for a station that was blocked meanwhile is taken
    /// as at `at` instead.
    pub fn enqueue(
        &mut self,
        at: Time,
        station: StationId,
        req: TxRequest,
    ) -> Result<(), EnqueueError> {
        let st =
            self.stations.get(station as usize).ok_or(EnqueueError::UnknownStation(station))?;
        if !(10..=MAX_MPDU_LEN).contains(&req.len) {
            return Err(EnqueueError::InvalidLength(req.len));
        }
        let rates = req.rates.unwrap_or(st.cfg.default_rates);
        self.check_rates(&rates).map_err(EnqueueError::UnsupportedRate)?;
        let late = self.is_late(station, at);
        let at = if late { at } else { at.max(self.now) };
        let q = Queued {
            handle: req.handle,
            dst: req.dst,
            len: req.len,
            rates,
            no_ack: req.no_ack || req.dst == Dest::Broadcast,
            t_queued: at,
            kind: FrameKind::Data,
            flow: None,
        };
        self.push_frame(at.max(self.now), station, self.queue_index(st, req.ac), q, late)?;
        self.stations[station as usize].stats.tx_requests += 1;
        self.refresh_access();
        Ok(())
    }

    /// The first rate of `rates` this medium's PHY cannot send, as an error.
    fn check_rates(&self, rates: &RateSeries) -> Result<(), Rate> {
        match rates
            .entries()
            .iter()
            .find(|(r, _)| !self.cfg.phy.standard.supports(*r) || !r.is_valid())
        {
            Some(&(r, _)) => Err(r),
            None => Ok(()),
        }
    }

    /// Removes a frame still waiting in a queue (not one being sent). Returns its report.
    pub fn cancel(&mut self, station: StationId, handle: u64) -> Option<crate::report::TxReport> {
        let now = self.now;
        let st = self.stations.get_mut(station as usize)?;
        for (qi, q) in st.queues.iter_mut().enumerate() {
            let busy_head = st.exchange.is_some_and(|e| e.queue as usize == qi) || q.attempts > 0;
            let skip = usize::from(busy_head);
            if let Some(pos) = q.frames.iter().skip(skip).position(|f| f.handle == handle) {
                let f = q.frames.remove(pos + skip).unwrap();
                if q.frames.is_empty() {
                    q.access.expiry = NEVER;
                }
                st.stats.tx_dropped += 1;
                if qi != BEACON_QUEUE {
                    self.count_backlog(now, false);
                }
                self.mark_dirty(station);
                self.refresh_access();
                return Some(crate::report::TxReport::not_sent(
                    station,
                    handle,
                    f.dst,
                    queue_ac(qi),
                    f.len,
                    f.flow,
                    f.rates.entries()[0].0,
                    Cause::Cancelled,
                    f.t_queued,
                    now,
                ));
            }
        }
        None
    }

    /// Processes every event due at or before `until`; returns how many ran. Afterwards
    /// `now()` is `until` (unless `until` is NEVER).
    pub fn advance<S: Sink + ?Sized>(&mut self, until: Time, sink: &mut S) -> u64 {
        if until >= self.now {
            self.ahead_from = None;
        }
        let mut n = 0;
        while let Some((t, ev)) = self.events.pop_until(until) {
            self.now = t;
            if self.dispatch(t, ev, sink) {
                n += 1;
            }
            self.refresh_access();
        }
        if until != NEVER && until > self.now {
            self.now = until;
        }
        self.stats.events += n;
        n
    }

    fn dispatch<S: Sink + ?Sized>(&mut self, t: Time, ev: Event, sink: &mut S) -> bool {
        match ev {
            Event::Access { gen } => {
                if gen != self.access_gen {
                    return false;
                }
                self.access(t, sink);
            }
            Event::TxEnd { slot } => self.tx_end(t, slot, sink),
            Event::SendAck { station, to, handle, rate, queue } => {
                self.send_ack(t, station, to, handle, rate, queue)
            }
            Event::AckTimeout { station, gen } => {
                let st = &self.stations[station as usize];
                match st.exchange {
                    Some(ex) if st.exchange_gen == gen => {
                        if ex.ack_slot != NO_SLOT && st.rx_lock == ex.ack_slot {
                            return true; // the ACK's preamble arrived in time: wait for its end
                        }
                        self.finish_exchange(t, station, false, ex.ack_fail, sink);
                        // The ACKTimeout interval counts like a busy medium: AIFS starts
                        // again at its end (as ns-3's channel access manager does).
                        let st = &mut self.stations[station as usize];
                        if st.access.idle_since.is_some() {
                            st.access.idle_since = Some(t);
                        }
                        self.reschedule(station, t);
                    }
                    _ => return false,
                }
            }
            Event::Arrival { station, flow } => self.arrival(t, station, flow, sink),
            Event::Tbtt { station } => self.tbtt(t, station),
            Event::TxopContinue { station, queue } => {
                self.txop_continue(t, station, queue as usize, sink)
            }
        }
        true
    }

    pub(crate) fn queue_index(&self, st: &Station, ac: Ac) -> usize {
        if st.cfg.qos {
            ac as usize
        } else {
            Ac::Be as usize
        }
    }

    pub(crate) fn lowest_basic_rate(&self) -> Rate {
        let phy = &self.cfg.phy;
        phy.basic_rates.iter().next().unwrap_or_else(|| phy.lowest_mandatory_rate())
    }

    pub(crate) fn mark_dirty(&mut self, s: StationId) {
        if !self.is_dirty[s as usize] {
            self.is_dirty[s as usize] = true;
            self.dirty.push(s);
        }
    }

    /// Station `s`'s earliest expiry is now `new`: puts it in `expiry` and keeps what
    /// `refresh_access` needs to find the earliest of all. Every expiry is at least
    /// `min(access_at, set_min)`; a station that held that earliest value and changes
    /// it calls for a scan.
    pub(crate) fn set_expiry(&mut self, s: StationId, new: Time) {
        let old = self.expiry.set(s, new);
        if new != old {
            if old == self.access_at.min(self.set_min) {
                self.force_scan = true;
            }
            self.set_min = self.set_min.min(new);
        }
    }

    /// Keeps exactly one access event scheduled, at the earliest expiry.
    pub(crate) fn refresh_access(&mut self) {
        if self.dirty.is_empty() && !self.force_scan && self.set_min >= self.access_at {
            return;
        }
        for i in 0..self.dirty.len() {
            let s = self.dirty[i];
            self.is_dirty[s as usize] = false;
            let new = self.stations[s as usize].expiry();
            self.set_expiry(s, new);
        }
        self.dirty.clear();
        let mut best = self.access_at.min(std::mem::replace(&mut self.set_min, NEVER));
        if std::mem::take(&mut self.force_scan) {
            best = self.expiry.min();
        }
        debug_assert!((0..self.stations.len())
            .all(|s| self.expiry.get(s as StationId) == self.stations[s].expiry()));
        debug_assert_eq!(best, self.stations.iter().map(|st| st.expiry()).min().unwrap_or(NEVER));
        if best != self.access_at {
            self.access_at = best;
            self.access_gen += 1;
            if best != NEVER {
                self.events.push(best, Event::Access { gen: self.access_gen });
            }
        }
    }
}

/// The access category of queue index `qi` (the beacon queue counts as VO).
pub(crate) fn queue_ac(qi: usize) -> Ac {
    Ac::ALL.get(qi).copied().unwrap_or(Ac::Vo)
}
