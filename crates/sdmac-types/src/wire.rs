//! The error of the wire-format codecs: the frame codecs (`sdmac-frame`: 802.11,
//! radiotap, pcapng) and the netlink codecs (`sdmac-netlink`: netlink, generic
//! netlink, MAC80211_HWSIM, nl80211) report their failures with this one type, which
//! each re-exports as its own `Error`.

use core::fmt;

use crate::mac::ParseMacError;

/// An error from parsing or emitting a wire format.
///
/// Every variant names *what* was being read or written (a static description such
/// as `"802.11 header addr3"` or `"nlmsghdr"`) and, for parse errors, the byte offset
/// (from the start of the buffer given to the decoder) where the problem is. Some
/// variants belong to one family of formats: [`Error::UnknownField`] to radiotap,
/// [`Error::Attribute`] and [`Error::MissingAttribute`] to netlink.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Error {
    /// The input ended before a field or structure did.
    Truncated {
        /// The field or structure that did not fit (e.g. `"nlmsghdr"`).
        what: &'static str,
        /// Offset of the field's first byte in the input.
        offset: usize,
        /// Number of bytes of input needed to hold the field (offset + field length).
        need: usize,
        /// Number of bytes of input available.
        have: usize,
    },
    /// A field has a value that the format does not allow.
    Malformed {
        /// The field or structure that is wrong.
        what: &'static str,
        /// Offset of the field's first byte in the input.
        offset: usize,
        /// Why the value is not allowed.
        reason: &'static str,
    },
    /// A radiotap field whose size and alignment are not known was present, so the
    /// fields after it cannot be located.
    UnknownField {
        /// The structure being read (e.g. `"radiotap field"`).
        what: &'static str,
        /// Offset, in the input, where the unknown field would start (before alignment).
        offset: usize,
        /// The bit number of the unknown field in its namespace (0..=28 in the first
        /// presence word, 32.. in extended words).
        bit: u32,
    },
    /// A netlink attribute is malformed: its header, or a payload of the wrong size or
    /// content for its type.
    Attribute {
        /// The attribute type (flag bits masked off).
        attr: u16,
        /// The attribute's name (e.g. `"HWSIM_ATTR_TX_INFO"`), or `"netlink attribute"`
        /// when the attribute space is not known.
        name: &'static str,
        /// Offset of the attribute header (`nla_len`).
        offset: usize,
        /// Payload length in bytes (`nla_len` - 4), or `nla_len` itself when it is
        /// the header that is wrong.
        len: usize,
        /// What is wrong.
        reason: &'static str,
    },
    /// A netlink message lacks an attribute it must carry.
    MissingAttribute {
        /// The message (e.g. `"HWSIM_CMD_FRAME"`).
        msg: &'static str,
        /// The missing attribute's type.
        attr: u16,
        /// The missing attribute's name.
        name: &'static str,
    },
    /// An output buffer is too small for what is to be written.
    BufferTooSmall {
        /// What was being written.
        what: &'static str,
        /// Bytes needed.
        need: usize,
        /// Bytes available.
        have: usize,
    },
    /// A value given to a builder or `emit` cannot be represented on the wire.
    InvalidInput {
        /// The value that cannot be represented.
        what: &'static str,
        /// Why.
        reason: &'static str,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Error::Truncated { what, offset, need, have } => {
                write!(f, "{what} truncated at offset {offset}: need {need} bytes, have {have}")
            }
            Error::Malformed { what, offset, reason } => {
                write!(f, "{what} malformed at offset {offset}: {reason}")
            }
            Error::UnknownField { what, offset, bit } => write!(
                f,
                "{what}: unknown field bit {bit} at offset {offset}; the fields after it cannot be located"
            ),
            Error::Attribute { attr, name, offset, len, reason } => write!(
                f,
                "{name} (attribute type {attr}) at offset {offset}: {reason} (length {len})"
            ),
            Error::MissingAttribute { msg, attr, name } => {
                write!(f, "{msg} lacks {name} (attribute type {attr})")
            }
            Error::BufferTooSmall { what, need, have } => {
                write!(f, "buffer too small for {what}: need {need} bytes, have {have}")
            }
            Error::InvalidInput { what, reason } => write!(f, "invalid {what}: {reason}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<ParseMacError> for Error {
    fn from(e: ParseMacError) -> Error {
        Error::Malformed { what: "MAC address", offset: e.offset, reason: e.reason }
    }
}

/// Result type of the wire-format codecs.
pub type Result<T> = core::result::Result<T, Error>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_what_and_where() {
        let e = Error::Truncated { what: "802.11 header addr3", offset: 16, need: 22, have: 18 };
        assert_eq!(
            e.to_string(),
            "802.11 header addr3 truncated at offset 16: need 22 bytes, have 18"
        );
        let e = Error::Malformed { what: "pcapng block", offset: 28, reason: "bad length" };
        assert_eq!(e.to_string(), "pcapng block malformed at offset 28: bad length");
        let boxed: Box<dyn std::error::Error> = Box::new(e);
        assert!(boxed.to_string().contains("pcapng"));
        let e =
            Error::MissingAttribute { msg: "HWSIM_CMD_FRAME", attr: 8, name: "HWSIM_ATTR_COOKIE" };
        assert_eq!(e.to_string(), "HWSIM_CMD_FRAME lacks HWSIM_ATTR_COOKIE (attribute type 8)");
    }
}
