//! What a channel's centre frequency means on the wire: its channel number (a
//! beacon's DS parameter set, a capture) and its radiotap channel flags.

use crate::radiotap::channel_flags::{CCK, GHZ2, GHZ5, OFDM};

/// The IEEE channel number of centre frequency `freq_mhz`: 1–13 at 2412–2472 MHz, 14 at
/// 2484, (f − 5000) / 5 at 5 GHz; 0 for anything else.
pub fn number(freq_mhz: u32) -> u8 {
    match freq_mhz {
        2484 => 14,
        2412..=2472 => ((freq_mhz - 2407) / 5) as u8,
        5000..=5900 => ((freq_mhz - 5000) / 5) as u8,
        _ => 0,
    }
}

/// Radiotap channel flags of a frame sent on `freq_mhz`: the band, and CCK (`cck`:
/// a DSSS/CCK rate) or OFDM.
pub fn radiotap_flags(freq_mhz: u32, cck: bool) -> u16 {
    let band = if freq_mhz < 3000 { GHZ2 } else { GHZ5 };
    band | if cck { CCK } else { OFDM }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_of_both_bands() {
        assert_eq!((number(2412), number(2437), number(2472), number(2484)), (1, 6, 13, 14));
        assert_eq!((number(5180), number(5825)), (36, 165));
        assert_eq!((number(2400), number(900), number(6000)), (0, 0, 0));
    }

    #[test]
    fn flags_of_band_and_modulation() {
        assert_eq!(radiotap_flags(2412, true), 0x00a0);
        assert_eq!(radiotap_flags(2412, false), 0x00c0);
        assert_eq!(radiotap_flags(5180, false), 0x0140);
    }
}
