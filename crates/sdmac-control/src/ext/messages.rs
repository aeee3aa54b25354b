//! The extension's messages as values: requests, replies, truth records, and what
//! can be wrong with their bytes.

use super::{types, ExtResult, TruthCause, TruthOutcome};
use crate::mininet::Mac;
use std::fmt;

/// EDCA parameters of one queue, as they travel.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Edca {
    /// AIFSN (1 to 15).
    pub aifsn: u8,
    /// CWmin (2^k − 1, k in 0..=15).
    pub cw_min: u16,
    /// CWmax (2^k − 1, CWmin ≤ CWmax).
    pub cw_max: u16,
    /// TXOP limit (µs; at most 8160; 0: one exchange per access).
    pub txop_limit_us: u16,
}

/// A request of the extension.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExtRequest {
    /// Send this connection a truth record for every frame the daemon answers whose
    /// transmitter is one of `transmitters` (any of its addresses); all if empty.
    /// Replaces an earlier subscription of the connection.
    Subscribe {
        /// Echoed in the reply.
        tag: u32,
        /// Transmitters (at most [`MAX_SUBSCRIBE`](super::MAX_SUBSCRIBE)).
        transmitters: Vec<Mac>,
    },
    /// No more truth records.
    Unsubscribe {
        /// Echoed in the reply.
        tag: u32,
    },
    /// Set a station's EDCA parameters of one AC.
    SetEdca {
        /// Echoed in the reply.
        tag: u32,
        /// The station.
        station: Mac,
        /// The AC (0 BK, 1 BE, 2 VI, 3 VO).
        ac: u8,
        /// The parameters.
        params: Edca,
    },
    /// Get a station's EDCA parameters of one AC.
    GetEdca {
        /// Echoed in the reply.
        tag: u32,
        /// The station.
        station: Mac,
        /// The AC.
        ac: u8,
    },
    /// Set a station's ACK timeout.
    SetAckTimeout {
        /// Echoed in the reply.
        tag: u32,
        /// The station.
        station: Mac,
        /// ns (0: the PHY's).
        ns: u32,
    },
    /// Get a station's ACK timeout.
    GetAckTimeout {
        /// Echoed in the reply.
        tag: u32,
        /// The station.
        station: Mac,
    },
    /// Get the link `from` → `to`.
    GetLink {
        /// Echoed in the reply.
        tag: u32,
        /// Sender.
        from: Mac,
        /// Receiver.
        to: Mac,
    },
}

impl ExtRequest {
    /// The request's tag.
    pub fn tag(&self) -> u32 {
        match self {
            ExtRequest::Subscribe { tag, .. }
            | ExtRequest::Unsubscribe { tag }
            | ExtRequest::SetEdca { tag, .. }
            | ExtRequest::GetEdca { tag, .. }
            | ExtRequest::SetAckTimeout { tag, .. }
            | ExtRequest::GetAckTimeout { tag, .. }
            | ExtRequest::GetLink { tag, .. } => *tag,
        }
    }

    /// The request's type byte.
    pub fn type_byte(&self) -> u8 {
        match self {
            ExtRequest::Subscribe { .. } => types::SUBSCRIBE,
            ExtRequest::Unsubscribe { .. } => types::UNSUBSCRIBE,
            ExtRequest::SetEdca { .. } => types::SET_EDCA,
            ExtRequest::GetEdca { .. } => types::GET_EDCA,
            ExtRequest::SetAckTimeout { .. } => types::SET_ACK_TIMEOUT,
            ExtRequest::GetAckTimeout { .. } => types::GET_ACK_TIMEOUT,
            ExtRequest::GetLink { .. } => types::GET_LINK,
        }
    }
}

/// What a reply carries besides its tag and result.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum ReplyBody {
    /// Nothing (the reply to a set, a subscribe or an unsubscribe).
    None,
    /// EDCA parameters of an AC.
    Edca {
        /// The AC.
        ac: u8,
        /// The parameters (all 0 when the result is not ok).
        params: Edca,
    },
    /// An ACK timeout (ns; 0 when the result is not ok).
    AckTimeout(u32),
    /// A link (NaN when the result is not ok).
    Link {
        /// SNR (dB).
        snr_db: f64,
        /// Error probability.
        error_prob: f64,
    },
    /// The type of a request refused whole.
    Refused(u8),
}

/// A reply of the extension.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct ExtReply {
    /// Its type byte (the request's + 1, or [`types::REFUSED`]).
    pub kind: u8,
    /// The request's tag (0 for a request refused before its tag could be read).
    pub tag: u32,
    /// The result.
    pub result: ExtResult,
    /// What it carries.
    pub body: ReplyBody,
}

impl ExtReply {
    /// The reply to `req` with `result` and, for a get, an empty value of the shape
    /// its reply carries (EDCA all 0, ACK timeout 0, link NaN).
    pub fn done(req: &ExtRequest, result: ExtResult) -> ExtReply {
        let body = match req {
            ExtRequest::GetEdca { ac, .. } => ReplyBody::Edca { ac: *ac, params: Edca::default() },
            ExtRequest::GetAckTimeout { .. } => ReplyBody::AckTimeout(0),
            ExtRequest::GetLink { .. } => {
                ReplyBody::Link { snr_db: f64::NAN, error_prob: f64::NAN }
            }
            _ => ReplyBody::None,
        };
        ExtReply { kind: req.type_byte() + 1, tag: req.tag(), result, body }
    }
}

/// One entry of a frame's rate series as its status told the kernel.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Attempts {
    /// The kernel's rate index of the entry.
    pub rate_idx: i8,
    /// Attempts made at it.
    pub count: u8,
    /// Its rate (kb/s; 0 when the channel does not carry it).
    pub kbps: u32,
}

/// The truth about one frame the daemon answered (one per TX status it sent).
///
/// Body layout (86 bytes): lost (u32), transmitter (hwsim address), TA (addr2; zero
/// if none), RA (addr1), sequence control (u16), cookie (u64), AC (u8), flags (u8:
/// bit 0 no-ack, bit 1 delivered), outcome (u8), cause (u8), number of rate entries
/// (u8, ≤ 4), 4 × (rate index i8, attempts u8, kb/s u32), the time the frame came from
/// the kernel, its first attempt's start on air and its end (u64 each, ns on
/// CLOCK_MONOTONIC), the signal reported to the kernel (i8, dBm).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct TruthRecord {
    /// Records this connection lost (its buffer was full) since the previous one
    /// it got.
    pub lost: u32,
    /// The transmitting radio (hwsim address).
    pub transmitter: Mac,
    /// The frame's transmitter address (addr2; zero if it has none).
    pub ta: Mac,
    /// The frame's receiver address (addr1; zero if unreadable).
    pub ra: Mac,
    /// Sequence control (0 if the frame has none).
    pub seq_ctrl: u16,
    /// The kernel's cookie.
    pub cookie: u64,
    /// Access category (0 BK, 1 BE, 2 VI, 3 VO).
    pub ac: u8,
    /// Sent without acknowledgement (asked for, or group addressed).
    pub no_ack: bool,
    /// The destination received the DATA frame in some attempt.
    pub delivered: bool,
    /// How it ended.
    pub outcome: TruthOutcome,
    /// Why its last attempt failed.
    pub cause: TruthCause,
    /// Valid entries of `attempts`.
    pub n_entries: u8,
    /// Attempts per rate entry, as the status told the kernel.
    pub attempts: [Attempts; 4],
    /// When the frame came from the kernel (ns, CLOCK_MONOTONIC).
    pub t_arrival_ns: u64,
    /// Start on air of its first attempt (== `t_end_ns` when never sent).
    pub t_first_start_ns: u64,
    /// When its outcome was known on the medium (ACK end, ACK timeout, DATA end).
    pub t_end_ns: u64,
    /// The signal its status reported (dBm).
    pub signal_dbm: i8,
}

impl TruthRecord {
    /// Attempts made, over all entries.
    pub fn total_attempts(&self) -> u32 {
        self.attempts[..self.n_entries.min(4) as usize].iter().map(|a| a.count as u32).sum()
    }
}

/// A message of the extension that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExtError {
    /// The body's length is not the type's.
    BadLength {
        /// The type.
        kind: u8,
        /// Its body's length.
        len: usize,
    },
    /// No extension message has this type.
    UnknownType(u8),
    /// A field has a value no message has (named).
    BadField {
        /// The type.
        kind: u8,
        /// The field.
        field: &'static str,
        /// Its value.
        value: u32,
    },
}

impl ExtError {
    /// The result a reply to such a request carries.
    pub fn result(&self) -> ExtResult {
        match self {
            ExtError::BadLength { .. } => ExtResult::BadLength,
            ExtError::UnknownType(_) => ExtResult::UnknownType,
            ExtError::BadField { .. } => ExtResult::OutOfRange,
        }
    }
}

impl fmt::Display for ExtError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExtError::BadLength { kind, len } => write!(f, "control socket: extension message type {kind:#04x} with a body of {len} bytes (not its length)"),
            ExtError::UnknownType(t) => write!(f, "control socket: unknown extension message type {t:#04x}"),
            ExtError::BadField { kind, field, value } => write!(f, "control socket: extension message type {kind:#04x}: {field} {value} is no valid value"),
        }
    }
}

impl std::error::Error for ExtError {}
