//! # sdmac-mediumd
//!
//! The medium daemon for Linux `mac80211_hwsim` radios, a drop-in for wmediumd, on
//! sdmac's medium engine. This crate grows in steps; so far:
//! - [`control`]: Mininet-WiFi's control-socket protocol (the `-s` UNIX socket):
//!   requests decoded from a byte stream, replies encoded as its client expects.

pub mod control;
