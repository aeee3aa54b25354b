// What the `nl80211_msg` fuzz target runs on each input; included (`include!`) by the
// target and by `crates/sdmac-netlink/tests/fuzz_corpus.rs`, which replays the corpus on
// stable Rust.
//
// Every nl80211 decoder the `linux` backend runs on what the kernel answers (and the
// request parsers): the datagram walk, NLMSG_ERROR, the wiphy and interface
// descriptions (merged as a split dump is), the requests. Whatever decodes must emit
// again and decode to the same thing.

use sdmac_netlink::nl::{self, ErrorMsg, NlHeader, NlPacket};
use sdmac_netlink::nl80211::{
    DelInterface, GetInterface, GetWiphy, InterfaceInfo, NewInterface, Nl80211Message,
    SetInterface, SetTxBitrateMask, SetWiphy, WiphyInfo,
};

fn round_trip<'a, M, P>(p: &NlPacket<'a>, parse: P)
where
    M: Nl80211Message + PartialEq + core::fmt::Debug,
    P: for<'b> Fn(&NlPacket<'b>) -> sdmac_netlink::Result<M>,
{
    if let Ok(m) = parse(p) {
        let h = p.header();
        // Re-emitting may legitimately fail (an attribute grown past 64 KiB); when it
        // succeeds, the result must decode to the same message.
        if let Ok(bytes) = m.to_vec(&NlHeader::request(h.ty, h.flags, h.seq, h.pid)) {
            let again = NlPacket::new_checked(&bytes).expect("emitted header");
            assert_eq!(parse(&again).expect("emitted message parses"), m);
        }
    }
}

/// Runs every decoder on `data`; panics only on a broken round trip.
pub fn check(data: &[u8]) {
    let mut wiphy: Option<WiphyInfo<'_>> = None;
    for p in nl::messages(data).flatten() {
        let _ = ErrorMsg::parse(&p);
        let _ = nl::parse_done(&p);
        if let Ok(w) = WiphyInfo::parse(&p) {
            let _ = w.supports_monitor();
            let _ = w.has_ext_feature(w.wiphy);
            let _ = w.band_of(w.wiphy);
            match &mut wiphy {
                Some(all) => all.merge(w),
                None => wiphy = Some(w),
            }
        }
        if let Ok(i) = InterfaceInfo::parse(&p) {
            let h = p.header();
            if let Ok(bytes) = i.to_vec(&NlHeader::request(h.ty, h.flags, h.seq, h.pid)) {
                let again = NlPacket::new_checked(&bytes).expect("emitted header");
                assert_eq!(InterfaceInfo::parse(&again).expect("emitted message parses"), i);
            }
        }
        if let Ok(w) = WiphyInfo::parse(&p) {
            let h = p.header();
            if let Ok(bytes) = w.to_vec(&NlHeader::request(h.ty, h.flags, h.seq, h.pid)) {
                let again = NlPacket::new_checked(&bytes).expect("emitted header");
                assert_eq!(WiphyInfo::parse(&again).expect("emitted message parses"), w);
            }
        }
        if let Ok(m) = NewInterface::parse(&p) {
            let h = p.header();
            if let Ok(bytes) = m.to_vec(&NlHeader::request(h.ty, h.flags, h.seq, h.pid)) {
                let again = NlPacket::new_checked(&bytes).expect("emitted header");
                assert_eq!(NewInterface::parse(&again).expect("emitted message parses"), m);
            }
        }
        round_trip(&p, GetWiphy::parse);
        round_trip(&p, GetInterface::parse);
        round_trip(&p, DelInterface::parse);
        round_trip(&p, SetInterface::parse);
        round_trip(&p, SetWiphy::parse);
        round_trip(&p, SetTxBitrateMask::parse);
    }
    // the merged wiphy of a split dump emits and decodes to itself too
    if let Some(w) = wiphy {
        if let Ok(bytes) = w.to_vec(&NlHeader::request(0x1c, 0, 0, 0)) {
            let again = NlPacket::new_checked(&bytes).expect("emitted header");
            assert_eq!(WiphyInfo::parse(&again).expect("merged wiphy parses"), w);
        }
    }
}
