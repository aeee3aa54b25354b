//! Several configured media: radios of different media never hear each other and never
//! share airtime, even on one channel; each medium has its own model; unlisted radios
//! join the first medium; Mininet-WiFi's "medium id" request moves a station.

mod common;

use common::*;
use sdmac_mediumd::config::setup_from;
use sdmac_mediumd::hwsim_medium::{hw_addr_of, HwsimMedium, LinkModel, Output, Setup};
use sdmac_mediumd::media::MediumSetup;
use sdmac_phy::Rate;
use sdmac_types::MacAddress;

const A: MacAddress = MacAddress([0x02, 0, 0, 0, 0, 0]);
const B: MacAddress = MacAddress([0x02, 0, 0, 0, 1, 0]);
const C: MacAddress = MacAddress([0x02, 0, 0, 0, 2, 0]);
const D: MacAddress = MacAddress([0x02, 0, 0, 0, 3, 0]);
const E: MacAddress = MacAddress([0x02, 0, 0, 0, 4, 0]);
const BCAST: MacAddress = MacAddress([0xff; 6]);

fn snr(db: f64) -> LinkModel {
    LinkModel::Snr { default_snr_db: db, links: vec![] }
}

/// Medium 1 = {A, B}, medium 2 = {C, D}, both at 30 dB SNR.
fn two_media() -> Setup {
    let mut s = Setup::default();
    s.set_first_medium(MediumSetup {
        id: 1,
        interfaces: vec![A, B],
        model: snr(30.0),
        noise_floor_dbm: -91.0,
        fading_db: 0.0,
        movement: None,
    });
    s.more_media = vec![MediumSetup {
        id: 2,
        interfaces: vec![C, D],
        model: snr(30.0),
        noise_floor_dbm: -91.0,
        fading_db: 0.0,
        movement: None,
    }];
    s
}

/// All four in one medium.
fn one_medium() -> Setup {
    Setup { interfaces: vec![A, B, C, D], model: snr(30.0), ..Setup::default() }
}

/// A 1500-byte frame at 6 Mb/s (about 2 ms on air) from A to B and one from C to D,
/// both handed over at 1 ms; when each was delivered.
fn race(setup: Setup) -> (Vec<(u64, Output)>, HwsimMedium) {
    let mut m = HwsimMedium::new(setup);
    let (ab, cd) = (data(A, B, &[1u8; 1500]), data(C, D, &[2u8; 1500]));
    send(&mut m, MS, A, &ab, Rate::Ofdm6, 1, 1);
    send(&mut m, MS, C, &cd, Rate::Ofdm6, 1, 2);
    (run_timed(&mut m, MS, 30 * MS, 10 * US), m)
}

fn delivered_at(seen: &[(u64, Output)], to: MacAddress) -> Option<u64> {
    seen.iter().find_map(|(t, o)| {
        matches!(o, Output::Deliver { receiver, .. } if *receiver == hw_addr_of(to)).then_some(*t)
    })
}

#[test]
fn media_on_one_channel_share_no_airtime() {
    let (seen, m) = race(two_media());
    let (b, d) = (
        delivered_at(&seen, B).expect("A's frame reaches B"),
        delivered_at(&seen, D).expect("C's frame reaches D"),
    );
    // Neither waited for the other's 2 ms on air (only their own backoffs differ).
    assert!(b.abs_diff(d) <= 500 * US, "B at {b}, D at {d}");
    assert!(b < 4 * MS && d < 4 * MS, "B at {b}, D at {d}");
    // No radio heard the other medium's frame.
    assert_eq!(
        receivers(&seen.iter().map(|s| s.1.clone()).collect::<Vec<_>>()),
        vec![hw_addr_of(B), hw_addr_of(D)]
    );
    assert_eq!(m.channels_by_medium(), vec![(1, 2412), (2, 2412)]);
    assert_eq!(m.media(), vec![1, 2]);

    // The same two frames in one medium: one waits for (or collides with) the other.
    let (seen, _) = race(one_medium());
    match (delivered_at(&seen, B), delivered_at(&seen, D)) {
        (Some(b), Some(d)) => assert!(b.abs_diff(d) >= MS, "one medium: B at {b}, D at {d}"),
        other => assert!(other.0.is_none() || other.1.is_none(), "{other:?}"),
    }
}

#[test]
fn broadcasts_stay_in_their_medium_and_unlisted_radios_join_the_first() {
    let mut m = HwsimMedium::new(two_media());
    let out = send(&mut m, MS, A, &data(A, BCAST, b"medium 1"), Rate::Ofdm6, 1, 1);
    assert!(out.is_empty());
    assert_eq!(receivers(&run(&mut m, 5 * MS)), vec![hw_addr_of(B)]);
    send(&mut m, 10 * MS, D, &data(D, BCAST, b"medium 2"), Rate::Ofdm6, 1, 2);
    assert_eq!(receivers(&run(&mut m, 15 * MS)), vec![hw_addr_of(C)]);
    // E is listed nowhere: it is in the first medium.
    send(&mut m, 20 * MS, E, &data(E, BCAST, b"stranger"), Rate::Ofdm6, 1, 3);
    assert_eq!(receivers(&run(&mut m, 25 * MS)), vec![hw_addr_of(A), hw_addr_of(B)]);
    assert_eq!(m.medium_of(m.station_id(E).unwrap()), Some(1));
}

#[test]
fn unicast_to_another_medium_is_never_acknowledged() {
    let mut m = HwsimMedium::new(two_media());
    send(&mut m, MS, A, &data(A, C, b"across"), Rate::Ofdm6, 2, 9);
    let out = run(&mut m, 20 * MS);
    assert_eq!(acked(&out, 9), Some(false));
    assert!(receivers(&out).is_empty(), "{out:?}");
}

#[test]
fn each_medium_has_its_own_model() {
    let mut s = two_media();
    s.more_media[0].model = LinkModel::Prob { default_prob: 1.0, links: vec![] };
    let mut m = HwsimMedium::new(s);
    send(&mut m, MS, A, &data(A, B, b"clean"), Rate::Ofdm54, 1, 1);
    send(&mut m, MS, C, &data(C, D, b"lossy"), Rate::Ofdm54, 1, 2);
    let out = run(&mut m, 10 * MS);
    assert_eq!(acked(&out, 1), Some(true));
    assert_eq!(acked(&out, 2), Some(false));
    assert_eq!(receivers(&out), vec![hw_addr_of(B)]);
}

#[test]
fn a_medium_request_moves_later_frames() {
    let mut m = HwsimMedium::new(two_media());
    // Both media have a channel before the move.
    send(&mut m, MS, A, &data(A, BCAST, b"1"), Rate::Ofdm6, 1, 1);
    send(&mut m, MS, D, &data(D, BCAST, b"2"), Rate::Ofdm6, 1, 2);
    run(&mut m, 5 * MS);
    let c = m.station_id(C).unwrap();
    assert!(m.set_medium(c, 1));
    assert_eq!(m.medium_of(c), Some(1));
    // C now hears A, and D no longer hears C.
    send(&mut m, 10 * MS, A, &data(A, BCAST, b"to 1"), Rate::Ofdm6, 1, 3);
    assert_eq!(receivers(&run(&mut m, 15 * MS)), vec![hw_addr_of(B), hw_addr_of(C)]);
    send(&mut m, 20 * MS, C, &data(C, BCAST, b"from C"), Rate::Ofdm6, 1, 4);
    assert_eq!(receivers(&run(&mut m, 25 * MS)), vec![hw_addr_of(A), hw_addr_of(B)]);
    send(&mut m, 30 * MS, D, &data(D, BCAST, b"alone"), Rate::Ofdm6, 1, 5);
    assert!(receivers(&run(&mut m, 35 * MS)).is_empty());
    // Back to medium 2: as before.
    assert!(m.set_medium(c, 2));
    send(&mut m, 40 * MS, D, &data(D, BCAST, b"together"), Rate::Ofdm6, 1, 6);
    assert_eq!(receivers(&run(&mut m, 45 * MS)), vec![hw_addr_of(C)]);
    send(&mut m, 50 * MS, A, &data(A, BCAST, b"again"), Rate::Ofdm6, 1, 7);
    assert_eq!(receivers(&run(&mut m, 55 * MS)), vec![hw_addr_of(B)]);
}

#[test]
fn a_medium_id_the_configuration_lacks_is_created() {
    let mut m = HwsimMedium::new(one_medium());
    let (c, d) = (m.station_id(C).unwrap(), m.station_id(D).unwrap());
    assert!(m.set_medium(c, 7) && m.set_medium(d, 7));
    assert_eq!(m.media(), vec![0, 7]);
    send(&mut m, MS, C, &data(C, BCAST, b"in 7"), Rate::Ofdm6, 1, 1);
    assert_eq!(receivers(&run(&mut m, 5 * MS)), vec![hw_addr_of(D)]);
    send(&mut m, 10 * MS, A, &data(A, BCAST, b"in 0"), Rate::Ofdm6, 1, 2);
    assert_eq!(receivers(&run(&mut m, 15 * MS)), vec![hw_addr_of(B)]);
}

fn load(text: &str) -> Setup {
    let cfg = sdmac_wmconfig::wmediumd::parse_config(text, "t.cfg").unwrap();
    let (setup, notes) = setup_from(&cfg, 1);
    assert!(notes.is_empty(), "{notes:?}");
    setup
}

#[test]
fn yawmd_media_come_from_the_configuration() {
    let setup = load(
        r#"medium = (
  { id = 3; interfaces = ["02:00:00:00:00:00", "02:00:00:00:01:00"];
    model = { type = "snr"; default_snr = 30; }; },
  { id = 5; interfaces = ["02:00:00:00:02:00", "02:00:00:00:03:00"];
    model = { type = "path_loss"; positions = ((0.0, 0.0, 0.0), (5000.0, 0.0, 0.0)); tx_powers = [20, 20];
      noise_level = -95; fading_coefficient = 2; model_name = "free_space"; model_params = { system_loss = 1; }; }; } );"#,
    );
    let media = setup.media();
    assert_eq!(media.iter().map(|m| m.id).collect::<Vec<_>>(), vec![3, 5]);
    assert_eq!(media[0].interfaces, vec![A, B]);
    assert_eq!(media[1].interfaces, vec![C, D]);
    assert_eq!((media[1].noise_floor_dbm, media[1].fading_db), (-95.0, 2.0));
    assert!(matches!(media[1].model, LinkModel::PathLoss { .. }));
    // And they behave as two media (C and D are 5 km apart).
    let mut m = HwsimMedium::new(setup);
    send(&mut m, MS, A, &data(A, B, b"x"), Rate::Ofdm54, 1, 1);
    send(&mut m, MS, C, &data(C, D, b"y"), Rate::Ofdm54, 1, 2);
    let out = run(&mut m, 10 * MS);
    assert_eq!((acked(&out, 1), acked(&out, 2)), (Some(true), Some(false)));
}

#[test]
fn the_forks_medium_array_splits_a_wmediumd_file() {
    let setup = load(
        r#"ifaces : { ids = ["02:00:00:00:00:00", "02:00:00:00:01:00", "02:00:00:00:02:00", "02:00:00:00:03:00"];
  medium_array = ((2, 3)); };
model : { type = "snr"; default_snr = 30; };"#,
    );
    let media = setup.media();
    assert_eq!(
        media.iter().map(|m| (m.id, m.interfaces.clone())).collect::<Vec<_>>(),
        vec![(0, vec![A, B]), (1, vec![C, D])]
    );
    let mut m = HwsimMedium::new(setup);
    send(&mut m, MS, A, &data(A, BCAST, b"0"), Rate::Ofdm6, 1, 1);
    assert_eq!(receivers(&run(&mut m, 5 * MS)), vec![hw_addr_of(B)]);
}
