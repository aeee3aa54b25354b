//! The device thread: runs the medium on the wall clock, takes requests off the
//! interfaces' rings, answers attribute `get`/`set` (they read and change the medium,
//! which only this thread touches), and publishes confirmations, indications and
//! beacons.

use crate::channel::{
    Cmd, ConMsg, DataMsg, DeviceEnds, FrameBuf, IfaceShared, IndMsg, Reply, SessionShared,
    MAX_FRAME, RECHECK,
};
use crate::frame::{is_data, rx_payload_offset, write_beacon, write_zero_frame};
use crate::profile::DeviceProfile;
use crate::wait::DeviceWait;
use rand_xoshiro::Xoshiro256PlusPlus;
use sdmac_api::{
    ApiError, BeaconInd, Confirmation, DropReason, FrameClass, Indication, RateSeries, RxInfo,
    Scope, Status, Time, Timestamps, Truth, Value,
};
use sdmac_frame::ieee80211::SupportedRate;
use sdmac_frame::MacAddress;
use sdmac_medium::{
    Ac, Cause, Dest, EdcaParams, FrameKind, Medium, Outcome, RxIndication, Sink, StationId,
    TxReport, TxRequest, WallClock, GENERATED_HANDLE_BASE,
};
use sdmac_rt::monotonic_ns;
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
            m.con.ts.t8 = Time::from_ns(monotonic_ns());
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

/// Everything the medium's reports are turned into.
struct Outputs<'a> {
    ifaces: &'a mut [DevIface],
    iface_of: &'a [Option<usize>],
    addrs: &'a [MacAddress],
    origin: u64,
    profile: &'a DeviceProfile,
    rng: &'a mut Xoshiro256PlusPlus,
    held_cons: &'a mut VecDeque<(u64, usize, ConMsg)>,
    stats: &'a mut DeviceStats,
    beacon_interval_tu: &'a [u16],
    channel: u8,
    beacon_rates: &'a [SupportedRate],
}

fn status_of(r: &TxReport) -> Status {
    match r.outcome {
        Outcome::Acked => Status::Acked,
        Outcome::DataLost | Outcome::AckLost => Status::AckTimeout,
        Outcome::NoAck => Status::Sent,
        Outcome::Dropped => Status::Dropped(if r.cause == Cause::Cancelled {
            DropReason::Cancelled
        } else {
            DropReason::Refused
        }),
    }
}

impl Sink for Outputs<'_> {
    fn tx_done(&mut self, r: &TxReport) {
        let Some(i) = self.iface_of.get(r.station as usize).copied().flatten() else { return };
        if r.handle >= GENERATED_HANDLE_BASE {
            return;
        }
        let dev = &mut self.ifaces[i];
        let Some(p) = dev.pending.remove(&r.handle) else { return };
        let mut ts = p.ts;
        if !ts.t1.is_zero() {
            if r.attempts > 0 {
                ts.t_start = Time::from_ns(self.origin + r.t_first_start.as_ns());
                ts.t_last_start = Time::from_ns(self.origin + r.t_last_start.as_ns());
                ts.t_data_end = Time::from_ns(self.origin + r.t_data_end.as_ns());
            }
            ts.t5 = Time::from_ns(self.origin + r.t_done.as_ns());
        }
        let con = Confirmation {
            id: r.handle,
            status: status_of(r),
            ac: p.ac,
            attempts: r.attempts,
            rates: r.rates,
            n_rates: r.n_rates,
            len: r.len,
            truth: Some(Truth {
                outcome: r.outcome,
                cause: r.cause,
                delivered: r.delivered,
                collisions: r.collisions,
            }),
            ts,
        };
        let hw = self.profile.con.sample(self.rng);
        let mut m = ConMsg { con, buf: Some(p.buf) };
        if hw == 0 {
            if !m.con.ts.t1.is_zero() {
                m.con.ts.t7 = m.con.ts.t5;
            }
            dev.publish(m, self.stats);
        } else {
            let release = self.origin + r.t_done.as_ns() + hw;
            if !m.con.ts.t1.is_zero() {
                m.con.ts.t7 = Time::from_ns(release);
            }
            self.held_cons.push_back((release, i, m));
        }
    }

    fn rx(&mut self, ind: &RxIndication) {
        let Some(i) = self.iface_of.get(ind.station as usize).copied().flatten() else { return };
        let now = monotonic_ns();
        let src = self.addrs[ind.from as usize];
        let rx = RxInfo {
            signal_dbm: ind.signal_dbm,
            snr_db: ind.snr_db,
            rate: ind.rate,
            t_start: Time::from_ns(self.origin + ind.t_start.as_ns()),
            t_end: Time::from_ns(self.origin + ind.t_end.as_ns()),
            t_published: Time::from_ns(now),
            t_returned: Time::ZERO,
            tsft_us: None,
        };
        let bytes = match ind.kind {
            FrameKind::Ack => return,
            FrameKind::Beacon => {
                let dev = &mut self.ifaces[i];
                dev.beacon_seq += 1;
                let b = BeaconInd {
                    bssid: src,
                    seq: dev.beacon_seq,
                    t_start: rx.t_start,
                    t_end: rx.t_end,
                    t_published: Time::from_ns(now),
                    signal_dbm: ind.signal_dbm,
                    tsf_us: None,
                };
                if dev.ends.beacon.push(b).is_err() {
                    dev.shared.beacon_overflow.fetch_add(1, Ordering::Relaxed);
                }
                self.stats.beacons += 1;
                if !dev.rx_management {
                    dev.shared.signal();
                    return;
                }
                let tu = self.beacon_interval_tu.get(ind.from as usize).copied().unwrap_or(100);
                let mut out = dev.ind_buffer();
                let tsf_us = ind.t_start.as_ns() / 1000;
                write_beacon(&mut out, src, tu, self.channel, tsf_us, self.beacon_rates);
                out
            }
            FrameKind::Data => {
                if ind.duplicate {
                    self.stats.rx_duplicates_dropped += 1;
                    return;
                }
                let mut out = self.ifaces[i].ind_buffer();
                let sent = self
                    .iface_of
                    .get(ind.from as usize)
                    .copied()
                    .flatten()
                    .and_then(|j| self.ifaces[j].pending.get(&ind.handle));
                match sent {
                    Some(p) => {
                        out.clear();
                        out.extend_from_slice(&p.buf[..p.len as usize]);
                    }
                    None => {
                        // Traffic of a station without an interface: a frame of the
                        // right length with a zero payload.
                        let dst = if ind.unicast {
                            self.addrs[ind.station as usize]
                        } else {
                            MacAddress::BROADCAST
                        };
                        write_zero_frame(&mut out, dst, src, ind.len);
                    }
                }
                out
            }
        };
        let dev = &mut self.ifaces[i];
        let class = match is_data(&bytes) {
            Some(true) => FrameClass::Data,
            Some(false) if dev.rx_management => FrameClass::Management,
            _ => {
                dev.spare_ind = Some(bytes);
                return;
            }
        };
        dev.ind_seq += 1;
        let dst = sdmac_frame::ieee80211::Frame::new_checked(&bytes[..])
            .map(|f| f.addr1())
            .unwrap_or(MacAddress::BROADCAST);
        let m = IndMsg {
            ind: Indication {
                id: dev.ind_seq,
                class,
                src,
                dst,
                ac: ind.ac,
                len: bytes.len(),
                payload_offset: rx_payload_offset(&bytes),
                duplicate: ind.duplicate,
                rx,
            },
            bytes,
        };
        if let Err(rtrb::PushError::Full(m)) = dev.ends.ind.push(m) {
            dev.spare_ind = Some(m.bytes);
            dev.shared.ind_overflow.fetch_add(1, Ordering::Relaxed);
        } else {
            self.stats.indications += 1;
        }
        dev.shared.signal();
    }
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
    pub held_reqs: VecDeque<(u64, usize, DataMsg)>,
    pub held_cons: VecDeque<(u64, usize, ConMsg)>,
    pub stats: DeviceStats,
    pub beacon_interval_tu: Vec<u16>,
    pub channel: u8,
    /// Supported Rates of the beacons handed up as management frames.
    pub beacon_rates: Vec<SupportedRate>,
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

    /// Processes every medium event due by `mono`; the clock measures the lateness.
    fn advance_to(&mut self, mono: u64) {
        let d = self;
        let mut out = outputs!(d);
        d.stats.events += d.clock.poll_at(mono, &mut d.medium, &mut out);
        d.stats.max_event_lateness_ns = d.clock.stats().max_late_ns;
    }

    /// Runs until the session closes.
    pub fn run(mut self) -> Device {
        loop {
            self.stats.loops += 1;
            let mut work = self.drain_commands();
            let now = monotonic_ns();
            work |= self.release_held(now);
            if self.medium.next_event_time().is_some_and(|t| self.clock.monotonic_of(t) <= now) {
                self.advance_to(now);
                work = true;
            }
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

    /// Waits for the next event, a held item or a command.
    fn idle(&mut self, now: u64) {
        let mut next =
            self.medium.next_event_time().map(|t| self.clock.monotonic_of(t)).unwrap_or(u64::MAX);
        if let Some(h) = self.held_reqs.front() {
            next = next.min(h.0);
        }
        if let Some(h) = self.held_cons.front() {
            next = next.min(h.0);
        }
        match self.wait {
            DeviceWait::Spin => std::hint::spin_loop(),
            DeviceWait::Park { spin_ns } => {
                // Park until shortly before the next event; spin the rest.
                const MARGIN: u64 = 80_000;
                if next > now + MARGIN + spin_ns {
                    let ifaces = &self.ifaces;
                    let session = &self.session;
                    let deadline = (next - MARGIN).min(now + RECHECK.as_nanos() as u64);
                    self.stats.parks += 1;
                    session.device_wake.wait_until(deadline, spin_ns, || {
                        session.closed.load(Ordering::Acquire)
                            || ifaces.iter().any(|d| !d.ends.cmd.is_empty())
                    });
                } else {
                    std::hint::spin_loop();
                }
            }
        }
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
            Cmd::Data(mut m) => {
                let now = monotonic_ns();
                if !self.ifaces[i].qos {
                    // A non-QoS station sends everything through its one (BE) queue.
                    m.ac = Ac::Be;
                }
                if !m.ts.t1.is_zero() {
                    m.ts.t3 = Time::from_ns(now);
                }
                let d = self.profile.req.sample(&mut self.rng);
                if d == 0 && self.held_reqs.is_empty() {
                    self.enqueue(i, m, now);
                } else {
                    let release = (now + d).max(self.held_reqs.back().map_or(0, |h| h.0));
                    self.held_reqs.push_back((release, i, m));
                }
            }
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

    /// Puts a request on its station's AC queue at `mono` (t4).
    fn enqueue(&mut self, i: usize, mut m: DataMsg, mono: u64) {
        self.advance_to(mono);
        let t = self.medium_time(mono);
        if !m.ts.t1.is_zero() {
            m.ts.t4 = Time::from_ns(self.clock.monotonic_of(t));
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
            let now = monotonic_ns();
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
        if let Some(k) = self.held_reqs.iter().position(|h| h.1 == i && h.2.id == id) {
            let (_, _, m) = self.held_reqs.remove(k).expect("index from position");
            self.refuse(i, m, DropReason::Cancelled, Cause::Cancelled);
            return true;
        }
        if !self.ifaces[i].pending.contains_key(&id) {
            return false;
        }
        self.advance_to(monotonic_ns());
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
        let mut any = false;
        while self.held_reqs.front().is_some_and(|h| h.0 <= now) {
            let (at, i, m) = self.held_reqs.pop_front().expect("front exists");
            self.enqueue(i, m, at);
            any = true;
        }
        while self.held_cons.front().is_some_and(|h| h.0 <= now) {
            // Events due before the release come first (their outcomes are older).
            let (_, i, m) = self.held_cons.pop_front().expect("front exists");
            self.ifaces[i].publish(m, &mut self.stats);
            any = true;
        }
        any
    }

    /// The session ends: every request still held or queued is confirmed as dropped.
    fn close(&mut self) {
        while let Some((_, i, m)) = self.held_reqs.pop_front() {
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
                    };
                    self.refuse(i, m, DropReason::Closed, Cause::None);
                }
            }
        }
    }
}

fn queue_of(dev: &Device, i: usize, ac: Ac) -> Ac {
    if dev.ifaces[i].qos {
        ac
    } else {
        Ac::Be
    }
}

/// `get` on the device thread.
pub(crate) fn get_attribute(
    dev: &mut Device,
    i: usize,
    name: &'static str,
    scope: Scope,
) -> Result<Value, ApiError> {
    let st = dev.ifaces[i].station;
    let cfg = dev.medium.station(st).expect("interface station exists").clone();
    Ok(match (name, scope) {
        ("address", _) => Value::Mac(MacAddress(cfg.address)),
        ("bssid", _) => Value::Mac(dev.ifaces[i].bssid),
        ("channel", _) => {
            Value::Int(sdmac_frame::channel::number(dev.medium.config().freq_mhz) as i64)
        }
        ("frequency", _) => Value::Int(dev.medium.config().freq_mhz as i64),
        ("tx_power", _) => Value::Float(cfg.tx_power_dbm),
        ("ack_timeout", _) => Value::Float(
            cfg.ack_timeout_ns.unwrap_or_else(|| dev.medium.phy().ack_timeout_ns()) as f64 / 1000.0,
        ),
        ("retry_limit", _) => Value::Int(cfg.default_rates.total_tries() as i64),
        ("default_rates", _) => Value::Rates(cfg.default_rates),
        ("basic_rates", _) => Value::Text(
            dev.medium
                .phy()
                .basic_rates
                .iter()
                .map(|r| r.to_string())
                .collect::<Vec<_>>()
                .join(","),
        ),
        ("queue_limit", _) => Value::Int(cfg.queue_limit as i64),
        ("rx_management", _) => Value::Bool(dev.ifaces[i].rx_management),
        ("stats", _) => stats_value(dev, i),
        ("aifsn" | "cw_min" | "cw_max" | "txop_limit", Scope::Queue(ac)) => {
            let p = dev.medium.edca(st, queue_of(dev, i, ac)).expect("station exists");
            match name {
                "aifsn" => Value::Int(p.aifsn as i64),
                "cw_min" => Value::Int(p.cw_min as i64),
                "cw_max" => Value::Int(p.cw_max as i64),
                _ => Value::Float(p.txop_limit_ns as f64 / 1000.0),
            }
        }
        ("queue_len", Scope::Queue(ac)) => Value::Int(dev.medium.queue_len(st, ac) as i64),
        (_, Scope::Packet(id)) => {
            if let Some(m) = dev.held_reqs.iter().find(|h| h.1 == i && h.2.id == id).map(|h| &h.2) {
                // Still in the device (its request latency): not on a queue yet.
                let rates = m.rates.unwrap_or(cfg.default_rates);
                return Ok(match name {
                    "rates" => Value::Rates(rates),
                    "tries" => Value::Int(rates.total_tries() as i64),
                    "attempts" => Value::Int(0),
                    "state" => Value::Text("held".into()),
                    _ => timestamps_value(&m.ts),
                });
            }
            let Some(p) = dev.ifaces[i].pending.get(&id) else {
                return Err(ApiError::NoSuchPacket { id });
            };
            let ts = p.ts;
            let q = dev.medium.queued(st, id).ok_or(ApiError::NoSuchPacket { id })?;
            match name {
                "rates" => Value::Rates(q.rates),
                "tries" => Value::Int(q.rates.total_tries() as i64),
                "attempts" => Value::Int(q.attempts as i64),
                "state" => Value::Text(
                    if q.on_air {
                        "on_air"
                    } else if q.attempts > 0 {
                        "retrying"
                    } else {
                        "queued"
                    }
                    .into(),
                ),
                _ => timestamps_value(&ts),
            }
        }
        _ => return Err(ApiError::UnknownAttribute { name: name.to_string() }),
    })
}

fn timestamps_value(ts: &sdmac_api::Timestamps) -> Value {
    Value::Map(vec![
        ("t1".into(), Value::Int(ts.t1.as_ns() as i64)),
        ("t2".into(), Value::Int(ts.t2.as_ns() as i64)),
        ("t3".into(), Value::Int(ts.t3.as_ns() as i64)),
        ("t4".into(), Value::Int(ts.t4.as_ns() as i64)),
    ])
}

fn stats_value(dev: &Device, i: usize) -> Value {
    let st = dev.ifaces[i].station;
    let s = dev.medium.station_stats(st).unwrap_or_default();
    let d = dev.stats;
    let sh = &dev.ifaces[i].shared;
    let int = |v: u64| Value::Int(v as i64);
    Value::Map(vec![
        ("tx_requests".into(), int(s.tx_requests)),
        ("tx_attempts".into(), int(s.tx_attempts)),
        ("tx_acked".into(), int(s.tx_acked)),
        ("tx_failed".into(), int(s.tx_failed)),
        ("tx_no_ack".into(), int(s.tx_no_ack)),
        ("tx_dropped".into(), int(s.tx_dropped)),
        ("tx_retries".into(), int(s.tx_retries)),
        ("rx_frames".into(), int(s.rx_frames)),
        ("rx_beacons".into(), int(s.rx_beacons)),
        ("rx_duplicates".into(), int(s.rx_duplicates)),
        ("rx_indications_lost".into(), int(sh.ind_overflow.load(Ordering::Relaxed))),
        ("beacons_lost".into(), int(sh.beacon_overflow.load(Ordering::Relaxed))),
        ("device_events".into(), int(d.events)),
        ("device_parks".into(), int(d.parks)),
        ("device_max_event_lateness_ns".into(), int(d.max_event_lateness_ns)),
        ("device_max_confirmation_lateness_ns".into(), int(d.max_con_lateness_ns)),
    ])
}

/// `set` on the device thread.
pub(crate) fn set_attribute(
    dev: &mut Device,
    i: usize,
    name: &'static str,
    scope: Scope,
    v: &Value,
) -> Result<(), ApiError> {
    let st = dev.ifaces[i].station;
    match (name, scope) {
        ("bssid", _) => dev.ifaces[i].bssid = v.to_mac(name)?,
        ("tx_power", _) => {
            let dbm = v.to_float(name)?;
            if !(-50.0..=50.0).contains(&dbm) {
                return Err(v.invalid(name, "must be within -50..=50 dBm"));
            }
            dev.medium.set_tx_power(st, dbm);
        }
        ("ack_timeout", _) => {
            let us = v.to_float(name)?;
            if !(1.0..=10_000.0).contains(&us) {
                return Err(v.invalid(name, "must be within 1..=10000 µs"));
            }
            dev.medium.set_ack_timeout(st, Some((us * 1000.0).round() as u64));
        }
        ("retry_limit", _) => {
            let n = v.to_int(name)?;
            if !(1..=15).contains(&n) {
                return Err(v.invalid(name, "must be within 1..=15"));
            }
            let cfg = dev.medium.station(st).expect("station");
            let first = cfg.default_rates.entries()[0].0;
            dev.medium
                .set_default_rates(st, RateSeries::single(first, n as u8))
                .map_err(|e| v.invalid(name, e.to_string()))?;
        }
        ("default_rates", _) => {
            let r = v.to_rates(name)?;
            dev.medium.set_default_rates(st, r).map_err(|e| v.invalid(name, e.to_string()))?;
        }
        ("rx_management", _) => dev.ifaces[i].rx_management = v.to_bool(name)?,
        ("aifsn" | "cw_min" | "cw_max" | "txop_limit", Scope::Queue(ac)) => {
            let q = queue_of(dev, i, ac);
            let mut p: EdcaParams = dev.medium.edca(st, q).expect("station exists");
            match name {
                "aifsn" => {
                    p.aifsn = u8::try_from(v.to_int(name)?)
                        .map_err(|_| v.invalid(name, "must be within 1..=15"))?
                }
                "cw_min" => {
                    p.cw_min = u32::try_from(v.to_int(name)?)
                        .map_err(|_| v.invalid(name, "must be 2^k - 1 in 0..=32767"))?
                }
                "cw_max" => {
                    p.cw_max = u32::try_from(v.to_int(name)?)
                        .map_err(|_| v.invalid(name, "must be 2^k - 1 in 0..=32767"))?
                }
                _ => {
                    let us = v.to_float(name)?;
                    if us < 0.0 {
                        return Err(v.invalid(name, "must not be negative"));
                    }
                    p.txop_limit_ns = (us * 1000.0).round() as u64;
                }
            }
            dev.medium.set_edca(st, q, p).map_err(|e| v.invalid(name, e.to_string()))?;
        }
        ("rates", Scope::Packet(id)) => {
            let r = v.to_rates(name)?;
            let standard = dev.medium.phy().standard;
            if let Some(h) = dev.held_reqs.iter_mut().find(|h| h.1 == i && h.2.id == id) {
                if let Some((bad, _)) =
                    r.entries().iter().find(|(x, _)| !standard.supports(*x) || !x.is_valid())
                {
                    return Err(v.invalid(name, format!("rate {bad} is not supported by this PHY")));
                }
                h.2.rates = Some(r);
                return Ok(());
            }
            if !dev.ifaces[i].pending.contains_key(&id) {
                return Err(ApiError::NoSuchPacket { id });
            }
            dev.medium.set_queued_rates(st, id, r).map_err(|e| match e {
                sdmac_medium::QueuedError::NotQueued { .. } => ApiError::NoSuchPacket { id },
                sdmac_medium::QueuedError::AlreadyStarted { .. } => ApiError::PacketOnAir { id },
                other => v.invalid(name, other.to_string()),
            })?;
        }
        _ => return Err(ApiError::ReadOnly { name: name.to_string() }),
    }
    Ok(())
}
