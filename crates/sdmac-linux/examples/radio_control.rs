//! Opens a radio, creates its monitor interface, sets and reads back its channel, TX
//! power, coverage class and fixed bitrates through nl80211, closes; prints JSON.
//! Used by the VM test (tests/test_vm_linux_control.py, testbed/linux_control.sh).
//!
//! ```text
//! radio_control IFACE|PHY [--channel MHZ[/WIDTH]] [--txpower-mbm N] [--coverage-class N]
//!               [--bitrates MBPS,...] [--name NAME] [--active auto|on|off]
//!               [--wait-for FILE] [--keep-caps] [--no-caps] [--fail-after-create]
//! ```
//! WIDTH: 20-noht (default), 20, 40+, 40-, 80, 160. `--wait-for FILE`: after the
//! settings, print the state and wait (up to 120 s) for FILE to exist before closing.
//! `--no-caps`: drop every capability first (what an unprivileged run looks like).
//! `--keep-caps`: do not lower the capabilities after opening.
//! Exit status 0 when open, monitor and close worked (a setting the adapter refuses
//! is reported in the JSON); 1 with the error on stderr otherwise; 2 for bad usage.

use sdmac_linux::control::caps::{self, CapSets, CAP_NET_ADMIN, CAP_NET_RAW};
use sdmac_linux::control::{
    Active, Channel, ControlError, MonitorInterface, MonitorOptions, Radio, TxPowerSetting, Width,
};
use sdmac_netlink::nl80211::{feature, iftype};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

#[derive(Default)]
struct Args {
    iface: String,
    channel: Option<Channel>,
    txpower: Option<i32>,
    coverage: Option<u8>,
    bitrates: Option<Vec<u32>>,
    name: Option<String>,
    active: Active,
    wait_for: Option<String>,
    keep_caps: bool,
    no_caps: bool,
    fail_after_create: bool,
}

fn usage(msg: &str) -> ! {
    eprintln!("radio_control: {msg}");
    eprintln!("usage: radio_control IFACE|PHY [--channel MHZ[/WIDTH]] [--txpower-mbm N] [--coverage-class N] [--bitrates MBPS,...] [--name NAME] [--active auto|on|off] [--wait-for FILE] [--keep-caps] [--no-caps] [--fail-after-create]");
    std::process::exit(2)
}

fn parse_args() -> Args {
    let mut a = Args::default();
    let mut it = std::env::args().skip(1);
    while let Some(x) = it.next() {
        let mut val = |o: &str| it.next().unwrap_or_else(|| usage(&format!("{o} needs a value")));
        match x.as_str() {
            "--channel" => {
                let v = val("--channel");
                let (f, w) = v.split_once('/').unwrap_or((&v, "20-noht"));
                let freq_mhz = f.parse().unwrap_or_else(|_| {
                    usage(&format!("--channel: {f:?} is not a frequency in MHz"))
                });
                let width = Width::parse(w).unwrap_or_else(|| {
                    usage(&format!(
                        "--channel: {w:?} is not a width (20-noht, 20, 40+, 40-, 80, 160)"
                    ))
                });
                a.channel = Some(Channel { freq_mhz, width });
            }
            "--txpower-mbm" => {
                a.txpower = Some(
                    val("--txpower-mbm")
                        .parse()
                        .unwrap_or_else(|_| usage("--txpower-mbm takes mBm")),
                )
            }
            "--coverage-class" => {
                a.coverage = Some(
                    val("--coverage-class")
                        .parse()
                        .unwrap_or_else(|_| usage("--coverage-class takes 0..255")),
                )
            }
            "--bitrates" => {
                let v = val("--bitrates");
                let r = v
                    .split(',')
                    .map(|m| m.parse::<f64>().map(|x| (x * 10.0).round() as u32))
                    .collect::<Result<Vec<_>, _>>();
                a.bitrates =
                    Some(r.unwrap_or_else(|_| {
                        usage("--bitrates takes Mb/s values separated by commas")
                    }));
            }
            "--name" => a.name = Some(val("--name")),
            "--active" => {
                a.active = match val("--active").as_str() {
                    "auto" => Active::Auto,
                    "on" => Active::On,
                    "off" => Active::Off,
                    o => usage(&format!("--active: {o:?} is not auto, on or off")),
                }
            }
            "--wait-for" => a.wait_for = Some(val("--wait-for")),
            "--keep-caps" => a.keep_caps = true,
            "--no-caps" => a.no_caps = true,
            "--fail-after-create" => a.fail_after_create = true,
            o if o.starts_with("--") => usage(&format!("unknown option {o}")),
            o if a.iface.is_empty() => a.iface = o.to_string(),
            o => usage(&format!("unexpected argument {o}")),
        }
    }
    if a.iface.is_empty() {
        usage("an interface or phy name is needed");
    }
    a
}

fn mac(m: Option<[u8; 6]>) -> Value {
    m.map(|m| json!(m.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(":")))
        .unwrap_or(Value::Null)
}

fn caps_json(s: &CapSets) -> Value {
    json!({"effective": format!("{:016x}", s.effective), "permitted": format!("{:016x}", s.permitted), "inheritable": format!("{:016x}", s.inheritable)})
}

fn outcome<T: Into<Value>>(r: Result<T, ControlError>) -> Value {
    match r {
        Ok(v) => json!({"ok": v.into()}),
        Err(e) => {
            json!({"error": e.to_string(), "not_supported": matches!(e, ControlError::NotSupported { .. })})
        }
    }
}

fn fail(e: ControlError) -> ! {
    eprintln!("radio_control: {e}");
    println!("{}", json!({"error": e.to_string()}));
    std::process::exit(1)
}

fn main() {
    let a = parse_args();
    if a.no_caps {
        caps::drop_all().unwrap_or_else(|e| fail(ControlError::Io { op: "capset".into(), err: e }));
    }
    let radio = Radio::open(&a.iface).unwrap_or_else(|e| fail(e));
    // the whole backend needs both: the monitor (here) and the data half's packet socket
    caps::require(&a.iface, "opening a radio", &[CAP_NET_ADMIN, CAP_NET_RAW])
        .unwrap_or_else(|e| fail(e));
    let w = &radio.wiphy;
    let radio_json = json!({
        "asked": radio.asked,
        "phy": w.name,
        "wiphy": w.index,
        "address": mac(radio.address),
        "supports_monitor": w.iftypes.contains(iftype::MONITOR),
        "active_monitor": w.feature_flags & feature::ACTIVE_MONITOR != 0,
        "iftypes": w.iftypes.iter().collect::<Vec<_>>(),
        "coverage_class": w.coverage_class,
        "retry_short": w.retry_short,
        "retry_long": w.retry_long,
        "interfaces": radio.interfaces.iter().map(|i| json!({"name": i.name, "ifindex": i.ifindex, "iftype": i.iftype, "mac": mac(i.mac), "up": i.up})).collect::<Vec<_>>(),
        "bands": w.bands.iter().map(|b| json!({
            "band": b.band,
            "freqs": b.freqs.iter().filter(|f| !f.disabled).map(|f| f.mhz).collect::<Vec<_>>(),
            "rates_100kbps": b.rates.iter().map(|r| r.rate_100kbps).collect::<Vec<_>>(),
            "ht": b.ht_capa.is_some(),
            "vht": b.vht_capa.is_some(),
        })).collect::<Vec<_>>(),
    });
    let opts = MonitorOptions {
        name: a.name.clone(),
        active: a.active,
        channel: a.channel,
        tx_power: a.txpower.map(TxPowerSetting::Fixed),
        fail_after_create: a.fail_after_create,
        ..Default::default()
    };
    let mut mon = MonitorInterface::create(&radio, &opts).unwrap_or_else(|e| fail(e));
    let mut caps_out = json!({"at_open": caps_json(&CapSets::current().unwrap_or_default())});
    if !a.keep_caps {
        // in the backend: after the data half has opened its packet socket
        match caps::drop_after_open() {
            Ok((_, after)) => caps_out["after_drop"] = caps_json(&after),
            Err(e) => caps_out["after_drop"] = json!({"error": e.to_string()}),
        }
    }
    let mut set = json!({});
    if let Some(p) = a.txpower {
        // set again on the open monitor (it was set at creation): accepted, applied
        // by mac80211 at its next reconfiguration
        set["tx_power"] = outcome(mon.set_tx_power(TxPowerSetting::Fixed(p)).map(|_| p));
    }
    if let Some(c) = a.coverage {
        set["coverage_class"] = outcome(mon.set_coverage_class(c).map(|_| c));
    }
    if let Some(r) = &a.bitrates {
        let freq = a
            .channel
            .map(|c| c.freq_mhz)
            .or_else(|| mon.channel().ok().map(|c| c.freq_mhz))
            .unwrap_or(2412);
        set["bitrates"] = outcome(mon.set_fixed_bitrates(freq, r).map(|_| json!(r)));
    }
    let get = json!({
        "channel": outcome(mon.channel().map(|c| json!({"freq_mhz": c.freq_mhz, "width": c.width.map(|w| w.name()), "width_mhz": c.width_mhz, "center_freq1": c.center_freq1}))),
        "tx_power_mbm": outcome(mon.tx_power_mbm()),
        "coverage_class": outcome(mon.coverage_class()),
        "bitrates": outcome(mon.fixed_bitrates().map(|v| json!(v))),
    });
    let monitor = json!({"name": mon.name(), "ifindex": mon.ifindex(), "mac": mac(mon.mac()), "active": mon.is_active(), "flags": mon.flags().0});
    let mut out =
        json!({"radio": radio_json, "monitor": monitor, "caps": caps_out, "set": set, "get": get});
    if let Some(f) = &a.wait_for {
        println!("READY {}", out);
        let t = Instant::now();
        while !std::path::Path::new(f).exists() && t.elapsed() < Duration::from_secs(120) {
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    let name = mon.name().to_string();
    mon.close().unwrap_or_else(|e| fail(e));
    out["closed"] = json!(name);
    out["caps"]["at_close"] = caps_json(&CapSets::current().unwrap_or_default());
    println!("{out}");
}
