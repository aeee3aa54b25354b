//! sdmac rates ↔ radiotap rates, and which rates a band has.

use sdmac_frame::radiotap::TxRate;
use sdmac_phy::{Rate, Width};

/// The band of a channel frequency.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Band {
    /// 2.4 GHz: DSSS/CCK, OFDM (ERP) and HT rates.
    Ghz2,
    /// 5 or 6 GHz: OFDM, HT and VHT rates.
    Ghz5,
}

impl Band {
    /// The band of `freq_mhz`, if it is a Wi-Fi channel frequency.
    pub fn of(freq_mhz: u32) -> Option<Band> {
        match freq_mhz {
            2400..=2500 => Some(Band::Ghz2),
            4900..=7125 => Some(Band::Ghz5),
            _ => None,
        }
    }

    /// Short name.
    pub fn name(self) -> &'static str {
        match self {
            Band::Ghz2 => "2.4 GHz",
            Band::Ghz5 => "5 GHz",
        }
    }

    /// Does the band have this rate?
    pub fn has(self, r: Rate) -> bool {
        if !r.is_valid() {
            return false;
        }
        match r {
            Rate::Dsss1 | Rate::Dsss2 | Rate::Cck5_5 | Rate::Cck11 => self == Band::Ghz2,
            Rate::Vht { .. } => self == Band::Ghz5,
            Rate::Custom { .. } => false,
            _ => true,
        }
    }
}

/// The radiotap rate to inject `r` with (None for a rate radiotap cannot name).
pub fn to_tx_rate(r: Rate) -> Option<TxRate> {
    match r {
        Rate::Ht { mcs, bw40, sgi } => Some(TxRate::Ht { mcs, bw40, short_gi: sgi }),
        Rate::Vht { mcs, nss, width, sgi } => {
            Some(TxRate::Vht { mcs, nss, width_mhz: width.mhz() as u16, short_gi: sgi })
        }
        Rate::Custom { .. } => None,
        r => r.units_500k().map(|units_500k| TxRate::Legacy { units_500k }),
    }
}

/// The sdmac rate of a radiotap rate (None for one sdmac does not name).
pub fn from_tx_rate(t: TxRate) -> Option<Rate> {
    Some(match t {
        TxRate::Legacy { units_500k } => match units_500k {
            2 => Rate::Dsss1,
            4 => Rate::Dsss2,
            11 => Rate::Cck5_5,
            22 => Rate::Cck11,
            12 => Rate::Ofdm6,
            18 => Rate::Ofdm9,
            24 => Rate::Ofdm12,
            36 => Rate::Ofdm18,
            48 => Rate::Ofdm24,
            72 => Rate::Ofdm36,
            96 => Rate::Ofdm48,
            108 => Rate::Ofdm54,
            _ => return None,
        },
        TxRate::Ht { mcs, bw40, short_gi } if mcs < 32 => Rate::Ht { mcs, bw40, sgi: short_gi },
        TxRate::Vht { mcs, nss, width_mhz, short_gi } => {
            let r =
                Rate::Vht { mcs, nss, width: Width::from_mhz(width_mhz as u32)?, sgi: short_gi };
            if !r.is_valid() {
                return None;
            }
            r
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use sdmac_phy::rate::{DSSS_RATES, OFDM_RATES};

    #[test]
    fn every_legacy_and_ht_rate_round_trips() {
        for r in DSSS_RATES
            .iter()
            .chain(OFDM_RATES.iter())
            .copied()
            .chain((0..32).map(|mcs| Rate::Ht { mcs, bw40: mcs % 2 == 0, sgi: mcs % 3 == 0 }))
        {
            assert_eq!(from_tx_rate(to_tx_rate(r).unwrap()), Some(r), "{r}");
        }
        let v = Rate::Vht { mcs: 7, nss: 2, width: Width::Mhz80, sgi: true };
        assert_eq!(from_tx_rate(to_tx_rate(v).unwrap()), Some(v));
        assert_eq!(to_tx_rate(Rate::Custom { kbps: 1000 }), None);
        assert_eq!(from_tx_rate(TxRate::Legacy { units_500k: 13 }), None);
    }

    #[test]
    fn bands() {
        assert_eq!(Band::of(2412), Some(Band::Ghz2));
        assert_eq!(Band::of(5180), Some(Band::Ghz5));
        assert_eq!(Band::of(900), None);
        assert!(Band::Ghz2.has(Rate::Dsss1) && !Band::Ghz5.has(Rate::Dsss1));
        assert!(Band::Ghz5.has(Rate::Ofdm54) && Band::Ghz2.has(Rate::Ofdm54));
        let v = Rate::Vht { mcs: 0, nss: 1, width: Width::Mhz20, sgi: false };
        assert!(Band::Ghz5.has(v) && !Band::Ghz2.has(v));
        assert!(!Band::Ghz2.has(Rate::Custom { kbps: 500 }));
    }
}
