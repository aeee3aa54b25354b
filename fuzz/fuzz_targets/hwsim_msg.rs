#![no_main]
//! The fuzz target `hwsim_msg`: see `../checks/hwsim_msg.rs` and `../checks/kernel_msg.rs`
//! (also replayed on stable Rust by `crates/sdmac-netlink/tests/fuzz_corpus.rs` and
//! `crates/sdmac-mediumd/tests/fuzz_corpus.rs`).

use libfuzzer_sys::fuzz_target;

mod hwsim_msg {
    include!("../checks/hwsim_msg.rs");
}
mod kernel_msg {
    include!("../checks/kernel_msg.rs");
}

fuzz_target!(|data: &[u8]| {
    hwsim_msg::check(data);
    kernel_msg::check(data);
});
