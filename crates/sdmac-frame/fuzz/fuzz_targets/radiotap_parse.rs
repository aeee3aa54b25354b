#![no_main]
//! Radiotap header view, field iterator and Repr.

use libfuzzer_sys::fuzz_target;
use sdmac_frame::radiotap::{Header, Repr};

fuzz_target!(|data: &[u8]| {
    if let Ok(h) = Header::new_checked(data) {
        for f in h.fields() {
            let _ = f;
        }
        let _ = Repr::parse(&h);
        let _ = sdmac_frame::ieee80211::Frame::new_checked(h.payload());
    }
});
