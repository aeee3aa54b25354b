//! The scenario parser never panics: arbitrary text, and valid scenarios with random
//! edits, give either a scenario or an error that names the file.

use proptest::prelude::*;
use sdmac_sim::Scenario;

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
            // What parses also builds into mediums (or fails with an error) without panicking.
            Ok(s) => {
                let _ = sdmac_sim::runner::build(&s);
            }
        }
    }
}
