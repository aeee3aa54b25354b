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

mod codec;
mod messages;
mod rates;

pub use messages::{HwsimMsg, MacAddrEvent, RadioInfo, RxFrame, TxFrame, TxInfoFrame};
pub use rates::{
    attempts, decode_tx_info, decode_tx_info_flags, encode_tx_info, encode_tx_info_flags,
    HwsimFlags, RateFlags, TxRate, TxRateFlags,
};

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
