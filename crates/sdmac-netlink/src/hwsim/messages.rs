//! The family's messages as values: what the kernel hands the medium, what the
//! medium delivers and reports, and radio and address events.

use super::{attempts, HwsimFlags, RateFlags, TxRate, TxRateFlags, TX_MAX_RATES};
use crate::attr::RawAttr;

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
