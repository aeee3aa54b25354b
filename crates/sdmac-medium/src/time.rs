//! Simulated time: integer nanoseconds since the medium started.
//!
//! The engine computes in plain `u64` nanoseconds ([`Time`] here); what it reports
//! ([`TxReport`](crate::TxReport), [`RxIndication`](crate::RxIndication),
//! [`AirRecord`](crate::AirRecord), [`QueuedInfo`](crate::QueuedInfo)) carries
//! `sdmac_types::Time`, an instant on the medium's clock, made by [`at`].

/// A point in simulated time, in nanoseconds since the medium started.
pub type Time = u64;

/// The engine's time `t` as the instant every layer passes around (still on the
/// medium's clock: ns since the medium started).
#[inline]
pub fn at(t: Time) -> sdmac_types::Time {
    sdmac_types::Time::from_ns(t)
}

/// "Never": no event scheduled.
pub const NEVER: Time = Time::MAX;

/// Nanoseconds in a microsecond.
pub const MICROS: Time = 1_000;
/// Nanoseconds in a millisecond.
pub const MILLIS: Time = 1_000_000;
/// Nanoseconds in a second.
pub const SECONDS: Time = 1_000_000_000;
/// One time unit (TU) of 802.11: 1024 µs.
pub const TU: Time = 1_024 * MICROS;
