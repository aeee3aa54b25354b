//! Opening the backend on what is not a monitor interface fails with an error that
//! names the interface and what is wrong (or, without CAP_NET_RAW, the capability
//! and how to grant it).

use sdmac_linux::{LinuxBackend, LinuxConfig};

fn open_err(iface: &str, freq: u32) -> String {
    LinuxBackend::open(iface, LinuxConfig::new(freq)).map(|_| ()).expect_err("must not open")
}

#[test]
fn errors_name_the_interface_and_the_cause() {
    let e = open_err("lo", 2412);
    if e.contains("CAP_NET_RAW") {
        // Not privileged here: the error says what is missing and how to grant it.
        assert!(e.starts_with("lo: ") && e.contains("setcap"), "{e}");
        return;
    }
    assert!(e.starts_with("lo: not a monitor interface"), "{e}");
    assert!(e.contains("type monitor"), "the error says how to make one: {e}");
    let e = open_err("nosuch-sdmac0", 2412);
    assert!(e.starts_with("nosuch-sdmac0: no such interface"), "{e}");
    let e = open_err("a-name-much-too-long-for-linux", 2412);
    assert!(e.contains("longer than 15 bytes"), "{e}");
}

#[test]
fn a_frequency_outside_wifi_is_refused_before_anything_opens() {
    let e = open_err("lo", 900);
    assert_eq!(e, "lo: 900 MHz is not a Wi-Fi channel frequency");
}
