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

mod args;
mod control_ops;
mod plan;
mod station;

use args::*;
use control_ops::*;
use plan::*;
use station::*;

/// The beacon interval of an AP on a radio, which sends its own beacons (TU).
const BEACON_INTERVAL_TU: u16 = 100;

/// What a station's data path ends with: its counters, and why it stopped early.
type Outcome = runner::Outcome;

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
    let mut runner = if a.one_thread {
        let r = Runner::start(driver.take(), a.busy_poll, a.realtime)
            .map_err(|e| format!("cannot start the data-path loop: {e}"))?;
        Some(r)
    } else {
        None
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
