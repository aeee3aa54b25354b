//! The saturation sweep: n saturated stations sending to one receiver, for each n.
//! With 802.11a at 54 Mb/s and 1500 B payloads this is the scenario of Bianchi's
//! analysis (JSAC 2000) that the validation tests compare against.

use crate::error::SimError;
use crate::runner::{run, Progress, RunOptions};
use crate::scenario::Scenario;
use serde_json::{json, Value};

/// Parameters of a sweep.
#[derive(Clone, Debug)]
pub struct SaturationParams {
    /// PHY standard name.
    pub standard: String,
    /// Data rate name (e.g. "54").
    pub rate: String,
    /// Payload bytes above LLC/SNAP.
    pub payload: u32,
    /// Numbers of saturated stations.
    pub stations: Vec<u32>,
    /// Simulated seconds per point.
    pub duration_s: f64,
    /// Seed.
    pub seed: u64,
}

/// The scenario text of one point of the sweep.
pub fn scenario_text(p: &SaturationParams, n: u32) -> String {
    format!(
        "name = \"saturation n={n}\"\nduration = {d}\nseed = {seed}\n\n[phy]\nstandard = \"{std}\"\nrate = \"{rate}\"\n\n\
         [[station]]\nname = \"ap\"\nposition = [0, 0]\n\n[[station]]\nname = \"sta\"\nposition = [0, 0]\ncircle_radius_m = 1\ncount = {n}\n\n\
         [[flow]]\nfrom = \"sta\"\nto = \"ap\"\npattern = \"saturated\"\npayload = {payload}\n",
        d = p.duration_s,
        seed = p.seed,
        std = p.standard,
        rate = p.rate,
        payload = p.payload,
    )
}

/// Runs the sweep; `progress` sees each point's progress (simulated time of all points).
pub fn saturation(
    p: &SaturationParams,
    progress: &mut dyn FnMut(&Progress) -> bool,
) -> Result<Vec<Value>, SimError> {
    let mut out = Vec::new();
    let total: u64 = (p.duration_s * 1e9) as u64 * p.stations.len() as u64;
    let mut done = 0u64;
    for &n in &p.stations {
        if n == 0 {
            return Err(SimError::at(
                "saturation",
                None,
                "stations",
                "every number of stations must be at least 1",
            ));
        }
        let text = scenario_text(p, n);
        let s = Scenario::parse(&text, "saturation")?;
        let mut stop = false;
        let r = run(&s, &RunOptions::default(), &mut |pr: &Progress| {
            let keep = progress(&Progress {
                simulated_ns: done + pr.simulated_ns,
                total_ns: total,
                events: pr.events,
            });
            stop |= !keep;
            keep
        })?;
        done += s.duration_ns;
        let j = r.to_json();
        out.push(json!({
            "stations": n,
            "throughput_mbps": j["aggregate"]["throughput_mbps"],
            "collision_probability": j["aggregate"]["collision_probability"],
            "attempts": j["aggregate"]["attempts"],
            "delay_us": j["aggregate"]["delay_us"],
            "events": j["events"],
            "wall_seconds": j["wall_seconds"],
            "events_per_second": j["events_per_second"],
            "sim_seconds_per_wall_second": j["sim_seconds_per_wall_second"],
        }));
        if stop {
            break;
        }
    }
    Ok(out)
}

/// Runs the sweep and returns `{"params": ..., "results": [...]}` as JSON text.
pub fn saturation_json(
    p: &SaturationParams,
    progress: &mut dyn FnMut(&Progress) -> bool,
) -> Result<String, SimError> {
    let results = saturation(p, progress)?;
    let v = json!({
        "params": {"standard": p.standard, "rate": p.rate, "payload": p.payload, "duration_s": p.duration_s, "seed": p.seed,
                   "timing": timing(p)?},
        "results": results,
    });
    Ok(serde_json::to_string_pretty(&v).expect("JSON"))
}

/// The PHY/MAC timing of the sweep's scenario (what an analytical model needs), in µs.
pub fn timing(p: &SaturationParams) -> Result<Value, SimError> {
    let s = Scenario::parse(&scenario_text(p, 1), "saturation")?;
    let phy = crate::runner::build_phy(&s.file, s.standard, &s.phy)?;
    let rate = s
        .phy
        .rate
        .as_ref()
        .expect("set by scenario_text")
        .parse_rate()
        .map_err(|e| SimError::at("saturation", None, "rate", e))?;
    let us = |ns: u64| ns as f64 / 1e3;
    let mpdu = crate::runner::mpdu_len(p.payload, false);
    Ok(json!({
        "slot_us": us(phy.slot_ns),
        "sifs_us": us(phy.sifs_ns),
        "difs_us": us(phy.difs_ns()),
        "ack_timeout_us": us(phy.ack_timeout_ns()),
        "data_us": us(phy.airtime_ns(mpdu, rate)),
        "ack_us": us(phy.ack_airtime_ns(rate)),
        "mpdu_bytes": mpdu,
        "cw_min": phy.cw_min,
        "cw_max": phy.cw_max,
    }))
}
