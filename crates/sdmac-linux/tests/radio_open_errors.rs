//! Opening what is not a radio, on this machine (with or without cfg80211 loaded):
//! each error names the interface. The VM test (tests/test_vm_linux_control.py)
//! does the same against mac80211_hwsim, with a veth pair and without capabilities.

use sdmac_linux::control::{ControlError, Radio};

#[test]
fn loopback_is_not_wireless() {
    match Radio::open("lo") {
        Err(e @ ControlError::NotWireless { .. }) => {
            assert_eq!(
                e.to_string(),
                "lo: not a wireless interface (nl80211 does not know it; see `iw dev`)"
            )
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_unknown_name_is_named() {
    match Radio::open("sdmac-nosuch9") {
        Err(e @ ControlError::UnknownInterface { .. }) => assert!(e
            .to_string()
            .starts_with("sdmac-nosuch9: no network interface or wiphy has this name")),
        other => panic!("{other:?}"),
    }
}
