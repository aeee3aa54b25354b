// What the `wmconfig` fuzz target runs on each input besides `wmconfig.rs`: the
// daemon's reading of its `-c` file. Included (`include!`) by the target and by
// `crates/sdmac-mediumd/tests/fuzz_corpus.rs`, which replays the corpus on stable Rust.
//
// A configuration that parses and interprets becomes the daemon's media set-up
// (`setup_from`) and then its medium (`HwsimMedium::new`); the media hold every
// interface of the file, each once (a wmediumd file's `medium_array` splits its
// interfaces; a yawmd file lists its media).

use sdmac_mediumd::config::setup_from;
use sdmac_mediumd::hwsim_medium::HwsimMedium;
use sdmac_wmconfig::wmediumd::parse_config;

/// Turns `data`, when it is a configuration, into the daemon's medium; panics when an
/// interface is lost or doubled on the way.
pub fn check(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Ok(cfg) = parse_config(&text, "fuzz.cfg") else { return };
    let (setup, _notes) = setup_from(&cfg, 1);
    let mut given: Vec<[u8; 6]> =
        cfg.media.iter().flat_map(|m| m.interfaces.iter().map(|i| i.mac.0)).collect();
    let mut placed: Vec<[u8; 6]> =
        setup.media().iter().flat_map(|m| m.interfaces.iter().map(|a| a.0)).collect();
    given.sort_unstable();
    placed.sort_unstable();
    assert_eq!(placed, given, "every interface of the file is in one medium");
    let _ = HwsimMedium::new(setup);
}
