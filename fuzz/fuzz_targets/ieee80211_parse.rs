#![no_main]
//! The fuzz target `ieee80211_parse`: see `../checks/ieee80211_parse.rs` (also replayed on stable Rust by
//! `crates/sdmac-frame/tests/fuzz_corpus.rs`).

use libfuzzer_sys::fuzz_target;

include!("../checks/ieee80211_parse.rs");

fuzz_target!(|data: &[u8]| check(data));
