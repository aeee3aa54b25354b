//! Configuration of a medium and its stations.

use crate::time::{Time, MICROS, TU};
use sdmac_phy::{Phy, Rate};
use std::fmt;

pub use sdmac_types::{Ac, RateSeries};

/// Index of a station within its medium.
pub type StationId = u32;

/// Channel access parameters of one queue.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct EdcaParams {
    /// AIFSN: AIFS = SIFS + AIFSN slots (2 for DCF).
    pub aifsn: u8,
    /// CWmin.
    pub cw_min: u32,
    /// CWmax.
    pub cw_max: u32,
    /// TXOP limit (0: one frame exchange per access).
    pub txop_limit_ns: Time,
}

impl EdcaParams {
    /// DCF parameters of a non-QoS station: DIFS, the PHY's aCWmin/aCWmax.
    pub fn dcf(phy: &Phy) -> EdcaParams {
        EdcaParams { aifsn: 2, cw_min: phy.cw_min, cw_max: phy.cw_max, txop_limit_ns: 0 }
    }

    /// The standard's default EDCA parameter set of a non-AP QoS station
    /// (IEEE 802.11-2016 Table 9-137), for OFDM PHYs' TXOP limits.
    pub fn edca_default(ac: Ac, phy: &Phy) -> EdcaParams {
        let (min, max) = (phy.cw_min, phy.cw_max);
        let dsss = phy.standard == sdmac_phy::Standard::Dot11b;
        match ac {
            Ac::Bk => EdcaParams { aifsn: 7, cw_min: min, cw_max: max, txop_limit_ns: 0 },
            Ac::Be => EdcaParams { aifsn: 3, cw_min: min, cw_max: max, txop_limit_ns: 0 },
            Ac::Vi => EdcaParams {
                aifsn: 2,
                cw_min: min.div_ceil(2) - 1,
                cw_max: min,
                txop_limit_ns: if dsss { 6016 } else { 3008 } * MICROS,
            },
            Ac::Vo => EdcaParams {
                aifsn: 2,
                cw_min: (min + 1) / 4 - 1,
                cw_max: min.div_ceil(2) - 1,
                txop_limit_ns: if dsss { 3264 } else { 1504 } * MICROS,
            },
        }
    }

    /// Checks the parameters against what an EDCA Parameter Set element can carry
    /// (IEEE 802.11-2016 §9.4.2.29): AIFSN in 1..=15, CWmin and CWmax each 2^k − 1
    /// with k in 0..=15, CWmin ≤ CWmax, and a TXOP limit of at most
    /// [`MAX_TXOP_LIMIT_NS`] (255 units of 32 µs). Reports the first bad field.
    pub fn validate(&self) -> Result<(), EdcaError> {
        if !(1..=15).contains(&self.aifsn) {
            return Err(EdcaError::Aifsn(self.aifsn));
        }
        let is_cw = |cw: u32| cw <= 32_767 && (cw + 1).is_power_of_two();
        if !is_cw(self.cw_min) {
            return Err(EdcaError::CwMin(self.cw_min));
        }
        if !is_cw(self.cw_max) {
            return Err(EdcaError::CwMax(self.cw_max));
        }
        if self.cw_min > self.cw_max {
            return Err(EdcaError::CwOrder { cw_min: self.cw_min, cw_max: self.cw_max });
        }
        if self.txop_limit_ns > MAX_TXOP_LIMIT_NS {
            return Err(EdcaError::TxopLimit(self.txop_limit_ns));
        }
        Ok(())
    }
}

/// The longest TXOP limit an EDCA Parameter Set element can carry: 255 × 32 µs.
pub const MAX_TXOP_LIMIT_NS: Time = 255 * 32 * MICROS;

/// Why EDCA parameters were refused (by [`EdcaParams::validate`] or
/// `Medium::set_edca`). The message names the field and its bad value.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum EdcaError {
    /// AIFSN outside 1..=15.
    Aifsn(u8),
    /// CWmin not of the form 2^k − 1 with k in 0..=15.
    CwMin(u32),
    /// CWmax not of the form 2^k − 1 with k in 0..=15.
    CwMax(u32),
    /// CWmin greater than CWmax.
    CwOrder {
        /// The CWmin given.
        cw_min: u32,
        /// The CWmax given.
        cw_max: u32,
    },
    /// TXOP limit above [`MAX_TXOP_LIMIT_NS`] (value in ns).
    TxopLimit(Time),
    /// No such station.
    UnknownStation(StationId),
    /// A non-QoS station has one DCF queue, set through `Ac::Be`; other ACs have no
    /// queue of their own on it.
    NotQos {
        /// The station.
        station: StationId,
        /// The AC that was given.
        ac: Ac,
    },
}

impl fmt::Display for EdcaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            EdcaError::Aifsn(v) => write!(f, "aifsn {v} is outside 1..=15"),
            EdcaError::CwMin(v) => write!(f, "cw_min {v} is not of the form 2^k-1 (k in 0..=15)"),
            EdcaError::CwMax(v) => write!(f, "cw_max {v} is not of the form 2^k-1 (k in 0..=15)"),
            EdcaError::CwOrder { cw_min, cw_max } => write!(f, "cw_min {cw_min} is greater than cw_max {cw_max}"),
            EdcaError::TxopLimit(v) => write!(f, "txop_limit_ns {v} exceeds {MAX_TXOP_LIMIT_NS} ns (255 x 32 us)"),
            EdcaError::UnknownStation(s) => write!(f, "no station {s} on this medium"),
            EdcaError::NotQos { station, ac } => write!(
                f,
                "station {station} is not a QoS station: its single DCF queue is set through AC BE, not {}",
                ac.name()
            ),
        }
    }
}

impl std::error::Error for EdcaError {}

/// Where a frame goes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Dest {
    /// A station of the same medium.
    Station(StationId),
    /// A unicast address nobody on the medium has (never acknowledged).
    Unknown,
    /// Broadcast or multicast: no ACK.
    Broadcast,
}

/// Beacons sent by an AP station.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct BeaconConfig {
    /// Beacon interval (default 100 TU = 102.4 ms).
    pub interval_ns: Time,
    /// Offset of the first TBTT from time 0.
    pub offset_ns: Time,
    /// Length of the beacon MPDU in bytes, FCS included.
    pub len: u32,
    /// Rate of the beacon (default: the lowest basic rate).
    pub rate: Option<Rate>,
}

impl Default for BeaconConfig {
    fn default() -> Self {
        BeaconConfig { interval_ns: 100 * TU, offset_ns: 0, len: 80, rate: None }
    }
}

/// How a traffic flow generates frames.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum TrafficPattern {
    /// The queue always holds a frame (frames appear as soon as the previous one ends).
    Saturated,
    /// One frame every `interval_ns`.
    ConstantBitRate {
        /// Inter-arrival time.
        interval_ns: Time,
    },
    /// Poisson arrivals with the given mean inter-arrival time.
    Poisson {
        /// Mean inter-arrival time.
        mean_interval_ns: Time,
    },
}

/// A traffic source on a station.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Flow {
    /// Arrival pattern.
    pub pattern: TrafficPattern,
    /// Destination.
    pub dst: Dest,
    /// Payload bytes counted as throughput (above LLC).
    pub payload: u32,
    /// MPDU length on air (header, LLC/SNAP, payload, FCS).
    pub mpdu_len: u32,
    /// Access category.
    pub ac: Ac,
    /// Rates and tries (None: the station's default).
    pub rates: Option<RateSeries>,
    /// First arrival.
    pub start_ns: Time,
    /// No arrivals at or after this time.
    pub stop_ns: Time,
}

/// A station on a medium.
#[derive(Clone, Debug, PartialEq)]
pub struct StationConfig {
    /// MAC address.
    pub address: [u8; 6],
    /// Position in metres.
    pub position: [f64; 3],
    /// Transmit power.
    pub tx_power_dbm: f64,
    /// Antenna gain (transmit and receive).
    pub antenna_gain_dbi: f64,
    /// Noise floor (thermal noise + noise figure).
    pub noise_floor_dbm: f64,
    /// Carrier sense: a transmission received at or above this power makes the medium busy.
    pub cca_threshold_dbm: f64,
    /// Preamble detection: a frame below this power is never received.
    pub rx_sensitivity_dbm: f64,
    /// QoS station with four EDCA queues; otherwise one DCF queue (frames of every AC
    /// go to it).
    pub qos: bool,
    /// Per-AC parameters (for a non-QoS station only `Ac::Be` is used).
    pub edca: [EdcaParams; 4],
    /// Frames each queue holds at most.
    pub queue_limit: usize,
    /// Rate series used when a frame names none.
    pub default_rates: RateSeries,
    /// ACKTimeout of this station's frame exchanges, counted from the end of its DATA
    /// frame; None: the PHY's (`Phy::ack_timeout_ns`, 45 µs for 802.11a). If the ACK's
    /// preamble is detected before it expires, the sender waits for the ACK's end.
    pub ack_timeout_ns: Option<Time>,
    /// Beacons, for an AP.
    pub beacon: Option<BeaconConfig>,
    /// Traffic sources.
    pub flows: Vec<Flow>,
}

impl StationConfig {
    /// A station with the standard's defaults for `phy`: 20 dBm, 0 dBi, noise floor
    /// −93.97 dBm (20 MHz thermal + 7 dB noise figure), CCA −82 dBm, sensitivity −101 dBm,
    /// non-QoS DCF, 500-frame queues, short retry limit 7 at the PHY's fastest rate.
    pub fn new(phy: &Phy, address: [u8; 6], position: [f64; 3]) -> StationConfig {
        let fastest = match phy.standard {
            sdmac_phy::Standard::Dot11b => Rate::Cck11,
            sdmac_phy::Standard::Custom => phy.control_rate.unwrap_or(Rate::Custom { kbps: 1000 }),
            _ => Rate::Ofdm54,
        };
        let mut edca = [EdcaParams::dcf(phy); 4];
        for ac in Ac::ALL {
            edca[ac as usize] = EdcaParams::edca_default(ac, phy);
        }
        edca[Ac::Be as usize] = EdcaParams::dcf(phy);
        StationConfig {
            address,
            position,
            tx_power_dbm: 20.0,
            antenna_gain_dbi: 0.0,
            noise_floor_dbm: -93.97,
            cca_threshold_dbm: -82.0,
            rx_sensitivity_dbm: -101.0,
            qos: false,
            edca,
            queue_limit: 500,
            default_rates: RateSeries::single(fastest, 7),
            ack_timeout_ns: None,
            beacon: None,
            flows: Vec::new(),
        }
    }

    /// Switches to QoS with the standard's default EDCA parameters.
    pub fn with_qos(mut self, phy: &Phy) -> StationConfig {
        self.qos = true;
        for ac in Ac::ALL {
            self.edca[ac as usize] = EdcaParams::edca_default(ac, phy);
        }
        self
    }
}

/// How received power and frame errors are decided on one link.
#[derive(Copy, Clone, Debug, PartialEq, Default)]
pub struct LinkOverride {
    /// Fixed SNR in dB (the received power becomes noise floor + SNR).
    pub snr_db: Option<f64>,
    /// Fixed received power in dBm.
    pub rx_power_dbm: Option<f64>,
    /// Fixed probability that a frame on this link is lost, on top of the error model:
    /// the receiver detected the preamble (it locked onto the frame, so it is busy
    /// receiving until the frame's end and waits EIFS afterwards) but the body is
    /// corrupted. A sender whose ACK is lost this way learns it at the ACK's end.
    /// Clamped to [0, 1]; drawn when the frame ends, only when strictly between 0 and 1.
    pub error_prob: Option<f64>,
    /// Fixed probability that the receiver misses the preamble of a frame on this link:
    /// it never locks onto the frame, which is lost for it (cause
    /// [`Cause::PreambleMissed`](crate::Cause::PreambleMissed)) while its energy still
    /// counts for carrier sense and as interference. A sender that misses its ACK's
    /// preamble gives up at the ACKTimeout. Clamped to [0, 1]; drawn from the MAC
    /// random stream at the moment the receiver would lock, only when strictly between
    /// 0 and 1 (1 always misses, 0 never draws).
    pub preamble_error_prob: Option<f64>,
}
