//! An emu session: a medium on a device thread, and the interfaces it hands out. The
//! session starts the device ([`crate::device`]); the device never reaches back here.

use crate::channel::{rings, Capacities, IfaceShared, SessionShared};
use crate::clock::{EmuClock, TimeSource, VIRTUAL_ORIGIN, V_BUSY, V_DETACHED};
use crate::device::{
    beacon_interval_tu, Addition, Additions, DevIface, Device, DeviceStats, IdHash,
};
use crate::driver::EmuDriver;
use crate::iface::EmuIface;
use crate::profile::DeviceProfile;
use crate::wait::DeviceWait;
use rand_core::SeedableRng;
use sdmac_api::Interface;
use sdmac_frame::MacAddress;
use sdmac_medium::{Medium, StationConfig, StationId, MICROS};
use sdmac_phy::Standard;
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

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
    /// The clock that drives the medium (the wall clock by default).
    pub clock: EmuClock,
    /// On the virtual clock: how long (wall time) time may stand still while an
    /// interface is busy before the device reports which ones it waits for.
    pub watchdog: std::time::Duration,
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
            clock: EmuClock::Wall,
            watchdog: std::time::Duration::from_secs(10),
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
    /// A station added at run time was refused: why.
    Refused(String),
}

impl std::fmt::Display for SessionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SessionError::NoSuchStation(s) => {
                write!(f, "interface on station {s}, but the medium has no such station")
            }
            SessionError::DuplicateStation(s) => write!(f, "two interfaces on station {s}"),
            SessionError::Os(e) => write!(f, "cannot start the device: {e}"),
            SessionError::Refused(why) => write!(f, "cannot add the station: {why}"),
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
    additions: Arc<Additions>,
    opts: EmuOptions,
    standard: Standard,
    /// The BSSID of stations added at run time: the AP's address when the medium had
    /// one at the start.
    ap: Option<MacAddress>,
    /// The session's clock.
    time: TimeSource,
    /// What each interface shares with the device, in the order of `names`.
    parts: Vec<Arc<IfaceShared>>,
}

/// The two sides of a new interface.
#[allow(clippy::too_many_arguments)]
fn new_iface(
    name: &str,
    st: StationId,
    cfg: &StationConfig,
    bssid: MacAddress,
    standard: Standard,
    opts: &EmuOptions,
    session: &Arc<SessionShared>,
    time: &TimeSource,
) -> Result<(DevIface, EmuIface), SessionError> {
    let queues = if cfg.qos { 4 } else { 1 };
    let con = queues * cfg.queue_limit + 16;
    let caps = Capacities { cmd: con + 16, con, ind: opts.ind_capacity.max(1), beacon: 64 };
    let (a, d) = rings(caps);
    let shared = Arc::new(IfaceShared::new().map_err(SessionError::Os)?);
    let dev = DevIface {
        name: name.to_string(),
        time: time.clone(),
        station: st,
        qos: cfg.qos,
        ends: d,
        shared: shared.clone(),
        pending: HashMap::with_capacity_and_hasher(con * 2, IdHash),
        rx_management: false,
        bssid,
        ind_seq: 0,
        beacon_seq: 0,
        spare_ind: None,
    };
    let app = EmuIface {
        name: name.to_string(),
        station: st,
        address: MacAddress(cfg.address),
        bssid,
        qos: cfg.qos,
        standard,
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
        time: time.clone(),
    };
    Ok((dev, app))
}

/// Runs `device` on a thread of its own until the session closes.
fn spawn_device(
    device: Device,
    opts: &EmuOptions,
) -> Result<JoinHandle<Option<Device>>, SessionError> {
    let wakes: Vec<Arc<IfaceShared>> = device.ifaces.iter().map(|d| d.shared.clone()).collect();
    let guard = device.session.clone();
    let cpu = opts.device_cpu;
    std::thread::Builder::new()
        .name("sdmac-emu-device".into())
        .spawn(move || {
            if let Some(cpu) = cpu {
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
        .map_err(SessionError::Os)
}

/// An interface handed out takes part in virtual time (busy until it first waits).
fn take_part(i: &EmuIface) {
    if i.time.is_virtual() {
        i.shared.vstate.store(V_BUSY, Ordering::SeqCst);
        i.session.vstate_changed();
    }
}

impl std::fmt::Debug for EmuSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmuSession").field("interfaces", &self.names).finish()
    }
}

impl EmuSession {
    /// Starts `medium` on a device thread, with one interface per `(name, station)`.
    /// Medium time 0 is now on the wall clock, [`VIRTUAL_ORIGIN`] on the virtual one.
    pub fn start(
        medium: Medium,
        ifaces: &[(&str, StationId)],
        opts: EmuOptions,
    ) -> Result<EmuSession, SessionError> {
        let (mut session, device) = EmuSession::build(medium, ifaces, opts)?;
        session.thread = Some(spawn_device(device, &opts)?);
        Ok(session)
    }

    /// As [`EmuSession::start`], but without a device thread: the caller runs the
    /// medium by calling [`EmuDriver::pass`] (see [`crate::driver`]). Only on the wall
    /// clock: virtual time needs a thread that waits for the applications.
    pub fn start_driven(
        medium: Medium,
        ifaces: &[(&str, StationId)],
        opts: EmuOptions,
    ) -> Result<(EmuSession, EmuDriver), SessionError> {
        if opts.clock == EmuClock::Virtual {
            return Err(SessionError::Refused(
                "a caller-driven medium runs on the wall clock only (virtual time needs the device thread)".into(),
            ));
        }
        let (session, device) = EmuSession::build(medium, ifaces, opts)?;
        let driver = EmuDriver::new(device, session.final_stats.clone());
        Ok((session, driver))
    }

    /// The session and its device, not yet running.
    fn build(
        mut medium: Medium,
        ifaces: &[(&str, StationId)],
        opts: EmuOptions,
    ) -> Result<(EmuSession, Device), SessionError> {
        let n = medium.station_count();
        let mut iface_of = vec![None; n];
        let addrs: Vec<MacAddress> = (0..n)
            .map(|s| MacAddress(medium.station(s as StationId).expect("station").address))
            .collect();
        let session = Arc::new(SessionShared::default());
        // Medium time 0 is now (wall clock), or a fixed instant (virtual clock).
        let origin = match opts.clock {
            EmuClock::Wall => sdmac_rt::monotonic_ns().saturating_sub(medium.now()),
            EmuClock::Virtual => VIRTUAL_ORIGIN,
        };
        let time = TimeSource::new(opts.clock, origin + medium.now());
        let mut dev_ifaces = Vec::new();
        let mut app = Vec::new();
        let mut parts = Vec::new();
        let phy = medium.phy().clone();
        let ap =
            (0..n).find(|&s| medium.station(s as StationId).is_some_and(|c| c.beacon.is_some()));
        let ap_addr = ap.map(|s| addrs[s]);
        for (k, &(name, st)) in ifaces.iter().enumerate() {
            let cfg = medium.station(st).ok_or(SessionError::NoSuchStation(st))?.clone();
            if iface_of[st as usize].is_some() {
                return Err(SessionError::DuplicateStation(st));
            }
            iface_of[st as usize] = Some(k);
            let bssid = ap.map(|s| addrs[s]).unwrap_or(addrs[st as usize]);
            let (d, a) = new_iface(name, st, &cfg, bssid, phy.standard, &opts, &session, &time)?;
            parts.push(a.shared.clone());
            dev_ifaces.push(d);
            app.push(Some(a));
        }
        let beacon_interval_tu = (0..n)
            .map(|s| beacon_interval_tu(medium.station(s as StationId).expect("station")))
            .collect();
        let freq = medium.config().freq_mhz;
        let basic_500k: Vec<u8> = phy.basic_rates.iter().map(|r| (r.kbps() / 500) as u8).collect();
        medium.advance(medium.now(), &mut sdmac_medium::Collect::default());
        let device = Device {
            medium,
            clock: sdmac_medium::WallClock::with_origin(origin),
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
            beacon_rates: crate::frame::beacon_rates(&basic_500k),
            additions: Arc::new(Additions::default()),
            time: time.clone(),
            watchdog_ns: opts.watchdog.as_nanos().min(u64::MAX as u128) as u64,
        };
        let additions = device.additions.clone();
        let session = EmuSession {
            shared: session,
            thread: None,
            ifaces: app,
            names: ifaces.iter().map(|(n, _)| n.to_string()).collect(),
            origin,
            final_stats: Arc::new(Mutex::new(None)),
            additions,
            opts,
            standard: phy.standard,
            ap: ap_addr,
            time,
            parts,
        };
        Ok((session, device))
    }

    /// Adds a station to the running medium, now, with an interface named `name`, and
    /// returns the interface. Refused: a name or address already in use, a session
    /// that has ended.
    pub fn add_station(
        &mut self,
        name: &str,
        cfg: StationConfig,
    ) -> Result<Interface<EmuIface>, SessionError> {
        if self.names.iter().any(|n| n == name) {
            return Err(SessionError::Refused(format!("an interface is named {name:?} already")));
        }
        if self.shared.closed.load(Ordering::Acquire) {
            return Err(SessionError::Refused("the session has ended".into()));
        }
        let own = MacAddress(cfg.address);
        let bssid = self.ap.unwrap_or(own);
        // The id is the device's to give: the interface gets it with the answer.
        let (dev, mut app) = new_iface(
            name,
            StationId::MAX,
            &cfg,
            bssid,
            self.standard,
            &self.opts,
            &self.shared,
            &self.time,
        )?;
        // Handed out at once: it takes part in virtual time from now.
        take_part(&app);
        let shared = app.shared.clone();
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        self.additions.push(Addition { cfg, iface: dev, reply: tx });
        self.shared.device_wake.notify();
        let st = match rx.recv_timeout(std::time::Duration::from_secs(10)) {
            Ok(r) => r.map_err(SessionError::Refused)?,
            Err(_) => return Err(SessionError::Refused("the device thread did not answer".into())),
        };
        app.station = st;
        self.parts.push(shared);
        self.names.push(name.to_string());
        self.ifaces.push(None);
        Ok(Interface::new(app))
    }

    /// Names of the interfaces, in order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Takes interface `name` (each can be taken once). On the virtual clock it takes
    /// part in time from now until it is dropped: take every interface the run uses
    /// before any of them waits (see [`crate::clock`]).
    pub fn take(&mut self, name: &str) -> Option<Interface<EmuIface>> {
        let k = self.names.iter().position(|n| n == name)?;
        self.take_index(k)
    }

    /// Takes interface number `k` (as [`EmuSession::take`]).
    pub fn take_index(&mut self, k: usize) -> Option<Interface<EmuIface>> {
        let i = self.ifaces.get_mut(k)?.take()?;
        take_part(&i);
        Some(Interface::new(i))
    }

    /// On the virtual clock: interface `name` takes no part in time from now on (time
    /// no longer waits for its application), as if dropped; its waits still end at
    /// their deadlines. For an application done with an interface it cannot drop (held
    /// elsewhere, as by Python). False if there is no such interface.
    pub fn take_no_part(&self, name: &str) -> bool {
        let Some(k) = self.names.iter().position(|n| n == name) else { return false };
        if self.time.is_virtual()
            && self.parts[k].vstate.swap(V_DETACHED, Ordering::SeqCst) != V_DETACHED
        {
            self.shared.vstate_changed();
        }
        true
    }

    /// The session's clock.
    pub fn clock(&self) -> EmuClock {
        self.opts.clock
    }

    /// The time now on the session's clock (`CLOCK_MONOTONIC`, or virtual time).
    pub fn now(&self) -> sdmac_api::Time {
        sdmac_api::Time::from_ns(self.time.now())
    }

    /// The watchdog's reports so far: each time virtual time stood still for longer
    /// than [`EmuOptions::watchdog`] while some interface was busy, which ones.
    pub fn stalls(&self) -> Vec<String> {
        self.shared.stalls.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// API time (ns) of medium time 0: `CLOCK_MONOTONIC` at the start on the wall
    /// clock, [`VIRTUAL_ORIGIN`] on the virtual one.
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
