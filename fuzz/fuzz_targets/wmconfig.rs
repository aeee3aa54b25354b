#![no_main]
//! The fuzz target `wmconfig`: see `../checks/wmconfig.rs` (also replayed on stable Rust by
//! `crates/sdmac-wmconfig/tests/fuzz_corpus.rs`).

use libfuzzer_sys::fuzz_target;

include!("../checks/wmconfig.rs");

fuzz_target!(|data: &[u8]| check(data));
