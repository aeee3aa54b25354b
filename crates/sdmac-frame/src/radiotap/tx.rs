//! Radiotap for injection and for the TX-status echo.
//!
//! An injected frame carries a radiotap header saying how to send it: TX flags
//! (bit 15: no ACK, keep the sequence number), one rate (legacy RATE bit 2 in 500 kb/s
//! units, HT MCS bit 19 or VHT bit 21) and DATA_RETRIES (bit 17, u8: attempts after
//! the first). After the driver reports the outcome, Linux (mac80211) hands the frame
//! back to monitor interfaces with a radiotap header of TX flags (`F_TX_FAIL` when a
//! unicast frame was not acknowledged), DATA_RETRIES (the retries made) and the rate:
//! [`TxStatus`] reads that echo.

use super::{tx_flags, Mcs, Repr, Vht};
use crate::Result;

/// VHT field: GI known.
pub const VHT_KNOWN_GI: u16 = 0x0004;
/// VHT field: bandwidth known.
pub const VHT_KNOWN_BANDWIDTH: u16 = 0x0040;
/// VHT field flags: short guard interval.
pub const VHT_FLAG_SGI: u8 = 0x04;

/// The one rate an injected frame is sent at (radiotap has room for one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TxRate {
    /// A DSSS/CCK/OFDM rate in 500 kb/s units (RATE field).
    Legacy {
        /// Rate / 500 kb/s (2 = 1 Mb/s, 108 = 54 Mb/s).
        units_500k: u8,
    },
    /// HT (MCS field).
    Ht {
        /// MCS index 0–76.
        mcs: u8,
        /// 40 MHz (else 20 MHz).
        bw40: bool,
        /// Short guard interval.
        short_gi: bool,
    },
    /// VHT single user (VHT field).
    Vht {
        /// MCS 0–9.
        mcs: u8,
        /// Spatial streams 1–8.
        nss: u8,
        /// Channel width in MHz: 20, 40, 80 or 160.
        width_mhz: u16,
        /// Short guard interval.
        short_gi: bool,
    },
}

/// The radiotap VHT bandwidth code of a width in MHz (None for others).
pub const fn vht_bandwidth_code(width_mhz: u16) -> Option<u8> {
    match width_mhz {
        20 => Some(0),
        40 => Some(1),
        80 => Some(4),
        160 => Some(11),
        _ => None,
    }
}

/// The width in MHz of a radiotap VHT bandwidth code (None for sub-channel codes this
/// crate does not name).
pub const fn vht_bandwidth_mhz(code: u8) -> Option<u16> {
    match code {
        0 => Some(20),
        1 => Some(40),
        4 => Some(80),
        11 => Some(160),
        _ => None,
    }
}

impl TxRate {
    /// Writes this rate into the matching field of `r` (clearing the other two).
    fn put(self, r: &mut Repr) {
        r.rate = None;
        r.mcs = None;
        r.vht = None;
        match self {
            TxRate::Legacy { units_500k } => r.rate = Some(units_500k),
            TxRate::Ht { mcs, bw40, short_gi } => {
                r.mcs = Some(Mcs {
                    known: Mcs::KNOWN_BW | Mcs::KNOWN_MCS | Mcs::KNOWN_GI,
                    flags: bw40 as u8 | if short_gi { Mcs::FLAG_SHORT_GI } else { 0 },
                    index: mcs,
                })
            }
            TxRate::Vht { mcs, nss, width_mhz, short_gi } => {
                r.vht = Some(Vht {
                    known: VHT_KNOWN_GI | VHT_KNOWN_BANDWIDTH,
                    flags: if short_gi { VHT_FLAG_SGI } else { 0 },
                    bandwidth: vht_bandwidth_code(width_mhz).unwrap_or(0),
                    mcs_nss: [(mcs << 4) | (nss & 0x0f), 0, 0, 0],
                    ..Vht::default()
                })
            }
        }
    }

    /// The rate a header's RATE, MCS or VHT field names (RATE first, as a header
    /// carries only one of them from Linux; None when none is there).
    pub fn from_repr(r: &Repr) -> Option<TxRate> {
        if let Some(u) = r.rate {
            return Some(TxRate::Legacy { units_500k: u });
        }
        if let Some(m) = r.mcs {
            if m.known & Mcs::KNOWN_MCS != 0 {
                return Some(TxRate::Ht {
                    mcs: m.index,
                    bw40: m.known & Mcs::KNOWN_BW != 0 && m.flags & Mcs::FLAG_BW_MASK == 1,
                    short_gi: m.known & Mcs::KNOWN_GI != 0 && m.flags & Mcs::FLAG_SHORT_GI != 0,
                });
            }
        }
        if let Some(v) = r.vht {
            let nss = v.mcs_nss[0] & 0x0f;
            if nss != 0 {
                let width_mhz = if v.known & VHT_KNOWN_BANDWIDTH != 0 {
                    vht_bandwidth_mhz(v.bandwidth).unwrap_or(20)
                } else {
                    20
                };
                return Some(TxRate::Vht {
                    mcs: v.mcs_nss[0] >> 4,
                    nss,
                    width_mhz,
                    short_gi: v.known & VHT_KNOWN_GI != 0 && v.flags & VHT_FLAG_SGI != 0,
                });
            }
        }
        None
    }
}

/// How to send one injected frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct TxParams {
    /// The rate; None lets the driver's rate control choose (and then Linux ignores
    /// `retries`).
    pub rate: Option<TxRate>,
    /// Attempts after the first (DATA_RETRIES); written only with a rate.
    pub retries: u8,
    /// Expect no ACK and never retry (TX flag NOACK).
    pub no_ack: bool,
    /// Keep the sequence number written in the frame (TX flag NOSEQNO).
    pub keep_seq: bool,
}

impl TxParams {
    /// The radiotap representation: TX flags always, the rate field and
    /// DATA_RETRIES when a rate is given.
    pub fn repr(&self) -> Repr {
        let mut r = Repr::default();
        let mut f = 0;
        if self.no_ack {
            f |= tx_flags::NOACK;
        }
        if self.keep_seq {
            f |= tx_flags::NOSEQNO;
        }
        r.tx_flags = Some(f);
        if let Some(rate) = self.rate {
            rate.put(&mut r);
            r.data_retries = Some(self.retries);
        }
        r
    }

    /// Writes the header at the start of `buf`; returns its length.
    pub fn emit_into(&self, buf: &mut [u8]) -> Result<usize> {
        self.repr().emit_into(buf)
    }
}

/// The transmit status a TX-status echo carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TxStatus {
    /// The whole TX flags field.
    pub tx_flags: u16,
    /// Retries made (attempts − 1), when the header says.
    pub retries: Option<u8>,
    /// The rate, when the header says.
    pub rate: Option<TxRate>,
}

impl TxStatus {
    /// The status of a header that has a TX flags field (the mark of a TX-status
    /// echo: Linux writes it on echoes, never on received frames); None otherwise.
    pub fn from_repr(r: &Repr) -> Option<TxStatus> {
        Some(TxStatus {
            tx_flags: r.tx_flags?,
            retries: r.data_retries,
            rate: TxRate::from_repr(r),
        })
    }

    /// The frame was unicast and not acknowledged (F_TX_FAIL).
    pub fn failed(&self) -> bool {
        self.tx_flags & tx_flags::FAIL != 0
    }

    /// Attempts made: retries + 1 (1 when the header does not say).
    pub fn attempts(&self) -> u16 {
        self.retries.map_or(1, |r| r as u16 + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::radiotap::Header;

    #[test]
    fn legacy_tx_header_golden_bytes() {
        // 54 Mb/s, 3 retries, no ACK: present = RATE | TX_FLAGS | DATA_RETRIES
        // (bits 2, 15, 17) = 0x0002_8004; rate at 8, pad, TX flags at 10, retries at 12.
        let p = TxParams {
            rate: Some(TxRate::Legacy { units_500k: 108 }),
            retries: 3,
            no_ack: true,
            keep_seq: true,
        };
        let mut b = [0u8; 32];
        let n = p.emit_into(&mut b).unwrap();
        assert_eq!(&b[..n], &[0, 0, 13, 0, 0x04, 0x80, 0x02, 0x00, 108, 0, 0x18, 0x00, 3]);
    }

    #[test]
    fn mcs_and_vht_tx_header_golden_bytes() {
        // TX flags at 8, retries at 10, MCS at 11..14 (align 1).
        let p = TxParams {
            rate: Some(TxRate::Ht { mcs: 7, bw40: true, short_gi: true }),
            retries: 0,
            no_ack: false,
            keep_seq: true,
        };
        let mut b = [0u8; 32];
        let n = p.emit_into(&mut b).unwrap();
        assert_eq!(&b[..n], &[0, 0, 14, 0, 0x00, 0x80, 0x0a, 0x00, 0x10, 0x00, 0, 0x07, 0x05, 7]);
        // TX flags at 8, retries at 10, pad, VHT at 12..24 (align 2).
        let p = TxParams {
            rate: Some(TxRate::Vht { mcs: 9, nss: 2, width_mhz: 80, short_gi: false }),
            retries: 1,
            no_ack: false,
            keep_seq: false,
        };
        let n = p.emit_into(&mut b).unwrap();
        assert_eq!(
            &b[..n],
            &[
                0, 0, 24, 0, 0x00, 0x80, 0x22, 0x00, 0, 0, 1, 0, 0x44, 0x00, 0x00, 4, 0x92, 0, 0,
                0, 0, 0, 0, 0
            ]
        );
    }

    #[test]
    fn without_rate_only_tx_flags() {
        let p = TxParams { rate: None, retries: 5, no_ack: false, keep_seq: true };
        let mut b = [0u8; 16];
        let n = p.emit_into(&mut b).unwrap();
        assert_eq!(&b[..n], &[0, 0, 10, 0, 0x00, 0x80, 0, 0, 0x10, 0]);
    }

    #[test]
    fn echo_as_linux_writes_it() {
        // Linux's echo of a failed 54 Mb/s unicast after 2 retries: RATE, pad, TX flags
        // F_TX_FAIL, DATA_RETRIES.
        let b = [0, 0, 13, 0, 0x04, 0x80, 0x02, 0x00, 108, 0, 0x01, 0x00, 2];
        let r = Repr::parse(&Header::new_checked(&b[..]).unwrap()).unwrap();
        let s = TxStatus::from_repr(&r).unwrap();
        assert!(s.failed());
        assert_eq!(
            (s.retries, s.attempts(), s.rate),
            (Some(2), 3, Some(TxRate::Legacy { units_500k: 108 }))
        );
        // A received frame (no TX flags) is not an echo.
        let rx = [0, 0, 9, 0, 0x04, 0, 0, 0, 12];
        assert_eq!(
            TxStatus::from_repr(&Repr::parse(&Header::new_checked(&rx[..]).unwrap()).unwrap()),
            None
        );
    }
}
