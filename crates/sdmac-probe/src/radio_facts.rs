//! What the probe picks from a radio's capabilities: the channel to use, and the
//! rates to try on it.

use sdmac_frame::radiotap::TxRate;
use sdmac_linux::control::Wiphy;
use sdmac_netlink::nl80211::BandInfo;

/// The channel to probe on when none is asked for: 2412 MHz where the radio has it
/// enabled, else its first enabled channel.
pub fn default_freq(w: &Wiphy) -> Option<u32> {
    let enabled = || w.bands.iter().flat_map(|b| b.freqs.iter()).filter(|f| !f.disabled);
    enabled().find(|f| f.mhz == 2412).or_else(|| enabled().next()).map(|f| f.mhz)
}

/// The band of channel `mhz`.
pub fn band(w: &Wiphy, mhz: u32) -> Option<&BandInfo> {
    w.band_of(mhz)
}

/// A legacy rate of a band (100 kb/s units) as a radiotap rate.
pub fn legacy(rate_100kbps: u32) -> TxRate {
    TxRate::Legacy { units_500k: (rate_100kbps / 5).min(u8::MAX as u32) as u8 }
}

/// The band's lowest and highest legacy rates (100 kb/s units).
pub fn lowest_highest(b: &BandInfo) -> Option<(u32, u32)> {
    let lo = b.rates.iter().map(|r| r.rate_100kbps).min()?;
    let hi = b.rates.iter().map(|r| r.rate_100kbps).max()?;
    Some((lo, hi))
}

/// The rate to put alone in a bitrate mask: the band's highest legacy rate that is
/// not `avoid` (the rate rate control chose without a mask), so the effect shows.
pub fn mask_rate(b: &BandInfo, avoid: Option<TxRate>) -> Option<u32> {
    let mut rates: Vec<u32> = b.rates.iter().map(|r| r.rate_100kbps).collect();
    rates.sort_unstable();
    rates.into_iter().rev().find(|&r| Some(legacy(r)) != avoid)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sdmac_netlink::nl80211::{Bitrate, FreqInfo};

    fn band(freqs: &[(u32, bool)], rates: &[u32]) -> BandInfo {
        BandInfo {
            band: 0,
            freqs: freqs
                .iter()
                .map(|&(mhz, disabled)| FreqInfo { mhz, disabled, ..Default::default() })
                .collect(),
            rates: rates
                .iter()
                .map(|&r| Bitrate { rate_100kbps: r, short_preamble: false })
                .collect(),
            ..Default::default()
        }
    }

    #[test]
    fn picks() {
        let g = band(&[(2412, false), (2417, false)], &[10, 20, 55, 110, 60, 540]);
        let a = band(&[(5180, false)], &[60, 90, 540]);
        let w = Wiphy { bands: vec![g.clone(), a.clone()], ..Default::default() };
        assert_eq!(default_freq(&w), Some(2412));
        let w5 =
            Wiphy { bands: vec![band(&[(2412, true)], &[10]), a.clone()], ..Default::default() };
        assert_eq!(default_freq(&w5), Some(5180));
        assert_eq!(lowest_highest(&g), Some((10, 540)));
        assert_eq!(legacy(55), TxRate::Legacy { units_500k: 11 });
        assert_eq!(mask_rate(&g, Some(legacy(10))), Some(540));
        assert_eq!(mask_rate(&g, Some(legacy(540))), Some(110));
        assert_eq!(default_freq(&Wiphy::default()), None);
    }
}
