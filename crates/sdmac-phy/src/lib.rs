//! # sdmac-phy
//!
//! What the 802.11 PHY means for a MAC: the rates of each PHY, the airtime of a frame
//! (from the standard's TXTIME formulas, in integer nanoseconds), interframe spaces,
//! ACKTimeout, EIFS and the control-response rate; radio propagation models; and error
//! models that turn an SNR into a packet error rate.
//!
//! This crate reads no clock and draws no random number by itself: callers pass seeds
//! and times in.

#![warn(missing_docs)]

pub mod error_model;
pub mod phy;
pub mod propagation;
pub mod rate;
pub mod standard;
pub mod units;

pub use error_model::{ErrorModel, PerTable, PerTableError};
pub use phy::{Phy, RateSet, LEGACY_RATES};
pub use propagation::{received_power_dbm, PathLoss};
pub use rate::{CodeRate, Modulation, ModulationClass, Rate, Width};
pub use standard::{Standard, ACK_LEN, US};
