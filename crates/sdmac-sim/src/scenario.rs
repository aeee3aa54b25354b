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

use crate::error::SimError;
use crate::ranges;
use sdmac_medium::{Ac, TrafficPattern};
use sdmac_phy::{Rate, Standard};
use serde::Deserialize;
use std::collections::BTreeMap;
use toml::Spanned;

/// Most stations a scenario may hold.
pub const MAX_STATIONS: u32 = 100_000;

/// A rate written as a number (Mb/s) or a name.
#[derive(Deserialize, Debug, Clone)]
#[serde(untagged)]
pub enum RateValue {
    /// Mb/s.
    Number(f64),
    /// A name such as "mcs7".
    Name(String),
}

impl RateValue {
    /// The rate it names.
    pub fn parse_rate(&self) -> Result<Rate, String> {
        let s = match self {
            RateValue::Number(n) => {
                if n.fract() == 0.0 {
                    format!("{}", *n as i64)
                } else {
                    format!("{n}")
                }
            }
            RateValue::Name(s) => s.clone(),
        };
        s.parse::<Rate>().map_err(|e| e.to_string())
    }
}

/// `[phy]`.
#[derive(Deserialize, Debug, Clone, Default)]
#[serde(deny_unknown_fields)]
pub struct RawPhy {
    /// PHY standard: "802.11a", "802.11b", "802.11g", "802.11n-2.4", "802.11n-5" or "custom".
    pub standard: Option<String>,
    /// Default data rate: Mb/s, or a name such as "mcs7".
    pub rate: Option<RateValue>,
    /// Basic rate set (Mb/s or names).
    pub basic_rates: Option<Vec<RateValue>>,
    /// Rate of control frames (ACKs), overriding the one derived from the basic rates.
    pub control_rate: Option<RateValue>,
    /// Slot time override (µs).
    pub slot_us: Option<f64>,
    /// SIFS override (µs).
    pub sifs_us: Option<f64>,
    /// DIFS override (µs); must be SIFS plus a whole number of slots.
    pub difs_us: Option<f64>,
    /// EIFS override (µs).
    pub eifs_us: Option<f64>,
    /// ACKTimeout override (µs).
    pub ack_timeout_us: Option<f64>,
    /// PHY preamble and header duration override (µs).
    pub phy_header_us: Option<f64>,
    /// Minimum contention window (slots).
    pub cw_min: Option<u32>,
    /// Maximum contention window (slots).
    pub cw_max: Option<u32>,
    /// Transmission attempts per frame at the default rate.
    pub retry_limit: Option<u8>,
    /// Use the short DSSS preamble (802.11b/g).
    pub short_preamble: Option<bool>,
    /// Error model: "nist" (default), "yans" or "none".
    pub error_model: Option<String>,
    /// Path of a packet error rate table file, instead of the error model.
    pub per_table: Option<String>,
    /// Channel centre frequency (MHz).
    pub freq_mhz: Option<u32>,
    /// Transmit power of every station (dBm).
    pub tx_power_dbm: Option<f64>,
    /// Noise floor of every station (dBm).
    pub noise_floor_dbm: Option<f64>,
    /// Carrier-sense (CCA) threshold of every station (dBm).
    pub cca_threshold_dbm: Option<f64>,
    /// Receiver sensitivity (preamble detection) of every station (dBm).
    pub rx_sensitivity_dbm: Option<f64>,
    /// Frames each transmit queue holds.
    pub queue_limit: Option<usize>,
}

/// `[propagation]`.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawPropagation {
    /// Path loss model: "free_space", "log_distance", "log_normal_shadowing", "two_ray_ground" or "itu".
    pub model: String,
    /// Path loss exponent (log-distance models; default 3).
    pub exponent: Option<f64>,
    /// Reference distance of the log-distance models (m; default 1).
    pub ref_distance_m: Option<f64>,
    /// Standard deviation of the log-normal shadowing (dB; default 4).
    pub sigma_db: Option<f64>,
    /// System loss added to the path loss (dB; default 0).
    pub sl_db: Option<f64>,
    /// Transmitter antenna height of the two-ray ground model (m; default 1).
    pub tx_height_m: Option<f64>,
    /// Receiver antenna height of the two-ray ground model (m; default 1).
    pub rx_height_m: Option<f64>,
    /// Floors between the stations (ITU model; default 0).
    pub n_floors: Option<u32>,
    /// Loss per floor (ITU model, dB; default 0).
    pub floor_loss_db: Option<f64>,
    /// Distance power loss coefficient N (ITU model; default 30).
    pub power_loss_coefficient: Option<f64>,
}

/// `[[medium]]`.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawMedium {
    /// Name that stations refer to in their `medium` key.
    pub id: String,
    /// Centre frequency of this medium (MHz).
    pub freq_mhz: Option<u32>,
}

/// EDCA parameters of one AC in `[station.edca.BE]`.
#[derive(Deserialize, Debug, Clone, Copy)]
#[serde(deny_unknown_fields)]
pub struct RawEdca {
    /// Arbitration inter-frame space number (slots after SIFS).
    pub aifsn: Option<u8>,
    /// Minimum contention window (slots).
    pub cw_min: Option<u32>,
    /// Maximum contention window (slots).
    pub cw_max: Option<u32>,
    /// TXOP limit (µs; 0 is one frame per access).
    pub txop_limit_us: Option<f64>,
}

/// `[[station]]`.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawStation {
    /// Station name (replicas get a number appended).
    pub name: String,
    /// MAC address, "aa:bb:cc:dd:ee:ff" (derived from the index when absent).
    pub address: Option<String>,
    /// Position [x, y] or [x, y, z] (m).
    pub position: Option<Vec<f64>>,
    /// Id of the `[[medium]]` the station is on (the first when absent).
    pub medium: Option<String>,
    /// True for an access point, which sends beacons.
    pub ap: Option<bool>,
    /// QoS station (four EDCA queues) rather than one DCF queue.
    pub qos: Option<bool>,
    /// Transmit power (dBm).
    pub tx_power_dbm: Option<f64>,
    /// Antenna gain (dBi), added on transmit and receive.
    pub antenna_gain_dbi: Option<f64>,
    /// Noise floor (dBm).
    pub noise_floor_dbm: Option<f64>,
    /// Carrier-sense (CCA) threshold (dBm).
    pub cca_threshold_dbm: Option<f64>,
    /// Receiver sensitivity (dBm).
    pub rx_sensitivity_dbm: Option<f64>,
    /// Default data rate of its frames (Mb/s or a name).
    pub rate: Option<RateValue>,
    /// Transmission attempts per frame.
    pub retry_limit: Option<u8>,
    /// Frames each of its transmit queues holds.
    pub queue_limit: Option<usize>,
    /// Beacon interval of an AP (TU of 1024 µs).
    pub beacon_interval_tu: Option<u32>,
    /// Number of replicas of this station (1 when absent).
    pub count: Option<u32>,
    /// Replicas are placed on a square grid with this spacing (m), starting at
    /// `position`; without it they share `position`.
    pub grid_spacing_m: Option<f64>,
    /// Replicas are placed evenly on a circle of this radius (m) around `position`.
    pub circle_radius_m: Option<f64>,
    /// EDCA parameters per access category ("BE", "BK", "VI", "VO").
    pub edca: Option<BTreeMap<String, RawEdca>>,
}

/// `[[flow]]`.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawFlow {
    /// Sending station, or a replicated group.
    pub from: String,
    /// Receiving station name, or "broadcast".
    pub to: String,
    /// Traffic pattern: "saturated", "cbr" or "poisson".
    pub pattern: String,
    /// Interval between frames of cbr/poisson traffic (ms).
    pub interval_ms: Option<f64>,
    /// Frame rate of cbr/poisson traffic (frames per second).
    pub rate_pps: Option<f64>,
    /// Payload bytes above LLC/SNAP.
    pub payload: Option<u32>,
    /// Access category: "BE", "BK", "VI" or "VO".
    pub ac: Option<String>,
    /// Data rate of this flow's frames (Mb/s or a name).
    pub rate: Option<RateValue>,
    /// Transmission attempts per frame of this flow.
    pub tries: Option<u8>,
    /// When the flow starts (simulated seconds).
    pub start: Option<f64>,
    /// When the flow stops (simulated seconds).
    pub stop: Option<f64>,
}

/// `[[link]]`.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawLink {
    /// Transmitting station.
    pub from: String,
    /// Receiving station.
    pub to: String,
    /// Fixed SNR of the link (dB).
    pub snr_db: Option<f64>,
    /// Fixed received power of the link (dBm).
    pub rx_power_dbm: Option<f64>,
    /// Fixed frame loss probability on top of the error model.
    pub error_prob: Option<f64>,
    /// Apply the same settings to the reverse direction (default true).
    pub symmetric: Option<bool>,
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
struct RawScenario {
    name: Option<String>,
    duration: f64,
    seed: Option<u64>,
    warmup: Option<f64>,
    phy: Option<Spanned<RawPhy>>,
    propagation: Option<Spanned<RawPropagation>>,
    #[serde(default)]
    medium: Vec<Spanned<RawMedium>>,
    #[serde(default)]
    station: Vec<Spanned<RawStation>>,
    #[serde(default)]
    flow: Vec<Spanned<RawFlow>>,
    #[serde(default)]
    link: Vec<Spanned<RawLink>>,
}

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

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].bytes().filter(|&b| b == b'\n').count() + 1
}

fn secs_to_ns(s: f64) -> u64 {
    (s * 1e9).round() as u64
}

/// Parses a MAC address `aa:bb:cc:dd:ee:ff`.
pub fn parse_mac(s: &str) -> Option<[u8; 6]> {
    let parts: Vec<&str> = s.split(':').collect();
    if parts.len() != 6 {
        return None;
    }
    let mut a = [0u8; 6];
    for (i, p) in parts.iter().enumerate() {
        if p.len() != 2 {
            return None;
        }
        a[i] = u8::from_str_radix(p, 16).ok()?;
    }
    Some(a)
}

/// Every number of the scenario against its physical range ([`crate::ranges`]).
fn check_numbers(raw: &RawScenario, text: &str, file: &str) -> Result<(), SimError> {
    use ranges::*;
    if let Some(p) = &raw.phy {
        let (at, p) = (p.span().start, p.get_ref());
        check(file, text, at, "phy.", "slot_us", p.slot_us, SLOT_US)?;
        for (k, v) in [
            ("sifs_us", p.sifs_us),
            ("difs_us", p.difs_us),
            ("eifs_us", p.eifs_us),
            ("ack_timeout_us", p.ack_timeout_us),
            ("phy_header_us", p.phy_header_us),
        ] {
            check(file, text, at, "phy.", k, v, TIMING_US)?;
        }
        check(file, text, at, "phy.", "tx_power_dbm", p.tx_power_dbm, TX_POWER_DBM)?;
        for (k, v) in [
            ("noise_floor_dbm", p.noise_floor_dbm),
            ("cca_threshold_dbm", p.cca_threshold_dbm),
            ("rx_sensitivity_dbm", p.rx_sensitivity_dbm),
        ] {
            check(file, text, at, "phy.", k, v, LEVEL_DBM)?;
        }
    }
    if let Some(p) = &raw.propagation {
        let (at, p) = (p.span().start, p.get_ref());
        let c = |k: &str, v: Option<f64>, r: Range| check(file, text, at, "propagation.", k, v, r);
        c("exponent", p.exponent, EXPONENT)?;
        c("ref_distance_m", p.ref_distance_m, REF_DISTANCE_M)?;
        for (k, v) in [
            ("sigma_db", p.sigma_db),
            ("sl_db", p.sl_db),
            ("floor_loss_db", p.floor_loss_db),
            ("power_loss_coefficient", p.power_loss_coefficient),
        ] {
            c(k, v, LOSS_DB)?;
        }
        c("tx_height_m", p.tx_height_m, HEIGHT_M)?;
        c("rx_height_m", p.rx_height_m, HEIGHT_M)?;
    }
    for (i, st) in raw.station.iter().enumerate() {
        let (at, s) = (st.span().start, st.get_ref());
        let prefix = format!("station[{i}].");
        let c = |k: &str, v: Option<f64>, r: Range| check(file, text, at, &prefix, k, v, r);
        c("tx_power_dbm", s.tx_power_dbm, TX_POWER_DBM)?;
        c("antenna_gain_dbi", s.antenna_gain_dbi, GAIN_DBI)?;
        for (k, v) in [
            ("noise_floor_dbm", s.noise_floor_dbm),
            ("cca_threshold_dbm", s.cca_threshold_dbm),
            ("rx_sensitivity_dbm", s.rx_sensitivity_dbm),
        ] {
            c(k, v, LEVEL_DBM)?;
        }
        for x in s.position.iter().flatten() {
            c("position", Some(*x), COORDINATE_M)?;
        }
        c("grid_spacing_m", s.grid_spacing_m, SPACING_M)?;
        c("circle_radius_m", s.circle_radius_m, SPACING_M)?;
        for (ac, e) in s.edca.iter().flatten() {
            check(
                file,
                text,
                at,
                &format!("{prefix}edca.{ac}."),
                "txop_limit_us",
                e.txop_limit_us,
                TIMING_US,
            )?;
        }
    }
    for (i, f) in raw.flow.iter().enumerate() {
        let (at, f) = (f.span().start, f.get_ref());
        let prefix = format!("flow[{i}].");
        let c = |k: &str, v: Option<f64>, r: Range| check(file, text, at, &prefix, k, v, r);
        c("interval_ms", f.interval_ms, INTERVAL_MS)?;
        c("rate_pps", f.rate_pps, RATE_PPS)?;
        c("start", f.start, TIME_S)?;
        c("stop", f.stop, TIME_S)?;
    }
    for (i, l) in raw.link.iter().enumerate() {
        let (at, l) = (l.span().start, l.get_ref());
        let prefix = format!("link[{i}].");
        let c = |k: &str, v: Option<f64>, r: Range| check(file, text, at, &prefix, k, v, r);
        c("snr_db", l.snr_db, SNR_DB)?;
        c("rx_power_dbm", l.rx_power_dbm, RX_POWER_DBM)?;
        c("error_prob", l.error_prob, PROBABILITY)?;
    }
    Ok(())
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
