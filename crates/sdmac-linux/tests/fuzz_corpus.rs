//! The `radiotap_parse` fuzz target's second check on stable Rust: every file of its
//! committed corpus (`fuzz/seeds/radiotap_parse/`), and inputs derived from them,
//! through the linux backend's reading of its monitor socket
//! (`fuzz/checks/linux_read.rs`). `make fuzz` runs the real campaign.

mod replay {
    include!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fuzz/checks/replay.rs"));
}
mod linux_read {
    include!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fuzz/checks/linux_read.rs"));
}

#[test]
fn radiotap_parse_corpus_through_the_backend() {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/seeds/radiotap_parse");
    assert!(replay::replay(&dir, linux_read::check) > 0);
}

/// The seeds are frames the backend receives: each is read as a received frame.
#[test]
fn the_seeds_are_received_frames() {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/seeds/radiotap_parse");
    for name in ["beacon.bin", "data.bin", "qos_data.bin"] {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        let r = sdmac_linux::frames::read(&bytes);
        assert!(matches!(r, sdmac_linux::frames::Read::Rx(_)), "{name}: {r:?}");
    }
}
