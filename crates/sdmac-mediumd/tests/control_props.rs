//! The control decoder takes bytes from any local process: any byte stream gives
//! whole requests or a clear error naming the offending byte, never a panic (the
//! rules of the `control_decoder` fuzz target, `fuzz/checks/control_decoder.rs`), and a
//! stream of valid requests cut anywhere decodes to the same requests.

use proptest::prelude::*;
use sdmac_mediumd::control::{encode_request, Decoder, Request};
use sdmac_types::MacAddress;

fn mac() -> impl Strategy<Value = MacAddress> {
    any::<[u8; 6]>().prop_map(MacAddress)
}

fn request() -> impl Strategy<Value = Request> {
    prop_oneof![
        (mac(), mac(), any::<i32>()).prop_map(|(from, to, snr_db)| Request::Snr {
            from,
            to,
            snr_db
        }),
        mac().prop_map(Request::DelByMac),
        any::<i32>().prop_map(Request::DelById),
        mac().prop_map(Request::Add),
        (mac(), mac(), 0u32..=(1 << 31)).prop_map(|(from, to, w)| Request::ErrProb {
            from,
            to,
            prob: w as f64 / 2_147_483_648.0
        }),
        (mac(), -1e4f32..1e4, -1e4f32..1e4, -1e3f32..1e3)
            .prop_map(|(mac, x, y, z)| Request::Position { mac, x, y, z }),
        (mac(), any::<i32>()).prop_map(|(mac, dbm)| Request::TxPower { mac, dbm }),
        (mac(), any::<i32>()).prop_map(|(mac, id)| Request::Medium { mac, id }),
    ]
}

mod control_decoder {
    include!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fuzz/checks/control_decoder.rs"));
}

proptest! {
    #[test]
    fn any_stream_decodes_or_names_the_bad_byte(data in prop::collection::vec(any::<u8>(), 0..1500)) {
        control_decoder::check(&data);
    }

    /// Valid requests with a random byte somewhere among them: the requests before it
    /// decode, then the byte is named if it is no request type.
    #[test]
    fn valid_requests_then_garbage(step in any::<u8>(), reqs in prop::collection::vec(request(), 0..6), junk in prop::collection::vec(any::<u8>(), 0..40)) {
        let mut data = vec![step];
        for r in &reqs {
            data.extend(encode_request(r));
        }
        data.extend(&junk);
        control_decoder::check(&data);
    }

    #[test]
    fn never_panics(chunks in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..64), 0..8)) {
        let mut d = Decoder::new();
        for c in chunks {
            d.push(&c);
            while let Ok(Some(_)) = d.next_request() {}
        }
    }

    #[test]
    fn split_streams_decode_the_same(reqs in prop::collection::vec(request(), 1..10), cuts in prop::collection::vec(1usize..40, 1..20)) {
        let stream: Vec<u8> = reqs.iter().flat_map(encode_request).collect();
        let mut d = Decoder::new();
        let mut got = Vec::new();
        let mut at = 0;
        let mut k = 0;
        while at < stream.len() {
            let n = cuts[k % cuts.len()].min(stream.len() - at);
            d.push(&stream[at..at + n]);
            at += n;
            k += 1;
            while let Some((r, _)) = d.next_request().unwrap() {
                got.push(r);
            }
        }
        prop_assert_eq!(got, reqs);
    }
}
