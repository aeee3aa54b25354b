//! Errors of the primitives: each names what was wrong.

use sdmac_types::Ac;
use std::fmt;

/// An error returned by a primitive.
#[derive(Clone, Debug, PartialEq)]
pub enum ApiError {
    /// The AC queue holds `limit` packets already; nothing was queued.
    QueueFull {
        /// The queue.
        ac: Ac,
        /// Its capacity.
        limit: usize,
    },
    /// `limit` confirmations are waiting to be read with `data_con`; read them first.
    ConfirmationBacklog {
        /// Capacity of the confirmation channel.
        limit: usize,
    },
    /// The payload or frame is longer than the adapter accepts.
    TooLong {
        /// Bytes given.
        len: usize,
        /// Bytes accepted.
        max: usize,
    },
    /// A raw frame given to `data_req` is not a valid 802.11 frame.
    MalformedFrame {
        /// What is wrong.
        reason: String,
    },
    /// The caller's id is out of range.
    InvalidId {
        /// The id.
        id: u64,
    },
    /// A per-packet attribute is invalid.
    InvalidRequest {
        /// Which attribute.
        what: &'static str,
        /// Why.
        reason: String,
    },
    /// No attribute has this name.
    UnknownAttribute {
        /// The name given.
        name: String,
    },
    /// The attribute exists for another scope (adapter, queue or packet).
    WrongScope {
        /// The attribute.
        name: String,
        /// The scope it belongs to.
        expected: &'static str,
        /// The scope given.
        given: &'static str,
    },
    /// The attribute cannot be set (on this backend).
    ReadOnly {
        /// The attribute.
        name: String,
    },
    /// The value does not fit the attribute.
    InvalidValue {
        /// The attribute.
        name: String,
        /// The value given, as text.
        value: String,
        /// Why it is refused.
        reason: String,
    },
    /// No queued packet has this id (it was sent, confirmed, or never requested).
    NoSuchPacket {
        /// The id.
        id: u64,
    },
    /// The packet has been attempted already (it is on air or between retries); it
    /// can no longer be changed.
    PacketOnAir {
        /// The id.
        id: u64,
    },
    /// The session behind the interface has ended.
    Closed,
    /// The backend does not offer this.
    Unsupported {
        /// What.
        what: String,
    },
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ApiError::QueueFull { ac, limit } => write!(
                f,
                "queue {} is full ({limit} packets); the packet was not queued",
                ac.name()
            ),
            ApiError::ConfirmationBacklog { limit } => {
                write!(f, "{limit} confirmations are unread; call data_con before requesting more")
            }
            ApiError::TooLong { len, max } => write!(f, "{len} bytes is too long (at most {max})"),
            ApiError::MalformedFrame { reason } => write!(f, "malformed 802.11 frame: {reason}"),
            ApiError::InvalidId { id } => {
                write!(f, "id {id} is out of range (0..={})", crate::request::MAX_ID)
            }
            ApiError::InvalidRequest { what, reason } => write!(f, "invalid {what}: {reason}"),
            ApiError::UnknownAttribute { name } => write!(f, "unknown attribute {name:?}"),
            ApiError::WrongScope { name, expected, given } => {
                write!(f, "attribute {name:?} belongs to the {expected}, not to a {given}")
            }
            ApiError::ReadOnly { name } => write!(f, "attribute {name:?} is read-only"),
            ApiError::InvalidValue { name, value, reason } => {
                write!(f, "invalid value {value} for {name:?}: {reason}")
            }
            ApiError::NoSuchPacket { id } => write!(f, "no queued packet has id {id}"),
            ApiError::PacketOnAir { id } => {
                write!(f, "packet {id} has already been attempted (on air or between retries)")
            }
            ApiError::Closed => write!(f, "the session has ended"),
            ApiError::Unsupported { what } => write!(f, "not supported by this backend: {what}"),
        }
    }
}

impl std::error::Error for ApiError {}

impl ApiError {
    /// A stable short name of the kind of error (for bindings).
    pub fn kind(&self) -> &'static str {
        match self {
            ApiError::QueueFull { .. } => "QueueFull",
            ApiError::ConfirmationBacklog { .. } => "ConfirmationBacklog",
            ApiError::TooLong { .. } => "TooLong",
            ApiError::MalformedFrame { .. } => "MalformedFrame",
            ApiError::InvalidId { .. } => "InvalidId",
            ApiError::InvalidRequest { .. } => "InvalidRequest",
            ApiError::UnknownAttribute { .. } => "UnknownAttribute",
            ApiError::WrongScope { .. } => "WrongScope",
            ApiError::ReadOnly { .. } => "ReadOnly",
            ApiError::InvalidValue { .. } => "InvalidValue",
            ApiError::NoSuchPacket { .. } => "NoSuchPacket",
            ApiError::PacketOnAir { .. } => "PacketOnAir",
            ApiError::Closed => "Closed",
            ApiError::Unsupported { .. } => "Unsupported",
        }
    }
}
