//! Simulated time: integer nanoseconds since the medium started.

/// A point in simulated time, in nanoseconds since the medium started.
pub type Time = u64;

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
