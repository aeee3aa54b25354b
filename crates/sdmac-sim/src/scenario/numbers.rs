//! Checks of every number in a scenario against its physical range, and the small
//! conversions (lines, seconds, MAC addresses) parsing needs.

use super::RawScenario;
use crate::error::SimError;
use crate::ranges;

pub(super) fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].bytes().filter(|&b| b == b'\n').count() + 1
}

pub(super) fn secs_to_ns(s: f64) -> u64 {
    (s * 1e9).round() as u64
}

/// Parses a MAC address `aa:bb:cc:dd:ee:ff`.
pub fn parse_mac(s: &str) -> Option<[u8; 6]> {
    let parts: Vec<&str> = s.split(':').collect();
    if parts.len() != 6 {
        return None;
    }
    let mut a = [0u8; 6];
    for (i, p) in parts.iter().enumerate() {
        if p.len() != 2 {
            return None;
        }
        a[i] = u8::from_str_radix(p, 16).ok()?;
    }
    Some(a)
}

/// Every number of the scenario against its physical range ([`crate::ranges`]).
pub(super) fn check_numbers(raw: &RawScenario, text: &str, file: &str) -> Result<(), SimError> {
    use ranges::*;
    if let Some(p) = &raw.phy {
        let (at, p) = (p.span().start, p.get_ref());
        check(file, text, at, "phy.", "slot_us", p.slot_us, SLOT_US)?;
        for (k, v) in [
            ("sifs_us", p.sifs_us),
            ("difs_us", p.difs_us),
            ("eifs_us", p.eifs_us),
            ("ack_timeout_us", p.ack_timeout_us),
            ("phy_header_us", p.phy_header_us),
        ] {
            check(file, text, at, "phy.", k, v, TIMING_US)?;
        }
        check(file, text, at, "phy.", "tx_power_dbm", p.tx_power_dbm, TX_POWER_DBM)?;
        for (k, v) in [
            ("noise_floor_dbm", p.noise_floor_dbm),
            ("cca_threshold_dbm", p.cca_threshold_dbm),
            ("rx_sensitivity_dbm", p.rx_sensitivity_dbm),
        ] {
            check(file, text, at, "phy.", k, v, LEVEL_DBM)?;
        }
    }
    if let Some(p) = &raw.propagation {
        let (at, p) = (p.span().start, p.get_ref());
        let c = |k: &str, v: Option<f64>, r: Range| check(file, text, at, "propagation.", k, v, r);
        c("exponent", p.exponent, EXPONENT)?;
        c("ref_distance_m", p.ref_distance_m, REF_DISTANCE_M)?;
        for (k, v) in [
            ("sigma_db", p.sigma_db),
            ("sl_db", p.sl_db),
            ("floor_loss_db", p.floor_loss_db),
            ("power_loss_coefficient", p.power_loss_coefficient),
        ] {
            c(k, v, LOSS_DB)?;
        }
        c("tx_height_m", p.tx_height_m, HEIGHT_M)?;
        c("rx_height_m", p.rx_height_m, HEIGHT_M)?;
    }
    for (i, st) in raw.station.iter().enumerate() {
        let (at, s) = (st.span().start, st.get_ref());
        let prefix = format!("station[{i}].");
        let c = |k: &str, v: Option<f64>, r: Range| check(file, text, at, &prefix, k, v, r);
        c("tx_power_dbm", s.tx_power_dbm, TX_POWER_DBM)?;
        c("antenna_gain_dbi", s.antenna_gain_dbi, GAIN_DBI)?;
        for (k, v) in [
            ("noise_floor_dbm", s.noise_floor_dbm),
            ("cca_threshold_dbm", s.cca_threshold_dbm),
            ("rx_sensitivity_dbm", s.rx_sensitivity_dbm),
        ] {
            c(k, v, LEVEL_DBM)?;
        }
        for x in s.position.iter().flatten() {
            c("position", Some(*x), COORDINATE_M)?;
        }
        c("grid_spacing_m", s.grid_spacing_m, SPACING_M)?;
        c("circle_radius_m", s.circle_radius_m, SPACING_M)?;
        for (ac, e) in s.edca.iter().flatten() {
            check(
                file,
                text,
                at,
                &format!("{prefix}edca.{ac}."),
                "txop_limit_us",
                e.txop_limit_us,
                TIMING_US,
            )?;
        }
    }
    for (i, f) in raw.flow.iter().enumerate() {
        let (at, f) = (f.span().start, f.get_ref());
        let prefix = format!("flow[{i}].");
        let c = |k: &str, v: Option<f64>, r: Range| check(file, text, at, &prefix, k, v, r);
        c("interval_ms", f.interval_ms, INTERVAL_MS)?;
        c("rate_pps", f.rate_pps, RATE_PPS)?;
        c("start", f.start, TIME_S)?;
        c("stop", f.stop, TIME_S)?;
    }
    for (i, l) in raw.link.iter().enumerate() {
        let (at, l) = (l.span().start, l.get_ref());
        let prefix = format!("link[{i}].");
        let c = |k: &str, v: Option<f64>, r: Range| check(file, text, at, &prefix, k, v, r);
        c("snr_db", l.snr_db, SNR_DB)?;
        c("rx_power_dbm", l.rx_power_dbm, RX_POWER_DBM)?;
        c("error_prob", l.error_prob, PROBABILITY)?;
    }
    Ok(())
}
