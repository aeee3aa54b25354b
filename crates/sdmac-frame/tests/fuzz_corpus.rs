//! The sdmac-frame fuzz targets of the workspace's `fuzz/` on stable Rust: every file of
//! each committed corpus (`fuzz/seeds/<target>/`), and inputs derived from them, through
//! the same check the target runs (`fuzz/checks/<target>.rs`). `make fuzz` runs the
//! real campaign (cargo fuzz, nightly).

mod replay {
    include!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fuzz/checks/replay.rs"));
}
mod ieee80211_parse {
    include!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fuzz/checks/ieee80211_parse.rs"));
}
mod pcapng_read {
    include!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fuzz/checks/pcapng_read.rs"));
}
mod radiotap_parse {
    include!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fuzz/checks/radiotap_parse.rs"));
}

fn corpus(target: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/seeds").join(target)
}

#[test]
fn ieee80211_parse_corpus() {
    assert!(replay::replay(&corpus("ieee80211_parse"), ieee80211_parse::check) > 0);
}

#[test]
fn pcapng_read_corpus() {
    assert!(replay::replay(&corpus("pcapng_read"), pcapng_read::check) > 0);
}

#[test]
fn radiotap_parse_corpus() {
    assert!(replay::replay(&corpus("radiotap_parse"), radiotap_parse::check) > 0);
}

/// The seeds reach the parsers' depths: the frames and the capture parse whole.
#[test]
fn the_seeds_parse() {
    for name in ["ack.bin", "beacon.bin", "data.bin", "qos_data.bin"] {
        let f = std::fs::read(corpus("ieee80211_parse").join(name)).unwrap();
        let frame = sdmac_frame::ieee80211::Frame::new_checked(&f[..])
            .unwrap_or_else(|e| panic!("{name}: {e:?}"));
        assert!(sdmac_frame::ieee80211::Repr::parse(&frame).is_ok(), "{name}");
        let r = std::fs::read(corpus("radiotap_parse").join(name)).unwrap();
        let h = sdmac_frame::radiotap::Header::new_checked(&r[..])
            .unwrap_or_else(|e| panic!("{name}: {e:?}"));
        assert_eq!(h.payload(), &f[..], "{name}: the radiotap seed carries the 802.11 seed");
    }
    let p = std::fs::read(corpus("pcapng_read").join("sim_two_stations.pcapng")).unwrap();
    assert_eq!(sdmac_frame::pcapng::read_packets(&p).unwrap().len(), 14);
}
