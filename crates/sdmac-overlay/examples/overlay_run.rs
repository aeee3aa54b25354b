//! Runs the TDMA, EDF, retransmission, rate adaptation and redundancy overlays on
//! backends named on the command line: a coordinator and N stations (or senders and
//! receivers), each on an interface of its own, with the same overlay code whatever
//! the backend.
//!
//! ```text
//! overlay_run tdma --backend emu [--stations N] [--time-base monotonic|tsf] [--beacons K]
//!     [--beacon-tu TU]
//! overlay_run tdma --coordinator hwsim:wlan0 --station hwsim:wlan1 --station hwsim:wlan2 \
//!     [--socket PATH] [--time-base monotonic|tsf] [--beacons K] [--beacon-tu TU]
//! common options: [--rounds N] [--probes N] [--payload BYTES] [--rate MBPS] [--json]
//! overlay_run edf (the same interface options) [--scale K] [--run-ms MS] [--json]
//! overlay_run retx (--backend emu [--per P] | --sender NAME --receiver NAME [--socket PATH])
//!     [--packets N] [--spacing-ms MS] [--deadline-ms MS] [--burst-ms MS] [--scale K]
//!     [--payload BYTES] [--rate MBPS] [--json]
//! overlay_run rate (--backend emu [--snr-db DB] | --sender NAME --receiver NAME [--socket PATH])
//!     [--packets N] [--payload BYTES] [--window N] [--json]
//! overlay_run redundancy --sender NAME --sender NAME --receiver NAME --receiver NAME
//!     [--freq MHZ --freq MHZ] [--socket PATH] [--packets N] [--payload BYTES] [--rate MBPS]
//!     [--tries N] [--window N] [--json]
//! ```
//!
//! `rate` sends `--packets` packets (default 200 of 1000 B, at most `--window` in
//! flight) from the sender to the receiver twice: under the Minstrel-like adaptation
//! ([`sdmac_overlay::rate::Minstrel`], the OFDM rates, each packet's series chosen when
//! it is requested and every confirmation fed back), then under a fixed series at
//! 54 Mb/s with as many tries (8). On emu the link has an SNR of `--snr-db` (default
//! 15 dB) both ways and the emulated medium's error model gives each rate its loss; on
//! hwsim the medium daemon's configuration gives the link's SNR (read back on its
//! control socket). Per run it prints the packets sent, delivered and given up, the
//! attempts and successes per rate, the rate of best throughput at the end, the
//! distinct packets the receiver got and, on hwsim, the frames and attempts on air by
//! the daemon's truth records.
//!
//! `redundancy` opens the first sender and receiver on the first `--freq` channel and
//! the second pair on the second, and runs seamless redundancy
//! ([`sdmac_overlay::redundancy`]) three times: one channel, two channels, and two
//! channels with the queued copy cancelled once the other is acknowledged. The linux
//! and hwsim backends hand every request to the kernel at once (their `cancel` never
//! finds one), so each sender interface sits behind a queue in user space that gives
//! the radio one request at a time and can still take the others back. It prints per
//! mode the loss, the latency p50/p95 (request to the end on air of the first copy
//! received, one host's `CLOCK_MONOTONIC`), the duplicates dropped, the copies on air
//! and cancelled, and the airtime the cancelled copies would have taken.
//!
//! `retx` sends `--packets` packets (one every `--spacing-ms`, each due `--deadline-ms`
//! after it is handed over; every time multiplied by `--scale`) from the sender to the
//! receiver under the retransmission overlay, first with the MAC's back-to-back
//! retries ([`MacRetries`], one request of 7 tries), then retrying beyond a burst
//! ([`BeyondBurst`], up to 3 requests of 2 tries, the next one `--burst-ms` after a
//! failure was known). The link loses frames: on emu a fixed error probability
//! `--per` (default 0.3) on both directions of the link, set on the emulated medium;
//! elsewhere whatever the medium does (on hwsim the loss the medium daemon's
//! configuration gives the link, read back on its control socket and printed). Per
//! policy it prints the frames, their fates (delivered, late, gave up, deadline
//! reached, dropped), the requests and the attempts the confirmations report, the
//! latency (handover to the ACK's end) p50 and p95 of the delivered, the distinct
//! packets the receiver got, and, on hwsim, the frames and attempts on air by the
//! daemon's truth records (a subscription made before the first frame; frames from
//! the sender's address to the receiver's, assigned to a policy by when they came
//! from the kernel). On emu the confirmations are the emulated medium's own count,
//! so there is no separate truth to compare.
//!
//! `edf` runs, on every station, the two flows of the emu EDF test (bursts of bulk
//! frames and an urgent periodic frame, times multiplied by `--scale`) to the
//! coordinator's address, first under [`run_edf`], then under the MAC's FIFO
//! ([`run_fifo`], 7 tries), `--run-ms` × scale each, and prints per flow what met its
//! deadline. The rest of this page is about `tdma`.
//!
//! What it does, in order:
//! 1. measures the request path (t_start − t1) of every station with one-try probes to
//!    the coordinator ([`measure_jitter`]); the guard is the largest spread plus the
//!    synchronisation error of the time base. With `--time-base monotonic` (the
//!    default) the plan is on this host's `CLOCK_MONOTONIC`, which every interface
//!    shares: the error is zero. With `--time-base tsf` the plan is on the TSF of the
//!    beacons heard on the channel (on emu an AP beside the coordinator that only
//!    beacons; on hwsim whatever beacons there, e.g. an IBSS on another radio): every
//!    interface, the coordinator's included, fits its own [`TsfSync`] over a warm-up
//!    of `--beacons` K beacons (default 8) and then runs on a [`TsfClock`], which maps
//!    the plan's TSF times onto its local clock and keeps feeding the fit from beacons;
//!    the error is the largest of the fits' after the warm-up, and every fit (error,
//!    beacons, drift, TSF − local clock) is printed after the warm-up and at the end;
//! 2. lays out a plan from the guard: each slot holds the two guards and three
//!    exchanges, the contention period the two guards and six (on the TSF also room
//!    for a beacon, and the round divides the beacon interval, round 0 placed so that
//!    every beacon falls in a contention period; the interval is `--beacon-tu` where
//!    the AP's configuration is known, else the median gap of the beacons' TSF);
//! 3. starts the coordinator, lets the stations ask for their slots one after the
//!    other, and has every station send saturating load in its slots until the end;
//! 4. checks the medium's truth for frames that overlapped on air: on `hwsim`, the
//!    truth records of `sdmac-mediumd` read from its control socket (every frame of
//!    every radio, subscribed before the first probe); on `emu`, the on-air times of
//!    every confirmation of every interface (the emulated medium's truth).
//!
//! It prints the jitter, the synchronisation error, the guard, the plan, per station
//! sent / acked / failed confirmations (and those failed through a collision), what
//! the coordinator received per slot, and the overlaps; `--json` adds the same as one
//! JSON object on the last line. Exit status 0 when the run completed (whatever it found), 1 on an
//! error, 2 on bad arguments.

use sdmac_api::{
    Backend, Cause, Confirmation, Interface, MacAddress, Rate, RateSeries, Scope, Span, Status,
    Time, Value, Wait,
};
use sdmac_control::client::Client;
use sdmac_control::ext::TruthRecord;
use sdmac_emu::{EmuIface, EmuOptions, EmuSession};
use sdmac_medium::{BeaconConfig, LinkOverride, Medium, MediumConfig, StationConfig};
use sdmac_open::{AnyBackend, OpenOptions};
use sdmac_overlay::edf::{run_edf, run_fifo, EdfConfig, Flow};
use sdmac_overlay::exchange::wait_until;
use sdmac_overlay::retransmit::{BeyondBurst, Fate, MacRetries, Policy, Retransmitter};
use sdmac_overlay::tdma::{
    measure_jitter, Coordinator, CoordinatorReport, Guard, JitterReport, StationReport, TdmaError,
    TdmaParams, TdmaPlan, TdmaStation, TsfClock, TsfSync,
};
use sdmac_phy::{Phy, Standard};
use serde_json::{json, Value as Json};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

#[path = "overlay_run/rate_red.rs"]
mod rate_red;
use rate_red::{check_rate_args, check_redundancy_args, main_rate, main_redundancy};

/// Contention periods in which a station asks for its slot before it gives up.
const JOIN_TRIES: u32 = 6;
/// Times a station calls `join` before it gives up.
const JOIN_CALLS: u32 = 3;

const USAGE: &str = "usage: overlay_run (tdma|edf) (--backend emu [--stations N] | --coordinator NAME --station NAME [--station NAME]...) [--socket PATH] [--rounds N] [--probes N] [--payload BYTES] [--rate MBPS] [--json]; tdma also [--time-base monotonic|tsf] [--beacons K] [--beacon-tu TU]; edf also [--scale K] [--run-ms MS]; overlay_run retx (--backend emu [--per P] | --sender NAME --receiver NAME [--socket PATH]) [--packets N] [--spacing-ms MS] [--deadline-ms MS] [--burst-ms MS] [--scale K] [--payload BYTES] [--rate MBPS] [--json]; overlay_run rate (--backend emu [--snr-db DB] | --sender NAME --receiver NAME [--socket PATH]) [--packets N] [--payload BYTES] [--window N] [--json]; overlay_run redundancy --sender NAME --sender NAME --receiver NAME --receiver NAME [--freq MHZ --freq MHZ] [--socket PATH] [--packets N] [--payload BYTES] [--rate MBPS] [--tries N] [--window N] [--json]";

/// The time base of the TDMA plan.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum TimeBase {
    /// This host's `CLOCK_MONOTONIC`, which every interface shares (on emu the
    /// medium's clock).
    Monotonic,
    /// The TSF of the beacons heard on the channel, fitted per interface.
    Tsf,
}

/// The overlay a run exercises.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Overlay {
    Tdma,
    Edf,
    Retx,
    Rate,
    Redundancy,
}

/// The command line.
#[derive(Debug)]
struct Args {
    backend: Option<String>,
    coordinator: Option<String>,
    stations: Vec<String>,
    emu_stations: usize,
    socket: Option<PathBuf>,
    rounds: u64,
    probes: u32,
    payload: usize,
    rate: Rate,
    json: bool,
    overlay: Overlay,
    scale: u64,
    run_ms: u64,
    sender: Option<String>,
    receiver: Option<String>,
    per: Option<f64>,
    packets: u64,
    spacing_ms: u64,
    deadline_ms: u64,
    burst_ms: u64,
    time_base: TimeBase,
    beacons: u64,
    beacon_tu: Option<u64>,
    senders: Vec<String>,
    receivers: Vec<String>,
    snr_db: Option<f64>,
    freqs: Vec<u32>,
    window: usize,
    tries: Option<u8>,
}

fn parse_args(argv: &[String]) -> Result<Args, String> {
    let mut it = argv.iter();
    let overlay = match it.next().map(String::as_str) {
        Some("tdma") => Overlay::Tdma,
        Some("edf") => Overlay::Edf,
        Some("retx") => Overlay::Retx,
        Some("rate") => Overlay::Rate,
        Some("redundancy") => Overlay::Redundancy,
        Some(o) => {
            return Err(format!(
                "unknown overlay {o:?} (this program runs: tdma, edf, retx, rate, redundancy)"
            ))
        }
        None => {
            return Err(
                "no overlay named (this program runs: tdma, edf, retx, rate, redundancy)".into()
            )
        }
    };
    let mut a = Args {
        backend: None,
        coordinator: None,
        stations: Vec::new(),
        emu_stations: 2,
        socket: None,
        rounds: 50,
        probes: 30,
        payload: 200,
        rate: Rate::Ofdm24,
        json: false,
        overlay,
        scale: 1,
        run_ms: 800,
        sender: None,
        receiver: None,
        per: None,
        packets: 40,
        spacing_ms: 15,
        deadline_ms: 60,
        burst_ms: 38,
        time_base: TimeBase::Monotonic,
        beacons: 8,
        beacon_tu: None,
        senders: Vec::new(),
        receivers: Vec::new(),
        snr_db: None,
        freqs: Vec::new(),
        window: 4,
        tries: None,
    };
    if overlay == Overlay::Rate {
        a.packets = 200;
        a.payload = 1000;
    }
    if overlay == Overlay::Redundancy {
        a.packets = 100;
        a.payload = 100;
    }
    while let Some(k) = it.next() {
        let mut val = || it.next().cloned().ok_or_else(|| format!("{k} needs a value"));
        let num = |v: String, what: &str| -> Result<u64, String> {
            v.parse::<u64>().map_err(|_| format!("{k} {v:?}: {what} must be a whole number"))
        };
        match k.as_str() {
            "--backend" => a.backend = Some(val()?),
            "--coordinator" => a.coordinator = Some(val()?),
            "--station" => a.stations.push(val()?),
            "--stations" => a.emu_stations = num(val()?, "the number of stations")? as usize,
            "--socket" => a.socket = Some(PathBuf::from(val()?)),
            "--rounds" => a.rounds = num(val()?, "the number of rounds")?,
            "--probes" => a.probes = num(val()?, "the number of probes")? as u32,
            "--payload" => a.payload = num(val()?, "the payload size")? as usize,
            "--rate" => {
                let v = val()?;
                a.rate = v.parse().map_err(|e| format!("--rate {v:?}: {e}"))?;
            }
            "--json" => a.json = true,
            "--scale" => a.scale = num(val()?, "the time scale")?,
            "--run-ms" => a.run_ms = num(val()?, "the run length (ms)")?,
            "--sender" => {
                let v = val()?;
                a.senders.push(v.clone());
                a.sender = Some(v);
            }
            "--receiver" => {
                let v = val()?;
                a.receivers.push(v.clone());
                a.receiver = Some(v);
            }
            "--snr-db" => {
                let v = val()?;
                match v.parse::<f64>() {
                    Ok(x) if x.is_finite() => a.snr_db = Some(x),
                    _ => return Err(format!("--snr-db {v:?}: the SNR must be a number (dB)")),
                }
            }
            "--freq" => {
                let v = num(val()?, "the channel's frequency (MHz)")?;
                if !(2412..=5895).contains(&v) {
                    return Err(format!("--freq {v}: not a 2.4 or 5 GHz channel (MHz)"));
                }
                a.freqs.push(v as u32);
            }
            "--tries" => {
                let v = num(val()?, "the number of tries")?;
                if v == 0 || v > u64::from(sdmac_api::MAX_TRIES) {
                    return Err(format!("--tries {v}: from 1 to {}", sdmac_api::MAX_TRIES));
                }
                a.tries = Some(v as u8);
            }
            "--window" => {
                a.window = num(val()?, "the number of packets in flight")? as usize;
                if a.window == 0 {
                    return Err("--window 0: at least one packet in flight".into());
                }
            }
            "--per" => {
                let v = val()?;
                match v.parse::<f64>() {
                    Ok(p) if (0.0..1.0).contains(&p) => a.per = Some(p),
                    _ => {
                        return Err(format!(
                            "--per {v:?}: the error probability must be a number from 0 to below 1"
                        ))
                    }
                }
            }
            "--packets" => a.packets = num(val()?, "the number of packets")?,
            "--spacing-ms" => a.spacing_ms = num(val()?, "the spacing (ms)")?,
            "--deadline-ms" => a.deadline_ms = num(val()?, "the deadline (ms)")?,
            "--burst-ms" => a.burst_ms = num(val()?, "the burst length (ms)")?,
            "--time-base" => {
                a.time_base = match val()?.as_str() {
                    "monotonic" => TimeBase::Monotonic,
                    "tsf" => TimeBase::Tsf,
                    v => {
                        return Err(format!("--time-base {v:?}: the time base is monotonic or tsf"))
                    }
                }
            }
            "--beacons" => a.beacons = num(val()?, "the number of beacons")?,
            "--beacon-tu" => {
                let v = num(val()?, "the beacon interval (TU)")?;
                if v == 0 || v > 65_535 {
                    return Err(format!("--beacon-tu {v}: from 1 to 65535 TU"));
                }
                a.beacon_tu = Some(v);
            }
            o => return Err(format!("unknown option {o:?}")),
        }
    }
    if a.scale == 0 || a.run_ms == 0 {
        return Err("--scale and --run-ms must be at least 1".into());
    }
    if a.overlay != Overlay::Redundancy && a.tries.is_some() {
        return Err("--tries is an option of redundancy".into());
    }
    if a.overlay == Overlay::Retx {
        check_retx_args(&a)?;
        return Ok(a);
    }
    if a.overlay == Overlay::Rate {
        check_rate_args(&a)?;
        return Ok(a);
    }
    if a.overlay == Overlay::Redundancy {
        check_redundancy_args(&a)?;
        return Ok(a);
    }
    if a.snr_db.is_some() || !a.freqs.is_empty() {
        return Err("--snr-db is an option of rate, --freq of redundancy".into());
    }
    if a.sender.is_some() || a.receiver.is_some() || a.per.is_some() {
        return Err("--sender, --receiver and --per are options of retx".into());
    }
    if a.overlay != Overlay::Tdma && a.time_base != TimeBase::Monotonic {
        return Err("--time-base is an option of tdma".into());
    }
    if a.beacons < 3 {
        return Err(format!("--beacons {}: at least 3 (a fit of offset and drift)", a.beacons));
    }
    match (&a.backend, &a.coordinator) {
        (Some(b), None) if b == "emu" => {
            if !a.stations.is_empty() {
                return Err("--station names interfaces of other backends; with --backend emu give --stations N".into());
            }
            if a.emu_stations == 0 || a.emu_stations > 50 {
                return Err(format!("--stations {}: from 1 to 50", a.emu_stations));
            }
        }
        (Some(b), None) => {
            return Err(format!("--backend {b:?}: only emu opens every interface from one name; name the others with --coordinator NAME --station NAME..."))
        }
        (None, Some(_)) if a.stations.is_empty() => {
            return Err("--coordinator without any --station".into())
        }
        (None, Some(_)) => {}
        (Some(_), Some(_)) => return Err("give --backend emu or --coordinator/--station, not both".into()),
        (None, None) => return Err("no backend: give --backend emu or --coordinator NAME --station NAME".into()),
    }
    if a.rounds == 0 {
        return Err("--rounds 0: at least one round".into());
    }
    Ok(a)
}

/// The retransmission run's own checks: emu, or a sender and a receiver named.
fn check_retx_args(a: &Args) -> Result<(), String> {
    if a.senders.len() > 1 || a.receivers.len() > 1 {
        return Err("retx takes one --sender and one --receiver".into());
    }
    if a.snr_db.is_some() || !a.freqs.is_empty() {
        return Err("--snr-db is an option of rate, --freq of redundancy".into());
    }
    if a.coordinator.is_some() || !a.stations.is_empty() {
        return Err("retx names its interfaces with --sender NAME --receiver NAME".into());
    }
    match (&a.backend, &a.sender, &a.receiver) {
        (Some(b), None, None) if b == "emu" => {}
        (Some(b), None, None) => {
            return Err(format!(
                "--backend {b:?}: only emu opens both interfaces from one name; name them with --sender NAME --receiver NAME"
            ))
        }
        (None, Some(_), Some(_)) => {
            if a.per.is_some() {
                return Err("--per sets the emulated link's loss; on other backends the medium gives the loss (on hwsim the daemon's configuration)".into());
            }
        }
        (None, Some(_), None) => return Err("--sender without --receiver".into()),
        (None, None, Some(_)) => return Err("--receiver without --sender".into()),
        (Some(_), _, _) => {
            return Err("give --backend emu or --sender/--receiver, not both".into())
        }
        (None, None, None) => {
            return Err(
                "no backend: give --backend emu or --sender NAME --receiver NAME".into()
            )
        }
    }
    if a.packets == 0 || a.spacing_ms == 0 || a.deadline_ms == 0 || a.burst_ms == 0 {
        return Err(
            "--packets, --spacing-ms, --deadline-ms and --burst-ms must be at least 1".into()
        );
    }
    if a.packets > 65_535 {
        return Err(format!("--packets {}: at most 65535", a.packets));
    }
    if a.payload < 4 {
        return Err(format!("--payload {}: at least 4 bytes (the packet's tag)", a.payload));
    }
    Ok(())
}

/// One confirmation as the run saw it.
#[derive(Clone, Debug)]
struct ConRecord {
    iface: usize,
    id: u64,
    status: Status,
    cause: Option<Cause>,
    collisions: u8,
    len: u32,
    t_start: Time,
    t_end: Time,
}

/// A backend that keeps a copy of every confirmation read through it (the overlay
/// reads them itself; this is how the run learns their truth afterwards).
struct Rec<B: Backend> {
    inner: Interface<B>,
    index: usize,
    log: Arc<Mutex<Vec<ConRecord>>>,
}

impl<B: Backend> Backend for Rec<B> {
    fn data_con(&mut self, wait: Wait) -> Result<Option<Confirmation>, sdmac_api::ApiError> {
        let c = self.inner.data_con(wait)?;
        if let Some(c) = &c {
            self.log.lock().expect("log").push(ConRecord {
                iface: self.index,
                id: c.id,
                status: c.status,
                cause: c.truth.map(|t| t.cause),
                collisions: c.truth.map_or(0, |t| t.collisions),
                len: c.len,
                t_start: c.ts.t_start,
                t_end: c.ts.t5,
            });
        }
        Ok(c)
    }
    sdmac_api::forward_backend!(|s| &mut s.inner, &s.inner; except data_con);
}

/// One frame exchange on air: who sent it and when it started and ended.
#[derive(Clone, Debug)]
struct OnAir {
    who: String,
    start: u64,
    end: u64,
}

/// Pairs of exchanges that overlapped on air (each exchange against the one that
/// ended last among those before it), with the number of exchanges looked at.
fn overlaps(mut v: Vec<OnAir>) -> (usize, Vec<(OnAir, OnAir)>) {
    v.retain(|f| f.end > f.start);
    v.sort_by_key(|f| (f.start, f.end));
    let mut found = Vec::new();
    let mut last: Option<&OnAir> = None;
    for f in &v {
        if let Some(l) = last {
            if f.start < l.end {
                found.push((l.clone(), f.clone()));
            }
            if f.end > l.end {
                last = Some(f);
            }
        } else {
            last = Some(f);
        }
    }
    (v.len(), found)
}

/// The daemon's truth records, read on a thread of their own while the run goes.
struct TruthTap {
    stop: Arc<AtomicBool>,
    handle: std::thread::JoinHandle<Result<Vec<TruthRecord>, String>>,
}

impl TruthTap {
    fn start(socket: &Path) -> Result<TruthTap, String> {
        let mut c = Client::connect(socket)
            .map_err(|e| format!("the medium daemon's control socket {}: {e}", socket.display()))?;
        c.subscribe(&[]).map_err(|e| format!("subscribing to truth records: {e}"))?;
        let stop = Arc::new(AtomicBool::new(false));
        let s = stop.clone();
        let handle = std::thread::spawn(move || {
            let mut got = Vec::new();
            let mut quiet = 0;
            loop {
                match c.next_record(Some(Duration::from_millis(100))) {
                    Ok(Some(r)) => {
                        quiet = 0;
                        got.push(r)
                    }
                    Ok(None) => quiet += 1,
                    Err(e) => return Err(format!("reading truth records: {e}")),
                }
                // After the stop, read until the stream has been quiet for 0.3 s.
                if s.load(Ordering::Relaxed) && quiet >= 3 {
                    return Ok(got);
                }
            }
        });
        Ok(TruthTap { stop, handle })
    }

    /// Stops reading and returns every record; an error if the daemon lost any of this
    /// subscription's records (the run's truth would be incomplete).
    fn finish(self) -> Result<Vec<TruthRecord>, String> {
        self.stop.store(true, Ordering::Relaxed);
        let recs = self.handle.join().map_err(|_| "the truth reader panicked".to_string())??;
        let lost: u64 = recs.iter().map(|r| u64::from(r.lost)).sum();
        if lost > 0 {
            return Err(format!(
                "the daemon lost {lost} truth records for this run's subscription"
            ));
        }
        Ok(recs)
    }
}

/// Per interface: its backend name and address.
struct Named<B: Backend> {
    name: String,
    addr: MacAddress,
    iface: Interface<Rec<B>>,
}

fn address<B: Backend>(i: &mut Interface<B>, name: &str) -> Result<MacAddress, String> {
    match i.get("address", Scope::Adapter) {
        Ok(Value::Mac(m)) => Ok(m),
        Ok(v) => Err(format!("{name}: attribute address is {v}, not a MAC address")),
        Err(e) => Err(format!("{name}: reading its address: {e}")),
    }
}

fn jitter_json(name: &str, j: &JitterReport) -> Json {
    let mut sorted: Vec<Span> = j.latencies.clone();
    sorted.sort();
    json!({"station": name, "min_us": j.min.as_us_f64(), "max_us": j.max.as_us_f64(),
           "median_us": sorted[sorted.len() / 2].as_us_f64(), "spread_us": j.spread().as_us_f64(),
           "latencies_us": j.latencies.iter().map(|l| l.as_us_f64()).collect::<Vec<_>>()})
}

/// Everything the run found.
struct Outcome {
    text: String,
    json: Json,
}

fn run<B: Backend + Send>(
    mut all: Vec<Named<B>>,
    phy: Phy,
    a: &Args,
    backend: &str,
    truth_tap: Option<TruthTap>,
    log: Arc<Mutex<Vec<ConRecord>>>,
) -> Result<Outcome, String> {
    let coord = all[0].addr;
    let n = all.len() - 1;
    let mut text = String::new();
    // Each line also goes to stderr as the run goes, so that a run cut short (a
    // timeout) still says how far it came.
    let mut push = |s: String| {
        eprintln!("overlay_run: {s}");
        text.push_str(&s);
        text.push('\n');
    };
    push(format!("overlay tdma on {backend}: coordinator {} ({coord}), {n} stations", all[0].name));

    // 1. The guard, from every station's request path.
    let mut jitters = Vec::new();
    let mut spread = Span::ZERO;
    for s in all.iter_mut().skip(1) {
        let j = measure_jitter(&mut s.iface, coord, a.rate, a.probes, Span::from_ms(1))
            .map_err(|e| format!("{}: measuring the request path: {e}", s.name))?;
        push(format!(
            "request path t_start - t1 of {} ({} probes): {:.1} .. {:.1} µs, jitter {:.1} µs",
            s.name,
            a.probes,
            j.min.as_us_f64(),
            j.max.as_us_f64(),
            j.spread().as_us_f64()
        ));
        spread = spread.max(j.spread());
        jitters.push(jitter_json(&s.name, &j));
    }
    // The time base: this host's CLOCK_MONOTONIC, which every interface shares, or
    // the TSF of the beacons heard, fitted by every interface (the coordinator's too)
    // over a warm-up of `--beacons` beacons and fed by beacons while the run goes.
    let mut syncs: Vec<Option<TsfSync>> = Vec::new();
    let mut warm: Vec<Json> = Vec::new();
    let sync_error = match a.time_base {
        TimeBase::Monotonic => {
            push("time base monotonic: synchronisation error 0.0 µs, every interface shares this host's CLOCK_MONOTONIC".into());
            syncs.resize_with(all.len(), || None);
            Span::ZERO
        }
        TimeBase::Tsf => {
            let tu = a.beacon_tu.unwrap_or(100);
            let limit = Span::from_us(a.beacons * 3 * tu * 1024 + 2_000_000);
            let mut worst = Span::ZERO;
            for s in all.iter_mut() {
                // Emu gives a beacon's TSF in the frame only: let management frames up
                // (a backend without the attribute gives it in its beacon indications).
                let _ = s.iface.set("rx_management", Scope::Adapter, true);
                let mut sync = TsfSync::new(a.beacons as usize);
                let got = TsfClock::warm_up(&mut s.iface, &mut sync, a.beacons, limit)
                    .map_err(|e| format!("{}: reading beacons: {e}", s.name))?;
                if got < a.beacons {
                    return Err(format!(
                        "{}: {got} beacons with a TSF heard in {:.1} s, {} needed (is a beacon source on the channel?)",
                        s.name,
                        limit.as_us_f64() / 1e6,
                        a.beacons
                    ));
                }
                worst = worst.max(sync.error().expect("beacons"));
                push(sync_line(&s.name, &sync, "after the warm-up"));
                warm.push(sync_json(&s.name, &sync));
                syncs.push(Some(sync));
            }
            push(format!(
                "time base tsf: synchronisation error {:.1} µs, the largest of the interfaces' fits",
                worst.as_us_f64()
            ));
            worst
        }
    };
    let guard = Guard { jitter: spread, sync_error };

    // 2. The plan. On the TSF, the round divides the beacon interval and round 0 is
    // placed so that every beacon falls in a contention period: the fits put a
    // beacon's TSF at its start on air (emu) or at its reception (hwsim, linux), so
    // the period opens one allowance for a beacon before that TSF and holds two.
    let ex = TdmaPlan::exchange_for(&phy, a.payload, a.rate);
    let round_up = |s: Span| Span::from_us(s.as_ns().div_ceil(100_000) * 100);
    let slot = round_up(guard.total().saturating_mul(2) + ex.saturating_mul(3));
    let beacon_interval = match (&syncs[0], a.beacon_tu) {
        (Some(_), Some(tu)) => Some(Span::from_us(tu * 1024)),
        (Some(s), None) => Some(beacon_interval(s).ok_or_else(|| {
            format!("{}: no beacon interval in the TSF of the beacons heard", all[0].name)
        })?),
        (None, _) => None,
    };
    let mut contention = guard.total().saturating_mul(2) + ex.saturating_mul(6);
    if beacon_interval.is_some() {
        contention += beacon_allowance(&phy).saturating_mul(2);
    }
    let contention = round_up(contention);
    let needed = slot.saturating_mul(n as u64) + contention;
    let round = beacon_interval.map_or(needed, |bi| round_in(needed, bi));
    let contention = round - slot.saturating_mul(n as u64);
    let epoch = match (&syncs[0], beacon_interval) {
        (Some(s), Some(bi)) => {
            let now = s.to_tsf(all[0].iface.now()).expect("fit") + 20_000_000;
            let last = *s.beacon_tsfs().last().expect("beacons");
            // Contention period of round k opens at epoch + k·round + n·slot.
            let first = last
                .saturating_sub((slot.saturating_mul(n as u64) + beacon_allowance(&phy)).as_ns());
            let k = now.saturating_sub(first).div_ceil(round.as_ns());
            push(format!(
                "beacon interval {:.1} µs ({}); round {:.1} µs; {}",
                bi.as_us_f64(),
                if a.beacon_tu.is_some() { "given" } else { "the median gap of the beacons' TSF" },
                round.as_us_f64(),
                if round <= bi {
                    "every beacon falls in a contention period"
                } else {
                    "the round is longer than the beacon interval: beacons fall in slots too"
                }
            ));
            Time::from_ns(first + k * round.as_ns())
        }
        _ => all[0].iface.now() + Span::from_ms(20),
    };
    // Stations join one after the other, each in a few rounds.
    let join_rounds = 4 * n as u64 + 2;
    let plan = TdmaPlan::new(TdmaParams {
        phy: phy.clone(),
        round,
        slots: n as u32,
        slot,
        contention,
        guard,
        payload: a.payload,
        rate: a.rate,
        epoch,
    })
    .map_err(|e| format!("the plan: {e}"))?;
    push(plan.to_string());
    let end = plan.round_start(join_rounds + a.rounds);
    push(format!(
        "run: {} rounds for joining, then {} rounds of saturating load",
        join_rounds, a.rounds
    ));

    // 3. The coordinator and the stations, each on a thread of its own (on its TSF
    // clock for the tsf time base); the stations ask for their slots one after the
    // other.
    let mut it = all.iter_mut().zip(syncs);
    let (c, csync) = it.next().expect("coordinator");
    let payload = vec![0x5a; a.payload];
    let (creport, sreports) = std::thread::scope(|sc| {
        let pc = plan.clone();
        let hc = sc.spawn(move || -> Result<(CoordinatorReport, Option<TsfSync>), String> {
            let until = end + Span::from_ms(5);
            match csync {
                None => Ok((coordinate(&mut c.iface, pc, until)?, None)),
                Some(sy) => {
                    let t =
                        TsfClock::new(&mut c.iface, sy).map_err(|e| format!("coordinator: {e}"))?;
                    let mut t = Interface::new(t);
                    let r = coordinate(&mut t, pc, until)?;
                    Ok((r, Some(t.backend().sync().clone())))
                }
            }
        });
        let mut prev: Option<mpsc::Receiver<()>> = None;
        let mut hs = Vec::new();
        for (s, ssync) in it {
            let (tx, rx) = mpsc::channel::<()>();
            let wait = prev.replace(rx);
            let p = plan.clone();
            let payload = &payload;
            hs.push(sc.spawn(move || -> Result<StationRun, String> {
                let name = s.name.clone();
                match ssync {
                    None => {
                        let (r, calls) =
                            station(&mut s.iface, &name, p, coord, payload, end, wait, tx)?;
                        Ok((name, r, calls, None))
                    }
                    Some(sy) => {
                        let t =
                            TsfClock::new(&mut s.iface, sy).map_err(|e| format!("{name}: {e}"))?;
                        let mut t = Interface::new(t);
                        let (r, calls) = station(&mut t, &name, p, coord, payload, end, wait, tx)?;
                        let fin = t.backend().sync().clone();
                        Ok((name, r, calls, Some(fin)))
                    }
                }
            }));
        }
        let sreports: Vec<_> = hs.into_iter().map(|h| h.join().expect("station thread")).collect();
        (hc.join().expect("coordinator thread"), sreports)
    });
    let (creport, csync) = creport?;
    let sreports = sreports.into_iter().collect::<Result<Vec<_>, _>>()?;
    let names: Vec<String> = all.iter().map(|s| s.name.clone()).collect();
    // Every interface's fit at the end of the run, and local times on the plan's time
    // base through them (the medium's truth through the coordinator's).
    let finals: Vec<Option<TsfSync>> =
        std::iter::once(csync).chain(sreports.iter().map(|r| r.3.clone())).collect();
    let mut fin_json = Vec::new();
    for (k, f) in finals.iter().enumerate() {
        if let Some(f) = f {
            push(sync_line(&names[k], f, "at the end of the run"));
            if f.error().is_some_and(|e| e > guard.sync_error) {
                push(format!(
                    "  {}: the fit's error grew beyond the guard's synchronisation error",
                    names[k]
                ));
            }
            fin_json.push(sync_json(&names[k], f));
        }
    }
    let to_plan = |k: usize, local: u64| -> u64 {
        match finals.get(k).and_then(Option::as_ref) {
            Some(f) => f.to_tsf(Time::from_ns(local)).unwrap_or(local),
            None => local,
        }
    };

    // 4. Per station: confirmations of the slot phase (ids below the probes'),
    // from the log.
    let log = log.lock().expect("log").clone();
    let mut stations = Vec::new();
    for (k, (name, r, calls, _)) in sreports.iter().enumerate() {
        let idx = k + 1;
        let mine: Vec<&ConRecord> =
            log.iter().filter(|c| c.iface == idx && c.id < (1 << 61)).collect();
        let failed: Vec<&&ConRecord> = mine
            .iter()
            .filter(|c| !matches!(c.status, Status::Acked | Status::Dropped(_)))
            .collect();
        let by_collision =
            failed.iter().filter(|c| c.cause == Some(Cause::Collision) || c.collisions > 0).count();
        let received = creport.received.get(r.slot as usize).copied().unwrap_or(0);
        // Where the slot's data exchanges were on air, against the slot's window.
        let (mut lead, mut tail) = (i64::MAX, i64::MAX);
        for c in mine.iter().filter(|c| {
            // Data frames by their length (a non-QoS header is 2 bytes shorter).
            let full = sdmac_overlay::exchange::mpdu_len(a.payload);
            c.len + 2 >= full && c.len <= full && !c.t_start.is_zero() && !c.t_end.is_zero()
        }) {
            let (start, end) = (to_plan(idx, c.t_start.as_ns()), to_plan(idx, c.t_end.as_ns()));
            let (open, close) = plan.slot_window(plan.round_at(Time::from_ns(start)), r.slot);
            lead = lead.min(start as i64 - open.as_ns() as i64);
            tail = tail.min(close.as_ns() as i64 - end as i64);
        }
        let (lead_us, tail_us) = if lead == i64::MAX {
            (None, None)
        } else {
            (Some(lead as f64 / 1e3), Some(tail as f64 / 1e3))
        };
        if let (Some(l), Some(t)) = (lead_us, tail_us) {
            push(format!(
                "station {name} on air: first start {l:.1} µs after its window opened at the earliest, last end {t:.1} µs before it closed at the latest (negative: outside the window, inside the guard is {:.1} µs)",
                plan.params().guard.total().as_us_f64()
            ));
        }
        push(format!(
            "station {name} slot {} (join calls {calls}): sent {}, acked {}, failed {} (by collision {}), withdrawn {}, outside its window {}, received by the coordinator {}",
            r.slot, r.sent, r.acked, r.sent - r.acked, by_collision, r.withdrawn, r.outside_window, received
        ));
        stations.push(json!({
            "name": name, "slot": r.slot, "join_calls": calls, "sent": r.sent, "acked": r.acked,
            "failed": r.sent - r.acked, "collisions": r.collisions,
            "failed_confirmations": failed.len(), "failed_by_collision": by_collision,
            "withdrawn": r.withdrawn, "outside_window": r.outside_window,
            "min_start_after_open_us": lead_us, "min_end_before_close_us": tail_us,
            "received_by_coordinator": received,
        }));
    }

    // 5. The medium's truth: did any two exchanges overlap on air?
    let (source, frames) = match truth_tap {
        Some(t) => {
            let recs = t.finish()?;
            let frames = recs
                .iter()
                .map(|r| OnAir {
                    who: format!("{} -> {}", r.transmitter, r.ra),
                    start: to_plan(0, r.t_first_start_ns),
                    end: to_plan(0, r.t_end_ns),
                })
                .collect::<Vec<_>>();
            ("the medium daemon's truth records (control socket)", frames)
        }
        None => {
            let frames = log
                .iter()
                .filter(|c| !c.t_start.is_zero() && !c.t_end.is_zero())
                .map(|c| OnAir {
                    who: format!("{} id {}", names[c.iface], c.id),
                    start: to_plan(c.iface, c.t_start.as_ns()),
                    end: to_plan(c.iface, c.t_end.as_ns()),
                })
                .collect::<Vec<_>>();
            ("the emulated medium's on-air times of every confirmation", frames)
        }
    };
    let (looked, found) = overlaps(frames);
    // An overlap concerns the schedule when either exchange started in a
    // contention-free period; both in contention periods (requests and grants, or the
    // probes before the first round) is DCF doing what DCF does.
    let cfp = |t: u64| {
        let t = Time::from_ns(t);
        let p = plan.params();
        t >= p.epoch && t < plan.round_start(plan.round_at(t)) + p.slot.saturating_mul(n as u64)
    };
    let (in_slots, in_contention): (Vec<_>, Vec<_>) =
        found.iter().partition(|(x, y)| cfp(x.start) || cfp(y.start));
    push(format!(
        "truth: {looked} exchanges on air from {source}; overlapping pairs: {} in contention-free periods, {} in contention periods",
        in_slots.len(),
        in_contention.len()
    ));
    for (x, y) in found.iter().take(5) {
        push(format!(
            "  overlap: {} [{} .. {}] and {} [{} .. {}] ns",
            x.who, x.start, x.end, y.who, y.start, y.end
        ));
    }
    push(format!(
        "coordinator received per slot {:?}, refused {}",
        creport.received, creport.refused
    ));

    let json = json!({
        "overlay": "tdma",
        "backend": backend,
        "coordinator": {"name": names[0], "address": coord.to_string(),
                         "received_per_slot": creport.received, "refused": creport.refused},
        "jitter": jitters,
        "guard_us": guard.total().as_us_f64(),
        "request_path_jitter_us": guard.jitter.as_us_f64(),
        "sync_error_us": guard.sync_error.as_us_f64(),
        "time_base": match a.time_base { TimeBase::Monotonic => "monotonic", TimeBase::Tsf => "tsf" },
        "beacon_interval_us": beacon_interval.map(|b| b.as_us_f64()),
        "sync": {"warm_up": warm, "end": fin_json, "beacons": a.beacons},
        "plan": {
            "text": plan.to_string(),
            "round_us": round.as_us_f64(), "slots": n, "slot_us": slot.as_us_f64(),
            "epoch_ns": plan.params().epoch.as_ns(),
            "contention_us": (round - slot.saturating_mul(n as u64)).as_us_f64(),
            "exchange_us": plan.exchange().as_us_f64(), "frames_per_slot": plan.frames_per_slot(),
            "payload": a.payload, "rate": a.rate.to_string(),
            "join_rounds": join_rounds, "rounds": a.rounds,
        },
        "stations": stations,
        "truth": {"source": source, "exchanges": looked, "overlaps": found.len(),
                  "overlaps_in_slots": in_slots.len(), "overlaps_in_contention": in_contention.len(),
                  "examples": found.iter().take(5).map(|(x, y)| json!([
                      {"who": x.who, "start_ns": x.start, "end_ns": x.end},
                      {"who": y.who, "start_ns": y.start, "end_ns": y.end}])).collect::<Vec<_>>()},
    });
    Ok(Outcome { text, json })
}

/// What one station's thread gives back: its name, report, join calls, and its fit
/// at the end (on the tsf time base).
type StationRun = (String, StationReport, u32, Option<TsfSync>);

/// The coordinator's part: grants and counts until `end`.
fn coordinate<B: Backend>(
    iface: &mut Interface<B>,
    plan: TdmaPlan,
    end: Time,
) -> Result<CoordinatorReport, String> {
    let mut co = Coordinator::new(iface, plan);
    Ok(co.run_until(end).map_err(|e| format!("coordinator: {e}"))?.clone())
}

/// A station's part: waits for the previous station to have its slot (`wait`), asks
/// for its own, says so (`done`), then sends in its slot until `end`. A station not
/// granted a slot asks again, as TBMAC stations do, up to JOIN_CALLS times; the calls
/// made are returned.
#[allow(clippy::too_many_arguments)]
fn station<B: Backend>(
    iface: &mut Interface<B>,
    name: &str,
    plan: TdmaPlan,
    coord: MacAddress,
    payload: &[u8],
    end: Time,
    wait: Option<mpsc::Receiver<()>>,
    done: mpsc::Sender<()>,
) -> Result<(StationReport, u32), String> {
    if let Some(w) = wait {
        // The previous station has its slot (or gave up).
        let _ = w.recv();
    }
    let mut st = TdmaStation::new(iface, plan, coord);
    let mut calls = 0;
    let joined = loop {
        calls += 1;
        match st.join(JOIN_TRIES) {
            Ok(slot) => break Ok(slot),
            Err(TdmaError::NoGrant { .. }) if calls < JOIN_CALLS => continue,
            Err(e) => break Err(format!("{name}: joining ({calls} calls): {e}")),
        }
    };
    drop(done);
    let slot = joined?;
    eprintln!("overlay_run: {name} has slot {slot} ({calls} join calls)");
    let r = st.run_until(payload, end).map_err(|e| format!("{name}: {e}"))?;
    Ok((r, calls))
}

/// One line on a fit: its error, beacons, drift and offset.
fn sync_line(name: &str, s: &TsfSync, when: &str) -> String {
    let last = s.beacon_tsfs().last().copied().unwrap_or(0);
    format!(
        "{name}: synchronisation error {:.1} µs from {} beacons ({} in the fit), drift {:.3} ppm, TSF - local clock {:.1} µs ({when})",
        s.error().unwrap_or(Span::ZERO).as_us_f64(),
        s.observed(),
        s.samples(),
        s.drift_ppm().unwrap_or(0.0),
        -s.offset_at(last).unwrap_or(0.0) / 1e3
    )
}

fn sync_json(name: &str, s: &TsfSync) -> Json {
    let last = s.beacon_tsfs().last().copied().unwrap_or(0);
    json!({"name": name, "error_us": s.error().map(|e| e.as_us_f64()),
           "beacons": s.observed(), "in_fit": s.samples(), "drift_ppm": s.drift_ppm(),
           "tsf_minus_local_us": s.offset_at(last).map(|o| -o / 1e3)})
}

/// The beacon interval, from the TSF of consecutive beacons: the median gap (a beacon
/// sent late makes one gap short and the next long), rounded to whole TU (1024 µs);
/// `None` without two beacons.
fn beacon_interval(s: &TsfSync) -> Option<Span> {
    let t = s.beacon_tsfs();
    let mut gaps: Vec<u64> =
        t.windows(2).map(|w| w[1].saturating_sub(w[0])).filter(|&g| g > 0).collect();
    gaps.sort_unstable();
    let gap = *gaps.get(gaps.len() / 2)?;
    let tu = 1_024_000u64;
    let n = ((gap + tu / 2) / tu).max(1);
    Some(Span::from_ns(n * tu))
}

/// Room for a beacon on air: DIFS, CWmin slots and 300 bytes at the PHY's lowest
/// mandatory rate.
fn beacon_allowance(phy: &Phy) -> Span {
    let access = phy.difs_ns() + u64::from(phy.cw_min) * phy.slot_ns;
    Span::from_ns(access + phy.airtime_ns(300, phy.lowest_mandatory_rate()))
}

/// A round of at least `needed` that fits the beacon interval `bi`: `bi` divided by
/// the largest whole number that divides it and leaves at least `needed`, or `needed`
/// when that is longer than `bi`.
fn round_in(needed: Span, bi: Span) -> Span {
    if needed > bi {
        return needed;
    }
    let (b, mut m) = (bi.as_ns(), bi.as_ns() / needed.as_ns().max(1));
    while m > 1 && b % m != 0 {
        m -= 1;
    }
    Span::from_ns(b / m)
}

fn wrap<B: Backend>(
    inner: Interface<B>,
    index: usize,
    name: String,
    log: &Arc<Mutex<Vec<ConRecord>>>,
) -> Result<Named<B>, String> {
    let mut iface = Interface::new(Rec { inner, index, log: log.clone() });
    let addr = address(&mut iface, &name)?;
    Ok(Named { name, addr, iface })
}

/// The interfaces of an emu session: the coordinator and stations, then the beacon
/// source if there is one.
type EmuIfaces = (Vec<Interface<EmuIface>>, Option<Interface<EmuIface>>);

/// `n` stations around a coordinator on an emulated 802.11a medium, every pair within
/// 10 m (no hidden station, lossless links); with `beacons`, an AP beside the
/// coordinator that sends beacons every 100 TU (the TSF of the tsf time base) and
/// nothing else.
fn emu_session(n: usize, beacons: bool) -> Result<(EmuSession, EmuIfaces, Phy), String> {
    let phy = Phy::new(Standard::Dot11a);
    let mut m = Medium::new(MediumConfig::new(phy.clone()));
    let addr = |k: usize| [2, 0, 0, 0, 0, k as u8 + 1];
    m.add_station(StationConfig::new(&phy, addr(0), [0.0, 0.0, 0.0]));
    for k in 1..=n {
        let a = k as f64 * std::f64::consts::TAU / n as f64;
        m.add_station(StationConfig::new(&phy, addr(k), [4.0 * a.cos(), 4.0 * a.sin(), 0.0]));
    }
    let mut names: Vec<String> = (0..=n).map(|k| format!("s{k}")).collect();
    if beacons {
        let mut ap = StationConfig::new(&phy, addr(n + 1), [1.0, 0.0, 0.0]);
        ap.beacon = Some(BeaconConfig { offset_ns: 3_000_000, ..BeaconConfig::default() });
        m.add_station(ap);
        names.push("ap".into());
    }
    let list: Vec<(&str, u32)> =
        names.iter().enumerate().map(|(k, s)| (s.as_str(), k as u32)).collect();
    let mut s = EmuSession::start(m, &list, EmuOptions::default())
        .map_err(|e| format!("emu session: {e}"))?;
    let ifaces = (0..=n)
        .map(|k| s.take_index(k).ok_or_else(|| format!("emu session: no interface {k}")))
        .collect::<Result<Vec<_>, _>>()?;
    let ap =
        if beacons { Some(s.take("ap").ok_or("emu session: no beacon source")?) } else { None };
    Ok((s, (ifaces, ap), phy))
}

/// Opens `name` on a thread of its own: opening a linux or hwsim radio lowers the
/// opening thread's capabilities, and the next radio still needs them.
fn open_named(name: &str, opts: &OpenOptions) -> Result<Interface<AnyBackend>, String> {
    let parsed = sdmac_api::BackendName::parse(name).map_err(|e| format!("{name}: {e}"))?;
    let opts = opts.clone();
    std::thread::scope(|sc| {
        sc.spawn(move || sdmac_open::open_with(&parsed, &opts).map_err(|e| format!("{name}: {e}")))
            .join()
            .expect("open thread")
    })
}

/// The PHY frames go out with on `i`: its channel's, as the medium daemon takes it.
fn phy_of<B: Backend>(i: &mut Interface<B>, name: &str) -> Result<Phy, String> {
    let freq = match i.get("frequency", Scope::Adapter) {
        Ok(Value::Int(f)) => f,
        Ok(v) => return Err(format!("{name}: frequency is {v}, not a number")),
        Err(e) => return Err(format!("{name}: reading its frequency: {e}")),
    };
    Ok(Phy::new(if freq >= 4900 { Standard::Dot11ac } else { Standard::Dot11n2_4 }))
}

fn main_inner(a: &Args) -> Result<Outcome, String> {
    match a.overlay {
        Overlay::Retx => return main_retx(a),
        Overlay::Rate => return main_rate(a),
        Overlay::Redundancy => return main_redundancy(a),
        Overlay::Tdma | Overlay::Edf => {}
    }
    let log = Arc::new(Mutex::new(Vec::new()));
    if a.backend.is_some() {
        let beacons = a.overlay == Overlay::Tdma && a.time_base == TimeBase::Tsf;
        let (mut session, (ifaces, _ap), phy) = emu_session(a.emu_stations, beacons)?;
        let all = ifaces
            .into_iter()
            .enumerate()
            .map(|(k, i)| {
                wrap(
                    i,
                    k,
                    if k == 0 { "emu:s0 (coordinator)".into() } else { format!("emu:s{k}") },
                    &log,
                )
            })
            .collect::<Result<Vec<_>, _>>()?;
        let out = if a.overlay == Overlay::Edf {
            run_edf_overlay(all, phy, a, "emu")
        } else {
            run(all, phy, a, "emu", None, log.clone())
        };
        session.close();
        return out;
    }
    let mut opts = OpenOptions::default();
    if let Some(s) = &a.socket {
        opts.hwsim.socket = Some(s.clone());
    }
    let coord = a.coordinator.as_deref().expect("checked");
    let names: Vec<&str> =
        std::iter::once(coord).chain(a.stations.iter().map(String::as_str)).collect();
    let hwsim = a.overlay == Overlay::Tdma && names.iter().all(|n| n.starts_with("hwsim:"));
    // Subscribe before anything is sent, so that every frame of the run is seen.
    let tap = if hwsim { Some(TruthTap::start(&opts.hwsim.socket_path())?) } else { None };
    let mut all = Vec::new();
    let mut phy = None;
    for (k, n) in names.iter().enumerate() {
        let mut i = open_named(n, &opts)?;
        if k == 0 {
            phy = Some(phy_of(&mut i, n)?);
        }
        all.push(wrap(i, k, n.to_string(), &log)?);
    }
    let phy = phy.expect("the coordinator");
    let backend = names.join(",");
    if a.overlay == Overlay::Edf {
        return run_edf_overlay(all, phy, a, &backend);
    }
    run(all, phy, a, &backend, tap, log)
}

/// A sender and a receiver 10 m apart on an emulated 802.11a medium whose link loses
/// a frame (DATA or ACK) with probability `per`, each way.
fn retx_emu_session(
    per: f64,
) -> Result<(EmuSession, Interface<EmuIface>, Interface<EmuIface>, Phy), String> {
    let phy = Phy::new(Standard::Dot11a);
    let mut m = Medium::new(MediumConfig::new(phy.clone()));
    let rx = m.add_station(StationConfig::new(&phy, [2, 0, 0, 0, 0, 1], [0.0, 0.0, 0.0]));
    let tx = m.add_station(StationConfig::new(&phy, [2, 0, 0, 0, 0, 2], [10.0, 0.0, 0.0]));
    let lossy = || LinkOverride { error_prob: Some(per), ..LinkOverride::default() };
    m.set_link(tx, rx, lossy());
    m.set_link(rx, tx, lossy());
    let mut s = EmuSession::start(m, &[("rx", 0), ("tx", 1)], EmuOptions::default())
        .map_err(|e| format!("emu session: {e}"))?;
    let r = s.take("rx").ok_or("emu session: no receiver")?;
    let t = s.take("tx").ok_or("emu session: no sender")?;
    Ok((s, t, r, phy))
}

/// The loss of the link, as the run knows it: a line of text and its JSON.
struct Loss {
    text: String,
    json: Json,
}

/// `retx` on emu (a lossy link of its own) or on the backends named.
/// A sender and a receiver opened by the names on the command line.
struct NamedPair {
    opts: OpenOptions,
    /// Both are hwsim radios (the medium daemon's control socket is there).
    hwsim: bool,
    /// The daemon's truth records, subscribed before anything is sent (hwsim only).
    tap: Option<TruthTap>,
    s: Named<AnyBackend>,
    r: Named<AnyBackend>,
    /// The sender's PHY.
    phy: Phy,
}

/// Opens `--sender` and `--receiver` (interface indices 0 and 1 in `log`); on hwsim
/// radios the daemon's truth records are subscribed to first, so that every frame of
/// the run is seen.
fn open_pair(a: &Args, log: &Arc<Mutex<Vec<ConRecord>>>) -> Result<NamedPair, String> {
    let mut opts = OpenOptions::default();
    if let Some(s) = &a.socket {
        opts.hwsim.socket = Some(s.clone());
    }
    let (sn, rn) = (a.sender.as_deref().expect("checked"), a.receiver.as_deref().expect("checked"));
    let hwsim = sn.starts_with("hwsim:") && rn.starts_with("hwsim:");
    let tap = if hwsim { Some(TruthTap::start(&opts.hwsim.socket_path())?) } else { None };
    let mut si = open_named(sn, &opts)?;
    let phy = phy_of(&mut si, sn)?;
    let s = wrap(si, 0, sn.to_string(), log)?;
    let r = wrap(open_named(rn, &opts)?, 1, rn.to_string(), log)?;
    Ok(NamedPair { opts, hwsim, tap, s, r, phy })
}

fn main_retx(a: &Args) -> Result<Outcome, String> {
    let log = Arc::new(Mutex::new(Vec::new()));
    if a.backend.is_some() {
        let per = a.per.unwrap_or(0.3);
        let (mut session, t, r, phy) = retx_emu_session(per)?;
        let s = wrap(t, 0, "emu:tx".into(), &log)?;
        let r = wrap(r, 1, "emu:rx".into(), &log)?;
        let loss = Loss {
            text: format!(
                "link emu:tx <-> emu:rx: error probability {per} each way (DATA and ACK), set on the emulated medium"
            ),
            json: json!({"source": "the emulated medium's link (--per)",
                         "error_prob_forward": per, "error_prob_reverse": per}),
        };
        let out = run_retx(s, r, phy, a, "emu", loss, None);
        session.close();
        return out;
    }
    let NamedPair { opts, hwsim, tap, s, r, phy } = open_pair(a, &log)?;
    let (sn, rn) = (s.name.clone(), r.name.clone());
    let loss = if hwsim {
        let path = opts.hwsim.socket_path();
        let mut c = Client::connect(&path)
            .map_err(|e| format!("the medium daemon's control socket {}: {e}", path.display()))?;
        let mut get = |from: MacAddress, to: MacAddress| {
            c.get_link(from, to)
                .map(|l| l.error_prob)
                .map_err(|e| format!("reading the link {from} -> {to} from the daemon: {e}"))
        };
        let (fwd, rev) = (get(s.addr, r.addr)?, get(r.addr, s.addr)?);
        Loss {
            text: format!(
                "link {sn} -> {rn}: error probability {fwd}, back {rev} (the medium daemon's, read on its control socket)"
            ),
            json: json!({"source": "the medium daemon's link (control socket)",
                         "error_prob_forward": fwd, "error_prob_reverse": rev}),
        }
    } else {
        Loss {
            text: format!("link {sn} -> {rn}: whatever loss the medium has (not known here)"),
            json: json!({"source": "the medium (not known here)"}),
        }
    };
    let backend = format!("{sn},{rn}");
    run_retx(s, r, phy, a, &backend, loss, tap)
}

/// The `p`-th percentile (nearest rank) of sorted `v`.
fn percentile(v: &[f64], p: f64) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    let rank = ((p / 100.0) * v.len() as f64).ceil().max(1.0) as usize;
    Some(v[rank.min(v.len()) - 1])
}

/// Marks the first octet of a `retx` packet; the second is the policy, then the
/// packet's number (big endian).
const RETX_TAG: u8 = 0xa5;

/// The packets of policy `policy` that `r` received from `src`: drains its
/// indications until `stop` is set and then none comes for 200 ms.
fn receive_tagged<B: Backend>(
    r: &mut Interface<B>,
    src: MacAddress,
    policy: u8,
    stop: &AtomicBool,
) -> Result<std::collections::BTreeSet<u16>, String> {
    let mut got = std::collections::BTreeSet::new();
    let mut buf = Vec::new();
    loop {
        let stopping = stop.load(Ordering::Acquire);
        let wait = Duration::from_millis(if stopping { 200 } else { 50 });
        match r.data_ind(&mut buf, Wait::For(wait)) {
            Ok(Some(ind)) => {
                let p = &buf[ind.payload_offset.min(ind.len)..ind.len];
                if ind.src == src && p.len() >= 4 && p[0] == RETX_TAG && p[1] == policy {
                    got.insert(u16::from_be_bytes([p[2], p[3]]));
                }
            }
            Ok(None) if stopping => return Ok(got),
            Ok(None) => {}
            Err(e) => return Err(format!("the receiver's indications: {e}")),
        }
    }
}

/// One policy's run.
struct PolicyRun {
    key: &'static str,
    name: String,
    reports: Vec<sdmac_overlay::retransmit::PacketReport>,
    received: usize,
    from_ns: u64,
    to_ns: u64,
}

/// Both policies, one after the other, from `s` to `r`; then per policy what happened
/// and, with a truth tap, what the medium daemon saw on air.
#[allow(clippy::too_many_arguments)]
fn run_retx<B: Backend + Send>(
    mut s: Named<B>,
    mut r: Named<B>,
    phy: Phy,
    a: &Args,
    backend: &str,
    loss: Loss,
    tap: Option<TruthTap>,
) -> Result<Outcome, String> {
    let ms = |v: u64| Span::from_ms(v * a.scale);
    let (spacing, deadline, burst) = (ms(a.spacing_ms), ms(a.deadline_ms), ms(a.burst_ms));
    let mut text = String::new();
    let mut push = |l: String| {
        text.push_str(&l);
        text.push('\n');
    };
    push(format!(
        "overlay retx on {backend}: {} ({}) sends to {} ({})",
        s.name, s.addr, r.name, r.addr
    ));
    push(loss.text.clone());
    push(format!(
        "{} packets of {} B at rate {}, one every {:.0} ms, each due {:.0} ms after its handover (times scaled by {})",
        a.packets,
        a.payload,
        a.rate,
        spacing.as_us_f64() / 1e3,
        deadline.as_us_f64() / 1e3,
        a.scale
    ));
    let mut policies: Vec<(&'static str, Box<dyn Policy>)> = vec![
        (
            "mac_retries",
            Box::new(MacRetries::new(RateSeries::single(a.rate, 7)).map_err(|e| e.to_string())?),
        ),
        (
            "beyond_burst",
            Box::new(
                BeyondBurst::new(RateSeries::single(a.rate, 2), 3, burst)
                    .map_err(|e| e.to_string())?,
            ),
        ),
    ];
    let (saddr, raddr) = (s.addr, r.addr);
    let mut runs = Vec::new();
    for (pi, (key, policy)) in policies.iter_mut().enumerate() {
        let stop = AtomicBool::new(false);
        let from_ns = s.iface.now().as_ns();
        let (reports, received) = std::thread::scope(|sc| {
            let stop = &stop;
            let riface = &mut r.iface;
            let h = sc.spawn(move || receive_tagged(riface, saddr, pi as u8, stop));
            let sent = (|| -> Result<_, String> {
                let mut tx = Retransmitter::new(
                    &mut s.iface,
                    phy.clone(),
                    raddr,
                    sdmac_api::Ac::Be,
                    1 + (pi as u64) * 1_000_000,
                );
                let t0 = tx.iface().now() + Span::from_ms(5);
                let mut reports = Vec::new();
                for k in 0..a.packets {
                    let at = t0 + spacing.saturating_mul(k);
                    wait_until(tx.iface(), at).map_err(|e| format!("{}: {e}", s.name))?;
                    let due = tx.iface().now() + deadline;
                    let mut payload = vec![0x5a; a.payload];
                    payload[..4].copy_from_slice(&[RETX_TAG, pi as u8, (k >> 8) as u8, k as u8]);
                    let rep = tx
                        .send(&payload, due, policy.as_mut())
                        .map_err(|e| format!("{} packet {k}: {e}", policy.name()))?;
                    reports.push(rep);
                }
                Ok(reports)
            })();
            stop.store(true, Ordering::Release);
            let got = h.join().expect("receiver thread");
            (sent, got)
        });
        let reports = reports?;
        let received = received?.len();
        let to_ns = s.iface.now().as_ns();
        runs.push(PolicyRun { key, name: policy.name(), reports, received, from_ns, to_ns });
    }

    // The daemon's truth: frames from the sender to the receiver, by policy.
    let truth = match tap {
        Some(t) => {
            let recs = t.finish()?;
            Some(
                recs.into_iter()
                    .filter(|r| r.ta == saddr && r.ra == raddr && !r.no_ack)
                    .collect::<Vec<_>>(),
            )
        }
        None => None,
    };
    let mut assigned = 0;
    let mut pjson = Vec::new();
    for run in &runs {
        let count = |f: Fate| run.reports.iter().filter(|p| p.fate == f).count();
        let requests: u64 = run.reports.iter().map(|p| u64::from(p.requests)).sum();
        let attempts: u64 = run.reports.iter().map(|p| u64::from(p.attempts)).sum();
        let retried = run.reports.iter().filter(|p| p.attempts > 1).count();
        let mut lat: Vec<f64> = run
            .reports
            .iter()
            .filter(|p| p.fate == Fate::Delivered)
            .filter_map(|p| p.acked_at.map(|t| t.saturating_since(p.created).as_us_f64()))
            .collect();
        lat.sort_by(f64::total_cmp);
        let (p50, p95) = (percentile(&lat, 50.0), percentile(&lat, 95.0));
        let us = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.1} µs"));
        let (delivered, late, gave_up, reached, dropped) = (
            count(Fate::Delivered),
            count(Fate::Late),
            count(Fate::GaveUp),
            count(Fate::DeadlineReached),
            count(Fate::Dropped),
        );
        push(format!(
            "{}: frames {}, delivered {delivered}, late {late}, gave up {gave_up}, deadline reached {reached}, dropped {dropped}; requests {requests}, attempts {attempts} ({retried} packets retried); latency p50 {}, p95 {}; received by the receiver {}",
            run.name,
            run.reports.len(),
            us(p50),
            us(p95),
            run.received
        ));
        let tj = match &truth {
            Some(recs) => {
                let mine: Vec<_> = recs
                    .iter()
                    .filter(|r| r.t_arrival_ns >= run.from_ns && r.t_arrival_ns <= run.to_ns)
                    .collect();
                assigned += mine.len();
                let on_air: u64 = mine.iter().map(|r| u64::from(r.total_attempts())).sum();
                let got = mine.iter().filter(|r| r.delivered).count();
                push(format!(
                    "  truth: {} frames, {on_air} attempts on air (the confirmations report {attempts}), {got} frames received in some attempt",
                    mine.len()
                ));
                json!({"frames": mine.len(), "attempts": on_air, "delivered_frames": got})
            }
            None => Json::Null,
        };
        pjson.push(json!({
            "policy": run.key, "name": run.name, "frames": run.reports.len(),
            "delivered": delivered, "late": late, "gave_up": gave_up,
            "deadline_reached": reached, "dropped": dropped,
            "requests": requests, "attempts": attempts, "retried_packets": retried,
            "latency_p50_us": p50, "latency_p95_us": p95,
            "received_by_receiver": run.received, "truth": tj,
        }));
    }
    let unassigned = truth.as_ref().map(|t| t.len() - assigned);
    if let Some(u) = unassigned {
        push(format!(
            "truth source: the medium daemon's truth records (control socket); frames from {saddr} to {raddr} outside both runs: {u}"
        ));
    } else {
        push("truth: none apart from the confirmations (on emu they are the emulated medium's own count)".into());
    }
    let d = |k: usize| runs[k].reports.iter().filter(|p| p.fate == Fate::Delivered).count();
    let (m, b) = (d(0), d(1));
    push(format!(
        "relation: {} delivered {b} within the deadline, {} {m}: {} (against bursts of interference on emu, retrying beyond the burst delivers more; this link's losses are independent from one attempt to the next)",
        runs[1].name,
        runs[0].name,
        match b.cmp(&m) {
            std::cmp::Ordering::Greater => "more",
            std::cmp::Ordering::Less => "fewer",
            std::cmp::Ordering::Equal => "as many",
        }
    ));
    let json = json!({
        "overlay": "retx", "backend": backend,
        "sender": {"name": s.name, "address": saddr.to_string()},
        "receiver": {"name": r.name, "address": raddr.to_string()},
        "loss": loss.json,
        "params": {"packets": a.packets, "payload": a.payload, "rate": a.rate.to_string(),
                   "spacing_us": spacing.as_us_f64(), "deadline_us": deadline.as_us_f64(),
                   "burst_us": burst.as_us_f64(), "scale": a.scale},
        "policies": pjson,
        "truth": match unassigned {
            Some(u) => json!({"source": "the medium daemon's truth records (control socket)",
                              "unassigned_frames": u}),
            None => Json::Null,
        },
    });
    Ok(Outcome { text, json })
}

/// Each station's flows (as in the emu EDF test, times multiplied by `scale`): a bulk
/// flow whose bursts of eight 1.4 kB frames (the linux backend's limit is 1467 B) would hold an urgent 100 B frame up in a
/// FIFO queue; the stations' bursts 10 ms apart.
fn edf_config(phy: &Phy, dst: MacAddress, station: usize, scale: u64) -> EdfConfig {
    let ms = |v: u64| Span::from_ms(v * scale);
    let offset = ms(10 * station as u64);
    let flow = |name: &str, period, burst, deadline, payload| Flow {
        name: name.into(),
        period,
        offset,
        burst,
        deadline,
        payload,
        rate: Rate::Ofdm24,
    };
    EdfConfig {
        phy: phy.clone(),
        dst,
        flows: vec![flow("bulk", ms(20), 8, ms(40), 1400), flow("urgent", ms(5), 1, ms(4), 100)],
        tries_per_request: 1,
        in_mac: 4,
        max_attempts: 7,
    }
}

/// EDF, then the MAC's FIFO with 7 tries, on the same flows: every station (not the
/// coordinator, which only receives) runs its flows for `run_ms` each time.
fn run_edf_overlay<B: Backend + Send>(
    mut all: Vec<Named<B>>,
    phy: Phy,
    a: &Args,
    backend: &str,
) -> Result<Outcome, String> {
    let dst = all[0].addr;
    let mut text = format!(
        "overlay edf on {backend}: {} stations sending to {} ({dst}), times scaled by {}\n",
        all.len() - 1,
        all[0].name,
        a.scale
    );
    let mut runs = Vec::new();
    for edf in [true, false] {
        let what = if edf { "EDF" } else { "FIFO (7 MAC tries)" };
        let start = all[0].iface.now() + Span::from_ms(20);
        let end = start + Span::from_ms(a.run_ms * a.scale);
        let reports = std::thread::scope(|sc| {
            let hs: Vec<_> = all
                .iter_mut()
                .skip(1)
                .enumerate()
                .map(|(k, s)| {
                    let cfg = edf_config(&phy, dst, k, a.scale);
                    sc.spawn(move || {
                        let r = if edf {
                            run_edf(&mut s.iface, &cfg, start, end)
                        } else {
                            run_fifo(&mut s.iface, &cfg, 7, start, end)
                        };
                        r.map(|r| (s.name.clone(), r)).map_err(|e| format!("{}: {e}", s.name))
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().expect("station thread")).collect::<Vec<_>>()
        });
        let reports = reports.into_iter().collect::<Result<Vec<_>, _>>()?;
        let (mut missed, mut done) = (0, 0);
        let mut js = Vec::new();
        for (name, r) in &reports {
            for f in &r.flows {
                missed += f.late + f.dropped;
                done += f.met + f.late + f.dropped;
                text.push_str(&format!(
                    "{what} {name} {}: released {}, met {}, late {}, dropped {}, unfinished {}, attempts {}\n",
                    f.name, f.released, f.met, f.late, f.dropped, f.unfinished, f.attempts
                ));
                js.push(json!({"station": name, "flow": f.name, "released": f.released,
                    "met": f.met, "late": f.late, "dropped": f.dropped,
                    "unfinished": f.unfinished, "attempts": f.attempts}));
            }
        }
        let lag = reports.iter().map(|(_, r)| r.max_host_lag).max().unwrap_or(Span::ZERO);
        text.push_str(&format!(
            "{what}: {missed} of {done} finished frames missed their deadline ({:.1} %){}\n",
            if done == 0 { 0.0 } else { 100.0 * missed as f64 / done as f64 },
            if edf {
                format!(", host lag up to {:.1} µs", lag.as_us_f64())
            } else {
                String::new()
            }
        ));
        runs.push(json!({"scheduler": if edf { "edf" } else { "fifo" }, "missed": missed,
            "finished": done, "max_host_lag_us": lag.as_us_f64(), "flows": js}));
    }
    let json = json!({"overlay": "edf", "backend": backend, "scale": a.scale,
        "run_ms": a.run_ms, "runs": runs});
    Ok(Outcome { text, json })
}

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let a = match parse_args(&argv) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("overlay_run: {e}\n{USAGE}");
            std::process::exit(2);
        }
    };
    match main_inner(&a) {
        Ok(o) => {
            print!("{}", o.text);
            if a.json {
                println!("{}", o.json);
            }
        }
        Err(e) => {
            eprintln!("overlay_run: {e}");
            std::process::exit(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(who: &str, start: u64, end: u64) -> OnAir {
        OnAir { who: who.into(), start, end }
    }

    #[test]
    fn overlaps_are_found_and_touching_frames_are_not() {
        let (n, o) = overlaps(vec![f("a", 0, 10), f("b", 10, 20), f("c", 30, 40)]);
        assert_eq!((n, o.len()), (3, 0));
        let (_, o) =
            overlaps(vec![f("a", 0, 100), f("b", 10, 20), f("c", 30, 40), f("d", 200, 300)]);
        assert_eq!(o.len(), 2);
        assert_eq!((o[0].0.who.as_str(), o[0].1.who.as_str()), ("a", "b"));
        assert_eq!((o[1].0.who.as_str(), o[1].1.who.as_str()), ("a", "c"));
    }

    #[test]
    fn bad_arguments_are_refused_with_the_reason() {
        let p = |s: &str| parse_args(&s.split_whitespace().map(String::from).collect::<Vec<_>>());
        assert!(p("tdma --backend emu").is_ok());
        assert!(p("edf --backend emu").is_ok());
        assert!(p("fly --backend emu").unwrap_err().contains("unknown overlay"));
        assert!(p("edf --backend emu --scale 0").unwrap_err().contains("--scale"));
        assert!(p("tdma --backend hwsim:wlan0").unwrap_err().contains("--coordinator"));
        assert!(p("tdma --coordinator hwsim:wlan0").unwrap_err().contains("without any --station"));
        assert!(p("tdma --backend emu --rounds x").unwrap_err().contains("whole number"));
        assert!(p("tdma --backend emu --rate 7").unwrap_err().contains("--rate \"7\""));
        assert!(p("tdma --backend emu --per 0.1").unwrap_err().contains("options of retx"));
        assert_eq!(p("tdma --backend emu --time-base tsf").unwrap().time_base, TimeBase::Tsf);
        assert!(p("tdma --backend emu --time-base gps").unwrap_err().contains("monotonic or tsf"));
        assert!(p("edf --backend emu --time-base tsf").unwrap_err().contains("option of tdma"));
        assert!(p("tdma --backend emu --beacons 2").unwrap_err().contains("--beacons 2"));
        assert_eq!(p("tdma --backend emu --beacon-tu 1000").unwrap().beacon_tu, Some(1000));
        assert!(p("tdma --backend emu --beacon-tu 0").unwrap_err().contains("--beacon-tu 0"));
    }

    #[test]
    fn retx_arguments_are_checked_with_the_reason() {
        let p = |s: &str| parse_args(&s.split_whitespace().map(String::from).collect::<Vec<_>>());
        let a = p("retx --backend emu --per 0.2 --scale 10").unwrap();
        assert_eq!((a.overlay, a.per, a.scale), (Overlay::Retx, Some(0.2), 10));
        assert!(p("retx --sender hwsim:wlan0 --receiver hwsim:wlan1").is_ok());
        assert!(p("retx --sender hwsim:wlan0").unwrap_err().contains("without --receiver"));
        assert!(p("retx --backend emu --per 1").unwrap_err().contains("--per \"1\""));
        assert!(p("retx --sender a:x --receiver a:y --per 0.1")
            .unwrap_err()
            .contains("the medium gives the loss"));
        assert!(p("retx --backend emu --coordinator x").unwrap_err().contains("--sender"));
        assert!(p("retx --backend emu --packets 0").unwrap_err().contains("at least 1"));
        assert!(p("retx --backend emu --payload 2").unwrap_err().contains("--payload 2"));
    }

    #[test]
    fn rate_and_redundancy_arguments_are_checked_with_the_reason() {
        let p = |s: &str| parse_args(&s.split_whitespace().map(String::from).collect::<Vec<_>>());
        let a = p("rate --backend emu --snr-db 12").unwrap();
        assert_eq!((a.overlay, a.snr_db, a.packets), (Overlay::Rate, Some(12.0), 200));
        assert!(p("rate --sender hwsim:wlan0 --receiver hwsim:wlan1").is_ok());
        assert!(p("rate --sender a:x --receiver a:y --snr-db 3")
            .unwrap_err()
            .contains("medium daemon's configuration"));
        assert!(p("rate --backend emu --snr-db x").unwrap_err().contains("--snr-db \"x\""));
        assert!(p("rate --backend emu --window 0").unwrap_err().contains("--window 0"));
        assert!(p("rate --backend emu --freq 2412").unwrap_err().contains("--freq of redundancy"));
        assert!(p("tdma --backend emu --snr-db 3").unwrap_err().contains("option of rate"));
        let red = "redundancy --sender a:0 --sender a:1 --receiver a:2 --receiver a:3";
        let a = p(&format!("{red} --freq 2412 --freq 2437 --tries 1")).unwrap();
        assert_eq!(
            (a.overlay, a.freqs.clone(), a.tries),
            (Overlay::Redundancy, vec![2412, 2437], Some(1))
        );
        assert!(p("rate --backend emu --tries 3").unwrap_err().contains("option of redundancy"));
        assert!(p(&format!("{red} --freq 2412 --freq 2412"))
            .unwrap_err()
            .contains("two different"));
        assert!(p(&format!("{red} --freq 900")).unwrap_err().contains("--freq 900"));
        assert!(p(&format!("{red} --tries 0")).unwrap_err().contains("--tries 0"));
        assert!(p("redundancy --sender a:0 --receiver a:2").unwrap_err().contains("two --sender"));
        assert!(p("redundancy --backend emu").unwrap_err().contains("names its interfaces"));
    }

    #[test]
    fn rate_runs_on_emu_and_accounts_for_every_packet() {
        let argv = "rate --backend emu --snr-db 15 --packets 100";
        let a = parse_args(&argv.split_whitespace().map(String::from).collect::<Vec<_>>()).unwrap();
        let o = main_inner(&a).unwrap();
        let runs = o.json["runs"].as_array().unwrap();
        assert_eq!(runs.len(), 2, "{}", o.text);
        for r in runs {
            let n = |k: &str| r[k].as_u64().unwrap();
            assert_eq!(n("sent"), 100, "{}", o.text);
            assert_eq!(n("delivered") + n("gave_up") + n("dropped"), 100, "{}", o.text);
            let per = r["per_rate"].as_array().unwrap();
            let at: u64 = per.iter().map(|e| e["attempts"].as_u64().unwrap()).sum();
            let ok: u64 = per.iter().map(|e| e["successes"].as_u64().unwrap()).sum();
            assert_eq!((at, ok), (n("attempts"), n("delivered")), "{}", o.text);
        }
        assert!(runs[0]["rates_used"].as_u64().unwrap() > 1, "{}", o.text);
        assert_eq!(runs[1]["rates_used"], 1, "{}", o.text);
    }

    #[test]
    fn retx_runs_on_emu_and_accounts_for_every_frame() {
        let argv = "retx --backend emu --per 0.3 --packets 20 --spacing-ms 5 --deadline-ms 30 --burst-ms 8";
        let a = parse_args(&argv.split_whitespace().map(String::from).collect::<Vec<_>>()).unwrap();
        let o = main_inner(&a).unwrap();
        let ps = o.json["policies"].as_array().unwrap();
        assert_eq!(ps.len(), 2, "{}", o.text);
        for p in ps {
            let n = |k: &str| p[k].as_u64().unwrap();
            assert_eq!(n("frames"), 20, "{}", o.text);
            let fates = ["delivered", "late", "gave_up", "deadline_reached", "dropped"];
            assert_eq!(fates.iter().map(|k| n(k)).sum::<u64>(), 20, "{}", o.text);
            // At 0.3 each way an attempt fails about half the time: both policies retry.
            assert!(n("retried_packets") > 0 && n("attempts") > 20, "{}", o.text);
            assert!(p["truth"].is_null(), "{}", o.text);
        }
        assert!(o.text.contains("relation: beyond_burst"), "{}", o.text);
    }

    #[test]
    fn tdma_runs_on_the_tsf_of_emus_beacons() {
        let argv = "tdma --backend emu --time-base tsf --beacons 6 --rounds 10";
        let a = parse_args(&argv.split_whitespace().map(String::from).collect::<Vec<_>>()).unwrap();
        let o = main_inner(&a).unwrap();
        let (j, text) = (&o.json, &o.text);
        assert_eq!(j["time_base"], "tsf", "{text}");
        // Every interface, the coordinator's included, fitted at least 6 beacons, and
        // the largest error is the guard's synchronisation error.
        let warm = j["sync"]["warm_up"].as_array().unwrap();
        assert_eq!(warm.len(), 3, "{text}");
        let mut worst = 0.0f64;
        for w in warm {
            assert!(w["beacons"].as_u64().unwrap() >= 6, "{w}\n{text}");
            let e = w["error_us"].as_f64().unwrap();
            assert!(e > 0.0 && e.is_finite(), "{w}");
            worst = worst.max(e);
        }
        let (guard, jitter, sync) = (
            j["guard_us"].as_f64().unwrap(),
            j["request_path_jitter_us"].as_f64().unwrap(),
            j["sync_error_us"].as_f64().unwrap(),
        );
        assert_eq!(sync, worst, "{text}");
        assert!((guard - jitter - sync).abs() < 1e-6, "{text}");
        assert!(
            text.contains("synchronisation error") && text.contains("from 6 beacons"),
            "{text}"
        );
        // Every interface's fit puts the TSF at the same place on the local clock (emu's
        // TSF is the medium's clock, which every interface shares), within its error.
        let off: Vec<f64> =
            warm.iter().map(|w| w["tsf_minus_local_us"].as_f64().unwrap()).collect();
        for o in &off {
            assert!((o - off[0]).abs() <= 2.0 * worst, "{off:?}\n{text}");
        }
        // The round divides the beacon interval.
        let bi = j["beacon_interval_us"].as_f64().unwrap();
        let round = j["plan"]["round_us"].as_f64().unwrap();
        assert_eq!(bi % round, 0.0, "{text}");
        // The schedule held on the TSF: no overlap in slots, every slot's frame acked.
        assert_eq!(j["truth"]["overlaps_in_slots"], 0, "{text}");
        for s in j["stations"].as_array().unwrap() {
            assert!(s["sent"].as_u64().unwrap() > 0, "{s}\n{text}");
            assert_eq!(s["acked"], s["sent"], "{s}\n{text}");
            assert_eq!(s["received_by_coordinator"], s["acked"], "{s}\n{text}");
            assert_eq!(s["collisions"], 0, "{s}\n{text}");
        }
    }

    #[test]
    fn a_round_divides_the_beacon_interval() {
        let bi = Span::from_us(102_400);
        // 102.4 ms / 3 is not a whole number of ns: halves, not thirds.
        assert_eq!(round_in(Span::from_us(30_000), bi), Span::from_us(51_200));
        assert_eq!(round_in(Span::from_us(20_000), bi), Span::from_us(20_480));
        assert_eq!(round_in(Span::from_us(51_200), bi), Span::from_us(51_200));
        assert_eq!(round_in(Span::from_us(60_000), bi), bi);
        assert_eq!(round_in(Span::from_us(200_000), bi), Span::from_us(200_000));
        let mut s = TsfSync::new(8);
        // Gaps 102.4, 61.4 (one beacon 41 ms late), 143.4 and 102.4 ms.
        for (k, tsf) in [1_000u64, 103_400, 164_840, 308_200, 410_600].iter().enumerate() {
            s.observe(*tsf, Time::from_ns(5_000_000 + k as u64));
        }
        assert_eq!(beacon_interval(&s), Some(bi));
    }

    #[test]
    fn percentiles_are_nearest_rank() {
        let v: Vec<f64> = (1..=20).map(f64::from).collect();
        assert_eq!(percentile(&v, 50.0), Some(10.0));
        assert_eq!(percentile(&v, 95.0), Some(19.0));
        assert_eq!(percentile(&[7.0], 95.0), Some(7.0));
        assert_eq!(percentile(&[], 50.0), None);
    }
}
