//! Results of a run, as JSON.

use crate::scenario::{Scenario, StationSpec};
use crate::stats::{percentile, StationStats};
use sdmac_medium::{Ac, MediumStats};
use serde_json::{json, Value};

/// Results of a scenario run.
pub struct Results<'a> {
    /// The scenario.
    pub scenario: &'a Scenario,
    /// Per station, as JSON objects.
    pub stations: Vec<Value>,
    /// Per station, raw.
    pub station_stats: Vec<StationStats>,
    /// Per medium, as JSON objects.
    pub mediums: Vec<Value>,
    /// Events processed.
    pub events: u64,
    /// Wall-clock seconds of the run.
    pub wall_seconds: f64,
    /// Simulated time over which statistics were taken (duration − warmup).
    pub measured_ns: u64,
    /// The run was stopped early.
    pub stopped: bool,
}

fn mbps(bytes: u64, ns: u64) -> f64 {
    if ns == 0 {
        0.0
    } else {
        bytes as f64 * 8.0 / ns as f64 * 1e3
    }
}

fn delay_json(delays: &mut [u64]) -> Value {
    delays.sort_unstable();
    let us = |p: f64| percentile(delays, p).map(|v| v as f64 / 1e3);
    let mean = if delays.is_empty() {
        None
    } else {
        Some(delays.iter().sum::<u64>() as f64 / delays.len() as f64 / 1e3)
    };
    json!({"mean": mean, "p50": us(50.0), "p99": us(99.0), "p99.9": us(99.9), "max": us(100.0)})
}

fn mac(a: &[u8; 6]) -> String {
    a.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(":")
}

/// JSON of one station.
pub fn station_json(
    spec: &StationSpec,
    st: &StationStats,
    measured_ns: u64,
    mediums: &[(String, u32)],
) -> Value {
    let mut delays = st.delays.clone();
    json!({
        "name": spec.name,
        "address": mac(&spec.address),
        "medium": mediums[spec.medium].0,
        "throughput_mbps": mbps(st.delivered_bytes, measured_ns),
        "sent": st.sent,
        "acked": st.acked,
        "lost": st.lost,
        "dropped": st.dropped,
        "attempts": st.attempts,
        "retries": st.attempts.saturating_sub(st.sent),
        "collisions": st.collisions,
        "received": st.received,
        "duplicates": st.duplicates,
        "delay_us": delay_json(&mut delays),
    })
}

/// JSON of one medium.
pub fn medium_json(id: &str, freq: u32, m: &MediumStats, duration_ns: u64) -> Value {
    let frac = |ns: u64| ns as f64 / duration_ns.max(1) as f64;
    let per_ac = |f: &dyn Fn(usize) -> Value| -> Value {
        let mut o = serde_json::Map::new();
        for ac in Ac::ALL {
            o.insert(ac.name().to_string(), f(ac as usize));
        }
        Value::Object(o)
    };
    json!({
        "id": id,
        "freq_mhz": freq,
        "utilization": frac(m.busy_ns),
        "utilization_per_ac": per_ac(&|i| json!(frac(m.airtime_ns[i]))),
        "beacon_utilization": frac(m.beacon_airtime_ns),
        "attempts_per_ac": per_ac(&|i| json!(m.attempts[i])),
        "retries_per_ac": per_ac(&|i| json!(m.retries[i])),
        "collisions_per_ac": per_ac(&|i| json!(m.collisions[i])),
        "acked_per_ac": per_ac(&|i| json!(m.acked[i])),
        "failed_per_ac": per_ac(&|i| json!(m.failed[i])),
        "dropped_per_ac": per_ac(&|i| json!(m.dropped[i])),
        "beacons": m.beacons,
        "events": m.events,
    })
}

impl Results<'_> {
    /// The whole result as JSON (the output contract of `sdmac sim`).
    pub fn to_json(&self) -> Value {
        let s = self.scenario;
        let total_bytes: u64 = self.station_stats.iter().map(|x| x.delivered_bytes).sum();
        let sum =
            |f: &dyn Fn(&StationStats) -> u64| -> u64 { self.station_stats.iter().map(f).sum() };
        let attempts = sum(&|x| x.attempts);
        let collisions = sum(&|x| x.collisions);
        let mut all: Vec<u64> =
            self.station_stats.iter().flat_map(|x| x.delays.iter().copied()).collect();
        let sim_s = (s.duration_ns * self.mediums.len() as u64) as f64 / 1e9;
        json!({
            "scenario": s.name,
            "seed": s.seed,
            "duration_s": s.duration_ns as f64 / 1e9,
            "warmup_s": s.warmup_ns as f64 / 1e9,
            "standard": s.standard.name(),
            "stopped_early": self.stopped,
            "aggregate": {
                "throughput_mbps": mbps(total_bytes, self.measured_ns),
                "sent": sum(&|x| x.sent),
                "acked": sum(&|x| x.acked),
                "lost": sum(&|x| x.lost),
                "dropped": sum(&|x| x.dropped),
                "attempts": attempts,
                "collisions": collisions,
                "collision_probability": if attempts == 0 { 0.0 } else { collisions as f64 / attempts as f64 },
                "delay_us": delay_json(&mut all),
            },
            "stations": self.stations,
            "mediums": self.mediums,
            "events": self.events,
            "wall_seconds": self.wall_seconds,
            "events_per_second": self.events as f64 / self.wall_seconds.max(1e-9),
            "sim_seconds_per_wall_second": sim_s / self.wall_seconds.max(1e-9),
        })
    }
}
