//! Numbers that are not finite, or outside their physical range, are refused with
//! `file:line: key: message` (TOML writes them `nan`, `inf`, `-inf`).

use sdmac_sim::{run, RunOptions, Scenario};

/// A small scenario with `[phy]`, `[propagation]`, two stations, a flow and a link;
/// `{phy}`, `{prop}`, `{sta}`, `{flow}` and `{link}` are extra lines in those tables.
fn scenario(phy: &str, prop: &str, sta: &str, flow: &str, link: &str) -> String {
    format!(
        "duration = 0.2\nseed = 3\n[phy]\nstandard = \"802.11a\"\nrate = 54\n{phy}\n[propagation]\nmodel = \"log_distance\"\n{prop}\n\
         [[station]]\nname = \"ap\"\nposition = [0, 0]\n{sta}\n[[station]]\nname = \"sta\"\nposition = [5, 0]\n\
         [[flow]]\nfrom = \"sta\"\nto = \"ap\"\npattern = \"cbr\"\ninterval_ms = 2\n{flow}\n[[link]]\nfrom = \"sta\"\nto = \"ap\"\n{link}\n"
    )
}

/// (table, key, a value in range, the expected key in the message).
const KEYS: &[(&str, &str, &str, &str)] = &[
    ("phy", "tx_power_dbm", "20", "phy.tx_power_dbm"),
    ("phy", "noise_floor_dbm", "-95", "phy.noise_floor_dbm"),
    ("phy", "rx_sensitivity_dbm", "-90", "phy.rx_sensitivity_dbm"),
    ("phy", "cca_threshold_dbm", "-82", "phy.cca_threshold_dbm"),
    ("phy", "slot_us", "9", "phy.slot_us"),
    ("prop", "exponent", "3.0", "propagation.exponent"),
    ("prop", "ref_distance_m", "1.0", "propagation.ref_distance_m"),
    ("sta", "tx_power_dbm", "15", "station[0].tx_power_dbm"),
    ("sta", "antenna_gain_dbi", "2", "station[0].antenna_gain_dbi"),
    ("flow", "start", "0.01", "flow[0].start"),
    ("link", "snr_db", "30", "link[0].snr_db"),
    ("link", "rx_power_dbm", "-60", "link[0].rx_power_dbm"),
];

fn with(table: &str, line: &str) -> String {
    let pick = |t: &str| if t == table { line } else { "" };
    scenario(pick("phy"), pick("prop"), pick("sta"), pick("flow"), pick("link"))
}

#[test]
fn non_finite_numbers_are_refused_with_file_line_and_key() {
    for &(table, key, _, full) in KEYS {
        for bad in ["nan", "inf", "-inf", "+nan"] {
            let text = with(table, &format!("{key} = {bad}"));
            let line = text.lines().position(|l| l.starts_with(&format!("{key} = "))).unwrap() + 1;
            match Scenario::parse(&text, "bad.toml") {
                Ok(_) => panic!("{full} = {bad} was accepted"),
                Err(e) => {
                    let m = e.to_string();
                    assert!(
                        m.starts_with(&format!("bad.toml:{line}: {full}: ")),
                        "{full} = {bad}: {m}"
                    );
                    assert!(m.contains("not a finite number"), "{m}");
                }
            }
        }
    }
}

#[test]
fn numbers_out_of_their_physical_range_are_refused() {
    for (table, line, key) in [
        ("phy", "tx_power_dbm = 200", "phy.tx_power_dbm"),
        ("phy", "noise_floor_dbm = 30", "phy.noise_floor_dbm"),
        ("prop", "exponent = -2", "propagation.exponent"),
        ("prop", "exponent = 0", "propagation.exponent"),
        ("phy", "slot_us = 0.0", "phy.slot_us"),
        ("phy", "slot_us = 0.0004", "phy.slot_us"),
        ("link", "snr_db = 1e6", "link[0].snr_db"),
        ("sta", "antenna_gain_dbi = 1000", "station[0].antenna_gain_dbi"),
        ("flow", "start = -1", "flow[0].start"),
    ] {
        let e = Scenario::parse(&with(table, line), "bad.toml")
            .err()
            .unwrap_or_else(|| panic!("{line} was accepted"))
            .to_string();
        assert!(
            e.contains(&format!(": {key}: ")) && e.contains("out of range: expected"),
            "{line}: {e}"
        );
    }
}

#[test]
fn numbers_in_range_run() {
    for &(table, key, good, _) in KEYS {
        let s = Scenario::parse(&with(table, &format!("{key} = {good}")), "good.toml")
            .unwrap_or_else(|e| panic!("{e}"));
        let j = run(&s, &RunOptions::default(), &mut |_| true).unwrap().to_json();
        let a = &j["aggregate"];
        assert!(a["attempts"].as_u64().unwrap() > 0, "{key} = {good}: no attempts");
        assert_eq!(
            a["sent"],
            a["acked"].as_u64().unwrap() + a["lost"].as_u64().unwrap(),
            "{key} = {good}"
        );
    }
}
