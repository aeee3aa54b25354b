//! # sdmac-medium
//!
//! The 802.11 medium engine of sdmac: stations with EDCA queues, lazily counted backoff,
//! per-station carrier sense by received power, NAV and EIFS, SINR-based reception with
//! every overlapping transmission as interference, DATA/ACK exchanges with ACKTimeout
//! and retries over a rate series, beacons, and traffic sources.
//!
//! The engine is a deterministic discrete-event model in integer nanoseconds. It never
//! reads a clock: a [`clock`] drives it, as fast as possible (virtual time) or paced to
//! `CLOCK_MONOTONIC` (wall-clock time). Same seed and inputs, same results, bit for bit.

#![warn(missing_docs)]

pub mod clock;
pub mod config;
pub mod event;
pub mod medium;
pub mod report;
pub mod rng;
pub mod time;

mod access;
mod air;
mod channel_access;
mod expiry;
mod fading;
mod frame_exchange;
mod link;
mod link_budget;
mod lookahead;
mod memo;
mod output_horizon;
mod reception;
mod request;
mod station;
mod traffic;

pub use clock::{run_virtual, Clock, VirtualClock, WallClock, WallClockStats};
pub use config::{
    Ac, BeaconConfig, Dest, EdcaError, EdcaParams, Flow, LinkOverride, RateSeries, StationConfig,
    StationId, TrafficPattern, MAX_TXOP_LIMIT_NS,
};
pub use medium::{
    EnqueueError, Medium, MediumConfig, QueuedError, QueuedInfo, TxRequest, GENERATED_HANDLE_BASE,
    MAX_MPDU_LEN,
};
pub use report::{
    AirRecord, Cause, Collect, FrameKind, MediumStats, Outcome, RxIndication, Sink, StationStats,
    TxReport,
};
pub use time::{Time, MICROS, MILLIS, NEVER, SECONDS, TU};
