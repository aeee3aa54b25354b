//! Netlink attributes (`struct nlattr`).
//!
//! ```text
//!  0          2          4                          4 + len, padded to 4
//! +----------+----------+--------------------------+---------+
//! | nla_len  | nla_type | payload (nla_len - 4 B)  | padding |
//! | u16 host | u16 host |                          | 0..3 B  |
//! +----------+----------+--------------------------+---------+
//! ```
//! `nla_len` counts the header and the payload but not the padding. The top two bits
//! of `nla_type` are flags ([`NLA_F_NESTED`], [`NLA_F_NET_BYTEORDER`]); the type
//! proper is `nla_type & NLA_TYPE_MASK`.
//!
//! [`Attrs`] walks a run of attributes without copying; [`AttrWriter`] writes them.

use crate::{align4, Error, Result};

/// Length of the attribute header.
pub const NLA_HDRLEN: usize = 4;
/// The payload is a run of attributes.
pub const NLA_F_NESTED: u16 = 1 << 15;
/// The payload is in network byte order (big-endian).
pub const NLA_F_NET_BYTEORDER: u16 = 1 << 14;
/// Mask of the type proper.
pub const NLA_TYPE_MASK: u16 = !(NLA_F_NESTED | NLA_F_NET_BYTEORDER);
/// Largest payload an attribute can carry (`nla_len` is a u16).
pub const MAX_PAYLOAD: usize = u16::MAX as usize - NLA_HDRLEN;

/// Total bytes an attribute with `payload_len` bytes of payload takes, padding included.
#[inline]
pub const fn attr_space(payload_len: usize) -> usize {
    align4(NLA_HDRLEN + payload_len)
}

/// Names an attribute type of some attribute space, for errors.
pub type NameFn = fn(u16) -> &'static str;

/// The name used for attributes of an unknown space.
pub fn generic_name(_ty: u16) -> &'static str {
    "netlink attribute"
}

/// One attribute, borrowed from the buffer it was read from.
#[derive(Clone, Copy, Debug)]
pub struct Attr<'a> {
    raw_type: u16,
    offset: usize,
    payload: &'a [u8],
    name: NameFn,
}

impl PartialEq for Attr<'_> {
    /// Same type, offset and payload (the naming function is not compared).
    fn eq(&self, o: &Self) -> bool {
        self.raw_type == o.raw_type && self.offset == o.offset && self.payload == o.payload
    }
}

impl Eq for Attr<'_> {}

impl<'a> Attr<'a> {
    /// The type, flag bits masked off.
    #[inline]
    pub fn kind(&self) -> u16 {
        self.raw_type & NLA_TYPE_MASK
    }

    /// `nla_type` as on the wire, flag bits included.
    #[inline]
    pub fn raw_type(&self) -> u16 {
        self.raw_type
    }

    /// Is `NLA_F_NESTED` set?
    #[inline]
    pub fn is_nested(&self) -> bool {
        self.raw_type & NLA_F_NESTED != 0
    }

    /// Is `NLA_F_NET_BYTEORDER` set?
    #[inline]
    pub fn is_net_byteorder(&self) -> bool {
        self.raw_type & NLA_F_NET_BYTEORDER != 0
    }

    /// The payload (without padding).
    #[inline]
    pub fn payload(&self) -> &'a [u8] {
        self.payload
    }

    /// Offset of the attribute header in the buffer the walk started from.
    #[inline]
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// Offset of the payload.
    #[inline]
    pub fn payload_offset(&self) -> usize {
        self.offset + NLA_HDRLEN
    }

    /// The attribute's name in its space.
    pub fn name(&self) -> &'static str {
        (self.name)(self.kind())
    }

    /// An [`Error::Attribute`] about this attribute.
    pub fn error(&self, reason: &'static str) -> Error {
        Error::Attribute {
            attr: self.kind(),
            name: self.name(),
            offset: self.offset,
            len: self.payload.len(),
            reason,
        }
    }

    fn fixed<const N: usize>(&self, reason: &'static str) -> Result<[u8; N]> {
        self.payload.try_into().map_err(|_| self.error(reason))
    }

    /// The payload as a u8 (exactly 1 byte).
    pub fn u8(&self) -> Result<u8> {
        Ok(self.fixed::<1>("expected a 1-byte u8")?[0])
    }

    /// The payload as a u16 (exactly 2 bytes; host order unless `NLA_F_NET_BYTEORDER`).
    pub fn u16(&self) -> Result<u16> {
        let b = self.fixed::<2>("expected a 2-byte u16")?;
        Ok(if self.is_net_byteorder() { u16::from_be_bytes(b) } else { u16::from_ne_bytes(b) })
    }

    /// The payload as a u32 (exactly 4 bytes; host order unless `NLA_F_NET_BYTEORDER`).
    pub fn u32(&self) -> Result<u32> {
        let b = self.fixed::<4>("expected a 4-byte u32")?;
        Ok(if self.is_net_byteorder() { u32::from_be_bytes(b) } else { u32::from_ne_bytes(b) })
    }

    /// The payload as an i32 (a u32 reinterpreted).
    pub fn i32(&self) -> Result<i32> {
        Ok(self.u32()? as i32)
    }

    /// The payload as a u64 (exactly 8 bytes; host order unless `NLA_F_NET_BYTEORDER`).
    pub fn u64(&self) -> Result<u64> {
        let b = self.fixed::<8>("expected an 8-byte u64")?;
        Ok(if self.is_net_byteorder() { u64::from_be_bytes(b) } else { u64::from_ne_bytes(b) })
    }

    /// The payload as a 6-byte MAC address.
    pub fn mac(&self) -> Result<[u8; 6]> {
        self.fixed::<6>("expected a 6-byte MAC address")
    }

    /// The payload as a string: UTF-8, trailing NUL bytes removed (the kernel writes
    /// some strings with a terminating NUL and some without).
    pub fn str(&self) -> Result<&'a str> {
        let mut s = self.payload;
        while let [rest @ .., 0] = s {
            s = rest;
        }
        if s.contains(&0) {
            return Err(self.error("string contains a NUL byte"));
        }
        core::str::from_utf8(s).map_err(|_| self.error("string is not UTF-8"))
    }

    /// The attributes nested in the payload, named by `name`.
    pub fn nested(&self, name: NameFn) -> Attrs<'a> {
        Attrs::new(self.payload, self.payload_offset(), name)
    }
}

/// A zero-copy walk over a run of attributes.
///
/// Yields `Err` once and stops at the first malformed attribute header. An attribute
/// whose padding is missing at the very end of the buffer is accepted.
#[derive(Clone, Debug)]
pub struct Attrs<'a> {
    buf: &'a [u8],
    pos: usize,
    base: usize,
    name: NameFn,
    done: bool,
}

impl<'a> Attrs<'a> {
    /// Walks the attributes in `buf`, which starts at `base` in the caller's buffer
    /// (used in error offsets); `name` names the attribute types for errors.
    pub fn new(buf: &'a [u8], base: usize, name: NameFn) -> Attrs<'a> {
        Attrs { buf, pos: 0, base, name, done: false }
    }
}

impl<'a> Iterator for Attrs<'a> {
    type Item = Result<Attr<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let rest = self.buf.get(self.pos..).unwrap_or(&[]);
        if rest.is_empty() {
            self.done = true;
            return None;
        }
        let offset = self.base.saturating_add(self.pos);
        let fail = |e: Error, s: &mut Self| {
            s.done = true;
            Some(Err(e))
        };
        if rest.len() < NLA_HDRLEN {
            // Up to 3 bytes of zero padding after the last attribute are tolerated.
            if rest.iter().all(|&b| b == 0) {
                self.done = true;
                return None;
            }
            let e = Error::Truncated {
                what: "netlink attribute header",
                offset,
                need: offset + NLA_HDRLEN,
                have: offset + rest.len(),
            };
            return fail(e, self);
        }
        let len = u16::from_ne_bytes([rest[0], rest[1]]) as usize;
        let raw_type = u16::from_ne_bytes([rest[2], rest[3]]);
        let kind = raw_type & NLA_TYPE_MASK;
        let name = (self.name)(kind);
        if len < NLA_HDRLEN {
            let e = Error::Attribute {
                attr: kind,
                name,
                offset,
                len,
                reason: "nla_len is shorter than the attribute header",
            };
            return fail(e, self);
        }
        if len > rest.len() {
            let e = Error::Attribute {
                attr: kind,
                name,
                offset,
                len,
                reason: "nla_len runs past the end of the enclosing message or attribute",
            };
            return fail(e, self);
        }
        let attr = Attr { raw_type, offset, payload: &rest[NLA_HDRLEN..len], name: self.name };
        self.pos = self.pos.saturating_add(align4(len)).min(self.buf.len());
        Some(Ok(attr))
    }
}

/// A raw attribute kept by a parsed representation: its type as on the wire (flag
/// bits included) and its payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RawAttr<'a> {
    /// `nla_type`, flag bits included.
    pub raw_type: u16,
    /// The payload.
    pub payload: &'a [u8],
}

impl<'a> RawAttr<'a> {
    /// The type, flag bits masked off.
    pub fn kind(&self) -> u16 {
        self.raw_type & NLA_TYPE_MASK
    }
}

impl<'a> From<Attr<'a>> for RawAttr<'a> {
    fn from(a: Attr<'a>) -> Self {
        RawAttr { raw_type: a.raw_type(), payload: a.payload() }
    }
}

/// Writes attributes into a byte buffer, padding each to 4 bytes with zeros.
#[derive(Debug)]
pub struct AttrWriter<'b> {
    buf: &'b mut [u8],
    pos: usize,
}

impl<'b> AttrWriter<'b> {
    /// A writer that starts at the beginning of `buf`.
    pub fn new(buf: &'b mut [u8]) -> AttrWriter<'b> {
        AttrWriter { buf, pos: 0 }
    }

    /// Bytes written so far.
    pub fn len(&self) -> usize {
        self.pos
    }

    /// Nothing written yet?
    pub fn is_empty(&self) -> bool {
        self.pos == 0
    }

    fn reserve(&mut self, what: &'static str, n: usize) -> Result<&mut [u8]> {
        let end =
            self.pos.checked_add(n).ok_or(Error::InvalidInput { what, reason: "too large" })?;
        let have = self.buf.len();
        let out = self.buf.get_mut(self.pos..end).ok_or(Error::BufferTooSmall {
            what,
            need: end,
            have,
        })?;
        self.pos = end;
        Ok(out)
    }

    /// Writes an attribute of type `raw_type` (flag bits as given) with `payload`.
    pub fn put(&mut self, raw_type: u16, payload: &[u8]) -> Result<()> {
        if payload.len() > MAX_PAYLOAD {
            return Err(Error::InvalidInput {
                what: "netlink attribute payload",
                reason: "longer than 65531 bytes (nla_len is a u16)",
            });
        }
        let len = NLA_HDRLEN + payload.len();
        let out = self.reserve("netlink attribute", align4(len))?;
        out[0..2].copy_from_slice(&(len as u16).to_ne_bytes());
        out[2..4].copy_from_slice(&raw_type.to_ne_bytes());
        out[NLA_HDRLEN..len].copy_from_slice(payload);
        out[len..].fill(0);
        Ok(())
    }

    /// Appends bytes as they are (already encoded attributes); no padding is added.
    pub fn put_bytes(&mut self, raw: &[u8]) -> Result<()> {
        self.reserve("netlink attributes", raw.len())?.copy_from_slice(raw);
        Ok(())
    }

    /// Writes a zero-length (flag) attribute.
    pub fn put_flag(&mut self, ty: u16) -> Result<()> {
        self.put(ty, &[])
    }

    /// Writes a u16 attribute in host order.
    pub fn put_u16(&mut self, ty: u16, v: u16) -> Result<()> {
        self.put(ty, &v.to_ne_bytes())
    }

    /// Writes a u32 attribute in host order.
    pub fn put_u32(&mut self, ty: u16, v: u32) -> Result<()> {
        self.put(ty, &v.to_ne_bytes())
    }

    /// Writes a u64 attribute in host order (no `PAD` attribute is inserted: the kernel
    /// reads u64 attributes at any 4-byte alignment).
    pub fn put_u64(&mut self, ty: u16, v: u64) -> Result<()> {
        self.put(ty, &v.to_ne_bytes())
    }

    /// Writes a string attribute with a terminating NUL (`nla_put_string`).
    pub fn put_str_nul(&mut self, ty: u16, s: &str) -> Result<()> {
        if s.len() >= MAX_PAYLOAD {
            return Err(Error::InvalidInput {
                what: "netlink string attribute",
                reason: "too long",
            });
        }
        let len = NLA_HDRLEN + s.len() + 1;
        let out = self.reserve("netlink attribute", align4(len))?;
        out[0..2].copy_from_slice(&(len as u16).to_ne_bytes());
        out[2..4].copy_from_slice(&ty.to_ne_bytes());
        out[NLA_HDRLEN..len - 1].copy_from_slice(s.as_bytes());
        out[len - 1..].fill(0);
        Ok(())
    }

    /// Starts a nested attribute; returns a token for [`AttrWriter::end_nested`].
    pub fn begin_nested(&mut self, ty: u16) -> Result<usize> {
        let start = self.pos;
        let out = self.reserve("nested netlink attribute", NLA_HDRLEN)?;
        out[2..4].copy_from_slice(&(ty | NLA_F_NESTED).to_ne_bytes());
        Ok(start)
    }

    /// Ends the nested attribute started at `start`, writing its length.
    pub fn end_nested(&mut self, start: usize) -> Result<()> {
        let len = self.pos.saturating_sub(start);
        let len = u16::try_from(len).map_err(|_| Error::InvalidInput {
            what: "nested netlink attribute",
            reason: "longer than 65535 bytes (nla_len is a u16)",
        })?;
        let hdr = self.buf.get_mut(start..start + 2).ok_or(Error::InvalidInput {
            what: "nested netlink attribute",
            reason: "bad start token",
        })?;
        hdr.copy_from_slice(&len.to_ne_bytes());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect(buf: &[u8]) -> Vec<Result<Attr<'_>>> {
        Attrs::new(buf, 100, generic_name).collect()
    }

    #[test]
    fn writer_pads_and_iterator_reads_back() {
        let mut buf = [0xffu8; 64];
        let mut w = AttrWriter::new(&mut buf);
        w.put(2, &[1, 2, 3, 4, 5, 6]).unwrap();
        w.put_u32(4, 0x0102_0304).unwrap();
        w.put_flag(14).unwrap();
        w.put_str_nul(2 | NLA_F_NET_BYTEORDER, "ab").unwrap();
        let n = w.len();
        assert_eq!(n, 12 + 8 + 4 + 8);
        // padding bytes are zero
        assert_eq!(&buf[10..12], &[0, 0]);
        let attrs: Vec<_> = collect(&buf[..n]).into_iter().map(|a| a.unwrap()).collect();
        assert_eq!(attrs.len(), 4);
        assert_eq!(attrs[0].mac().unwrap(), [1, 2, 3, 4, 5, 6]);
        assert_eq!(attrs[0].offset(), 100);
        assert_eq!(attrs[1].u32().unwrap(), 0x0102_0304);
        assert_eq!(attrs[1].offset(), 112);
        assert!(attrs[2].payload().is_empty());
        assert_eq!(attrs[3].kind(), 2);
        assert!(attrs[3].is_net_byteorder());
        assert_eq!(attrs[3].str().unwrap(), "ab");
    }

    #[test]
    fn net_byteorder_integers_are_big_endian() {
        let mut buf = [0u8; 8];
        buf[0..2].copy_from_slice(&8u16.to_ne_bytes());
        buf[2..4].copy_from_slice(&(5 | NLA_F_NET_BYTEORDER).to_ne_bytes());
        buf[4..8].copy_from_slice(&[0, 0, 1, 2]);
        let a = collect(&buf)[0].unwrap();
        assert_eq!((a.kind(), a.u32().unwrap()), (5, 0x0102));
    }

    #[test]
    fn bad_headers_are_named_with_offsets() {
        // nla_len = 2 < 4
        let mut buf = [0u8; 8];
        buf[0..2].copy_from_slice(&2u16.to_ne_bytes());
        buf[2..4].copy_from_slice(&7u16.to_ne_bytes());
        let r = collect(&buf);
        assert_eq!(r.len(), 1);
        assert!(matches!(r[0], Err(Error::Attribute { attr: 7, offset: 100, len: 2, .. })));
        // nla_len past the end
        buf[0..2].copy_from_slice(&40u16.to_ne_bytes());
        let r = collect(&buf);
        assert!(matches!(r[0], Err(Error::Attribute { attr: 7, offset: 100, len: 40, .. })));
        // 3 stray non-zero bytes
        let r = collect(&[1, 2, 3]);
        assert!(matches!(r[0], Err(Error::Truncated { offset: 100, need: 104, have: 103, .. })));
        // 3 zero bytes of padding are fine
        assert!(collect(&[0, 0, 0]).is_empty());
    }

    #[test]
    fn last_attribute_may_lack_its_padding() {
        let mut buf = [0u8; 5];
        buf[0..2].copy_from_slice(&5u16.to_ne_bytes());
        buf[2..4].copy_from_slice(&1u16.to_ne_bytes());
        buf[4] = 9;
        let r = collect(&buf);
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].unwrap().u8().unwrap(), 9);
    }

    #[test]
    fn typed_getters_check_lengths() {
        let mut buf = [0u8; 8];
        buf[0..2].copy_from_slice(&7u16.to_ne_bytes());
        buf[2..4].copy_from_slice(&4u16.to_ne_bytes());
        let a = collect(&buf)[0].unwrap();
        assert!(matches!(a.u32(), Err(Error::Attribute { attr: 4, len: 3, offset: 100, .. })));
        assert!(a.u64().is_err() && a.mac().is_err() && a.u16().is_err());
    }

    #[test]
    fn nested_round_trip() {
        let mut buf = [0u8; 64];
        let mut w = AttrWriter::new(&mut buf);
        let t = w.begin_nested(7).unwrap();
        let t2 = w.begin_nested(1).unwrap();
        w.put_u32(2, 5).unwrap();
        w.put_str_nul(1, "config").unwrap();
        w.end_nested(t2).unwrap();
        w.end_nested(t).unwrap();
        let n = w.len();
        let outer = collect(&buf[..n])[0].unwrap();
        assert!(outer.is_nested());
        let inner = outer.nested(generic_name).next().unwrap().unwrap();
        assert_eq!(inner.offset(), 104);
        let leaf: Vec<_> = inner.nested(generic_name).map(|a| a.unwrap()).collect();
        assert_eq!(leaf[0].u32().unwrap(), 5);
        assert_eq!(leaf[1].str().unwrap(), "config");
    }

    #[test]
    fn writer_reports_small_buffers() {
        let mut buf = [0u8; 6];
        let mut w = AttrWriter::new(&mut buf);
        assert!(matches!(w.put(1, &[0; 6]), Err(Error::BufferTooSmall { need: 12, have: 6, .. })));
        assert!(matches!(
            AttrWriter::new(&mut [0u8; 8]).put(1, &vec![0u8; 70000]),
            Err(Error::InvalidInput { .. })
        ));
    }
}
