//! Property tests of the nl80211 codec: decoding never panics, emit → parse is the
//! identity.

use proptest::prelude::*;
use sdmac_netlink::nl::{self, NlHeader, NlPacket};
use sdmac_netlink::nl80211::{
    BandInfo, BandRateMask, Bitrate, ChannelDef, FreqInfo, IftypeSet, InterfaceInfo, MntrFlags,
    NewInterface, Nl80211Message, SetTxBitrateMask, SetWiphy, TxPower, WiphyInfo,
};

mod nl80211_msg {
    include!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fuzz/checks/nl80211_msg.rs"));
}

const FAMILY: u16 = 0x1c;

fn hdr() -> NlHeader {
    NlHeader::request(FAMILY, nl::flags::REQUEST, 3, 0)
}

fn name() -> impl Strategy<Value = String> {
    "[a-z0-9]{1,15}"
}

fn freq() -> impl Strategy<Value = FreqInfo> {
    (any::<u32>(), any::<bool>(), any::<bool>(), any::<bool>(), proptest::option::of(any::<u32>()))
        .prop_map(|(mhz, disabled, no_ir, radar, max_tx_power_mbm)| FreqInfo {
            mhz,
            disabled,
            no_ir,
            radar,
            max_tx_power_mbm,
        })
}

fn band() -> impl Strategy<Value = BandInfo> {
    (
        0u16..6,
        proptest::collection::vec(freq(), 0..6),
        proptest::collection::vec((any::<u32>(), any::<bool>()), 0..6),
        proptest::option::of(any::<u16>()),
        proptest::option::of(any::<u32>()),
    )
        .prop_map(|(band, freqs, rates, ht_capa, vht_capa)| BandInfo {
            band,
            freqs,
            rates: rates
                .into_iter()
                .map(|(r, s)| Bitrate { rate_100kbps: r, short_preamble: s })
                .collect(),
            ht_capa,
            vht_capa,
        })
}

proptest! {
    #[test]
    fn decoders_never_panic(body in proptest::collection::vec(any::<u8>(), 0..300), cmd in 0u8..64) {
        let mut v = vec![0u8; 20];
        NlHeader::request(FAMILY, 0, 1, 0).emit_with_len(20 + body.len(), &mut v).unwrap();
        v[16] = cmd;
        v.extend_from_slice(&body);
        nl80211_msg::check(&v);
        nl80211_msg::check(&body);
    }

    #[test]
    fn wiphy_round_trips(
        wiphy in any::<u32>(),
        n in proptest::option::of(name()),
        iftypes in any::<u32>(),
        features in proptest::option::of(any::<u32>()),
        ext in proptest::option::of(proptest::collection::vec(any::<u8>(), 0..8)),
        bands in proptest::collection::vec(band(), 0..3),
        commands in proptest::collection::vec(any::<u32>(), 0..5),
        cov in proptest::option::of(any::<u8>()),
        rs in proptest::option::of(any::<u8>()),
        rts in proptest::option::of(any::<u32>()),
    ) {
        let w = WiphyInfo {
            wiphy,
            name: n.as_deref(),
            generation: None,
            iftypes: IftypeSet(iftypes),
            software_iftypes: IftypeSet(iftypes >> 3),
            feature_flags: features,
            ext_features: ext.as_deref(),
            bands,
            commands,
            coverage_class: cov,
            retry_short: rs,
            retry_long: None,
            frag_threshold: None,
            rts_threshold: rts,
        };
        let b = w.to_vec(&hdr()).unwrap();
        prop_assert_eq!(b.len(), w.buffer_len());
        prop_assert_eq!(WiphyInfo::parse(&NlPacket::new_checked(&b).unwrap()).unwrap(), w);
    }

    #[test]
    fn requests_round_trip(
        ifindex in any::<u32>(),
        wiphy in proptest::option::of(any::<u32>()),
        f in any::<u32>(),
        width in proptest::option::of(0u32..14),
        cf1 in proptest::option::of(any::<u32>()),
        power in proptest::option::of((0u32..3, proptest::option::of(any::<i32>()))),
        cov in proptest::option::of(any::<u8>()),
        legacy in proptest::option::of(proptest::collection::vec(any::<u8>(), 0..12)),
        ht in proptest::option::of(proptest::collection::vec(any::<u8>(), 0..12)),
        vht in proptest::option::of(any::<[u16; 8]>()),
        ifname in name(),
        flags in 0u32..256,
        mac in proptest::option::of(any::<[u8; 6]>()),
    ) {
        let s = SetWiphy {
            wiphy,
            ifindex: Some(ifindex),
            channel: Some(ChannelDef { freq: f, width, center_freq1: cf1, ..Default::default() }),
            tx_power: power.map(|(setting, level_mbm)| TxPower { setting, level_mbm }),
            coverage_class: cov,
            ..Default::default()
        };
        let b = s.to_vec(&hdr()).unwrap();
        prop_assert_eq!(SetWiphy::parse(&NlPacket::new_checked(&b).unwrap()).unwrap(), s);

        let m = SetTxBitrateMask { ifindex, bands: vec![BandRateMask { band: 1, legacy, ht, vht, gi: cov }] };
        let b = m.to_vec(&hdr()).unwrap();
        prop_assert_eq!(SetTxBitrateMask::parse(&NlPacket::new_checked(&b).unwrap()).unwrap(), m);

        let n = NewInterface { wiphy: ifindex, ifname: &ifname, iftype: 6, mntr_flags: Some(MntrFlags(flags)), mac, socket_owner: flags & 1 == 1 };
        let b = n.to_vec(&hdr()).unwrap();
        prop_assert_eq!(NewInterface::parse(&NlPacket::new_checked(&b).unwrap()).unwrap(), n);

        let i = InterfaceInfo { cmd: 7, ifindex: Some(ifindex), ifname: Some(&ifname), wiphy: f, iftype: width, mac, freq: cf1, tx_power_mbm: power.and_then(|p| p.1), ..Default::default() };
        let b = i.to_vec(&hdr()).unwrap();
        prop_assert_eq!(InterfaceInfo::parse(&NlPacket::new_checked(&b).unwrap()).unwrap(), i);
    }
}
