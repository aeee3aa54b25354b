//! The `wmconfig` fuzz target on stable Rust: every file of its committed corpus
//! (`fuzz/seeds/wmconfig/`) of `tests/corpus/` and of the configurations in `../shared/data`, and inputs derived from them,
//! through the same check the target runs (`fuzz/checks/wmconfig.rs`). `make fuzz`
//! runs the real campaign.

mod replay {
    include!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fuzz/checks/replay.rs"));
}
mod wmconfig {
    include!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fuzz/checks/wmconfig.rs"));
}

#[test]
fn wmconfig_corpus() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    assert!(replay::replay(&root.join("../../fuzz/seeds/wmconfig"), wmconfig::check) > 0);
    assert!(replay::replay(&root.join("tests/corpus"), wmconfig::check) > 0);
    // The real configurations users feed to a medium daemon (../shared/data; its
    // absence fails the test).
    for d in ["wmediumd-configs", "yawmd-configs", "mininet-wifi-configs"] {
        let dir = root.join("../../../shared/data").join(d);
        assert!(
            dir.is_dir(),
            "{} is missing (../shared must sit beside the repository)",
            dir.display()
        );
        assert!(replay::replay(&dir, wmconfig::check) > 0);
    }
}
