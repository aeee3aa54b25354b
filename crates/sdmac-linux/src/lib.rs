//! # sdmac-linux
//!
//! sdmac's `linux` backend: a radio driven by mac80211 (any Linux Wi-Fi adapter whose
//! driver supports monitor mode, and `mac80211_hwsim`), without driver changes.
//!
//! - [`control`]: opening a radio by interface or phy name, its monitor interface
//!   (created, configured, removed on close and on every error path), channel, TX
//!   power, fixed bitrates and coverage class through nl80211, and the capabilities
//!   the backend needs (checked before, lowered after).

pub mod control;
