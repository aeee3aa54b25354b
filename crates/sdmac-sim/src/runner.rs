//! Builds the mediums of a scenario on the engine and runs them in virtual time.

use crate::error::SimError;
use crate::results::{medium_json, station_json, Results};
use crate::scenario::{RawPhy, Scenario};
use crate::stats::{StationStats, StatsSink};
use sdmac_medium::{
    Ac, BeaconConfig, Clock, Dest, EdcaParams, Flow, LinkOverride, Medium, MediumConfig,
    RateSeries, StationConfig, VirtualClock, TU,
};
use sdmac_phy::{ErrorModel, PathLoss, PerTable, Phy, RateSet, Standard};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

/// Options of a run.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Write every frame on air (DATA, ACK, beacons) to this pcapng file.
    pub pcap: Option<PathBuf>,
    /// Call the progress callback every this much simulated time.
    pub progress_step_ns: u64,
    /// Run each medium on its own thread.
    pub threads: bool,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions { pcap: None, progress_step_ns: 100_000_000, threads: false }
    }
}

/// Where a run is.
#[derive(Copy, Clone, Debug, Default)]
pub struct Progress {
    /// Simulated time done, summed over mediums.
    pub simulated_ns: u64,
    /// Simulated time to do, summed over mediums.
    pub total_ns: u64,
    /// Events processed so far.
    pub events: u64,
}

/// MPDU length of a data frame carrying `payload` bytes above LLC/SNAP.
pub fn mpdu_len(payload: u32, qos: bool) -> u32 {
    (if qos { 26 } else { 24 }) + 8 + payload + 4
}

/// The PHY of a scenario with every override applied.
pub fn build_phy(file: &str, standard: Standard, p: &RawPhy) -> Result<Phy, SimError> {
    let us = |v: f64| (v * 1000.0).round() as u64;
    let bad = |k: &str, m: String| SimError::at(file, None, format!("phy.{k}"), m);
    let mut phy = Phy::new(standard);
    for (k, v) in [
        ("slot_us", p.slot_us),
        ("sifs_us", p.sifs_us),
        ("phy_header_us", p.phy_header_us),
        ("ack_timeout_us", p.ack_timeout_us),
        ("eifs_us", p.eifs_us),
        ("difs_us", p.difs_us),
    ] {
        if let Some(x) = v {
            if !(x >= 0.0 && x.is_finite()) {
                return Err(bad(
                    k,
                    format!("must be a non-negative number of microseconds, got {x}"),
                ));
            }
        }
    }
    if let Some(v) = p.slot_us {
        if v <= 0.0 {
            return Err(bad("slot_us", "must be positive".into()));
        }
        phy.slot_ns = us(v);
    }
    if let Some(v) = p.sifs_us {
        phy.sifs_ns = us(v);
    }
    if let Some(v) = p.phy_header_us {
        phy.phy_header_ns = Some(us(v));
    }
    if let Some(v) = p.ack_timeout_us {
        phy.ack_timeout_ns = Some(us(v));
    }
    if let Some(v) = p.eifs_us {
        phy.eifs_ns = Some(us(v));
    }
    if let Some(v) = p.cw_min {
        phy.cw_min = v;
    }
    if let Some(v) = p.cw_max {
        phy.cw_max = v;
    }
    if phy.cw_max < phy.cw_min {
        return Err(bad("cw_max", format!("{} is below cw_min {}", phy.cw_max, phy.cw_min)));
    }
    if let Some(v) = p.short_preamble {
        phy.short_preamble = v;
    }
    if let Some(r) = &p.control_rate {
        phy.control_rate = Some(r.parse_rate().map_err(|e| bad("control_rate", e))?);
    }
    if let Some(rates) = &p.basic_rates {
        let mut v = Vec::new();
        for r in rates {
            v.push(r.parse_rate().map_err(|e| bad("basic_rates", e))?);
        }
        phy.basic_rates = RateSet::from_rates(&v);
    }
    if standard == Standard::Custom && phy.control_rate.is_none() {
        return Err(bad(
            "control_rate",
            "a custom PHY needs control_rate (e.g. \"custom1000k\")".into(),
        ));
    }
    Ok(phy)
}

/// DIFS as an AIFSN: 2 unless the table overrides `difs_us`, which must be SIFS plus
/// a whole number of slots.
pub fn dcf_aifsn(file: &str, phy: &Phy, p: &RawPhy) -> Result<u8, SimError> {
    let Some(difs) = p.difs_us else { return Ok(2) };
    let difs_ns = (difs * 1000.0).round() as u64;
    let over = difs_ns.checked_sub(phy.sifs_ns).unwrap_or(u64::MAX);
    // `%`, not `is_multiple_of`: the workspace's minimum Rust (1.75) predates it.
    #[allow(clippy::manual_is_multiple_of)]
    let whole_slots = over % phy.slot_ns == 0;
    if over == u64::MAX || !whole_slots || over / phy.slot_ns > 255 {
        return Err(SimError::at(
            file,
            None,
            "phy.difs_us",
            format!(
                "DIFS must be SIFS + n slots ({} + n x {} µs)",
                phy.sifs_ns as f64 / 1e3,
                phy.slot_ns as f64 / 1e3
            ),
        ));
    }
    Ok((over / phy.slot_ns) as u8)
}

fn error_model(s: &Scenario) -> Result<ErrorModel, SimError> {
    if let Some(path) = &s.phy.per_table {
        let text = std::fs::read_to_string(path).map_err(|e| {
            SimError::at(&s.file, None, "phy.per_table", format!("cannot read {path:?}: {e}"))
        })?;
        let table = PerTable::parse(&text, path)
            .map_err(|e| SimError::at(&s.file, None, "phy.per_table", e.to_string()))?;
        return Ok(ErrorModel::Table(Arc::new(table)));
    }
    Ok(match s.phy.error_model.as_deref().unwrap_or("nist") {
        "yans" => ErrorModel::Yans,
        "none" => ErrorModel::NoErrors,
        _ => ErrorModel::Nist,
    })
}

fn path_loss(s: &Scenario) -> PathLoss {
    let Some(p) = &s.propagation else {
        return MediumConfig::new(Phy::new(Standard::Dot11a)).path_loss;
    };
    let sl_db = p.sl_db.unwrap_or(0.0);
    let exponent = p.exponent.unwrap_or(3.0);
    let ref_distance_m = p.ref_distance_m.unwrap_or(1.0);
    match p.model.as_str() {
        "free_space" => PathLoss::FreeSpace { sl_db },
        "log_normal_shadowing" => PathLoss::LogNormalShadowing {
            exponent,
            ref_distance_m,
            sigma_db: p.sigma_db.unwrap_or(4.0),
            sl_db,
        },
        "two_ray_ground" => PathLoss::TwoRayGround {
            tx_height_m: p.tx_height_m.unwrap_or(1.0),
            rx_height_m: p.rx_height_m.unwrap_or(1.0),
            sl_db,
        },
        "itu" => PathLoss::Itu {
            n_floors: p.n_floors.unwrap_or(0),
            floor_loss_db: p.floor_loss_db.unwrap_or(0.0),
            power_loss_coefficient: p.power_loss_coefficient.unwrap_or(30.0),
        },
        _ => PathLoss::LogDistance { exponent, ref_distance_m, sl_db },
    }
}

/// One built medium: the engine, and which scenario station each of its stations is.
pub struct BuiltMedium {
    /// The engine.
    pub medium: Medium,
    /// Scenario station index of each engine station.
    pub stations: Vec<usize>,
    /// Payload bytes per engine station and flow.
    pub payload: Vec<Vec<u32>>,
}

/// Builds the mediums of a scenario.
pub fn build(s: &Scenario) -> Result<Vec<BuiltMedium>, SimError> {
    let phy = build_phy(&s.file, s.standard, &s.phy)?;
    let aifsn = dcf_aifsn(&s.file, &phy, &s.phy)?;
    let model = error_model(s)?;
    let default_rate = match &s.phy.rate {
        Some(r) => r.parse_rate().map_err(|e| SimError::at(&s.file, None, "phy.rate", e))?,
        None => StationConfig::new(&phy, [0; 6], [0.0; 3]).default_rates.entries()[0].0,
    };
    let retry_limit = s.phy.retry_limit.unwrap_or(7).max(1);
    let mut out = Vec::new();
    for (mi, (_, freq)) in s.mediums.iter().enumerate() {
        let mut cfg = MediumConfig::new(phy.clone());
        cfg.freq_mhz = *freq;
        cfg.error_model = model.clone();
        cfg.path_loss = path_loss(s);
        cfg.seed = s.seed.wrapping_add(mi as u64 * 0x1_0000_0001);
        let mut medium = Medium::new(cfg);
        let members: Vec<usize> =
            (0..s.stations.len()).filter(|&i| s.stations[i].medium == mi).collect();
        let local = |g: usize| members.iter().position(|&m| m == g).map(|p| p as u32);
        let mut payload = Vec::new();
        for &g in &members {
            let spec = &s.stations[g];
            let r = &spec.raw;
            let mut c = StationConfig::new(&phy, spec.address, spec.position);
            if r.qos.unwrap_or(false) {
                c = c.with_qos(&phy);
            } else {
                c.edca[Ac::Be as usize] = EdcaParams { aifsn, ..EdcaParams::dcf(&phy) };
            }
            let pick = |own: Option<f64>, global: Option<f64>, default: f64| {
                own.or(global).unwrap_or(default)
            };
            c.tx_power_dbm = pick(r.tx_power_dbm, s.phy.tx_power_dbm, c.tx_power_dbm);
            c.antenna_gain_dbi = r.antenna_gain_dbi.unwrap_or(0.0);
            c.noise_floor_dbm = pick(r.noise_floor_dbm, s.phy.noise_floor_dbm, c.noise_floor_dbm);
            c.cca_threshold_dbm =
                pick(r.cca_threshold_dbm, s.phy.cca_threshold_dbm, c.cca_threshold_dbm);
            c.rx_sensitivity_dbm =
                pick(r.rx_sensitivity_dbm, s.phy.rx_sensitivity_dbm, c.rx_sensitivity_dbm);
            c.queue_limit = r.queue_limit.or(s.phy.queue_limit).unwrap_or(c.queue_limit).max(1);
            let rate = match &r.rate {
                Some(v) => v
                    .parse_rate()
                    .map_err(|e| SimError::at(&s.file, Some(spec.line), "station.rate", e))?,
                None => default_rate,
            };
            c.default_rates = RateSeries::single(rate, r.retry_limit.unwrap_or(retry_limit).max(1));
            if let Some(e) = &r.edca {
                for (name, p) in e {
                    let ac = Ac::parse(name).expect("validated");
                    let slot = &mut c.edca[ac as usize];
                    slot.aifsn = p.aifsn.unwrap_or(slot.aifsn);
                    slot.cw_min = p.cw_min.unwrap_or(slot.cw_min);
                    slot.cw_max = p.cw_max.unwrap_or(slot.cw_max);
                    slot.txop_limit_ns =
                        p.txop_limit_us.map_or(slot.txop_limit_ns, |u| (u * 1000.0) as u64);
                }
            }
            if r.ap.unwrap_or(false) {
                c.beacon = Some(BeaconConfig {
                    interval_ns: r.beacon_interval_tu.unwrap_or(100).max(1) as u64 * TU,
                    ..BeaconConfig::default()
                });
            }
            let mut pl = Vec::new();
            for f in s.flows.iter().filter(|f| f.from == g) {
                let rates = match (f.rate, f.tries) {
                    (None, None) => None,
                    (r, t) => Some(RateSeries::single(r.unwrap_or(rate), t.unwrap_or(retry_limit))),
                };
                c.flows.push(Flow {
                    pattern: f.pattern,
                    dst: match f.to {
                        Some(t) => Dest::Station(local(t).expect("same medium, validated")),
                        None => Dest::Broadcast,
                    },
                    payload: f.payload,
                    mpdu_len: mpdu_len(f.payload, c.qos),
                    ac: f.ac,
                    rates,
                    start_ns: f.start_ns,
                    stop_ns: f.stop_ns,
                });
                pl.push(f.payload);
            }
            payload.push(pl);
            // Flows start when the station is added; links come first, so add all
            // stations before any traffic can start at t = 0 (events run in order).
            medium.add_station(c);
        }
        for l in s.links.iter().filter(|l| s.stations[l.from].medium == mi) {
            let (a, b) = (local(l.from).unwrap(), local(l.to).unwrap());
            medium.set_link(
                a,
                b,
                LinkOverride {
                    snr_db: l.snr_db,
                    rx_power_dbm: l.rx_power_dbm,
                    error_prob: l.error_prob,
                    ..LinkOverride::default()
                },
            );
        }
        out.push(BuiltMedium { medium, stations: members, payload });
    }
    Ok(out)
}

/// Runs a scenario and returns its results.
pub fn run<'a>(
    s: &'a Scenario,
    opts: &RunOptions,
    progress: &mut dyn FnMut(&Progress) -> bool,
) -> Result<Results<'a>, SimError> {
    let mut built = build(s)?;
    let total = s.duration_ns * built.len() as u64;
    let mut capture = match &opts.pcap {
        Some(p) => Some(
            crate::pcap::Capture::create(p, s)
                .map_err(|e| SimError::Io(format!("cannot write {}: {e}", p.display())))?,
        ),
        None => None,
    };
    let started = Instant::now();
    let mut station_stats: Vec<StationStats> = vec![StationStats::default(); s.stations.len()];
    let mut medium_stats = Vec::new();
    let mut events_total = 0u64;
    let mut done_before = 0u64;
    let mut stopped = false;
    let parallel = opts.threads && built.len() > 1 && capture.is_none();
    if parallel {
        let results: Vec<(Vec<StationStats>, u64)> = std::thread::scope(|scope| {
            let handles: Vec<_> = built
                .iter_mut()
                .map(|b| {
                    let warmup = s.warmup_ns;
                    let duration = s.duration_ns;
                    scope.spawn(move || {
                        let mut sink = StatsSink {
                            stations: vec![StationStats::default(); b.stations.len()],
                            warmup,
                            payload: b.payload.clone(),
                            capture: None,
                        };
                        let mut clock = VirtualClock::new(b.medium.now());
                        let ev =
                            clock.run(&mut b.medium, duration, &mut sink, duration, |_, _| true);
                        (sink.stations, ev)
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().expect("medium thread panicked")).collect()
        });
        for (b, (stats, ev)) in built.iter().zip(results) {
            for (local, st) in stats.into_iter().enumerate() {
                station_stats[b.stations[local]] = st;
            }
            events_total += ev;
        }
        progress(&Progress { simulated_ns: total, total_ns: total, events: events_total });
    } else {
        for (mi, b) in built.iter_mut().enumerate() {
            let mut cap_fn =
                capture.as_mut().map(|c| move |r: &sdmac_medium::AirRecord| c.record(mi, r));
            let mut sink = StatsSink {
                stations: vec![StationStats::default(); b.stations.len()],
                warmup: s.warmup_ns,
                payload: b.payload.clone(),
                capture: cap_fn.as_mut().map(|f| f as &mut dyn FnMut(&sdmac_medium::AirRecord)),
            };
            let base = events_total;
            let mut clock = VirtualClock::new(b.medium.now());
            let ev = clock.run(
                &mut b.medium,
                s.duration_ns,
                &mut sink,
                opts.progress_step_ns,
                |t, ev| {
                    let keep = progress(&Progress {
                        simulated_ns: done_before + t,
                        total_ns: total,
                        events: base + ev,
                    });
                    stopped |= !keep;
                    keep
                },
            );
            events_total += ev;
            done_before += s.duration_ns;
            for (local, st) in sink.stations.into_iter().enumerate() {
                station_stats[b.stations[local]] = st;
            }
            if stopped {
                break;
            }
        }
    }
    let wall = started.elapsed().as_secs_f64();
    if let Some(c) = capture {
        c.finish().map_err(|e| SimError::Io(format!("cannot write capture: {e}")))?;
    }
    for (mi, b) in built.iter().enumerate() {
        medium_stats.push(medium_json(
            &s.mediums[mi].0,
            s.mediums[mi].1,
            &b.medium.stats(),
            s.duration_ns,
        ));
    }
    let measured_ns = s.duration_ns - s.warmup_ns;
    let stations = s
        .stations
        .iter()
        .zip(&station_stats)
        .map(|(spec, st)| station_json(spec, st, measured_ns, &s.mediums))
        .collect();
    Ok(Results {
        scenario: s,
        stations,
        station_stats,
        mediums: medium_stats,
        events: events_total,
        wall_seconds: wall,
        measured_ns,
        stopped,
    })
}

/// Parses `toml_text` and runs it; returns the results as JSON text.
pub fn run_scenario_json(
    toml_text: &str,
    name: &str,
    opts: &RunOptions,
    progress: &mut dyn FnMut(&Progress) -> bool,
) -> Result<String, SimError> {
    let s = Scenario::parse(toml_text, name)?;
    let r = run(&s, opts, progress)?;
    Ok(serde_json::to_string_pretty(&r.to_json()).expect("JSON"))
}
