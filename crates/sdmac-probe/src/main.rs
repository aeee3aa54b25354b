//! `sdmac-probe IFACE [--peer MAC] [--channel MHZ] [--wait-ms N]`: probes the
//! per-frame control of a mac80211 adapter (see the crate documentation) and prints
//! the report as JSON on stdout.
//!
//! Exit status: 0 when the probe ran (whatever the verdicts); 1 when it could not
//! (no such interface, not wireless, a missing capability): then stdout holds
//! `{"error": {"kind": ..., "message": ...}}` and stderr the message; 2 for bad usage.
//! `--no-caps` drops every capability first (for tests: what an unprivileged run
//! looks like); `--hold-until FILE` (for tests) prints `HOLD <monitor>` on stderr
//! before cleaning up and waits until FILE exists.

#![warn(missing_docs)]

use sdmac_frame::MacAddress;
use sdmac_linux::control::{caps, ControlError};
use sdmac_probe::{probe, Options};
use serde_json::json;
use std::time::Duration;

fn usage(msg: &str) -> ! {
    eprintln!("sdmac-probe: {msg}");
    eprintln!("usage: sdmac-probe IFACE [--peer MAC] [--channel MHZ] [--wait-ms N] [--no-caps]");
    std::process::exit(2)
}

fn kind(e: &ControlError) -> &'static str {
    match e {
        ControlError::UnknownInterface { .. } => "unknown_interface",
        ControlError::NotWireless { .. } => "not_wireless",
        ControlError::MissingCapability { .. } => "missing_capability",
        ControlError::NoMonitorMode { .. } => "no_monitor_mode",
        _ => "error",
    }
}

fn main() {
    let mut iface = None;
    let mut o = Options::new("");
    let mut no_caps = false;
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut val = |n: &str| it.next().unwrap_or_else(|| usage(&format!("{n} needs a value")));
        match a.as_str() {
            "--peer" => {
                let v = val("--peer");
                o.peer = Some(
                    v.parse::<MacAddress>().unwrap_or_else(|e| usage(&format!("--peer {v}: {e}"))),
                );
            }
            "--channel" => {
                let v = val("--channel");
                o.freq_mhz =
                    Some(v.parse().unwrap_or_else(|_| {
                        usage(&format!("--channel {v}: not a frequency in MHz"))
                    }));
            }
            "--wait-ms" => {
                let v = val("--wait-ms");
                o.wait = Duration::from_millis(
                    v.parse().unwrap_or_else(|_| usage(&format!("--wait-ms {v}: not a number"))),
                );
            }
            "--no-caps" => no_caps = true,
            "--hold-until" => o.hold_until = Some(val("--hold-until").into()),
            "-h" | "--help" => usage("probes what per-frame control works on a mac80211 adapter"),
            x if x.starts_with('-') => usage(&format!("unknown option {x}")),
            x if iface.is_none() => iface = Some(x.to_string()),
            x => usage(&format!("unexpected argument {x}")),
        }
    }
    o.iface = iface.unwrap_or_else(|| usage("an interface name is needed"));
    if no_caps {
        if let Err(e) = caps::drop_all() {
            eprintln!("sdmac-probe: dropping capabilities: {e}");
            std::process::exit(1);
        }
    }
    match probe(&o) {
        Ok(r) => {
            println!("{}", serde_json::to_string_pretty(&r.to_json()).unwrap_or_default());
        }
        Err(e) => {
            println!("{}", json!({"error": {"kind": kind(&e), "message": e.to_string()}}));
            eprintln!("sdmac-probe: {e}");
            std::process::exit(1);
        }
    }
}
