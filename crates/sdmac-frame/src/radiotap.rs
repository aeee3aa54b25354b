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
//! with [`Error::UnknownField`], and [`Repr::parse`] keeps what it read before.

use crate::{need, room, Error, Result};

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

/// A zero-copy view of a radiotap header followed by the frame it describes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Header<T> {
    /// Wraps a buffer without checking it. Accessors may panic on a short or
    /// inconsistent buffer; use [`Header::new_checked`] for input.
    pub const fn new_unchecked(buffer: T) -> Self {
        Header { buffer }
    }

    /// Wraps a buffer after [`Header::check_len`].
    pub fn new_checked(buffer: T) -> Result<Self> {
        let h = Self::new_unchecked(buffer);
        h.check_len()?;
        Ok(h)
    }

    /// Checks version 0, that the length field is at least 8 and within the buffer,
    /// and that the chain of presence words ends inside the header.
    pub fn check_len(&self) -> Result<()> {
        let b = self.buffer.as_ref();
        need("radiotap header", b, 0, MIN_HEADER_LEN)?;
        if b[0] != VERSION {
            return Err(Error::Malformed {
                what: "radiotap version",
                offset: 0,
                reason: "version is not 0",
            });
        }
        let len = u16::from_le_bytes([b[2], b[3]]) as usize;
        if len < MIN_HEADER_LEN {
            return Err(Error::Malformed {
                what: "radiotap length",
                offset: 2,
                reason: "shorter than the 8-byte fixed header",
            });
        }
        need("radiotap header", b, 0, len)?;
        let mut off = 4;
        while u32::from_le_bytes([b[off], b[off + 1], b[off + 2], b[off + 3]]) & (1 << bit::EXT)
            != 0
        {
            off += 4;
            if off + 4 > len {
                return Err(Error::Malformed {
                    what: "radiotap presence bitmap",
                    offset: off,
                    reason: "extension word runs past the header length",
                });
            }
        }
        Ok(())
    }

    /// The underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// The version field (always 0 in a checked header).
    pub fn version(&self) -> u8 {
        self.buffer.as_ref()[0]
    }

    /// The pad byte.
    pub fn pad(&self) -> u8 {
        self.buffer.as_ref()[1]
    }

    /// The header length field: where the 802.11 frame starts.
    pub fn header_len(&self) -> usize {
        let b = self.buffer.as_ref();
        u16::from_le_bytes([b[2], b[3]]) as usize
    }

    /// Number of presence words (1 + the number of extension words).
    pub fn present_count(&self) -> usize {
        let b = self.buffer.as_ref();
        let mut n = 1;
        let mut off = 4;
        while off + 4 <= b.len()
            && u32::from_le_bytes([b[off], b[off + 1], b[off + 2], b[off + 3]]) & (1 << bit::EXT)
                != 0
            && off + 8 <= b.len()
        {
            n += 1;
            off += 4;
        }
        n
    }

    /// Presence word `i` (0 is the first), or `None` past the last.
    pub fn present_word(&self, i: usize) -> Option<u32> {
        if i >= self.present_count() {
            return None;
        }
        let b = self.buffer.as_ref();
        let o = 4 + 4 * i;
        Some(u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]))
    }

    /// The first presence word.
    pub fn present(&self) -> u32 {
        self.present_word(0).unwrap_or(0)
    }

    /// Iterates over the fields present.
    pub fn fields(&self) -> Fields<'_> {
        let b = self.buffer.as_ref();
        let len = self.header_len().min(b.len());
        let words = self.present_count();
        Fields {
            buf: &b[..len],
            words,
            word_idx: 0,
            bit: 0,
            radiotap_ns: true,
            ns_index: 0,
            base: 0,
            pos: 4 + 4 * words,
            done: false,
        }
    }

    /// The bytes after the radiotap header (the 802.11 frame).
    pub fn payload(&self) -> &[u8] {
        let b = self.buffer.as_ref();
        b.get(self.header_len()..).unwrap_or(&[])
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Header<T> {
    /// Sets the version byte.
    pub fn set_version(&mut self, v: u8) {
        self.buffer.as_mut()[0] = v;
    }

    /// Sets the pad byte.
    pub fn set_pad(&mut self, v: u8) {
        self.buffer.as_mut()[1] = v;
    }

    /// Sets the header length field.
    pub fn set_header_len(&mut self, len: u16) {
        self.buffer.as_mut()[2..4].copy_from_slice(&len.to_le_bytes());
    }

    /// Sets the first presence word.
    pub fn set_present(&mut self, present: u32) {
        self.buffer.as_mut()[4..8].copy_from_slice(&present.to_le_bytes());
    }

    /// The bytes after the radiotap header, writable.
    pub fn payload_mut(&mut self) -> &mut [u8] {
        let h = self.header_len();
        self.buffer.as_mut().get_mut(h..).unwrap_or(&mut [])
    }
}

/// One field found by [`Fields`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field<'a> {
    /// Which radiotap namespace the field is in: 0 for the first, 1 for the one
    /// after the first bit-29 switch, and so on (Linux: one per antenna).
    pub namespace: usize,
    /// Bit number within the namespace (32 and up for extension words); 30 for a
    /// vendor namespace, whose `data` is then the 6-byte vendor header followed by
    /// the skipped vendor data.
    pub bit: u32,
    /// Offset of the field's data from the start of the radiotap header.
    pub offset: usize,
    /// The field's data.
    pub data: &'a [u8],
}

impl Field<'_> {
    /// Byte `i` of the data, or 0.
    pub fn u8_at(&self, i: usize) -> u8 {
        self.data.get(i).copied().unwrap_or(0)
    }

    /// Little-endian u16 at byte `i`, or 0.
    pub fn u16_at(&self, i: usize) -> u16 {
        u16::from_le_bytes([self.u8_at(i), self.u8_at(i + 1)])
    }

    /// Little-endian u32 at byte `i`, or 0.
    pub fn u32_at(&self, i: usize) -> u32 {
        u32::from_le_bytes([self.u8_at(i), self.u8_at(i + 1), self.u8_at(i + 2), self.u8_at(i + 3)])
    }

    /// Little-endian u64 at byte `i`, or 0.
    pub fn u64_at(&self, i: usize) -> u64 {
        self.u32_at(i) as u64 | (self.u32_at(i + 4) as u64) << 32
    }
}

/// Iterator over the fields of a radiotap header, in wire order. It ends after the
/// first error (truncated field, unknown field, bad namespace bits).
#[derive(Debug, Clone)]
pub struct Fields<'a> {
    buf: &'a [u8],
    words: usize,
    word_idx: usize,
    bit: u32,
    radiotap_ns: bool,
    ns_index: usize,
    base: u32,
    pos: usize,
    done: bool,
}

impl<'a> Fields<'a> {
    fn word(&self, i: usize) -> u32 {
        let o = 4 + 4 * i;
        match self.buf.get(o..o + 4) {
            Some(w) => u32::from_le_bytes([w[0], w[1], w[2], w[3]]),
            None => 0,
        }
    }

    fn fail(&mut self, e: Error) -> Option<Result<Field<'a>>> {
        self.done = true;
        Some(Err(e))
    }

    fn take(&mut self, what: &'static str, align: usize, size: usize) -> Result<(usize, &'a [u8])> {
        let off = align_up(self.pos, align);
        need(what, self.buf, off, size)?;
        self.pos = off + size;
        Ok((off, &self.buf[off..off + size]))
    }
}

impl<'a> Iterator for Fields<'a> {
    type Item = Result<Field<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.done || self.word_idx >= self.words {
                self.done = true;
                return None;
            }
            let word = self.word(self.word_idx);
            // Ordinary fields, bits 0..=28.
            while self.bit <= bit::TLV {
                let b = self.bit;
                self.bit += 1;
                if word & (1 << b) == 0 || !self.radiotap_ns {
                    continue;
                }
                let num = self.base + b;
                let Some((align, size)) = field_layout(num) else {
                    return self.fail(Error::UnknownField {
                        what: "radiotap field",
                        offset: self.pos,
                        bit: num,
                    });
                };
                if num == bit::TLV {
                    let off = align_up(self.pos, align).min(self.buf.len());
                    self.done = true;
                    return Some(Ok(Field {
                        namespace: self.ns_index,
                        bit: num,
                        offset: off,
                        data: &self.buf[off..],
                    }));
                }
                return match self.take(field_name(num), align, size) {
                    Ok((offset, data)) => {
                        Some(Ok(Field { namespace: self.ns_index, bit: num, offset, data }))
                    }
                    Err(e) => self.fail(e),
                };
            }
            let ns_bits = word & (1 << bit::RADIOTAP_NAMESPACE | 1 << bit::VENDOR_NAMESPACE);
            if ns_bits == (1 << bit::RADIOTAP_NAMESPACE | 1 << bit::VENDOR_NAMESPACE) {
                return self.fail(Error::Malformed {
                    what: "radiotap presence bitmap",
                    offset: 4 + 4 * self.word_idx,
                    reason: "both the radiotap and vendor namespace bits are set",
                });
            }
            // Vendor namespace header (bit 30), then its skipped data.
            if self.bit == bit::RADIOTAP_NAMESPACE {
                self.bit = bit::VENDOR_NAMESPACE;
                if ns_bits == 1 << bit::VENDOR_NAMESPACE {
                    let (off, hdr) = match self.take("radiotap vendor namespace", 2, 6) {
                        Ok(x) => x,
                        Err(e) => return self.fail(e),
                    };
                    let skip = u16::from_le_bytes([hdr[4], hdr[5]]) as usize;
                    if let Err(e) = self.take("radiotap vendor namespace data", 1, skip) {
                        return self.fail(e);
                    }
                    return Some(Ok(Field {
                        namespace: self.ns_index,
                        bit: bit::VENDOR_NAMESPACE,
                        offset: off,
                        data: &self.buf[off..off + 6 + skip],
                    }));
                }
            }
            // Move to the next presence word.
            if ns_bits == 1 << bit::VENDOR_NAMESPACE {
                self.radiotap_ns = false;
            } else if ns_bits == 1 << bit::RADIOTAP_NAMESPACE {
                self.radiotap_ns = true;
                self.ns_index += 1;
                self.base = 0;
            } else {
                self.base = self.base.saturating_add(32);
            }
            self.word_idx += 1;
            self.bit = 0;
        }
    }
}

/// Channel field: centre frequency and flags (see [`channel_flags`]).
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

/// The fields of a radiotap header's first radiotap namespace, parsed.
///
/// Fields in further namespaces (per-antenna in Linux captures) and vendor
/// namespaces are skipped by [`Repr::parse`]; iterate [`Header::fields`] for them.
/// [`Repr::emit`] writes one presence word with the fields that are `Some`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Repr {
    /// TSFT (bit 0), microseconds.
    pub tsft: Option<u64>,
    /// Flags (bit 1), see [`flags`].
    pub flags: Option<u8>,
    /// Legacy rate (bit 2) in 500 kb/s units.
    pub rate: Option<u8>,
    /// Channel (bit 3).
    pub channel: Option<Channel>,
    /// FHSS hop set and hop pattern (bit 4).
    pub fhss: Option<(u8, u8)>,
    /// Antenna signal in dBm (bit 5).
    pub antenna_signal: Option<i8>,
    /// Antenna noise in dBm (bit 6).
    pub antenna_noise: Option<i8>,
    /// Lock quality (bit 7).
    pub lock_quality: Option<u16>,
    /// TX attenuation (bit 8).
    pub tx_attenuation: Option<u16>,
    /// dB TX attenuation (bit 9).
    pub db_tx_attenuation: Option<u16>,
    /// TX power in dBm (bit 10).
    pub tx_power: Option<i8>,
    /// Antenna index (bit 11).
    pub antenna: Option<u8>,
    /// Antenna signal in dB (bit 12).
    pub db_antenna_signal: Option<u8>,
    /// Antenna noise in dB (bit 13).
    pub db_antenna_noise: Option<u8>,
    /// RX flags (bit 14), see [`rx_flags`].
    pub rx_flags: Option<u16>,
    /// TX flags (bit 15), see [`tx_flags`].
    pub tx_flags: Option<u16>,
    /// RTS retries (bit 16).
    pub rts_retries: Option<u8>,
    /// Data retries (bit 17).
    pub data_retries: Option<u8>,
    /// MCS (bit 19).
    pub mcs: Option<Mcs>,
    /// A-MPDU status (bit 20).
    pub ampdu: Option<AmpduStatus>,
    /// VHT (bit 21).
    pub vht: Option<Vht>,
    /// Timestamp (bit 22).
    pub timestamp: Option<Timestamp>,
    /// HE data1..data6 (bit 23).
    pub he: Option<[u16; 6]>,
    /// HE-MU, raw little-endian bytes (bit 24).
    pub he_mu: Option<[u8; 12]>,
    /// HE-MU-other-user, raw little-endian bytes (bit 25).
    pub he_mu_other_user: Option<[u8; 6]>,
    /// 0-length PSDU type (bit 26).
    pub zero_len_psdu: Option<u8>,
    /// L-SIG data1, data2 (bit 27).
    pub lsig: Option<[u16; 2]>,
    /// Set by [`Repr::parse`] when it stopped at a field of unknown size: that field's
    /// bit number (fields after it were not read). Ignored by [`Repr::emit`].
    pub unknown_field: Option<u32>,
}

impl Repr {
    /// True when the Flags field says the frame ends with its FCS.
    pub fn fcs_at_end(&self) -> bool {
        self.flags.unwrap_or(0) & flags::FCS_AT_END != 0
    }

    /// True when the Flags field says the FCS check failed.
    pub fn bad_fcs(&self) -> bool {
        self.flags.unwrap_or(0) & flags::BAD_FCS != 0
    }

    /// Parses a header view (checking it first). Stops without error at a field of
    /// unknown size, recording its bit in `unknown_field`.
    pub fn parse<T: AsRef<[u8]>>(header: &Header<T>) -> Result<Repr> {
        header.check_len()?;
        let mut r = Repr::default();
        for f in header.fields() {
            let f = match f {
                Ok(f) => f,
                Err(Error::UnknownField { bit, .. }) => {
                    r.unknown_field = Some(bit);
                    break;
                }
                Err(e) => return Err(e),
            };
            if f.namespace != 0 {
                continue;
            }
            r.set_from_field(&f);
        }
        Ok(r)
    }

    fn set_from_field(&mut self, f: &Field<'_>) {
        let d = f.data;
        match f.bit {
            bit::TSFT => self.tsft = Some(f.u64_at(0)),
            bit::FLAGS => self.flags = Some(f.u8_at(0)),
            bit::RATE => self.rate = Some(f.u8_at(0)),
            bit::CHANNEL => self.channel = Some(Channel::new(f.u16_at(0), f.u16_at(2))),
            bit::FHSS => self.fhss = Some((f.u8_at(0), f.u8_at(1))),
            bit::DBM_ANTSIGNAL => self.antenna_signal = Some(f.u8_at(0) as i8),
            bit::DBM_ANTNOISE => self.antenna_noise = Some(f.u8_at(0) as i8),
            bit::LOCK_QUALITY => self.lock_quality = Some(f.u16_at(0)),
            bit::TX_ATTENUATION => self.tx_attenuation = Some(f.u16_at(0)),
            bit::DB_TX_ATTENUATION => self.db_tx_attenuation = Some(f.u16_at(0)),
            bit::DBM_TX_POWER => self.tx_power = Some(f.u8_at(0) as i8),
            bit::ANTENNA => self.antenna = Some(f.u8_at(0)),
            bit::DB_ANTSIGNAL => self.db_antenna_signal = Some(f.u8_at(0)),
            bit::DB_ANTNOISE => self.db_antenna_noise = Some(f.u8_at(0)),
            bit::RX_FLAGS => self.rx_flags = Some(f.u16_at(0)),
            bit::TX_FLAGS => self.tx_flags = Some(f.u16_at(0)),
            bit::RTS_RETRIES => self.rts_retries = Some(f.u8_at(0)),
            bit::DATA_RETRIES => self.data_retries = Some(f.u8_at(0)),
            bit::MCS => {
                self.mcs = Some(Mcs { known: f.u8_at(0), flags: f.u8_at(1), index: f.u8_at(2) })
            }
            bit::AMPDU_STATUS => {
                self.ampdu = Some(AmpduStatus {
                    reference: f.u32_at(0),
                    flags: f.u16_at(4),
                    delimiter_crc: f.u8_at(6),
                    reserved: f.u8_at(7),
                })
            }
            bit::VHT => {
                self.vht = Some(Vht {
                    known: f.u16_at(0),
                    flags: f.u8_at(2),
                    bandwidth: f.u8_at(3),
                    mcs_nss: [f.u8_at(4), f.u8_at(5), f.u8_at(6), f.u8_at(7)],
                    coding: f.u8_at(8),
                    group_id: f.u8_at(9),
                    partial_aid: f.u16_at(10),
                })
            }
            bit::TIMESTAMP => {
                self.timestamp = Some(Timestamp {
                    timestamp: f.u64_at(0),
                    accuracy: f.u16_at(8),
                    unit_position: f.u8_at(10),
                    flags: f.u8_at(11),
                })
            }
            bit::HE => {
                let mut v = [0u16; 6];
                for (i, x) in v.iter_mut().enumerate() {
                    *x = f.u16_at(2 * i);
                }
                self.he = Some(v)
            }
            bit::HE_MU => {
                let mut v = [0u8; 12];
                v.copy_from_slice(&d[..12.min(d.len())]);
                self.he_mu = Some(v)
            }
            bit::HE_MU_OTHER_USER => {
                let mut v = [0u8; 6];
                v.copy_from_slice(&d[..6.min(d.len())]);
                self.he_mu_other_user = Some(v)
            }
            bit::ZERO_LEN_PSDU => self.zero_len_psdu = Some(f.u8_at(0)),
            bit::LSIG => self.lsig = Some([f.u16_at(0), f.u16_at(2)]),
            _ => {}
        }
    }

    /// The presence word `emit` writes.
    pub fn present(&self) -> u32 {
        let mut p = 0u32;
        let mut set = |b: u32, on: bool| {
            if on {
                p |= 1 << b
            }
        };
        set(bit::TSFT, self.tsft.is_some());
        set(bit::FLAGS, self.flags.is_some());
        set(bit::RATE, self.rate.is_some());
        set(bit::CHANNEL, self.channel.is_some());
        set(bit::FHSS, self.fhss.is_some());
        set(bit::DBM_ANTSIGNAL, self.antenna_signal.is_some());
        set(bit::DBM_ANTNOISE, self.antenna_noise.is_some());
        set(bit::LOCK_QUALITY, self.lock_quality.is_some());
        set(bit::TX_ATTENUATION, self.tx_attenuation.is_some());
        set(bit::DB_TX_ATTENUATION, self.db_tx_attenuation.is_some());
        set(bit::DBM_TX_POWER, self.tx_power.is_some());
        set(bit::ANTENNA, self.antenna.is_some());
        set(bit::DB_ANTSIGNAL, self.db_antenna_signal.is_some());
        set(bit::DB_ANTNOISE, self.db_antenna_noise.is_some());
        set(bit::RX_FLAGS, self.rx_flags.is_some());
        set(bit::TX_FLAGS, self.tx_flags.is_some());
        set(bit::RTS_RETRIES, self.rts_retries.is_some());
        set(bit::DATA_RETRIES, self.data_retries.is_some());
        set(bit::MCS, self.mcs.is_some());
        set(bit::AMPDU_STATUS, self.ampdu.is_some());
        set(bit::VHT, self.vht.is_some());
        set(bit::TIMESTAMP, self.timestamp.is_some());
        set(bit::HE, self.he.is_some());
        set(bit::HE_MU, self.he_mu.is_some());
        set(bit::HE_MU_OTHER_USER, self.he_mu_other_user.is_some());
        set(bit::ZERO_LEN_PSDU, self.zero_len_psdu.is_some());
        set(bit::LSIG, self.lsig.is_some());
        p
    }

    /// Writes field `b`'s bytes into `out` (which has the field's size).
    fn field_bytes(&self, b: u32, out: &mut [u8]) {
        fn put(out: &mut [u8], at: usize, bytes: &[u8]) {
            out[at..at + bytes.len()].copy_from_slice(bytes);
        }
        match b {
            bit::TSFT => put(out, 0, &self.tsft.unwrap_or(0).to_le_bytes()),
            bit::FLAGS => out[0] = self.flags.unwrap_or(0),
            bit::RATE => out[0] = self.rate.unwrap_or(0),
            bit::CHANNEL => {
                let c = self.channel.unwrap_or_default();
                put(out, 0, &c.freq_mhz.to_le_bytes());
                put(out, 2, &c.flags.to_le_bytes());
            }
            bit::FHSS => {
                let (a, c) = self.fhss.unwrap_or((0, 0));
                out[0] = a;
                out[1] = c;
            }
            bit::DBM_ANTSIGNAL => out[0] = self.antenna_signal.unwrap_or(0) as u8,
            bit::DBM_ANTNOISE => out[0] = self.antenna_noise.unwrap_or(0) as u8,
            bit::LOCK_QUALITY => put(out, 0, &self.lock_quality.unwrap_or(0).to_le_bytes()),
            bit::TX_ATTENUATION => put(out, 0, &self.tx_attenuation.unwrap_or(0).to_le_bytes()),
            bit::DB_TX_ATTENUATION => {
                put(out, 0, &self.db_tx_attenuation.unwrap_or(0).to_le_bytes())
            }
            bit::DBM_TX_POWER => out[0] = self.tx_power.unwrap_or(0) as u8,
            bit::ANTENNA => out[0] = self.antenna.unwrap_or(0),
            bit::DB_ANTSIGNAL => out[0] = self.db_antenna_signal.unwrap_or(0),
            bit::DB_ANTNOISE => out[0] = self.db_antenna_noise.unwrap_or(0),
            bit::RX_FLAGS => put(out, 0, &self.rx_flags.unwrap_or(0).to_le_bytes()),
            bit::TX_FLAGS => put(out, 0, &self.tx_flags.unwrap_or(0).to_le_bytes()),
            bit::RTS_RETRIES => out[0] = self.rts_retries.unwrap_or(0),
            bit::DATA_RETRIES => out[0] = self.data_retries.unwrap_or(0),
            bit::MCS => {
                let m = self.mcs.unwrap_or_default();
                put(out, 0, &[m.known, m.flags, m.index]);
            }
            bit::AMPDU_STATUS => {
                let a = self.ampdu.unwrap_or_default();
                put(out, 0, &a.reference.to_le_bytes());
                put(out, 4, &a.flags.to_le_bytes());
                put(out, 6, &[a.delimiter_crc, a.reserved]);
            }
            bit::VHT => {
                let v = self.vht.unwrap_or_default();
                put(out, 0, &v.known.to_le_bytes());
                put(out, 2, &[v.flags, v.bandwidth]);
                put(out, 4, &v.mcs_nss);
                put(out, 8, &[v.coding, v.group_id]);
                put(out, 10, &v.partial_aid.to_le_bytes());
            }
            bit::TIMESTAMP => {
                let t = self.timestamp.unwrap_or_default();
                put(out, 0, &t.timestamp.to_le_bytes());
                put(out, 8, &t.accuracy.to_le_bytes());
                put(out, 10, &[t.unit_position, t.flags]);
            }
            bit::HE => {
                for (i, x) in self.he.unwrap_or_default().iter().enumerate() {
                    put(out, 2 * i, &x.to_le_bytes());
                }
            }
            bit::HE_MU => put(out, 0, &self.he_mu.unwrap_or_default()),
            bit::HE_MU_OTHER_USER => put(out, 0, &self.he_mu_other_user.unwrap_or_default()),
            bit::ZERO_LEN_PSDU => out[0] = self.zero_len_psdu.unwrap_or(0),
            bit::LSIG => {
                let l = self.lsig.unwrap_or_default();
                put(out, 0, &l[0].to_le_bytes());
                put(out, 2, &l[1].to_le_bytes());
            }
            _ => {}
        }
    }

    /// Walks the present fields in order, calling `f(bit, offset, size)`; returns the
    /// total header length.
    fn walk(&self, mut f: impl FnMut(u32, usize, usize)) -> usize {
        let p = self.present();
        let mut pos = MIN_HEADER_LEN;
        for b in 0..bit::TLV {
            if p & (1 << b) == 0 {
                continue;
            }
            if let Some((align, size)) = field_layout(b) {
                let off = align_up(pos, align);
                f(b, off, size);
                pos = off + size;
            }
        }
        pos
    }

    /// Length of the radiotap header `emit` writes.
    pub fn buffer_len(&self) -> usize {
        self.walk(|_, _, _| {})
    }

    /// Writes the header (version 0, one presence word, fields aligned with zero
    /// padding) at the start of `header`'s buffer.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, header: &mut Header<T>) -> Result<()> {
        let len = self.buffer_len();
        room("radiotap header", len, header.buffer.as_ref().len())?;
        let buf = header.buffer.as_mut();
        buf[..len].fill(0);
        buf[0] = VERSION;
        buf[2..4].copy_from_slice(&(len as u16).to_le_bytes());
        buf[4..8].copy_from_slice(&self.present().to_le_bytes());
        self.walk(|b, off, size| self.field_bytes(b, &mut buf[off..off + size]));
        Ok(())
    }

    /// Writes the header into the start of a byte slice and returns its length.
    pub fn emit_into(&self, buf: &mut [u8]) -> Result<usize> {
        self.emit(&mut Header::new_unchecked(&mut *buf))?;
        Ok(self.buffer_len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_header_checks() {
        assert!(matches!(
            Header::new_checked(&[0u8; 7][..]),
            Err(Error::Truncated { need: 8, have: 7, .. })
        ));
        assert!(matches!(
            Header::new_checked(&[1, 0, 8, 0, 0, 0, 0, 0][..]),
            Err(Error::Malformed { what: "radiotap version", .. })
        ));
        assert!(matches!(
            Header::new_checked(&[0, 0, 4, 0, 0, 0, 0, 0][..]),
            Err(Error::Malformed { what: "radiotap length", .. })
        ));
        assert!(matches!(
            Header::new_checked(&[0, 0, 9, 0, 0, 0, 0, 0][..]),
            Err(Error::Truncated { need: 9, have: 8, .. })
        ));
        // EXT bit set but header length 8: the next word is outside the header.
        assert!(matches!(
            Header::new_checked(&[0, 0, 8, 0, 0, 0, 0, 0x80, 0, 0, 0, 0][..]),
            Err(Error::Malformed { what: "radiotap presence bitmap", offset: 8, .. })
        ));
    }

    #[test]
    fn unknown_field_stops_parsing() {
        // Flags (bit 1) then bit 18 (not known here) then antenna (bit 11 is before 18;
        // use data retries bit 17 before and nothing after is readable).
        let b = [0, 0, 11, 0, 0x02, 0x00, 0x06, 0x00, 0x10, 0x03, 0xAA];
        let h = Header::new_checked(&b[..]).unwrap();
        let mut it = h.fields();
        assert_eq!(it.next().unwrap().unwrap().bit, 1);
        assert_eq!(it.next().unwrap().unwrap().bit, 17);
        assert_eq!(
            it.next().unwrap().unwrap_err(),
            Error::UnknownField { what: "radiotap field", offset: 10, bit: 18 }
        );
        assert!(it.next().is_none());
        let r = Repr::parse(&h).unwrap();
        assert_eq!(r.flags, Some(0x10));
        assert_eq!(r.data_retries, Some(3));
        assert_eq!(r.unknown_field, Some(18));
        assert!(r.fcs_at_end());
    }

    #[test]
    fn truncated_field_named() {
        // TSFT present but header length only 12: TSFT at 8 needs 16.
        let b = [0, 0, 12, 0, 0x01, 0, 0, 0, 1, 2, 3, 4];
        let h = Header::new_checked(&b[..]).unwrap();
        assert_eq!(
            Repr::parse(&h).unwrap_err(),
            Error::Truncated { what: "radiotap TSFT", offset: 8, need: 16, have: 12 }
        );
    }

    #[test]
    fn vendor_namespace_skipped() {
        // word0: flags + vendor ns + ext; word1 (vendor): bit 0 + radiotap ns + ext;
        // word2 (radiotap ns 1): antenna signal.
        let mut b = vec![0u8, 0, 0, 0];
        b.extend_from_slice(&(1u32 << 1 | 1 << 30 | 1 << 31).to_le_bytes());
        b.extend_from_slice(&(1u32 | 1 << 29 | 1 << 31).to_le_bytes());
        b.extend_from_slice(&(1u32 << 5).to_le_bytes());
        // offset 16: flags
        b.push(0x10);
        // offset 17: pad to 18; vendor header OUI 00:11:22 sub 1 skip 3
        b.push(0);
        b.extend_from_slice(&[0x00, 0x11, 0x22, 0x01, 3, 0]);
        b.extend_from_slice(&[9, 9, 9]);
        // offset 27: antenna signal of namespace 1
        b.push(0xC4);
        let len = b.len() as u16;
        b[2..4].copy_from_slice(&len.to_le_bytes());
        let h = Header::new_checked(&b[..]).unwrap();
        let fields: Vec<_> = h.fields().map(|f| f.unwrap()).collect();
        assert_eq!(fields.len(), 3);
        assert_eq!((fields[0].namespace, fields[0].bit, fields[0].offset), (0, 1, 16));
        assert_eq!((fields[1].bit, fields[1].offset, fields[1].data.len()), (30, 18, 9));
        assert_eq!((fields[2].namespace, fields[2].bit, fields[2].offset), (1, 5, 27));
        let r = Repr::parse(&h).unwrap();
        assert_eq!(r.flags, Some(0x10));
        assert_eq!(r.antenna_signal, None);
    }
}
