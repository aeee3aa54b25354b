//! Interfaces: `GET_INTERFACE` and the interface descriptions that answer it,
//! `NEW_INTERFACE` (a monitor with its flags), `SET_INTERFACE`, `DEL_INTERFACE`.

use super::consts::{attr, cmd, mntr};
use super::wiphy::{parse_flag_set, write_flag_set};
use super::{genl_of, missing, put_flag, put_u32, put_u64, Enc, Nl80211Message};
use crate::nl::NlPacket;
use crate::Result;

/// Monitor flags: bit n is `NL80211_MNTR_FLAG` n ([`super::mntr`]); on the wire a
/// nested run of flag attributes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MntrFlags(pub u32);

impl MntrFlags {
    /// Pass frames with a bad FCS.
    pub const FCSFAIL: MntrFlags = MntrFlags(1 << mntr::FCSFAIL);
    /// Pass frames with a bad PLCP.
    pub const PLCPFAIL: MntrFlags = MntrFlags(1 << mntr::PLCPFAIL);
    /// Pass control frames.
    pub const CONTROL: MntrFlags = MntrFlags(1 << mntr::CONTROL);
    /// Disable the BSSID filter.
    pub const OTHER_BSS: MntrFlags = MntrFlags(1 << mntr::OTHER_BSS);
    /// Cooked frames (deprecated; refused by current kernels).
    pub const COOK_FRAMES: MntrFlags = MntrFlags(1 << mntr::COOK_FRAMES);
    /// Active: the interface acknowledges unicast frames to its address.
    pub const ACTIVE: MntrFlags = MntrFlags(1 << mntr::ACTIVE);

    /// Are all flags of `o` set?
    pub fn contains(self, o: MntrFlags) -> bool {
        self.0 & o.0 == o.0
    }
}

impl core::ops::BitOr for MntrFlags {
    type Output = MntrFlags;
    fn bitor(self, o: MntrFlags) -> MntrFlags {
        MntrFlags(self.0 | o.0)
    }
}

/// A `GET_INTERFACE` request: one interface (`ifindex`), or with `DUMP` all of them
/// (of one wiphy when `wiphy` is given).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GetInterface {
    /// The interface.
    pub ifindex: Option<u32>,
    /// In a dump: only the interfaces of this wiphy.
    pub wiphy: Option<u32>,
}

impl GetInterface {
    /// Parses a `GET_INTERFACE` request.
    pub fn parse(packet: &NlPacket<'_>) -> Result<GetInterface> {
        let m =
            genl_of(packet, &[cmd::GET_INTERFACE], "genlmsghdr cmd of NL80211_CMD_GET_INTERFACE")?;
        let mut r = GetInterface::default();
        for a in m.attrs(super::consts::attr_name) {
            let a = a?;
            match a.kind() {
                attr::IFINDEX => r.ifindex = Some(a.u32()?),
                attr::WIPHY => r.wiphy = Some(a.u32()?),
                _ => {}
            }
        }
        Ok(r)
    }
}

impl Nl80211Message for GetInterface {
    fn cmd(&self) -> u8 {
        cmd::GET_INTERFACE
    }

    fn write_attrs(&self, w: &mut dyn Enc) -> Result<()> {
        if let Some(i) = self.ifindex {
            put_u32(w, attr::IFINDEX, i)?;
        }
        if let Some(x) = self.wiphy {
            put_u32(w, attr::WIPHY, x)?;
        }
        Ok(())
    }
}

/// An interface's description: the kernel's `NEW_INTERFACE` message (reply to
/// `GET_INTERFACE` and to `NEW_INTERFACE`; `SET_INTERFACE` / `DEL_INTERFACE`
/// notifications carry the same attributes and are parsed too). `WIPHY` is required.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InterfaceInfo<'a> {
    /// The command the message carried (`NEW_INTERFACE`, `SET_INTERFACE` or `DEL_INTERFACE`).
    pub cmd: u8,
    /// Network interface index (absent for a P2P device or NAN wdev).
    pub ifindex: Option<u32>,
    /// Network interface name.
    pub ifname: Option<&'a str>,
    /// Wiphy index.
    pub wiphy: u32,
    /// Interface type ([`super::iftype`]).
    pub iftype: Option<u32>,
    /// MAC address.
    pub mac: Option<[u8; 6]>,
    /// Wireless device id.
    pub wdev: Option<u64>,
    /// Generation.
    pub generation: Option<u32>,
    /// Channel frequency in MHz (when the interface has a channel).
    pub freq: Option<u32>,
    /// Channel width ([`super::chan_width`]).
    pub channel_width: Option<u32>,
    /// Legacy channel type ([`super::chan_type`]).
    pub channel_type: Option<u32>,
    /// Centre frequency of the first segment in MHz.
    pub center_freq1: Option<u32>,
    /// Centre frequency of the second segment in MHz.
    pub center_freq2: Option<u32>,
    /// TX power in mBm (dBm × 100).
    pub tx_power_mbm: Option<i32>,
}

impl<'a> InterfaceInfo<'a> {
    /// Parses an interface description.
    pub fn parse(packet: &NlPacket<'a>) -> Result<InterfaceInfo<'a>> {
        let m = genl_of(
            packet,
            &[cmd::NEW_INTERFACE, cmd::SET_INTERFACE, cmd::DEL_INTERFACE],
            "genlmsghdr cmd of an nl80211 interface description",
        )?;
        let mut r = InterfaceInfo { cmd: m.genl.cmd, ..Default::default() };
        let mut wiphy = None;
        for a in m.attrs(super::consts::attr_name) {
            let a = a?;
            match a.kind() {
                attr::IFINDEX => r.ifindex = Some(a.u32()?),
                attr::IFNAME => r.ifname = Some(a.str()?),
                attr::WIPHY => wiphy = Some(a.u32()?),
                attr::IFTYPE => r.iftype = Some(a.u32()?),
                attr::MAC => r.mac = Some(a.mac()?),
                attr::WDEV => r.wdev = Some(a.u64()?),
                attr::GENERATION => r.generation = Some(a.u32()?),
                attr::WIPHY_FREQ => r.freq = Some(a.u32()?),
                attr::CHANNEL_WIDTH => r.channel_width = Some(a.u32()?),
                attr::WIPHY_CHANNEL_TYPE => r.channel_type = Some(a.u32()?),
                attr::CENTER_FREQ1 => r.center_freq1 = Some(a.u32()?),
                attr::CENTER_FREQ2 => r.center_freq2 = Some(a.u32()?),
                attr::WIPHY_TX_POWER_LEVEL => r.tx_power_mbm = Some(a.i32()?),
                _ => {}
            }
        }
        r.wiphy = wiphy.ok_or(missing("nl80211 interface description", attr::WIPHY))?;
        Ok(r)
    }
}

impl Nl80211Message for InterfaceInfo<'_> {
    fn cmd(&self) -> u8 {
        self.cmd
    }

    fn write_attrs(&self, w: &mut dyn Enc) -> Result<()> {
        if let Some(i) = self.ifindex {
            put_u32(w, attr::IFINDEX, i)?;
        }
        if let Some(n) = self.ifname {
            w.put_str_nul(attr::IFNAME, n)?;
        }
        put_u32(w, attr::WIPHY, self.wiphy)?;
        if let Some(t) = self.iftype {
            put_u32(w, attr::IFTYPE, t)?;
        }
        if let Some(m) = &self.mac {
            w.put(attr::MAC, m)?;
        }
        if let Some(d) = self.wdev {
            put_u64(w, attr::WDEV, d)?;
        }
        for (v, ty) in [
            (self.generation, attr::GENERATION),
            (self.freq, attr::WIPHY_FREQ),
            (self.channel_width, attr::CHANNEL_WIDTH),
            (self.channel_type, attr::WIPHY_CHANNEL_TYPE),
            (self.center_freq1, attr::CENTER_FREQ1),
            (self.center_freq2, attr::CENTER_FREQ2),
        ] {
            if let Some(v) = v {
                put_u32(w, ty, v)?;
            }
        }
        if let Some(p) = self.tx_power_mbm {
            put_u32(w, attr::WIPHY_TX_POWER_LEVEL, p as u32)?;
        }
        Ok(())
    }
}

/// A `NEW_INTERFACE` request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NewInterface<'a> {
    /// The wiphy to create the interface on.
    pub wiphy: u32,
    /// Its name.
    pub ifname: &'a str,
    /// Its type ([`super::iftype`]).
    pub iftype: u32,
    /// Monitor flags (monitor interfaces only).
    pub mntr_flags: Option<MntrFlags>,
    /// Its MAC address (needs `FEATURE_MAC_ON_CREATE`).
    pub mac: Option<[u8; 6]>,
    /// `SOCKET_OWNER`: the kernel removes the interface when the socket that created
    /// it closes (also when the program dies).
    pub socket_owner: bool,
}

impl<'a> NewInterface<'a> {
    /// Parses a `NEW_INTERFACE` request (`WIPHY`, `IFNAME` and `IFTYPE` required).
    pub fn parse(packet: &NlPacket<'a>) -> Result<NewInterface<'a>> {
        const MSG: &str = "NL80211_CMD_NEW_INTERFACE";
        let m =
            genl_of(packet, &[cmd::NEW_INTERFACE], "genlmsghdr cmd of NL80211_CMD_NEW_INTERFACE")?;
        let (mut wiphy, mut ifname, mut iftype) = (None, None, None);
        let mut r = NewInterface {
            wiphy: 0,
            ifname: "",
            iftype: 0,
            mntr_flags: None,
            mac: None,
            socket_owner: false,
        };
        for a in m.attrs(super::consts::attr_name) {
            let a = a?;
            match a.kind() {
                attr::WIPHY => wiphy = Some(a.u32()?),
                attr::IFNAME => ifname = Some(a.str()?),
                attr::IFTYPE => iftype = Some(a.u32()?),
                attr::MNTR_FLAGS => r.mntr_flags = Some(MntrFlags(parse_flag_set(&a)?)),
                attr::MAC => r.mac = Some(a.mac()?),
                attr::SOCKET_OWNER => r.socket_owner = true,
                _ => {}
            }
        }
        r.wiphy = wiphy.ok_or(missing(MSG, attr::WIPHY))?;
        r.ifname = ifname.ok_or(missing(MSG, attr::IFNAME))?;
        r.iftype = iftype.ok_or(missing(MSG, attr::IFTYPE))?;
        Ok(r)
    }
}

impl Nl80211Message for NewInterface<'_> {
    fn cmd(&self) -> u8 {
        cmd::NEW_INTERFACE
    }

    fn write_attrs(&self, w: &mut dyn Enc) -> Result<()> {
        put_u32(w, attr::WIPHY, self.wiphy)?;
        w.put_str_nul(attr::IFNAME, self.ifname)?;
        put_u32(w, attr::IFTYPE, self.iftype)?;
        if let Some(f) = self.mntr_flags {
            write_flag_set(w, attr::MNTR_FLAGS, f.0)?;
        }
        if let Some(m) = &self.mac {
            w.put(attr::MAC, m)?;
        }
        if self.socket_owner {
            put_flag(w, attr::SOCKET_OWNER)?;
        }
        Ok(())
    }
}

/// A `SET_INTERFACE` request: change an interface's type or monitor flags.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SetInterface {
    /// The interface.
    pub ifindex: u32,
    /// New type.
    pub iftype: Option<u32>,
    /// New monitor flags.
    pub mntr_flags: Option<MntrFlags>,
}

impl SetInterface {
    /// Parses a `SET_INTERFACE` request (`IFINDEX` required).
    pub fn parse(packet: &NlPacket<'_>) -> Result<SetInterface> {
        let m =
            genl_of(packet, &[cmd::SET_INTERFACE], "genlmsghdr cmd of NL80211_CMD_SET_INTERFACE")?;
        let mut r = SetInterface::default();
        let mut ifindex = None;
        for a in m.attrs(super::consts::attr_name) {
            let a = a?;
            match a.kind() {
                attr::IFINDEX => ifindex = Some(a.u32()?),
                attr::IFTYPE => r.iftype = Some(a.u32()?),
                attr::MNTR_FLAGS => r.mntr_flags = Some(MntrFlags(parse_flag_set(&a)?)),
                _ => {}
            }
        }
        r.ifindex = ifindex.ok_or(missing("NL80211_CMD_SET_INTERFACE", attr::IFINDEX))?;
        Ok(r)
    }
}

impl Nl80211Message for SetInterface {
    fn cmd(&self) -> u8 {
        cmd::SET_INTERFACE
    }

    fn write_attrs(&self, w: &mut dyn Enc) -> Result<()> {
        put_u32(w, attr::IFINDEX, self.ifindex)?;
        if let Some(t) = self.iftype {
            put_u32(w, attr::IFTYPE, t)?;
        }
        if let Some(f) = self.mntr_flags {
            write_flag_set(w, attr::MNTR_FLAGS, f.0)?;
        }
        Ok(())
    }
}

/// A `DEL_INTERFACE` request.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DelInterface {
    /// The interface to delete.
    pub ifindex: u32,
}

impl DelInterface {
    /// Parses a `DEL_INTERFACE` request (`IFINDEX` required).
    pub fn parse(packet: &NlPacket<'_>) -> Result<DelInterface> {
        let m =
            genl_of(packet, &[cmd::DEL_INTERFACE], "genlmsghdr cmd of NL80211_CMD_DEL_INTERFACE")?;
        let mut ifindex = None;
        for a in m.attrs(super::consts::attr_name) {
            let a = a?;
            if a.kind() == attr::IFINDEX {
                ifindex = Some(a.u32()?);
            }
        }
        Ok(DelInterface {
            ifindex: ifindex.ok_or(missing("NL80211_CMD_DEL_INTERFACE", attr::IFINDEX))?,
        })
    }
}

impl Nl80211Message for DelInterface {
    fn cmd(&self) -> u8 {
        cmd::DEL_INTERFACE
    }

    fn write_attrs(&self, w: &mut dyn Enc) -> Result<()> {
        put_u32(w, attr::IFINDEX, self.ifindex)
    }
}
