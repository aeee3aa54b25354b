// What the `ieee80211_parse` fuzz target runs on each input; included (`include!`) by
// the target and by `crates/sdmac-frame/tests/fuzz_corpus.rs`, which replays the corpus
// on stable Rust.
//
// 802.11 header view, header Repr and (for beacons) the element parser; the FCS check.

use sdmac_frame::ieee80211::{beacon::BeaconBody, Frame, Repr};

/// Parses `data` as an 802.11 frame; must not panic.
pub fn check(data: &[u8]) {
    if let Ok(frame) = Frame::new_checked(data) {
        let _ = Repr::parse(&frame);
        if let Ok(body) = BeaconBody::parse(frame.payload(), frame.header_len()) {
            for e in body.elements() {
                let _ = e;
            }
        }
    }
    let _ = sdmac_frame::fcs::check_fcs(data);
}
