//! # sdmac-probe
//!
//! `sdmac probe IFACE`: what per-frame control really works on one mac80211
//! adapter, found out by trying it. It creates a monitor interface on the radio,
//! injects frames and reads their TX-status echoes, sets nl80211 attributes and
//! reads them back, and reports each item as works / not honoured / not supported /
//! unverified / not tried / error, with the evidence (what was sent, what came
//! back). Everything it creates is removed again.
//!
//! - [`run`]: the probe against the kernel ([`run::probe`]).
//! - [`judge`]: the decisions, from echoes and values read back, with no kernel
//!   (unit-tested).
//! - [`inject`]: one frame sent on the monitor and its echo waited for.
//! - [`radio_facts`]: the channel and rates picked from the radio's capabilities.
//! - [`report`]: the matrix and its JSON.
//!
//! It depends on the linux backend's crates only (sdmac-linux, sdmac-frame,
//! sdmac-netlink), never on the simulator.

#![warn(missing_docs)]

pub mod inject;
pub mod judge;
pub mod radio_facts;
pub mod report;
pub mod run;

pub use report::{Entry, Report, Verdict};
pub use run::{probe, Options};
