#![no_main]
//! The fuzz target `control_decoder`: see `../checks/control_decoder.rs` (also replayed on stable Rust by
//! `crates/sdmac-mediumd/tests/fuzz_corpus.rs`).

use libfuzzer_sys::fuzz_target;

include!("../checks/control_decoder.rs");

fuzz_target!(|data: &[u8]| check(data));
