//! A PHY of the operator's own (`--phy FILE.toml`): the `[phy]` table of an sdmac
//! scenario, read by the scenario parser of `sdmac-sim`, timing every frame on every
//! channel instead of the standard PHY of the channel's band.
//!
//! The kernel's rate entries keep their attempt counts, but every entry goes at the
//! table's `rate`: hwsim radios only know the rates of their band, so no index of
//! theirs names a custom rate. Control frames (ACKs) go at `control_rate` (or the
//! table's basic rates, as in a scenario). Every access category contends with the
//! table's DIFS (as an AIFSN over SIFS) and `cw_min`/`cw_max`, as a non-QoS station
//! of a scenario does (DCF): the standard's EDCA defaults are fractions of CWmin that
//! a custom CWmin need not allow.

use sdmac_medium::EdcaParams;
use sdmac_phy::{Phy, Rate};

/// Keys of `[phy]` the daemon applies; the others are refused by name.
const APPLIED: [&str; 13] = [
    "standard",
    "rate",
    "basic_rates",
    "control_rate",
    "slot_us",
    "sifs_us",
    "difs_us",
    "eifs_us",
    "ack_timeout_us",
    "phy_header_us",
    "cw_min",
    "cw_max",
    "short_preamble",
];

/// The PHY every channel of the daemon uses, from a `[phy]` table.
#[derive(Clone, Debug)]
pub struct CustomPhy {
    /// Timings, contention window and control rate, as the scenario builds them.
    pub phy: Phy,
    /// The rate every rate entry of every frame goes at.
    pub rate: Rate,
    /// DIFS as an AIFSN over SIFS.
    pub aifsn: u8,
}

impl CustomPhy {
    /// Reads and checks the `[phy]` table in `path`.
    pub fn load(path: &str) -> Result<CustomPhy, String> {
        let text =
            std::fs::read_to_string(path).map_err(|e| format!("--phy: cannot read {path}: {e}"))?;
        CustomPhy::parse(&text, path)
    }

    /// Checks the `[phy]` table `text`; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<CustomPhy, String> {
        let bad = |e: sdmac_sim::SimError| format!("--phy: {e}");
        let (standard, raw) = sdmac_sim::scenario::parse_phy_table(text, file).map_err(bad)?;
        let given = [
            ("retry_limit", raw.retry_limit.is_some()),
            ("error_model", raw.error_model.is_some()),
            ("per_table", raw.per_table.is_some()),
            ("freq_mhz", raw.freq_mhz.is_some()),
            ("tx_power_dbm", raw.tx_power_dbm.is_some()),
            ("noise_floor_dbm", raw.noise_floor_dbm.is_some()),
            ("cca_threshold_dbm", raw.cca_threshold_dbm.is_some()),
            ("rx_sensitivity_dbm", raw.rx_sensitivity_dbm.is_some()),
            ("queue_limit", raw.queue_limit.is_some()),
        ];
        if let Some((key, _)) = given.iter().find(|(_, set)| *set) {
            return Err(format!(
                "--phy: {file}: phy.{key} is not applied by sdmac-mediumd (the kernel, the \
                 configuration's link model and -x decide it); it takes {}",
                APPLIED.join(", ")
            ));
        }
        let Some(rate) = &raw.rate else {
            return Err(format!(
                "--phy: {file}: phy.rate is missing: every frame goes at that one rate"
            ));
        };
        let rate = rate.parse_rate().map_err(|e| format!("--phy: {file}: phy.rate: {e}"))?;
        let mut phy = sdmac_sim::runner::build_phy(file, standard, &raw).map_err(bad)?;
        let aifsn = sdmac_sim::runner::dcf_aifsn(file, &phy, &raw).map_err(bad)?;
        // As on the standard channels: carrier sense is instantaneous (see
        // `channel_rates::phy_for`).
        phy.cca_ns = 0;
        let edca = EdcaParams { aifsn, cw_min: phy.cw_min, cw_max: phy.cw_max, txop_limit_ns: 0 };
        edca.validate().map_err(|e| {
            format!("--phy: {file}: phy.cw_min/cw_max/difs_us: {e} (CW must be 2^k - 1)")
        })?;
        Ok(CustomPhy { phy, rate, aifsn })
    }

    /// The contention parameters of every access category.
    pub fn edca(&self) -> EdcaParams {
        EdcaParams {
            aifsn: self.aifsn,
            cw_min: self.phy.cw_min,
            cw_max: self.phy.cw_max,
            txop_limit_ns: 0,
        }
    }
}
