//! The scenario file as written: serde's view of the TOML, before any check.

use sdmac_phy::Rate;
use serde::Deserialize;
use std::collections::BTreeMap;
use toml::Spanned;

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
pub(super) struct RawScenario {
    pub(super) name: Option<String>,
    pub(super) duration: f64,
    pub(super) seed: Option<u64>,
    pub(super) warmup: Option<f64>,
    pub(super) phy: Option<Spanned<RawPhy>>,
    pub(super) propagation: Option<Spanned<RawPropagation>>,
    #[serde(default)]
    pub(super) medium: Vec<Spanned<RawMedium>>,
    #[serde(default)]
    pub(super) station: Vec<Spanned<RawStation>>,
    #[serde(default)]
    pub(super) flow: Vec<Spanned<RawFlow>>,
    #[serde(default)]
    pub(super) link: Vec<Spanned<RawLink>>,
}
