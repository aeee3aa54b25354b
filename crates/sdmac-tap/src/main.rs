//! `sdmac-tap SCENARIO.toml`: every station of the scenario's first medium gets a
//! TAP device in a network namespace of its own (`sdmac-<station>`), and IP
//! traffic between the namespaces crosses the emulated medium. Without an AP in the
//! scenario the stations form an IBSS; with one (`ap = true`), the others
//! authenticate and associate with it through management frames handled on a
//! thread of their own, and their traffic goes through it. Runs until Ctrl-C
//! (SIGINT) or SIGTERM, or for `--duration` seconds; then removes everything it
//! made and prints the statistics of each station.

use sdmac_api::Scope;
use sdmac_emu::{EmuOptions, EmuSession};
use sdmac_medium::StationId;
use sdmac_tap::capture;
use sdmac_tap::datapath::{MgmtLink, PathError, PathRole, StationPath, Stats};
use sdmac_tap::mgmt::{self, Manager, MgmtFrame};
use sdmac_tap::netns::{self, Namespaces, SetupError, TapConfig};
use sdmac_tap::{Ds, TxParams};
use sdmac_types::MacAddress;
use serde_json::{json, Value};
use std::net::Ipv4Addr;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

const USAGE: &str = "usage: sdmac-tap SCENARIO.toml [--subnet A.B.C.D/LEN] [--prefix NAME] \
[--ifname NAME] [--mtu BYTES] [--duration SECONDS] [--busy-poll] [--tap-io uring|syscalls] [--seed N] \
[--json FILE] [--ready-file FILE] [--pcap FILE]";

/// What a station thread returns: its counters, and why it stopped early.
type Outcome = (Stats, Option<String>);

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
    seed: u64,
    json: Option<String>,
    ready_file: Option<String>,
    pcap: Option<String>,
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
        seed: 1,
        json: None,
        ready_file: None,
        pcap: None,
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
            "--tap-io" => {
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
}

struct Plan {
    stations: Vec<Station>,
    medium: sdmac_medium::Medium,
    bssid: MacAddress,
    /// Index of the AP in `stations`; `None`: an IBSS.
    ap: Option<usize>,
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
    let bssid = match aps.first() {
        Some(&k) => stations[k].address,
        None => {
            // IBSS: one BSSID, locally administered, derived from the first station.
            let mut b = stations[0].address.0;
            b[0] = (b[0] | 0x02) & !0x01;
            b[5] ^= 0x80;
            MacAddress(b)
        }
    };
    Ok(Plan { stations, medium: b.medium, bssid, ap: aps.first().copied() })
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

fn run(a: Args) -> Result<bool, String> {
    netns::check_prerequisites().map_err(|e| e.to_string())?;
    let p = plan(&a)?;
    let fault = panic_after()?;
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(sig, stop.clone())
            .map_err(|e| format!("cannot handle signal {sig}: {e}"))?;
    }
    // From here on, everything made is owned by `spaces` (namespaces) and the TAP
    // descriptors, which the station threads hold; both go on every way out.
    let mut spaces = Namespaces::new();
    let mut taps = Vec::new();
    for s in &p.stations {
        if stop.load(Ordering::Relaxed) {
            return Err("interrupted during set-up".into());
        }
        spaces.create(&s.netns).map_err(|e: SetupError| e.to_string())?;
        let cfg = TapConfig {
            netns: s.netns.clone(),
            ifname: a.ifname.clone(),
            mac: s.address,
            ipv4: Some((s.ipv4, a.subnet.1)),
            mtu: a.mtu,
        };
        taps.push(
            netns::create_tap(&cfg)
                .map_err(|e| format!("station {} (namespace {}): {e}", s.name, s.netns))?,
        );
    }
    let ifs: Vec<(&str, StationId)> = p.stations.iter().map(|s| (s.name.as_str(), s.id)).collect();
    let opts = EmuOptions { seed: a.seed, ..EmuOptions::default() };
    let mut session = EmuSession::start(p.medium, &ifs, opts).map_err(|e| e.to_string())?;
    let addrs: Vec<MacAddress> = p.stations.iter().map(|s| s.address).collect();
    let n = p.stations.len();
    let ap_flags: Arc<Vec<AtomicBool>> =
        Arc::new((0..n).map(|k| AtomicBool::new(Some(k) == p.ap)).collect());
    let sta_flags: Vec<Arc<AtomicBool>> =
        (0..n).map(|k| Arc::new(AtomicBool::new(Some(k) == p.ap))).collect();
    // --pcap: one writer thread; each data path gets a capture end.
    let mut capture_ends = Vec::new();
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
        drop(to_writer);
        writer = Some(
            std::thread::Builder::new()
                .name("pcap".into())
                .spawn(move || capture::write_all(file, rx, give_back))
                .map_err(|e| format!("cannot start the capture thread: {e}"))?,
        );
    }
    let mut threads = Vec::new();
    let mut managers = Vec::new();
    for (k, (s, tap)) in p.stations.iter().zip(taps).enumerate() {
        let mut iface = session.take(&s.name).expect("one interface per station");
        let ds = match p.ap {
            None => Ds::Ibss,
            Some(ap) if ap == k => Ds::FromAp,
            Some(_) => Ds::ToAp,
        };
        let params = TxParams { own: s.address, bssid: p.bssid, ds, qos_tid: None };
        // Management (AP role): its own thread, linked to the data path by two
        // bounded channels.
        let role_link = match p.ap {
            None => None,
            Some(ap) => {
                iface
                    .set("rx_management", Scope::Adapter, true)
                    .map_err(|e| format!("station {}: rx_management: {e}", s.name))?;
                let (to_mgmt, mgmt_rx) = sync_channel::<MgmtFrame>(64);
                let (mgmt_tx, from_mgmt) = sync_channel::<MgmtFrame>(64);
                let (role, path_role) = if ap == k {
                    (
                        mgmt::Role::Ap {
                            stations: addrs.clone(),
                            associated: ap_flags.clone(),
                            aids: vec![0; n],
                        },
                        PathRole::Ap { associated: ap_flags.clone() },
                    )
                } else {
                    (
                        mgmt::Role::Sta {
                            state: mgmt::StaState::Scanning,
                            associated: sta_flags[k].clone(),
                        },
                        PathRole::Sta { associated: sta_flags[k].clone() },
                    )
                };
                let mut m = Manager {
                    own: s.address,
                    bssid: p.bssid,
                    ssid: b"sdmac".to_vec(),
                    role,
                    received: 0,
                    sent: 0,
                };
                let stop = stop.clone();
                let t = std::thread::Builder::new()
                    .name(format!("mgmt-{}", s.name))
                    .spawn(move || {
                        let t0 = Instant::now();
                        while !stop.load(Ordering::Relaxed) {
                            let now = t0.elapsed().as_nanos() as u64;
                            let out = match mgmt_rx.recv_timeout(Duration::from_millis(20)) {
                                Ok(f) => m.handle(f.as_slice(), now),
                                Err(RecvTimeoutError::Timeout) => m.tick(now),
                                Err(RecvTimeoutError::Disconnected) => break,
                            };
                            if let Some(f) = out {
                                if mgmt_tx.send(f).is_err() {
                                    break;
                                }
                            }
                        }
                        m
                    })
                    .map_err(|e| format!("cannot start a management thread: {e}"))?;
                managers.push((k, t));
                Some((path_role, MgmtLink { to_mgmt, from_mgmt }))
            }
        };
        let stop = stop.clone();
        let addrs = addrs.clone();
        let busy = a.busy_poll;
        let uring = a.uring;
        let cap = capture_ends.get_mut(k).and_then(Option::take);
        let label = format!("{} (namespace {})", s.name, s.netns);
        let fault = fault.as_ref().filter(|f| f.0 == s.name).map(|f| f.1);
        let t = std::thread::Builder::new()
            .name(format!("tap-{}", s.name))
            .spawn(move || {
                use std::os::fd::AsRawFd;
                let mut path = StationPath::new(iface, tap.as_raw_fd(), params, addrs, busy);
                if uring {
                    if let Err(e) = path.use_io_uring() {
                        eprintln!(
                            "sdmac-tap: station {label}: io_uring not available ({e}); one read or write per frame"
                        );
                    }
                }
                if let Some((role, link)) = role_link {
                    path = path.with_role(role, link);
                }
                if let Some(c) = cap {
                    path = path.with_capture(c);
                }
                if let Some(n) = fault {
                    path.panic_after(n);
                }
                let r = path.run(&stop);
                if let Err(e) = &r {
                    if !stop.load(Ordering::Relaxed) {
                        eprintln!(
                            "sdmac-tap: station {label}: {e}; the other stations keep running"
                        );
                    }
                }
                drop(tap);
                (path.stats.clone(), r.err().map(|e: PathError| e.to_string()))
            })
            .map_err(|e| format!("cannot start a station thread: {e}"))?;
        threads.push(t);
    }
    let names: Vec<String> = p
        .stations
        .iter()
        .map(|s| format!("{} {} {} {}/{}", s.name, s.netns, s.address, s.ipv4, a.subnet.1))
        .collect();
    if let Some(ap) = p.ap {
        // The stations find the AP's beacons, authenticate and associate.
        let t0 = Instant::now();
        while t0.elapsed() < Duration::from_secs(10)
            && !stop.load(Ordering::Relaxed)
            && !ap_flags.iter().all(|f| f.load(Ordering::Acquire))
        {
            std::thread::sleep(Duration::from_millis(10));
        }
        let missing: Vec<&str> = (0..n)
            .filter(|&k| !ap_flags[k].load(Ordering::Acquire))
            .map(|k| p.stations[k].name.as_str())
            .collect();
        if !missing.is_empty() {
            eprintln!(
                "sdmac-tap: not associated with {} after 10 s: {}",
                p.stations[ap].name,
                missing.join(", ")
            );
        }
    }
    let mode = match p.ap {
        Some(k) => format!("AP {}", p.stations[k].name),
        None => "IBSS".to_string(),
    };
    eprintln!(
        "sdmac-tap: {} stations up ({mode}, BSSID {}): {}",
        p.stations.len(),
        p.bssid,
        names.join(", ")
    );
    if let Some(f) = &a.ready_file {
        let doc = json!({
            "bssid": p.bssid.to_string(),
            "mode": if p.ap.is_some() { "ap" } else { "ibss" },
            "stations": p.stations.iter().enumerate().map(|(k, s)| json!({
                "name": s.name, "netns": s.netns, "ifname": a.ifname,
                "address": s.address.to_string(), "ipv4": s.ipv4.to_string(),
                "role": match p.ap { None => "ibss", Some(ap) if ap == k => "ap", _ => "sta" },
                "associated": ap_flags[k].load(Ordering::Acquire) || p.ap.is_none(),
            })).collect::<Vec<Value>>(),
        });
        std::fs::write(f, doc.to_string()).map_err(|e| format!("cannot write {f}: {e}"))?;
    }
    let started = Instant::now();
    let mut results: Vec<Option<Outcome>> = vec![None; threads.len()];
    let mut handles: Vec<Option<_>> = threads.into_iter().map(Some).collect();
    let mut crashed = Vec::new();
    let reap = |handles: &mut Vec<Option<std::thread::JoinHandle<Outcome>>>,
                results: &mut Vec<Option<Outcome>>,
                crashed: &mut Vec<String>,
                all: bool| {
        for (k, h) in handles.iter_mut().enumerate() {
            if h.as_ref().is_some_and(|t| all || t.is_finished()) {
                match h.take().expect("checked").join() {
                    Ok(r) => results[k] = Some(r),
                    Err(_) => {
                        eprintln!("sdmac-tap: station {}: its thread panicked", p.stations[k].name);
                        crashed.push(p.stations[k].name.clone());
                    }
                }
            }
        }
    };
    while !stop.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(20));
        if a.duration.is_some_and(|d| started.elapsed().as_secs_f64() >= d) {
            break;
        }
        reap(&mut handles, &mut results, &mut crashed, false);
        if !crashed.is_empty() {
            eprintln!("sdmac-tap: stopping after a station thread crashed");
            break;
        }
        if handles.iter().all(|h| h.is_none()) {
            eprintln!("sdmac-tap: no station left running");
            break;
        }
    }
    stop.store(true, Ordering::Relaxed);
    reap(&mut handles, &mut results, &mut crashed, true);
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
    let mut mgmt_json: Vec<Value> = vec![Value::Null; n];
    for (k, t) in managers {
        if let Ok(m) = t.join() {
            let state = match m.sta_state() {
                None => "ap".to_string(),
                Some(mgmt::StaState::Associated(aid)) => format!("associated (AID {aid})"),
                Some(st) => format!("{st:?}").to_lowercase(),
            };
            mgmt_json[k] = json!({"received": m.received, "sent": m.sent, "state": state});
        }
    }
    session.close();
    let cleanup = spaces.remove_all();
    for e in &cleanup {
        eprintln!("sdmac-tap: cleanup: {e}");
    }
    let mut out = Vec::new();
    for (k, (s, r)) in p.stations.iter().zip(&results).enumerate() {
        let mut v = json!({
            "station": s.name, "netns": s.netns, "address": s.address.to_string(),
            "ipv4": s.ipv4.to_string(), "management": mgmt_json[k],
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
