//! The probe's result: one [`Entry`] per thing tried, each with a [`Verdict`] and
//! its evidence (what was sent, what came back), and the [`Report`] holding them.

use sdmac_frame::radiotap::{tx_flags, TxRate, TxStatus};
use serde_json::{json, Value};

/// What the probe concluded about one item.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Tried, and the kernel did what was asked (read back or echoed).
    Works,
    /// Accepted, but the kernel did something else (the evidence says what).
    NotHonoured,
    /// The driver or the kernel refuses it (EOPNOTSUPP, no such capability or feature,
    /// no echo at all).
    NotSupported,
    /// Accepted, but nothing the kernel reports can show whether it took effect.
    Unverified,
    /// Not tried (why: in the evidence), e.g. no `--peer` given.
    NotTried,
    /// Tried, and the kernel answered with an error other than "not supported".
    Error,
}

impl Verdict {
    /// The name used in the JSON output and the table.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Works => "works",
            Verdict::NotHonoured => "not honoured",
            Verdict::NotSupported => "not supported",
            Verdict::Unverified => "unverified",
            Verdict::NotTried => "not tried",
            Verdict::Error => "error",
        }
    }
}

/// One item of the matrix.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// Stable key (`radiotap_rate`, `channel`, ...).
    pub key: &'static str,
    /// The conclusion.
    pub verdict: Verdict,
    /// What was tried (sent, or set).
    pub sent: String,
    /// What came back (the echo, the value read back, the kernel's error).
    pub got: String,
    /// The TX-status echo the verdict rests on, if any.
    pub echo: Option<TxStatus>,
}

impl Entry {
    /// An entry without an echo.
    pub fn new(
        key: &'static str,
        verdict: Verdict,
        sent: impl Into<String>,
        got: impl Into<String>,
    ) -> Entry {
        Entry { key, verdict, sent: sent.into(), got: got.into(), echo: None }
    }

    /// An entry not tried, with the reason.
    pub fn not_tried(key: &'static str, why: impl Into<String>) -> Entry {
        Entry::new(key, Verdict::NotTried, "", why)
    }

    /// As JSON.
    pub fn to_json(&self) -> Value {
        json!({
            "key": self.key,
            "title": title(self.key),
            "verdict": self.verdict.as_str(),
            "sent": self.sent,
            "got": self.got,
            "echo": self.echo.map(|e| echo_json(&e)),
        })
    }
}

/// The human title of an entry key (the key itself for unknown ones).
pub fn title(key: &str) -> &str {
    match key {
        "monitor_mode" => "monitor mode",
        "active_monitor" => "active monitor",
        "injection" => "injection (echoed)",
        "tx_status_fail" => "TX status: F_TX_FAIL (absent address)",
        "tx_status_ack" => "TX status: ACK (--peer)",
        "radiotap_rate" => "radiotap RATE (legacy)",
        "radiotap_mcs" => "radiotap MCS",
        "radiotap_data_retries" => "radiotap DATA_RETRIES",
        "radiotap_noack" => "radiotap TX_FLAGS NOACK",
        "channel" => "nl80211 channel",
        "tx_power" => "nl80211 TX power",
        "bitrate_mask" => "nl80211 bitrate mask",
        "coverage_class" => "nl80211 coverage class",
        k => k,
    }
}

/// A radiotap rate as text (`54 Mb/s`, `MCS 3`, `VHT MCS 7 NSS 2 80 MHz`).
pub fn rate_text(r: TxRate) -> String {
    match r {
        TxRate::Legacy { units_500k } => mbps_500k(units_500k),
        TxRate::Ht { mcs, bw40, short_gi } => {
            format!(
                "MCS {mcs}{}{}",
                if bw40 { " 40 MHz" } else { "" },
                if short_gi { " SGI" } else { "" }
            )
        }
        TxRate::Vht { mcs, nss, width_mhz, short_gi } => {
            format!("VHT MCS {mcs} NSS {nss} {width_mhz} MHz{}", if short_gi { " SGI" } else { "" })
        }
    }
}

fn mbps_500k(u: u8) -> String {
    if u % 2 == 0 {
        format!("{} Mb/s", u / 2)
    } else {
        format!("{}.5 Mb/s", u / 2)
    }
}

/// An echo as text: `echo: TX flags 0x0001 (F_TX_FAIL), DATA_RETRIES 2, RATE 54 Mb/s`.
pub fn echo_text(e: &TxStatus) -> String {
    let mut s = format!("echo: TX flags {:#06x}", e.tx_flags);
    if e.tx_flags & tx_flags::FAIL != 0 {
        s.push_str(" (F_TX_FAIL)");
    }
    match e.retries {
        Some(r) => s.push_str(&format!(
            ", DATA_RETRIES {r} ({} attempt{})",
            r as u16 + 1,
            if r == 0 { "" } else { "s" }
        )),
        None => s.push_str(", no DATA_RETRIES"),
    }
    match e.rate {
        Some(r) => s.push_str(&format!(", rate {}", rate_text(r))),
        None => s.push_str(", no rate"),
    }
    s
}

fn echo_json(e: &TxStatus) -> Value {
    json!({
        "tx_flags": e.tx_flags,
        "failed": e.failed(),
        "data_retries": e.retries,
        "rate": e.rate.map(rate_text),
    })
}

/// The whole result of a probe.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// The interface (or phy) probed.
    pub interface: String,
    /// Its wiphy.
    pub phy: String,
    /// The monitor interface the probe created (and removed), if any.
    pub monitor: Option<String>,
    /// The channel the frames were sent on (MHz), as the kernel reported it.
    pub freq_mhz: Option<u32>,
    /// The address frames were sent to that nobody has.
    pub absent: String,
    /// The `--peer` address, if given.
    pub peer: Option<String>,
    /// The items, in the order tried.
    pub entries: Vec<Entry>,
    /// Cleanup: `Ok` when everything the probe created is gone, else what is left.
    pub cleanup: Result<(), String>,
}

impl Default for Report {
    fn default() -> Report {
        Report {
            interface: String::new(),
            phy: String::new(),
            monitor: None,
            freq_mhz: None,
            absent: String::new(),
            peer: None,
            entries: Vec::new(),
            cleanup: Ok(()),
        }
    }
}

impl Report {
    /// The entry of `key`.
    pub fn get(&self, key: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.key == key)
    }

    /// As JSON (`entries` also keyed by entry key, under `matrix`).
    pub fn to_json(&self) -> Value {
        let matrix: serde_json::Map<String, Value> =
            self.entries.iter().map(|e| (e.key.to_string(), e.to_json())).collect();
        json!({
            "interface": self.interface,
            "phy": self.phy,
            "monitor": self.monitor,
            "freq_mhz": self.freq_mhz,
            "absent": self.absent,
            "peer": self.peer,
            "entries": self.entries.iter().map(Entry::to_json).collect::<Vec<_>>(),
            "matrix": matrix,
            "cleanup": match &self.cleanup { Ok(()) => json!({"ok": true}), Err(e) => json!({"ok": false, "error": e}) },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts() {
        assert_eq!(rate_text(TxRate::Legacy { units_500k: 11 }), "5.5 Mb/s");
        assert_eq!(rate_text(TxRate::Legacy { units_500k: 108 }), "54 Mb/s");
        assert_eq!(rate_text(TxRate::Ht { mcs: 3, bw40: false, short_gi: false }), "MCS 3");
        let e = TxStatus {
            tx_flags: 1,
            retries: Some(2),
            rate: Some(TxRate::Legacy { units_500k: 2 }),
        };
        assert_eq!(
            echo_text(&e),
            "echo: TX flags 0x0001 (F_TX_FAIL), DATA_RETRIES 2 (3 attempts), rate 1 Mb/s"
        );
        let r = Report {
            entries: vec![Entry::not_tried("tx_status_ack", "no --peer given")],
            cleanup: Ok(()),
            ..Default::default()
        };
        let j = r.to_json();
        assert_eq!(j["matrix"]["tx_status_ack"]["verdict"], "not tried");
        assert_eq!(j["entries"][0]["title"], "TX status: ACK (--peer)");
        assert_eq!(j["cleanup"]["ok"], true);
    }
}
