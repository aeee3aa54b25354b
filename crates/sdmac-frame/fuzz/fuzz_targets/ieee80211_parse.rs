#![no_main]
//! 802.11 header view, header Repr and (for beacons) the element parser.

use libfuzzer_sys::fuzz_target;
use sdmac_frame::ieee80211::{beacon::BeaconBody, Frame, Repr};

fuzz_target!(|data: &[u8]| {
    if let Ok(frame) = Frame::new_checked(data) {
        let _ = Repr::parse(&frame);
        if let Ok(body) = BeaconBody::parse(frame.payload(), frame.header_len()) {
            for e in body.elements() {
                let _ = e;
            }
        }
    }
    let _ = sdmac_frame::fcs::check_fcs(data);
});
