//! Generic netlink: the `genlmsghdr` that follows the netlink header, and the
//! controller family (`nlctrl`) that resolves family names to ids.
//!
//! ```text
//!  0 (after nlmsghdr)  1         2            4
//! +-------------------+---------+------------+------------------+
//! | cmd u8            | version | reserved   | attributes ...   |
//! |                   | u8      | u16 (zero) |                  |
//! +-------------------+---------+------------+------------------+
//! ```

use crate::attr::{AttrWriter, Attrs, NameFn};
use crate::nl::{NlHeader, NlPacket, NLMSG_HDRLEN};
use crate::{need, room, Result};

/// Length of `struct genlmsghdr`.
pub const GENL_HDRLEN: usize = 4;

/// A generic netlink header.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct GenlHeader {
    /// Command.
    pub cmd: u8,
    /// Family interface version.
    pub version: u8,
}

impl GenlHeader {
    /// Reads the header at the start of a netlink payload (`base` is its offset in the
    /// caller's buffer). The reserved field is ignored.
    pub fn parse(payload: &[u8], base: usize) -> Result<GenlHeader> {
        need("genlmsghdr", payload, 0, GENL_HDRLEN, base)?;
        Ok(GenlHeader { cmd: payload[0], version: payload[1] })
    }

    /// Writes the header (reserved = 0) into the first 4 bytes of `buf`.
    pub fn emit(&self, buf: &mut [u8]) -> Result<()> {
        room("genlmsghdr", GENL_HDRLEN, buf.len())?;
        buf[..4].copy_from_slice(&[self.cmd, self.version, 0, 0]);
        Ok(())
    }
}

/// A parsed generic netlink message: headers and a walk over its attributes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GenlMsg<'a> {
    /// The netlink header.
    pub nl: NlHeader,
    /// The generic netlink header.
    pub genl: GenlHeader,
    /// The attribute bytes.
    pub attrs: &'a [u8],
    /// Offset of `attrs` in the caller's buffer.
    pub attrs_offset: usize,
}

impl<'a> GenlMsg<'a> {
    /// Splits a netlink message into its generic netlink parts.
    pub fn parse(packet: &NlPacket<'a>) -> Result<GenlMsg<'a>> {
        let p = packet.payload();
        let genl = GenlHeader::parse(p, packet.payload_offset())?;
        Ok(GenlMsg {
            nl: packet.header(),
            genl,
            attrs: &p[GENL_HDRLEN..],
            attrs_offset: packet.payload_offset() + GENL_HDRLEN,
        })
    }

    /// Walks the attributes, named by `name` in errors.
    pub fn attrs(&self, name: NameFn) -> Attrs<'a> {
        Attrs::new(self.attrs, self.attrs_offset, name)
    }
}

/// Writes a whole generic netlink message: `hdr` (its `len` ignored), `genl`, then
/// whatever `body` writes; returns the message length.
pub fn emit_message(
    hdr: &NlHeader,
    genl: GenlHeader,
    buf: &mut [u8],
    body: impl FnOnce(&mut AttrWriter<'_>) -> Result<()>,
) -> Result<usize> {
    const HDRS: usize = NLMSG_HDRLEN + GENL_HDRLEN;
    room("generic netlink headers", HDRS, buf.len())?;
    let (head, rest) = buf.split_at_mut(HDRS);
    let mut w = AttrWriter::new(rest);
    body(&mut w)?;
    let len = HDRS + w.len();
    hdr.emit_with_len(len, head)?;
    genl.emit(&mut head[NLMSG_HDRLEN..])?;
    Ok(len)
}

/// The generic netlink controller (`nlctrl`), family id 0x10.
///
/// Resolving the hwsim family id and its `config` multicast group:
/// ```
/// use sdmac_netlink::genl::ctrl::{FamilyInfo, GetFamily, McastGroup};
/// use sdmac_netlink::nl::{self, flags, NlHeader, NlPacket};
/// use sdmac_netlink::{decode, hwsim, Incoming};
///
/// let mut req = [0u8; 64];
/// let n = GetFamily { name: hwsim::FAMILY_NAME }.emit(flags::REQUEST | flags::ACK, 1, 0, &mut req)?;
/// // ... send req[..n], receive a datagram; here the kernel's reply is faked:
/// let reply = FamilyInfo {
///     id: 0x1d,
///     name: hwsim::FAMILY_NAME,
///     version: 1,
///     mcast_groups: vec![McastGroup { name: hwsim::MCAST_GROUP_CONFIG, id: 9 }],
///     ..Default::default()
/// };
/// let mut dgram = [0u8; 256];
/// let m = reply.emit(&NlHeader::request(0, 0, 1, 0), &mut dgram)?;
/// for p in nl::messages(&dgram[..m]) {
///     let p = p?;
///     if let Incoming::Other(p) = decode(&p, 0)? {
///         let info = FamilyInfo::parse(&p)?;
///         assert_eq!(info.id, 0x1d);
///         assert_eq!(info.mcast_group_id(hwsim::MCAST_GROUP_CONFIG), Some(9));
///     }
/// }
/// # let _ = n;
/// # Ok::<(), sdmac_netlink::Error>(())
/// ```
pub mod ctrl {
    use super::*;
    use crate::attr::attr_space;
    use crate::Error;

    /// Fixed family id of the controller.
    pub const GENL_ID_CTRL: u16 = 0x10;
    /// Version used in requests to the controller.
    pub const CTRL_VERSION: u8 = 1;
    /// Longest family name, terminating NUL included (`GENL_NAMSIZ`).
    pub const GENL_NAMSIZ: usize = 16;

    /// `CTRL_CMD_NEWFAMILY`: a family's description (reply to GETFAMILY).
    pub const CMD_NEWFAMILY: u8 = 1;
    /// `CTRL_CMD_DELFAMILY`.
    pub const CMD_DELFAMILY: u8 = 2;
    /// `CTRL_CMD_GETFAMILY`.
    pub const CMD_GETFAMILY: u8 = 3;
    /// `CTRL_CMD_NEWMCAST_GRP`.
    pub const CMD_NEWMCAST_GRP: u8 = 7;
    /// `CTRL_CMD_DELMCAST_GRP`.
    pub const CMD_DELMCAST_GRP: u8 = 8;

    /// `CTRL_ATTR_FAMILY_ID` (u16).
    pub const ATTR_FAMILY_ID: u16 = 1;
    /// `CTRL_ATTR_FAMILY_NAME` (NUL-terminated string).
    pub const ATTR_FAMILY_NAME: u16 = 2;
    /// `CTRL_ATTR_VERSION` (u32).
    pub const ATTR_VERSION: u16 = 3;
    /// `CTRL_ATTR_HDRSIZE` (u32).
    pub const ATTR_HDRSIZE: u16 = 4;
    /// `CTRL_ATTR_MAXATTR` (u32).
    pub const ATTR_MAXATTR: u16 = 5;
    /// `CTRL_ATTR_OPS` (nested).
    pub const ATTR_OPS: u16 = 6;
    /// `CTRL_ATTR_MCAST_GROUPS` (nested array of nested groups).
    pub const ATTR_MCAST_GROUPS: u16 = 7;
    /// `CTRL_ATTR_MCAST_GRP_NAME` (string), inside a group.
    pub const ATTR_MCAST_GRP_NAME: u16 = 1;
    /// `CTRL_ATTR_MCAST_GRP_ID` (u32), inside a group.
    pub const ATTR_MCAST_GRP_ID: u16 = 2;

    /// Names a `CTRL_ATTR_*` type.
    pub fn attr_name(ty: u16) -> &'static str {
        match ty {
            ATTR_FAMILY_ID => "CTRL_ATTR_FAMILY_ID",
            ATTR_FAMILY_NAME => "CTRL_ATTR_FAMILY_NAME",
            ATTR_VERSION => "CTRL_ATTR_VERSION",
            ATTR_HDRSIZE => "CTRL_ATTR_HDRSIZE",
            ATTR_MAXATTR => "CTRL_ATTR_MAXATTR",
            ATTR_OPS => "CTRL_ATTR_OPS",
            ATTR_MCAST_GROUPS => "CTRL_ATTR_MCAST_GROUPS",
            _ => "CTRL attribute",
        }
    }

    fn group_list_name(_: u16) -> &'static str {
        "CTRL_ATTR_MCAST_GROUPS entry"
    }

    fn group_attr_name(ty: u16) -> &'static str {
        match ty {
            ATTR_MCAST_GRP_NAME => "CTRL_ATTR_MCAST_GRP_NAME",
            ATTR_MCAST_GRP_ID => "CTRL_ATTR_MCAST_GRP_ID",
            _ => "CTRL_ATTR_MCAST_GRP attribute",
        }
    }

    fn check_cmd(m: &GenlMsg<'_>, cmd: u8) -> Result<()> {
        if m.genl.cmd != cmd {
            return Err(Error::Malformed {
                what: "genlmsghdr cmd",
                offset: m.attrs_offset - GENL_HDRLEN,
                reason: "not the expected nlctrl command",
            });
        }
        Ok(())
    }

    fn check_name(name: &str) -> Result<()> {
        if name.is_empty() || name.len() >= GENL_NAMSIZ || name.contains('\0') {
            return Err(Error::InvalidInput {
                what: "generic netlink family name",
                reason: "must be 1 to 15 bytes without NUL",
            });
        }
        Ok(())
    }

    /// A `CTRL_CMD_GETFAMILY` request by name.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct GetFamily<'a> {
        /// The family name, e.g. [`crate::hwsim::FAMILY_NAME`].
        pub name: &'a str,
    }

    impl<'a> GetFamily<'a> {
        /// Bytes [`GetFamily::emit`] writes.
        pub fn buffer_len(&self) -> usize {
            NLMSG_HDRLEN + GENL_HDRLEN + attr_space(self.name.len() + 1)
        }

        /// Writes the request: type `GENL_ID_CTRL`, the caller's flags (usually
        /// `REQUEST | ACK`), seq and pid; command GETFAMILY version 1;
        /// `CTRL_ATTR_FAMILY_NAME` with a terminating NUL.
        pub fn emit(&self, flags: u16, seq: u32, pid: u32, buf: &mut [u8]) -> Result<usize> {
            check_name(self.name)?;
            let hdr = NlHeader::request(GENL_ID_CTRL, flags, seq, pid);
            let genl = GenlHeader { cmd: CMD_GETFAMILY, version: CTRL_VERSION };
            emit_message(&hdr, genl, buf, |w| w.put_str_nul(ATTR_FAMILY_NAME, self.name))
        }

        /// Parses a GETFAMILY request (what the kernel receives).
        pub fn parse(packet: &NlPacket<'a>) -> Result<GetFamily<'a>> {
            let m = GenlMsg::parse(packet)?;
            check_cmd(&m, CMD_GETFAMILY)?;
            let mut name = None;
            for a in m.attrs(attr_name) {
                let a = a?;
                if a.kind() == ATTR_FAMILY_NAME {
                    name = Some(a.str()?);
                }
            }
            let name = name.ok_or(Error::MissingAttribute {
                msg: "CTRL_CMD_GETFAMILY",
                attr: ATTR_FAMILY_NAME,
                name: "CTRL_ATTR_FAMILY_NAME",
            })?;
            Ok(GetFamily { name })
        }
    }

    /// A multicast group of a family.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub struct McastGroup<'a> {
        /// Group name (e.g. `"config"`).
        pub name: &'a str,
        /// Group id, to join with `NETLINK_ADD_MEMBERSHIP`.
        pub id: u32,
    }

    /// A family's description: the controller's `CTRL_CMD_NEWFAMILY` reply.
    #[derive(Clone, Debug, Default, PartialEq, Eq)]
    pub struct FamilyInfo<'a> {
        /// Family id: the `nlmsg_type` of the family's messages.
        pub id: u16,
        /// Family name.
        pub name: &'a str,
        /// Interface version (0 if absent).
        pub version: u32,
        /// User header size (0 if absent).
        pub hdr_size: u32,
        /// Highest attribute type (0 if absent).
        pub max_attr: u32,
        /// Multicast groups.
        pub mcast_groups: Vec<McastGroup<'a>>,
    }

    impl<'a> FamilyInfo<'a> {
        /// The id of the multicast group `name`.
        pub fn mcast_group_id(&self, name: &str) -> Option<u32> {
            self.mcast_groups.iter().find(|g| g.name == name).map(|g| g.id)
        }

        /// Parses a `CTRL_CMD_NEWFAMILY` message. `CTRL_ATTR_FAMILY_ID` and
        /// `CTRL_ATTR_FAMILY_NAME` are required; operations, policies and unknown
        /// attributes are skipped; a multicast group lacking its name or id is an error.
        pub fn parse(packet: &NlPacket<'a>) -> Result<FamilyInfo<'a>> {
            let m = GenlMsg::parse(packet)?;
            check_cmd(&m, CMD_NEWFAMILY)?;
            let missing =
                |attr, name| Error::MissingAttribute { msg: "CTRL_CMD_NEWFAMILY", attr, name };
            let (mut id, mut name) = (None, None);
            let mut info = FamilyInfo::default();
            for a in m.attrs(attr_name) {
                let a = a?;
                match a.kind() {
                    ATTR_FAMILY_ID => id = Some(a.u16()?),
                    ATTR_FAMILY_NAME => name = Some(a.str()?),
                    ATTR_VERSION => info.version = a.u32()?,
                    ATTR_HDRSIZE => info.hdr_size = a.u32()?,
                    ATTR_MAXATTR => info.max_attr = a.u32()?,
                    ATTR_MCAST_GROUPS => {
                        info.mcast_groups.clear();
                        for g in a.nested(group_list_name) {
                            let g = g?;
                            let (mut gname, mut gid) = (None, None);
                            for f in g.nested(group_attr_name) {
                                let f = f?;
                                match f.kind() {
                                    ATTR_MCAST_GRP_NAME => gname = Some(f.str()?),
                                    ATTR_MCAST_GRP_ID => gid = Some(f.u32()?),
                                    _ => {}
                                }
                            }
                            match (gname, gid) {
                                (Some(name), Some(id)) => {
                                    info.mcast_groups.push(McastGroup { name, id })
                                }
                                _ => return Err(g.error("multicast group lacks its name or id")),
                            }
                        }
                    }
                    _ => {}
                }
            }
            info.id = id.ok_or(missing(ATTR_FAMILY_ID, "CTRL_ATTR_FAMILY_ID"))?;
            info.name = name.ok_or(missing(ATTR_FAMILY_NAME, "CTRL_ATTR_FAMILY_NAME"))?;
            Ok(info)
        }

        /// Bytes [`FamilyInfo::emit`] writes.
        pub fn buffer_len(&self) -> usize {
            let mut n = NLMSG_HDRLEN + GENL_HDRLEN;
            n += attr_space(2) + attr_space(self.name.len() + 1) + 3 * attr_space(4);
            if !self.mcast_groups.is_empty() {
                n += 4;
                for g in &self.mcast_groups {
                    n += 4 + attr_space(g.name.len() + 1) + attr_space(4);
                }
            }
            n
        }

        /// Writes a `CTRL_CMD_NEWFAMILY` message as the controller does (minus
        /// operations), for tests and fakes of the kernel side.
        pub fn emit(&self, hdr: &NlHeader, buf: &mut [u8]) -> Result<usize> {
            check_name(self.name)?;
            let hdr = NlHeader { ty: GENL_ID_CTRL, ..*hdr };
            let genl = GenlHeader { cmd: CMD_NEWFAMILY, version: 2 };
            emit_message(&hdr, genl, buf, |w| {
                w.put_u16(ATTR_FAMILY_ID, self.id)?;
                w.put_str_nul(ATTR_FAMILY_NAME, self.name)?;
                w.put_u32(ATTR_VERSION, self.version)?;
                w.put_u32(ATTR_HDRSIZE, self.hdr_size)?;
                w.put_u32(ATTR_MAXATTR, self.max_attr)?;
                if !self.mcast_groups.is_empty() {
                    let list = w.begin_nested(ATTR_MCAST_GROUPS)?;
                    for (i, g) in self.mcast_groups.iter().enumerate() {
                        let idx = u16::try_from(i + 1).map_err(|_| Error::InvalidInput {
                            what: "multicast group list",
                            reason: "too many groups",
                        })?;
                        let t = w.begin_nested(idx)?;
                        w.put_u32(ATTR_MCAST_GRP_ID, g.id)?;
                        w.put_str_nul(ATTR_MCAST_GRP_NAME, g.name)?;
                        w.end_nested(t)?;
                    }
                    w.end_nested(list)?;
                }
                Ok(())
            })
        }
    }
}

#[cfg(all(test, target_endian = "little"))]
mod tests {
    use super::ctrl::*;
    use super::*;
    use crate::nl::flags;
    use crate::Error;

    #[test]
    fn getfamily_request_golden_bytes() {
        let mut buf = [0u8; 64];
        let n = GetFamily { name: "MAC80211_HWSIM" }
            .emit(flags::REQUEST | flags::ACK, 1, 0, &mut buf)
            .unwrap();
        #[rustfmt::skip]
        let expect: [u8; 40] = [
            40, 0, 0, 0,   0x10, 0,   5, 0,   1, 0, 0, 0,   0, 0, 0, 0, // nlmsghdr
            3, 1, 0, 0,                                                   // GETFAMILY v1
            19, 0, 2, 0,   b'M', b'A', b'C', b'8', b'0', b'2', b'1', b'1', b'_', b'H', b'W', b'S', b'I', b'M', 0,
            0,                                                            // pad
        ];
        assert_eq!(&buf[..n], &expect);
        assert_eq!(n, GetFamily { name: "MAC80211_HWSIM" }.buffer_len());
        let p = NlPacket::new_checked(&buf[..n]).unwrap();
        assert_eq!(GetFamily::parse(&p).unwrap().name, "MAC80211_HWSIM");
        assert!(GetFamily { name: "THIS_NAME_IS_TOO_LONG" }.emit(0, 0, 0, &mut buf).is_err());
    }

    #[test]
    fn newfamily_reply_golden_bytes() {
        // What the controller answers for MAC80211_HWSIM (id 0x1d, one group "config"
        // with id 9), operations left out.
        #[rustfmt::skip]
        let reply: Vec<u8> = [
            &[0u8, 0, 0, 0,   0x10, 0,   0, 0,   1, 0, 0, 0,   0x39, 0x30, 0, 0][..], // nlmsghdr (len patched)
            &[1, 2, 0, 0],                                               // NEWFAMILY v2
            &[6, 0, 1, 0,   0x1d, 0, 0, 0],                              // FAMILY_ID u16 + pad
            &[19, 0, 2, 0], b"MAC80211_HWSIM\0", &[0],                   // FAMILY_NAME
            &[8, 0, 3, 0,   1, 0, 0, 0],                                 // VERSION 1
            &[8, 0, 4, 0,   0, 0, 0, 0],                                 // HDRSIZE 0
            &[8, 0, 5, 0,   22, 0, 0, 0],                                // MAXATTR
            &[8, 0, 6, 0x80, 0xde, 0xad, 0xbe, 0xef],                    // OPS (skipped)
            &[28, 0, 7, 0],                                              // MCAST_GROUPS (nest, no flag)
            &[24, 0, 1, 0],                                              //   group #1
            &[8, 0, 2, 0,   9, 0, 0, 0],                                 //     ID
            &[11, 0, 1, 0], b"config\0", &[0],                           //     NAME
        ].concat();
        let mut reply = reply;
        let len = reply.len() as u32;
        reply[..4].copy_from_slice(&len.to_ne_bytes());
        let p = NlPacket::new_checked(&reply).unwrap();
        let info = FamilyInfo::parse(&p).unwrap();
        assert_eq!(
            (info.id, info.name, info.version, info.max_attr),
            (0x1d, "MAC80211_HWSIM", 1, 22)
        );
        assert_eq!(info.mcast_groups, vec![McastGroup { name: "config", id: 9 }]);
        assert_eq!(info.mcast_group_id("config"), Some(9));
        assert_eq!(info.mcast_group_id("other"), None);

        // emit -> parse round trip (without the OPS attribute)
        let mut buf = [0u8; 256];
        let n = info.emit(&NlHeader::request(0, 0, 1, 12345), &mut buf).unwrap();
        assert_eq!(n, info.buffer_len());
        assert_eq!(n, reply.len() - 8);
        let back = FamilyInfo::parse(&NlPacket::new_checked(&buf[..n]).unwrap()).unwrap();
        assert_eq!(back, info);
    }

    #[test]
    fn newfamily_without_id_is_an_error() {
        let info = FamilyInfo { id: 3, name: "x", ..Default::default() };
        let mut buf = [0u8; 128];
        let n = info.emit(&NlHeader::default(), &mut buf).unwrap();
        // turn FAMILY_ID (type 1 at offset 22) into an unknown type 99
        buf[22] = 99;
        let e = FamilyInfo::parse(&NlPacket::new_checked(&buf[..n]).unwrap()).unwrap_err();
        assert!(matches!(e, Error::MissingAttribute { attr: 1, .. }), "{e}");
        // and a wrong-size id names the attribute and its offset
        buf[22] = 1;
        buf[20] = 8;
        let e = FamilyInfo::parse(&NlPacket::new_checked(&buf[..n]).unwrap()).unwrap_err();
        assert!(matches!(e, Error::Attribute { attr: 1, offset: 20, len: 4, .. }), "{e}");
    }
}
