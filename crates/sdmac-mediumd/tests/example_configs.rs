//! The configurations shipped in examples/mediumd load, and give the model they say.

use sdmac_mediumd::config::setup_from;
use sdmac_mediumd::hwsim_medium::LinkModel;

#[test]
fn shipped_examples_load() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/mediumd");
    let mut n = 0;
    for e in std::fs::read_dir(dir).unwrap() {
        let path = e.unwrap().path();
        if path.extension().and_then(|x| x.to_str()) != Some("cfg") {
            continue;
        }
        let cfg = sdmac_wmconfig::wmediumd::load_file(&path).unwrap_or_else(|e| panic!("{e}"));
        let (setup, notes) = setup_from(&cfg, 1);
        assert!(notes.is_empty(), "{}: {notes:?}", path.display());
        assert!(setup.interfaces.len() >= 2);
        match path.file_name().unwrap().to_str().unwrap() {
            "two_radios_snr.cfg" => assert!(
                matches!(setup.model, LinkModel::Snr { default_snr_db, ref links } if default_snr_db == 25.0 && links.len() == 2)
            ),
            "three_radios_path_loss.cfg" => assert!(
                matches!(setup.model, LinkModel::PathLoss { ref positions, .. } if positions.len() == 3)
            ),
            other => panic!("add a check for {other}"),
        }
        n += 1;
    }
    assert_eq!(n, 2);
}
