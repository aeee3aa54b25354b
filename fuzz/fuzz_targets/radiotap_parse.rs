#![no_main]
//! The fuzz target `radiotap_parse`: see `../checks/radiotap_parse.rs` (also replayed on stable Rust by
//! `crates/sdmac-frame/tests/fuzz_corpus.rs`).

use libfuzzer_sys::fuzz_target;

include!("../checks/radiotap_parse.rs");

fuzz_target!(|data: &[u8]| check(data));
