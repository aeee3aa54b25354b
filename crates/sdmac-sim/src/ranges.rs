//! The physical range of every number a scenario gives: a number outside it, or not
//! finite (TOML has `nan` and `inf`), is refused with `file:line: key: message`.
//!
//! | keys | range |
//! |---|---|
//! | `tx_power_dbm` (phy, station) | −50 … 60 dBm |
//! | `antenna_gain_dbi` | −30 … 60 dBi |
//! | `noise_floor_dbm`, `cca_threshold_dbm`, `rx_sensitivity_dbm` (phy, station) | −200 … 0 dBm |
//! | `slot_us` | 0.001 … 100 000 µs (a slot of zero would make backoff free) |
//! | `sifs_us`, `difs_us`, `eifs_us`, `ack_timeout_us`, `phy_header_us` | 0 … 100 000 µs |
//! | `propagation.exponent` | 1 … 10 |
//! | `propagation.ref_distance_m` | 0.001 … 1 000 000 m |
//! | `propagation.sigma_db`, `sl_db`, `floor_loss_db`, `power_loss_coefficient` | 0 … 100 dB |
//! | `propagation.tx_height_m`, `rx_height_m` | 0.001 … 10 000 m |
//! | station `position` coordinates | −10 000 000 … 10 000 000 m |
//! | `grid_spacing_m`, `circle_radius_m` | 0.001 … 10 000 000 m |
//! | `edca.*.txop_limit_us` | 0 … 100 000 µs |
//! | flow `interval_ms` | 0.001 … 1 000 000 000 ms; `rate_pps` 0.001 … 1 000 000 000 |
//! | flow `start`, `stop` | 0 … 1 000 000 000 s |
//! | link `snr_db` | −100 … 100 dB; `rx_power_dbm` −200 … 60 dBm; `error_prob` 0 … 1 |
//!
//! (Thermal noise in 20 MHz is about −101 dBm; Wi-Fi transmitters send −10 … 30 dBm;
//! path-loss exponents are 2 in free space and up to about 6 indoors.)

use crate::error::SimError;

/// An inclusive range with its unit, for messages.
#[derive(Copy, Clone, Debug)]
pub struct Range {
    /// Smallest value.
    pub lo: f64,
    /// Largest value.
    pub hi: f64,
    /// Unit, for messages ("dBm", "µs", "").
    pub unit: &'static str,
}

const fn r(lo: f64, hi: f64, unit: &'static str) -> Range {
    Range { lo, hi, unit }
}

/// Transmit power.
pub const TX_POWER_DBM: Range = r(-50.0, 60.0, "dBm");
/// Antenna gain.
pub const GAIN_DBI: Range = r(-30.0, 60.0, "dBi");
/// Noise floor, CCA threshold, receiver sensitivity.
pub const LEVEL_DBM: Range = r(-200.0, 0.0, "dBm");
/// The slot time: at least one nanosecond.
pub const SLOT_US: Range = r(0.001, 100_000.0, "µs");
/// PHY timings.
pub const TIMING_US: Range = r(0.0, 100_000.0, "µs");
/// Path-loss exponent.
pub const EXPONENT: Range = r(1.0, 10.0, "");
/// A loss or standard deviation in dB.
pub const LOSS_DB: Range = r(0.0, 100.0, "dB");
/// A reference distance.
pub const REF_DISTANCE_M: Range = r(0.001, 1e6, "m");
/// An antenna height.
pub const HEIGHT_M: Range = r(0.001, 1e4, "m");
/// A coordinate.
pub const COORDINATE_M: Range = r(-1e7, 1e7, "m");
/// A spacing or radius.
pub const SPACING_M: Range = r(0.001, 1e7, "m");
/// A traffic interval.
pub const INTERVAL_MS: Range = r(0.001, 1e9, "ms");
/// A packet rate.
pub const RATE_PPS: Range = r(0.001, 1e9, "packets/s");
/// A start or stop time.
pub const TIME_S: Range = r(0.0, 1e9, "s");
/// A link's SNR.
pub const SNR_DB: Range = r(-100.0, 100.0, "dB");
/// A link's received power.
pub const RX_POWER_DBM: Range = r(-200.0, 60.0, "dBm");
/// A probability.
pub const PROBABILITY: Range = r(0.0, 1.0, "");

/// The 1-based line where `key` is assigned in the table that starts at byte
/// `table_start` of `text` (its header line, or an inline table's line); the table's
/// own line if the key is not found on a line of its own.
pub fn key_line(text: &str, table_start: usize, key: &str) -> usize {
    let start = table_start.min(text.len());
    let first = text[..start].bytes().filter(|&b| b == b'\n').count() + 1;
    // The table's own line (its header) may hold an inline table.
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    for (k, line) in text[line_start..].lines().enumerate() {
        let t = line.trim_start();
        if k > 0 && t.starts_with('[') {
            break;
        }
        let assigns =
            |t: &str| t.strip_prefix(key).is_some_and(|rest| rest.trim_start().starts_with('='));
        if assigns(t) || (k == 0 && line.split(['{', ',']).any(|p| assigns(p.trim_start()))) {
            return first + k;
        }
    }
    first
}

/// Checks `value` (if given) against `range`: an error at the key's line otherwise.
pub fn check(
    file: &str,
    text: &str,
    table_start: usize,
    prefix: &str,
    key: &str,
    value: Option<f64>,
    range: Range,
) -> Result<(), SimError> {
    let Some(v) = value else { return Ok(()) };
    if v.is_finite() && v >= range.lo && v <= range.hi {
        return Ok(());
    }
    let unit = if range.unit.is_empty() { String::new() } else { format!(" {}", range.unit) };
    let what = if v.is_finite() {
        format!("{v} is out of range")
    } else {
        format!("{v} is not a finite number")
    };
    Err(SimError::at(
        file,
        Some(key_line(text, table_start, key)),
        format!("{prefix}{key}"),
        format!("{what}: expected {} to {}{unit}", range.lo, range.hi),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_lines() {
        let text =
            "duration = 1\n[phy]\nrate = 54\n tx_power_dbm = nan\n[[station]]\ntx_power_dbm = 3\n";
        let phy = text.find("[phy]").unwrap();
        assert_eq!(key_line(text, phy, "tx_power_dbm"), 4);
        assert_eq!(key_line(text, phy, "noise_floor_dbm"), 2);
        let st = text.find("[[station]]").unwrap();
        assert_eq!(key_line(text, st, "tx_power_dbm"), 6);
        let inline = "a = 1\nphy = { rate = 6, tx_power_dbm = inf }\n";
        assert_eq!(key_line(inline, inline.find("phy").unwrap(), "tx_power_dbm"), 2);
    }

    #[test]
    fn messages_name_the_key_and_the_range() {
        let text = "[phy]\ntx_power_dbm = nan\n";
        let e = check("s.toml", text, 0, "phy.", "tx_power_dbm", Some(f64::NAN), TX_POWER_DBM)
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "s.toml:2: phy.tx_power_dbm: NaN is not a finite number: expected -50 to 60 dBm"
        );
        let e =
            check("s.toml", text, 0, "phy.", "tx_power_dbm", Some(90.0), TX_POWER_DBM).unwrap_err();
        assert_eq!(
            e.to_string(),
            "s.toml:2: phy.tx_power_dbm: 90 is out of range: expected -50 to 60 dBm"
        );
        assert!(check("s.toml", text, 0, "phy.", "tx_power_dbm", Some(20.0), TX_POWER_DBM).is_ok());
        assert!(check("s.toml", text, 0, "phy.", "tx_power_dbm", None, TX_POWER_DBM).is_ok());
    }
}
