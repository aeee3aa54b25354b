//! The fields that carry more than one number: channel, MCS, A-MPDU status, VHT and
//! timestamp.

/// Channel field: centre frequency and flags (see [`channel_flags`](super::channel_flags)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Channel {
    /// Centre frequency, MHz.
    pub freq_mhz: u16,
    /// Flags.
    pub flags: u16,
}

impl Channel {
    /// A channel from frequency and flags.
    pub const fn new(freq_mhz: u16, flags: u16) -> Self {
        Channel { freq_mhz, flags }
    }
}

/// MCS field bandwidth.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum McsBandwidth {
    /// 20 MHz.
    Bw20,
    /// 40 MHz.
    Bw40,
    /// 20 MHz in the lower half of a 40 MHz channel.
    Bw20Lower,
    /// 20 MHz in the upper half of a 40 MHz channel.
    Bw20Upper,
}

/// MCS field (bit 19): which subfields are known, their values and the MCS index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Mcs {
    /// Known subfields (`Mcs::KNOWN_*`).
    pub known: u8,
    /// Flags (`Mcs::FLAG_*`, bandwidth in bits 0-1).
    pub flags: u8,
    /// MCS index.
    pub index: u8,
}

impl Mcs {
    /// Known: bandwidth.
    pub const KNOWN_BW: u8 = 0x01;
    /// Known: MCS index.
    pub const KNOWN_MCS: u8 = 0x02;
    /// Known: guard interval.
    pub const KNOWN_GI: u8 = 0x04;
    /// Known: HT format.
    pub const KNOWN_FMT: u8 = 0x08;
    /// Known: FEC type.
    pub const KNOWN_FEC: u8 = 0x10;
    /// Known: STBC.
    pub const KNOWN_STBC: u8 = 0x20;
    /// Known: Ness (number of extension spatial streams), bit 0.
    pub const KNOWN_NESS: u8 = 0x40;
    /// Known: Ness bit 1.
    pub const KNOWN_NESS_BIT1: u8 = 0x80;
    /// Flags: bandwidth mask (0 = 20, 1 = 40, 2 = 20L, 3 = 20U).
    pub const FLAG_BW_MASK: u8 = 0x03;
    /// Flags: short guard interval.
    pub const FLAG_SHORT_GI: u8 = 0x04;
    /// Flags: greenfield format.
    pub const FLAG_GREENFIELD: u8 = 0x08;
    /// Flags: LDPC FEC.
    pub const FLAG_LDPC: u8 = 0x10;

    /// An MCS field for a plain HT transmission: bandwidth (20 or 40 MHz), MCS index
    /// and guard interval as given; HT-mixed format, BCC, no STBC and no extension
    /// spatial streams; all of these marked known (`known = 0x7f`).
    pub const fn new(index: u8, bw40: bool, short_gi: bool) -> Self {
        Mcs {
            known: Self::KNOWN_BW
                | Self::KNOWN_MCS
                | Self::KNOWN_GI
                | Self::KNOWN_FMT
                | Self::KNOWN_FEC
                | Self::KNOWN_STBC
                | Self::KNOWN_NESS,
            flags: (bw40 as u8) | if short_gi { Self::FLAG_SHORT_GI } else { 0 },
            index,
        }
    }

    /// The bandwidth, if known.
    pub const fn bandwidth(&self) -> Option<McsBandwidth> {
        if self.known & Self::KNOWN_BW == 0 {
            return None;
        }
        Some(match self.flags & Self::FLAG_BW_MASK {
            0 => McsBandwidth::Bw20,
            1 => McsBandwidth::Bw40,
            2 => McsBandwidth::Bw20Lower,
            _ => McsBandwidth::Bw20Upper,
        })
    }

    /// Whether the short guard interval is used, if known.
    pub const fn short_gi(&self) -> Option<bool> {
        if self.known & Self::KNOWN_GI == 0 {
            None
        } else {
            Some(self.flags & Self::FLAG_SHORT_GI != 0)
        }
    }
}

/// A-MPDU status field (bit 20).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct AmpduStatus {
    /// Reference number shared by the subframes of one A-MPDU.
    pub reference: u32,
    /// Flags.
    pub flags: u16,
    /// Delimiter CRC value.
    pub delimiter_crc: u8,
    /// Reserved.
    pub reserved: u8,
}

/// VHT field (bit 21).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Vht {
    /// Known subfields.
    pub known: u16,
    /// Flags.
    pub flags: u8,
    /// Bandwidth code.
    pub bandwidth: u8,
    /// MCS (high nibble) and NSS (low nibble) per user.
    pub mcs_nss: [u8; 4],
    /// Coding (LDPC bit per user).
    pub coding: u8,
    /// Group ID.
    pub group_id: u8,
    /// Partial AID.
    pub partial_aid: u16,
}

/// Timestamp field (bit 22).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Timestamp {
    /// Timestamp value.
    pub timestamp: u64,
    /// Accuracy.
    pub accuracy: u16,
    /// Unit (low nibble) and sampling position (high nibble).
    pub unit_position: u8,
    /// Flags.
    pub flags: u8,
}
