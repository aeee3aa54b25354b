//! `sdmac-mediumd -c BAD` on every bad configuration of the corpus in
//! `tests/data/configs/`: exit code 2 and a message naming file:line:column and key,
//! before anything else (no root, no mac80211_hwsim needed).

use std::path::PathBuf;
use std::process::Command;

const DAEMON: &str = env!("CARGO_BIN_EXE_sdmac-mediumd");

/// File → (line, key) the error must name.
const EXPECTED: &[(&str, usize, &str)] = &[
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

fn corpus() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/configs");
    assert!(dir.is_dir(), "the bad-configuration corpus {} is missing", dir.display());
    dir.canonicalize().unwrap()
}

#[test]
fn every_bad_config_is_refused_with_file_line_and_key() {
    let dir = corpus();
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".cfg"))
        .collect();
    files.sort();
    let mut listed: Vec<String> = EXPECTED.iter().map(|e| e.0.to_string()).collect();
    listed.sort();
    assert_eq!(files, listed, "every corpus file has an expected error here");
    for &(name, line, key) in EXPECTED {
        let path = dir.join(name);
        // A socket path too: the configuration is refused before the socket is made.
        let sock = std::env::temp_dir().join(format!("sdmac-badcfg-{}.sock", std::process::id()));
        let out = Command::new(DAEMON).arg("-c").arg(&path).arg("-s").arg(&sock).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        let at = format!("{}:{line}:", path.display());
        assert!(err.starts_with("sdmac-mediumd: ") && err.contains(&at), "{name}: expected {at} in {err}");
        assert!(err.contains(&format!(": {key}: ")), "{name}: expected key {key} in {err}");
        assert_eq!(err.lines().count(), 1, "{name}: one line: {err}");
        assert!(!sock.exists(), "{name}: no socket made");
        assert!(out.stdout.is_empty(), "{name}: nothing on stdout (no REGISTER SENT!)");
    }
}

#[test]
fn a_missing_config_names_the_file() {
    let out = Command::new(DAEMON).args(["-c", "/nonexistent/wmediumd.cfg"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("/nonexistent/wmediumd.cfg"), "{err}");
}
