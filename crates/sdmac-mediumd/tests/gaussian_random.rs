//! Mininet-WiFi's Gaussian random term (request 21): the Mininet-WiFi fork of wmediumd
//! subtracts a station's term from the path loss of the log-normal shadowing model, so
//! the frames the station sends arrive that many dB stronger; other models ignore it.

mod common;

use common::*;
use sdmac_mediumd::hwsim_medium::{hw_addr_of, HwsimMedium, LinkModel, Output, Setup};
use sdmac_phy::propagation::PathLoss;
use sdmac_phy::Rate;
use sdmac_types::MacAddress;

const A: MacAddress = MacAddress([0x02, 0, 0, 0, 0, 0]);
const B: MacAddress = MacAddress([0x02, 0, 0, 0, 1, 0]);

fn setup(model: PathLoss) -> Setup {
    let positions = vec![(A, [0.0; 3]), (B, [10.0, 0.0, 0.0])];
    Setup {
        interfaces: vec![A, B],
        model: LinkModel::PathLoss { model, positions, tx_power_dbm: vec![] },
        ..Setup::default()
    }
}

/// The signal B receives a broadcast from A with, sent at `at`.
fn signal_at_b(m: &mut HwsimMedium, at: u64) -> i32 {
    send(m, at, A, &data(A, MacAddress::BROADCAST, b"hi"), Rate::Ofdm6, 1, at);
    run(m, at + 5 * MS)
        .iter()
        .find_map(|o| match o {
            Output::Deliver { receiver, signal_dbm, .. } if *receiver == hw_addr_of(B) => {
                Some(*signal_dbm)
            }
            _ => None,
        })
        .expect("B receives")
}

#[test]
fn the_term_strengthens_the_senders_frames_in_log_normal_shadowing() {
    let lns = PathLoss::LogNormalShadowing {
        exponent: 3.0,
        ref_distance_m: 1.0,
        sigma_db: 1.0,
        sl_db: 0.0,
    };
    let mut m = HwsimMedium::new(setup(lns));
    let before = signal_at_b(&mut m, MS);
    assert!(m.set_gaussian_random(m.station_id(A).unwrap(), 6.0));
    assert_eq!(signal_at_b(&mut m, 10 * MS), before + 6);
    // A later value replaces the earlier one; a set power keeps the term on top.
    assert!(m.set_gaussian_random(m.station_id(A).unwrap(), -2.0));
    assert_eq!(signal_at_b(&mut m, 20 * MS), before - 2);
    m.set_tx_power(m.station_id(A).unwrap(), 10.0);
    assert_eq!(signal_at_b(&mut m, 30 * MS), before - 2 - 10);
}

#[test]
fn other_models_keep_the_term_without_effect() {
    let mut m = HwsimMedium::new(setup(PathLoss::LogDistance {
        exponent: 3.0,
        ref_distance_m: 1.0,
        sl_db: 0.0,
    }));
    let before = signal_at_b(&mut m, MS);
    assert!(!m.set_gaussian_random(m.station_id(A).unwrap(), 6.0));
    assert_eq!(signal_at_b(&mut m, 10 * MS), before);
}
