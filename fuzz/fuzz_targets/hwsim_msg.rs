#![no_main]
//! The fuzz target `hwsim_msg`: see `../checks/hwsim_msg.rs` (also replayed on stable Rust by
//! `crates/sdmac-netlink/tests/fuzz_corpus.rs`).

use libfuzzer_sys::fuzz_target;

include!("../checks/hwsim_msg.rs");

fuzz_target!(|data: &[u8]| check(data));
