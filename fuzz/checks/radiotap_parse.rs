// What the `radiotap_parse` fuzz target runs on each input; included (`include!`) by
// the target and by `crates/sdmac-frame/tests/fuzz_corpus.rs`, which replays the corpus
// on stable Rust.
//
// Radiotap header view, field iterator and Repr (which emits and parses back to
// itself, but for a field of unknown layout: parsing stops there, and it is not
// emitted), the rate it names, and the 802.11 frame behind it.

use sdmac_frame::radiotap::{Header, Repr, TxRate};

/// Parses `data` as radiotap + 802.11; panics on a Repr that does not survive its own
/// round trip.
pub fn check(data: &[u8]) {
    if let Ok(h) = Header::new_checked(data) {
        for f in h.fields() {
            let _ = f;
        }
        if let Ok(r) = Repr::parse(&h) {
            let _ = (r.fcs_at_end(), r.bad_fcs(), TxRate::from_repr(&r));
            let mut buf = vec![0u8; r.buffer_len()];
            let n = r.emit_into(&mut buf).expect("a parsed radiotap header emits");
            let again = Header::new_checked(&buf[..n]).expect("the emitted header is a header");
            let known = Repr { unknown_field: None, ..r };
            assert_eq!(Repr::parse(&again).expect("the emitted header parses"), known);
        }
        let _ = sdmac_frame::ieee80211::Frame::new_checked(h.payload());
    }
}
