#![no_main]
//! The fuzz target `wmconfig`: see `../checks/wmconfig.rs` and `../checks/mediumd_config.rs`
//! (also replayed on stable Rust by `crates/sdmac-wmconfig/tests/fuzz_corpus.rs` and
//! `crates/sdmac-mediumd/tests/fuzz_corpus.rs`).

use libfuzzer_sys::fuzz_target;

mod wmconfig {
    include!("../checks/wmconfig.rs");
}
mod mediumd_config {
    include!("../checks/mediumd_config.rs");
}

fuzz_target!(|data: &[u8]| {
    wmconfig::check(data);
    mediumd_config::check(data);
});
