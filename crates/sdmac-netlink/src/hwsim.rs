//! The `MAC80211_HWSIM` generic netlink family (version 1, multicast group `config`).
//!
//! Numbers and layouts are those of the Linux 6.1 driver (same in 6.12); see
//! `shared/notes/FACTS.md` §3. Who sends what:
//!
//! | command | direction | attributes |
//! |---|---|---|
//! | `REGISTER` (1) | daemon → kernel | none |
//! | `FRAME` (2) | kernel → daemon | `ADDR_TRANSMITTER`, `FRAME`, `FLAGS`, `FREQ`, `TX_INFO`, `TX_INFO_FLAGS`, `COOKIE` → [`TxFrame`] |
//! | `FRAME` (2) | daemon → kernel | `ADDR_RECEIVER`, `FRAME`, `RX_RATE`, `SIGNAL`, `FREQ` → [`RxFrame`] |
//! | `TX_INFO_FRAME` (3) | daemon → kernel | `ADDR_TRANSMITTER`, `FLAGS`, `COOKIE`, `SIGNAL`, `TX_INFO` → [`TxInfoFrame`] |
//! | `NEW_RADIO` / `DEL_RADIO` / `GET_RADIO` (4–6) | both (requests, replies, `config` multicasts) | `RADIO_ID`, `RADIO_NAME`, `CHANNELS`, `PERM_ADDR`, flags … → [`RadioInfo`] |
//! | `ADD_MAC_ADDR` / `DEL_MAC_ADDR` (7, 8) | kernel → daemon | `ADDR_TRANSMITTER` (the radio), `ADDR_RECEIVER` (the interface address) → [`MacAddrEvent`] |
//!
//! `TX_INFO` is exactly 4 × `{s8 idx, u8 count}` (8 bytes; an idx < 0 ends the series).
//! `TX_INFO_FLAGS` is 4 × packed `{s8 idx, u16 flags}` (3 bytes each, 12 in all; the
//! u16 in host order, unaligned). `SIGNAL` is a u32 read as an s32 (dBm). The kernel
//! may put a `PAD` attribute before `COOKIE` to align the u64 on architectures without
//! fast unaligned access; it is skipped.

use crate::attr::{attr_space, Attr, AttrWriter, RawAttr};
use crate::genl::{emit_message, GenlHeader, GenlMsg, GENL_HDRLEN};
use crate::nl::{NlHeader, NlPacket, NLMSG_HDRLEN};
use crate::{room, Error, Result};
use core::fmt;

/// Generic netlink family name.
pub const FAMILY_NAME: &str = "MAC80211_HWSIM";
/// Family interface version written in the messages this crate emits.
pub const VERSION: u8 = 1;
/// Name of the multicast group on which radio creation/deletion is announced.
pub const MCAST_GROUP_CONFIG: &str = "config";
/// Number of entries of `TX_INFO` and `TX_INFO_FLAGS` (`IEEE80211_TX_MAX_RATES`).
pub const TX_MAX_RATES: usize = 4;
/// Shortest frame the kernel accepts in a delivery (a 3-address 802.11 header).
pub const MIN_RX_FRAME_LEN: usize = 24;

/// Command numbers (`HWSIM_CMD_*`).
pub mod cmd {
    /// Register as the medium daemon.
    pub const REGISTER: u8 = 1;
    /// A frame to transmit (kernel → daemon) or to deliver (daemon → kernel).
    pub const FRAME: u8 = 2;
    /// Transmission status of a frame (daemon → kernel).
    pub const TX_INFO_FRAME: u8 = 3;
    /// Create a radio / radio created.
    pub const NEW_RADIO: u8 = 4;
    /// Delete a radio / radio deleted.
    pub const DEL_RADIO: u8 = 5;
    /// Get one or all radios.
    pub const GET_RADIO: u8 = 6;
    /// A receive address was added to a radio (kernel → daemon).
    pub const ADD_MAC_ADDR: u8 = 7;
    /// A receive address was removed from a radio (kernel → daemon).
    pub const DEL_MAC_ADDR: u8 = 8;
    /// Start a peer measurement (newer kernels; decoded as `Unknown`).
    pub const START_PMSR: u8 = 9;
    /// Abort a peer measurement (newer kernels; decoded as `Unknown`).
    pub const ABORT_PMSR: u8 = 10;
    /// Report a peer measurement (newer kernels; decoded as `Unknown`).
    pub const REPORT_PMSR: u8 = 11;
}

/// Attribute types (`HWSIM_ATTR_*`).
pub mod attr {
    /// MAC address of the receiving radio (6 bytes).
    pub const ADDR_RECEIVER: u16 = 1;
    /// MAC address of the transmitting radio (6 bytes).
    pub const ADDR_TRANSMITTER: u16 = 2;
    /// The 802.11 frame, without FCS.
    pub const FRAME: u16 = 3;
    /// [`super::HwsimFlags`] (u32).
    pub const FLAGS: u16 = 4;
    /// Legacy rate index of a delivered frame (u32).
    pub const RX_RATE: u16 = 5;
    /// Signal in dBm (u32 holding an s32).
    pub const SIGNAL: u16 = 6;
    /// Rate series: 4 × {s8 idx, u8 count}.
    pub const TX_INFO: u16 = 7;
    /// Frame identifier for the status report (u64).
    pub const COOKIE: u16 = 8;
    /// Number of concurrent channels of a radio (u32).
    pub const CHANNELS: u16 = 9;
    /// Radio index (u32).
    pub const RADIO_ID: u16 = 10;
    /// Regulatory hint, 2 letters.
    pub const REG_HINT_ALPHA2: u16 = 11;
    /// Custom regulatory domain index (u32).
    pub const REG_CUSTOM_REG: u16 = 12;
    /// Strict regulatory (flag).
    pub const REG_STRICT_REG: u16 = 13;
    /// P2P device support (flag).
    pub const SUPPORT_P2P_DEVICE: u16 = 14;
    /// Channel contexts (flag).
    pub const USE_CHANCTX: u16 = 15;
    /// Destroy the radio when the creating socket closes (flag).
    pub const DESTROY_RADIO_ON_CLOSE: u16 = 16;
    /// Radio (wiphy) name (string).
    pub const RADIO_NAME: u16 = 17;
    /// Create no interface (flag).
    pub const NO_VIF: u16 = 18;
    /// Channel frequency in MHz (u32).
    pub const FREQ: u16 = 19;
    /// Padding before 64-bit attributes.
    pub const PAD: u16 = 20;
    /// Per-rate flags: 4 × packed {s8 idx, u16 flags}.
    pub const TX_INFO_FLAGS: u16 = 21;
    /// Permanent MAC address of a new radio (6 bytes).
    pub const PERM_ADDR: u16 = 22;
    /// Highest type this crate decodes into fields; higher types are kept as raw.
    pub const MAX_KNOWN: u16 = 22;
}

/// Names a `HWSIM_ATTR_*` type.
pub fn attr_name(ty: u16) -> &'static str {
    match ty {
        attr::ADDR_RECEIVER => "HWSIM_ATTR_ADDR_RECEIVER",
        attr::ADDR_TRANSMITTER => "HWSIM_ATTR_ADDR_TRANSMITTER",
        attr::FRAME => "HWSIM_ATTR_FRAME",
        attr::FLAGS => "HWSIM_ATTR_FLAGS",
        attr::RX_RATE => "HWSIM_ATTR_RX_RATE",
        attr::SIGNAL => "HWSIM_ATTR_SIGNAL",
        attr::TX_INFO => "HWSIM_ATTR_TX_INFO",
        attr::COOKIE => "HWSIM_ATTR_COOKIE",
        attr::CHANNELS => "HWSIM_ATTR_CHANNELS",
        attr::RADIO_ID => "HWSIM_ATTR_RADIO_ID",
        attr::REG_HINT_ALPHA2 => "HWSIM_ATTR_REG_HINT_ALPHA2",
        attr::REG_CUSTOM_REG => "HWSIM_ATTR_REG_CUSTOM_REG",
        attr::REG_STRICT_REG => "HWSIM_ATTR_REG_STRICT_REG",
        attr::SUPPORT_P2P_DEVICE => "HWSIM_ATTR_SUPPORT_P2P_DEVICE",
        attr::USE_CHANCTX => "HWSIM_ATTR_USE_CHANCTX",
        attr::DESTROY_RADIO_ON_CLOSE => "HWSIM_ATTR_DESTROY_RADIO_ON_CLOSE",
        attr::RADIO_NAME => "HWSIM_ATTR_RADIO_NAME",
        attr::NO_VIF => "HWSIM_ATTR_NO_VIF",
        attr::FREQ => "HWSIM_ATTR_FREQ",
        attr::PAD => "HWSIM_ATTR_PAD",
        attr::TX_INFO_FLAGS => "HWSIM_ATTR_TX_INFO_FLAGS",
        attr::PERM_ADDR => "HWSIM_ATTR_PERM_ADDR",
        _ => "HWSIM attribute",
    }
}

/// Names a `HWSIM_CMD_*` command.
pub fn cmd_name(c: u8) -> &'static str {
    match c {
        cmd::REGISTER => "HWSIM_CMD_REGISTER",
        cmd::FRAME => "HWSIM_CMD_FRAME",
        cmd::TX_INFO_FRAME => "HWSIM_CMD_TX_INFO_FRAME",
        cmd::NEW_RADIO => "HWSIM_CMD_NEW_RADIO",
        cmd::DEL_RADIO => "HWSIM_CMD_DEL_RADIO",
        cmd::GET_RADIO => "HWSIM_CMD_GET_RADIO",
        cmd::ADD_MAC_ADDR => "HWSIM_CMD_ADD_MAC_ADDR",
        cmd::DEL_MAC_ADDR => "HWSIM_CMD_DEL_MAC_ADDR",
        cmd::START_PMSR => "HWSIM_CMD_START_PMSR",
        cmd::ABORT_PMSR => "HWSIM_CMD_ABORT_PMSR",
        cmd::REPORT_PMSR => "HWSIM_CMD_REPORT_PMSR",
        _ => "HWSIM command",
    }
}

macro_rules! flag_type {
    (
        $(#[$meta:meta])*
        $name:ident: $t:ty {
            $( $(#[$fmeta:meta])* $flag:ident = $val:expr; )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
        pub struct $name(pub $t);

        impl $name {
            $( $(#[$fmeta])* pub const $flag: $name = $name($val); )*
            const NAMES: &'static [(&'static str, $t)] = &[$((stringify!($flag), $val)),*];

            /// No flag set.
            pub const fn empty() -> Self {
                $name(0)
            }
            /// The raw bits.
            pub const fn bits(self) -> $t {
                self.0
            }
            /// Flags from raw bits, unknown bits kept.
            pub const fn from_bits_retain(bits: $t) -> Self {
                $name(bits)
            }
            /// Are all flags of `other` set?
            pub const fn contains(self, other: Self) -> bool {
                self.0 & other.0 == other.0
            }
            /// Is any flag of `other` set?
            pub const fn intersects(self, other: Self) -> bool {
                self.0 & other.0 != 0
            }
            /// No flag set?
            pub const fn is_empty(self) -> bool {
                self.0 == 0
            }
            /// Sets the flags of `other`.
            pub fn insert(&mut self, other: Self) {
                self.0 |= other.0;
            }
            /// Clears the flags of `other`.
            pub fn remove(&mut self, other: Self) {
                self.0 &= !other.0;
            }
            /// `self` with the flags of `other` set or cleared.
            pub const fn with(self, other: Self, on: bool) -> Self {
                if on { $name(self.0 | other.0) } else { $name(self.0 & !other.0) }
            }
        }

        impl core::ops::BitOr for $name {
            type Output = Self;
            fn bitor(self, o: Self) -> Self {
                $name(self.0 | o.0)
            }
        }
        impl core::ops::BitOrAssign for $name {
            fn bitor_assign(&mut self, o: Self) {
                self.0 |= o.0;
            }
        }
        impl core::ops::BitAnd for $name {
            type Output = Self;
            fn bitand(self, o: Self) -> Self {
                $name(self.0 & o.0)
            }
        }
        impl core::ops::BitAndAssign for $name {
            fn bitand_assign(&mut self, o: Self) {
                self.0 &= o.0;
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}(", stringify!($name))?;
                let mut rest = self.0;
                let mut first = true;
                for &(n, v) in Self::NAMES {
                    if rest & v != 0 && self.0 & v == v {
                        write!(f, "{}{}", if first { "" } else { " | " }, n)?;
                        rest &= !v;
                        first = false;
                    }
                }
                if rest != 0 || first {
                    write!(f, "{}{:#x}", if first { "" } else { " | " }, rest)?;
                }
                write!(f, ")")
            }
        }
    };
}

flag_type! {
    /// `HWSIM_ATTR_FLAGS`: how a frame is to be sent and how it went.
    HwsimFlags: u32 {
        /// The stack wants a transmission status report (`HWSIM_TX_CTL_REQ_TX_STATUS`).
        REQ_TX_STATUS = 1 << 0;
        /// The frame is not acknowledged (group addressed or no-ack policy)
        /// (`HWSIM_TX_CTL_NO_ACK`).
        NO_ACK = 1 << 1;
        /// In a status report: the frame was acknowledged (`HWSIM_TX_STAT_ACK`).
        STAT_ACK = 1 << 2;
    }
}

flag_type! {
    /// Per-rate flags of `TX_INFO_FLAGS` (`MAC80211_HWSIM_TX_RC_*`).
    RateFlags: u16 {
        /// Protect with RTS/CTS.
        USE_RTS_CTS = 1 << 0;
        /// Protect with CTS-to-self.
        USE_CTS_PROTECT = 1 << 1;
        /// Short DSSS preamble.
        SHORT_PREAMBLE = 1 << 2;
        /// idx is an HT MCS.
        MCS = 1 << 3;
        /// HT greenfield.
        GREEN_FIELD = 1 << 4;
        /// 40 MHz.
        WIDTH_40 = 1 << 5;
        /// Duplicate data in both 20 MHz halves of a 40 MHz channel.
        DUP_DATA = 1 << 6;
        /// Short guard interval.
        SHORT_GI = 1 << 7;
        /// idx is a VHT MCS: `(nss - 1) << 4 | mcs`.
        VHT_MCS = 1 << 8;
        /// 80 MHz.
        WIDTH_80 = 1 << 9;
        /// 160 MHz (or 80+80).
        WIDTH_160 = 1 << 10;
    }
}

/// One entry of `TX_INFO`: a rate index and the number of attempts at it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TxRate {
    /// Rate index (legacy index in the band's table, HT MCS, or VHT `(nss-1)<<4 | mcs`,
    /// as the entry's [`RateFlags`] say); < 0 ends the series.
    pub idx: i8,
    /// Attempts at this rate.
    pub count: u8,
}

impl TxRate {
    /// The end-of-series marker `{-1, 0}`.
    pub const END: TxRate = TxRate { idx: -1, count: 0 };

    /// An entry.
    pub const fn new(idx: i8, count: u8) -> TxRate {
        TxRate { idx, count }
    }

    /// Does this entry end the series (idx < 0)?
    pub const fn is_end(&self) -> bool {
        self.idx < 0
    }
}

/// One entry of `TX_INFO_FLAGS`: a rate index and its flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TxRateFlags {
    /// Rate index (same as the `TX_INFO` entry at the same position).
    pub idx: i8,
    /// Flags of the rate.
    pub flags: RateFlags,
}

impl TxRateFlags {
    /// The end-of-series marker `{-1, 0}`.
    pub const END: TxRateFlags = TxRateFlags { idx: -1, flags: RateFlags(0) };

    /// An entry.
    pub const fn new(idx: i8, flags: RateFlags) -> TxRateFlags {
        TxRateFlags { idx, flags }
    }
}

/// The attempts of a `TX_INFO` series, up to (not including) the first idx < 0.
pub fn attempts(tx_info: &[TxRate; TX_MAX_RATES]) -> impl Iterator<Item = TxRate> + '_ {
    tx_info.iter().copied().take_while(|r| !r.is_end())
}

/// Encodes `TX_INFO` (8 bytes).
pub fn encode_tx_info(tx_info: &[TxRate; TX_MAX_RATES]) -> [u8; 2 * TX_MAX_RATES] {
    let mut out = [0u8; 2 * TX_MAX_RATES];
    for (o, r) in out.chunks_exact_mut(2).zip(tx_info) {
        o[0] = r.idx as u8;
        o[1] = r.count;
    }
    out
}

/// Decodes `TX_INFO` from an attribute (exactly 8 bytes).
pub fn decode_tx_info(a: &Attr<'_>) -> Result<[TxRate; TX_MAX_RATES]> {
    let b: [u8; 2 * TX_MAX_RATES] = a
        .payload()
        .try_into()
        .map_err(|_| a.error("expected 4 entries of {s8 idx, u8 count} (8 bytes)"))?;
    Ok(core::array::from_fn(|i| TxRate { idx: b[2 * i] as i8, count: b[2 * i + 1] }))
}

/// Encodes `TX_INFO_FLAGS` (12 bytes, packed 3-byte entries, u16 in host order).
pub fn encode_tx_info_flags(f: &[TxRateFlags; TX_MAX_RATES]) -> [u8; 3 * TX_MAX_RATES] {
    let mut out = [0u8; 3 * TX_MAX_RATES];
    for (o, r) in out.chunks_exact_mut(3).zip(f) {
        o[0] = r.idx as u8;
        o[1..3].copy_from_slice(&r.flags.0.to_ne_bytes());
    }
    out
}

/// Decodes `TX_INFO_FLAGS` from an attribute (exactly 12 bytes).
pub fn decode_tx_info_flags(a: &Attr<'_>) -> Result<[TxRateFlags; TX_MAX_RATES]> {
    let b: [u8; 3 * TX_MAX_RATES] = a
        .payload()
        .try_into()
        .map_err(|_| a.error("expected 4 packed entries of {s8 idx, u16 flags} (12 bytes)"))?;
    Ok(core::array::from_fn(|i| TxRateFlags {
        idx: b[3 * i] as i8,
        flags: RateFlags(u16::from_ne_bytes([b[3 * i + 1], b[3 * i + 2]])),
    }))
}

/// A frame the kernel hands to the medium (`HWSIM_CMD_FRAME`, kernel → daemon).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TxFrame<'a> {
    /// The transmitting radio (its second address, `42:…` by default).
    pub transmitter: [u8; 6],
    /// The 802.11 frame (no FCS).
    pub frame: &'a [u8],
    /// `REQ_TX_STATUS`, `NO_ACK`.
    pub flags: HwsimFlags,
    /// Channel frequency in MHz (always sent by current kernels).
    pub freq: Option<u32>,
    /// The rate series mac80211 asks for.
    pub tx_info: [TxRate; TX_MAX_RATES],
    /// Per-rate flags (always sent by current kernels).
    pub tx_info_flags: Option<[TxRateFlags; TX_MAX_RATES]>,
    /// Identifies the frame in the status report.
    pub cookie: u64,
    /// Attributes not decoded into the fields above, in order (forward compatibility).
    pub extra: Vec<RawAttr<'a>>,
}

impl<'a> TxFrame<'a> {
    /// Does the sender expect an ACK?
    pub fn wants_ack(&self) -> bool {
        !self.flags.contains(HwsimFlags::NO_ACK)
    }

    /// The attempts of the rate series (up to the first idx < 0), each with its
    /// per-rate flags (empty when `TX_INFO_FLAGS` is absent).
    pub fn attempts(&self) -> impl Iterator<Item = (TxRate, RateFlags)> + '_ {
        attempts(&self.tx_info).enumerate().map(move |(i, r)| {
            let f = self.tx_info_flags.map(|f| f[i].flags).unwrap_or_default();
            (r, f)
        })
    }

    /// The status report for this frame: same transmitter, cookie and flags, plus
    /// `STAT_ACK` when `acked`; `tx_info` lists the attempts actually made.
    pub fn status(&self, acked: bool, signal: i32, tx_info: [TxRate; TX_MAX_RATES]) -> TxInfoFrame {
        TxInfoFrame {
            transmitter: self.transmitter,
            flags: self.flags.with(HwsimFlags::STAT_ACK, acked),
            cookie: self.cookie,
            signal,
            tx_info,
        }
    }
}

/// A frame the medium delivers to a radio (`HWSIM_CMD_FRAME`, daemon → kernel).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RxFrame<'a> {
    /// The receiving radio (its second address).
    pub receiver: [u8; 6],
    /// The 802.11 frame (no FCS), at least 24 bytes.
    pub frame: &'a [u8],
    /// Legacy rate index in the band's table (see [`crate::rate`]).
    pub rx_rate: u32,
    /// Signal in dBm.
    pub signal: i32,
    /// Channel frequency in MHz; must be the receiver's channel.
    pub freq: u32,
}

/// A transmission status report (`HWSIM_CMD_TX_INFO_FRAME`, daemon → kernel).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TxInfoFrame {
    /// The transmitting radio, as in the frame.
    pub transmitter: [u8; 6],
    /// The frame's flags, plus `STAT_ACK` if it was acknowledged.
    pub flags: HwsimFlags,
    /// The frame's cookie.
    pub cookie: u64,
    /// Signal of the ACK in dBm.
    pub signal: i32,
    /// The attempts actually made.
    pub tx_info: [TxRate; TX_MAX_RATES],
}

/// A receive address added to or removed from a radio (`HWSIM_CMD_ADD_MAC_ADDR` /
/// `HWSIM_CMD_DEL_MAC_ADDR`, kernel → daemon).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MacAddrEvent {
    /// The radio (`ADDR_TRANSMITTER`: its second address, as in frames).
    pub radio: [u8; 6],
    /// The address added or removed (`ADDR_RECEIVER`: an interface address).
    pub addr: [u8; 6],
}

/// A radio's description (`NEW_RADIO`, `DEL_RADIO`, `GET_RADIO` requests, replies and
/// `config` multicasts). Every attribute is optional.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RadioInfo<'a> {
    /// `RADIO_ID`.
    pub radio_id: Option<u32>,
    /// `RADIO_NAME` (the wiphy name, e.g. `phy3`); a trailing NUL is removed.
    pub name: Option<&'a str>,
    /// `CHANNELS`: concurrent channels.
    pub channels: Option<u32>,
    /// `PERM_ADDR`.
    pub perm_addr: Option<[u8; 6]>,
    /// `REG_HINT_ALPHA2`.
    pub reg_alpha2: Option<[u8; 2]>,
    /// `REG_CUSTOM_REG`.
    pub reg_custom_reg: Option<u32>,
    /// `REG_STRICT_REG` flag.
    pub reg_strict: bool,
    /// `SUPPORT_P2P_DEVICE` flag.
    pub p2p_device: bool,
    /// `USE_CHANCTX` flag.
    pub use_chanctx: bool,
    /// `DESTROY_RADIO_ON_CLOSE` flag.
    pub destroy_on_close: bool,
    /// `NO_VIF` flag.
    pub no_vif: bool,
    /// Attributes not decoded into the fields above (forward compatibility).
    pub extra: Vec<RawAttr<'a>>,
}

/// A `MAC80211_HWSIM` message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HwsimMsg<'a> {
    /// `REGISTER`: the daemon becomes the medium.
    Register,
    /// `FRAME` from the kernel: a frame to carry (has `ADDR_TRANSMITTER`).
    Frame(TxFrame<'a>),
    /// `FRAME` to the kernel: a delivery (has `ADDR_RECEIVER`, no `ADDR_TRANSMITTER`).
    Delivery(RxFrame<'a>),
    /// `TX_INFO_FRAME`: a status report.
    TxInfo(TxInfoFrame),
    /// `NEW_RADIO`.
    NewRadio(RadioInfo<'a>),
    /// `DEL_RADIO`.
    DelRadio(RadioInfo<'a>),
    /// `GET_RADIO`.
    GetRadio(RadioInfo<'a>),
    /// `ADD_MAC_ADDR`.
    AddMacAddr(MacAddrEvent),
    /// `DEL_MAC_ADDR`.
    DelMacAddr(MacAddrEvent),
    /// Any other command (e.g. the peer-measurement ones), attributes not decoded.
    Unknown {
        /// The command.
        cmd: u8,
        /// The attribute bytes.
        attrs: &'a [u8],
    },
}

/// Known attributes of a message, by type (last one wins, as in the kernel), plus the
/// unknown ones in order.
struct Slots<'a> {
    known: [Option<Attr<'a>>; attr::MAX_KNOWN as usize + 1],
    extra: Vec<RawAttr<'a>>,
    msg: &'static str,
}

impl<'a> Slots<'a> {
    fn collect(m: &GenlMsg<'a>, keep_extra: bool) -> Result<Slots<'a>> {
        let mut s = Slots {
            known: [None; attr::MAX_KNOWN as usize + 1],
            extra: Vec::new(),
            msg: cmd_name(m.genl.cmd),
        };
        for a in m.attrs(attr_name) {
            let a = a?;
            match a.kind() {
                attr::PAD => {}
                k @ 1..=attr::MAX_KNOWN => s.known[k as usize] = Some(a),
                _ if keep_extra => s.extra.push(a.into()),
                _ => {}
            }
        }
        Ok(s)
    }

    fn take(&mut self, ty: u16) -> Option<Attr<'a>> {
        self.known[ty as usize].take()
    }

    fn has(&self, ty: u16) -> bool {
        self.known[ty as usize].is_some()
    }

    fn req(&mut self, ty: u16) -> Result<Attr<'a>> {
        self.take(ty).ok_or(Error::MissingAttribute {
            msg: self.msg,
            attr: ty,
            name: attr_name(ty),
        })
    }

    fn flag(&mut self, ty: u16) -> bool {
        self.take(ty).is_some()
    }

    /// Unknown attributes, then the known ones no field took (in type order).
    fn leftovers(mut self) -> Vec<RawAttr<'a>> {
        for a in self.known.iter_mut().filter_map(Option::take) {
            self.extra.push(a.into());
        }
        self.extra
    }
}

fn parse_radio<'a>(mut s: Slots<'a>) -> Result<RadioInfo<'a>> {
    let mut r = RadioInfo {
        radio_id: s.take(attr::RADIO_ID).map(|a| a.u32()).transpose()?,
        name: s.take(attr::RADIO_NAME).map(|a| a.str()).transpose()?,
        channels: s.take(attr::CHANNELS).map(|a| a.u32()).transpose()?,
        perm_addr: s.take(attr::PERM_ADDR).map(|a| a.mac()).transpose()?,
        reg_alpha2: None,
        reg_custom_reg: s.take(attr::REG_CUSTOM_REG).map(|a| a.u32()).transpose()?,
        reg_strict: s.flag(attr::REG_STRICT_REG),
        p2p_device: s.flag(attr::SUPPORT_P2P_DEVICE),
        use_chanctx: s.flag(attr::USE_CHANCTX),
        destroy_on_close: s.flag(attr::DESTROY_RADIO_ON_CLOSE),
        no_vif: s.flag(attr::NO_VIF),
        extra: Vec::new(),
    };
    if let Some(a) = s.take(attr::REG_HINT_ALPHA2) {
        // Two letters, optionally NUL-terminated.
        r.reg_alpha2 = match a.payload() {
            [x, y] | [x, y, 0] => Some([*x, *y]),
            _ => return Err(a.error("expected 2 letters")),
        };
    }
    r.extra = s.leftovers();
    Ok(r)
}

/// Where [`HwsimMsg::write_attrs`] puts attributes: a writer, or a byte counter.
trait Sink {
    fn put(&mut self, ty: u16, payload: &[u8]) -> Result<()>;
}

impl Sink for AttrWriter<'_> {
    fn put(&mut self, ty: u16, payload: &[u8]) -> Result<()> {
        AttrWriter::put(self, ty, payload)
    }
}

struct Count(usize);

impl Sink for Count {
    fn put(&mut self, _ty: u16, payload: &[u8]) -> Result<()> {
        self.0 += attr_space(payload.len());
        Ok(())
    }
}

impl<'a> HwsimMsg<'a> {
    /// The command number.
    pub fn cmd(&self) -> u8 {
        match self {
            HwsimMsg::Register => cmd::REGISTER,
            HwsimMsg::Frame(_) | HwsimMsg::Delivery(_) => cmd::FRAME,
            HwsimMsg::TxInfo(_) => cmd::TX_INFO_FRAME,
            HwsimMsg::NewRadio(_) => cmd::NEW_RADIO,
            HwsimMsg::DelRadio(_) => cmd::DEL_RADIO,
            HwsimMsg::GetRadio(_) => cmd::GET_RADIO,
            HwsimMsg::AddMacAddr(_) => cmd::ADD_MAC_ADDR,
            HwsimMsg::DelMacAddr(_) => cmd::DEL_MAC_ADDR,
            HwsimMsg::Unknown { cmd, .. } => *cmd,
        }
    }

    /// Parses a netlink message of the hwsim family (the caller checks that
    /// `packet.header().ty` is the family id). The genl version is not checked.
    pub fn parse(packet: &NlPacket<'a>) -> Result<HwsimMsg<'a>> {
        Self::parse_genl(&GenlMsg::parse(packet)?)
    }

    /// Parses the generic netlink part of a hwsim message.
    ///
    /// Unknown attributes are skipped (or kept in `extra` for frames from the kernel
    /// and radio descriptions); a known attribute of the wrong size is an
    /// [`Error::Attribute`], a required one missing an [`Error::MissingAttribute`].
    pub fn parse_genl(m: &GenlMsg<'a>) -> Result<HwsimMsg<'a>> {
        let c = m.genl.cmd;
        Ok(match c {
            cmd::REGISTER => HwsimMsg::Register,
            cmd::FRAME => {
                let mut s = Slots::collect(m, true)?;
                if s.has(attr::ADDR_TRANSMITTER) {
                    HwsimMsg::Frame(TxFrame {
                        transmitter: s.req(attr::ADDR_TRANSMITTER)?.mac()?,
                        frame: s.req(attr::FRAME)?.payload(),
                        flags: HwsimFlags(s.req(attr::FLAGS)?.u32()?),
                        freq: s.take(attr::FREQ).map(|a| a.u32()).transpose()?,
                        tx_info: decode_tx_info(&s.req(attr::TX_INFO)?)?,
                        tx_info_flags: s
                            .take(attr::TX_INFO_FLAGS)
                            .map(|a| decode_tx_info_flags(&a))
                            .transpose()?,
                        cookie: s.req(attr::COOKIE)?.u64()?,
                        extra: s.leftovers(),
                    })
                } else {
                    HwsimMsg::Delivery(RxFrame {
                        receiver: s.req(attr::ADDR_RECEIVER)?.mac()?,
                        frame: s.req(attr::FRAME)?.payload(),
                        rx_rate: s.req(attr::RX_RATE)?.u32()?,
                        signal: s.req(attr::SIGNAL)?.i32()?,
                        freq: s.req(attr::FREQ)?.u32()?,
                    })
                }
            }
            cmd::TX_INFO_FRAME => {
                let mut s = Slots::collect(m, false)?;
                HwsimMsg::TxInfo(TxInfoFrame {
                    transmitter: s.req(attr::ADDR_TRANSMITTER)?.mac()?,
                    flags: HwsimFlags(s.req(attr::FLAGS)?.u32()?),
                    cookie: s.req(attr::COOKIE)?.u64()?,
                    signal: s.req(attr::SIGNAL)?.i32()?,
                    tx_info: decode_tx_info(&s.req(attr::TX_INFO)?)?,
                })
            }
            cmd::NEW_RADIO => HwsimMsg::NewRadio(parse_radio(Slots::collect(m, true)?)?),
            cmd::DEL_RADIO => HwsimMsg::DelRadio(parse_radio(Slots::collect(m, true)?)?),
            cmd::GET_RADIO => HwsimMsg::GetRadio(parse_radio(Slots::collect(m, true)?)?),
            cmd::ADD_MAC_ADDR | cmd::DEL_MAC_ADDR => {
                let mut s = Slots::collect(m, false)?;
                let ev = MacAddrEvent {
                    radio: s.req(attr::ADDR_TRANSMITTER)?.mac()?,
                    addr: s.req(attr::ADDR_RECEIVER)?.mac()?,
                };
                if c == cmd::ADD_MAC_ADDR {
                    HwsimMsg::AddMacAddr(ev)
                } else {
                    HwsimMsg::DelMacAddr(ev)
                }
            }
            cmd => HwsimMsg::Unknown { cmd, attrs: m.attrs },
        })
    }

    fn write_attrs<S: Sink>(&self, s: &mut S) -> Result<()> {
        match self {
            HwsimMsg::Register => {}
            HwsimMsg::Frame(f) => {
                s.put(attr::ADDR_TRANSMITTER, &f.transmitter)?;
                s.put(attr::FRAME, f.frame)?;
                s.put(attr::FLAGS, &f.flags.0.to_ne_bytes())?;
                if let Some(freq) = f.freq {
                    s.put(attr::FREQ, &freq.to_ne_bytes())?;
                }
                s.put(attr::TX_INFO, &encode_tx_info(&f.tx_info))?;
                if let Some(fl) = &f.tx_info_flags {
                    s.put(attr::TX_INFO_FLAGS, &encode_tx_info_flags(fl))?;
                }
                s.put(attr::COOKIE, &f.cookie.to_ne_bytes())?;
                for x in &f.extra {
                    s.put(x.raw_type, x.payload)?;
                }
            }
            HwsimMsg::Delivery(d) => {
                if d.frame.len() < MIN_RX_FRAME_LEN {
                    return Err(Error::InvalidInput {
                        what: "HWSIM_ATTR_FRAME of a delivery",
                        reason: "shorter than 24 bytes (the kernel rejects it with EINVAL)",
                    });
                }
                s.put(attr::ADDR_RECEIVER, &d.receiver)?;
                s.put(attr::FRAME, d.frame)?;
                s.put(attr::RX_RATE, &d.rx_rate.to_ne_bytes())?;
                s.put(attr::SIGNAL, &d.signal.to_ne_bytes())?;
                s.put(attr::FREQ, &d.freq.to_ne_bytes())?;
            }
            HwsimMsg::TxInfo(t) => {
                s.put(attr::ADDR_TRANSMITTER, &t.transmitter)?;
                s.put(attr::FLAGS, &t.flags.0.to_ne_bytes())?;
                s.put(attr::COOKIE, &t.cookie.to_ne_bytes())?;
                s.put(attr::SIGNAL, &t.signal.to_ne_bytes())?;
                s.put(attr::TX_INFO, &encode_tx_info(&t.tx_info))?;
            }
            HwsimMsg::NewRadio(r) | HwsimMsg::DelRadio(r) | HwsimMsg::GetRadio(r) => {
                if let Some(id) = r.radio_id {
                    s.put(attr::RADIO_ID, &id.to_ne_bytes())?;
                }
                if let Some(a) = &r.reg_alpha2 {
                    s.put(attr::REG_HINT_ALPHA2, a)?;
                }
                if let Some(c) = r.reg_custom_reg {
                    s.put(attr::REG_CUSTOM_REG, &c.to_ne_bytes())?;
                }
                for (on, ty) in [
                    (r.reg_strict, attr::REG_STRICT_REG),
                    (r.destroy_on_close, attr::DESTROY_RADIO_ON_CLOSE),
                    (r.p2p_device, attr::SUPPORT_P2P_DEVICE),
                    (r.use_chanctx, attr::USE_CHANCTX),
                    (r.no_vif, attr::NO_VIF),
                ] {
                    if on {
                        s.put(ty, &[])?;
                    }
                }
                if let Some(c) = r.channels {
                    s.put(attr::CHANNELS, &c.to_ne_bytes())?;
                }
                if let Some(n) = r.name {
                    if n.contains('\0') {
                        return Err(Error::InvalidInput {
                            what: "HWSIM_ATTR_RADIO_NAME",
                            reason: "contains a NUL byte",
                        });
                    }
                    // Written without a NUL, as the kernel does.
                    s.put(attr::RADIO_NAME, n.as_bytes())?;
                }
                if let Some(p) = &r.perm_addr {
                    s.put(attr::PERM_ADDR, p)?;
                }
                for x in &r.extra {
                    s.put(x.raw_type, x.payload)?;
                }
            }
            HwsimMsg::AddMacAddr(e) | HwsimMsg::DelMacAddr(e) => {
                s.put(attr::ADDR_TRANSMITTER, &e.radio)?;
                s.put(attr::ADDR_RECEIVER, &e.addr)?;
            }
            HwsimMsg::Unknown { .. } => {}
        }
        Ok(())
    }

    fn count_attrs(&self) -> Result<usize> {
        if let HwsimMsg::Unknown { attrs, .. } = self {
            return Ok(attrs.len());
        }
        let mut c = Count(0);
        self.write_attrs(&mut c)?;
        Ok(c.0)
    }

    /// Bytes of attributes [`HwsimMsg::emit`] writes (0 if the message cannot be
    /// emitted: `emit` then reports why).
    pub fn attrs_len(&self) -> usize {
        self.count_attrs().unwrap_or(0)
    }

    /// Bytes [`HwsimMsg::emit`] writes: netlink and genl headers plus attributes.
    pub fn buffer_len(&self) -> usize {
        NLMSG_HDRLEN + GENL_HDRLEN + self.attrs_len()
    }

    /// Writes the whole netlink message into `buf`: `hdr` gives type (the family id),
    /// flags, seq and pid (its `len` is computed); the genl header carries
    /// [`HwsimMsg::cmd`] and version [`VERSION`]. Returns the length written.
    ///
    /// Fails with [`Error::BufferTooSmall`] if `buf` is shorter than
    /// [`HwsimMsg::buffer_len`], and with [`Error::InvalidInput`] for a value the
    /// kernel would reject or the wire cannot carry (a delivery shorter than 24 bytes,
    /// a radio name with a NUL, a payload over 65531 bytes). `Unknown` messages are
    /// written with their attribute bytes as they are.
    pub fn emit(&self, hdr: &NlHeader, buf: &mut [u8]) -> Result<usize> {
        let len = NLMSG_HDRLEN + GENL_HDRLEN + self.count_attrs()?;
        room(cmd_name(self.cmd()), len, buf.len())?;
        let genl = GenlHeader { cmd: self.cmd(), version: VERSION };
        emit_message(hdr, genl, &mut buf[..len], |w| match self {
            HwsimMsg::Unknown { attrs, .. } => w.put_bytes(attrs),
            m => m.write_attrs(w),
        })
    }

    /// [`HwsimMsg::emit`] into a new vector.
    pub fn to_vec(&self, hdr: &NlHeader) -> Result<Vec<u8>> {
        let mut v = vec![0u8; self.buffer_len()];
        let n = self.emit(hdr, &mut v)?;
        v.truncate(n);
        Ok(v)
    }
}
