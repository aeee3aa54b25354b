//! # sdmac-sim
//!
//! The offline simulator: a scenario (TOML) describes the PHY, mediums, stations,
//! links and traffic; [`run`] builds the mediums on the engine, runs them in virtual
//! time and returns per-station and aggregate statistics as JSON.
//!
//! The Python CLI (`sdmac sim`) and the benchmarks call [`run_scenario_json`] and
//! [`saturation_json`].

#![warn(missing_docs)]

pub mod error;
pub mod pcap;
pub mod ranges;
pub mod results;
pub mod runner;
pub mod saturation;
pub mod scenario;
pub mod stats;

pub use error::SimError;
pub use runner::{run, run_scenario_json, Progress, RunOptions};
pub use saturation::{saturation, saturation_json, SaturationParams};
pub use scenario::Scenario;
