//! Scenario files (TOML): PHY, propagation, mediums, stations, links and traffic.
//!
//! ```toml
//! name = "two stations"
//! duration = 10.0          # simulated seconds
//! seed = 1
//! warmup = 0.0             # seconds excluded from statistics
//!
//! [phy]                    # every timing value can be overridden
//! standard = "802.11a"     # 802.11a | 802.11b | 802.11g | 802.11n-2.4 | 802.11n-5 | custom
//! rate = 54                # default data rate: Mb/s or "mcs7", "mcs7-40-sgi"
//! basic_rates = [6, 12, 24]
//! # slot_us, sifs_us, difs_us, eifs_us, ack_timeout_us, phy_header_us, cw_min, cw_max,
//! # retry_limit, control_rate, short_preamble, error_model = "nist"|"yans"|"none",
//! # per_table = "file", freq_mhz, tx_power_dbm, noise_floor_dbm, cca_threshold_dbm,
//! # rx_sensitivity_dbm, queue_limit
//!
//! [propagation]
//! model = "log_distance"   # free_space | log_distance | log_normal_shadowing | two_ray_ground | itu
//! exponent = 3.0
//!
//! [[station]]
//! name = "ap"
//! position = [0, 0]
//! ap = true                # sends beacons
//!
//! [[station]]
//! name = "sta"
//! position = [5, 0]
//! count = 1                # replicate as sta0, sta1, ... when > 1
//! # circle_radius_m = 1    # replicas on a circle around position (or grid_spacing_m)
//!
//! [[flow]]
//! from = "sta"             # a station, or a replicated group
//! to = "ap"                # a station name or "broadcast"
//! pattern = "saturated"    # saturated | cbr | poisson
//! payload = 1500           # bytes above LLC/SNAP
//! # interval_ms or rate_pps for cbr/poisson, ac = "BE", rate, tries, start, stop
//!
//! [[link]]                 # optional fixed link budgets instead of positions
//! from = "sta"
//! to = "ap"
//! snr_db = 30              # or rx_power_dbm, error_prob; symmetric = true
//! ```
//!
//! Every number must be finite and within its physical range ([`crate::ranges`]).

mod numbers;
mod raw;

pub use numbers::parse_mac;
use numbers::{check_numbers, line_of, secs_to_ns};
use raw::RawScenario;
pub use raw::{
    RateValue, RawEdca, RawFlow, RawLink, RawMedium, RawPhy, RawPropagation, RawStation,
};

use crate::error::SimError;
use sdmac_medium::{Ac, TrafficPattern};
use sdmac_phy::{Rate, Standard};
use toml::Spanned;

/// Most stations a scenario may hold.
pub const MAX_STATIONS: u32 = 100_000;

/// A station after replication, with where it was defined.
#[derive(Debug, Clone)]
pub struct StationSpec {
    /// Position in metres.
    pub position: [f64; 3],
    /// Unique name.
    pub name: String,
    /// Group name (the `name` of its `[[station]]`).
    pub group: String,
    /// MAC address.
    pub address: [u8; 6],
    /// Medium index.
    pub medium: usize,
    /// The raw settings.
    pub raw: RawStation,
    /// Line of its `[[station]]`.
    pub line: usize,
}

/// A flow after name resolution.
#[derive(Debug, Clone)]
pub struct FlowSpec {
    /// Index of the sending station in `Scenario::stations`.
    pub from: usize,
    /// Destination station index, None for broadcast.
    pub to: Option<usize>,
    /// Arrivals.
    pub pattern: TrafficPattern,
    /// Payload bytes.
    pub payload: u32,
    /// Access category.
    pub ac: Ac,
    /// Rate override.
    pub rate: Option<Rate>,
    /// Tries override.
    pub tries: Option<u8>,
    /// Start (ns).
    pub start_ns: u64,
    /// Stop (ns).
    pub stop_ns: u64,
}

/// A link override after name resolution.
#[derive(Debug, Clone, Copy)]
pub struct LinkSpec {
    /// Transmitter index.
    pub from: usize,
    /// Receiver index.
    pub to: usize,
    /// Settings.
    pub snr_db: Option<f64>,
    /// Settings.
    pub rx_power_dbm: Option<f64>,
    /// Settings.
    pub error_prob: Option<f64>,
}

/// A validated scenario.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// Name.
    pub name: String,
    /// File name used in messages.
    pub file: String,
    /// Simulated time (ns).
    pub duration_ns: u64,
    /// Statistics start (ns).
    pub warmup_ns: u64,
    /// Seed.
    pub seed: u64,
    /// PHY settings.
    pub phy: RawPhy,
    /// Standard.
    pub standard: Standard,
    /// Propagation.
    pub propagation: Option<RawPropagation>,
    /// Mediums: (id, frequency).
    pub mediums: Vec<(String, u32)>,
    /// Stations.
    pub stations: Vec<StationSpec>,
    /// Flows.
    pub flows: Vec<FlowSpec>,
    /// Link overrides.
    pub links: Vec<LinkSpec>,
}

impl Scenario {
    /// Parses and validates a scenario; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<Scenario, SimError> {
        let raw: RawScenario = toml::from_str(text).map_err(|e| {
            let line = e.span().map(|s| line_of(text, s.start));
            SimError::at(file, line, "", e.message().trim().to_string())
        })?;
        let err = |line: usize, key: String, msg: String| SimError::at(file, Some(line), key, msg);
        if !(raw.duration > 0.0 && raw.duration.is_finite()) {
            return Err(SimError::at(
                file,
                None,
                "duration",
                format!("must be a positive number of seconds, got {}", raw.duration),
            ));
        }
        let warmup = raw.warmup.unwrap_or(0.0);
        if !(0.0..raw.duration).contains(&warmup) {
            return Err(SimError::at(
                file,
                None,
                "warmup",
                "must be at least 0 and shorter than duration",
            ));
        }
        check_numbers(&raw, text, file)?;
        let phy = raw.phy.as_ref().map(|p| p.get_ref().clone()).unwrap_or_default();
        let standard = check_phy(&phy, file)?;
        let mut mediums: Vec<(String, u32)> = Vec::new();
        let default_freq = phy.freq_mhz.unwrap_or(standard.default_freq_mhz());
        for m in &raw.medium {
            let line = line_of(text, m.span().start);
            let m = m.get_ref();
            if mediums.iter().any(|(id, _)| *id == m.id) {
                return Err(err(line, "medium.id".into(), format!("duplicate medium {:?}", m.id)));
            }
            mediums.push((m.id.clone(), m.freq_mhz.unwrap_or(default_freq)));
        }
        if mediums.is_empty() {
            mediums.push(("0".into(), default_freq));
        }
        let mut stations: Vec<StationSpec> = Vec::new();
        for (i, s) in raw.station.iter().enumerate() {
            let line = line_of(text, s.span().start);
            let r = s.get_ref();
            let key = |k: &str| format!("station[{i}].{k}");
            let medium = match &r.medium {
                Some(id) => mediums
                    .iter()
                    .position(|(m, _)| m == id)
                    .ok_or_else(|| err(line, key("medium"), format!("no medium with id {id:?}")))?,
                None => 0,
            };
            if let Some(p) = &r.position {
                if !(2..=3).contains(&p.len()) || p.iter().any(|x| !x.is_finite()) {
                    return Err(err(
                        line,
                        key("position"),
                        "expected 2 or 3 finite numbers [x, y(, z)] in metres".into(),
                    ));
                }
            }
            if let Some(rate) = &r.rate {
                let rate = rate.parse_rate().map_err(|e| err(line, key("rate"), e))?;
                if !standard.supports(rate) {
                    return Err(err(
                        line,
                        key("rate"),
                        format!("rate {rate} is not supported by {standard}"),
                    ));
                }
            }
            if let Some(e) = &r.edca {
                for name in e.keys() {
                    if Ac::parse(name).is_none() {
                        return Err(err(
                            line,
                            key("edca"),
                            format!("unknown access category {name:?}: expected BK, BE, VI or VO"),
                        ));
                    }
                }
            }
            let count = r.count.unwrap_or(1);
            for (k, v) in
                [("grid_spacing_m", r.grid_spacing_m), ("circle_radius_m", r.circle_radius_m)]
            {
                if v.is_some_and(|g| !(g > 0.0 && g.is_finite())) {
                    return Err(err(line, key(k), "must be a positive number of metres".into()));
                }
            }
            if r.grid_spacing_m.is_some() && r.circle_radius_m.is_some() {
                return Err(err(
                    line,
                    key("circle_radius_m"),
                    "give grid_spacing_m or circle_radius_m, not both".into(),
                ));
            }
            if count == 0 || count > MAX_STATIONS {
                return Err(err(
                    line,
                    key("count"),
                    format!("must be between 1 and {MAX_STATIONS}"),
                ));
            }
            if stations.len() + count as usize > MAX_STATIONS as usize {
                return Err(err(
                    line,
                    key("count"),
                    format!("a scenario holds at most {MAX_STATIONS} stations"),
                ));
            }
            for k in 0..count {
                let name = if count == 1 { r.name.clone() } else { format!("{}{}", r.name, k) };
                if stations.iter().any(|s| s.name == name) {
                    return Err(err(line, key("name"), format!("duplicate station name {name:?}")));
                }
                let n = stations.len();
                let address = match (&r.address, count) {
                    (Some(a), 1) => parse_mac(a).ok_or_else(|| {
                        err(
                            line,
                            key("address"),
                            format!("{a:?} is not a MAC address aa:bb:cc:dd:ee:ff"),
                        )
                    })?,
                    (Some(_), _) => {
                        return Err(err(
                            line,
                            key("address"),
                            "cannot give one address to a replicated station (count > 1)".into(),
                        ))
                    }
                    (None, _) => [0x02, 0, 0, (n >> 16) as u8, (n >> 8) as u8, n as u8],
                };
                let p = r.position.clone().unwrap_or_default();
                let mut position = [
                    p.first().copied().unwrap_or(0.0),
                    p.get(1).copied().unwrap_or(0.0),
                    p.get(2).copied().unwrap_or(0.0),
                ];
                if let Some(radius) = r.circle_radius_m {
                    let a = 2.0 * std::f64::consts::PI * k as f64 / count as f64;
                    position[0] += radius * a.cos();
                    position[1] += radius * a.sin();
                }
                if let Some(spacing) = r.grid_spacing_m {
                    let side = (count as f64).sqrt().ceil() as u32;
                    position[0] += (k % side) as f64 * spacing;
                    position[1] += (k / side) as f64 * spacing;
                }
                stations.push(StationSpec {
                    position,
                    name,
                    group: r.name.clone(),
                    address,
                    medium,
                    raw: r.clone(),
                    line,
                });
            }
        }
        if stations.is_empty() {
            return Err(SimError::at(
                file,
                None,
                "station",
                "a scenario needs at least one [[station]]",
            ));
        }
        let find = |name: &str| -> Vec<usize> {
            let exact: Vec<usize> = stations
                .iter()
                .enumerate()
                .filter(|(_, s)| s.name == name)
                .map(|(i, _)| i)
                .collect();
            if !exact.is_empty() {
                return exact;
            }
            stations.iter().enumerate().filter(|(_, s)| s.group == name).map(|(i, _)| i).collect()
        };
        let duration_ns = secs_to_ns(raw.duration);
        let mut flows = Vec::new();
        for (i, f) in raw.flow.iter().enumerate() {
            let line = line_of(text, f.span().start);
            let r = f.get_ref();
            let key = |k: &str| format!("flow[{i}].{k}");
            let from = find(&r.from);
            if from.is_empty() {
                return Err(err(
                    line,
                    key("from"),
                    format!("no station or group named {:?}", r.from),
                ));
            }
            let to = if r.to == "broadcast" {
                None
            } else {
                let t = find(&r.to);
                if t.len() != 1 {
                    return Err(err(
                        line,
                        key("to"),
                        format!("{:?} must name exactly one station or be \"broadcast\"", r.to),
                    ));
                }
                Some(t[0])
            };
            let interval = match (r.interval_ms, r.rate_pps) {
                (Some(ms), None) if ms > 0.0 => Some(secs_to_ns(ms / 1e3)),
                (None, Some(pps)) if pps > 0.0 => Some(secs_to_ns(1.0 / pps)),
                (None, None) => None,
                _ => {
                    return Err(err(
                        line,
                        key("interval_ms"),
                        "give one positive interval_ms or rate_pps".into(),
                    ))
                }
            };
            let pattern = match (r.pattern.as_str(), interval) {
                ("saturated", _) => TrafficPattern::Saturated,
                ("cbr", Some(i)) => TrafficPattern::ConstantBitRate { interval_ns: i.max(1) },
                ("poisson", Some(i)) => TrafficPattern::Poisson { mean_interval_ns: i.max(1) },
                ("cbr" | "poisson", None) => {
                    return Err(err(
                        line,
                        key("pattern"),
                        format!("{} traffic needs interval_ms or rate_pps", r.pattern),
                    ))
                }
                (p, _) => {
                    return Err(err(
                        line,
                        key("pattern"),
                        format!("unknown pattern {p:?}: expected saturated, cbr or poisson"),
                    ))
                }
            };
            let ac = match &r.ac {
                Some(a) => Ac::parse(a).ok_or_else(|| {
                    err(
                        line,
                        key("ac"),
                        format!("unknown access category {a:?}: expected BK, BE, VI or VO"),
                    )
                })?,
                None => Ac::Be,
            };
            let rate = match &r.rate {
                Some(v) => {
                    let rate = v.parse_rate().map_err(|e| err(line, key("rate"), e))?;
                    if !standard.supports(rate) {
                        return Err(err(
                            line,
                            key("rate"),
                            format!("rate {rate} is not supported by {standard}"),
                        ));
                    }
                    Some(rate)
                }
                None => None,
            };
            if r.tries == Some(0) {
                return Err(err(line, key("tries"), "must be at least 1".into()));
            }
            let payload = r.payload.unwrap_or(1500);
            if payload > 7900 {
                return Err(err(
                    line,
                    key("payload"),
                    format!("{payload} B is larger than an MPDU can carry"),
                ));
            }
            let start_ns = secs_to_ns(r.start.unwrap_or(0.0).max(0.0));
            let stop_ns = r.stop.map_or(duration_ns, |s| secs_to_ns(s.max(0.0)));
            for &s in &from {
                if ac != Ac::Be && !stations[s].raw.qos.unwrap_or(false) {
                    return Err(err(
                        line,
                        key("ac"),
                        format!("station {:?} is not a QoS station (qos = true): it has one DCF queue, so only ac = \"BE\"", stations[s].name),
                    ));
                }
                if let Some(t) = to {
                    if t == s {
                        return Err(err(
                            line,
                            key("to"),
                            format!("station {:?} cannot send to itself", stations[s].name),
                        ));
                    }
                    if stations[t].medium != stations[s].medium {
                        return Err(err(
                            line,
                            key("to"),
                            format!(
                                "{:?} and {:?} are on different mediums",
                                stations[s].name, stations[t].name
                            ),
                        ));
                    }
                }
                flows.push(FlowSpec {
                    from: s,
                    to,
                    pattern,
                    payload,
                    ac,
                    rate,
                    tries: r.tries,
                    start_ns,
                    stop_ns,
                });
            }
        }
        let mut links = Vec::new();
        for (i, l) in raw.link.iter().enumerate() {
            let line = line_of(text, l.span().start);
            let r = l.get_ref();
            let key = |k: &str| format!("link[{i}].{k}");
            let one = |n: &str, k: &str| -> Result<usize, SimError> {
                let v = find(n);
                if v.len() != 1 {
                    return Err(err(line, key(k), format!("{n:?} must name exactly one station")));
                }
                Ok(v[0])
            };
            let (a, b) = (one(&r.from, "from")?, one(&r.to, "to")?);
            if let Some(p) = r.error_prob {
                if !(0.0..=1.0).contains(&p) {
                    return Err(err(line, key("error_prob"), format!("{p} is not a probability")));
                }
            }
            let spec = LinkSpec {
                from: a,
                to: b,
                snr_db: r.snr_db,
                rx_power_dbm: r.rx_power_dbm,
                error_prob: r.error_prob,
            };
            links.push(spec);
            if r.symmetric.unwrap_or(true) {
                links.push(LinkSpec { from: b, to: a, ..spec });
            }
        }
        if let Some(p) = raw.propagation.as_ref().map(Spanned::get_ref) {
            const MODELS: [&str; 5] =
                ["free_space", "log_distance", "log_normal_shadowing", "two_ray_ground", "itu"];
            if !MODELS.contains(&p.model.as_str()) {
                return Err(SimError::at(
                    file,
                    None,
                    "propagation.model",
                    format!("unknown model {:?}: expected one of {}", p.model, MODELS.join(", ")),
                ));
            }
        }
        Ok(Scenario {
            name: raw.name.clone().unwrap_or_else(|| file.to_string()),
            file: file.to_string(),
            duration_ns,
            warmup_ns: secs_to_ns(warmup),
            seed: raw.seed.unwrap_or(1),
            phy,
            standard,
            propagation: raw.propagation.map(Spanned::into_inner),
            mediums,
            stations,
            flows,
            links,
        })
    }
}

/// The standard a `[phy]` table names, after checking its rates and error model
/// against it (the checks of [`Scenario::parse`] that need no stations).
fn check_phy(phy: &RawPhy, file: &str) -> Result<Standard, SimError> {
    let standard: Standard = phy
        .standard
        .as_deref()
        .unwrap_or("802.11a")
        .parse()
        .map_err(|e: String| SimError::at(file, None, "phy.standard", e))?;
    for (key, v) in [("phy.rate", &phy.rate), ("phy.control_rate", &phy.control_rate)] {
        if let Some(r) = v {
            let rate = r.parse_rate().map_err(|e| SimError::at(file, None, key, e))?;
            if !standard.supports(rate) {
                return Err(SimError::at(
                    file,
                    None,
                    key,
                    format!("rate {rate} is not supported by {standard}"),
                ));
            }
        }
    }
    if let Some(m) = &phy.error_model {
        if !["nist", "yans", "none"].contains(&m.as_str()) {
            return Err(SimError::at(
                file,
                None,
                "phy.error_model",
                format!("unknown model {m:?}: expected nist, yans or none"),
            ));
        }
    }
    Ok(standard)
}

/// A `[phy]` table on its own: a TOML document whose only table is `[phy]`, as a
/// scenario writes it (for a program that takes a scenario's PHY and nothing else).
/// Its numbers, standard, rates and error model are checked as in
/// [`Scenario::parse`]; `file` names it in errors.
pub fn parse_phy_table(text: &str, file: &str) -> Result<(Standard, RawPhy), SimError> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct PhyOnly {
        phy: toml::Spanned<RawPhy>,
    }
    let doc: PhyOnly = toml::from_str(text).map_err(|e| {
        let line = e.span().map(|s| line_of(text, s.start));
        SimError::at(file, line, "", e.message().trim().to_string())
    })?;
    let raw = RawScenario {
        name: None,
        duration: 1.0,
        seed: None,
        warmup: None,
        phy: Some(doc.phy),
        propagation: None,
        medium: Vec::new(),
        station: Vec::new(),
        flow: Vec::new(),
        link: Vec::new(),
    };
    check_numbers(&raw, text, file)?;
    let phy = raw.phy.map(|p| p.into_inner()).unwrap_or_default();
    let standard = check_phy(&phy, file)?;
    Ok((standard, phy))
}
