//! Transmission rates of the PHYs sdmac models.

use core::fmt;
use core::str::FromStr;

/// Modulation of the data part of a PPDU.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Modulation {
    /// DSSS differential BPSK (1 Mb/s).
    Dbpsk,
    /// DSSS differential QPSK (2 Mb/s).
    Dqpsk,
    /// HR-DSSS complementary code keying, 5.5 Mb/s.
    Cck5_5,
    /// HR-DSSS complementary code keying, 11 Mb/s.
    Cck11,
    /// OFDM subcarriers with BPSK.
    Bpsk,
    /// OFDM subcarriers with QPSK.
    Qpsk,
    /// OFDM subcarriers with 16-QAM.
    Qam16,
    /// OFDM subcarriers with 64-QAM.
    Qam64,
    /// OFDM subcarriers with 256-QAM (VHT MCS 8-9).
    Qam256,
    /// A textbook PHY with a given bit rate and no modulation model (error-free unless
    /// a fixed error probability is configured).
    Ideal,
}

/// Convolutional code rate (OFDM and HT); `None` for uncoded DSSS/CCK.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum CodeRate {
    /// Uncoded.
    None,
    /// Rate 1/2 (the mother code).
    R1_2,
    /// Rate 2/3 (punctured).
    R2_3,
    /// Rate 3/4 (punctured).
    R3_4,
    /// Rate 5/6 (punctured, HT MCS 7).
    R5_6,
}

impl CodeRate {
    /// The rate as numerator and denominator (None: 1/1).
    pub fn fraction(self) -> (u32, u32) {
        match self {
            CodeRate::None => (1, 1),
            CodeRate::R1_2 => (1, 2),
            CodeRate::R2_3 => (2, 3),
            CodeRate::R3_4 => (3, 4),
            CodeRate::R5_6 => (5, 6),
        }
    }
}

/// Channel width of an HT or VHT PPDU.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Width {
    /// 20 MHz.
    Mhz20,
    /// 40 MHz.
    Mhz40,
    /// 80 MHz (VHT only).
    Mhz80,
    /// 160 MHz or 80+80 MHz (VHT only).
    Mhz160,
}

impl Width {
    /// Width in MHz.
    pub fn mhz(self) -> u32 {
        match self {
            Width::Mhz20 => 20,
            Width::Mhz40 => 40,
            Width::Mhz80 => 80,
            Width::Mhz160 => 160,
        }
    }

    /// N_SD, the data subcarriers of an HT/VHT symbol (IEEE 802.11-2016 Table 19-6,
    /// Table 21-5): 52, 108, 234, 468.
    pub fn data_subcarriers(self) -> u32 {
        match self {
            Width::Mhz20 => 52,
            Width::Mhz40 => 108,
            Width::Mhz80 => 234,
            Width::Mhz160 => 468,
        }
    }

    /// The width of `mhz` MHz, if HT/VHT has one.
    pub fn from_mhz(mhz: u32) -> Option<Width> {
        Some(match mhz {
            20 => Width::Mhz20,
            40 => Width::Mhz40,
            80 => Width::Mhz80,
            160 => Width::Mhz160,
            _ => return None,
        })
    }
}

/// Which rule family a rate belongs to for the control-response rate (IEEE 802.11-2016
/// §10.6.6.5): the ACK goes in the same modulation class as the frame it answers.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ModulationClass {
    /// DSSS and HR-DSSS (802.11b).
    Dsss,
    /// OFDM (802.11a) and ERP-OFDM (802.11g).
    Ofdm,
    /// HT (802.11n); answered with a non-HT OFDM frame.
    Ht,
    /// VHT (802.11ac); answered with a non-HT OFDM frame.
    Vht,
    /// A custom textbook rate.
    Custom,
}

/// A transmission rate.
///
/// HT rates are MCS 0–31 (1–4 spatial streams of equal modulation, `mcs / 8 + 1`
/// streams), 20 or 40 MHz; VHT rates MCS 0–9 on 1–8 spatial streams, 20/40/80/160 MHz;
/// both with a long or short guard interval, HT-mixed/VHT format, BCC, no STBC.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Rate {
    /// DSSS 1 Mb/s.
    Dsss1,
    /// DSSS 2 Mb/s.
    Dsss2,
    /// HR-DSSS (CCK) 5.5 Mb/s.
    Cck5_5,
    /// HR-DSSS (CCK) 11 Mb/s.
    Cck11,
    /// OFDM 6 Mb/s.
    Ofdm6,
    /// OFDM 9 Mb/s.
    Ofdm9,
    /// OFDM 12 Mb/s.
    Ofdm12,
    /// OFDM 18 Mb/s.
    Ofdm18,
    /// OFDM 24 Mb/s.
    Ofdm24,
    /// OFDM 36 Mb/s.
    Ofdm36,
    /// OFDM 48 Mb/s.
    Ofdm48,
    /// OFDM 54 Mb/s.
    Ofdm54,
    /// HT-mixed, BCC.
    Ht {
        /// MCS index 0–31 (streams = mcs / 8 + 1; per-stream modulation mcs % 8).
        mcs: u8,
        /// 40 MHz channel width (else 20 MHz).
        bw40: bool,
        /// Short (400 ns) guard interval.
        sgi: bool,
    },
    /// VHT single user, BCC.
    Vht {
        /// MCS 0–9.
        mcs: u8,
        /// Spatial streams 1–8.
        nss: u8,
        /// Channel width.
        width: Width,
        /// Short (400 ns) guard interval.
        sgi: bool,
    },
    /// A textbook PHY rate in kb/s: airtime is the PHY header plus bits / rate.
    Custom {
        /// Bit rate in kb/s.
        kbps: u32,
    },
}

/// The OFDM (802.11a/g) rates, slowest first.
pub const OFDM_RATES: [Rate; 8] = [
    Rate::Ofdm6,
    Rate::Ofdm9,
    Rate::Ofdm12,
    Rate::Ofdm18,
    Rate::Ofdm24,
    Rate::Ofdm36,
    Rate::Ofdm48,
    Rate::Ofdm54,
];

/// The DSSS/HR-DSSS (802.11b) rates, slowest first.
pub const DSSS_RATES: [Rate; 4] = [Rate::Dsss1, Rate::Dsss2, Rate::Cck5_5, Rate::Cck11];

/// Modulation and code rate of HT MCS 0–7 (per stream) and VHT MCS 0–9
/// (IEEE 802.11-2016 Tables 19-27 and 21-29).
fn mcs_modulation(mcs: u8) -> (Modulation, CodeRate) {
    use CodeRate::*;
    use Modulation::*;
    match mcs {
        0 => (Bpsk, R1_2),
        1 => (Qpsk, R1_2),
        2 => (Qpsk, R3_4),
        3 => (Qam16, R1_2),
        4 => (Qam16, R3_4),
        5 => (Qam64, R2_3),
        6 => (Qam64, R3_4),
        7 => (Qam64, R5_6),
        8 => (Qam256, R3_4),
        _ => (Qam256, R5_6),
    }
}

impl Modulation {
    /// N_BPSCS: coded bits per subcarrier per stream (OFDM modulations; 0 otherwise).
    pub fn bits_per_subcarrier(self) -> u32 {
        match self {
            Modulation::Bpsk => 1,
            Modulation::Qpsk => 2,
            Modulation::Qam16 => 4,
            Modulation::Qam64 => 6,
            Modulation::Qam256 => 8,
            _ => 0,
        }
    }
}

impl Rate {
    /// Data rate in kb/s (HT short GI rates are 10/9 of long GI ones, rounded down).
    pub fn kbps(self) -> u32 {
        match self {
            Rate::Dsss1 => 1000,
            Rate::Dsss2 => 2000,
            Rate::Cck5_5 => 5500,
            Rate::Cck11 => 11000,
            Rate::Ht { sgi, .. } | Rate::Vht { sgi, .. } => {
                let long = self.n_dbps().unwrap_or(0) * 250; // N_DBPS bits every 4 µs
                if sgi {
                    long * 10 / 9
                } else {
                    long
                }
            }
            Rate::Custom { kbps } => kbps,
            _ => self.n_dbps().unwrap() * 250,
        }
    }

    /// Data rate in Mb/s.
    pub fn mbps(self) -> f64 {
        self.kbps() as f64 / 1000.0
    }

    /// Data bits per OFDM symbol, for OFDM, HT and VHT rates. For HT and VHT
    /// N_DBPS = N_SD · N_BPSCS · R · N_SS (IEEE 802.11-2016 Eq. 19-32, Table 21-6);
    /// None when that is not a whole number (a VHT combination the standard excludes).
    pub fn n_dbps(self) -> Option<u32> {
        Some(match self {
            Rate::Ofdm6 => 24,
            Rate::Ofdm9 => 36,
            Rate::Ofdm12 => 48,
            Rate::Ofdm18 => 72,
            Rate::Ofdm24 => 96,
            Rate::Ofdm36 => 144,
            Rate::Ofdm48 => 192,
            Rate::Ofdm54 => 216,
            Rate::Ht { .. } | Rate::Vht { .. } => {
                let (num, den) = self.code_rate().fraction();
                let cbps = self.n_cbps()?;
                if cbps * num % den != 0 {
                    return None;
                }
                cbps * num / den
            }
            _ => return None,
        })
    }

    /// Coded bits per OFDM symbol of an HT/VHT rate: N_SD · N_BPSCS · N_SS.
    pub fn n_cbps(self) -> Option<u32> {
        let (width, mcs) = match self {
            Rate::Ht { mcs, bw40, .. } if mcs < 32 => {
                (if bw40 { Width::Mhz40 } else { Width::Mhz20 }, mcs % 8)
            }
            Rate::Vht { mcs, width, nss, .. } if mcs <= 9 && (1..=8).contains(&nss) => (width, mcs),
            _ => return None,
        };
        Some(
            width.data_subcarriers()
                * mcs_modulation(mcs).0.bits_per_subcarrier()
                * self.streams() as u32,
        )
    }

    /// Spatial streams (1 for every non-HT rate).
    pub fn streams(self) -> u8 {
        match self {
            Rate::Ht { mcs, .. } => mcs / 8 + 1,
            Rate::Vht { nss, .. } => nss,
            _ => 1,
        }
    }

    /// The per-stream MCS of an HT/VHT rate (HT: mcs % 8).
    pub fn stream_mcs(self) -> Option<u8> {
        match self {
            Rate::Ht { mcs, .. } => Some(mcs % 8),
            Rate::Vht { mcs, .. } => Some(mcs),
            _ => None,
        }
    }

    /// N_ES, the BCC encoders of an HT/VHT rate. HT: one per 300 Mb/s of long-GI rate
    /// (N_DBPS > 1200 → 2; IEEE 802.11-2016 §19.3.11.4). VHT: one per 600 Mb/s of
    /// short-GI rate, raised to the next count that divides both N_DBPS and N_CBPS
    /// (the constraint of §21.3.10.5 behind the N_ES of Tables 21-30 to 21-61).
    /// 1 for other rates.
    pub fn n_es(self) -> u32 {
        match (self, self.n_cbps(), self.n_dbps()) {
            (Rate::Ht { .. }, _, Some(d)) => d.div_ceil(1200),
            (Rate::Vht { .. }, Some(c), Some(d)) => {
                let mut es = d.div_ceil(2160).max(1);
                while es < 12 && (c % es != 0 || d % es != 0) {
                    es += 1;
                }
                es
            }
            _ => 1,
        }
    }

    /// Modulation of the data symbols.
    pub fn modulation(self) -> Modulation {
        use Modulation::*;
        match self {
            Rate::Dsss1 => Dbpsk,
            Rate::Dsss2 => Dqpsk,
            Rate::Cck5_5 => Modulation::Cck5_5,
            Rate::Cck11 => Modulation::Cck11,
            Rate::Ofdm6 | Rate::Ofdm9 => Bpsk,
            Rate::Ofdm12 | Rate::Ofdm18 => Qpsk,
            Rate::Ofdm24 | Rate::Ofdm36 => Qam16,
            Rate::Ofdm48 | Rate::Ofdm54 => Qam64,
            Rate::Ht { .. } | Rate::Vht { .. } => mcs_modulation(self.stream_mcs().unwrap_or(0)).0,
            Rate::Custom { .. } => Ideal,
        }
    }

    /// Code rate of the data symbols.
    pub fn code_rate(self) -> CodeRate {
        use CodeRate::*;
        match self {
            Rate::Ofdm6 | Rate::Ofdm12 | Rate::Ofdm24 => R1_2,
            Rate::Ofdm48 => R2_3,
            Rate::Ofdm9 | Rate::Ofdm18 | Rate::Ofdm36 | Rate::Ofdm54 => R3_4,
            Rate::Ht { .. } | Rate::Vht { .. } => mcs_modulation(self.stream_mcs().unwrap_or(0)).1,
            _ => None,
        }
    }

    /// Channel width in MHz the rate occupies (DSSS: 22 MHz, reported as 20).
    pub fn width_mhz(self) -> u32 {
        match self {
            Rate::Ht { bw40: true, .. } => 40,
            Rate::Vht { width, .. } => width.mhz(),
            _ => 20,
        }
    }

    /// Modulation class for the control-response rule.
    pub fn class(self) -> ModulationClass {
        match self {
            Rate::Dsss1 | Rate::Dsss2 | Rate::Cck5_5 | Rate::Cck11 => ModulationClass::Dsss,
            Rate::Ht { .. } => ModulationClass::Ht,
            Rate::Vht { .. } => ModulationClass::Vht,
            Rate::Custom { .. } => ModulationClass::Custom,
            _ => ModulationClass::Ofdm,
        }
    }

    /// For an HT/VHT rate, the non-HT OFDM rate with the same per-stream modulation and
    /// coding (IEEE 802.11-2016 §10.6.6.5.2, Tables 10-7/10-8; 256-QAM and 64-QAM 5/6
    /// → 54 Mb/s), used to pick the rate of the ACK that answers it; other rates map to
    /// themselves.
    pub fn non_ht_reference(self) -> Rate {
        match self {
            Rate::Ht { .. } | Rate::Vht { .. } => match self.stream_mcs().unwrap_or(0) {
                0 => Rate::Ofdm6,
                1 => Rate::Ofdm12,
                2 => Rate::Ofdm18,
                3 => Rate::Ofdm24,
                4 => Rate::Ofdm36,
                5 => Rate::Ofdm48,
                _ => Rate::Ofdm54,
            },
            r => r,
        }
    }

    /// The rate in units of 500 kb/s, as radiotap and the supported-rates element carry
    /// it (None for HT and rates not representable).
    pub fn units_500k(self) -> Option<u8> {
        match self {
            Rate::Ht { .. } | Rate::Vht { .. } => None,
            r => u8::try_from(r.kbps() / 500).ok(),
        }
    }

    /// Is this a valid rate? HT: MCS 0–31. VHT: MCS 0–9 on 1–8 streams, without the
    /// combinations IEEE 802.11-2016 §21.5 excludes (MCS 9 at 20 MHz except on 3 or 6
    /// streams; MCS 6 at 80 MHz on 3 or 7; MCS 9 at 80 MHz on 6; MCS 9 at 160 MHz on 3).
    pub fn is_valid(self) -> bool {
        match self {
            Rate::Ht { mcs, .. } => mcs < 32,
            Rate::Vht { mcs, nss, width, .. } => {
                let excluded = matches!(
                    (width, mcs, nss),
                    (Width::Mhz20, 9, 1 | 2 | 4 | 5 | 7 | 8)
                        | (Width::Mhz80, 6, 3 | 7)
                        | (Width::Mhz80, 9, 6)
                        | (Width::Mhz160, 9, 3)
                );
                !excluded && self.n_dbps().is_some()
            }
            Rate::Custom { kbps } => kbps > 0,
            _ => true,
        }
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Rate::Ht { mcs, bw40, sgi } => {
                write!(f, "mcs{mcs}")?;
                if bw40 {
                    write!(f, "-40")?;
                }
                if sgi {
                    write!(f, "-sgi")?;
                }
                Ok(())
            }
            Rate::Vht { mcs, nss, width, sgi } => {
                write!(f, "vht{mcs}-{nss}ss-{}", width.mhz())?;
                if sgi {
                    write!(f, "-sgi")?;
                }
                Ok(())
            }
            Rate::Cck5_5 => write!(f, "5.5"),
            Rate::Custom { kbps } => write!(f, "custom{kbps}k"),
            r => write!(f, "{}", r.kbps() / 1000),
        }
    }
}

/// Error parsing a rate name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RateParseError(pub String);

impl fmt::Display for RateParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown rate {:?}: expected one of 1, 2, 5.5, 11, 6, 9, 12, 18, 24, 36, 48, 54 (Mb/s), \
             mcs0..mcs31 with optional -40 and -sgi suffixes, vhtM-Nss-W[-sgi] (VHT MCS M 0..9, \
             N 1..8 streams, W 20/40/80/160 MHz), or customNk",
            self.0
        )
    }
}

impl std::error::Error for RateParseError {}

impl FromStr for Rate {
    type Err = RateParseError;

    /// Parses `54`, `5.5`, `54M`, `mcs7`, `mcs15-40-sgi`, `vht9-2ss-80-sgi`, `custom1000k`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = || RateParseError(s.to_string());
        let t = s.trim().to_ascii_lowercase();
        if let Some(rest) = t.strip_prefix("mcs") {
            let mut parts = rest.split('-');
            let mcs: u8 = parts.next().and_then(|m| m.parse().ok()).ok_or_else(err)?;
            if mcs > 31 {
                return Err(err());
            }
            let (mut bw40, mut sgi) = (false, false);
            for p in parts {
                match p {
                    "40" => bw40 = true,
                    "20" => bw40 = false,
                    "sgi" => sgi = true,
                    "lgi" => sgi = false,
                    _ => return Err(err()),
                }
            }
            return Ok(Rate::Ht { mcs, bw40, sgi });
        }
        if let Some(rest) = t.strip_prefix("vht") {
            let mut parts = rest.split('-');
            let mcs: u8 = parts.next().and_then(|m| m.parse().ok()).ok_or_else(err)?;
            let (mut nss, mut width, mut sgi) = (1u8, Width::Mhz20, false);
            for p in parts {
                if let Some(n) = p.strip_suffix("ss") {
                    nss = n.parse().map_err(|_| err())?;
                } else if p == "sgi" {
                    sgi = true;
                } else if p == "lgi" {
                    sgi = false;
                } else {
                    width = p.parse().ok().and_then(Width::from_mhz).ok_or_else(err)?;
                }
            }
            let r = Rate::Vht { mcs, nss, width, sgi };
            return if r.is_valid() { Ok(r) } else { Err(err()) };
        }
        if let Some(rest) = t.strip_prefix("custom") {
            let kbps: u32 = rest.trim_end_matches('k').parse().map_err(|_| err())?;
            if kbps == 0 {
                return Err(err());
            }
            return Ok(Rate::Custom { kbps });
        }
        let num = t.trim_end_matches("mbps").trim_end_matches('m');
        Ok(match num {
            "1" => Rate::Dsss1,
            "2" => Rate::Dsss2,
            "5.5" => Rate::Cck5_5,
            "11" => Rate::Cck11,
            "6" => Rate::Ofdm6,
            "9" => Rate::Ofdm9,
            "12" => Rate::Ofdm12,
            "18" => Rate::Ofdm18,
            "24" => Rate::Ofdm24,
            "36" => Rate::Ofdm36,
            "48" => Rate::Ofdm48,
            "54" => Rate::Ofdm54,
            _ => return Err(err()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kbps_of_every_rate() {
        let ofdm: Vec<u32> = OFDM_RATES.iter().map(|r| r.kbps()).collect();
        assert_eq!(ofdm, [6000, 9000, 12000, 18000, 24000, 36000, 48000, 54000]);
        let ht20: Vec<u32> =
            (0..8).map(|mcs| Rate::Ht { mcs, bw40: false, sgi: false }.kbps()).collect();
        assert_eq!(ht20, [6500, 13000, 19500, 26000, 39000, 52000, 58500, 65000]);
        assert_eq!(Rate::Ht { mcs: 7, bw40: false, sgi: true }.kbps(), 72222);
        assert_eq!(Rate::Ht { mcs: 7, bw40: true, sgi: true }.kbps(), 150000);
        assert_eq!(Rate::Ht { mcs: 0, bw40: true, sgi: false }.kbps(), 13500);
    }

    #[test]
    fn parse_and_display_round_trip() {
        for s in [
            "1",
            "2",
            "5.5",
            "11",
            "6",
            "9",
            "12",
            "18",
            "24",
            "36",
            "48",
            "54",
            "mcs0",
            "mcs7-40-sgi",
            "mcs3-sgi",
        ] {
            let r: Rate = s.parse().unwrap();
            assert_eq!(r.to_string().parse::<Rate>().unwrap(), r, "{s}");
        }
        assert_eq!("54M".parse::<Rate>().unwrap(), Rate::Ofdm54);
        assert!("mcs32".parse::<Rate>().is_err());
        assert!("7".parse::<Rate>().unwrap_err().to_string().contains("\"7\""));
    }

    #[test]
    fn modulation_and_coding_follow_the_standard() {
        assert_eq!(Rate::Ofdm54.modulation(), Modulation::Qam64);
        assert_eq!(Rate::Ofdm54.code_rate(), CodeRate::R3_4);
        assert_eq!(Rate::Ofdm48.code_rate(), CodeRate::R2_3);
        assert_eq!(Rate::Ofdm9.code_rate(), CodeRate::R3_4);
        let m7 = Rate::Ht { mcs: 7, bw40: false, sgi: false };
        assert_eq!((m7.modulation(), m7.code_rate()), (Modulation::Qam64, CodeRate::R5_6));
    }
}
