//! What a caller gives a medium and gets back: its configuration, a frame to send, a
//! queued request as it stands, and why a request or a change was refused.

use crate::config::{Ac, Dest, RateSeries, StationId};
use sdmac_phy::error_model::ErrorModel;
use sdmac_phy::propagation::PathLoss;
use sdmac_phy::{Phy, Rate};
use std::fmt;

/// Configuration of a medium.
#[derive(Clone, Debug)]
pub struct MediumConfig {
    /// PHY and its timing.
    pub phy: Phy,
    /// Channel centre frequency in MHz (for propagation).
    pub freq_mhz: u32,
    /// SINR -> frame error decisions.
    pub error_model: ErrorModel,
    /// Propagation from positions.
    pub path_loss: PathLoss,
    /// Links weaker than this are not modelled at all (neither signal nor interference).
    pub interference_floor_dbm: f64,
    /// Seed of every random stream of this medium.
    pub seed: u64,
    /// A receiver locks onto a frame only if the frame's SINR over its preamble reaches
    /// this (dB); otherwise it only senses energy. 4 dB, as ns-3's threshold
    /// preamble detection model.
    pub preamble_detection_snr_db: f64,
    /// A frame arriving this soon after the one a receiver locked onto can still spoil
    /// (or capture) the preamble detection (ns).
    pub preamble_detection_ns: crate::time::Time,
}

impl MediumConfig {
    /// A medium for `phy` with the NIST error model, log-distance propagation
    /// (exponent 3) and seed 1.
    pub fn new(phy: Phy) -> MediumConfig {
        MediumConfig {
            freq_mhz: phy.standard.default_freq_mhz(),
            phy,
            error_model: ErrorModel::Nist,
            path_loss: PathLoss::LogDistance { exponent: 3.0, ref_distance_m: 1.0, sl_db: 0.0 },
            interference_floor_dbm: -120.0,
            seed: 1,
            preamble_detection_snr_db: 4.0,
            preamble_detection_ns: 4 * crate::time::MICROS,
        }
    }
}

/// A frame handed to a station for transmission.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct TxRequest {
    /// The caller's handle, returned in the report.
    pub handle: u64,
    /// Destination.
    pub dst: Dest,
    /// MPDU length in bytes (header, body, FCS).
    pub len: u32,
    /// Access category (a non-QoS station has one queue for all).
    pub ac: Ac,
    /// Rates and tries; None: the station's default series.
    pub rates: Option<RateSeries>,
    /// Send without expecting an ACK (always so for broadcast).
    pub no_ack: bool,
}

/// Why a frame was not accepted.
#[derive(Clone, Debug, PartialEq)]
pub enum EnqueueError {
    /// The queue holds `limit` frames already.
    QueueFull {
        /// Station.
        station: StationId,
        /// Queue.
        ac: Ac,
        /// Its limit.
        limit: usize,
    },
    /// No such station.
    UnknownStation(StationId),
    /// The MPDU is shorter than an ACK or longer than 802.11 allows.
    InvalidLength(u32),
    /// The PHY cannot send at this rate.
    UnsupportedRate(Rate),
}

impl fmt::Display for EnqueueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EnqueueError::QueueFull { station, ac, limit } => {
                write!(f, "queue {} of station {station} is full ({limit} frames)", ac.name())
            }
            EnqueueError::UnknownStation(s) => write!(f, "no station {s} on this medium"),
            EnqueueError::InvalidLength(l) => {
                write!(f, "invalid MPDU length {l} B (must be 10..={MAX_MPDU_LEN})")
            }
            EnqueueError::UnsupportedRate(r) => write!(f, "rate {r} is not supported by this PHY"),
        }
    }
}

impl std::error::Error for EnqueueError {}

/// A request waiting in a queue (or being sent), as `Medium::queued` shows it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct QueuedInfo {
    /// The queue's access category (for a non-QoS station always `Ac::Be`, its single
    /// DCF queue, as in the `TxReport`).
    pub ac: Ac,
    /// MPDU length in bytes.
    pub len: u32,
    /// The rate series it will be sent with (the station's default series at the time
    /// it was queued, when the request named none).
    pub rates: RateSeries,
    /// Sent without expecting an ACK.
    pub no_ack: bool,
    /// When it entered the queue (on the medium's clock).
    pub t_queued: sdmac_types::Time,
    /// Attempts made so far.
    pub attempts: u8,
    /// An attempt is in progress: its DATA frame is on air, or the sender waits for the
    /// ACK.
    pub on_air: bool,
}

/// Why a queued request could not be changed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum QueuedError {
    /// The station has no request with this handle waiting (never queued, already
    /// finished, or no such station).
    NotQueued {
        /// Station.
        station: StationId,
        /// The handle asked for.
        handle: u64,
    },
    /// The request has made an attempt already (its rates can no longer change).
    AlreadyStarted {
        /// Station.
        station: StationId,
        /// The handle asked for.
        handle: u64,
    },
    /// The PHY cannot send at this rate.
    UnsupportedRate {
        /// The handle asked for.
        handle: u64,
        /// The rate refused.
        rate: Rate,
    },
}

impl fmt::Display for QueuedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            QueuedError::NotQueued { station, handle } => {
                write!(f, "no request with handle {handle} is queued at station {station}")
            }
            QueuedError::AlreadyStarted { station, handle } => {
                write!(f, "request {handle} of station {station} has already been attempted; its rates cannot change")
            }
            QueuedError::UnsupportedRate { handle, rate } => {
                write!(f, "rate {rate} for request {handle} is not supported by this PHY")
            }
        }
    }
}

impl std::error::Error for QueuedError {}

/// Largest MPDU accepted (802.11n A-MSDU in an MPDU: 7935 B + header; round up).
pub const MAX_MPDU_LEN: u32 = 8_000;
