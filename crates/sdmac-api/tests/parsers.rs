//! The text parsers of the API (rate series, MAC addresses) take untrusted input:
//! they never panic, and what they print they read back.

use proptest::prelude::*;
use sdmac_api::attribute::parse_mac;
use sdmac_api::{format_rate_series, parse_rate_series, MacAddress, Rate, RateSeries};

fn rate() -> impl Strategy<Value = Rate> {
    prop_oneof![
        Just(Rate::Ofdm6),
        Just(Rate::Ofdm9),
        Just(Rate::Ofdm12),
        Just(Rate::Ofdm18),
        Just(Rate::Ofdm24),
        Just(Rate::Ofdm36),
        Just(Rate::Ofdm48),
        Just(Rate::Ofdm54),
        Just(Rate::Dsss1),
        Just(Rate::Cck5_5),
        (0u8..8, any::<bool>(), any::<bool>()).prop_map(|(mcs, bw40, sgi)| Rate::Ht {
            mcs,
            bw40,
            sgi
        }),
    ]
}

proptest! {
    #[test]
    fn rate_series_never_panics(s in "\\PC{0,40}") {
        let _ = parse_rate_series(&s);
    }

    #[test]
    fn rate_series_round_trip(entries in prop::collection::vec((rate(), 1u8..=15), 1..=4)) {
        let r = RateSeries::new(&entries).unwrap();
        let text = format_rate_series(&r);
        prop_assert_eq!(parse_rate_series(&text).unwrap(), r);
    }

    #[test]
    fn mac_never_panics_and_round_trips(s in "\\PC{0,24}", b in any::<[u8; 6]>()) {
        let _ = parse_mac(&s);
        let m = MacAddress(b);
        prop_assert_eq!(parse_mac(&m.to_string()), Some(m));
    }
}

proptest! {
    /// Any string: parsing never panics, and a name that parses is written back as
    /// given and reads back the same.
    #[test]
    fn backend_name_never_panics_and_round_trips(s in "(emu|hwsim|linux|EMU|x)?:?\\PC{0,30}") {
        if let Ok(n) = sdmac_api::BackendName::parse(&s) {
            prop_assert_eq!(n.to_string(), s.clone());
            prop_assert_eq!(sdmac_api::BackendName::parse(&n.to_string()).unwrap(), n);
        } else {
            let e = sdmac_api::BackendName::parse(&s).unwrap_err();
            let quoted = format!("{:?}", s);
            prop_assert!(e.to_string().contains(&quoted));
        }
    }
}
