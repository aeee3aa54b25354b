//! # sdmac-rt
//!
//! The lowest layer of sdmac: what the real-time paths share.
//! - [`clock`]: `CLOCK_MONOTONIC` in integer nanoseconds (a vDSO read, no syscall),
//!   the one time base of every timestamp an interface reports.
//! - [`wake`]: a one-consumer wake-up that spins first and parks only when the wait
//!   is long, so a consumer waiting microseconds costs no syscall on either side.
//! - [`eventfd`]: a file descriptor that becomes readable when a wake-up is
//!   signalled, for event loops (Python's asyncio).

#![warn(missing_docs)]

pub mod affinity;
pub mod clock;
pub mod eventfd;
pub mod wake;

pub use clock::monotonic_ns;
pub use eventfd::EventFd;
pub use wake::{WaitOutcome, Wake};
