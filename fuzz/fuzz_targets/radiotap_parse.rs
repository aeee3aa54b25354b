#![no_main]
//! The fuzz target `radiotap_parse`: see `../checks/radiotap_parse.rs` and `../checks/linux_read.rs`
//! (also replayed on stable Rust by `crates/sdmac-frame/tests/fuzz_corpus.rs` and
//! `crates/sdmac-linux/tests/fuzz_corpus.rs`).

use libfuzzer_sys::fuzz_target;

mod radiotap_parse {
    include!("../checks/radiotap_parse.rs");
}
mod linux_read {
    include!("../checks/linux_read.rs");
}

fuzz_target!(|data: &[u8]| {
    radiotap_parse::check(data);
    linux_read::check(data);
});
