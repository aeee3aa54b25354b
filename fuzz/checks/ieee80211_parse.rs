// What the `ieee80211_parse` fuzz target runs on each input; included (`include!`) by
// the target and by `crates/sdmac-frame/tests/fuzz_corpus.rs`, which replays the corpus
// on stable Rust.
//
// The 802.11 header view and every accessor the daemon and the backends read (frame
// control, addresses, sequence, QoS and HT control, payload); the header Repr, which
// emits and parses back to itself; for a beacon, its elements, SSID, DS channel and
// rates; the FCS check.

use sdmac_frame::ieee80211::{beacon::BeaconBody, Frame, Repr};

/// Parses `data` as an 802.11 frame; panics on a header Repr that does not survive
/// its own round trip.
pub fn check(data: &[u8]) {
    if let Ok(frame) = Frame::new_checked(data) {
        let fc = frame.frame_control();
        let _ = (fc.frame_type(), frame.kind(), frame.duration(), frame.addr1());
        let _ = (frame.addr2(), frame.addr3(), frame.addr4());
        let _ = (frame.seq_ctrl(), frame.seq_number(), frame.frag_number());
        let _ = (frame.qos_control(), frame.ht_control());
        assert_eq!(frame.header_len() + frame.payload().len(), data.len());
        if let Ok(repr) = Repr::parse(&frame) {
            let mut buf = [0u8; 64];
            let n = repr.emit_into(&mut buf).expect("a parsed header emits");
            assert_eq!(n, frame.header_len(), "the emitted header is as long as the parsed one");
            let again = Frame::new_checked(&buf[..n]).expect("the emitted header is a frame");
            assert_eq!(Repr::parse(&again).expect("the emitted header parses"), repr);
        }
        if let Ok(body) = BeaconBody::parse(frame.payload(), frame.header_len()) {
            for e in body.elements() {
                let _ = e;
            }
            let _ = body.ssid();
            let _ = body.ds_channel();
            if let Ok(rates) = body.rates() {
                for r in rates {
                    let _ = r;
                }
            }
        }
    }
    let _ = sdmac_frame::fcs::check_fcs(data);
}
