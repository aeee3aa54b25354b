//! # sdmac-tap
//!
//! The Ethernet view of sdmac: every station of a scenario gets a TAP device in a
//! network namespace of its own, and ordinary IP applications in those namespaces
//! talk over sdmac's 802.11 MAC.
//!
//! - [`convert`]: 802.3 ↔ 802.11 (LLC/SNAP, RFC 1042 and the 802.1H bridge tunnel)
//!   in place, the 802.11 header written into headroom in front of the payload.
//! - [`backend`]: which backend a station runs on: the emulated medium, or a
//!   radio opened by name (`hwsim:IFACE`, `linux:IFACE`) through its monitor interface.
//! - [`qos`]: a frame's user priority and access category (802.1Q PCP or DSCP).
//! - [`txid`]: TX ids from a bitset over a fixed array.
//! - [`queue`]: preallocated frame buffers and a bounded queue.
//! - [`stations`]: the station table the data paths share, which grows while they
//!   run (a fixed array and a published length).
//! - [`datapath`]: the per-station poll-mode loop between a TAP device and an SDMAC
//!   interface, with its counters.
//! - [`tapio`]: batched TAP reads and writes on io_uring, with registered buffers.
//! - [`mgmt`]: open-system authentication and association between an AP and its
//!   stations, as real management frames, for a thread apart from the data path.
//! - [`control`]: `--control`, the control socket (the protocol of `sdmac-mediumd`).
//! - [`capture`]: `--pcap`, written by a thread apart from the data paths.
//! - [`netns`]: namespaces and TAP devices, created and removed.
//! - [`pktgen`]: the stamped UDP packets and receiver statistics of `sdmac-pktgen`.
//!
//! The data path allocates nothing per frame (a counting-allocator test checks the
//! conversion, TX-id and queue paths).

#![warn(missing_docs)]

pub mod backend;
pub mod capture;
pub mod control;
pub mod convert;
pub mod datapath;
pub mod mgmt;
pub mod netns;
pub mod pktgen;
pub mod qos;
pub mod queue;
pub mod runner;
pub mod stations;
pub mod tapio;
pub mod txid;

pub use convert::{eth_to_wlan, wlan_to_eth, DropReason, Ds, TxParams, HEADROOM};
pub use datapath::{StationPath, Stats};
