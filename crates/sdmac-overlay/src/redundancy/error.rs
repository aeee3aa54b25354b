//! Why the overlay refuses or stops, and the channel check behind one refusal.

use super::header::{HEADER_LEN, MAX_APP_PAYLOAD};
use sdmac_api::{ApiError, Backend, Interface, Scope};
use std::fmt;

/// Why a redundant sender, receiver or run refused, or stopped.
#[derive(Debug, Clone, PartialEq)]
pub enum RedundancyError {
    /// Fewer than two interfaces were given.
    TooFewInterfaces {
        /// How many were given.
        given: usize,
    },
    /// Two interfaces are on the same channel: their losses would not be independent.
    SameChannel {
        /// The channel number.
        channel: i64,
        /// Index of the first interface on it.
        first: usize,
        /// Index of the second.
        second: usize,
    },
    /// A destination list whose length is not the number of interfaces.
    Destinations {
        /// Destinations given.
        given: usize,
        /// Interfaces.
        interfaces: usize,
    },
    /// An application payload too long for one frame with the header.
    PayloadTooLong {
        /// Its length (bytes).
        len: usize,
    },
    /// A run plan that cannot be carried out.
    Plan(String),
    /// A primitive failed on one interface.
    Api {
        /// Index of the interface.
        iface: usize,
        /// What it was doing.
        what: &'static str,
        /// The error.
        error: ApiError,
    },
    /// No confirmation or indication came for this long while some were due.
    Stalled {
        /// Copies still unconfirmed.
        unconfirmed: usize,
        /// How long nothing came (ms).
        ms: u64,
    },
}

impl fmt::Display for RedundancyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RedundancyError::TooFewInterfaces { given } => write!(
                f,
                "redundancy needs at least two interfaces on two channels; {given} given"
            ),
            RedundancyError::SameChannel { channel, first, second } => write!(
                f,
                "interfaces {first} and {second} are both on channel {channel}: redundancy needs a different channel on each"
            ),
            RedundancyError::Destinations { given, interfaces } => write!(
                f,
                "{given} destinations given for {interfaces} interfaces (one per interface)"
            ),
            RedundancyError::PayloadTooLong { len } => write!(
                f,
                "payload of {len} bytes is too long: at most {MAX_APP_PAYLOAD} with the {HEADER_LEN}-byte redundancy header"
            ),
            RedundancyError::Plan(m) => write!(f, "redundancy run plan: {m}"),
            RedundancyError::Api { iface, what, error } => {
                write!(f, "interface {iface}: {what}: {error}")
            }
            RedundancyError::Stalled { unconfirmed, ms } => write!(
                f,
                "no confirmation for {ms} ms with {unconfirmed} copies unconfirmed"
            ),
        }
    }
}

impl std::error::Error for RedundancyError {}

pub(super) fn api(iface: usize, what: &'static str) -> impl FnOnce(ApiError) -> RedundancyError {
    move |error| RedundancyError::Api { iface, what, error }
}

/// Reads every interface's channel and refuses fewer than two interfaces or a channel
/// used twice.
pub(super) fn check_channels<B: Backend>(
    ifaces: &mut [Interface<B>],
) -> Result<Vec<i64>, RedundancyError> {
    if ifaces.len() < 2 {
        return Err(RedundancyError::TooFewInterfaces { given: ifaces.len() });
    }
    let mut channels = Vec::with_capacity(ifaces.len());
    for (k, i) in ifaces.iter_mut().enumerate() {
        let ch = i
            .get("channel", Scope::Adapter)
            .and_then(|v| v.to_int("channel"))
            .map_err(api(k, "reading its channel"))?;
        if let Some(first) = channels.iter().position(|&c| c == ch) {
            return Err(RedundancyError::SameChannel { channel: ch, first, second: k });
        }
        channels.push(ch);
    }
    Ok(channels)
}
