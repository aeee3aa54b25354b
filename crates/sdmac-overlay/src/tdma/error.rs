//! What can go wrong in TDMA, as one error type.

use crate::retransmit::CONFIRMATION_LIMIT;
use sdmac_api::{ApiError, Rate, Span};
use std::fmt;

/// What went wrong in TDMA.
#[derive(Clone, Debug, PartialEq)]
pub enum TdmaError {
    /// The plan has no slot.
    NoSlots,
    /// The slots and the contention period take longer than the round.
    SlotsDoNotFit {
        /// Slots.
        slots: u32,
        /// Length of each.
        slot: Span,
        /// The contention period.
        contention: Span,
        /// The round.
        round: Span,
    },
    /// The guards at both ends of a slot leave no time in it.
    GuardLargerThanSlot {
        /// The guard.
        guard: Span,
        /// The slot.
        slot: Span,
    },
    /// One exchange of the frame, with both guards, does not fit in a slot.
    FrameDoesNotFit {
        /// MPDU length (bytes, FCS included).
        len: u32,
        /// Its rate.
        rate: Rate,
        /// The time one exchange needs.
        exchange: Span,
        /// The time a slot leaves between its guards.
        usable: Span,
    },
    /// The contention period cannot hold a request and its grant.
    ContentionTooShort {
        /// The contention period.
        contention: Span,
        /// What a request and a grant need.
        needed: Span,
    },
    /// The rate is not one of the PHY's.
    BadRate(Rate),
    /// A measurement had nothing to work with.
    Measurement(String),
    /// No grant came within the rounds allowed.
    NoGrant {
        /// Rounds tried.
        rounds: u32,
    },
    /// The backend gave no confirmation for a request within [`CONFIRMATION_LIMIT`].
    NoConfirmation {
        /// The request.
        id: u64,
    },
    /// A station's schedule or run cannot work (what is wrong, in words).
    Schedule(String),
    /// A primitive failed.
    Api(ApiError),
}

impl fmt::Display for TdmaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TdmaError::NoSlots => write!(f, "TDMA plan: zero slots"),
            TdmaError::SlotsDoNotFit { slots, slot, contention, round } => write!(
                f,
                "TDMA plan: {slots} slots of {slot} and a contention period of {contention} do not fit a round of {round}"
            ),
            TdmaError::GuardLargerThanSlot { guard, slot } => write!(
                f,
                "TDMA plan: a guard of {guard} at each end of a slot of {slot} leaves no time to send"
            ),
            TdmaError::FrameDoesNotFit { len, rate, exchange, usable } => write!(
                f,
                "TDMA plan: a {len} B frame at {rate} needs {exchange} per exchange but a slot leaves {usable} between its guards"
            ),
            TdmaError::ContentionTooShort { contention, needed } => write!(
                f,
                "TDMA plan: a contention period of {contention} cannot hold a request and its grant ({needed})"
            ),
            TdmaError::BadRate(r) => write!(f, "TDMA plan: rate {r} is not a rate of this PHY"),
            TdmaError::Measurement(m) => write!(f, "TDMA measurement: {m}"),
            TdmaError::NoGrant { rounds } => {
                write!(f, "TDMA: no slot granted in {rounds} contention periods")
            }
            TdmaError::NoConfirmation { id } => {
                write!(f, "TDMA: no confirmation for request {id} within {CONFIRMATION_LIMIT}")
            }
            TdmaError::Schedule(m) => write!(f, "TDMA schedule: {m}"),
            TdmaError::Api(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for TdmaError {}

impl From<ApiError> for TdmaError {
    fn from(e: ApiError) -> Self {
        TdmaError::Api(e)
    }
}
