//! Every configuration in the shared test data: the good ones load, the bad ones are
//! rejected with file, line and key; every PER table parses.

use std::path::{Path, PathBuf};

use sdmac_phy::error_model::PerTable;
use sdmac_phy::PathLoss;
use sdmac_wmconfig::wmediumd::{load_file, Config, Dialect, Model};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data");

/// The configurations that must be rejected: (file, key of the error, its line).
const BAD: &[(&str, &str, u32)] = &[
    // An empty file: nothing to configure.
    ("yawmd-configs/config_tests-bad_empty.cfg", "ifaces", 1),
    // `id = "1"`: a string.
    ("yawmd-configs/config_tests-bad_id.cfg", "medium[0].id", 4),
    // "00:00:00:00:01": five bytes.
    ("yawmd-configs/config_tests-bad_interfaces.cfg", "medium[1].interfaces[0]", 19),
    // "00:00:Z0:00:00:00".
    ("yawmd-configs/config_tests-bad_interfaces2.cfg", "medium[0].interfaces[0]", 8),
    // `medium = ( )`.
    ("yawmd-configs/config_tests-bad_medium.cfg", "medium", 2),
    // `medium = ( "asdf" )`.
    ("yawmd-configs/config_tests-bad_medium2.cfg", "medium[0]", 3),
    // A model without `type`.
    ("yawmd-configs/config_tests-bad_model.cfg", "medium[1].model.type", 20),
    // A medium without `model`.
    ("yawmd-configs/config_tests-bad_model2.cfg", "medium[1].model", 16),
    // Probability links (0, 1, 20): outside [0, 1].
    ("yawmd-configs/config_tests-bad_prob.cfg", "medium[1].model.links[0][2]", 24),
    // SNR link (0, 1, 0.1): not an integer.
    ("yawmd-configs/config_tests-bad_snr.cfg", "medium[0].model.links[0][2]", 11),
    // Medium id 3 lists "00:00:00:00:00:06" twice (yawmd rejects this file as well:
    // "Repeated mac address").
    ("yawmd-configs/config_tests-test_new_cfg.cfg", "medium[3].interfaces[1]", 84),
];

fn data_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(DATA);
    if dir.is_dir() {
        Some(dir.canonicalize().unwrap_or(dir))
    } else {
        panic!("the shared test data directory {DATA} is missing (the wmediumd, yawmd and Mininet-WiFi configurations these tests read)");
    }
}

fn configs(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for sub in ["wmediumd-configs", "yawmd-configs", "mininet-wifi-configs"] {
        let Ok(entries) = std::fs::read_dir(dir.join(sub)) else {
            continue;
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.ends_with(".cfg") {
                out.push(format!("{sub}/{name}"));
            }
        }
    }
    out.sort();
    out
}

fn load(dir: &Path, rel: &str) -> Result<Config, sdmac_wmconfig::ConfigError> {
    load_file(dir.join(rel))
}

#[test]
fn good_configs_load() {
    let Some(dir) = data_dir() else { return };
    let all = configs(&dir);
    assert!(all.len() >= 20, "only {} configs found", all.len());
    let mut loaded = 0;
    for rel in &all {
        if BAD.iter().any(|b| b.0 == rel) {
            continue;
        }
        let config = load(&dir, rel).unwrap_or_else(|e| panic!("{rel} must load: {e}"));
        assert!(!config.media.is_empty());
        for m in &config.media {
            assert!(!m.interfaces.is_empty(), "{rel}");
        }
        println!("{rel}: {} media, {} warnings", config.media.len(), config.warnings.len());
        for w in &config.warnings {
            println!("  warning: {w}");
        }
        loaded += 1;
    }
    assert!(loaded >= 18, "{loaded}");
}

#[test]
fn bad_configs_are_rejected_with_file_line_and_key() {
    let Some(dir) = data_dir() else { return };
    for &(rel, key, line) in BAD {
        let err = match load(&dir, rel) {
            Ok(c) => panic!("{rel} must be rejected, loaded {c:?}"),
            Err(e) => e,
        };
        let text = err.to_string();
        println!("{text}");
        assert_eq!(err.key_path.as_deref(), Some(key), "{text}");
        assert_eq!(err.line, line, "{text}");
        assert!(err.column >= 1, "{text}");
        let file_name = rel.rsplit('/').next().unwrap_or(rel);
        assert!(text.contains(file_name), "{text}");
        assert!(text.contains(&format!(":{line}:{}: {key}: ", err.column)), "{text}");
    }
}

#[test]
fn configs_mean_what_they_say() {
    let Some(dir) = data_dir() else { return };
    let get = |rel: &str| load(&dir, rel).unwrap_or_else(|e| panic!("{e}"));

    // bcopeland's diamond: SNR links in `ifaces`, all mirrored.
    let c = get("wmediumd-configs/bcopeland-diamond.cfg");
    assert_eq!(c.dialect, Dialect::Wmediumd);
    let Model::Snr(m) = &c.media[0].model else { panic!() };
    let matrix = m.matrix(4);
    assert_eq!((matrix[1], matrix[4]), (10, 10));
    assert_eq!((matrix[2 * 4 + 3], matrix[3 * 4 + 2]), (20, 20));
    assert_eq!(m.links.iter().filter(|l| l.mirrored).count(), 6);

    // The old `count` key is accepted with a warning.
    let c = get("wmediumd-configs/bcopeland-2node.cfg");
    assert_eq!(c.warnings.len(), 1, "{:?}", c.warnings);
    assert!(c.warnings[0].contains("ifaces.count"), "{:?}", c.warnings);

    // Log-distance with directions given as (dx, dy).
    let c = get("wmediumd-configs/bcopeland-diamond_direction.cfg");
    let Model::PathLoss(p) = &c.media[0].model else { panic!() };
    assert_eq!(
        p.path_loss,
        PathLoss::LogDistance { exponent: 3.5, ref_distance_m: 1.0, sl_db: 0.0 }
    );
    assert_eq!(p.directions.as_ref().map(|d| d[1]), Some([0.0, 10.0, 0.0]));

    // `band` is not a wmediumd key: a warning, not silence.
    let c = get("wmediumd-configs/bcopeland-interference.cfg");
    assert!(c.media[0].interference);
    assert!(c.warnings.iter().any(|w| w.contains("model.band")), "{:?}", c.warnings);

    // Fading with the SNR model.
    let c = get("wmediumd-configs/bcopeland-diamond_fading.cfg");
    assert_eq!(c.media[0].fading_coefficient, 1);

    // One-direction probabilities are mirrored; the default is wmediumd's.
    let c = get("wmediumd-configs/bcopeland-diamond_error_prob.cfg");
    let Model::Prob(m) = &c.media[0].model else { panic!() };
    assert_eq!(m.default_prob, 1.0);
    assert_eq!((m.matrix(4)[2], m.matrix(4)[8]), (0.0, 0.0));

    // The legacy `path_loss` group with positional model_params.
    let c = get("wmediumd-configs/ramonfontes-interference.cfg");
    let Model::PathLoss(p) = &c.media[0].model else { panic!() };
    assert_eq!(
        p.path_loss,
        PathLoss::LogDistance { exponent: 3.5, ref_distance_m: 1.0, sl_db: 0.0 }
    );
    assert_eq!(p.tx_powers_dbm[3], 11.0);

    // Mininet-WiFi: ITU, sub-media, APs, noise and integer tx powers.
    let c = get("mininet-wifi-configs/interference-itu-mediums.cfg");
    let m = &c.media[0];
    let ids: Vec<i32> = m.interfaces.iter().map(|i| i.medium_id).collect();
    assert_eq!(ids, vec![1, 1, 2, 2]);
    assert_eq!((m.noise_dbm, m.fading_coefficient), (-91, 3));
    let Model::PathLoss(p) = &m.model else { panic!() };
    assert_eq!(
        p.path_loss,
        PathLoss::Itu { n_floors: 0, floor_loss_db: 0.0, power_loss_coefficient: 0.0 }
    );
    assert_eq!(p.is_ap, vec![true, false, true, false]);
    assert_eq!(p.tx_powers_dbm, vec![20.0; 4]);

    // Mininet-WiFi's SNR mode writes default_prob: a warning that it is ignored.
    let c = get("mininet-wifi-configs/snr.cfg");
    assert!(
        c.warnings.iter().any(|w| w.contains("model.default_prob: ignored")),
        "{:?}",
        c.warnings
    );

    // yawmd: three media with every option.
    let c = get("yawmd-configs/config_tests-all_options_list.cfg");
    assert_eq!(c.dialect, Dialect::Yawmd);
    let ids: Vec<i32> = c.media.iter().map(|m| m.id).collect();
    assert_eq!(ids, vec![2, 1, 3]);
    let Model::Prob(m) = &c.media[0].model else { panic!() };
    assert_eq!(m.default_prob, 0.5);
    assert!(m.links.iter().all(|l| !l.mirrored));
    let Model::PathLoss(p) = &c.media[2].model else { panic!() };
    assert_eq!(
        p.path_loss,
        PathLoss::TwoRayGround { tx_height_m: 1.0, rx_height_m: 1.0, sl_db: 0.0 }
    );
    assert!(p.heights_from_z);
    assert_eq!(p.antenna_gains_dbi, vec![3.0, 3.0, 5.0, 8.0]);
    assert_eq!(p.move_interval_s, 1.0);
    assert!(c.media[2].interference);

    // yawmd's example: free space, and a prob medium without links.
    let c = get("yawmd-configs/examples-multi.cfg");
    let Model::PathLoss(p) = &c.media[0].model else { panic!() };
    assert_eq!(p.path_loss, PathLoss::FreeSpace { sl_db: 0.0 });
    let Model::Prob(m) = &c.media[2].model else { panic!() };
    assert_eq!((m.default_prob, m.links.len()), (0.01, 0));
}

#[test]
fn per_tables_parse() {
    let Some(dir) = data_dir() else { return };
    let entries = std::fs::read_dir(dir.join("per-tables"))
        .unwrap_or_else(|e| panic!("{}/per-tables: {e}", dir.display()));
    let mut n = 0;
    for e in entries.flatten() {
        let path = e.path();
        let name = path.display().to_string();
        let text = std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{name}: {err}"));
        let table = PerTable::parse(&text, &name).unwrap_or_else(|err| panic!("{err}"));
        let expected_columns = if name.ends_with("ax") { 12 } else { 16 };
        assert_eq!(table.columns(), expected_columns, "{name}");
        assert!(table.rows() > 10, "{name}");
        println!(
            "{name}: {} rows, {} columns, {}..={} dBm, {} warnings",
            table.rows(),
            table.columns(),
            table.min_signal_dbm(),
            table.max_signal_dbm(),
            table.warnings().len()
        );
        n += 1;
    }
    assert_eq!(n, 5);
}
