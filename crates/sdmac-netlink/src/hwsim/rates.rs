//! Rates of a transmission: `TX_INFO` and `TX_INFO_FLAGS` entries, and the flag
//! types of `FLAGS` and of each rate.

use super::TX_MAX_RATES;
use crate::attr::Attr;
use crate::Result;
use core::fmt;

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
