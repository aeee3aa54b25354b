//! The device thread: runs the medium on the wall clock, takes requests off the
//! interfaces' rings, answers attribute `get`/`set` (they read and change the medium,
//! which only this thread touches), and publishes confirmations, indications and
//! beacons.

mod additions;
mod attributes;
mod held;
mod outputs;
mod virtual_time;

pub(crate) use additions::{Addition, Additions};
use attributes::{get_attribute, set_attribute};
pub(crate) use held::HeldRequests;
use outputs::Outputs;

use crate::channel::{
    Cmd, ConMsg, DataMsg, DeviceEnds, FrameBuf, IfaceShared, Reply, SessionShared, MAX_FRAME,
    RECHECK,
};
use crate::clock::TimeSource;
use crate::profile::DeviceProfile;
use crate::wait::DeviceWait;
use rand_xoshiro::Xoshiro256PlusPlus;
use sdmac_api::{Confirmation, DropReason, Status, Time, Timestamps, Truth};
use sdmac_frame::ieee80211::SupportedRate;
use sdmac_frame::MacAddress;
use sdmac_medium::{Ac, Cause, Dest, Medium, Outcome, Sink, StationId, TxRequest, WallClock};
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// Hashes the caller's ids (u64) with one multiplication: ids are not adversarial
/// across a trust boundary here, and the default SipHash costs more than the rest of
/// a lookup.
#[derive(Copy, Clone, Debug, Default)]
pub(crate) struct IdHash;

impl std::hash::BuildHasher for IdHash {
    type Hasher = IdHasher;
    fn build_hasher(&self) -> IdHasher {
        IdHasher(0)
    }
}

/// The hasher of [`IdHash`].
#[derive(Copy, Clone, Debug, Default)]
pub(crate) struct IdHasher(u64);

impl std::hash::Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (v ^ (v >> 29)).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (v >> 32);
    }
}

/// A request queued in the medium, kept until its confirmation.
pub(crate) struct Pending {
    pub buf: FrameBuf,
    pub len: u32,
    pub ac: Ac,
    pub ts: Timestamps,
}

/// The device's view of one interface.
pub(crate) struct DevIface {
    /// Its name (for the watchdog's reports).
    pub name: String,
    /// The session's clock.
    pub time: TimeSource,
    pub station: StationId,
    pub qos: bool,
    pub ends: DeviceEnds,
    pub shared: Arc<IfaceShared>,
    pub pending: HashMap<u64, Pending, IdHash>,
    pub rx_management: bool,
    pub bssid: MacAddress,
    pub ind_seq: u64,
    pub beacon_seq: u64,
    /// An indication buffer taken and not sent (the frame was filtered out, or the
    /// ring was full), used before any from the free ring.
    pub spare_ind: Option<Vec<u8>>,
}

impl DevIface {
    /// A buffer for the next indication: the spare, else one the application has
    /// emptied, else (only while more indications wait unread than ever before) a
    /// new one.
    fn ind_buffer(&mut self) -> Vec<u8> {
        self.spare_ind
            .take()
            .or_else(|| self.ends.ind_free.pop().ok())
            .unwrap_or_else(|| Vec::with_capacity(MAX_FRAME))
    }

    fn queue_index(&self, ac: Ac) -> usize {
        if self.qos {
            ac as usize
        } else {
            Ac::Be as usize
        }
    }

    /// Publishes a confirmation; the ring has room by construction (interfaces refuse
    /// requests beyond its capacity).
    fn publish(&mut self, mut m: ConMsg, stats: &mut DeviceStats) {
        if !m.con.ts.t1.is_zero() {
            m.con.ts.t8 = Time::from_ns(self.time.now());
            if !m.con.ts.t7.is_zero() {
                stats.max_con_lateness_ns = stats
                    .max_con_lateness_ns
                    .max(m.con.ts.t8.saturating_since(m.con.ts.t7).as_ns());
            }
        }
        let qi = self.queue_index(m.con.ac);
        if self.ends.con.push(m).is_err() {
            stats.con_overflow += 1;
        }
        stats.confirmations += 1;
        self.shared.completed[qi].fetch_add(1, Ordering::Release);
        self.shared.signal();
    }
}

/// Counters of the device thread.
#[derive(Copy, Clone, Debug, Default)]
pub(crate) struct DeviceStats {
    pub loops: u64,
    pub parks: u64,
    pub events: u64,
    pub confirmations: u64,
    pub indications: u64,
    pub beacons: u64,
    pub con_overflow: u64,
    pub rx_duplicates_dropped: u64,
    pub max_event_lateness_ns: u64,
    pub max_con_lateness_ns: u64,
}

/// The device: the medium and the interfaces' device ends.
pub(crate) struct Device {
    pub medium: Medium,
    /// Paces the medium to `CLOCK_MONOTONIC` from its origin (medium time 0).
    pub clock: WallClock,
    pub ifaces: Vec<DevIface>,
    pub iface_of: Vec<Option<usize>>,
    pub addrs: Vec<MacAddress>,
    pub session: Arc<SessionShared>,
    pub profile: DeviceProfile,
    pub rng: Xoshiro256PlusPlus,
    pub wait: DeviceWait,
    pub held_reqs: HeldRequests,
    pub held_cons: VecDeque<(u64, usize, ConMsg)>,
    pub stats: DeviceStats,
    pub beacon_interval_tu: Vec<u16>,
    pub channel: u8,
    /// Supported Rates of the beacons handed up as management frames.
    pub beacon_rates: Vec<SupportedRate>,
    /// Stations the session adds while it runs.
    pub additions: Arc<Additions>,
    /// The session's clock: the wall clock, or virtual time.
    pub time: TimeSource,
    /// On the virtual clock: wall time (ns) without time moving, while an interface is
    /// busy, after which the stall is reported.
    pub watchdog_ns: u64,
}

/// What the virtual clock found it could do.
enum Step {
    /// Requests or stations came in meanwhile, or staged requests were handed over:
    /// look again at this instant.
    Work,
    /// Time moved on.
    Moved,
    /// Time cannot move: these interfaces are busy (none: nothing is to happen, or no
    /// interface takes part).
    Blocked(Vec<usize>),
}

/// The beacon interval a station's beacons announce (TU; 100 for a station without
/// beacons).
pub(crate) fn beacon_interval_tu(cfg: &sdmac_medium::StationConfig) -> u16 {
    cfg.beacon.map_or(100, |b| (b.interval_ns / sdmac_medium::TU) as u16)
}

macro_rules! outputs {
    ($d:ident) => {
        Outputs {
            ifaces: &mut $d.ifaces,
            iface_of: &$d.iface_of,
            addrs: &$d.addrs,
            origin: $d.clock.origin(),
            profile: &$d.profile,
            rng: &mut $d.rng,
            held_cons: &mut $d.held_cons,
            stats: &mut $d.stats,
            beacon_interval_tu: &$d.beacon_interval_tu,
            channel: $d.channel,
            beacon_rates: &$d.beacon_rates,
        }
    };
}

impl Device {
    /// Medium time of a `CLOCK_MONOTONIC` instant (never before the medium's own).
    fn medium_time(&self, mono: u64) -> u64 {
        self.clock.medium_time(mono).max(self.medium.now())
    }

    /// Hands every held request due by `mono` to the medium at its own time, earliest
    /// first, then processes the medium's events due by `mono`: a request is never
    /// handed over later on the medium's clock than its time, however late the
    /// thread runs. True if a request was released.
    fn catch_up(&mut self, mono: u64) -> bool {
        let any = self.release_requests(mono);
        self.advance_to(mono);
        any
    }

    /// Hands every held request due by `mono` to the medium at its own time, earliest
    /// first; true if there was one.
    fn release_requests(&mut self, mono: u64) -> bool {
        let mut any = false;
        while let Some((at, i, m)) = self.held_reqs.pop_due(mono) {
            self.enqueue_one(i, m, at);
            any = true;
        }
        any
    }

    /// Processes every medium event due by `mono`; the clock measures the lateness.
    fn advance_to(&mut self, mono: u64) {
        let d = self;
        let mut out = outputs!(d);
        d.stats.events += d.clock.poll_at(mono, &mut d.medium, &mut out);
        d.stats.max_event_lateness_ns = d.clock.stats().max_late_ns;
    }

    /// The time now on the session's clock (API time base).
    fn now(&self) -> u64 {
        self.time.now()
    }

    /// Runs until the session closes.
    pub fn run(mut self) -> Device {
        if self.time.is_virtual() {
            return self.run_virtual();
        }
        loop {
            let (work, now) = self.pass();
            if self.session.closed.load(Ordering::Acquire) {
                self.close();
                return self;
            }
            if work {
                continue;
            }
            self.idle(now);
        }
    }

    /// One pass, on either clock: the stations to add, the interfaces' commands, the
    /// held items due and the medium's events due now. Returns whether there was
    /// anything to do, and the instant it took as now (`CLOCK_MONOTONIC` on the wall
    /// clock, virtual time on the virtual one).
    pub fn pass(&mut self) -> (bool, u64) {
        self.stats.loops += 1;
        let mut work = self.take_additions();
        work |= self.drain_commands();
        let now = self.now();
        work |= self.release_held(now);
        if self.medium.next_event_time().is_some_and(|t| self.clock.monotonic_of(t) <= now) {
            self.advance_to(now);
            work = true;
        }
        (work, now)
    }

    /// When (`CLOCK_MONOTONIC`) the next medium event or held item is due; `u64::MAX`
    /// for nothing. Commands and stations to add can come at any time besides.
    pub fn next_due(&self) -> u64 {
        let mut next =
            self.medium.next_event_time().map(|t| self.clock.monotonic_of(t)).unwrap_or(u64::MAX);
        if let Some(h) = self.held_reqs.next_time() {
            next = next.min(h);
        }
        if let Some(h) = self.held_cons.front() {
            next = next.min(h.0);
        }
        next
    }

    /// Waits for the next event, a held item or a command.
    fn idle(&mut self, now: u64) {
        let next = self.next_due();
        match self.wait {
            DeviceWait::Spin => std::hint::spin_loop(),
            DeviceWait::Park { spin_ns } => {
                // Park until shortly before the next event; spin the rest.
                const MARGIN: u64 = 80_000;
                if next > now + MARGIN + spin_ns {
                    let ifaces = &self.ifaces;
                    let session = &self.session;
                    let additions = &self.additions;
                    let deadline = (next - MARGIN).min(now + RECHECK.as_nanos() as u64);
                    self.stats.parks += 1;
                    session.device_wake.wait_until(deadline, spin_ns, || {
                        session.closed.load(Ordering::Acquire)
                            || additions.is_pending()
                            || ifaces.iter().any(|d| !d.ends.cmd.is_empty())
                    });
                } else {
                    std::hint::spin_loop();
                }
            }
        }
    }

    /// Adds the stations the session asked for, at the current instant; true if there
    /// was one.
    fn take_additions(&mut self) -> bool {
        if !self.additions.is_pending() {
            return false;
        }
        self.catch_up(self.now());
        for a in self.additions.take() {
            let r = self.add_station(a.cfg, a.iface);
            let _ = a.reply.send(r);
        }
        true
    }

    /// Puts a station on the medium (now) with its interface.
    fn add_station(
        &mut self,
        cfg: sdmac_medium::StationConfig,
        mut iface: DevIface,
    ) -> Result<StationId, String> {
        let addr = MacAddress(cfg.address);
        if let Some(k) = self.addrs.iter().position(|a| *a == addr) {
            return Err(format!("address {addr} is station {k}'s already"));
        }
        let beacon_tu = beacon_interval_tu(&cfg);
        let st = self.medium.add_station(cfg);
        debug_assert_eq!(st as usize, self.addrs.len(), "station ids are dense");
        self.addrs.push(addr);
        self.beacon_interval_tu.push(beacon_tu);
        self.iface_of.push(Some(self.ifaces.len()));
        iface.station = st;
        self.ifaces.push(iface);
        Ok(st)
    }

    /// Handles every waiting command; true if there was one.
    fn drain_commands(&mut self) -> bool {
        let mut any = false;
        for i in 0..self.ifaces.len() {
            while let Ok(cmd) = self.ifaces[i].ends.cmd.pop() {
                any = true;
                self.command(i, cmd);
            }
        }
        any
    }

    fn command(&mut self, i: usize, cmd: Cmd) {
        match cmd {
            Cmd::Data(m) if self.time.is_virtual() => {
                // Handed over once every application waits (see `virtual_step`).
                self.held_reqs.push_staged(self.now(), i, m);
            }
            Cmd::Data(m) => self.data_command(i, m),
            Cmd::Cancel(id) => {
                let ok = self.cancel(i, id);
                let _ = self.ifaces[i].ends.reply.push(Reply::Cancel(ok));
                self.ifaces[i].shared.signal();
            }
            Cmd::Set(name, scope, value) => {
                let r = set_attribute(self, i, name, scope, &value);
                let _ = self.ifaces[i].ends.reply.push(Reply::Set(r));
                self.ifaces[i].shared.signal();
            }
            Cmd::Get(name, scope) => {
                let r = get_attribute(self, i, name, scope);
                let _ = self.ifaces[i].ends.reply.push(Reply::Get(r));
                self.ifaces[i].shared.signal();
            }
        }
    }

    /// Takes a `data_req` of interface `i` now: holds it (timed, or for the request
    /// latency) or puts it on its queue.
    fn data_command(&mut self, i: usize, mut m: DataMsg) {
        let now = self.now();
        if !self.ifaces[i].qos {
            // A non-QoS station sends everything through its one (BE) queue.
            m.ac = Ac::Be;
        }
        if !m.ts.t1.is_zero() {
            m.ts.t3 = Time::from_ns(now);
        }
        let d = self.profile.req.sample(&mut self.rng);
        if m.not_before > now + d {
            // Timed: the request latency is spent before its time.
            self.held_reqs.push_timed(m.not_before, i, m);
        } else if d == 0 && self.held_reqs.no_delayed() {
            self.enqueue(i, m, now);
        } else {
            self.held_reqs.push_delayed(now + d, i, m);
        }
    }

    /// Puts a request on its station's AC queue at `mono` (t4), after the held
    /// requests due by then.
    fn enqueue(&mut self, i: usize, m: DataMsg, mono: u64) {
        self.catch_up(mono);
        self.enqueue_one(i, m, mono);
    }

    /// Puts a request on its station's AC queue at `mono` (t4), or drops it as late
    /// if that is after its `not_after`.
    fn enqueue_one(&mut self, i: usize, mut m: DataMsg, mono: u64) {
        self.advance_to(mono);
        let t = self.medium_time(mono);
        let t4 = self.clock.monotonic_of(t);
        if !m.ts.t1.is_zero() {
            m.ts.t4 = Time::from_ns(t4);
        }
        if t4 > m.not_after {
            self.refuse(i, m, DropReason::Late, Cause::None);
            return;
        }
        let station = self.ifaces[i].station;
        if self.ifaces[i].pending.contains_key(&m.id) {
            self.refuse(i, m, DropReason::DuplicateId, Cause::None);
            return;
        }
        let dst = if m.dst.is_multicast() {
            Dest::Broadcast
        } else {
            match self.addrs.iter().position(|a| *a == m.dst) {
                Some(s) => Dest::Station(s as StationId),
                None => Dest::Unknown,
            }
        };
        let req = TxRequest {
            handle: m.id,
            dst,
            len: m.len + 4,
            ac: m.ac,
            rates: m.rates,
            no_ack: m.no_ack,
        };
        match self.medium.enqueue(t, station, req) {
            Ok(()) => {
                self.ifaces[i]
                    .pending
                    .insert(m.id, Pending { buf: m.buf, len: m.len, ac: m.ac, ts: m.ts });
            }
            Err(_) => self.refuse(i, m, DropReason::Refused, Cause::QueueFull),
        }
    }

    /// Confirms a request that never reached the medium.
    fn refuse(&mut self, i: usize, m: DataMsg, why: DropReason, cause: Cause) {
        let mut ts = m.ts;
        if !ts.t1.is_zero() {
            let now = self.now();
            ts.t5 = Time::from_ns(now);
            ts.t7 = Time::from_ns(now);
        }
        let first = m.rates.map(|r| r.entries()[0].0).unwrap_or(sdmac_phy::Rate::Ofdm6);
        let con = Confirmation {
            id: m.id,
            status: Status::Dropped(why),
            ac: m.ac,
            attempts: 0,
            rates: [(first, 0); 4],
            n_rates: 0,
            len: m.len + 4,
            truth: Some(Truth {
                outcome: Outcome::Dropped,
                cause,
                delivered: false,
                collisions: 0,
            }),
            ts,
        };
        self.ifaces[i].publish(ConMsg { con, buf: Some(m.buf) }, &mut self.stats);
    }

    /// Cancels a request still held by the device or queued in the medium.
    fn cancel(&mut self, i: usize, id: u64) -> bool {
        if let Some(m) = self.held_reqs.remove(i, id) {
            self.refuse(i, m, DropReason::Cancelled, Cause::Cancelled);
            return true;
        }
        if !self.ifaces[i].pending.contains_key(&id) {
            return false;
        }
        self.catch_up(self.now());
        let station = self.ifaces[i].station;
        match self.medium.cancel(station, id) {
            Some(report) => {
                let d = &mut *self;
                let mut out = outputs!(d);
                out.tx_done(&report);
                true
            }
            None => false,
        }
    }

    /// Releases held requests and confirmations whose time has come.
    fn release_held(&mut self, now: u64) -> bool {
        let mut any = self.release_requests(now);
        while self.held_cons.front().is_some_and(|h| h.0 <= now) {
            // Events due before the release come first (their outcomes are older).
            let (_, i, m) = self.held_cons.pop_front().expect("front exists");
            self.ifaces[i].publish(m, &mut self.stats);
            any = true;
        }
        any
    }

    /// The session ends: every request still held or queued is confirmed as dropped.
    pub fn close(&mut self) {
        while let Some((_, i, m)) = self.held_reqs.take_all() {
            self.refuse(i, m, DropReason::Closed, Cause::None);
        }
        while let Some((_, i, m)) = self.held_cons.pop_front() {
            self.ifaces[i].publish(m, &mut self.stats);
        }
        for i in 0..self.ifaces.len() {
            while let Ok(cmd) = self.ifaces[i].ends.cmd.pop() {
                if let Cmd::Data(m) = cmd {
                    self.refuse(i, m, DropReason::Closed, Cause::None);
                }
            }
            let ids: Vec<u64> = self.ifaces[i].pending.keys().copied().collect();
            for id in ids {
                if let Some(p) = self.ifaces[i].pending.remove(&id) {
                    let m = DataMsg {
                        id,
                        ac: p.ac,
                        dst: MacAddress::ZERO,
                        rates: None,
                        no_ack: false,
                        buf: p.buf,
                        len: p.len,
                        ts: p.ts,
                        not_before: 0,
                        not_after: u64::MAX,
                    };
                    self.refuse(i, m, DropReason::Closed, Cause::None);
                }
            }
        }
    }
}
