#![no_main]
//! The pcapng reader.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = sdmac_frame::pcapng::read_packets(data);
});
