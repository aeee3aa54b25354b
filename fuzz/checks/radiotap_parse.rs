// What the `radiotap_parse` fuzz target runs on each input; included (`include!`) by
// the target and by `crates/sdmac-frame/tests/fuzz_corpus.rs`, which replays the corpus
// on stable Rust.
//
// Radiotap header view, field iterator and Repr, and the 802.11 frame behind it.

use sdmac_frame::radiotap::{Header, Repr};

/// Parses `data` as radiotap + 802.11; must not panic.
pub fn check(data: &[u8]) {
    if let Ok(h) = Header::new_checked(data) {
        for f in h.fields() {
            let _ = f;
        }
        let _ = Repr::parse(&h);
        let _ = sdmac_frame::ieee80211::Frame::new_checked(h.payload());
    }
}
