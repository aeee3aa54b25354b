//! # sdmac-overlay
//!
//! Real-time protocols above an unmodified 802.11 MAC, as the SDMAC paper frames them
//! (its Fig. 1): each overlay is written against [`sdmac_api::Backend`] only, so the
//! same code runs on `emu`, `hwsim` and `linux`. An overlay takes its time from the
//! backend's clock ([`sdmac_api::Interface::now`]) and its outcomes from confirmations,
//! never from sleeps, and refuses an impossible plan with an error before it sends
//! anything.

#![warn(missing_docs)]

pub mod edf;
pub mod exchange;
pub mod rate;
pub mod redundancy;
pub mod retransmit;
pub mod tdma;
