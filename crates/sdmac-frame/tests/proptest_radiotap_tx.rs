//! Property tests of the injection header and the TX-status echo: building a TX
//! header and parsing it back gives the same rate, retries and flags; reading an
//! echo never panics whatever the bytes.

use proptest::prelude::*;
use sdmac_frame::radiotap::{tx_flags, Header, Repr, TxParams, TxRate, TxStatus};

fn tx_rate() -> impl Strategy<Value = TxRate> {
    prop_oneof![
        any::<u8>().prop_map(|units_500k| TxRate::Legacy { units_500k }),
        (0u8..77, any::<bool>(), any::<bool>()).prop_map(|(mcs, bw40, short_gi)| TxRate::Ht {
            mcs,
            bw40,
            short_gi
        }),
        (0u8..10, 1u8..9, prop::sample::select(vec![20u16, 40, 80, 160]), any::<bool>()).prop_map(
            |(mcs, nss, width_mhz, short_gi)| TxRate::Vht { mcs, nss, width_mhz, short_gi }
        ),
    ]
}

proptest! {
    #[test]
    fn tx_header_round_trips(rate in proptest::option::of(tx_rate()), retries in any::<u8>(), no_ack in any::<bool>(), keep_seq in any::<bool>()) {
        let p = TxParams { rate, retries, no_ack, keep_seq };
        let mut buf = [0u8; 64];
        let n = p.emit_into(&mut buf).unwrap();
        let h = Header::new_checked(&buf[..n]).unwrap();
        prop_assert_eq!(h.header_len(), n);
        let r = Repr::parse(&h).unwrap();
        let s = TxStatus::from_repr(&r).unwrap();
        prop_assert_eq!(s.rate, rate);
        prop_assert_eq!(s.retries, rate.map(|_| retries));
        prop_assert_eq!(s.tx_flags & tx_flags::NOACK != 0, no_ack);
        prop_assert_eq!(s.tx_flags & tx_flags::NOSEQNO != 0, keep_seq);
        prop_assert!(!s.failed());
    }

    #[test]
    fn reading_an_echo_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..80)) {
        if let Ok(h) = Header::new_checked(&bytes[..]) {
            if let Ok(r) = Repr::parse(&h) {
                if let Some(s) = TxStatus::from_repr(&r) {
                    let _ = (s.failed(), s.attempts());
                }
                let _ = TxRate::from_repr(&r);
            }
        }
    }

    #[test]
    fn echo_headers_with_fail_and_retries(fail in any::<bool>(), retries in any::<u8>(), rate in tx_rate()) {
        // An echo as Linux builds one: TX flags, DATA_RETRIES and the rate.
        let mut p = TxParams { rate: Some(rate), retries, ..TxParams::default() }.repr();
        p.tx_flags = Some(if fail { tx_flags::FAIL } else { 0 });
        let mut buf = [0u8; 64];
        let n = p.emit_into(&mut buf).unwrap();
        let s = TxStatus::from_repr(&Repr::parse(&Header::new_checked(&buf[..n]).unwrap()).unwrap()).unwrap();
        prop_assert_eq!(s.failed(), fail);
        prop_assert_eq!(s.attempts(), retries as u16 + 1);
        prop_assert_eq!(s.rate, Some(rate));
    }
}
