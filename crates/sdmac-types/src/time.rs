//! Time as every layer passes it: [`Time`], an instant, and [`Span`], the distance
//! between two instants, both in integer nanoseconds.
//!
//! A [`Time`] is a reading of the clock that produced it, and only comparable with
//! readings of the same clock: `CLOCK_MONOTONIC` on the host (the API's timestamps,
//! the same clock as Python's `time.monotonic_ns()`), or a medium's own clock (ns
//! since the medium started). Which one is said where a `Time` is produced.
//!
//! Arithmetic follows `u64`'s: `+` and `-` panic on overflow in debug builds; the
//! `saturating_*` and `checked_*` methods never do.

use core::fmt;
use core::ops::{Add, AddAssign, Sub, SubAssign};

/// An instant: nanoseconds on the clock that produced it. `Time::ZERO` also stands
/// for "not recorded" where a field says so.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(u64);

/// A length of time in nanoseconds (never negative).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span(u64);

impl Time {
    /// The clock's zero (also "not recorded").
    pub const ZERO: Time = Time(0);
    /// The latest representable instant ("never").
    pub const MAX: Time = Time(u64::MAX);

    /// The instant `ns` nanoseconds after the clock's zero.
    pub const fn from_ns(ns: u64) -> Time {
        Time(ns)
    }

    /// Nanoseconds since the clock's zero.
    pub const fn as_ns(self) -> u64 {
        self.0
    }

    /// True for `Time::ZERO` (a timestamp that was not recorded).
    pub const fn is_zero(self) -> bool {
        self.0 == 0
    }

    /// The span from `earlier` to `self`; zero when `earlier` is later.
    pub const fn saturating_since(self, earlier: Time) -> Span {
        Span(self.0.saturating_sub(earlier.0))
    }

    /// The span from `earlier` to `self`, None when `earlier` is later.
    pub const fn checked_since(self, earlier: Time) -> Option<Span> {
        match self.0.checked_sub(earlier.0) {
            Some(d) => Some(Span(d)),
            None => None,
        }
    }

    /// `self - earlier` in ns, negative when `earlier` is later (for latency
    /// components, where a negative value shows a clock problem instead of hiding it).
    pub const fn signed_ns_since(self, earlier: Time) -> i64 {
        self.0 as i64 - earlier.0 as i64
    }

    /// `self + d`, `Time::MAX` on overflow.
    pub const fn saturating_add(self, d: Span) -> Time {
        Time(self.0.saturating_add(d.0))
    }

    /// `self - d`, `Time::ZERO` on underflow.
    pub const fn saturating_sub(self, d: Span) -> Time {
        Time(self.0.saturating_sub(d.0))
    }

    /// `self + d`, None on overflow.
    pub const fn checked_add(self, d: Span) -> Option<Time> {
        match self.0.checked_add(d.0) {
            Some(t) => Some(Time(t)),
            None => None,
        }
    }
}

impl Span {
    /// No time.
    pub const ZERO: Span = Span(0);
    /// The longest representable span.
    pub const MAX: Span = Span(u64::MAX);

    /// A span of `ns` nanoseconds.
    pub const fn from_ns(ns: u64) -> Span {
        Span(ns)
    }

    /// A span of `us` microseconds (saturating).
    pub const fn from_us(us: u64) -> Span {
        Span(us.saturating_mul(1_000))
    }

    /// A span of `ms` milliseconds (saturating).
    pub const fn from_ms(ms: u64) -> Span {
        Span(ms.saturating_mul(1_000_000))
    }

    /// A span of `s` seconds (saturating).
    pub const fn from_secs(s: u64) -> Span {
        Span(s.saturating_mul(1_000_000_000))
    }

    /// Nanoseconds.
    pub const fn as_ns(self) -> u64 {
        self.0
    }

    /// Microseconds, with fractions.
    pub fn as_us_f64(self) -> f64 {
        self.0 as f64 / 1e3
    }

    /// Seconds, with fractions.
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }

    /// True for a zero span.
    pub const fn is_zero(self) -> bool {
        self.0 == 0
    }

    /// `self + d`, `Span::MAX` on overflow.
    pub const fn saturating_add(self, d: Span) -> Span {
        Span(self.0.saturating_add(d.0))
    }

    /// `self - d`, zero on underflow.
    pub const fn saturating_sub(self, d: Span) -> Span {
        Span(self.0.saturating_sub(d.0))
    }

    /// `self * n`, `Span::MAX` on overflow.
    pub const fn saturating_mul(self, n: u64) -> Span {
        Span(self.0.saturating_mul(n))
    }
}

impl From<std::time::Duration> for Span {
    /// Saturates at `Span::MAX` (about 584 years).
    fn from(d: std::time::Duration) -> Span {
        Span(u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
    }
}

impl From<Span> for std::time::Duration {
    fn from(s: Span) -> std::time::Duration {
        std::time::Duration::from_nanos(s.0)
    }
}

impl Add<Span> for Time {
    type Output = Time;
    fn add(self, d: Span) -> Time {
        Time(self.0 + d.0)
    }
}

impl AddAssign<Span> for Time {
    fn add_assign(&mut self, d: Span) {
        self.0 += d.0;
    }
}

impl Sub<Span> for Time {
    type Output = Time;
    fn sub(self, d: Span) -> Time {
        Time(self.0 - d.0)
    }
}

impl SubAssign<Span> for Time {
    fn sub_assign(&mut self, d: Span) {
        self.0 -= d.0;
    }
}

impl Sub<Time> for Time {
    type Output = Span;
    /// The span from `earlier` to `self` (panics in debug builds if `earlier` is later;
    /// see [`Time::saturating_since`]).
    fn sub(self, earlier: Time) -> Span {
        Span(self.0 - earlier.0)
    }
}

impl Add for Span {
    type Output = Span;
    fn add(self, d: Span) -> Span {
        Span(self.0 + d.0)
    }
}

impl AddAssign for Span {
    fn add_assign(&mut self, d: Span) {
        self.0 += d.0;
    }
}

impl Sub for Span {
    type Output = Span;
    fn sub(self, d: Span) -> Span {
        Span(self.0 - d.0)
    }
}

impl SubAssign for Span {
    fn sub_assign(&mut self, d: Span) {
        self.0 -= d.0;
    }
}

impl core::iter::Sum for Span {
    fn sum<I: Iterator<Item = Span>>(it: I) -> Span {
        it.fold(Span::ZERO, |a, b| a + b)
    }
}

/// `ns` as microseconds with three decimals (exact: integer arithmetic).
fn write_us(f: &mut fmt::Formatter<'_>, ns: u64) -> fmt::Result {
    write!(f, "{}.{:03} µs", ns / 1_000, ns % 1_000)
}

impl fmt::Display for Span {
    /// Microseconds with three decimals: `44.000 µs`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_us(f, self.0)
    }
}

impl fmt::Display for Time {
    /// Microseconds since the clock's zero, with three decimals: `1024.500 µs`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_us(f, self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn arithmetic() {
        let t = Time::from_ns(1_000);
        let d = Span::from_us(2);
        assert_eq!((t + d).as_ns(), 3_000);
        assert_eq!(t + d - t, d);
        assert_eq!((t + d) - d, t);
        let mut u = t;
        u += d;
        u -= Span::from_ns(500);
        assert_eq!(u.as_ns(), 2_500);
        assert_eq!(
            Span::from_ms(1) + Span::from_us(1) - Span::from_ns(1),
            Span::from_ns(1_000_999)
        );
        assert_eq!(
            [Span::from_ns(1), Span::from_ns(2)].into_iter().sum::<Span>(),
            Span::from_ns(3)
        );
    }

    #[test]
    fn saturating_and_checked() {
        assert_eq!(Time::MAX.saturating_add(Span::from_ns(1)), Time::MAX);
        assert_eq!(Time::ZERO.saturating_sub(Span::from_ns(1)), Time::ZERO);
        assert_eq!(Time::from_ns(5).saturating_since(Time::from_ns(7)), Span::ZERO);
        assert_eq!(Time::from_ns(5).checked_since(Time::from_ns(7)), None);
        assert_eq!(Time::from_ns(7).checked_since(Time::from_ns(5)), Some(Span::from_ns(2)));
        assert_eq!(Time::from_ns(5).signed_ns_since(Time::from_ns(7)), -2);
        assert_eq!(Time::MAX.checked_add(Span::from_ns(1)), None);
        assert_eq!(Span::MAX.saturating_add(Span::from_ns(1)), Span::MAX);
        assert_eq!(Span::from_ns(1).saturating_sub(Span::from_ns(2)), Span::ZERO);
        assert_eq!(Span::from_secs(u64::MAX), Span::MAX);
        assert_eq!(Span::from_ns(3).saturating_mul(u64::MAX), Span::MAX);
    }

    #[test]
    fn std_duration_round_trip() {
        let d = Duration::from_micros(1_234);
        assert_eq!(Span::from(d), Span::from_ns(1_234_000));
        assert_eq!(Duration::from(Span::from(d)), d);
        assert_eq!(Span::from(Duration::MAX), Span::MAX);
        assert_eq!(Span::from_ms(1).as_secs_f64(), 1e-3);
        assert_eq!(Span::from_ns(1_500).as_us_f64(), 1.5);
    }

    #[test]
    fn display_in_microseconds() {
        assert_eq!(Span::from_ns(44_000).to_string(), "44.000 µs");
        assert_eq!(Span::from_ns(7).to_string(), "0.007 µs");
        assert_eq!(Time::from_ns(1_024_500).to_string(), "1024.500 µs");
        assert!(Time::ZERO.is_zero() && Span::ZERO.is_zero() && !Time::from_ns(1).is_zero());
    }
}
