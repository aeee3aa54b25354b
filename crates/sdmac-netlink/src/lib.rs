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

/// An error from decoding or encoding a netlink message, and the result type of this
/// crate: the one error type of sdmac's wire codecs, shared with `sdmac-frame`. Its
/// netlink variants are [`Error::Attribute`] and [`Error::MissingAttribute`].
pub use sdmac_types::wire::{Error, Result};

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
