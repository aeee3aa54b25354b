//! Netlink framing (`struct nlmsghdr`), `NLMSG_ERROR` and `NLMSG_DONE`.
//!
//! ```text
//!  0          4          6           8          12         16
//! +----------+----------+-----------+----------+----------+----------------------+
//! | len u32  | type u16 | flags u16 | seq u32  | pid u32  | payload, padded to 4 |
//! +----------+----------+-----------+----------+----------+----------------------+
//! ```
//! All fields are in host byte order. `len` counts the header and the payload; a
//! datagram holds one or more messages, each starting at a 4-byte aligned offset.

use crate::attr::{AttrWriter, Attrs};
use crate::{align4, need, room, Error, Result};

/// Length of `struct nlmsghdr`.
pub const NLMSG_HDRLEN: usize = 16;
/// Message type: nothing.
pub const NLMSG_NOOP: u16 = 1;
/// Message type: error or acknowledgement ([`ErrorMsg`]).
pub const NLMSG_ERROR: u16 = 2;
/// Message type: end of a multipart message.
pub const NLMSG_DONE: u16 = 3;
/// Message type: data lost.
pub const NLMSG_OVERRUN: u16 = 4;
/// Types below this are reserved for control messages.
pub const NLMSG_MIN_TYPE: u16 = 0x10;

/// `nlmsg_flags` values.
pub mod flags {
    /// A request.
    pub const REQUEST: u16 = 0x01;
    /// Part of a multipart message ended by `NLMSG_DONE`.
    pub const MULTI: u16 = 0x02;
    /// Ask for an acknowledgement (an `NLMSG_ERROR` with error 0).
    pub const ACK: u16 = 0x04;
    /// Echo this request.
    pub const ECHO: u16 = 0x08;
    /// A dump was inconsistent because of a change in the data.
    pub const DUMP_INTR: u16 = 0x10;
    /// A dump was filtered as requested.
    pub const DUMP_FILTERED: u16 = 0x20;
    /// GET request: return the whole table.
    pub const ROOT: u16 = 0x100;
    /// GET request: return all matching entries.
    pub const MATCH: u16 = 0x200;
    /// GET request: dump (`ROOT | MATCH`).
    pub const DUMP: u16 = ROOT | MATCH;
    /// On an `NLMSG_ERROR`: the request's payload was not copied back.
    pub const CAPPED: u16 = 0x100;
    /// On an `NLMSG_ERROR`: extended ACK attributes follow the request.
    pub const ACK_TLVS: u16 = 0x200;
}

/// Extended ACK attribute types (`NLMSGERR_ATTR_*`) carried by an `NLMSG_ERROR`.
pub mod ext_ack {
    /// Error message string.
    pub const MSG: u16 = 1;
    /// Offset of the bad attribute in the original request (u32).
    pub const OFFS: u16 = 2;
    /// Cookie (binary).
    pub const COOKIE: u16 = 3;
    /// Policy of the bad attribute (nested).
    pub const POLICY: u16 = 4;
    /// Type of a missing attribute (u32).
    pub const MISS_TYPE: u16 = 5;
    /// Offset of the nest where an attribute is missing (u32).
    pub const MISS_NEST: u16 = 6;

    /// Names an extended ACK attribute type.
    pub fn name(ty: u16) -> &'static str {
        match ty {
            MSG => "NLMSGERR_ATTR_MSG",
            OFFS => "NLMSGERR_ATTR_OFFS",
            COOKIE => "NLMSGERR_ATTR_COOKIE",
            POLICY => "NLMSGERR_ATTR_POLICY",
            MISS_TYPE => "NLMSGERR_ATTR_MISS_TYPE",
            MISS_NEST => "NLMSGERR_ATTR_MISS_NEST",
            _ => "NLMSGERR attribute",
        }
    }
}

/// A netlink message header.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct NlHeader {
    /// Length of the message, header included. Ignored by `emit` functions, which
    /// compute it.
    pub len: u32,
    /// Message type: a control type (`NLMSG_*`) or a generic netlink family id.
    pub ty: u16,
    /// Flags ([`flags`]).
    pub flags: u16,
    /// Sequence number.
    pub seq: u32,
    /// Port id of the sender (0 for the kernel).
    pub pid: u32,
}

impl NlHeader {
    /// A header for a message to emit (`len` is filled in by `emit`).
    pub const fn request(ty: u16, flags: u16, seq: u32, pid: u32) -> NlHeader {
        NlHeader { len: 0, ty, flags, seq, pid }
    }

    /// Reads a header from the first 16 bytes of `buf` (`base` is `buf`'s offset in
    /// the caller's buffer, for errors). Does not check `len`.
    pub fn parse(buf: &[u8], base: usize) -> Result<NlHeader> {
        need("nlmsghdr", buf, 0, NLMSG_HDRLEN, base)?;
        let u32_at = |i: usize| u32::from_ne_bytes([buf[i], buf[i + 1], buf[i + 2], buf[i + 3]]);
        let u16_at = |i: usize| u16::from_ne_bytes([buf[i], buf[i + 1]]);
        Ok(NlHeader {
            len: u32_at(0),
            ty: u16_at(4),
            flags: u16_at(6),
            seq: u32_at(8),
            pid: u32_at(12),
        })
    }

    /// Writes the header, with `len` as the length, into the first 16 bytes of `buf`.
    pub fn emit_with_len(&self, len: usize, buf: &mut [u8]) -> Result<()> {
        room("nlmsghdr", NLMSG_HDRLEN, buf.len())?;
        let len = u32::try_from(len).map_err(|_| Error::InvalidInput {
            what: "netlink message",
            reason: "longer than 4 GiB",
        })?;
        buf[0..4].copy_from_slice(&len.to_ne_bytes());
        buf[4..6].copy_from_slice(&self.ty.to_ne_bytes());
        buf[6..8].copy_from_slice(&self.flags.to_ne_bytes());
        buf[8..12].copy_from_slice(&self.seq.to_ne_bytes());
        buf[12..16].copy_from_slice(&self.pid.to_ne_bytes());
        Ok(())
    }
}

/// A checked view of one netlink message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NlPacket<'a> {
    header: NlHeader,
    bytes: &'a [u8],
    offset: usize,
}

impl<'a> NlPacket<'a> {
    /// Checks that `buf` starts with a whole netlink message (header present,
    /// `16 <= nlmsg_len <= buf.len()`); bytes past `nlmsg_len` are ignored.
    pub fn new_checked(buf: &'a [u8]) -> Result<NlPacket<'a>> {
        Self::new_checked_at(buf, 0)
    }

    /// Like [`NlPacket::new_checked`], for a message that starts at `offset` in the
    /// caller's buffer (offsets in errors and in parsed attributes count from there).
    pub fn new_checked_at(buf: &'a [u8], offset: usize) -> Result<NlPacket<'a>> {
        let header = NlHeader::parse(buf, offset)?;
        let len = header.len as usize;
        if len < NLMSG_HDRLEN {
            return Err(Error::Malformed {
                what: "nlmsghdr nlmsg_len",
                offset,
                reason: "shorter than the 16-byte header",
            });
        }
        need("netlink message", buf, 0, len, offset)?;
        Ok(NlPacket { header, bytes: &buf[..len], offset })
    }

    /// The header.
    #[inline]
    pub fn header(&self) -> NlHeader {
        self.header
    }

    /// The whole message (`nlmsg_len` bytes).
    #[inline]
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The payload after the header.
    #[inline]
    pub fn payload(&self) -> &'a [u8] {
        &self.bytes[NLMSG_HDRLEN..]
    }

    /// Offset of the message in the caller's buffer.
    #[inline]
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// Offset of the payload in the caller's buffer.
    #[inline]
    pub fn payload_offset(&self) -> usize {
        self.offset + NLMSG_HDRLEN
    }
}

/// Iterates over the messages of a datagram: see [`messages`].
#[derive(Clone, Debug)]
pub struct Messages<'a> {
    buf: &'a [u8],
    pos: usize,
    done: bool,
}

/// The netlink messages in a received datagram, in order. Yields `Err` once and stops
/// at the first malformed message.
pub fn messages(datagram: &[u8]) -> Messages<'_> {
    Messages { buf: datagram, pos: 0, done: false }
}

impl<'a> Iterator for Messages<'a> {
    type Item = Result<NlPacket<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let rest = self.buf.get(self.pos..).unwrap_or(&[]);
        if rest.is_empty() {
            self.done = true;
            return None;
        }
        match NlPacket::new_checked_at(rest, self.pos) {
            Ok(p) => {
                self.pos = self.pos.saturating_add(align4(p.bytes.len())).min(self.buf.len());
                Some(Ok(p))
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

/// An `NLMSG_ERROR` message: an error, or with `error == 0` an acknowledgement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ErrorMsg<'a> {
    /// 0 for an ACK, else a negative errno.
    pub error: i32,
    /// The header of the request this answers, when present.
    pub request: Option<NlHeader>,
    /// Extended ACK: the kernel's message (`NLMSGERR_ATTR_MSG`).
    pub ext_msg: Option<&'a str>,
    /// Extended ACK: offset of the offending attribute in the request
    /// (`NLMSGERR_ATTR_OFFS`).
    pub ext_offset: Option<u32>,
}

impl<'a> ErrorMsg<'a> {
    /// Is this an acknowledgement (error 0)?
    pub fn is_ack(&self) -> bool {
        self.error == 0
    }

    /// The positive errno (e.g. 16 for EBUSY), or `None` for an ACK.
    pub fn errno(&self) -> Option<i32> {
        (self.error != 0).then(|| self.error.checked_neg().unwrap_or(i32::MAX))
    }

    /// Parses an `NLMSG_ERROR` message.
    pub fn parse(packet: &NlPacket<'a>) -> Result<ErrorMsg<'a>> {
        let hdr = packet.header();
        if hdr.ty != NLMSG_ERROR {
            return Err(Error::Malformed {
                what: "nlmsghdr type",
                offset: packet.offset() + 4,
                reason: "not NLMSG_ERROR",
            });
        }
        let p = packet.payload();
        let base = packet.payload_offset();
        need("nlmsgerr error", p, 0, 4, base)?;
        let error = i32::from_ne_bytes([p[0], p[1], p[2], p[3]]);
        let mut msg = ErrorMsg { error, request: None, ext_msg: None, ext_offset: None };
        if p.len() < 4 + NLMSG_HDRLEN {
            return Ok(msg);
        }
        let req = NlHeader::parse(&p[4..], base + 4)?;
        msg.request = Some(req);
        if hdr.flags & flags::ACK_TLVS == 0 {
            return Ok(msg);
        }
        // Extended ACK attributes follow the request: its header alone when capped
        // (or an ACK), else the whole request.
        let copied = if hdr.flags & flags::CAPPED != 0 || error == 0 {
            NLMSG_HDRLEN
        } else {
            align4((req.len as usize).max(NLMSG_HDRLEN))
        };
        let start = 4usize.saturating_add(copied);
        need("nlmsgerr request copy", p, 0, start, base)?;
        for a in Attrs::new(&p[start..], base + start, ext_ack::name) {
            let a = a?;
            match a.kind() {
                ext_ack::MSG => msg.ext_msg = Some(a.str()?),
                ext_ack::OFFS => msg.ext_offset = Some(a.u32()?),
                _ => {}
            }
        }
        Ok(msg)
    }

    /// Bytes [`ErrorMsg::emit`] writes.
    pub fn buffer_len(&self) -> usize {
        let mut n = NLMSG_HDRLEN + 4 + NLMSG_HDRLEN;
        if let Some(m) = self.ext_msg {
            n += crate::attr::attr_space(m.len() + 1);
        }
        if self.ext_offset.is_some() {
            n += crate::attr::attr_space(4);
        }
        n
    }

    /// Writes the message as the kernel would with a capped request copy (`NLM_F_CAPPED`,
    /// plus `NLM_F_ACK_TLVS` when there are extended ACK attributes); `hdr.ty` is
    /// replaced by `NLMSG_ERROR`. A missing request header is written as zeros.
    pub fn emit(&self, hdr: &NlHeader, buf: &mut [u8]) -> Result<usize> {
        let len = self.buffer_len();
        room("NLMSG_ERROR message", len, buf.len())?;
        let mut fl = hdr.flags | flags::CAPPED;
        if self.ext_msg.is_some() || self.ext_offset.is_some() {
            fl |= flags::ACK_TLVS;
        }
        NlHeader { ty: NLMSG_ERROR, flags: fl, ..*hdr }.emit_with_len(len, buf)?;
        buf[16..20].copy_from_slice(&self.error.to_ne_bytes());
        match self.request {
            Some(r) => r.emit_with_len(r.len as usize, &mut buf[20..36])?,
            None => buf[20..36].fill(0),
        }
        let mut w = AttrWriter::new(&mut buf[36..len]);
        if let Some(m) = self.ext_msg {
            w.put_str_nul(ext_ack::MSG, m)?;
        }
        if let Some(o) = self.ext_offset {
            w.put_u32(ext_ack::OFFS, o)?;
        }
        Ok(len)
    }
}

/// Parses an `NLMSG_DONE` message: the i32 status some dumps append (0 when absent).
pub fn parse_done(packet: &NlPacket<'_>) -> Result<i32> {
    if packet.header().ty != NLMSG_DONE {
        return Err(Error::Malformed {
            what: "nlmsghdr type",
            offset: packet.offset() + 4,
            reason: "not NLMSG_DONE",
        });
    }
    let p = packet.payload();
    Ok(match p {
        [a, b, c, d, ..] => i32::from_ne_bytes([*a, *b, *c, *d]),
        _ => 0,
    })
}

/// Writes an `NLMSG_DONE` message with status `error`; returns its length (20).
pub fn emit_done(hdr: &NlHeader, error: i32, buf: &mut [u8]) -> Result<usize> {
    room("NLMSG_DONE message", NLMSG_HDRLEN + 4, buf.len())?;
    NlHeader { ty: NLMSG_DONE, ..*hdr }.emit_with_len(NLMSG_HDRLEN + 4, buf)?;
    buf[16..20].copy_from_slice(&error.to_ne_bytes());
    Ok(NLMSG_HDRLEN + 4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trip_and_checks() {
        let h = NlHeader { len: 0, ty: 0x1d, flags: flags::REQUEST | flags::ACK, seq: 9, pid: 77 };
        let mut buf = [0u8; 20];
        h.emit_with_len(20, &mut buf).unwrap();
        let p = NlPacket::new_checked(&buf).unwrap();
        assert_eq!(p.header(), NlHeader { len: 20, ..h });
        assert_eq!(p.payload().len(), 4);
        assert!(matches!(
            NlPacket::new_checked(&buf[..10]),
            Err(Error::Truncated { what: "nlmsghdr", need: 16, have: 10, .. })
        ));
        buf[0..4].copy_from_slice(&8u32.to_ne_bytes());
        assert!(matches!(NlPacket::new_checked(&buf), Err(Error::Malformed { .. })));
        buf[0..4].copy_from_slice(&64u32.to_ne_bytes());
        assert!(matches!(
            NlPacket::new_checked(&buf),
            Err(Error::Truncated { need: 64, have: 20, .. })
        ));
    }

    #[test]
    fn datagram_with_several_messages() {
        let mut buf = [0u8; 64];
        let h = NlHeader::request(0x20, 0, 1, 0);
        h.emit_with_len(18, &mut buf).unwrap(); // padded to 20
        h.emit_with_len(16, &mut buf[20..]).unwrap();
        emit_done(&h, 0, &mut buf[36..]).unwrap();
        let v: Vec<_> = messages(&buf[..56]).map(|m| m.unwrap()).collect();
        assert_eq!(v.iter().map(|p| p.offset()).collect::<Vec<_>>(), [0, 20, 36]);
        assert_eq!(parse_done(&v[2]).unwrap(), 0);
        // a bad second message stops the walk with an error naming its offset
        buf[20..24].copy_from_slice(&3u32.to_ne_bytes());
        let v: Vec<_> = messages(&buf[..56]).collect();
        assert_eq!(v.len(), 2);
        assert!(matches!(v[1], Err(Error::Malformed { offset: 20, .. })));
    }

    #[test]
    fn error_and_ack_messages() {
        let req = NlHeader { len: 36, ty: 0x1d, flags: 5, seq: 3, pid: 4242 };
        let e = ErrorMsg {
            error: -16,
            request: Some(req),
            ext_msg: Some("busy"),
            ext_offset: Some(20),
        };
        let mut buf = [0u8; 128];
        let n = e.emit(&NlHeader::request(0, 0, 3, 4242), &mut buf).unwrap();
        assert_eq!(n, e.buffer_len());
        let p = NlPacket::new_checked(&buf[..n]).unwrap();
        let back = ErrorMsg::parse(&p).unwrap();
        assert_eq!(back, e);
        assert_eq!(back.errno(), Some(16));
        // a plain ACK: error 0 and the request header
        let ack = ErrorMsg { error: 0, request: Some(req), ext_msg: None, ext_offset: None };
        let n = ack.emit(&NlHeader::default(), &mut buf).unwrap();
        assert_eq!(n, 36);
        let back = ErrorMsg::parse(&NlPacket::new_checked(&buf[..n]).unwrap()).unwrap();
        assert!(back.is_ack() && back.errno().is_none());
    }

    #[test]
    fn uncapped_error_skips_the_copied_request() {
        // error -22, full copy of a 24-byte request, then an OFFS TLV
        let mut buf = Vec::new();
        let total = 16 + 4 + 24 + 8;
        let hdr = NlHeader { len: 0, ty: NLMSG_ERROR, flags: flags::ACK_TLVS, seq: 1, pid: 1 };
        let mut h = [0u8; 16];
        hdr.emit_with_len(total, &mut h).unwrap();
        buf.extend_from_slice(&h);
        buf.extend_from_slice(&(-22i32).to_ne_bytes());
        NlHeader::request(0x1d, 5, 1, 1).emit_with_len(24, &mut h).unwrap();
        buf.extend_from_slice(&h);
        buf.extend_from_slice(&[0xAA; 8]); // request payload
        buf.extend_from_slice(&8u16.to_ne_bytes());
        buf.extend_from_slice(&ext_ack::OFFS.to_ne_bytes());
        buf.extend_from_slice(&20u32.to_ne_bytes());
        let e = ErrorMsg::parse(&NlPacket::new_checked(&buf).unwrap()).unwrap();
        assert_eq!((e.errno(), e.ext_offset, e.request.unwrap().len), (Some(22), Some(20), 24));
    }
}
