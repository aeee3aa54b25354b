#![no_main]
//! The fuzz target `pcapng_read`: see `../checks/pcapng_read.rs` (also replayed on stable Rust by
//! `crates/sdmac-frame/tests/fuzz_corpus.rs`).

use libfuzzer_sys::fuzz_target;

include!("../checks/pcapng_read.rs");

fuzz_target!(|data: &[u8]| check(data));
