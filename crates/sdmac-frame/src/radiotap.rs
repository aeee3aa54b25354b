//! Radiotap: the header that precedes 802.11 frames in captures and injection
//! (<https://www.radiotap.org>).
//!
//! ```text
//!  0        1       2          4               8 (or 12, 16, ...)
//! +--------+-------+----------+---------------+-------------------+
//! |version | pad   | len (LE) | present (LE)  | fields, aligned   |
//! |   0    |       | u16      | u32 [+ u32..] | to their own size |
//! +--------+-------+----------+---------------+-------------------+
//! ```
//! Bit 31 of a presence word says another word follows. Bit 29 starts a new radiotap
//! namespace in the next word (Linux uses one per antenna), bit 30 a vendor namespace
//! whose data is skipped using its `skip_length`. Each field is aligned to its natural
//! alignment relative to the start of the radiotap header. The size of a field must be
//! known to find the fields after it: at an unknown field the [`Fields`] iterator stops
//! with [`Error::UnknownField`](crate::Error::UnknownField), and [`Repr::parse`] keeps what it read before.

mod header;
mod repr;
#[cfg(test)]
mod tests;
mod values;

pub use header::{Field, Fields, Header};
pub use repr::Repr;
pub use values::{AmpduStatus, Channel, Mcs, McsBandwidth, Timestamp, Vht};

pub mod tx;

pub use tx::{TxParams, TxRate, TxStatus};

/// The only radiotap version.
pub const VERSION: u8 = 0;
/// Length of the fixed part: version, pad, length, first presence word.
pub const MIN_HEADER_LEN: usize = 8;

/// Field bit numbers in the radiotap namespace.
pub mod bit {
    /// TSFT: u64 microseconds, align 8.
    pub const TSFT: u32 = 0;
    /// Flags: u8.
    pub const FLAGS: u32 = 1;
    /// Rate: u8, 500 kb/s units.
    pub const RATE: u32 = 2;
    /// Channel: u16 frequency (MHz), u16 flags.
    pub const CHANNEL: u32 = 3;
    /// FHSS: u8 hop set, u8 hop pattern (align 2).
    pub const FHSS: u32 = 4;
    /// Antenna signal: i8 dBm.
    pub const DBM_ANTSIGNAL: u32 = 5;
    /// Antenna noise: i8 dBm.
    pub const DBM_ANTNOISE: u32 = 6;
    /// Lock quality: u16.
    pub const LOCK_QUALITY: u32 = 7;
    /// TX attenuation: u16.
    pub const TX_ATTENUATION: u32 = 8;
    /// dB TX attenuation: u16.
    pub const DB_TX_ATTENUATION: u32 = 9;
    /// dBm TX power: i8.
    pub const DBM_TX_POWER: u32 = 10;
    /// Antenna index: u8.
    pub const ANTENNA: u32 = 11;
    /// dB antenna signal: u8.
    pub const DB_ANTSIGNAL: u32 = 12;
    /// dB antenna noise: u8.
    pub const DB_ANTNOISE: u32 = 13;
    /// RX flags: u16.
    pub const RX_FLAGS: u32 = 14;
    /// TX flags: u16.
    pub const TX_FLAGS: u32 = 15;
    /// RTS retries: u8.
    pub const RTS_RETRIES: u32 = 16;
    /// Data retries: u8.
    pub const DATA_RETRIES: u32 = 17;
    /// MCS: u8 known, u8 flags, u8 mcs.
    pub const MCS: u32 = 19;
    /// A-MPDU status: u32 reference, u16 flags, u8 delimiter CRC, u8 reserved (align 4).
    pub const AMPDU_STATUS: u32 = 20;
    /// VHT: 12 bytes, align 2.
    pub const VHT: u32 = 21;
    /// Timestamp: u64, u16, u8, u8 (align 8).
    pub const TIMESTAMP: u32 = 22;
    /// HE: six u16, align 2.
    pub const HE: u32 = 23;
    /// HE-MU: u16, u16, u8\[4\], u8\[4\], align 2.
    pub const HE_MU: u32 = 24;
    /// HE-MU-other-user: u16, u16, u8, u8, align 2.
    pub const HE_MU_OTHER_USER: u32 = 25;
    /// 0-length PSDU: u8.
    pub const ZERO_LEN_PSDU: u32 = 26;
    /// L-SIG: u16, u16.
    pub const LSIG: u32 = 27;
    /// TLVs: the rest of the header is type-length-value items (align 4).
    pub const TLV: u32 = 28;
    /// Next presence word starts a radiotap namespace.
    pub const RADIOTAP_NAMESPACE: u32 = 29;
    /// Vendor namespace: u8\[3\] OUI, u8 sub-namespace, u16 skip length (align 2).
    pub const VENDOR_NAMESPACE: u32 = 30;
    /// Another presence word follows.
    pub const EXT: u32 = 31;
}

/// Flags field (bit 1) values.
pub mod flags {
    /// Sent/received during CFP.
    pub const CFP: u8 = 0x01;
    /// Short preamble.
    pub const SHORT_PREAMBLE: u8 = 0x02;
    /// WEP encrypted.
    pub const WEP: u8 = 0x04;
    /// Fragmented.
    pub const FRAG: u8 = 0x08;
    /// The frame includes the FCS at its end.
    pub const FCS_AT_END: u8 = 0x10;
    /// Padding between the 802.11 header and payload (to a 32-bit boundary).
    pub const DATA_PAD: u8 = 0x20;
    /// The frame failed its FCS check.
    pub const BAD_FCS: u8 = 0x40;
    /// Short guard interval (HT).
    pub const SHORT_GI: u8 = 0x80;
}

/// Channel field flag values.
pub mod channel_flags {
    /// Turbo channel.
    pub const TURBO: u16 = 0x0010;
    /// CCK channel.
    pub const CCK: u16 = 0x0020;
    /// OFDM channel.
    pub const OFDM: u16 = 0x0040;
    /// 2 GHz spectrum channel.
    pub const GHZ2: u16 = 0x0080;
    /// 5 GHz spectrum channel.
    pub const GHZ5: u16 = 0x0100;
    /// Only passive scan allowed.
    pub const PASSIVE: u16 = 0x0200;
    /// Dynamic CCK-OFDM channel.
    pub const DYNAMIC: u16 = 0x0400;
    /// GFSK channel (FHSS PHY).
    pub const GFSK: u16 = 0x0800;
}

/// TX flags field (bit 15) values.
pub mod tx_flags {
    /// Transmission failed due to excessive retries.
    pub const FAIL: u16 = 0x0001;
    /// Used CTS-to-self protection.
    pub const CTS: u16 = 0x0002;
    /// Used RTS/CTS handshake.
    pub const RTS: u16 = 0x0004;
    /// Frame should not be acknowledged (and not retried).
    pub const NOACK: u16 = 0x0008;
    /// The sequence number in the frame must be kept (not assigned by the driver).
    pub const NOSEQNO: u16 = 0x0010;
    /// Do not reorder the frame relative to others with this flag.
    pub const ORDER: u16 = 0x0020;
}

/// RX flags field (bit 14) values.
pub mod rx_flags {
    /// PLCP CRC check failed.
    pub const BADPLCP: u16 = 0x0002;
}

/// Size and alignment of a field of the radiotap namespace, by bit number
/// (`None` for bits whose layout this crate does not know). For [`bit::TLV`] the size
/// is 0: the field is the rest of the header.
pub const fn field_layout(bit: u32) -> Option<(usize, usize)> {
    // (align, size)
    Some(match bit {
        0 => (8, 8),
        1 | 2 => (1, 1),
        3 => (2, 4),
        4 => (2, 2),
        5 | 6 => (1, 1),
        7..=9 => (2, 2),
        10..=13 => (1, 1),
        14 | 15 => (2, 2),
        16 | 17 => (1, 1),
        19 => (1, 3),
        20 => (4, 8),
        21 => (2, 12),
        22 => (8, 12),
        23 | 24 => (2, 12),
        25 => (2, 6),
        26 => (1, 1),
        27 => (2, 4),
        28 => (4, 0),
        _ => return None,
    })
}

/// A human-readable name of a radiotap-namespace field, used in errors.
pub const fn field_name(bit: u32) -> &'static str {
    match bit {
        0 => "radiotap TSFT",
        1 => "radiotap flags",
        2 => "radiotap rate",
        3 => "radiotap channel",
        4 => "radiotap FHSS",
        5 => "radiotap dBm antenna signal",
        6 => "radiotap dBm antenna noise",
        7 => "radiotap lock quality",
        8 => "radiotap TX attenuation",
        9 => "radiotap dB TX attenuation",
        10 => "radiotap dBm TX power",
        11 => "radiotap antenna",
        12 => "radiotap dB antenna signal",
        13 => "radiotap dB antenna noise",
        14 => "radiotap RX flags",
        15 => "radiotap TX flags",
        16 => "radiotap RTS retries",
        17 => "radiotap data retries",
        19 => "radiotap MCS",
        20 => "radiotap A-MPDU status",
        21 => "radiotap VHT",
        22 => "radiotap timestamp",
        23 => "radiotap HE",
        24 => "radiotap HE-MU",
        25 => "radiotap HE-MU-other-user",
        26 => "radiotap 0-length PSDU",
        27 => "radiotap L-SIG",
        28 => "radiotap TLVs",
        30 => "radiotap vendor namespace",
        _ => "radiotap field",
    }
}

const fn align_up(x: usize, align: usize) -> usize {
    x.div_ceil(align) * align
}
