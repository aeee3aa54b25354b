//! The `hwsim_msg` fuzz target on stable Rust: every file of its committed corpus
//! (`fuzz/seeds/hwsim_msg/`), and inputs derived from them, through the same check the
//! target runs (`fuzz/checks/hwsim_msg.rs`). `make fuzz` runs the real campaign.

mod replay {
    include!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fuzz/checks/replay.rs"));
}
mod hwsim_msg {
    include!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fuzz/checks/hwsim_msg.rs"));
}

#[test]
fn hwsim_msg_corpus() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/seeds/hwsim_msg");
    assert!(replay::replay(&dir, hwsim_msg::check) > 0);
}

/// The seeds reach the decoders' depths: each decodes as what its name says.
#[test]
fn the_seeds_decode_as_named() {
    use sdmac_netlink::genl::ctrl::FamilyInfo;
    use sdmac_netlink::nl::{self, ErrorMsg};
    use sdmac_netlink::HwsimMsg;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/seeds/hwsim_msg");
    let first = |name: &str| std::fs::read(dir.join(name)).unwrap();
    for (name, kind) in [
        ("register.bin", "Register"),
        ("frame.bin", "Frame"),
        ("tx_info.bin", "TxInfo"),
        ("delivery.bin", "Delivery"),
    ] {
        let bytes = first(name);
        let p = nl::messages(&bytes).next().unwrap().unwrap();
        let m = HwsimMsg::parse(&p).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(format!("{m:?}").starts_with(kind), "{name}: {m:?}");
    }
    let bytes = first("ctrl_family.bin");
    let info = FamilyInfo::parse(&nl::messages(&bytes).next().unwrap().unwrap()).unwrap();
    assert_eq!(info.id, 0x1d);
    let bytes = first("error.bin");
    assert_eq!(
        ErrorMsg::parse(&nl::messages(&bytes).next().unwrap().unwrap()).unwrap().errno(),
        Some(16)
    );
    let bytes = first("two_messages.bin");
    assert_eq!(nl::messages(&bytes).count(), 2);
}

mod nl80211_msg {
    include!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fuzz/checks/nl80211_msg.rs"));
}

#[test]
fn nl80211_msg_corpus() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/seeds/nl80211_msg");
    assert!(replay::replay(&dir, nl80211_msg::check) > 0);
}
