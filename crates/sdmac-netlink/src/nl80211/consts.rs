//! nl80211 numbers (`linux/nl80211.h`, stable UAPI): commands, attributes and the
//! values some attributes take.

/// Command numbers (`NL80211_CMD_*`).
pub mod cmd {
    /// Get one wiphy or dump all (`GET_WIPHY`).
    pub const GET_WIPHY: u8 = 1;
    /// Set wiphy parameters: channel, TX power, coverage class, retry limits.
    pub const SET_WIPHY: u8 = 2;
    /// A wiphy's description (reply to `GET_WIPHY`).
    pub const NEW_WIPHY: u8 = 3;
    /// A wiphy was removed (notification).
    pub const DEL_WIPHY: u8 = 4;
    /// Get one interface or dump all.
    pub const GET_INTERFACE: u8 = 5;
    /// Change an interface (type, monitor flags).
    pub const SET_INTERFACE: u8 = 6;
    /// Create an interface; also the command of interface descriptions (replies).
    pub const NEW_INTERFACE: u8 = 7;
    /// Delete an interface.
    pub const DEL_INTERFACE: u8 = 8;
    /// Restrict the TX rates of an interface.
    pub const SET_TX_BITRATE_MASK: u8 = 57;
}

/// Attribute types (`NL80211_ATTR_*`).
pub mod attr {
    /// Wiphy index (u32).
    pub const WIPHY: u16 = 1;
    /// Wiphy name (string).
    pub const WIPHY_NAME: u16 = 2;
    /// Network interface index (u32).
    pub const IFINDEX: u16 = 3;
    /// Network interface name (string).
    pub const IFNAME: u16 = 4;
    /// Interface type (u32, [`super::iftype`]).
    pub const IFTYPE: u16 = 5;
    /// MAC address (6 bytes).
    pub const MAC: u16 = 6;
    /// Supported interface types (nested flags, type = iftype).
    pub const SUPPORTED_IFTYPES: u16 = 32;
    /// Bands (nested, type = band).
    pub const WIPHY_BANDS: u16 = 22;
    /// Monitor flags (nested flags, type = [`super::mntr`]).
    pub const MNTR_FLAGS: u16 = 23;
    /// Channel frequency in MHz (u32).
    pub const WIPHY_FREQ: u16 = 38;
    /// Legacy channel type (u32, [`super::chan_type`]).
    pub const WIPHY_CHANNEL_TYPE: u16 = 39;
    /// Configuration generation (u32).
    pub const GENERATION: u16 = 46;
    /// Supported commands (nested u32 list).
    pub const SUPPORTED_COMMANDS: u16 = 50;
    /// Short retry limit (u8).
    pub const WIPHY_RETRY_SHORT: u16 = 61;
    /// Long retry limit (u8).
    pub const WIPHY_RETRY_LONG: u16 = 62;
    /// Fragmentation threshold (u32).
    pub const WIPHY_FRAG_THRESHOLD: u16 = 63;
    /// RTS threshold (u32).
    pub const WIPHY_RTS_THRESHOLD: u16 = 64;
    /// Coverage class (u8).
    pub const WIPHY_COVERAGE_CLASS: u16 = 89;
    /// TX rate masks per band (nested, type = band).
    pub const TX_RATES: u16 = 90;
    /// TX power setting (u32, [`super::tx_power`]).
    pub const WIPHY_TX_POWER_SETTING: u16 = 97;
    /// TX power level in mBm (u32 holding an s32).
    pub const WIPHY_TX_POWER_LEVEL: u16 = 98;
    /// Interface types created in software only (nested flags).
    pub const SOFTWARE_IFTYPES: u16 = 121;
    /// Feature flags (u32, [`super::feature`]).
    pub const FEATURE_FLAGS: u16 = 143;
    /// Wireless device id (u64).
    pub const WDEV: u16 = 153;
    /// Channel width (u32, [`super::chan_width`]).
    pub const CHANNEL_WIDTH: u16 = 159;
    /// Centre frequency of the first segment in MHz (u32).
    pub const CENTER_FREQ1: u16 = 160;
    /// Centre frequency of the second segment in MHz (u32, 80+80 only).
    pub const CENTER_FREQ2: u16 = 161;
    /// Ask for a split wiphy dump (flag).
    pub const SPLIT_WIPHY_DUMP: u16 = 174;
    /// The interface belongs to the creating socket and goes when it closes (flag).
    pub const SOCKET_OWNER: u16 = 204;
    /// Extended features (byte array, bit n = [`super::ext_feature`] n).
    pub const EXT_FEATURES: u16 = 217;
    /// Padding before 64-bit attributes.
    pub const PAD: u16 = 229;
}

/// Attributes inside a band (`NL80211_BAND_ATTR_*`).
pub mod band_attr {
    /// Channels (nested list of nested frequency attributes).
    pub const FREQS: u16 = 1;
    /// Bitrates (nested list of nested bitrate attributes).
    pub const RATES: u16 = 2;
    /// HT MCS set (16 bytes).
    pub const HT_MCS_SET: u16 = 3;
    /// HT capabilities (u16).
    pub const HT_CAPA: u16 = 4;
    /// VHT MCS set (8 bytes).
    pub const VHT_MCS_SET: u16 = 7;
    /// VHT capabilities (u32).
    pub const VHT_CAPA: u16 = 8;
}

/// Attributes of a channel (`NL80211_FREQUENCY_ATTR_*`).
pub mod freq_attr {
    /// Frequency in MHz (u32).
    pub const FREQ: u16 = 1;
    /// Disabled (flag).
    pub const DISABLED: u16 = 2;
    /// No initiating radiation (flag).
    pub const NO_IR: u16 = 3;
    /// Radar detection required (flag).
    pub const RADAR: u16 = 5;
    /// Largest TX power in mBm (u32).
    pub const MAX_TX_POWER: u16 = 6;
}

/// Attributes of a bitrate (`NL80211_BITRATE_ATTR_*`).
pub mod bitrate_attr {
    /// Rate in 100 kb/s (u32).
    pub const RATE: u16 = 1;
    /// Short preamble supported on 2.4 GHz (flag).
    pub const SHORT_PREAMBLE_2GHZ: u16 = 2;
}

/// Attributes of a band's TX rate mask (`NL80211_TXRATE_*`).
pub mod txrate {
    /// Legacy rates in 500 kb/s (u8 array).
    pub const LEGACY: u16 = 1;
    /// HT MCS indices (u8 array).
    pub const HT: u16 = 2;
    /// VHT MCS bitmaps per stream count (8 × u16).
    pub const VHT: u16 = 3;
    /// Guard interval (u8).
    pub const GI: u16 = 4;
}

/// Interface types (`NL80211_IFTYPE_*`).
pub mod iftype {
    /// Unspecified.
    pub const UNSPECIFIED: u32 = 0;
    /// IBSS.
    pub const ADHOC: u32 = 1;
    /// Station (managed).
    pub const STATION: u32 = 2;
    /// Access point.
    pub const AP: u32 = 3;
    /// AP VLAN.
    pub const AP_VLAN: u32 = 4;
    /// WDS.
    pub const WDS: u32 = 5;
    /// Monitor.
    pub const MONITOR: u32 = 6;
    /// Mesh point.
    pub const MESH_POINT: u32 = 7;
    /// P2P client.
    pub const P2P_CLIENT: u32 = 8;
    /// P2P group owner.
    pub const P2P_GO: u32 = 9;
    /// P2P device.
    pub const P2P_DEVICE: u32 = 10;
    /// Outside the context of a BSS.
    pub const OCB: u32 = 11;
    /// NAN.
    pub const NAN: u32 = 12;

    /// The name `iw` prints for an interface type.
    pub fn name(t: u32) -> &'static str {
        match t {
            UNSPECIFIED => "unspecified",
            ADHOC => "IBSS",
            STATION => "managed",
            AP => "AP",
            AP_VLAN => "AP/VLAN",
            WDS => "WDS",
            MONITOR => "monitor",
            MESH_POINT => "mesh point",
            P2P_CLIENT => "P2P-client",
            P2P_GO => "P2P-GO",
            P2P_DEVICE => "P2P-device",
            OCB => "outside context of a BSS",
            NAN => "NAN",
            _ => "unknown",
        }
    }
}

/// Monitor flags (`NL80211_MNTR_FLAG_*`): the bit numbers of [`super::MntrFlags`].
pub mod mntr {
    /// Pass frames with a bad FCS.
    pub const FCSFAIL: u16 = 1;
    /// Pass frames with a bad PLCP.
    pub const PLCPFAIL: u16 = 2;
    /// Pass control frames.
    pub const CONTROL: u16 = 3;
    /// Disable the BSSID filter.
    pub const OTHER_BSS: u16 = 4;
    /// Cooked frames (deprecated).
    pub const COOK_FRAMES: u16 = 5;
    /// Active monitor: acknowledges unicast frames to its address.
    pub const ACTIVE: u16 = 6;
}

/// Legacy channel types (`NL80211_CHAN_*`).
pub mod chan_type {
    /// 20 MHz, no HT.
    pub const NO_HT: u32 = 0;
    /// HT20.
    pub const HT20: u32 = 1;
    /// HT40, secondary channel below.
    pub const HT40MINUS: u32 = 2;
    /// HT40, secondary channel above.
    pub const HT40PLUS: u32 = 3;
}

/// Channel widths (`NL80211_CHAN_WIDTH_*`).
pub mod chan_width {
    /// 20 MHz, no HT.
    pub const W20_NOHT: u32 = 0;
    /// 20 MHz HT.
    pub const W20: u32 = 1;
    /// 40 MHz.
    pub const W40: u32 = 2;
    /// 80 MHz.
    pub const W80: u32 = 3;
    /// 80+80 MHz.
    pub const W80P80: u32 = 4;
    /// 160 MHz.
    pub const W160: u32 = 5;
    /// 5 MHz OFDM.
    pub const W5: u32 = 6;
    /// 10 MHz OFDM.
    pub const W10: u32 = 7;
    /// 320 MHz.
    pub const W320: u32 = 13;

    /// Width in MHz (0 for an unknown value).
    pub fn mhz(w: u32) -> u32 {
        match w {
            W20_NOHT | W20 => 20,
            W40 => 40,
            W80 | W80P80 => 80,
            W160 => 160,
            W5 => 5,
            W10 => 10,
            W320 => 320,
            8 => 1,
            9 => 2,
            10 => 4,
            11 => 8,
            12 => 16,
            _ => 0,
        }
    }
}

/// TX power settings (`NL80211_TX_POWER_*`).
pub mod tx_power {
    /// Let the driver choose.
    pub const AUTOMATIC: u32 = 0;
    /// Limit to the given level.
    pub const LIMITED: u32 = 1;
    /// Fix at the given level.
    pub const FIXED: u32 = 2;
}

/// Bands (`NL80211_BAND_*`): the type of a band's attribute.
pub mod band {
    /// 2.4 GHz.
    pub const GHZ2: u16 = 0;
    /// 5 GHz.
    pub const GHZ5: u16 = 1;
    /// 60 GHz.
    pub const GHZ60: u16 = 2;
    /// 6 GHz.
    pub const GHZ6: u16 = 3;
    /// Sub-1 GHz.
    pub const S1GHZ: u16 = 4;
}

/// Feature flags (`NL80211_FEATURE_*`, bits of `FEATURE_FLAGS`).
pub mod feature {
    /// TX power can be set per interface.
    pub const VIF_TXPOWER: u32 = 1 << 9;
    /// Monitor interfaces can be active (acknowledge frames to their address).
    pub const ACTIVE_MONITOR: u32 = 1 << 17;
    /// A MAC address can be given when an interface is created.
    pub const MAC_ON_CREATE: u32 = 1 << 27;
}

/// Extended features (`NL80211_EXT_FEATURE_*`, bit numbers of `EXT_FEATURES`).
pub mod ext_feature {
    /// The driver reports the ACK signal of transmitted frames.
    pub const ACK_SIGNAL_SUPPORT: u32 = 27;
}

/// Names an `NL80211_ATTR_*` type (the ones this crate decodes).
pub fn attr_name(ty: u16) -> &'static str {
    match ty {
        attr::WIPHY => "NL80211_ATTR_WIPHY",
        attr::WIPHY_NAME => "NL80211_ATTR_WIPHY_NAME",
        attr::IFINDEX => "NL80211_ATTR_IFINDEX",
        attr::IFNAME => "NL80211_ATTR_IFNAME",
        attr::IFTYPE => "NL80211_ATTR_IFTYPE",
        attr::MAC => "NL80211_ATTR_MAC",
        attr::SUPPORTED_IFTYPES => "NL80211_ATTR_SUPPORTED_IFTYPES",
        attr::WIPHY_BANDS => "NL80211_ATTR_WIPHY_BANDS",
        attr::MNTR_FLAGS => "NL80211_ATTR_MNTR_FLAGS",
        attr::WIPHY_FREQ => "NL80211_ATTR_WIPHY_FREQ",
        attr::WIPHY_CHANNEL_TYPE => "NL80211_ATTR_WIPHY_CHANNEL_TYPE",
        attr::GENERATION => "NL80211_ATTR_GENERATION",
        attr::SUPPORTED_COMMANDS => "NL80211_ATTR_SUPPORTED_COMMANDS",
        attr::WIPHY_RETRY_SHORT => "NL80211_ATTR_WIPHY_RETRY_SHORT",
        attr::WIPHY_RETRY_LONG => "NL80211_ATTR_WIPHY_RETRY_LONG",
        attr::WIPHY_FRAG_THRESHOLD => "NL80211_ATTR_WIPHY_FRAG_THRESHOLD",
        attr::WIPHY_RTS_THRESHOLD => "NL80211_ATTR_WIPHY_RTS_THRESHOLD",
        attr::WIPHY_COVERAGE_CLASS => "NL80211_ATTR_WIPHY_COVERAGE_CLASS",
        attr::TX_RATES => "NL80211_ATTR_TX_RATES",
        attr::WIPHY_TX_POWER_SETTING => "NL80211_ATTR_WIPHY_TX_POWER_SETTING",
        attr::WIPHY_TX_POWER_LEVEL => "NL80211_ATTR_WIPHY_TX_POWER_LEVEL",
        attr::SOFTWARE_IFTYPES => "NL80211_ATTR_SOFTWARE_IFTYPES",
        attr::FEATURE_FLAGS => "NL80211_ATTR_FEATURE_FLAGS",
        attr::WDEV => "NL80211_ATTR_WDEV",
        attr::CHANNEL_WIDTH => "NL80211_ATTR_CHANNEL_WIDTH",
        attr::CENTER_FREQ1 => "NL80211_ATTR_CENTER_FREQ1",
        attr::CENTER_FREQ2 => "NL80211_ATTR_CENTER_FREQ2",
        attr::SPLIT_WIPHY_DUMP => "NL80211_ATTR_SPLIT_WIPHY_DUMP",
        attr::SOCKET_OWNER => "NL80211_ATTR_SOCKET_OWNER",
        attr::EXT_FEATURES => "NL80211_ATTR_EXT_FEATURES",
        attr::PAD => "NL80211_ATTR_PAD",
        _ => "NL80211 attribute",
    }
}

/// Names an `NL80211_CMD_*` command.
pub fn cmd_name(c: u8) -> &'static str {
    match c {
        cmd::GET_WIPHY => "NL80211_CMD_GET_WIPHY",
        cmd::SET_WIPHY => "NL80211_CMD_SET_WIPHY",
        cmd::NEW_WIPHY => "NL80211_CMD_NEW_WIPHY",
        cmd::DEL_WIPHY => "NL80211_CMD_DEL_WIPHY",
        cmd::GET_INTERFACE => "NL80211_CMD_GET_INTERFACE",
        cmd::SET_INTERFACE => "NL80211_CMD_SET_INTERFACE",
        cmd::NEW_INTERFACE => "NL80211_CMD_NEW_INTERFACE",
        cmd::DEL_INTERFACE => "NL80211_CMD_DEL_INTERFACE",
        cmd::SET_TX_BITRATE_MASK => "NL80211_CMD_SET_TX_BITRATE_MASK",
        _ => "NL80211 command",
    }
}

pub(crate) fn band_name(_: u16) -> &'static str {
    "NL80211_ATTR_WIPHY_BANDS entry"
}

pub(crate) fn band_attr_name(ty: u16) -> &'static str {
    match ty {
        band_attr::FREQS => "NL80211_BAND_ATTR_FREQS",
        band_attr::RATES => "NL80211_BAND_ATTR_RATES",
        band_attr::HT_MCS_SET => "NL80211_BAND_ATTR_HT_MCS_SET",
        band_attr::HT_CAPA => "NL80211_BAND_ATTR_HT_CAPA",
        band_attr::VHT_MCS_SET => "NL80211_BAND_ATTR_VHT_MCS_SET",
        band_attr::VHT_CAPA => "NL80211_BAND_ATTR_VHT_CAPA",
        _ => "NL80211_BAND_ATTR attribute",
    }
}

pub(crate) fn list_entry_name(_: u16) -> &'static str {
    "nl80211 list entry"
}

pub(crate) fn freq_attr_name(ty: u16) -> &'static str {
    match ty {
        freq_attr::FREQ => "NL80211_FREQUENCY_ATTR_FREQ",
        freq_attr::MAX_TX_POWER => "NL80211_FREQUENCY_ATTR_MAX_TX_POWER",
        _ => "NL80211_FREQUENCY_ATTR attribute",
    }
}

pub(crate) fn bitrate_attr_name(ty: u16) -> &'static str {
    match ty {
        bitrate_attr::RATE => "NL80211_BITRATE_ATTR_RATE",
        _ => "NL80211_BITRATE_ATTR attribute",
    }
}

pub(crate) fn txrate_name(ty: u16) -> &'static str {
    match ty {
        txrate::LEGACY => "NL80211_TXRATE_LEGACY",
        txrate::HT => "NL80211_TXRATE_HT",
        txrate::VHT => "NL80211_TXRATE_VHT",
        txrate::GI => "NL80211_TXRATE_GI",
        _ => "NL80211_TXRATE attribute",
    }
}

pub(crate) fn flag_name(_: u16) -> &'static str {
    "nl80211 flag"
}
