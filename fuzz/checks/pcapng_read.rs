// What the `pcapng_read` fuzz target runs on each input; included (`include!`) by the
// target and by `crates/sdmac-frame/tests/fuzz_corpus.rs`, which replays the corpus on
// stable Rust.
//
// The pcapng reader, and each packet it gives read as the daemon's and the
// simulator's captures hold them (radiotap, then 802.11).

use sdmac_frame::radiotap::{Header, Repr};

/// Reads `data` as a pcapng file; panics on a packet longer than the file.
pub fn check(data: &[u8]) {
    if let Ok(packets) = sdmac_frame::pcapng::read_packets(data) {
        for (_, p) in packets {
            assert!(p.len() <= data.len(), "a packet is part of its file");
            if let Ok(h) = Header::new_checked(&p[..]) {
                let _ = Repr::parse(&h);
                let _ = sdmac_frame::ieee80211::Frame::new_checked(h.payload());
            }
        }
    }
}
