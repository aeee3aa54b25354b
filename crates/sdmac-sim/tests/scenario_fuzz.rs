//! The scenario parser never panics: arbitrary text, and valid scenarios with random
//! edits, give either a scenario or an error that names the file. Every scenario it
//! accepts runs (shortened) and reports consistent counters.

use proptest::prelude::*;
use sdmac_sim::{run, RunOptions, Scenario};
use serde_json::Value;

const VALID: &str = include_str!("../../../examples/scenarios/two_stations_cbr.toml");

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,400}") {
        if let Err(e) = Scenario::parse(&text, "fuzz.toml") {
            prop_assert!(e.to_string().starts_with("fuzz.toml"));
        }
    }

    #[test]
    fn edited_scenarios_never_panic(pos in 0usize..VALID.len(), len in 0usize..20, insert in "[-0-9a-z=\\[\\]\"., \\n]{0,12}") {
        let mut text = VALID.to_string();
        let start = (0..=pos).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
        let mut end = (start + len).min(text.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.replace_range(start..end, &insert);
        match Scenario::parse(&text, "fuzz.toml") {
            Err(e) => prop_assert!(e.to_string().starts_with("fuzz.toml")),
            // What parses also builds into mediums (or fails with an error naming the
            // file) without panicking.
            Ok(s) => {
                if let Err(e) = sdmac_sim::runner::build(&s) {
                    prop_assert!(e.to_string().starts_with("fuzz.toml"), "{e}");
                }
            }
        }
    }
}

/// The numbers of `VALID`'s tables that a scenario may set, and where.
const NUMBER_KEYS: &[(&str, &str)] = &[
    ("[phy]", "tx_power_dbm"),
    ("[phy]", "noise_floor_dbm"),
    ("[phy]", "rx_sensitivity_dbm"),
    ("[phy]", "cca_threshold_dbm"),
    ("[phy]", "slot_us"),
    ("[phy]", "sifs_us"),
    ("[propagation]", "exponent"),
    ("[propagation]", "ref_distance_m"),
    ("name = \"sta1\"", "tx_power_dbm"),
    ("name = \"sta1\"", "antenna_gain_dbi"),
    ("name = \"sta2\"", "noise_floor_dbm"),
    ("interval_ms = 1.0", "start"),
    ("rate_pps = 500", "stop"),
];

fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("nan".to_string()),
        Just("inf".to_string()),
        Just("-inf".to_string()),
        (-1e4f64..1e4).prop_map(|v| format!("{v:?}")),
        (-300i32..300).prop_map(|v| v.to_string()),
    ]
}

/// Runs `s` for at most 0.3 simulated seconds and checks its counters.
fn runs_consistently(mut s: Scenario) -> Result<(), TestCaseError> {
    let short = 300_000_000u64;
    if s.duration_ns > short {
        s.duration_ns = short;
        s.warmup_ns = s.warmup_ns.min(short / 2);
        for f in &mut s.flows {
            f.stop_ns = f.stop_ns.min(short);
        }
    }
    let j = run(&s, &RunOptions::default(), &mut |_| true)
        .map_err(|e| TestCaseError::fail(e.to_string()))?
        .to_json();
    let n = |v: &Value, k: &str| v[k].as_u64().unwrap_or_else(|| panic!("{k} missing in {v}"));
    let (mut sent, mut acked, mut lost, mut dropped, mut attempts) = (0, 0, 0, 0, 0);
    for st in j["stations"].as_array().unwrap() {
        // Every finished request was acknowledged, lost, or (broadcast) sent without ACK.
        prop_assert!(n(st, "acked") + n(st, "lost") <= n(st, "sent"), "{st}");
        prop_assert!(n(st, "attempts") >= n(st, "sent"), "{st}");
        prop_assert!(n(st, "collisions") <= n(st, "attempts"), "{st}");
        prop_assert_eq!(n(st, "retries"), n(st, "attempts") - n(st, "sent"));
        let tput = st["throughput_mbps"].as_f64().unwrap();
        prop_assert!(tput.is_finite() && tput >= 0.0, "{st}");
        sent += n(st, "sent");
        acked += n(st, "acked");
        lost += n(st, "lost");
        dropped += n(st, "dropped");
        attempts += n(st, "attempts");
    }
    let a = &j["aggregate"];
    prop_assert_eq!(
        (n(a, "sent"), n(a, "acked"), n(a, "lost"), n(a, "dropped"), n(a, "attempts")),
        (sent, acked, lost, dropped, attempts)
    );
    // Unicast flows only: every finished request is acknowledged or lost.
    if s.flows.iter().all(|f| f.to.is_some()) {
        prop_assert_eq!(sent, acked + lost);
    }
    // A flow that offers frames for a while makes its station send (or drop) some:
    // CBR at 1 ms from sta1, when its window after the warm-up is 20 ms or more and
    // its station keeps up (its slowest first access — EIFS, a full first backoff and an
    // ACK timeout — is shorter than the interval). A large `slot_us` makes the station
    // fall behind: it then spends the window on frames queued in the warm-up, which the
    // statistics leave out.
    let phy = sdmac_sim::runner::build_phy(&s.file, s.standard, &s.phy)
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    let access = phy.eifs_ns() + u64::from(phy.cw_min) * phy.slot_ns + phy.ack_timeout_ns();
    for f in s.flows.iter() {
        let sdmac_medium::TrafficPattern::ConstantBitRate { interval_ns } = f.pattern else {
            continue;
        };
        if interval_ns <= 1_000_000
            && access < interval_ns
            && f.stop_ns.min(s.duration_ns).saturating_sub(f.start_ns.max(s.warmup_ns))
                >= 20_000_000
        {
            let st = &j["stations"][f.from];
            prop_assert!(n(st, "sent") + n(st, "dropped") > 0, "a CBR flow sent nothing: {st}");
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// A number set to anything (NaN, ±inf, out of range, in range): the scenario is
    /// refused naming file, line and key, or it runs with consistent counters.
    #[test]
    fn any_number_is_refused_or_runs_consistently(which in 0..NUMBER_KEYS.len(), value in number()) {
        let (after, key) = NUMBER_KEYS[which];
        // VALID's own exponent goes, so that the key is set once.
        let mut text = VALID.replace("exponent = 3.0\n", "");
        let at = text.find(after).unwrap();
        let eol = at + text[at..].find('\n').unwrap() + 1;
        let line = text[..eol].lines().count() + 1;
        text.insert_str(eol, &format!("{key} = {value}\n"));
        match Scenario::parse(&text, "fuzz.toml") {
            Err(e) => {
                let m = e.to_string();
                prop_assert!(m.starts_with(&format!("fuzz.toml:{line}: ")) && m.contains(key), "{key} = {value}: {m}");
            }
            Ok(s) => {
                let v: f64 = value.parse().unwrap();
                prop_assert!(v.is_finite(), "{key} = {value} was accepted");
                runs_consistently(s)?;
            }
        }
    }

    /// Random edits of a valid scenario: whatever is accepted runs consistently.
    #[test]
    fn edited_scenarios_that_parse_run_consistently(pos in 0usize..VALID.len(), len in 0usize..8, insert in "[-0-9a-z=. ]{0,6}") {
        let mut text = VALID.to_string();
        let start = (0..=pos).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
        let end = (start + len).min(text.len());
        text.replace_range(start..end, &insert);
        if let Ok(s) = Scenario::parse(&text, "fuzz.toml") {
            if sdmac_sim::runner::build(&s).is_ok() {
                runs_consistently(s)?;
            }
        }
    }
}
