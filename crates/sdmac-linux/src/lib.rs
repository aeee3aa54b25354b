//! # sdmac-linux
//!
//! The `linux` backend of sdmac: the SDMAC primitives on any mac80211 radio of a
//! stock Linux kernel (any adapter whose driver supports monitor mode, and
//! `mac80211_hwsim`), through a monitor interface, without driver changes.
//!
//! Control half:
//! - [`control`]: opening a radio by interface or phy name, its monitor interface
//!   (created, configured, removed on close and on every error path), channel, TX
//!   power, fixed bitrates and coverage class through nl80211, and the capabilities
//!   the backend needs (checked before, lowered after).
//!
//! Data half:
//! - [`socket`]: the AF_PACKET socket on the monitor (qdisc bypass, software
//!   receive timestamps, batched reads).
//! - [`frames`]: the frames injected (QoS Data with the AC's TID, the backend's
//!   sequence number) and the classification of what is read (TX-status echo or
//!   received frame).
//! - [`matcher`]: echo → request matching, a pure state machine.
//! - [`rates`]: sdmac rates ↔ radiotap, and the rates of a band.
//! - [`backend`]: [`LinuxBackend`], the [`sdmac_api::Backend`] implementation, with
//!   the mapping of timestamps t1..t9 onto what Linux offers.
//!
//! ## Facts it relies on (checked on mac80211_hwsim, Linux 6.1)
//! - An injected frame comes back to the monitor socket once the driver has
//!   reported its status, with a radiotap header of TX flags (`F_TX_FAIL` for a
//!   unicast frame not acknowledged), DATA_RETRIES (retries made) and the rate.
//!   Received frames never carry TX flags, so the TX flags field is what marks an
//!   echo; both arrive as PACKET_OTHERHOST.
//! - Linux honours one rate per injected frame: a series of several entries is
//!   carried out here, by sending the frame again (same sequence number, Retry bit)
//!   at the next entry when the previous one failed.

#![warn(missing_docs)]

pub mod backend;
pub mod control;
pub mod frames;
pub mod matcher;
pub mod rates;
pub mod socket;

pub use backend::{Control, LinuxBackend, LinuxConfig, Stats};
