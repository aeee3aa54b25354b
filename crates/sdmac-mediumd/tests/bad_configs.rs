//! `sdmac-mediumd -c BAD` on every bad configuration of two corpora — the project's
//! own (`crates/sdmac-wmconfig/tests/corpus/bad_*.cfg`: libconfig syntax) and yawmd's
//! (`../shared/data/yawmd-configs/config_tests-bad_*.cfg`: wrong keys and values) — exit
//! code 2 and one line naming file:line (and the key, where one is at fault), before
//! anything else (no root, no mac80211_hwsim needed). A missing corpus fails the test.

use std::path::{Path, PathBuf};
use std::process::Command;

const DAEMON: &str = env!("CARGO_BIN_EXE_sdmac-mediumd");

/// The project's corpus: file → (line, key or "" where the fault is syntax).
const OWN: &[(&str, usize, &str)] = &[
    ("bad_include.cfg", 2, ""),
    ("bad_missing_value.cfg", 2, "model.type"),
    ("bad_unbalanced.cfg", 2, "ifaces.ids"),
    ("bad_unterminated_string.cfg", 2, ""),
];

/// yawmd's corpus: file → (line, key).
const YAWMD: &[(&str, usize, &str)] = &[
    ("config_tests-bad_empty.cfg", 1, "ifaces"),
    ("config_tests-bad_id.cfg", 4, "medium[0].id"),
    ("config_tests-bad_interfaces.cfg", 19, "medium[1].interfaces[0]"),
    ("config_tests-bad_interfaces2.cfg", 8, "medium[0].interfaces[0]"),
    ("config_tests-bad_medium.cfg", 2, "medium"),
    ("config_tests-bad_medium2.cfg", 3, "medium[0]"),
    ("config_tests-bad_model.cfg", 20, "medium[1].model.type"),
    ("config_tests-bad_model2.cfg", 16, "medium[1].model"),
    ("config_tests-bad_prob.cfg", 24, "medium[1].model.links[0][2]"),
    ("config_tests-bad_snr.cfg", 11, "medium[0].model.links[0][2]"),
];

fn dir(rel: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rel);
    assert!(
        d.is_dir(),
        "the bad-configuration corpus {} is missing (../shared must sit beside the repository)",
        d.display()
    );
    d.canonicalize().unwrap()
}

/// Every `prefix*.cfg` of `dir` has an expected error in `expected`, and only those.
fn check_listing(dir: &Path, prefix: &str, expected: &[(&str, usize, &str)]) {
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(prefix) && n.ends_with(".cfg"))
        .collect();
    files.sort();
    let mut listed: Vec<String> = expected.iter().map(|e| e.0.to_string()).collect();
    listed.sort();
    assert_eq!(files, listed, "every bad file of {} has an expected error here", dir.display());
}

fn check_refused(dir: &Path, expected: &[(&str, usize, &str)]) {
    for &(name, line, key) in expected {
        let path = dir.join(name);
        // A socket path too: the configuration is refused before the socket is made.
        let sock = std::env::temp_dir().join(format!("sdmac-badcfg-{}.sock", std::process::id()));
        let out = Command::new(DAEMON).arg("-c").arg(&path).arg("-s").arg(&sock).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        let at = format!("{}:{line}:", path.display());
        assert!(
            err.starts_with("sdmac-mediumd: ") && err.contains(&at),
            "{name}: expected {at} in {err}"
        );
        if !key.is_empty() {
            assert!(err.contains(&format!(": {key}: ")), "{name}: expected key {key} in {err}");
        }
        assert_eq!(err.lines().count(), 1, "{name}: one line: {err}");
        assert!(!sock.exists(), "{name}: no socket made");
        assert!(out.stdout.is_empty(), "{name}: nothing on stdout (no REGISTER SENT!)");
    }
}

#[test]
fn every_bad_config_of_the_projects_corpus_is_refused_with_file_and_line() {
    let d = dir("../sdmac-wmconfig/tests/corpus");
    check_listing(&d, "bad_", OWN);
    check_refused(&d, OWN);
}

#[test]
fn every_bad_config_of_yawmds_corpus_is_refused_with_file_line_and_key() {
    let d = dir("../../../shared/data/yawmd-configs");
    check_listing(&d, "config_tests-bad_", YAWMD);
    check_refused(&d, YAWMD);
}

#[test]
fn a_missing_config_names_the_file() {
    let out = Command::new(DAEMON).args(["-c", "/nonexistent/wmediumd.cfg"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("/nonexistent/wmediumd.cfg"), "{err}");
}
