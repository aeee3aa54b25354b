//! `sdmac-tap SCENARIO.toml`: every station of the scenario's first medium gets a
//! TAP device in a network namespace of its own (`sdmac-<station>`), and IP
//! traffic between the namespaces crosses the emulated medium. Without an AP in the
//! scenario the stations form an IBSS; with one (`ap = true`), the others
//! authenticate and associate with it through management frames handled on a
//! thread of their own, and their traffic goes through it. Runs until Ctrl-C
//! (SIGINT) or SIGTERM, or for `--duration` seconds; then removes everything it
//! made and prints the statistics of each station.
//!
//! `--backend hwsim:wlan0,hwsim:wlan1` puts the stations (in order) on radios
//! instead: each station's frames go through a monitor interface on its radio
//! (for `hwsim`, with `sdmac-mediumd` as the medium, its control socket in
//! `SDMAC_MEDIUMD_SOCKET`), and its address is the radio's.

use sdmac_api::attribute::format_position;
use sdmac_api::{BackendName, Interface, Scope, Value as AttrValue};
use sdmac_control::mininet::{Request, UpdateResult};
use sdmac_emu::{EmuOptions, EmuSession};
use sdmac_medium::{StationConfig, StationId};
use sdmac_tap::backend::{self, StationBackend};
use sdmac_tap::capture;
use sdmac_tap::control::ControlServer;
use sdmac_tap::datapath::{MgmtLink, PathError, PathRole, StationPath, Stats};
use sdmac_tap::mgmt::{self, Manager, MgmtFrame};
use sdmac_tap::netns::{self, Namespaces, SetupError, TapConfig};
use sdmac_tap::runner::{self, PathHandle, Runner};
use sdmac_tap::stations::StationTable;
use sdmac_tap::{Ds, TxParams};
use sdmac_types::MacAddress;
use serde_json::{json, Value};
use std::net::Ipv4Addr;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, RecvTimeoutError, SyncSender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

const USAGE: &str = "usage: sdmac-tap SCENARIO.toml [--subnet A.B.C.D/LEN] [--prefix NAME] \
[--ifname NAME] [--mtu BYTES] [--duration SECONDS] [--busy-poll] [--tap-io uring|syscalls] [--seed N] \
[--one-thread] [--realtime PRIO] [--json FILE] [--ready-file FILE] [--pcap FILE] [--control SOCKET] [--reserve N] [--max-stations N] \
[--backend NAME,NAME,...] [--radio-rates SERIES] [--freq MHZ]";

/// The beacon interval of an AP on a radio, which sends its own beacons (TU).
const BEACON_INTERVAL_TU: u16 = 100;

/// The station table's size without `--max-stations`.
const DEFAULT_MAX_STATIONS: usize = 64;
/// The largest association id (IEEE 802.11: 1..=2007), which bounds `--max-stations`.
const MAX_AID: u16 = 2007;

/// What a station's data path ends with: its counters, and why it stopped early.
type Outcome = runner::Outcome;

struct Args {
    scenario: String,
    subnet: (Ipv4Addr, u8),
    prefix: String,
    ifname: String,
    mtu: u32,
    duration: Option<f64>,
    busy_poll: bool,
    /// Serve the TAP devices with io_uring (`--tap-io uring`, the default).
    uring: bool,
    /// `--tap-io` was given.
    tap_io_given: bool,
    /// `--one-thread`: every data path and the emulated medium on one thread.
    one_thread: bool,
    /// `--realtime PRIO`: the data-path threads under SCHED_FIFO at this priority.
    realtime: Option<i32>,
    seed: u64,
    json: Option<String>,
    ready_file: Option<String>,
    pcap: Option<String>,
    /// `--control PATH`: the control socket.
    control: Option<String>,
    /// `--reserve N`: stations on the medium from the start, brought up at run time.
    reserve: usize,
    /// `--max-stations N`: the station table's size (scenario, pool and added).
    max_stations: usize,
    /// `--backend`: one radio per station, in order; empty: the emulated medium.
    backends: Vec<BackendName>,
    /// `--radio-rates`: the radios' `default_rates`.
    radio_rates: Option<String>,
    /// `--freq`: the radios' channel (MHz).
    freq_mhz: Option<u32>,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        scenario: String::new(),
        subnet: (Ipv4Addr::new(10, 0, 0, 0), 24),
        prefix: "sdmac-".into(),
        ifname: "sdmac0".into(),
        mtu: 1500,
        duration: None,
        busy_poll: false,
        uring: true,
        tap_io_given: false,
        one_thread: false,
        realtime: None,
        seed: 1,
        json: None,
        ready_file: None,
        pcap: None,
        control: None,
        reserve: 0,
        max_stations: DEFAULT_MAX_STATIONS,
        backends: Vec::new(),
        radio_rates: None,
        freq_mhz: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut val = |name: &str| it.next().ok_or_else(|| format!("{name} needs a value"));
        match arg.as_str() {
            "-h" | "--help" => return Err(String::new()),
            "--subnet" => a.subnet = netns::parse_cidr(&val("--subnet")?)?,
            "--prefix" => a.prefix = val("--prefix")?,
            "--ifname" => a.ifname = val("--ifname")?,
            "--mtu" => {
                let v = val("--mtu")?;
                a.mtu = v.parse().map_err(|_| format!("--mtu {v:?}: not a number"))?;
                let max = (sdmac_tap::convert::MAX_ETH_FRAME - 14) as u32;
                if !(68..=max).contains(&a.mtu) {
                    return Err(format!("--mtu {}: must be within 68..={max}", a.mtu));
                }
            }
            "--duration" => {
                let v = val("--duration")?;
                let d: f64 = v.parse().map_err(|_| format!("--duration {v:?}: not a number"))?;
                if !(d > 0.0 && d.is_finite()) {
                    return Err(format!("--duration {v}: must be a positive number of seconds"));
                }
                a.duration = Some(d);
            }
            "--busy-poll" => a.busy_poll = true,
            "--one-thread" => a.one_thread = true,
            "--realtime" => {
                let v = val("--realtime")?;
                let p: i32 = v.parse().map_err(|_| format!("--realtime {v:?}: not a number"))?;
                if !(1..=99).contains(&p) {
                    return Err(format!("--realtime {p}: a SCHED_FIFO priority is within 1..=99"));
                }
                a.realtime = Some(p);
            }
            "--tap-io" => {
                a.tap_io_given = true;
                a.uring = match val("--tap-io")?.as_str() {
                    "uring" => true,
                    "syscalls" => false,
                    v => return Err(format!("--tap-io {v:?}: must be uring or syscalls")),
                }
            }
            "--seed" => {
                let v = val("--seed")?;
                a.seed = v.parse().map_err(|_| format!("--seed {v:?}: not a number"))?;
            }
            "--json" => a.json = Some(val("--json")?),
            "--ready-file" => a.ready_file = Some(val("--ready-file")?),
            "--pcap" => a.pcap = Some(val("--pcap")?),
            "--backend" => a.backends = backend::parse_list(&val("--backend")?)?,
            "--radio-rates" => a.radio_rates = Some(val("--radio-rates")?),
            "--freq" => {
                let v = val("--freq")?;
                let f: u32 = v.parse().map_err(|_| format!("--freq {v:?}: not a number of MHz"))?;
                if !(2400..=7200).contains(&f) {
                    return Err(format!("--freq {f}: not a 2.4, 5 or 6 GHz channel (MHz)"));
                }
                a.freq_mhz = Some(f);
            }
            "--control" => a.control = Some(val("--control")?),
            "--reserve" => {
                let v = val("--reserve")?;
                a.reserve = v.parse().map_err(|_| format!("--reserve {v:?}: not a number"))?;
                if a.reserve > 64 {
                    return Err(format!("--reserve {}: at most 64", a.reserve));
                }
            }
            "--max-stations" => {
                let v = val("--max-stations")?;
                a.max_stations =
                    v.parse().map_err(|_| format!("--max-stations {v:?}: not a number"))?;
                if !(2..=MAX_AID as usize).contains(&a.max_stations) {
                    return Err(format!(
                        "--max-stations {}: must be within 2..={MAX_AID} (an AP's association ids)",
                        a.max_stations
                    ));
                }
            }
            s if s.starts_with('-') => return Err(format!("unknown option {s}")),
            s => {
                if !a.scenario.is_empty() {
                    return Err(format!("one scenario only (got {:?} and {s:?})", a.scenario));
                }
                a.scenario = s.to_string();
            }
        }
    }
    if a.scenario.is_empty() {
        return Err("no scenario given".into());
    }
    if a.reserve > 0 && a.control.is_none() {
        return Err("--reserve needs --control (stations are added through it)".into());
    }
    if a.backends.is_empty() && (a.radio_rates.is_some() || a.freq_mhz.is_some()) {
        return Err("--radio-rates and --freq apply to radios, and --backend names none".into());
    }
    if a.one_thread {
        if a.uring && a.tap_io_given {
            return Err("--one-thread serves every TAP device from one poll, with one read or write per frame; --tap-io uring needs a thread per station".into());
        }
        a.uring = false;
    }
    if !a.backends.is_empty() && a.reserve > 0 {
        return Err("--reserve applies to the emulated medium, and --backend names radios".into());
    }
    Ok(a)
}

/// One station of the medium, as the run sets it up.
struct Station {
    name: String,
    id: StationId,
    address: MacAddress,
    netns: String,
    ipv4: Ipv4Addr,
    /// The scenario marks it an AP (`ap = true`).
    ap: bool,
    /// From the reserved pool (`--reserve`): up only once added at run time.
    reserved: bool,
    /// A QoS station (`qos = true`): frames go on the AC of their priority.
    qos: bool,
}

struct Plan {
    stations: Vec<Station>,
    /// The medium, until the session takes it.
    medium: Option<sdmac_medium::Medium>,
    bssid: MacAddress,
    /// Index of the AP in `stations`; `None`: an IBSS.
    ap: Option<usize>,
    /// The configuration stations added at run time copy: the first non-AP
    /// station's, without flows or beacons.
    model: StationConfig,
    /// How many stations the scenario has (the pool and added ones come after).
    scenario_stations: usize,
}

fn plan(a: &Args) -> Result<Plan, String> {
    let text = std::fs::read_to_string(&a.scenario)
        .map_err(|e| format!("cannot read {}: {e}", a.scenario))?;
    let sc = sdmac_sim::Scenario::parse(&text, &a.scenario).map_err(|e| e.to_string())?;
    let mut built = sdmac_sim::runner::build(&sc).map_err(|e| e.to_string())?;
    if built.is_empty() {
        return Err(format!("{}: the scenario has no medium", a.scenario));
    }
    let b = built.swap_remove(0);
    let mut stations = Vec::new();
    for (k, &si) in b.stations.iter().enumerate() {
        let spec = &sc.stations[si];
        let ipv4 = netns::host_address(a.subnet, k as u32 + 1).ok_or_else(|| {
            format!(
                "subnet {}/{} has no room for {} stations",
                a.subnet.0,
                a.subnet.1,
                b.stations.len()
            )
        })?;
        let netns = format!("{}{}", a.prefix, spec.name);
        if netns.contains('/') || netns.len() > 64 {
            return Err(format!("station {:?}: namespace name {netns:?} is not usable", spec.name));
        }
        stations.push(Station {
            name: spec.name.clone(),
            id: k as StationId,
            address: MacAddress(spec.address),
            netns,
            ipv4,
            ap: spec.raw.ap == Some(true),
            reserved: false,
            qos: b.medium.station(k as StationId).is_some_and(|c| c.qos),
        });
    }
    if stations.len() < 2 {
        return Err(format!(
            "{}: the first medium has {} station(s); traffic needs two",
            a.scenario,
            stations.len()
        ));
    }
    let aps: Vec<usize> = (0..stations.len()).filter(|&k| stations[k].ap).collect();
    if aps.len() > 1 {
        return Err(format!(
            "{}: the first medium has {} APs; sdmac tap runs one BSS per medium",
            a.scenario,
            aps.len()
        ));
    }
    if !a.backends.is_empty() {
        if a.backends.len() != stations.len() {
            return Err(format!(
                "--backend names {} radio(s) and {} has {} stations in its first medium: one radio per station",
                a.backends.len(),
                a.scenario,
                stations.len()
            ));
        }
        if let (Some(&k), None) = (aps.first(), a.freq_mhz) {
            return Err(format!(
                "{}: station {} is an AP, and on radios it sends its own beacons, which name their channel: give it with --freq",
                a.scenario, stations[k].name
            ));
        }
    }
    let bssid = match aps.first() {
        Some(&k) => stations[k].address,
        None => ibss_bssid(stations[0].address),
    };
    // The reserved pool: stations on the medium from the start (the emulated medium
    // cannot take a station once it runs), silent until added through the control
    // socket. Each is a copy of the first non-AP station (its PHY settings, rates
    // and queues), without flows, 1 m further along x per slot.
    let mut medium = b.medium;
    let model = (0..stations.len()).find(|&k| !stations[k].ap).unwrap_or(0);
    let mut base = medium.station(stations[model].id).expect("a station of the medium").clone();
    base.beacon = None;
    base.flows.clear();
    let first = stations.len();
    if first + a.reserve > a.max_stations {
        return Err(format!(
            "--max-stations {}: the scenario has {first} stations and --reserve {} more",
            a.max_stations, a.reserve
        ));
    }
    for r in 0..a.reserve {
        let name = format!("r{}", r + 1);
        if stations.iter().any(|s| s.name == name) {
            return Err(format!("--reserve: the scenario has a station named {name} already"));
        }
        let address = MacAddress([0x02, 0x5d, 0xac, 0xfe, 0x00, r as u8 + 1]);
        if stations.iter().any(|s| s.address == address) {
            return Err(format!("--reserve: the scenario uses address {address}, reserved"));
        }
        let k = first + r;
        let id = medium.add_station(extra_station(&base, address, k - first));
        let ipv4 = netns::host_address(a.subnet, k as u32 + 1).ok_or_else(|| {
            format!("subnet {}/{} has no room for {} stations", a.subnet.0, a.subnet.1, k + 1)
        })?;
        stations.push(Station {
            netns: format!("{}{name}", a.prefix),
            name,
            id,
            address,
            ipv4,
            ap: false,
            reserved: true,
            qos: base.qos,
        });
    }
    Ok(Plan {
        stations,
        medium: Some(medium),
        bssid,
        ap: aps.first().copied(),
        model: base,
        scenario_stations: first,
    })
}

/// The configuration of the `n`th station beyond the scenario's (0 first: the pool,
/// then those added at run time): `model`'s with address `address`, `n + 1` m
/// further along x.
fn extra_station(model: &StationConfig, address: MacAddress, n: usize) -> StationConfig {
    let mut cfg = model.clone();
    cfg.address = address.0;
    cfg.position = [model.position[0] + 1.0 + n as f64, model.position[1], model.position[2]];
    cfg
}

/// An IBSS's BSSID: locally administered, derived from the first station's address.
fn ibss_bssid(first: MacAddress) -> MacAddress {
    let mut b = first.0;
    b[0] = (b[0] | 0x02) & !0x01;
    b[5] ^= 0x80;
    MacAddress(b)
}

/// What a data frame adds to an Ethernet payload on air: a 3-address non-QoS header
/// (24 bytes) and LLC/SNAP (8).
const DATA_OVERHEAD: usize = 24 + 8;

/// Opens the radios of `--backend` (none: an empty list); each station takes its
/// radio's address, and the IBSS its BSSID from the first. The TAP devices' MTU is
/// lowered to what the radios carry in one frame, if that is less.
fn open_radios(a: &mut Args, p: &mut Plan) -> Result<Vec<Option<StationBackend>>, String> {
    let mut opts = sdmac_open::OpenOptions::default();
    opts.linux.freq_mhz = a.freq_mhz;
    let mut radios = Vec::new();
    for (s, name) in p.stations.iter_mut().zip(&a.backends) {
        let r = backend::open_radio(name, &opts, a.radio_rates.as_deref())
            .map_err(|e| format!("station {}: {e}", s.name))?;
        s.address = r.address;
        if let Some(max) = r.max_frame {
            // An Ethernet payload goes out behind a 3-address header and LLC/SNAP.
            let mtu = max.saturating_sub(DATA_OVERHEAD) as u32;
            if mtu < 68 {
                return Err(format!(
                    "station {}: {name} carries frames of {max} bytes at most: too short for IP",
                    s.name
                ));
            }
            if mtu < a.mtu {
                eprintln!("sdmac-tap: station {}: {name} carries frames of {max} bytes at most: MTU {mtu}, not {}", s.name, a.mtu);
                a.mtu = mtu;
            }
        }
        radios.push(Some(r.backend));
    }
    if !radios.is_empty() {
        p.bssid = match p.ap {
            Some(k) => p.stations[k].address,
            None => ibss_bssid(p.stations[0].address),
        };
    }
    Ok(radios)
}

fn report_line(name: &str, s: &Stats) -> String {
    let drops: Vec<String> = sdmac_tap::DropReason::ALL
        .iter()
        .filter(|r| s.drops_for(**r) > 0)
        .map(|r| format!("{}={}", r.name(), s.drops_for(*r)))
        .collect();
    format!(
        "{name:>10}: tap->air {} (acked {}, ack_timeout {}, sent {}, dropped {}, retries {}) | air->tap {} of {} | drops: {}",
        s.tap_rx_frames,
        s.tx_acked,
        s.tx_ack_timeout,
        s.tx_sent,
        s.tx_dropped,
        s.tx_retries,
        s.tap_tx_frames,
        s.rx_indications,
        if drops.is_empty() { "none".to_string() } else { drops.join(" ") }
    )
}

/// The hidden fault injection `SDMAC_TAP_PANIC_AFTER=STATION:FRAMES`: that station's
/// thread panics once that many frames went through its data path (for the test of
/// the clean-up after a crash).
fn panic_after() -> Result<Option<(String, u64)>, String> {
    let Ok(v) = std::env::var("SDMAC_TAP_PANIC_AFTER") else { return Ok(None) };
    let bad = || format!("SDMAC_TAP_PANIC_AFTER={v:?}: must be STATION:FRAMES");
    let (name, n) = v.split_once(':').ok_or_else(bad)?;
    Ok(Some((name.to_string(), n.parse().map_err(|_| bad())?)))
}

/// A request for a running station's MAC, from the control socket.
enum StationCtl {
    /// Set an adapter attribute of the station's interface (`tx_power`, `position`);
    /// the answer goes back on the channel.
    Set(&'static str, AttrValue, SyncSender<Result<(), String>>),
}

/// Where a station's data path runs.
enum Worker {
    /// A thread of its own.
    Thread(JoinHandle<Outcome>),
    /// The one-thread loop (`--one-thread`).
    Loop(PathHandle),
}

impl Worker {
    fn is_finished(&self) -> bool {
        match self {
            Worker::Thread(t) => t.is_finished(),
            Worker::Loop(h) => h.is_finished(),
        }
    }

    /// Its outcome once it ends (stop it first); `None` if it panicked.
    fn join(self) -> Option<Outcome> {
        match self {
            Worker::Thread(t) => t.join().ok(),
            Worker::Loop(h) => h.join(),
        }
    }
}

/// A station whose data path runs.
struct Running {
    thread: Worker,
    stop: Arc<AtomicBool>,
    mgmt: Option<JoinHandle<Manager>>,
    ctl: SyncSender<StationCtl>,
}

/// What a station is at a moment of the run.
#[allow(clippy::large_enum_variant)] // one per station
enum Slot {
    /// Reserved, not added: its interface waits here.
    Idle(Box<Interface<StationBackend>>),
    /// Up.
    Up(Running),
    /// Ended: what its thread returned (None: it panicked), and its management
    /// thread's counters.
    Done(Option<Outcome>, Option<Manager>),
}

/// What every station thread is started with.
struct Shared<'a> {
    a: &'a Args,
    bssid: MacAddress,
    /// Index of the AP; `None`: an IBSS.
    ap: Option<usize>,
    /// Every station's address (index: its place in the run's list) and, for the
    /// AP, whether it is associated; grows as stations are added.
    table: Arc<StationTable>,
    fault: Option<(String, u64)>,
    /// What stations added at run time copy (see [`Plan::model`]).
    model: StationConfig,
    /// How many stations the scenario has.
    scenario_stations: usize,
    /// On radios: the channel the AP's own beacons name (`--freq`'s); `None` on the
    /// emulated medium, whose engine beacons for the AP.
    beacon_channel: Option<u8>,
    /// `--one-thread`: the loop that serves every data path (and the emulated medium).
    runner: Option<&'a Runner<StationBackend>>,
}

/// What changes while the run goes on: the stations (they grow as some are added)
/// and what each one is at the moment, and the capture ends not yet handed out.
struct Live {
    stations: Vec<Station>,
    slots: Vec<Slot>,
    capture_ends: Vec<Option<capture::CaptureEnd>>,
    /// With `--pcap`: the writer's channel and where a new data path announces its
    /// way back, for stations added at run time.
    capture_more: Option<(SyncSender<Box<capture::Record>>, NewEnds)>,
}

/// Where a data path started late announces its origin and the channel its
/// capture records go back on.
type NewEnds = std::sync::mpsc::Sender<(u16, SyncSender<Box<capture::Record>>)>;

/// Starts station `k` (`s`)'s data path (and, in an AP's BSS, its management
/// thread) on `iface` and its TAP device.
fn start_station(
    sh: &Shared,
    k: usize,
    s: &Station,
    mut iface: Interface<StationBackend>,
    tap: netns::TapDevice,
    cap: Option<capture::CaptureEnd>,
) -> Result<Running, String> {
    let p = sh;
    let station_stop = Arc::new(AtomicBool::new(false));
    let ds = match p.ap {
        None => Ds::Ibss,
        Some(ap) if ap == k => Ds::FromAp,
        Some(_) => Ds::ToAp,
    };
    let params = TxParams { own: s.address, bssid: p.bssid, ds, qos_tid: None };
    // Management (AP role): its own thread, linked to the data path by two bounded
    // channels.
    let mut mgmt_thread = None;
    let role_link = match p.ap {
        None => None,
        Some(ap) => {
            // The emulated medium hands management frames to data_ind when asked;
            // a radio backend always does (and its beacons to beacon_ind).
            if matches!(iface.backend(), StationBackend::Emu(_)) {
                iface
                    .set("rx_management", Scope::Adapter, true)
                    .map_err(|e| format!("station {}: rx_management: {e}", s.name))?;
            }
            let (to_mgmt, mgmt_rx) = sync_channel::<MgmtFrame>(64);
            let (mgmt_tx, from_mgmt) = sync_channel::<MgmtFrame>(64);
            let (role, path_role) = if ap == k {
                (
                    mgmt::Role::Ap {
                        stations: sh.table.clone(),
                        aids: vec![0; sh.table.capacity()],
                    },
                    PathRole::Ap,
                )
            } else {
                let associated = Arc::new(AtomicBool::new(false));
                (
                    mgmt::Role::Sta {
                        state: mgmt::StaState::Scanning,
                        associated: associated.clone(),
                    },
                    PathRole::Sta { associated },
                )
            };
            let mut m = Manager::new(s.address, p.bssid, role);
            if let (Some(ch), true) = (sh.beacon_channel, ap == k) {
                // On a radio nothing else beacons for the AP: its manager does.
                m = m.with_beacons(ch, BEACON_INTERVAL_TU);
            }
            let stop = station_stop.clone();
            let t = std::thread::Builder::new()
                .name(format!("mgmt-{}", s.name))
                .spawn(move || {
                    let t0 = Instant::now();
                    let now = || t0.elapsed().as_nanos() as u64;
                    while !stop.load(Ordering::Relaxed) {
                        // At most 20 ms, and no later than the next beacon.
                        let wait = m.next_due().map_or(20_000_000, |d| d.saturating_sub(now()));
                        let out = match mgmt_rx
                            .recv_timeout(Duration::from_nanos(wait.min(20_000_000)))
                        {
                            Ok(f) => m.handle(f.as_slice(), now()),
                            Err(RecvTimeoutError::Timeout) => None,
                            Err(RecvTimeoutError::Disconnected) => break,
                        };
                        // Timers (a retry, a beacon) run however busy the channel is.
                        let due = m.tick(now());
                        if out.into_iter().chain(due).any(|f| mgmt_tx.send(f).is_err()) {
                            break;
                        }
                    }
                    m
                })
                .map_err(|e| format!("cannot start a management thread: {e}"))?;
            mgmt_thread = Some(t);
            Some((path_role, MgmtLink { to_mgmt, from_mgmt }))
        }
    };
    let stop = station_stop.clone();
    let table = sh.table.clone();
    let on_radio = matches!(iface.backend(), StationBackend::Radio(_));
    let label = format!("{} (namespace {})", s.name, s.netns);
    let (ctl, ctl_rx) = sync_channel::<StationCtl>(4);
    let between = move |iface: &mut Interface<StationBackend>| {
        while let Ok(StationCtl::Set(name, value, answer)) = ctl_rx.try_recv() {
            let r = iface.set(name, Scope::Adapter, value).map_err(|e| e.to_string());
            let _ = answer.send(r);
        }
    };
    // The one-thread loop runs the emulated medium between the paths' passes, so an
    // interface there has nothing to be woken for; a radio's still signals.
    let signalled = sh.runner.is_none() || on_radio;
    let mut path = {
        use std::os::fd::AsRawFd;
        StationPath::with_signalling(
            iface,
            tap.as_raw_fd(),
            params,
            table,
            sh.a.busy_poll,
            signalled,
        )
        .with_qos(s.qos)
    };
    if let Some((role, link)) = role_link {
        path = path.with_role(role, link).with_beacons_from_ind(on_radio);
    }
    if let Some(c) = cap {
        path = path.with_capture(c);
    }
    if let Some(n) = sh.fault.as_ref().filter(|f| f.0 == s.name).map(|f| f.1) {
        path.panic_after(n);
    }
    if let Some(runner) = sh.runner {
        let h = runner.add(path, tap, Box::new(between), label)?;
        return Ok(Running { thread: Worker::Loop(h), stop: station_stop, mgmt: mgmt_thread, ctl });
    }
    let uring = sh.a.uring;
    let realtime = sh.a.realtime;
    let thread = std::thread::Builder::new()
        .name(format!("tap-{}", s.name))
        .spawn(move || {
            if let Some(p) = realtime {
                // Checked at the start; a failure here leaves the normal policy.
                if let Err(e) = sdmac_rt::affinity::realtime_current(p) {
                    eprintln!("sdmac-tap: station {label}: --realtime {p}: {e}");
                }
            }
            if uring {
                if let Err(e) = path.use_io_uring() {
                    eprintln!(
                        "sdmac-tap: station {label}: io_uring not available ({e}); one read or write per frame"
                    );
                }
            }
            let r = path.run_with(&stop, between);
            if let Err(e) = &r {
                if !stop.load(Ordering::Relaxed) {
                    eprintln!("sdmac-tap: station {label}: {e}; the other stations keep running");
                }
            }
            let stats = path.stats.clone();
            // The path first: its ring cancels the reads armed on the device.
            drop(path);
            drop(tap);
            (stats, r.err().map(|e: PathError| e.to_string()))
        });
    let thread = thread.map_err(|e| format!("cannot start a station thread: {e}"))?;
    Ok(Running { thread: Worker::Thread(thread), stop: station_stop, mgmt: mgmt_thread, ctl })
}

/// The ready file's document: the BSS, the stations up now and those of the reserved
/// pool not yet added (each with its namespace, device, addresses and role).
fn ready_json(
    a: &Args,
    bssid: MacAddress,
    ap: Option<usize>,
    live: &Live,
    table: &StationTable,
) -> Value {
    let station_json = |k: usize, s: &Station| {
        json!({
            "name": s.name, "netns": s.netns, "ifname": a.ifname,
            "address": s.address.to_string(), "ipv4": s.ipv4.to_string(), "id": s.id,
            "role": match ap { None => "ibss", Some(x) if x == k => "ap", _ => "sta" },
            "associated": table.is_associated(k) || ap.is_none(),
        })
    };
    let with = |want: fn(&Slot) -> bool| -> Vec<Value> {
        live.stations
            .iter()
            .zip(&live.slots)
            .enumerate()
            .filter(|(_, (_, slot))| want(slot))
            .map(|(k, (s, _))| station_json(k, s))
            .collect()
    };
    json!({
        "bssid": bssid.to_string(),
        "mode": if ap.is_some() { "ap" } else { "ibss" },
        "stations": with(|slot| matches!(slot, Slot::Up(_))),
        "reserved": with(|slot| matches!(slot, Slot::Idle(_))),
        "control": a.control,
    })
}

/// Writes the ready file whole: to a temporary file beside it, renamed over it, so a
/// reader never sees half a document.
fn write_ready(path: &str, doc: &Value) -> Result<(), String> {
    let tmp = format!("{path}.tmp");
    std::fs::write(&tmp, doc.to_string())
        .and_then(|()| std::fs::rename(&tmp, path))
        .map_err(|e| format!("cannot write {path}: {e}"))
}

/// Creates station `k`'s namespace and TAP device.
fn make_tap(a: &Args, s: &Station, spaces: &mut Namespaces) -> Result<netns::TapDevice, String> {
    spaces.create(&s.netns).map_err(|e: SetupError| e.to_string())?;
    let cfg = TapConfig {
        netns: s.netns.clone(),
        ifname: a.ifname.clone(),
        mac: s.address,
        ipv4: Some((s.ipv4, a.subnet.1)),
        mtu: a.mtu,
    };
    netns::create_tap(&cfg).map_err(|e| format!("station {} (namespace {}): {e}", s.name, s.netns))
}

/// Stops a running station and waits for its threads.
fn stop_station(r: Running) -> Slot {
    r.stop.store(true, Ordering::Relaxed);
    let out = r.thread.join();
    let m = r.mgmt.and_then(|t| t.join().ok());
    Slot::Done(out, m)
}

fn run(mut a: Args) -> Result<bool, String> {
    netns::check_prerequisites().map_err(|e| e.to_string())?;
    let mut p = plan(&a)?;
    let mut radios = open_radios(&mut a, &mut p)?;
    let fault = panic_after()?;
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(sig, stop.clone())
            .map_err(|e| format!("cannot handle signal {sig}: {e}"))?;
    }
    if let Some(p) = a.realtime {
        // Tried on a thread of its own first, so that a refusal is an error at the
        // start rather than a line from every data path.
        let r = std::thread::spawn(move || sdmac_rt::affinity::realtime_current(p))
            .join()
            .map_err(|_| "the --realtime probe panicked".to_string())?;
        r.map_err(|e| {
            format!(
                "--realtime {p}: cannot put a thread under SCHED_FIFO: {e} (needs CAP_SYS_NICE)"
            )
        })?;
    }
    let mut control = match &a.control {
        Some(path) => Some(ControlServer::bind(std::path::Path::new(path))?),
        None => None,
    };
    // From here on, everything made is owned by `spaces` (namespaces) and the TAP
    // descriptors, which the station threads hold; both go on every way out.
    let mut spaces = Namespaces::new();
    let mut taps = Vec::new();
    for s in p.stations.iter().filter(|s| !s.reserved) {
        if stop.load(Ordering::Relaxed) {
            return Err("interrupted during set-up".into());
        }
        taps.push(Some(make_tap(&a, s, &mut spaces)?));
    }
    let medium = p.medium.take().expect("the plan's medium");
    let ifs: Vec<(&str, StationId)> = p.stations.iter().map(|s| (s.name.as_str(), s.id)).collect();
    let opts = EmuOptions { seed: a.seed, ..EmuOptions::default() };
    let mut driver = None;
    let mut session = if !radios.is_empty() {
        None
    } else if a.one_thread {
        let (session, d) =
            EmuSession::start_driven(medium, &ifs, opts).map_err(|e| e.to_string())?;
        driver = Some(d);
        Some(session)
    } else {
        Some(EmuSession::start(medium, &ifs, opts).map_err(|e| e.to_string())?)
    };
    let mut runner = match a.one_thread {
        true => Some(
            Runner::start(driver.take(), a.busy_poll, a.realtime)
                .map_err(|e| format!("cannot start the data-path loop: {e}"))?,
        ),
        false => None,
    };
    let addrs: Vec<MacAddress> = p.stations.iter().map(|s| s.address).collect();
    let n = p.stations.len();
    let table = Arc::new(StationTable::with_stations(&addrs, a.max_stations));
    if let Some(ap) = p.ap {
        table.set_associated(ap, true);
    }
    // --pcap: one writer thread; each data path gets a capture end.
    let mut capture_ends = Vec::new();
    let mut capture_more = None;
    let mut writer = None;
    if let Some(path) = &a.pcap {
        let file = std::fs::File::create(path).map_err(|e| format!("cannot create {path}: {e}"))?;
        let (to_writer, rx) = sync_channel::<Box<capture::Record>>(1024);
        let beacon_station = (0..n).find(|&k| Some(k) != p.ap);
        let mut give_back = Vec::new();
        for k in 0..n {
            let (end, back) = capture::end(
                to_writer.clone(),
                k as u16,
                256,
                p.ap.is_some() && Some(k) == beacon_station,
            );
            capture_ends.push(Some(end));
            give_back.push(back);
        }
        let (new_ends, added) = std::sync::mpsc::channel();
        capture_more = Some((to_writer, new_ends));
        writer = Some(
            std::thread::Builder::new()
                .name("pcap".into())
                .spawn(move || capture::write_all(file, rx, give_back, added))
                .map_err(|e| format!("cannot start the capture thread: {e}"))?,
        );
    }
    let sh = Shared {
        a: &a,
        bssid: p.bssid,
        ap: p.ap,
        table: table.clone(),
        fault,
        model: p.model.clone(),
        scenario_stations: p.scenario_stations,
        beacon_channel: match (radios.is_empty(), a.freq_mhz) {
            (false, Some(f)) => Some(sdmac_frame::channel::number(f)),
            _ => None,
        },
        runner: runner.as_ref(),
    };
    let mut live = Live {
        stations: std::mem::take(&mut p.stations),
        slots: Vec::with_capacity(a.max_stations),
        capture_ends,
        capture_more,
    };
    let mut taps = taps.into_iter();
    for (k, s) in live.stations.iter().enumerate() {
        let iface = Interface::new(match &mut session {
            Some(session) => {
                StationBackend::Emu(session.take(&s.name).expect("one interface per station"))
            }
            None => radios[k].take().expect("one radio per station"),
        });
        if s.reserved {
            live.slots.push(Slot::Idle(Box::new(iface)));
            continue;
        }
        let tap = taps.next().flatten().expect("a TAP device per station");
        let cap = live.capture_ends.get_mut(k).and_then(Option::take);
        live.slots.push(Slot::Up(start_station(&sh, k, s, iface, tap, cap)?));
    }
    let p = &p;
    let names: Vec<String> = p
        .stations
        .iter()
        .filter(|s| !s.reserved)
        .map(|s| format!("{} {} {} {}/{}", s.name, s.netns, s.address, s.ipv4, a.subnet.1))
        .collect();
    let up = |k: usize| !live.stations[k].reserved;
    if let Some(ap) = p.ap {
        // The stations find the AP's beacons, authenticate and associate.
        let t0 = Instant::now();
        while t0.elapsed() < Duration::from_secs(10)
            && !stop.load(Ordering::Relaxed)
            && !(0..n).filter(|&k| up(k)).all(|k| table.is_associated(k))
        {
            std::thread::sleep(Duration::from_millis(10));
        }
        let missing: Vec<&str> = (0..n)
            .filter(|&k| up(k) && !table.is_associated(k))
            .map(|k| live.stations[k].name.as_str())
            .collect();
        if !missing.is_empty() {
            eprintln!(
                "sdmac-tap: not associated with {} after 10 s: {}",
                live.stations[ap].name,
                missing.join(", ")
            );
        }
    }
    let mode = match p.ap {
        Some(k) => format!("AP {}", live.stations[k].name),
        None => "IBSS".to_string(),
    };
    eprintln!(
        "sdmac-tap: {} stations up ({mode}, BSSID {}): {}",
        names.len(),
        p.bssid,
        names.join(", ")
    );
    if let Some(f) = &a.ready_file {
        write_ready(f, &ready_json(&a, p.bssid, p.ap, &live, &table))?;
    }
    let started = Instant::now();
    let mut crashed = Vec::new();
    while !stop.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(20));
        if a.duration.is_some_and(|d| started.elapsed().as_secs_f64() >= d) {
            break;
        }
        if let Some(c) = &mut control {
            let mut changed = false;
            let r = c.serve(|req| {
                let out = control_request(req, &sh, &mut live, &mut spaces, &mut session);
                changed |= out.0 == UpdateResult::Success
                    && matches!(req, Request::Add(_) | Request::DelByMac(_) | Request::DelById(_));
                out
            });
            if let (true, Some(f)) = (changed, &a.ready_file) {
                // The stations up and reserved now: added ones in, removed ones out.
                if let Err(e) = write_ready(f, &ready_json(&a, p.bssid, p.ap, &live, &table)) {
                    eprintln!("sdmac-tap: {e}");
                }
            }
            match r {
                Ok(true) => {
                    eprintln!("sdmac-tap: shutdown requested on the control socket");
                    break;
                }
                Ok(false) => {}
                Err(e) => eprintln!("sdmac-tap: control socket: {e}"),
            }
        }
        for (k, slot) in live.slots.iter_mut().enumerate() {
            if matches!(slot, Slot::Up(r) if r.thread.is_finished()) {
                let Slot::Up(r) = std::mem::replace(slot, Slot::Done(None, None)) else {
                    unreachable!("checked")
                };
                *slot = stop_station(r);
                if let Slot::Done(None, _) = slot {
                    eprintln!("sdmac-tap: station {}: its thread panicked", live.stations[k].name);
                    crashed.push(live.stations[k].name.clone());
                }
            }
        }
        if !crashed.is_empty() {
            eprintln!("sdmac-tap: stopping after a station thread crashed");
            break;
        }
        if live.slots.iter().all(|s| !matches!(s, Slot::Up(_))) && control.is_none() {
            eprintln!("sdmac-tap: no station left running");
            break;
        }
    }
    stop.store(true, Ordering::Relaxed);
    for (k, slot) in live.slots.iter_mut().enumerate() {
        if matches!(slot, Slot::Up(_)) {
            let Slot::Up(r) = std::mem::replace(slot, Slot::Done(None, None)) else {
                unreachable!("checked")
            };
            *slot = stop_station(r);
            if let Slot::Done(None, _) = slot {
                eprintln!("sdmac-tap: station {}: its thread panicked", live.stations[k].name);
                crashed.push(live.stations[k].name.clone());
            }
        }
    }
    drop(control);
    if let Some(mut r) = runner.take() {
        // Every path is stopped: the loop ends, and the emulated medium with it.
        if !r.finish() {
            eprintln!("sdmac-tap: the data-path loop panicked");
            crashed.push("the data-path loop".into());
        }
    }
    // Capture ends of stations never added hold the writer's channel open.
    live.capture_ends.clear();
    live.capture_more = None;
    let mut pcap_json = Value::Null;
    if let (Some(w), Some(path)) = (writer, &a.pcap) {
        // The data paths have ended, so the writer has seen its last record.
        match w.join() {
            Ok(Ok(frames)) => {
                eprintln!("sdmac-tap: {frames} frames captured in {path}");
                pcap_json = json!({"file": path, "frames": frames});
            }
            Ok(Err(e)) => eprintln!("sdmac-tap: writing {path}: {e}"),
            Err(_) => eprintln!("sdmac-tap: the capture thread panicked"),
        }
    }
    if let Some(mut session) = session {
        session.close();
    }
    let cleanup = spaces.remove_all();
    for e in &cleanup {
        eprintln!("sdmac-tap: cleanup: {e}");
    }
    let mut out = Vec::new();
    for (s, slot) in live.stations.iter().zip(&live.slots) {
        let Slot::Done(r, m) = slot else {
            // Reserved and never added.
            continue;
        };
        let mgmt_json = match m {
            Some(m) => {
                let state = match m.sta_state() {
                    None => "ap".to_string(),
                    Some(mgmt::StaState::Associated(aid)) => format!("associated (AID {aid})"),
                    Some(st) => format!("{st:?}").to_lowercase(),
                };
                json!({"received": m.received, "sent": m.sent, "state": state})
            }
            None => Value::Null,
        };
        let mut v = json!({
            "station": s.name, "netns": s.netns, "address": s.address.to_string(),
            "ipv4": s.ipv4.to_string(), "management": mgmt_json, "reserved": s.reserved,
        });
        match r {
            Some((stats, err)) => {
                eprintln!("{}", report_line(&s.name, stats));
                let m = v.as_object_mut().expect("an object");
                for (k, x) in stats.to_json().as_object().expect("an object") {
                    m.insert(k.clone(), x.clone());
                }
                m.insert("error".into(), json!(err));
            }
            None => {
                eprintln!("{:>10}: crashed, no statistics", s.name);
                v.as_object_mut().expect("an object").insert("error".into(), json!("crashed"));
            }
        }
        out.push(v);
    }
    let doc = json!({
        "scenario": a.scenario,
        "bssid": p.bssid.to_string(),
        "backends": a.backends.iter().map(|b| b.to_string()).collect::<Vec<String>>(),
        "duration_s": started.elapsed().as_secs_f64(),
        "stations": out,
        "pcap": pcap_json,
        "cleanup_errors": cleanup,
    });
    let text = serde_json::to_string_pretty(&doc).expect("JSON");
    match &a.json {
        Some(f) => std::fs::write(f, text + "\n").map_err(|e| format!("cannot write {f}: {e}"))?,
        None => println!("{text}"),
    }
    Ok(crashed.is_empty() && cleanup.is_empty())
}

/// Carries out one control request; the result and (for an add) the station id.
fn control_request(
    req: &Request,
    sh: &Shared,
    live: &mut Live,
    spaces: &mut Namespaces,
    session: &mut Option<EmuSession>,
) -> (UpdateResult, i32) {
    let find = |live: &Live, m: &MacAddress| live.stations.iter().position(|s| s.address == *m);
    match req {
        Request::Add(mac) => {
            let Some(k) = find(live, mac) else {
                return add_new(sh, live, spaces, session, *mac);
            };
            let s = &live.stations[k];
            if !matches!(live.slots[k], Slot::Idle(_)) {
                return (UpdateResult::Duplicate, s.id as i32);
            }
            let tap = match make_tap(sh.a, s, spaces) {
                Ok(t) => t,
                Err(e) => {
                    eprintln!("sdmac-tap: control: add {}: {e}", s.name);
                    let _ = spaces.remove(&s.netns);
                    return (UpdateResult::NotFound, -1);
                }
            };
            let Slot::Idle(iface) = std::mem::replace(&mut live.slots[k], Slot::Done(None, None))
            else {
                unreachable!("checked")
            };
            let cap = live.capture_ends.get_mut(k).and_then(Option::take);
            match start_station(sh, k, s, *iface, tap, cap) {
                Ok(r) => {
                    live.slots[k] = Slot::Up(r);
                    eprintln!(
                        "sdmac-tap: added {} {} {} {}/{}",
                        s.name, s.netns, s.address, s.ipv4, sh.a.subnet.1
                    );
                    (UpdateResult::Success, s.id as i32)
                }
                Err(e) => {
                    eprintln!("sdmac-tap: control: add {}: {e}", s.name);
                    let _ = spaces.remove(&s.netns);
                    (UpdateResult::NotFound, -1)
                }
            }
        }
        Request::DelByMac(_) | Request::DelById(_) => {
            let k = match req {
                Request::DelByMac(m) => find(live, m),
                Request::DelById(id) => live.stations.iter().position(|s| s.id as i32 == *id),
                _ => None,
            };
            let Some(k) = k.filter(|&k| matches!(live.slots[k], Slot::Up(_))) else {
                return (UpdateResult::NotFound, 0);
            };
            let Slot::Up(r) = std::mem::replace(&mut live.slots[k], Slot::Done(None, None)) else {
                unreachable!("checked")
            };
            // Out of the table first: the others stop sending to it.
            sh.table.remove(k);
            live.slots[k] = stop_station(r);
            let s = &live.stations[k];
            if let Err(e) = spaces.remove(&s.netns) {
                eprintln!("sdmac-tap: control: removing {}: {e}", s.netns);
            }
            eprintln!("sdmac-tap: removed {} (namespace {})", s.name, s.netns);
            (UpdateResult::Success, 0)
        }
        Request::TxPower { mac, dbm } => {
            let k = find(live, mac);
            set_station(live, k, "tx_power", AttrValue::Float(*dbm as f64))
        }
        Request::Position { mac, x, y, z } => {
            let at = AttrValue::Text(format_position([*x as f64, *y as f64, *z as f64]));
            let k = find(live, mac);
            set_station(live, k, "position", at)
        }
        _ => (UpdateResult::WrongMode, 0),
    }
}

/// Adds a station with address `mac`, which no station of the run has, to the
/// running emulated medium: its namespace and TAP device, its interface
/// (`EmuSession::add_station`), its entry in the station table (so that the other
/// data paths and the AP's management thread know it) and its threads. Refused
/// with "wrong mode" over radios, when the table is full (`--max-stations`) or the
/// subnet has no address left; the reason is on stderr.
fn add_new(
    sh: &Shared,
    live: &mut Live,
    spaces: &mut Namespaces,
    session: &mut Option<EmuSession>,
    mac: MacAddress,
) -> (UpdateResult, i32) {
    let refuse = |why: String| {
        eprintln!("sdmac-tap: control: add {mac}: {why}");
        (UpdateResult::WrongMode, -1)
    };
    let Some(session) = session else {
        return refuse("stations are added on the emulated medium only, not over radios".into());
    };
    if mac.is_multicast() {
        return refuse("a group address is no station's".into());
    }
    let k = live.stations.len();
    if k >= sh.table.capacity() {
        return refuse(format!(
            "--max-stations {} reached (the station table is full); start with a larger --max-stations",
            sh.table.capacity()
        ));
    }
    let Some(ipv4) = netns::host_address(sh.a.subnet, k as u32 + 1) else {
        return refuse(format!("subnet {}/{} has no address left", sh.a.subnet.0, sh.a.subnet.1));
    };
    let name = (1..)
        .map(|j| format!("n{j}"))
        .find(|n| live.stations.iter().all(|s| s.name != *n))
        .expect("a free name");
    let mut s = Station {
        netns: format!("{}{name}", sh.a.prefix),
        name,
        id: StationId::MAX,
        address: mac,
        ipv4,
        ap: false,
        reserved: false,
        qos: sh.model.qos,
    };
    let tap = match make_tap(sh.a, &s, spaces) {
        Ok(t) => t,
        Err(e) => {
            let _ = spaces.remove(&s.netns);
            return refuse(e);
        }
    };
    let cfg = extra_station(&sh.model, mac, k - sh.scenario_stations);
    let iface = match session.add_station(&s.name, cfg) {
        Ok(i) => i,
        Err(e) => {
            drop(tap);
            let _ = spaces.remove(&s.netns);
            return refuse(format!("the emulated medium refused it: {e}"));
        }
    };
    s.id = iface.backend().station();
    match sh.table.push(mac) {
        Ok(at) if at == k => {}
        r => {
            // The table is written by this thread only, in step with the list.
            drop(tap);
            let _ = spaces.remove(&s.netns);
            return refuse(format!("the station table is out of step ({r:?} for {k})"));
        }
    }
    let cap = live.capture_more.as_ref().map(|(to_writer, new_ends)| {
        let (end, back) = capture::end(to_writer.clone(), k as u16, 256, false);
        let _ = new_ends.send((k as u16, back));
        end
    });
    let iface = Interface::new(StationBackend::Emu(iface));
    match start_station(sh, k, &s, iface, tap, cap) {
        Ok(r) => {
            eprintln!(
                "sdmac-tap: added {} {} {} {}/{} (new on the medium, id {})",
                s.name, s.netns, s.address, s.ipv4, sh.a.subnet.1, s.id
            );
            let id = s.id as i32;
            live.stations.push(s);
            live.slots.push(Slot::Up(r));
            live.capture_ends.push(None);
            (UpdateResult::Success, id)
        }
        Err(e) => {
            sh.table.remove(k);
            let _ = spaces.remove(&s.netns);
            // Its slot in the table stays taken: the list keeps the station, ended.
            live.stations.push(s);
            live.slots.push(Slot::Done(Some((Stats::default(), Some(e.clone()))), None));
            live.capture_ends.push(None);
            refuse(e)
        }
    }
}

/// Sets adapter attribute `name` of station `k` (idle: directly; running: through its
/// thread), for a control request; a backend that refuses it answers "wrong mode".
fn set_station(
    live: &mut Live,
    k: Option<usize>,
    name: &'static str,
    value: AttrValue,
) -> (UpdateResult, i32) {
    let Some(k) = k else { return (UpdateResult::NotFound, 0) };
    let shown = value.to_string();
    let r = match &mut live.slots[k] {
        Slot::Idle(iface) => iface.set(name, Scope::Adapter, value).map_err(|e| e.to_string()),
        Slot::Up(r) => {
            let (tx, rx) = sync_channel(1);
            match r.ctl.try_send(StationCtl::Set(name, value, tx)) {
                Ok(()) => rx
                    .recv_timeout(Duration::from_secs(2))
                    .unwrap_or_else(|_| Err("the station did not answer".into())),
                Err(_) => Err("the station is busy or gone".into()),
            }
        }
        Slot::Done(..) => return (UpdateResult::NotFound, 0),
    };
    match r {
        Ok(()) => (UpdateResult::Success, 0),
        Err(e) => {
            eprintln!("sdmac-tap: control: {name} {shown} of {}: {e}", live.stations[k].name);
            (UpdateResult::WrongMode, 0)
        }
    }
}

fn main() -> ExitCode {
    let a = match parse_args() {
        Ok(a) => a,
        Err(e) if e.is_empty() => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("sdmac-tap: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(a) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("sdmac-tap: error: {e}");
            ExitCode::FAILURE
        }
    }
}
