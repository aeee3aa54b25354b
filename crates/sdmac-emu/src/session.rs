//! An emu session: a medium on a device thread, and the interfaces it hands out.

use crate::channel::{rings, Capacities, IfaceShared, SessionShared};
use crate::device::{DevIface, Device, DeviceStats};
use crate::iface::EmuIface;
use crate::profile::DeviceProfile;
use rand_core::SeedableRng;
use sdmac_api::{ApiError, Interface, RateSeries, Scope, Value};
use sdmac_frame::MacAddress;
use sdmac_medium::{Ac, EdcaParams, Medium, StationId, MICROS};
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// How the device thread waits for work.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DeviceWait {
    /// Poll mode: never sleeps (one core busy); the lowest, steadiest latency.
    Spin,
    /// Spins `spin_ns` after its last work, then parks until the next event or a
    /// request (a request that finds it parked costs a `futex` wake-up).
    Park {
        /// Spin budget (ns).
        spin_ns: u64,
    },
}

/// Options of a session.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct EmuOptions {
    /// Device thread waiting.
    pub wait: DeviceWait,
    /// How long an interface's blocking receive spins before parking (ns).
    pub app_spin_ns: u64,
    /// Device latency profile (zero by default).
    pub profile: DeviceProfile,
    /// Seed of the device's latency draws.
    pub seed: u64,
    /// Capacity of each interface's indication ring.
    pub ind_capacity: usize,
    /// Pin the device thread to this CPU.
    pub device_cpu: Option<usize>,
}

impl Default for EmuOptions {
    fn default() -> Self {
        EmuOptions {
            wait: DeviceWait::Park { spin_ns: 200 * MICROS },
            app_spin_ns: 200 * MICROS,
            profile: DeviceProfile::default(),
            seed: 1,
            ind_capacity: 4096,
            device_cpu: None,
        }
    }
}

/// Why a session could not start.
#[derive(Debug)]
pub enum SessionError {
    /// An interface names a station the medium does not have.
    NoSuchStation(StationId),
    /// Two interfaces on one station.
    DuplicateStation(StationId),
    /// The OS refused a resource (thread, eventfd).
    Os(std::io::Error),
}

impl std::fmt::Display for SessionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SessionError::NoSuchStation(s) => {
                write!(f, "interface on station {s}, but the medium has no such station")
            }
            SessionError::DuplicateStation(s) => write!(f, "two interfaces on station {s}"),
            SessionError::Os(e) => write!(f, "cannot start the device: {e}"),
        }
    }
}

impl std::error::Error for SessionError {}

/// A running emulated medium with interfaces.
pub struct EmuSession {
    shared: Arc<SessionShared>,
    thread: Option<JoinHandle<Option<Device>>>,
    ifaces: Vec<Option<EmuIface>>,
    names: Vec<String>,
    origin: u64,
    final_stats: Arc<Mutex<Option<DeviceStats>>>,
}

impl std::fmt::Debug for EmuSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmuSession").field("interfaces", &self.names).finish()
    }
}

impl EmuSession {
    /// Starts `medium` on a device thread, with one interface per `(name, station)`.
    /// Medium time 0 is now.
    pub fn start(
        mut medium: Medium,
        ifaces: &[(&str, StationId)],
        opts: EmuOptions,
    ) -> Result<EmuSession, SessionError> {
        let n = medium.station_count();
        let mut iface_of = vec![None; n];
        let addrs: Vec<MacAddress> = (0..n)
            .map(|s| MacAddress(medium.station(s as StationId).expect("station").address))
            .collect();
        let session = Arc::new(SessionShared::default());
        let mut dev_ifaces = Vec::new();
        let mut app = Vec::new();
        let phy = medium.phy().clone();
        let ap =
            (0..n).find(|&s| medium.station(s as StationId).is_some_and(|c| c.beacon.is_some()));
        for (k, &(name, st)) in ifaces.iter().enumerate() {
            let cfg = medium.station(st).ok_or(SessionError::NoSuchStation(st))?.clone();
            if iface_of[st as usize].is_some() {
                return Err(SessionError::DuplicateStation(st));
            }
            iface_of[st as usize] = Some(k);
            let queues = if cfg.qos { 4 } else { 1 };
            let con = queues * cfg.queue_limit + 16;
            let caps = Capacities { cmd: con + 16, con, ind: opts.ind_capacity.max(1), beacon: 64 };
            let (a, d) = rings(caps);
            let shared = Arc::new(IfaceShared::new().map_err(SessionError::Os)?);
            dev_ifaces.push(DevIface {
                station: st,
                qos: cfg.qos,
                ends: d,
                shared: shared.clone(),
                pending: HashMap::with_capacity_and_hasher(con * 2, crate::device::IdHash),
                rx_management: false,
                bssid: ap.map(|s| addrs[s]).unwrap_or(addrs[st as usize]),
                ind_seq: 0,
                beacon_seq: 0,
            });
            let bssid = ap.map(|s| addrs[s]).unwrap_or(addrs[st as usize]);
            app.push(Some(EmuIface {
                name: name.to_string(),
                station: st,
                address: addrs[st as usize],
                bssid,
                qos: cfg.qos,
                standard: phy.standard,
                queue_limit: cfg.queue_limit,
                con_capacity: con,
                spin_ns: opts.app_spin_ns,
                ends: a,
                shared,
                session: session.clone(),
                submitted: [0; 4],
                submitted_total: 0,
                confirmed_read: 0,
                confirmed_ac: [0; 4],
                free: Vec::with_capacity(con),
                header: Default::default(),
            }));
        }
        let beacon_interval_tu = (0..n)
            .map(|s| {
                medium
                    .station(s as StationId)
                    .and_then(|c| c.beacon)
                    .map_or(100, |b| (b.interval_ns / 1_024_000) as u16)
            })
            .collect();
        let freq = medium.config().freq_mhz;
        let basic_500k = phy.basic_rates.iter().map(|r| (r.kbps() / 500) as u8).collect();
        // Medium time 0 is now: start the medium's clock at the current instant.
        let origin = sdmac_rt::monotonic_ns().saturating_sub(medium.now());
        medium.advance(medium.now(), &mut sdmac_medium::Collect::default());
        let device = Device {
            medium,
            origin,
            ifaces: dev_ifaces,
            iface_of,
            addrs,
            session: session.clone(),
            profile: opts.profile,
            rng: rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(opts.seed),
            wait: opts.wait,
            held_reqs: Default::default(),
            held_cons: Default::default(),
            stats: DeviceStats::default(),
            beacon_interval_tu,
            channel: sdmac_frame::channel::number(freq),
            basic_500k,
        };
        let wakes: Vec<Arc<IfaceShared>> = device.ifaces.iter().map(|d| d.shared.clone()).collect();
        let guard = session.clone();
        let thread = std::thread::Builder::new()
            .name("sdmac-emu-device".into())
            .spawn(move || {
                if let Some(cpu) = opts.device_cpu {
                    // Best effort: a CPU outside the process's set is ignored.
                    let _ = sdmac_rt::affinity::pin_current(cpu);
                }
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| device.run()));
                if r.is_err() {
                    // A device that died must not leave callers waiting for ever: the
                    // session is closed, and every waiting caller is woken to see it.
                    guard.closed.store(true, Ordering::Release);
                    for w in &wakes {
                        w.signal();
                    }
                }
                r.ok()
            })
            .map_err(SessionError::Os)?;
        Ok(EmuSession {
            shared: session,
            thread: Some(thread),
            ifaces: app,
            names: ifaces.iter().map(|(n, _)| n.to_string()).collect(),
            origin,
            final_stats: Arc::new(Mutex::new(None)),
        })
    }

    /// Names of the interfaces, in order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Takes interface `name` (each can be taken once).
    pub fn take(&mut self, name: &str) -> Option<Interface<EmuIface>> {
        let k = self.names.iter().position(|n| n == name)?;
        self.ifaces[k].take().map(Interface::new)
    }

    /// Takes interface number `k`.
    pub fn take_index(&mut self, k: usize) -> Option<Interface<EmuIface>> {
        self.ifaces.get_mut(k)?.take().map(Interface::new)
    }

    /// `CLOCK_MONOTONIC` (ns) of medium time 0.
    pub fn origin(&self) -> u64 {
        self.origin
    }

    /// Stops the device thread. Requests still queued are confirmed as
    /// `Dropped(Closed)`; interfaces return `Closed` from then on.
    pub fn close(&mut self) {
        self.shared.closed.store(true, Ordering::Release);
        self.shared.device_wake.notify();
        if let Some(t) = self.thread.take() {
            if let Ok(Some(dev)) = t.join() {
                *self.final_stats.lock().unwrap_or_else(|e| e.into_inner()) = Some(dev.stats);
            }
        }
    }
}

impl Drop for EmuSession {
    fn drop(&mut self) {
        self.close();
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
