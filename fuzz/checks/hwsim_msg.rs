// What the `hwsim_msg` fuzz target runs on each input; included (`include!`) by the
// target and by `crates/sdmac-netlink/tests/fuzz_corpus.rs`, which replays the corpus on
// stable Rust.
//
// Every decoder a medium daemon runs on what its netlink socket receives: the datagram
// walk, the classifier, the hwsim messages (and the rate series of a frame), NLMSG_ERROR
// and NLMSG_DONE, the controller's family replies. Whatever decodes as a hwsim message
// must emit again and decode to the same thing.

use sdmac_netlink::genl::ctrl::{FamilyInfo, GetFamily};
use sdmac_netlink::nl::{self, ErrorMsg, NlHeader, NlPacket};
use sdmac_netlink::{decode, Band, HwsimMsg};

/// Runs every decoder on `data`; panics only on a broken round trip.
pub fn check(data: &[u8]) {
    for p in nl::messages(data).flatten() {
        let _ = decode(&p, p.header().ty);
        let _ = ErrorMsg::parse(&p);
        let _ = nl::parse_done(&p);
        let _ = FamilyInfo::parse(&p);
        let _ = GetFamily::parse(&p);
        if let Ok(m) = HwsimMsg::parse(&p) {
            if let HwsimMsg::Frame(f) = &m {
                for (r, _) in f.rate_series().flatten() {
                    let _ = r.to_phy();
                    let _ = r.rx_rate_index(Band::Ghz2_4);
                    let _ = r.rx_rate_index(Band::Ghz5);
                }
            }
            // Re-emitting may legitimately fail (e.g. a delivery shorter than 24 bytes);
            // when it succeeds, the result must decode to the same message.
            let h = p.header();
            if let Ok(bytes) = m.to_vec(&NlHeader::request(h.ty, h.flags, h.seq, h.pid)) {
                let again = NlPacket::new_checked(&bytes).expect("emitted header");
                assert_eq!(HwsimMsg::parse(&again).expect("emitted message parses"), m);
            }
        }
    }
}
