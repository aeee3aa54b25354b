//! # sdmac-emu
//!
//! The `emu` backend: the SDMAC API on sdmac's own emulated medium, paced to the wall
//! clock. An [`EmuSession`] owns a [`sdmac_medium::Medium`] and runs it on a device
//! thread; each station given an interface gets an [`EmuIface`], which implements
//! [`sdmac_api::Backend`]. Requests, confirmations, indications and beacons cross
//! between the application and the device thread over lock-free single-producer
//! single-consumer rings; a waiting side spins first and parks only on long waits.
//!
//! In steady state neither hot path allocates: a confirmed one-shot (`data_req` →
//! device → medium → `data_con`) reuses its frame buffer, and an indication
//! (`data_ind`) travels in a buffer that circulates between the device and the
//! application (`tests/zero_alloc.rs` counts both threads' allocations). The one-shot
//! path makes no syscall when the device thread polls ([`DeviceWait::Spin`]); with
//! [`DeviceWait::Park`] a request that finds the device parked costs one `futex`
//! wake-up, which the timestamps show.
//!
//! A session runs on the wall clock by default. On the virtual clock
//! ([`EmuClock::Virtual`], see [`clock`]) the medium's time moves only when every
//! application taking part waits, so a run is the same whatever the host does.

#![warn(missing_docs)]

mod channel;
pub mod clock;
mod device;
pub mod driver;
mod frame;
mod iface;
mod profile;
mod session;
pub mod setup;
mod wait;

pub use clock::{EmuClock, VIRTUAL_ORIGIN};
pub use driver::EmuDriver;
pub use iface::EmuIface;
pub use profile::{DeviceProfile, Latency};
pub use session::{EmuOptions, EmuSession, SessionError};
pub use wait::DeviceWait;
