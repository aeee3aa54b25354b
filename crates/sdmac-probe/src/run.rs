//! The probe itself: opens the radio, creates a monitor interface, tries each item
//! against the kernel and removes the monitor again (on every path: the monitor is
//! removed when dropped, and created with NL80211_ATTR_SOCKET_OWNER, so even a killed
//! probe leaves none).

use crate::inject::Injector;
use crate::judge::{self, Heard};
use crate::radio_facts;
use crate::report::{rate_text, Entry, Report, Verdict};
use sdmac_frame::radiotap::{TxParams, TxRate};
use sdmac_frame::MacAddress;
use sdmac_linux::control::caps::{self, CAP_NET_ADMIN, CAP_NET_RAW};
use sdmac_linux::control::{
    Active, Channel, ControlError, MonitorInterface, MonitorOptions, Radio, TxPowerSetting, Width,
};
use sdmac_netlink::nl80211::{feature, iftype};
use std::fmt;
use std::time::Duration;

/// An address no station should have (locally administered, unicast): frames to it
/// are never acknowledged.
pub const DEFAULT_ABSENT: MacAddress = MacAddress([0x02, 0x5d, 0xac, 0x0b, 0xad, 0x01]);
/// The TX power level set (mBm): unusual enough not to be the radio's level already.
pub const TX_POWER_MBM: i32 = 1200;
/// DATA_RETRIES asked in the retries and NOACK tests.
pub const RETRIES: u8 = 2;
/// The MCS tried where the band has HT.
pub const MCS: u8 = 3;

/// What to probe, and how.
#[derive(Clone, Debug)]
pub struct Options {
    /// The interface (`wlan0`) or phy (`phy0`).
    pub iface: String,
    /// An address that acknowledges (a station or AP on the channel), if any.
    pub peer: Option<MacAddress>,
    /// The channel to probe on (default: [`radio_facts::default_freq`]).
    pub freq_mhz: Option<u32>,
    /// The address nobody has.
    pub absent: MacAddress,
    /// How long to wait for each echo.
    pub wait: Duration,
    /// For tests: before cleaning up, print `HOLD <monitor>` on stderr and wait (up
    /// to 120 s) until this file exists, so that the state can be read with `iw`.
    #[doc(hidden)]
    pub hold_until: Option<std::path::PathBuf>,
}

impl Options {
    /// Defaults for `iface`.
    pub fn new(iface: &str) -> Options {
        Options {
            iface: iface.into(),
            peer: None,
            freq_mhz: None,
            absent: DEFAULT_ABSENT,
            wait: Duration::from_millis(1000),
            hold_until: None,
        }
    }
}

/// A frequency, shown as `2412 MHz`.
#[derive(PartialEq)]
struct Mhz(u32);
impl fmt::Display for Mhz {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} MHz", self.0)
    }
}

/// A TX power in mBm, shown as `12 dBm`.
#[derive(PartialEq)]
struct Mbm(i32);
impl fmt::Display for Mbm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} dBm", self.0 as f64 / 100.0)
    }
}

/// The order of the entries in the report.
pub const ORDER: [&str; 13] = [
    "monitor_mode",
    "active_monitor",
    "injection",
    "tx_status_fail",
    "tx_status_ack",
    "radiotap_rate",
    "radiotap_mcs",
    "radiotap_data_retries",
    "radiotap_noack",
    "channel",
    "tx_power",
    "bitrate_mask",
    "coverage_class",
];

const INJECTION_KEYS: [&str; 8] = [
    "injection",
    "tx_status_fail",
    "tx_status_ack",
    "radiotap_rate",
    "radiotap_mcs",
    "radiotap_data_retries",
    "radiotap_noack",
    "bitrate_mask",
];
const SETTING_KEYS: [&str; 3] = ["channel", "tx_power", "coverage_class"];

fn not_tried_all(r: &mut Report, keys: &[&'static str], why: &str) {
    for k in keys {
        if r.get(k).is_none() {
            r.entries.push(Entry::not_tried(k, why));
        }
    }
}

/// Probes `o.iface`. Errors (nothing tried): an unknown interface, one that is not
/// wireless, a process without CAP_NET_ADMIN / CAP_NET_RAW. Everything else —
/// monitor mode missing included — is an entry of the report.
pub fn probe(o: &Options) -> Result<Report, ControlError> {
    let mut r = probe_radio(o)?;
    r.entries.sort_by_key(|e| ORDER.iter().position(|k| *k == e.key));
    Ok(r)
}

fn probe_radio(o: &Options) -> Result<Report, ControlError> {
    let radio = Radio::open(&o.iface)?;
    caps::require(&o.iface, "probing a radio", &[CAP_NET_ADMIN, CAP_NET_RAW])?;
    let w = radio.wiphy.clone();
    let mut r = Report {
        interface: o.iface.clone(),
        phy: w.name.clone(),
        absent: o.absent.to_string(),
        peer: o.peer.map(|p| p.to_string()),
        cleanup: Ok(()),
        ..Default::default()
    };
    let sent_mon = format!("NL80211_CMD_NEW_INTERFACE type monitor on {}", w.name);
    if !w.iftypes.contains(iftype::MONITOR) {
        r.entries.push(Entry::new(
            "monitor_mode",
            Verdict::NotSupported,
            sent_mon,
            format!("{} lists no monitor among its interface types", w.name),
        ));
        let why = "no monitor mode";
        not_tried_all(&mut r, &["active_monitor"], why);
        not_tried_all(&mut r, &SETTING_KEYS, why);
        not_tried_all(&mut r, &INJECTION_KEYS, why);
        return Ok(r);
    }
    let can_active = w.feature_flags & feature::ACTIVE_MONITOR != 0;
    let txp = TxPowerSetting::Fixed(TX_POWER_MBM);
    let opts = |active, tx_power| MonitorOptions { active, tx_power, ..Default::default() };
    // the TX power is set before the monitor comes up (mac80211 without channel
    // contexts applies a level at its next reconfiguration); when that is refused,
    // the monitor is created without it
    let mut txp_err = None;
    let mut active_err = None;
    let created = match MonitorInterface::create(&radio, &opts(Active::Auto, Some(txp))) {
        Ok(m) => Ok(m),
        Err(e1) => match MonitorInterface::create(&radio, &opts(Active::Auto, None)) {
            Ok(m) => {
                txp_err = Some(e1);
                Ok(m)
            }
            Err(e2) if can_active => {
                match MonitorInterface::create(&radio, &opts(Active::Off, None)) {
                    Ok(m) => {
                        active_err = Some(e2);
                        txp_err = Some(e1);
                        Ok(m)
                    }
                    Err(e3) => Err(e3),
                }
            }
            Err(e2) => Err(e2),
        },
    };
    let mut mon = match created {
        Ok(m) => m,
        Err(e) => {
            r.entries.push(Entry::new(
                "monitor_mode",
                Verdict::Error,
                sent_mon,
                format!("refused: {e}"),
            ));
            let why = "no monitor interface";
            not_tried_all(&mut r, &["active_monitor"], why);
            not_tried_all(&mut r, &SETTING_KEYS, why);
            not_tried_all(&mut r, &INJECTION_KEYS, why);
            return Ok(r);
        }
    };
    r.monitor = Some(mon.name().to_string());
    let mac = mon.mac().or(radio.address).map(MacAddress);
    r.entries.push(Entry::new(
        "monitor_mode",
        Verdict::Works,
        sent_mon,
        format!(
            "{} created and up{}",
            mon.name(),
            mac.map(|m| format!(", address {m}")).unwrap_or_default()
        ),
    ));
    let sent_active = "NL80211_CMD_NEW_INTERFACE with monitor flag ACTIVE";
    r.entries.push(match (&active_err, can_active, mon.is_active()) {
        (Some(e), _, _) => Entry::new("active_monitor", Verdict::Error, sent_active, format!("the driver advertises NL80211_FEATURE_ACTIVE_MONITOR, but creating one failed: {e}")),
        (None, false, _) => Entry::new("active_monitor", Verdict::NotSupported, "", format!("{} does not advertise NL80211_FEATURE_ACTIVE_MONITOR", w.name)),
        (None, true, true) => Entry::new("active_monitor", Verdict::Works, sent_active, "NL80211_FEATURE_ACTIVE_MONITOR advertised; the monitor was created active"),
        (None, true, false) => Entry::new("active_monitor", Verdict::Error, sent_active, "the monitor came up without the ACTIVE flag"),
    });

    probe_on(o, &radio, &mut mon, mac, txp_err, &mut r);
    if let Some(f) = &o.hold_until {
        eprintln!("HOLD {}", mon.name());
        let until = std::time::Instant::now() + Duration::from_secs(120);
        while !f.exists() && std::time::Instant::now() < until {
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    // restore what outlives the monitor: the radio's TX power setting
    let mut left = Vec::new();
    if r.get("tx_power")
        .is_some_and(|e| e.verdict != Verdict::NotSupported && e.verdict != Verdict::NotTried)
    {
        if let Err(e) = mon.set_tx_power(TxPowerSetting::Auto) {
            left.push(format!("TX power not set back to automatic: {e}"));
        }
    }
    let name = mon.name().to_string();
    if let Err(e) = mon.close() {
        left.push(format!("{name} not removed: {e}"));
    }
    if let Err(e) = &r.cleanup {
        left.insert(0, e.clone());
    }
    r.cleanup = if left.is_empty() { Ok(()) } else { Err(left.join("; ")) };
    Ok(r)
}

/// The items tried on the monitor (every entry but the first two).
fn probe_on(
    o: &Options,
    radio: &Radio,
    mon: &mut MonitorInterface,
    mac: Option<MacAddress>,
    txp_err: Option<ControlError>,
    r: &mut Report,
) {
    let w = &radio.wiphy;
    // the radio's other interfaces that are up (the monitor was created after `radio`
    // was opened, so it is not among them)
    let others_up = radio.interfaces_up();
    // --- channel
    let freq = o.freq_mhz.or_else(|| radio_facts::default_freq(w));
    match freq {
        Some(f) => {
            let set = mon.set_channel(Channel { freq_mhz: f, width: Width::NoHt20 });
            let read = Some(mon.channel().map(|c| Mhz(c.freq_mhz)));
            r.entries.push(judge::setting(
                "channel",
                &format!("NL80211_CMD_SET_WIPHY {f} MHz, 20 MHz no HT"),
                &Mhz(f),
                set,
                read,
            ));
        }
        None => r.entries.push(Entry::new(
            "channel",
            Verdict::NotSupported,
            "",
            format!("{} has no enabled channel", w.name),
        )),
    }
    r.freq_mhz = mon.channel().ok().map(|c| c.freq_mhz);
    // --- TX power (set as the monitor was created)
    let sent = format!(
        "NL80211_CMD_SET_WIPHY TX power fixed {} (before the monitor came up)",
        Mbm(TX_POWER_MBM)
    );
    r.entries.push(match txp_err {
        Some(e) => judge::refused(
            "tx_power",
            &sent,
            &e,
            mon.tx_power_mbm().ok().map(|v| Mbm(v).to_string()),
        ),
        None => judge::setting(
            "tx_power",
            &sent,
            &Mbm(TX_POWER_MBM),
            Ok(()),
            Some(mon.tx_power_mbm().map(Mbm)),
        ),
    });
    // --- coverage class (set back afterwards)
    let before = mon.coverage_class().ok();
    let class = if before == Some(1) { 2 } else { 1 };
    let set = mon.set_coverage_class(class);
    let worked = set.is_ok();
    let read = Some(mon.coverage_class());
    r.entries.push(judge::setting(
        "coverage_class",
        &format!("NL80211_CMD_SET_WIPHY coverage class {class}"),
        &class,
        set,
        read,
    ));
    if worked {
        if let Some(b) = before {
            if let Err(e) = mon.set_coverage_class(b) {
                r.cleanup = Err(format!("coverage class not set back to {b}: {e}"));
            }
        }
    }

    // --- frames
    let band = r.freq_mhz.or(freq).and_then(|f| radio_facts::band(w, f)).cloned();
    let (Some(band), Some(src)) = (band, mac) else {
        not_tried_all(r, &INJECTION_KEYS, "no band or no address known for the monitor");
        return;
    };
    let Some((lo, hi)) = radio_facts::lowest_highest(&band) else {
        not_tried_all(r, &INJECTION_KEYS, "the band lists no bitrate");
        return;
    };
    let mut inj = match Injector::open(mon.name(), src, o.wait) {
        Ok(i) => i,
        Err(e) => {
            for k in INJECTION_KEYS {
                r.entries.push(Entry::new(k, Verdict::Error, "", format!("no packet socket: {e}")));
            }
            return;
        }
    };
    let absent = o.absent;
    let fixed =
        |rate: TxRate, retries: u8| TxParams { rate: Some(rate), retries, ..TxParams::default() };
    let describe = |dst: MacAddress, tx: &TxParams| -> String {
        let mut s = format!("QoS Data to {dst}");
        if let Some(rt) = tx.rate {
            // "RATE 54 Mb/s", "MCS 3" (the MCS field), "VHT MCS 7 NSS 1 ..." (the VHT field)
            let field = if matches!(rt, TxRate::Legacy { .. }) { "RATE " } else { "" };
            s.push_str(&format!(
                ", radiotap {field}{}, DATA_RETRIES {}",
                rate_text(rt),
                tx.retries
            ));
        } else {
            s.push_str(", no rate (rate control picks)");
        }
        if tx.no_ack {
            s.push_str(", TX_FLAGS NOACK");
        }
        s
    };
    let low = radio_facts::legacy(lo);
    let high = radio_facts::legacy(hi);

    // injection and F_TX_FAIL: one frame to the absent address
    let tx = fixed(low, 0);
    let sent = describe(absent, &tx);
    let h = inj.shot(absent, tx, "absent");
    r.entries.push(judge::injection(&sent, &h));
    r.entries.push(judge::tx_status_fail(&sent, &h));
    // ACK from the peer
    match o.peer {
        Some(p) => {
            let sent = describe(p, &tx);
            let h = inj.shot(p, tx, "peer");
            r.entries.push(judge::tx_status_ack(&sent, &h));
        }
        None => r.entries.push(Entry::not_tried(
            "tx_status_ack",
            "no --peer given (an address that acknowledges on this channel)",
        )),
    }
    // fixed legacy rate: the band's highest (rate control would not pick it)
    let tx = fixed(high, 0);
    let h = inj.shot(absent, tx, "rate");
    r.entries.push(judge::rate("radiotap_rate", &describe(absent, &tx), high, &h));
    // MCS
    if band.ht_capa.is_some() {
        let m = TxRate::Ht { mcs: MCS, bw40: false, short_gi: false };
        let tx = fixed(m, 0);
        let h = inj.shot(absent, tx, "mcs");
        r.entries.push(judge::rate("radiotap_mcs", &describe(absent, &tx), m, &h));
    } else {
        r.entries.push(Entry::new(
            "radiotap_mcs",
            Verdict::NotSupported,
            "",
            "the channel's band has no HT",
        ));
    }
    // DATA_RETRIES
    let tx = fixed(low, RETRIES);
    let h = inj.shot(absent, tx, "retries");
    let e = judge::data_retries(&describe(absent, &tx), RETRIES, &h);
    let retries_honoured = e.verdict == Verdict::Works;
    r.entries.push(e);
    // NOACK
    let tx = TxParams { no_ack: true, ..fixed(low, RETRIES) };
    let h = inj.shot(absent, tx, "noack");
    r.entries.push(judge::noack(&describe(absent, &tx), RETRIES, &h, retries_honoured));
    // bitrate mask, seen on frames without a rate
    let before = inj.shot(absent, TxParams::default(), "no rate");
    let f = r.freq_mhz.or(freq).unwrap_or(0);
    match radio_facts::mask_rate(&band, before.echo().and_then(|e| e.rate)) {
        Some(m) => {
            let set = mon.set_fixed_bitrates(f, &[m]);
            let after = if set.is_ok() {
                inj.shot(absent, TxParams::default(), "masked")
            } else {
                Heard::Silent { waited_ms: 0 }
            };
            let sent = format!(
                "NL80211_CMD_SET_TX_BITRATE_MASK {} only, then QoS Data to {absent} without a rate",
                rate_text(radio_facts::legacy(m))
            );
            r.entries.push(judge::bitrate_mask(
                &sent,
                set,
                radio_facts::legacy(m),
                &before,
                &after,
                &others_up,
            ));
        }
        None => {
            r.entries.push(Entry::not_tried("bitrate_mask", "the band has no other legacy rate"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_has_a_place_and_a_title() {
        for k in INJECTION_KEYS
            .iter()
            .chain(SETTING_KEYS.iter())
            .chain(["monitor_mode", "active_monitor"].iter())
        {
            assert!(ORDER.contains(k), "{k} not in ORDER");
            assert_ne!(crate::report::title(k), *k, "{k} has no title");
        }
        assert_eq!(INJECTION_KEYS.len() + SETTING_KEYS.len() + 2, ORDER.len());
        assert!(
            DEFAULT_ABSENT.0[0] & 1 == 0 && DEFAULT_ABSENT.0[0] & 2 == 2,
            "unicast, locally administered"
        );
    }
}
