//! The decisions of the probe, with no kernel: given what was sent and what came
//! back (a TX-status echo, a value read back, an error), what the matrix says.
//!
//! Facts they rest on (mac80211, docs/drivers.md G4 and G7): the echo always carries
//! TX flags and DATA_RETRIES (attempts − 1); F_TX_FAIL is set whenever a unicast frame
//! was not acknowledged — frames injected with NOACK included, so F_TX_FAIL says
//! nothing about NOACK; the rate is the one the status reports.

use crate::report::{echo_text, rate_text, Entry, Verdict};
use sdmac_frame::radiotap::{TxRate, TxStatus};
use sdmac_linux::control::ControlError;
use std::fmt::Display;

/// What came back for one injected frame.
#[derive(Clone, Debug, PartialEq)]
pub enum Heard {
    /// Its TX-status echo.
    Echo(TxStatus),
    /// No echo within the wait (ms).
    Silent {
        /// How long the probe waited.
        waited_ms: u64,
    },
    /// `send()` failed (the error).
    SendFailed(String),
}

impl Heard {
    /// The echo, if one came.
    pub fn echo(&self) -> Option<&TxStatus> {
        match self {
            Heard::Echo(e) => Some(e),
            _ => None,
        }
    }

    /// As evidence text.
    pub fn text(&self) -> String {
        match self {
            Heard::Echo(e) => echo_text(e),
            Heard::Silent { waited_ms } => format!("no echo within {waited_ms} ms"),
            Heard::SendFailed(e) => format!("send failed: {e}"),
        }
    }
}

fn entry(key: &'static str, verdict: Verdict, sent: &str, got: String, h: &Heard) -> Entry {
    Entry { key, verdict, sent: sent.into(), got, echo: h.echo().copied() }
}

/// The verdict for a frame that had no echo, or could not be sent.
fn unheard(key: &'static str, sent: &str, h: &Heard) -> Entry {
    let v = match h {
        Heard::SendFailed(_) => Verdict::Error,
        _ => Verdict::NotSupported,
    };
    entry(key, v, sent, h.text(), h)
}

/// Injection: the frame sent comes back as an echo.
pub fn injection(sent: &str, h: &Heard) -> Entry {
    match h {
        Heard::Echo(_) => entry("injection", Verdict::Works, sent, h.text(), h),
        Heard::Silent { .. } => entry(
            "injection",
            Verdict::NotSupported,
            sent,
            format!(
                "{}: the driver reports no TX status for injected frames (or did not send it)",
                h.text()
            ),
            h,
        ),
        Heard::SendFailed(_) => unheard("injection", sent, h),
    }
}

/// A unicast frame to an address nobody has: its echo must carry F_TX_FAIL.
pub fn tx_status_fail(sent: &str, h: &Heard) -> Entry {
    let Some(e) = h.echo() else {
        return unheard("tx_status_fail", sent, h);
    };
    if e.failed() {
        entry("tx_status_fail", Verdict::Works, sent, h.text(), h)
    } else {
        entry(
            "tx_status_fail",
            Verdict::NotHonoured,
            sent,
            format!("{}: reported acknowledged though nobody has the address", h.text()),
            h,
        )
    }
}

/// A unicast frame to a peer that acknowledges: its echo must not carry F_TX_FAIL.
pub fn tx_status_ack(sent: &str, h: &Heard) -> Entry {
    let Some(e) = h.echo() else {
        return unheard("tx_status_ack", sent, h);
    };
    if e.failed() {
        entry(
            "tx_status_ack",
            Verdict::NotHonoured,
            sent,
            format!("{}: no ACK reported (is the peer up, on this channel, in range?)", h.text()),
            h,
        )
    } else {
        entry("tx_status_ack", Verdict::Works, sent, h.text(), h)
    }
}

/// A frame injected at a fixed rate (RATE or MCS, `key`): the echo must report it.
pub fn rate(key: &'static str, sent: &str, asked: TxRate, h: &Heard) -> Entry {
    let Some(e) = h.echo() else {
        return unheard(key, sent, h);
    };
    match e.rate {
        Some(r) if r == asked => entry(key, Verdict::Works, sent, h.text(), h),
        Some(r) => entry(
            key,
            Verdict::NotHonoured,
            sent,
            format!("{}: sent at {} instead of {}", h.text(), rate_text(r), rate_text(asked)),
            h,
        ),
        None => entry(
            key,
            Verdict::Unverified,
            sent,
            format!("{}: the echo reports no rate", h.text()),
            h,
        ),
    }
}

/// A frame injected with a fixed rate and DATA_RETRIES = `asked` to an address
/// nobody has: the echo must report `asked` + 1 attempts.
pub fn data_retries(sent: &str, asked: u8, h: &Heard) -> Entry {
    const K: &str = "radiotap_data_retries";
    let Some(e) = h.echo() else {
        return unheard(K, sent, h);
    };
    if !e.failed() {
        return entry(
            K,
            Verdict::Unverified,
            sent,
            format!("{}: acknowledged, so fewer attempts are no evidence", h.text()),
            h,
        );
    }
    match e.retries {
        Some(r) if r == asked => entry(K, Verdict::Works, sent, h.text(), h),
        Some(r) => entry(
            K,
            Verdict::NotHonoured,
            sent,
            format!("{}: {} attempt(s) made, {} asked", h.text(), r as u16 + 1, asked as u16 + 1),
            h,
        ),
        None => entry(
            K,
            Verdict::Unverified,
            sent,
            format!("{}: the echo reports no attempt count", h.text()),
            h,
        ),
    }
}

/// A frame injected with NOACK, a fixed rate and DATA_RETRIES = `asked` (> 0) to an
/// address nobody has: honoured when it was attempted once. That is evidence only
/// where DATA_RETRIES is honoured (`retries_honoured`): a radio that attempts every
/// frame once would look the same. F_TX_FAIL is expected either way (mac80211 sets it
/// for every unacknowledged unicast frame).
pub fn noack(sent: &str, asked: u8, h: &Heard, retries_honoured: bool) -> Entry {
    const K: &str = "radiotap_noack";
    let Some(e) = h.echo() else {
        return unheard(K, sent, h);
    };
    match e.retries {
        Some(0) if retries_honoured => entry(K, Verdict::Works, sent, format!("{}: one attempt, not retried", h.text()), h),
        Some(0) => entry(
            K,
            Verdict::Unverified,
            sent,
            format!("{}: one attempt, but this radio attempts every frame once whatever DATA_RETRIES says", h.text()),
            h,
        ),
        Some(r) => entry(K, Verdict::NotHonoured, sent, format!("{}: retried ({} attempts; {} asked without NOACK)", h.text(), r as u16 + 1, asked as u16 + 1), h),
        None => entry(K, Verdict::Unverified, sent, format!("{}: the echo reports no attempt count", h.text()), h),
    }
}

/// The verdict of a refused set request.
pub fn refused(
    key: &'static str,
    sent: &str,
    err: &ControlError,
    read_back: Option<String>,
) -> Entry {
    let v = match err {
        ControlError::NotSupported { .. } => Verdict::NotSupported,
        _ => Verdict::Error,
    };
    let got = match read_back {
        Some(r) => format!("refused: {err}; read back: {r}"),
        None => format!("refused: {err}"),
    };
    Entry::new(key, v, sent, got)
}

/// An nl80211 setting: set (`set`), then read back (`read`; `None`: nothing
/// to read it back with). Works when the value read back is the one asked for.
pub fn setting<T: PartialEq + Display>(
    key: &'static str,
    sent: &str,
    asked: &T,
    set: Result<(), ControlError>,
    read: Option<Result<T, ControlError>>,
) -> Entry {
    if let Err(e) = set {
        let rb = match read {
            Some(Ok(v)) => Some(v.to_string()),
            Some(Err(e)) => Some(e.to_string()),
            None => None,
        };
        return refused(key, sent, &e, rb);
    }
    match read {
        Some(Ok(v)) if v == *asked => {
            Entry::new(key, Verdict::Works, sent, format!("accepted; read back {v}"))
        }
        Some(Ok(v)) => Entry::new(
            key,
            Verdict::NotHonoured,
            sent,
            format!("accepted; read back {v}, not {asked}"),
        ),
        Some(Err(e)) => Entry::new(
            key,
            Verdict::Unverified,
            sent,
            format!("accepted; cannot read it back: {e}"),
        ),
        None => Entry::new(key, Verdict::Unverified, sent, "accepted; nothing reports it"),
    }
}

/// The bitrate mask (`mask_rate` only), checked on frames injected without a rate
/// (so that rate control picks one): `before` the mask, `after` it. Works when the
/// rate after is the mask's rate. `others_up`: the radio's other interfaces that are
/// up — mac80211 sends an injected frame whose transmitter address is that of a
/// running interface through that interface, and so with its mask, not the
/// monitor's (seen on hwsim with wlan0 up).
pub fn bitrate_mask(
    sent: &str,
    set: Result<(), ControlError>,
    mask_rate: TxRate,
    before: &Heard,
    after: &Heard,
    others_up: &[String],
) -> Entry {
    const K: &str = "bitrate_mask";
    if let Err(e) = set {
        return refused(K, sent, &e, None);
    }
    let b = before.echo().and_then(|e| e.rate).map(rate_text).unwrap_or_else(|| "no rate".into());
    let Some(a) = after.echo() else {
        return Entry::new(
            K,
            Verdict::Unverified,
            sent,
            format!("accepted; a frame sent without a rate afterwards: {}", after.text()),
        );
    };
    let mut got = format!(
        "accepted; without a radiotap rate: before the mask {b}, after it {}",
        echo_text(a)
    );
    let v = match a.rate {
        Some(r) if r == mask_rate => Verdict::Works,
        Some(_) => {
            got.push_str(&format!(" (not the mask's {})", rate_text(mask_rate)));
            if !others_up.is_empty() {
                got.push_str(&format!(
                    "; other interfaces of the radio are up ({}): a frame from the address of one of them is sent through it, with its own mask",
                    others_up.join(", ")
                ));
            }
            Verdict::NotHonoured
        }
        None => Verdict::Unverified,
    };
    Entry { key: K, verdict: v, sent: sent.into(), got, echo: Some(*a) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sdmac_frame::radiotap::tx_flags::FAIL;

    const R1: TxRate = TxRate::Legacy { units_500k: 2 };
    const R54: TxRate = TxRate::Legacy { units_500k: 108 };

    fn echo(flags: u16, retries: u8, rate: TxRate) -> Heard {
        Heard::Echo(TxStatus { tx_flags: flags, retries: Some(retries), rate: Some(rate) })
    }

    fn v(e: Entry) -> Verdict {
        e.verdict
    }

    #[test]
    fn injection_and_tx_status() {
        let silent = Heard::Silent { waited_ms: 1000 };
        assert_eq!(v(injection("x", &echo(FAIL, 0, R1))), Verdict::Works);
        assert_eq!(v(injection("x", &silent)), Verdict::NotSupported);
        assert_eq!(v(injection("x", &Heard::SendFailed("ENETDOWN".into()))), Verdict::Error);
        assert_eq!(v(tx_status_fail("x", &echo(FAIL, 0, R1))), Verdict::Works);
        let e = tx_status_fail("x", &echo(0, 0, R1));
        assert_eq!(e.verdict, Verdict::NotHonoured);
        assert!(e.got.contains("acknowledged though nobody has the address"), "{}", e.got);
        assert_eq!(e.echo.unwrap().tx_flags, 0);
        assert_eq!(v(tx_status_fail("x", &silent)), Verdict::NotSupported);
        assert_eq!(v(tx_status_ack("x", &echo(0, 0, R1))), Verdict::Works);
        assert_eq!(v(tx_status_ack("x", &echo(FAIL, 0, R1))), Verdict::NotHonoured);
    }

    #[test]
    fn rates() {
        assert_eq!(v(rate("radiotap_rate", "x", R54, &echo(FAIL, 0, R54))), Verdict::Works);
        let e = rate("radiotap_rate", "x", R54, &echo(FAIL, 0, R1));
        assert_eq!(e.verdict, Verdict::NotHonoured);
        assert!(e.got.ends_with("sent at 1 Mb/s instead of 54 Mb/s"), "{}", e.got);
        let mcs = TxRate::Ht { mcs: 3, bw40: false, short_gi: false };
        assert_eq!(v(rate("radiotap_mcs", "x", mcs, &echo(FAIL, 0, mcs))), Verdict::Works);
        let norate = Heard::Echo(TxStatus { tx_flags: FAIL, retries: Some(0), rate: None });
        assert_eq!(v(rate("radiotap_mcs", "x", mcs, &norate)), Verdict::Unverified);
    }

    #[test]
    fn retries_and_noack() {
        // hwsim with a medium daemon: 3 attempts asked, 3 made
        assert_eq!(v(data_retries("x", 2, &echo(FAIL, 2, R1))), Verdict::Works);
        // hwsim's in-kernel medium: one attempt whatever is asked
        let e = data_retries("x", 2, &echo(FAIL, 0, R1));
        assert_eq!(e.verdict, Verdict::NotHonoured);
        assert!(e.got.ends_with("1 attempt(s) made, 3 asked"), "{}", e.got);
        // acknowledged by someone after all: no evidence either way
        assert_eq!(v(data_retries("x", 2, &echo(0, 0, R1))), Verdict::Unverified);
        // NOACK: one attempt (F_TX_FAIL is set by mac80211 all the same)
        assert_eq!(v(noack("x", 2, &echo(FAIL, 0, R1), true)), Verdict::Works);
        assert_eq!(v(noack("x", 2, &echo(0, 0, R1), true)), Verdict::Works);
        assert_eq!(v(noack("x", 2, &echo(FAIL, 0, R1), false)), Verdict::Unverified);
        assert_eq!(v(noack("x", 2, &echo(FAIL, 2, R1), true)), Verdict::NotHonoured);
        assert_eq!(v(noack("x", 2, &Heard::Silent { waited_ms: 5 }, true)), Verdict::NotSupported);
    }

    #[test]
    fn settings() {
        let ns = || ControlError::NotSupported {
            what: "coverage class",
            why: "phy0's driver refuses it (EOPNOTSUPP)".into(),
        };
        let e = setting("coverage_class", "set 1", &1u8, Err(ns()), Some(Ok(0)));
        assert_eq!(e.verdict, Verdict::NotSupported);
        assert!(e.got.contains("EOPNOTSUPP") && e.got.ends_with("read back: 0"), "{}", e.got);
        assert_eq!(v(setting("tx_power", "x", &1200, Ok(()), Some(Ok(1200)))), Verdict::Works);
        assert_eq!(
            v(setting("tx_power", "x", &1200, Ok(()), Some(Ok(2000)))),
            Verdict::NotHonoured
        );
        assert_eq!(
            v(setting("tx_power", "x", &1200, Ok(()), Some(Err(ns())))),
            Verdict::Unverified
        );
        let busy = ControlError::Busy {
            what: "channel",
            why: "other interfaces of phy0 are up (wlan0)".into(),
        };
        assert_eq!(v(setting("channel", "x", &2412, Err(busy), None)), Verdict::Error);
    }

    #[test]
    fn mask() {
        let before = echo(FAIL, 0, R1);
        assert_eq!(
            v(bitrate_mask("x", Ok(()), R54, &before, &echo(FAIL, 0, R54), &[])),
            Verdict::Works
        );
        let e = bitrate_mask("x", Ok(()), R54, &before, &echo(FAIL, 0, R1), &[]);
        assert_eq!(e.verdict, Verdict::NotHonoured);
        assert!(
            e.got.contains("before the mask 1 Mb/s") && e.got.ends_with("(not the mask's 54 Mb/s)"),
            "{}",
            e.got
        );
        let e = bitrate_mask("x", Ok(()), R54, &before, &echo(FAIL, 0, R1), &["wlan0".to_string()]);
        assert!(e.got.contains("other interfaces of the radio are up (wlan0)"), "{}", e.got);
        assert_eq!(
            v(bitrate_mask("x", Ok(()), R54, &before, &Heard::Silent { waited_ms: 5 }, &[])),
            Verdict::Unverified
        );
        let inval = ControlError::InvalidValue { what: "fixed bitrates", why: "EINVAL".into() };
        assert_eq!(v(bitrate_mask("x", Err(inval), R54, &before, &before, &[])), Verdict::Error);
    }
}
