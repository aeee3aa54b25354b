// What the `pcapng_read` fuzz target runs on each input; included (`include!`) by the
// target and by `crates/sdmac-frame/tests/fuzz_corpus.rs`, which replays the corpus on
// stable Rust.

/// Reads `data` as a pcapng file; must not panic.
pub fn check(data: &[u8]) {
    let _ = sdmac_frame::pcapng::read_packets(data);
}
