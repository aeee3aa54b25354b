//! Movement: in a path-loss medium with `directions`, each station moves by its
//! direction (metres per step, as wmediumd and yawmd add it) every `move_interval`
//! (wmediumd: 3 s); links follow, and Mininet-WiFi's position requests still override.

mod common;

use common::*;
use sdmac_mediumd::config::setup_from;
use sdmac_mediumd::hwsim_medium::{HwsimMedium, Setup};
use sdmac_phy::Rate;
use sdmac_types::MacAddress;

const A: MacAddress = MacAddress([0x02, 0, 0, 0, 0, 0]);
const B: MacAddress = MacAddress([0x02, 0, 0, 0, 1, 0]);
const C: MacAddress = MacAddress([0x02, 0, 0, 0, 2, 0]);

/// A at the origin; B at 10 m moving 30 m along x per step; C at (0, 50) moving 10 m
/// along x per step. Log-distance, exponent 3.5, 20 dBm, noise −91 dBm: at 2412 MHz
/// the SNR is 70.9 − 35·log10(d): 35.9 dB at 10 m, 14.8 dB at 40 m, 0.9 dB at 100 m.
const WMEDIUMD: &str = r#"ifaces : { ids = ["02:00:00:00:00:00", "02:00:00:00:01:00", "02:00:00:00:02:00"]; };
model : { type = "path_loss"; positions = ((0.0, 0.0), (10.0, 0.0), (0.0, 50.0));
  directions = ((0.0, 0.0), (30.0, 0.0), (10.0, 0.0)); tx_powers = (20.0, 20.0, 20.0);
  model_name = "log_distance"; path_loss_exp = 3.5; xg = 0.0; };"#;

fn load(text: &str) -> Setup {
    let cfg = sdmac_wmconfig::wmediumd::parse_config(text, "t.cfg").unwrap();
    let (setup, notes) = setup_from(&cfg, 1);
    assert!(notes.is_empty(), "{notes:?}");
    setup
}

#[test]
fn a_direction_is_added_every_three_seconds() {
    let mut m = HwsimMedium::new(load(WMEDIUMD));
    let (b, c) = (m.station_id(B).unwrap(), m.station_id(C).unwrap());
    // The daemon must wake for the first step even with no channel yet.
    assert_eq!(m.next_event_time(), Some(3 * S));
    assert_eq!(m.next_output_time(), Some(3 * S));
    run(&mut m, 3 * S - 1);
    assert_eq!(m.position(c), Some([0.0, 50.0, 0.0]));
    run(&mut m, 3 * S);
    // (10, 0) per step: 10 m after one 3 s step, as wmediumd (not 30 m: it is not a
    // velocity).
    assert_eq!(m.position(c), Some([10.0, 50.0, 0.0]));
    assert_eq!(m.position(b), Some([40.0, 0.0, 0.0]));
    assert_eq!(m.next_event_time(), Some(6 * S));
    run(&mut m, 10 * S);
    assert_eq!(m.position(c), Some([30.0, 50.0, 0.0]));
    assert_eq!(m.position(b), Some([100.0, 0.0, 0.0]));
    assert_eq!(m.position(m.station_id(A).unwrap()), Some([0.0; 3]));
}

#[test]
fn a_good_link_breaks_as_the_station_walks_away() {
    let mut m = HwsimMedium::new(load(WMEDIUMD));
    let f = data(A, B, &[5u8; 100]);
    // 10 m: 54 Mb/s works.
    send(&mut m, S, A, &f, Rate::Ofdm54, 1, 1);
    assert_eq!(acked(&run(&mut m, S + 10 * MS), 1), Some(true));
    // No call between the step at 3 s and this frame: the step is still taken first.
    // 40 m: 14.8 dB, too little for 54 Mb/s, plenty for 6 Mb/s.
    send(&mut m, 3 * S + 500 * MS, A, &f, Rate::Ofdm54, 1, 2);
    assert_eq!(acked(&run(&mut m, 3 * S + 510 * MS), 2), Some(false));
    send(&mut m, 3 * S + 600 * MS, A, &f, Rate::Ofdm6, 1, 3);
    assert_eq!(acked(&run(&mut m, 3 * S + 610 * MS), 3), Some(true));
    // 100 m (after three steps): 0.9 dB, nothing gets through.
    send(&mut m, 9 * S + 500 * MS, A, &f, Rate::Ofdm6, 4, 4);
    let out = run(&mut m, 9 * S + 600 * MS);
    assert_eq!(acked(&out, 4), Some(false));
    assert!(receivers(&out).is_empty(), "{out:?}");
}

#[test]
fn a_position_request_overrides_and_movement_goes_on_from_there() {
    let mut m = HwsimMedium::new(load(WMEDIUMD));
    let c = m.station_id(C).unwrap();
    run(&mut m, 4 * S);
    assert_eq!(m.position(c), Some([10.0, 50.0, 0.0]));
    m.set_position(c, [100.0, 0.0, 0.0]);
    run(&mut m, 6 * S);
    assert_eq!(m.position(c), Some([110.0, 0.0, 0.0]));
}

#[test]
fn yawmd_moves_in_three_dimensions_at_its_own_interval() {
    let mut m = HwsimMedium::new(load(
        r#"medium = ( { id = 1; interfaces = ["02:00:00:00:00:00", "02:00:00:00:01:00"];
  model = { type = "path_loss"; positions = ((0.0, 0.0, 1.5), (5.0, 0.0, 1.5)); tx_powers = [20, 20];
    move_interval = 1.0; directions = ((1.0, 2.0, 0.5), (0.0, 0.0, 0.0));
    model_name = "free_space"; model_params = { system_loss = 1; }; }; } );"#,
    ));
    let (a, b) = (m.station_id(A).unwrap(), m.station_id(B).unwrap());
    assert_eq!(m.next_event_time(), Some(S));
    run(&mut m, 2 * S + S / 2);
    assert_eq!(m.position(a), Some([2.0, 4.0, 2.5]));
    assert_eq!(m.position(b), Some([5.0, 0.0, 1.5]));
}

#[test]
fn nothing_to_wake_for_without_directions() {
    let m = HwsimMedium::new(load(
        r#"ifaces : { ids = ["02:00:00:00:00:00", "02:00:00:00:01:00"]; };
model : { type = "path_loss"; positions = ((0.0, 0.0), (10.0, 0.0)); tx_powers = (20.0, 20.0);
  model_name = "log_distance"; path_loss_exp = 3.5; xg = 0.0; };"#,
    ));
    assert_eq!(m.next_event_time(), None);
    assert_eq!(m.next_output_time(), None);
}
