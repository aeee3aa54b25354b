//! Why the rate adaptation or a run refused, or stopped.

use sdmac_api::{ApiError, Rate};
use std::fmt;

/// Why the rate adaptation or a run refused, or stopped.
#[derive(Debug, Clone, PartialEq)]
pub enum RateError {
    /// No candidate rate (none given and the standard has none).
    NoRates,
    /// A candidate rate the PHY standard cannot send.
    UnsupportedRate {
        /// The rate.
        rate: Rate,
        /// The standard's name.
        standard: &'static str,
    },
    /// A candidate rate given twice.
    DuplicateRate(Rate),
    /// A sampling share outside 0..1.
    SampleShare(f64),
    /// An EWMA weight outside (0, 1].
    EwmaWeight(f64),
    /// An update interval of zero.
    ZeroInterval,
    /// An entry of the tries with 0 or more than 15 tries.
    Tries {
        /// Which entry (0: best throughput .. 3: lowest).
        entry: usize,
        /// Its tries.
        tries: u8,
    },
    /// A run plan that cannot be carried out.
    Plan(String),
    /// A primitive failed.
    Api {
        /// What it was doing.
        what: &'static str,
        /// The error.
        error: ApiError,
    },
    /// No confirmation came for this long while some were due.
    Stalled {
        /// Requests unconfirmed.
        unconfirmed: usize,
    },
}

impl fmt::Display for RateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RateError::NoRates => write!(f, "rate adaptation: no candidate rate"),
            RateError::UnsupportedRate { rate, standard } => {
                write!(f, "rate adaptation: {rate} is not a rate of {standard}")
            }
            RateError::DuplicateRate(r) => write!(f, "rate adaptation: rate {r} given twice"),
            RateError::SampleShare(s) => {
                write!(f, "rate adaptation: sample share {s} is not within 0..1")
            }
            RateError::EwmaWeight(w) => {
                write!(f, "rate adaptation: EWMA weight {w} is not within (0, 1]")
            }
            RateError::ZeroInterval => write!(f, "rate adaptation: update interval is 0"),
            RateError::Tries { entry, tries } => write!(
                f,
                "rate adaptation: entry {entry} of the series has {tries} tries (must be 1..=15)"
            ),
            RateError::Plan(m) => write!(f, "rate run plan: {m}"),
            RateError::Api { what, error } => write!(f, "rate run: {what}: {error}"),
            RateError::Stalled { unconfirmed } => {
                write!(
                    f,
                    "rate run: no confirmation for 2 s with {unconfirmed} requests unconfirmed"
                )
            }
        }
    }
}

impl std::error::Error for RateError {}
