//! # sdmac-control
//!
//! The wire format of `sdmac-mediumd`'s control socket (`-s`), for the daemon and for
//! its clients, without the daemon or the medium engine:
//! - [`mininet`]: Mininet-WiFi's messages (wmediumd's control protocol), unchanged;
//! - [`ext`]: sdmac's own extension, in a separate range of type bytes (0x80 and
//!   up): the per-frame truth stream, per-station EDCA and ACK timeout, and reading a
//!   link's SNR and error probability;
//! - [`stream`]: the daemon's decoder for a client's byte stream (both kinds);
//! - [`client`]: a small blocking client.

#![warn(missing_docs)]

pub mod client;
pub mod ext;
pub mod mininet;
pub mod stream;

pub use mininet::*;
