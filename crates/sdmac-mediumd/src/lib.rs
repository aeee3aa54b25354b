//! # sdmac-mediumd
//!
//! The medium daemon for Linux `mac80211_hwsim` radios, a drop-in for wmediumd, on
//! sdmac's medium engine. This crate grows in steps; so far:
//! - [`control`]: Mininet-WiFi's control-socket protocol (the `-s` UNIX socket):
//!   requests decoded from a byte stream, replies encoded as its client expects.
//! - [`hwsim_medium`]: the medium without sockets — kernel frames in, TX statuses and
//!   deliveries out, one engine medium per channel.

pub mod control;
pub mod capture;
pub mod config;
pub mod control_apply;
pub mod daemon;
pub mod hwsim_medium;
pub mod netlink;
pub mod stats;
pub mod timer;
