// What the `radiotap_parse` fuzz target runs on each input besides
// `radiotap_parse.rs`: the linux backend's reading of what its monitor socket
// receives. Included (`include!`) by the target and by
// `crates/sdmac-linux/tests/fuzz_corpus.rs`, which replays the corpus on stable Rust.
//
// `sdmac_linux::frames::read` classifies radiotap + MPDU as a TX-status echo, a
// received frame or a frame to skip; a received frame is a part of the input, its
// payload starts inside it, and its addresses are the MPDU's.

use sdmac_linux::frames::{read, Read};

/// Reads `data` as the linux backend does; panics on a received frame that is not the
/// input's.
pub fn check(data: &[u8]) {
    match read(data) {
        Read::Rx(rx) => {
            let within = data.as_ptr_range();
            assert!(within.contains(&rx.mpdu.as_ptr()), "the MPDU is the input's");
            assert!(rx.payload_offset <= rx.mpdu.len(), "the payload starts inside the MPDU");
            assert_eq!(&rx.mpdu[4..10], &rx.dst.0[..], "the destination is address 1");
        }
        Read::Echo { .. } | Read::Skip(_) => {}
    }
}
