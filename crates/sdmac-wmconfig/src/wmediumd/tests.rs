//! Tests of reading wmediumd and yawmd configurations.

use super::*;

fn ok(text: &str) -> Config {
    parse_config(text, "t.cfg").unwrap_or_else(|e| panic!("{e}"))
}

fn bad(text: &str) -> ConfigError {
    match parse_config(text, "t.cfg") {
        Ok(c) => panic!("accepted: {c:?}"),
        Err(e) => e,
    }
}

const IDS: &str =
    "ifaces: { ids = [\"02:00:00:00:00:00\", \"02:00:00:00:01:00\", \"02:00:00:00:02:00\"]; };\n";

#[test]
fn mac_addresses() {
    assert_eq!(parse_mac("02:00:0a:FF:0:1"), Ok(MacAddress([2, 0, 10, 255, 0, 1])));
    assert_eq!(MacAddress([2, 0, 10, 255, 0, 1]).to_string(), "02:00:0a:ff:00:01");
    for s in [
        "00:00:00:00:01",
        "00:00:Z0:00:00:00",
        "00:00:00:00:00:00:00",
        "000:00:00:00:00:00",
        "",
        "0:0:0:0:0:",
    ] {
        assert!(parse_mac(s).is_err(), "{s}");
    }
}

#[test]
fn snr_links_are_mirrored_in_wmediumd() {
    let c = ok(&format!("{IDS}model: {{ type = \"snr\"; default_snr = 7; links = ((0, 1, 10), (1, 2, 20), (2, 1, 25)); }};"));
    let Model::Snr(m) = &c.media[0].model else { panic!() };
    assert_eq!(m.matrix(3), vec![7, 10, 7, 10, 7, 20, 7, 25, 7]);
    assert_eq!(m.links.iter().filter(|l| l.mirrored).count(), 1);
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    // A pair given twice: the last one is in force, and it is what gets mirrored.
    let c =
        ok(&format!("{IDS}model: {{ type = \"snr\";\n links = ((0, 1, 10),\n (0, 1, 12)); }};"));
    let Model::Snr(m) = &c.media[0].model else { panic!() };
    assert_eq!((m.matrix(3)[1], m.matrix(3)[3]), (12, 12));
    assert_eq!(
        c.warnings,
        vec!["t.cfg:4:2: model.links[1]: replaces the link 0 -> 1 given at line 3".to_string()]
    );
}

#[test]
fn prob_defaults_and_range() {
    let c = ok(&format!("{IDS}model: {{ type = \"prob\"; links = ((0, 2, 0.5)); }};"));
    let Model::Prob(m) = &c.media[0].model else { panic!() };
    assert_eq!(m.matrix(3)[2], 0.5);
    assert_eq!(m.matrix(3)[6], 0.5);
    assert_eq!(m.matrix(3)[1], WMEDIUMD_DEFAULT_PROB);
    let e = bad(&format!("{IDS}model: {{ type = \"prob\";\n links = ((0, 2, 1.5)); }};"));
    assert_eq!((e.line, e.key_path.as_deref()), (3, Some("model.links[0][2]")));
}

#[test]
fn errors_name_line_and_key() {
    let e = bad(&format!(
        "{IDS}model: {{\n type = \"snr\";\n links = (\n (0, 1, 10),\n (0, 3, 20)\n );\n}};"
    ));
    assert_eq!(e.to_string(), "t.cfg:6:6: model.links[1][1]: interface index 3 is out of range: there are 3 interfaces (0..=2)");
    let e = bad("ifaces: { ids = [\"02:00:00:00:00:00\", \"02:00:00:00:01\"]; };");
    assert_eq!((e.line, e.column, e.key_path.as_deref()), (1, 39, Some("ifaces.ids[1]")));
    let e = bad(&format!("{IDS}model: {{ type = \"path_loss\"; model_name = \"log_distance\"; path_loss_exp = 3.0; xg = 0.0;\n positions = ((0.0, 0.0), (1.0, 0.0)); tx_powers = (15, 15, 15); }};"));
    assert_eq!((e.line, e.key_path.as_deref()), (3, Some("model.positions")));
    assert!(e.message.contains("2 entries, but there are 3 interfaces"), "{e}");
    let e = bad(&format!("{IDS}model: {{ type = \"snr\"; links = ((0, 1, 1.5)); }};"));
    assert!(e.message.contains("expected an integer, found a float (1.5)"), "{e}");
    let e = bad(&format!("{IDS}model: {{ type = \"fancy\"; }};"));
    assert_eq!(e.key_path.as_deref(), Some("model.type"));
    let e = bad(&format!("{IDS}model: {{ links = (); }};"));
    assert_eq!(e.key_path.as_deref(), Some("model.type"));
    let e = bad("ifaces: { count = 3; ids = [\"02:00:00:00:00:00\"]; };");
    assert_eq!(e.key_path.as_deref(), Some("ifaces.count"));
    let e = bad("a = 1;");
    assert_eq!(e.to_string(), "t.cfg:1:1: ifaces: missing: a wmediumd configuration needs an `ifaces` group (a yawmd one a `medium` list)");
}

#[test]
fn path_loss_models_map_onto_phy() {
    let base = format!("{IDS}model: {{ type = \"path_loss\"; positions = ((0.0, 0.0), (1.0, 0.0, 2.0), (0, 5)); tx_powers = (15, 15.5, 11); ");
    let model = |extra: &str| {
        let c = ok(&format!("{base}{extra} }};"));
        match &c.media[0].model {
            Model::PathLoss(p) => ((**p).clone(), c.warnings.clone()),
            m => panic!("{m:?}"),
        }
    };
    let (p, w) = model("model_name = \"log_distance\"; path_loss_exp = 3.5; xg = 1.0;");
    assert_eq!(
        p.path_loss,
        PathLoss::LogDistance { exponent: 3.5, ref_distance_m: 1.0, sl_db: 1.0 }
    );
    assert_eq!(p.positions[1], [1.0, 0.0, 2.0]);
    assert_eq!(p.tx_powers_dbm, vec![15.0, 15.5, 11.0]);
    assert_eq!(p.antenna_gains_dbi, vec![WMEDIUMD_ANTENNA_GAIN_DBI; 3]);
    assert!(w.is_empty(), "{w:?}");
    let (p, _) = model("model_name = \"free_space\"; sL = 10;");
    assert_eq!(p.path_loss, PathLoss::FreeSpace { sl_db: 10.0 });
    let (p, w) = model("model_name = \"log_normal_shadowing\"; path_loss_exp = 2.5; sL = 1;");
    assert_eq!(
        p.path_loss,
        PathLoss::LogNormalShadowing {
            exponent: 2.5,
            ref_distance_m: 1.0,
            sigma_db: 1.0,
            sl_db: 0.0
        }
    );
    assert_eq!(w.len(), 1, "{w:?}");
    let (p, _) = model("model_name = \"two_ray_ground\"; sL = 1;");
    assert_eq!(
        p.path_loss,
        PathLoss::TwoRayGround { tx_height_m: 1.0, rx_height_m: 1.0, sl_db: 0.0 }
    );
    assert!(!p.heights_from_z);
    let (p, _) = model("model_name = \"itu\"; nFLOORS = 2; lF = 15; pL = 30;");
    assert_eq!(
        p.path_loss,
        PathLoss::Itu { n_floors: 2, floor_loss_db: 15.0, power_loss_coefficient: 30.0 }
    );
    let (p, _) = model("model_name = \"nakagami\"; m = 2.0;");
    assert_eq!(p.nakagami_m, Some(2.0));
    assert_eq!(
        p.path_loss,
        PathLoss::LogDistance { exponent: 2.0, ref_distance_m: 1.0, sl_db: 0.0 }
    );
    let (_, w) =
        model("model_name = \"free_space\"; sL = 1; xg = 3.0; band = 2; default_prob = 1.0;");
    assert_eq!(w.len(), 3, "{w:?}");
    assert!(w[0].contains("2:144: model.xg: ignored: not a parameter"), "{w:?}");
    assert!(w[1].contains("model.band: unknown setting"), "{w:?}");
    let e = bad(&format!("{base} model_name = \"log_distance\"; path_loss_exp = 3.5; }};"));
    assert!(e.message.contains("needs `xg`"), "{e}");
    let e = bad(&format!("{base} model_name = \"free_space\"; sL = 0; }};"));
    assert_eq!(e.key_path.as_deref(), Some("model.sL"));
    let e = bad(&format!("{base} model_name = \"itu\"; nFLOORS = 1.5; lF = 1; pL = 1; }};"));
    assert_eq!(e.key_path.as_deref(), Some("model.nFLOORS"));
}

#[test]
fn yawmd_media() {
    let c = ok(r#"medium = (
        { id = 1; interfaces = ["02:00:00:00:00:00", "02:00:00:00:01:00"];
          model = { type = "snr"; links = ((0, 1, 10)); }; },
        { id = 2; interfaces = ["02:00:00:00:02:00"];
          model = { type = "path_loss"; positions = ((0.0, 0.0, 3.0)); tx_powers = [20];
                    model_name = "two_ray_ground"; model_params = { system_loss = 1; }; simulate_interference = true; }; }
    );"#);
    assert_eq!(c.dialect, Dialect::Yawmd);
    assert_eq!(c.media.len(), 2);
    let Model::Snr(m) = &c.media[0].model else { panic!() };
    assert_eq!(m.matrix(2), vec![YAWMD_DEFAULT_SNR, 10, YAWMD_DEFAULT_SNR, YAWMD_DEFAULT_SNR]);
    let Model::PathLoss(p) = &c.media[1].model else { panic!() };
    assert!(p.heights_from_z);
    assert!(c.media[1].interference);
    let e = bad(
        r#"medium = ( { id = 1; interfaces = ["02:00:00:00:00:00"]; model = { type = "snr"; }; },
                            { id = 1; interfaces = ["02:00:00:00:01:00"]; model = { type = "snr"; }; } );"#,
    );
    assert_eq!((e.line, e.key_path.as_deref()), (2, Some("medium[1].id")));
    let e = bad(
        r#"medium = ( { id = 1; interfaces = ["02:00:00:00:00:00"]; model = { type = "snr"; }; },
                            { id = 2; interfaces = ["02:00:00:00:00:00"]; model = { type = "snr"; }; } );"#,
    );
    assert_eq!(e.key_path.as_deref(), Some("medium[1].interfaces[0]"));
}

#[test]
fn legacy_path_loss_group() {
    let c = ok(&format!("{IDS}path_loss: {{ positions = ((0.0, 0.0), (1.0, 1.0), (2.0, 2.0)); tx_powers = (1.0, 2.0, 3.0);\n model_params = (\"log_distance\", 3.5, 0.5); }};"));
    let Model::PathLoss(p) = &c.media[0].model else { panic!() };
    assert_eq!(
        p.path_loss,
        PathLoss::LogDistance { exponent: 3.5, ref_distance_m: 1.0, sl_db: 0.5 }
    );
    let e = bad(&format!("{IDS}path_loss: {{ positions = ((0.0, 0.0), (1.0, 1.0), (2.0, 2.0)); tx_powers = (1.0, 2.0, 3.0);\n model_params = (\"log_distance\", 3.5); }};"));
    assert_eq!((e.line, e.key_path.as_deref()), (3, Some("path_loss.model_params")));
}
