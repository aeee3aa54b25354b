//! # sdmac-netlink
//!
//! sdmac's netlink wire layer: encoding and decoding of the generic netlink messages
//! that Linux `mac80211_hwsim` radios exchange with their medium daemon
//! (`sdmac-mediumd`), and of the `nl80211` messages that configure a wireless device
//! (the `linux` backend). Pure functions over byte buffers; no socket is opened here.
//!
//! - [`nl`]: netlink framing — the `nlmsghdr` header, iteration over the messages of a
//!   datagram, `NLMSG_ERROR` (with extended ACK) and `NLMSG_DONE`.
//! - [`attr`]: netlink attributes — a zero-copy iterator with typed getters and a
//!   writer that pads to 4 bytes.
//! - [`genl`]: the generic netlink header and the controller (`nlctrl`):
//!   `CTRL_CMD_GETFAMILY` requests and their replies (family id, multicast groups).
//! - [`hwsim`]: the `MAC80211_HWSIM` family: commands, attributes, flags,
//!   `TX_INFO` / `TX_INFO_FLAGS` layouts and [`HwsimMsg`], one parsed representation
//!   per command.
//! - [`nl80211`]: the `nl80211` family (wiphys, interfaces, monitor interfaces,
//!   channel, TX power, coverage class, TX bitrate masks), for the `linux` backend.
//! - [`rate`]: what hwsim's rate indices mean: legacy index per band, HT MCS and VHT
//!   MCS/NSS, mapped to [`sdmac_phy::Rate`] and back to an `RX_RATE` index.
//!
//! The codecs follow the smoltcp style of `sdmac-frame`: views over `&[u8]` checked
//! once ([`nl::NlPacket::new_checked`], [`attr::Attrs`]) and parsed representations
//! with `parse`, `emit` and `buffer_len`. Decoding borrows frame bytes from the input
//! and allocates nothing unless a message carries attributes it does not know (kept
//! for forward compatibility).
//!
//! Netlink is host-endian: every integer here is read and written in native byte order
//! (except an attribute flagged `NLA_F_NET_BYTEORDER`, which is read big-endian).
//!
//! No input makes this crate panic: every decoding failure is an [`Error`] naming what
//! was being read (a structure or an attribute, with its type number) and the byte
//! offset in the buffer that was passed in. Unknown attributes are skipped (or kept),
//! never fatal.
//!
//! ```
//! use sdmac_netlink::hwsim::{HwsimFlags, HwsimMsg, TxInfoFrame, TxRate};
//! use sdmac_netlink::nl::{self, NlHeader, NlPacket};
//!
//! // The daemon reports that a frame was acknowledged on its first attempt.
//! let family = 0x1d; // resolved at run time with genl::ctrl::GetFamily
//! let status = HwsimMsg::TxInfo(TxInfoFrame {
//!     transmitter: [0x42, 0, 0, 0, 0, 0],
//!     flags: HwsimFlags::REQ_TX_STATUS | HwsimFlags::STAT_ACK,
//!     cookie: 7,
//!     signal: -50,
//!     tx_info: [TxRate::new(0, 1), TxRate::END, TxRate::END, TxRate::END],
//! });
//! let mut buf = [0u8; 128];
//! let hdr = NlHeader::request(family, nl::flags::REQUEST, 1, 0);
//! let n = status.emit(&hdr, &mut buf)?;
//! assert_eq!(n, status.buffer_len());
//!
//! // ... and decodes it back.
//! let packet = NlPacket::new_checked(&buf[..n])?;
//! assert_eq!(packet.header().ty, family);
//! assert_eq!(HwsimMsg::parse(&packet)?, status);
//! # Ok::<(), sdmac_netlink::Error>(())
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod attr;
pub mod genl;
pub mod hwsim;
pub mod nl;
pub mod nl80211;
pub mod rate;

pub use hwsim::HwsimMsg;
pub use rate::{Band, HwsimRate, RateError};

use core::fmt;

/// An error from decoding or encoding a netlink message.
///
/// Every variant names *what* was being read or written and, for decoding errors, the
/// byte offset (from the start of the buffer given to the decoder) where the problem is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Error {
    /// The input ended before a structure did.
    Truncated {
        /// The structure that did not fit (e.g. `"nlmsghdr"`).
        what: &'static str,
        /// Offset of the structure's first byte.
        offset: usize,
        /// Bytes of input needed to hold it (offset + length).
        need: usize,
        /// Bytes of input available.
        have: usize,
    },
    /// A header field has a value the format does not allow.
    Malformed {
        /// The field or structure that is wrong.
        what: &'static str,
        /// Offset of its first byte.
        offset: usize,
        /// Why the value is not allowed.
        reason: &'static str,
    },
    /// An attribute is malformed: its header, or a payload of the wrong size or content
    /// for its type.
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
    /// A message lacks an attribute it must carry.
    MissingAttribute {
        /// The message (e.g. `"HWSIM_CMD_FRAME"`).
        msg: &'static str,
        /// The missing attribute's type.
        attr: u16,
        /// The missing attribute's name.
        name: &'static str,
    },
    /// An output buffer is too small.
    BufferTooSmall {
        /// What was being written.
        what: &'static str,
        /// Bytes needed.
        need: usize,
        /// Bytes available.
        have: usize,
    },
    /// A value given to `emit` cannot be put on the wire.
    InvalidInput {
        /// The value.
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

/// Result type of this crate.
pub type Result<T> = core::result::Result<T, Error>;

/// A message received on the medium daemon's generic netlink socket, classified.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Incoming<'a> {
    /// A message of the hwsim family.
    Hwsim(nl::NlHeader, HwsimMsg<'a>),
    /// An `NLMSG_ERROR`: an error, or an acknowledgement (`error == 0`).
    Error(nl::NlHeader, nl::ErrorMsg<'a>),
    /// An `NLMSG_DONE` with its status.
    Done(nl::NlHeader, i32),
    /// Any other message (`NLMSG_NOOP`, `NLMSG_OVERRUN`, another family such as the
    /// controller's replies: parse those with [`genl::ctrl::FamilyInfo::parse`]).
    Other(nl::NlPacket<'a>),
}

/// Classifies and decodes one netlink message; `hwsim_family` is the family id
/// resolved through the controller.
pub fn decode<'a>(packet: &nl::NlPacket<'a>, hwsim_family: u16) -> Result<Incoming<'a>> {
    let h = packet.header();
    Ok(match h.ty {
        nl::NLMSG_ERROR => Incoming::Error(h, nl::ErrorMsg::parse(packet)?),
        nl::NLMSG_DONE => Incoming::Done(h, nl::parse_done(packet)?),
        t if t == hwsim_family && t >= nl::NLMSG_MIN_TYPE => {
            Incoming::Hwsim(h, HwsimMsg::parse(packet)?)
        }
        _ => Incoming::Other(*packet),
    })
}

/// Rounds `len` up to a multiple of 4 (`NLMSG_ALIGN` / `NLA_ALIGN`), saturating.
#[inline]
pub const fn align4(len: usize) -> usize {
    match len.checked_add(3) {
        Some(l) => l & !3,
        None => usize::MAX & !3,
    }
}

/// Returns `Err(Truncated)` unless `buf` holds `len` bytes at `at`; `offset` is `at`
/// translated to the caller's buffer.
#[inline]
pub(crate) fn need(
    what: &'static str,
    buf: &[u8],
    at: usize,
    len: usize,
    base: usize,
) -> Result<()> {
    let end = at.saturating_add(len);
    if buf.len() < end {
        Err(Error::Truncated {
            what,
            offset: base.saturating_add(at),
            need: base.saturating_add(end),
            have: base.saturating_add(buf.len()),
        })
    } else {
        Ok(())
    }
}

#[inline]
pub(crate) fn room(what: &'static str, need: usize, have: usize) -> Result<()> {
    if have < need {
        Err(Error::BufferTooSmall { what, need, have })
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_what_and_where() {
        let e = Error::Attribute {
            attr: 7,
            name: "HWSIM_ATTR_TX_INFO",
            offset: 36,
            len: 6,
            reason: "expected 8 bytes",
        };
        assert_eq!(
            e.to_string(),
            "HWSIM_ATTR_TX_INFO (attribute type 7) at offset 36: expected 8 bytes (length 6)"
        );
        let e =
            Error::MissingAttribute { msg: "HWSIM_CMD_FRAME", attr: 8, name: "HWSIM_ATTR_COOKIE" };
        assert_eq!(e.to_string(), "HWSIM_CMD_FRAME lacks HWSIM_ATTR_COOKIE (attribute type 8)");
        let e = Error::Truncated { what: "nlmsghdr", offset: 0, need: 16, have: 3 };
        assert_eq!(e.to_string(), "nlmsghdr truncated at offset 0: need 16 bytes, have 3");
    }

    #[test]
    fn align_rounds_up_and_saturates() {
        assert_eq!((align4(0), align4(1), align4(4), align4(6), align4(10)), (0, 4, 4, 8, 12));
        assert_eq!(align4(usize::MAX) % 4, 0);
    }
}
