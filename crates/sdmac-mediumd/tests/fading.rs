//! Fading (`fading_coefficient`): every reception's signal gets a zero-mean Gaussian
//! term whose standard deviation in dB is the coefficient. 0 changes nothing; above 0
//! a link just above the error waterfall loses frames, and delivered signals spread.

mod common;

use common::*;
use sdmac_mediumd::config::setup_from;
use sdmac_mediumd::hwsim_medium::{hw_addr_of, HwsimMedium, LinkModel, Output, Setup};
use sdmac_phy::Rate;
use sdmac_types::MacAddress;

const A: MacAddress = MacAddress([0x02, 0, 0, 0, 0, 0]);
const B: MacAddress = MacAddress([0x02, 0, 0, 0, 1, 0]);
const C: MacAddress = MacAddress([0x02, 0, 0, 0, 2, 0]);
const FRAMES: u64 = 1000;

fn setup(snr_db: f64, fading_db: f64) -> Setup {
    Setup {
        interfaces: vec![A, B],
        model: LinkModel::Snr { default_snr_db: snr_db, links: vec![] },
        fading_db,
        ..Setup::default()
    }
}

/// `FRAMES` broadcasts of 1500 B at 54 Mb/s from A, one per millisecond; everything
/// that came out.
fn broadcasts(setup: Setup) -> Vec<Output> {
    let mut m = HwsimMedium::new(setup);
    let f = data(A, MacAddress::BROADCAST, &[3u8; 1500]);
    let mut out = Vec::new();
    for k in 0..FRAMES {
        out.extend(send(&mut m, (k + 1) * MS, A, &f, Rate::Ofdm54, 1, k));
        out.extend(run(&mut m, (k + 1) * MS + 500 * US));
    }
    out
}

/// The signals (dBm) B received with.
fn signals_at_b(out: &[Output]) -> Vec<f64> {
    out.iter()
        .filter_map(|o| {
            if let Output::Deliver { receiver, signal_dbm, .. } = o {
                (*receiver == hw_addr_of(B)).then_some(*signal_dbm as f64)
            } else {
                None
            }
        })
        .collect()
}

/// 300 frames of varied lengths and rates, unicast both ways on a 22 dB link (with
/// retries) and broadcast from C.
fn mixed_traffic(setup: Setup) -> Vec<Output> {
    let mut m = HwsimMedium::new(setup);
    let mut out = Vec::new();
    for k in 0..300u64 {
        let t = (k + 1) * MS;
        let (from, to) = match k % 3 {
            0 => (A, B),
            1 => (B, A),
            _ => (C, MacAddress::BROADCAST),
        };
        let f = data(from, to, &vec![k as u8; 200 + (k as usize * 37) % 1200]);
        out.extend(send(
            &mut m,
            t,
            from,
            &f,
            if k % 2 == 0 { Rate::Ofdm54 } else { Rate::Ofdm36 },
            3,
            k,
        ));
        out.extend(run(&mut m, t + 300 * US));
    }
    out.extend(run(&mut m, 400 * MS));
    out
}

/// FNV-1a of the outputs' debug text, statuses without their signal (which an
/// earlier daemon reported only when delivery and outcome came out of one call), and
/// without the times outputs are due (which it did not carry).
fn fingerprint(out: &[Output]) -> u64 {
    let out: Vec<Output> = out
        .iter()
        .cloned()
        .map(|o| match o {
            Output::TxStatus { transmitter, cookie, acked, attempts, echo, .. } => {
                Output::TxStatus {
                    transmitter,
                    cookie,
                    acked,
                    signal_dbm: 0,
                    attempts,
                    echo,
                    due: 0,
                }
            }
            Output::Deliver { receiver, frame, rate, signal_dbm, freq, .. } => {
                Output::Deliver { receiver, frame, rate, signal_dbm, freq, due: 0 }
            }
            o => o,
        })
        .collect();
    // Addresses as the six-byte arrays the daemon printed before it had a MAC type.
    let mut text = format!("{out:?}").replace(", due: 0", "");
    while let Some(at) = text.find("MacAddress([") {
        let end = at + text[at..].find("])").expect("an address's closing bracket");
        text.replace_range(end..end + 2, "]");
        text.replace_range(at..at + "MacAddress([".len(), "[");
    }
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    h
}

#[test]
fn coefficient_zero_gives_the_outputs_of_the_daemon_before_fading() {
    let links = vec![(A, B, 22.0), (B, A, 22.0)];
    let setup = Setup {
        interfaces: vec![A, B, C],
        model: LinkModel::Snr { default_snr_db: 26.0, links },
        fading_db: 0.0,
        ..Setup::default()
    };
    let out = mixed_traffic(setup);
    // Pinned from the daemon as it was before media, movement and fading (same
    // scenario, same seed), then again when a frame that finds the medium busy while
    // it waits out AIFS began to draw a backoff (a draw more shifts every later one;
    // before: 696 outputs, 296 acknowledged).
    assert_eq!(out.len(), 693);
    assert_eq!(
        out.iter().filter(|o| matches!(o, Output::TxStatus { acked: true, .. })).count(),
        293
    );
    assert_eq!(fingerprint(&out), 15_204_790_213_189_156_945);
}

#[test]
fn coefficient_zero_changes_nothing_on_the_waterfall() {
    // 22 dB at 54 Mb/s is on the waterfall: about half the frames get through.
    let plain = broadcasts(setup(22.0, 0.0));
    let n = signals_at_b(&plain).len() as u64;
    assert!(n > FRAMES / 4 && n < 3 * FRAMES / 4, "{n}");
    // Fading on changes which ones.
    assert_ne!(broadcasts(setup(22.0, 2.0)), plain);
}

#[test]
fn fading_loses_frames_on_a_link_above_the_waterfall() {
    let clean = signals_at_b(&broadcasts(setup(24.0, 0.0))).len() as u64;
    let faded = signals_at_b(&broadcasts(setup(24.0, 6.0))).len() as u64;
    assert!(clean >= FRAMES * 99 / 100, "{clean}");
    // A 6 dB spread fades about 40 % of the frames 2 dB below their mean.
    assert!(faded > FRAMES / 2 && faded < 3 * FRAMES / 4, "{faded}");
}

#[test]
fn delivered_signals_spread_as_the_documented_gaussian() {
    // 40 dB: every frame is delivered, so the signals are an unbiased sample.
    let s = signals_at_b(&broadcasts(setup(40.0, 3.0)));
    assert_eq!(s.len() as u64, FRAMES);
    let mean = s.iter().sum::<f64>() / s.len() as f64;
    let sd = (s.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / s.len() as f64).sqrt();
    // Mean: noise −91 + 40 dB; spread 3 dB (rounded to whole dBm, as hwsim reports).
    assert!((mean - (-51.0)).abs() < 0.3, "mean {mean}");
    assert!((sd - 3.0).abs() < 0.2, "sd {sd}");
    // Without fading the signal is always the same.
    let flat = signals_at_b(&broadcasts(setup(40.0, 0.0)));
    assert!(flat.iter().all(|x| *x == -51.0));
}

#[test]
fn the_configuration_sets_it_per_medium() {
    let cfg = sdmac_wmconfig::wmediumd::parse_config(
        r#"ifaces : { ids = ["02:00:00:00:00:00", "02:00:00:00:01:00"]; };
model : { type = "snr"; default_snr = 24; fading_coefficient = 6; };"#,
        "t.cfg",
    )
    .unwrap();
    let (setup, notes) = setup_from(&cfg, 1);
    assert!(notes.is_empty(), "{notes:?}");
    assert_eq!(setup.fading_db, 6.0);
    let faded = signals_at_b(&broadcasts(setup)).len() as u64;
    assert!(faded < 3 * FRAMES / 4, "{faded}");
}
