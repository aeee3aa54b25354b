//! The `nl80211` generic netlink family: the requests a program sends to configure a
//! Linux wireless device (cfg80211 / mac80211) and the kernel's replies.
//!
//! Numbers are those of `linux/nl80211.h` ([`consts`]). What is covered is what a
//! backend needs to drive a radio through a monitor interface:
//!
//! | command | request | reply |
//! |---|---|---|
//! | `GET_WIPHY` (1), dump with `SPLIT_WIPHY_DUMP` | [`GetWiphy`] | `NEW_WIPHY` (3) → [`WiphyInfo`], merged over the split messages with [`WiphyInfo::merge`] |
//! | `GET_INTERFACE` (5), by ifindex or dump | [`GetInterface`] | `NEW_INTERFACE` (7) → [`InterfaceInfo`] |
//! | `NEW_INTERFACE` (7) | [`NewInterface`] (monitor flags nested) | [`InterfaceInfo`] of the new interface |
//! | `DEL_INTERFACE` (8) | [`DelInterface`] | ACK |
//! | `SET_WIPHY` (2) | [`SetWiphy`]: channel + width, TX power, coverage class, retry limits | ACK |
//! | `SET_INTERFACE` (6) | [`SetInterface`]: type, monitor flags | ACK |
//! | `SET_TX_BITRATE_MASK` (57) | [`SetTxBitrateMask`]: legacy, HT, VHT per band | ACK |
//!
//! Same conventions as the rest of the crate: `parse` from a checked [`NlPacket`]
//! (errors name the attribute and its offset; nothing panics), `emit` into a buffer
//! (the caller's [`NlHeader`] gives the family id, flags, seq and pid),
//! `buffer_len`, `to_vec`. Attributes a parser does not know are skipped.
//!
//! ```
//! use sdmac_netlink::nl80211::{iftype, GetWiphy, MntrFlags, NewInterface, Nl80211Message};
//! use sdmac_netlink::nl::{flags, NlHeader, NlPacket};
//!
//! let family = 0x1c; // resolved at run time with genl::ctrl::GetFamily
//! let req = NewInterface {
//!     wiphy: 0,
//!     ifname: "sdmon0",
//!     iftype: iftype::MONITOR,
//!     mntr_flags: Some(MntrFlags::ACTIVE | MntrFlags::OTHER_BSS),
//!     mac: None,
//!     socket_owner: true,
//! };
//! let bytes = req.to_vec(&NlHeader::request(family, flags::REQUEST | flags::ACK, 1, 0))?;
//! assert_eq!(NewInterface::parse(&NlPacket::new_checked(&bytes)?)?, req);
//! let dump = GetWiphy { wiphy: None, ifindex: None, split: true };
//! assert_eq!(dump.buffer_len(), 24);
//! # Ok::<(), sdmac_netlink::Error>(())
//! ```

pub mod consts;
mod iface;
mod set;
mod wiphy;

pub use consts::{
    attr, band, band_attr, bitrate_attr, chan_type, chan_width, cmd, ext_feature, feature,
    freq_attr, iftype, mntr, tx_power, txrate,
};
pub use iface::{DelInterface, GetInterface, InterfaceInfo, MntrFlags, NewInterface, SetInterface};
pub use set::{BandRateMask, ChannelDef, SetTxBitrateMask, SetWiphy, TxPower};
pub use wiphy::{BandInfo, Bitrate, FreqInfo, GetWiphy, IftypeSet, WiphyInfo};

use crate::attr::{attr_space, AttrWriter};
use crate::genl::{emit_message, GenlHeader, GenlMsg, GENL_HDRLEN};
use crate::nl::{NlHeader, NlPacket, NLMSG_HDRLEN};
use crate::{room, Error, Result};

/// Generic netlink family name.
pub const FAMILY_NAME: &str = "nl80211";
/// Family version written in the messages this crate emits.
pub const VERSION: u8 = 0;

/// Where a message's attributes go: a writer, or a byte counter (for `buffer_len`).
#[doc(hidden)]
pub trait Enc {
    fn put(&mut self, ty: u16, payload: &[u8]) -> Result<()>;
    fn put_str_nul(&mut self, ty: u16, s: &str) -> Result<()>;
    fn begin(&mut self, ty: u16) -> Result<usize>;
    fn end(&mut self, token: usize) -> Result<()>;
}

impl Enc for AttrWriter<'_> {
    fn put(&mut self, ty: u16, payload: &[u8]) -> Result<()> {
        AttrWriter::put(self, ty, payload)
    }
    fn put_str_nul(&mut self, ty: u16, s: &str) -> Result<()> {
        if s.contains('\0') {
            return Err(Error::InvalidInput {
                what: "nl80211 string attribute",
                reason: "contains a NUL byte",
            });
        }
        AttrWriter::put_str_nul(self, ty, s)
    }
    fn begin(&mut self, ty: u16) -> Result<usize> {
        self.begin_nested(ty)
    }
    fn end(&mut self, token: usize) -> Result<()> {
        self.end_nested(token)
    }
}

/// Counts the bytes a message's attributes take.
struct Count(usize);

impl Enc for Count {
    fn put(&mut self, _ty: u16, payload: &[u8]) -> Result<()> {
        self.0 = self.0.saturating_add(attr_space(payload.len()));
        Ok(())
    }
    fn put_str_nul(&mut self, _ty: u16, s: &str) -> Result<()> {
        self.0 = self.0.saturating_add(attr_space(s.len() + 1));
        Ok(())
    }
    fn begin(&mut self, _ty: u16) -> Result<usize> {
        self.0 = self.0.saturating_add(4);
        Ok(0)
    }
    fn end(&mut self, _token: usize) -> Result<()> {
        Ok(())
    }
}

pub(crate) fn put_u8(w: &mut dyn Enc, ty: u16, v: u8) -> Result<()> {
    w.put(ty, &[v])
}
pub(crate) fn put_u16(w: &mut dyn Enc, ty: u16, v: u16) -> Result<()> {
    w.put(ty, &v.to_ne_bytes())
}
pub(crate) fn put_u32(w: &mut dyn Enc, ty: u16, v: u32) -> Result<()> {
    w.put(ty, &v.to_ne_bytes())
}
pub(crate) fn put_u64(w: &mut dyn Enc, ty: u16, v: u64) -> Result<()> {
    w.put(ty, &v.to_ne_bytes())
}
pub(crate) fn put_flag(w: &mut dyn Enc, ty: u16) -> Result<()> {
    w.put(ty, &[])
}

/// A message of the nl80211 family that this crate can write.
pub trait Nl80211Message {
    /// The command of the message.
    fn cmd(&self) -> u8;

    #[doc(hidden)]
    fn write_attrs(&self, w: &mut dyn Enc) -> Result<()>;

    /// Bytes [`Nl80211Message::emit`] writes (0 when the message cannot be emitted:
    /// `emit` then says why).
    fn buffer_len(&self) -> usize {
        let mut c = Count(0);
        match self.write_attrs(&mut c) {
            Ok(()) => NLMSG_HDRLEN + GENL_HDRLEN + c.0,
            Err(_) => 0,
        }
    }

    /// Writes the whole message: `hdr` gives the family id (its `ty`), flags, seq and
    /// pid; the genl header carries the command and version [`VERSION`].
    fn emit(&self, hdr: &NlHeader, buf: &mut [u8]) -> Result<usize> {
        let mut c = Count(0);
        self.write_attrs(&mut c)?;
        let len = NLMSG_HDRLEN + GENL_HDRLEN + c.0;
        room(consts::cmd_name(self.cmd()), len, buf.len())?;
        let genl = GenlHeader { cmd: self.cmd(), version: VERSION };
        emit_message(hdr, genl, &mut buf[..len], |w| self.write_attrs(w))
    }

    /// [`Nl80211Message::emit`] into a new vector.
    fn to_vec(&self, hdr: &NlHeader) -> Result<Vec<u8>> {
        let mut v = vec![0u8; self.buffer_len().max(NLMSG_HDRLEN + GENL_HDRLEN)];
        let n = self.emit(hdr, &mut v)?;
        v.truncate(n);
        Ok(v)
    }
}

/// The genl part of `packet`, checked to carry one of `cmds`.
pub(crate) fn genl_of<'a>(
    packet: &NlPacket<'a>,
    cmds: &[u8],
    what: &'static str,
) -> Result<GenlMsg<'a>> {
    let m = GenlMsg::parse(packet)?;
    if !cmds.contains(&m.genl.cmd) {
        return Err(Error::Malformed {
            what,
            offset: m.attrs_offset - GENL_HDRLEN,
            reason: "not the expected nl80211 command",
        });
    }
    Ok(m)
}

pub(crate) fn missing(msg: &'static str, attr: u16) -> Error {
    Error::MissingAttribute { msg, attr, name: consts::attr_name(attr) }
}
