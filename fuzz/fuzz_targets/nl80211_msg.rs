#![no_main]
//! The fuzz target `nl80211_msg`: see `../checks/nl80211_msg.rs` (also replayed on stable
//! Rust by `crates/sdmac-netlink/tests/fuzz_corpus.rs`).

use libfuzzer_sys::fuzz_target;

include!("../checks/nl80211_msg.rs");

fuzz_target!(|data: &[u8]| check(data));
