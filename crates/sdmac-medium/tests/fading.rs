//! Fading: a zero-mean Gaussian term in dB (standard deviation `sd_db`) on the signal of
//! every reception. Off, the engine's results are bit for bit those without it; on, a
//! link well above the error waterfall loses frames and one below it gains some.

use sdmac_medium::*;
use sdmac_phy::{Phy, Rate, Standard};

const TX: StationId = 0;
const RX: StationId = 1;
const FRAMES: u64 = 2000;

/// Two stations, the link TX → RX at a fixed SNR (dB), 802.11a, NIST error model.
fn pair(snr_db: f64, seed: u64) -> Medium {
    let phy = Phy::new(Standard::Dot11a);
    let mut cfg = MediumConfig::new(phy.clone());
    cfg.seed = seed;
    let mut m = Medium::new(cfg);
    m.add_station(StationConfig::new(&phy, [2, 0, 0, 0, 0, 1], [0.0; 3]));
    m.add_station(StationConfig::new(&phy, [2, 0, 0, 0, 0, 2], [5.0, 0.0, 0.0]));
    m.set_link(TX, RX, LinkOverride { snr_db: Some(snr_db), ..Default::default() });
    m
}

/// `FRAMES` broadcasts of 1500 B at 54 Mb/s, one per millisecond; what was reported.
fn send(m: &mut Medium) -> Collect {
    let mut c = Collect::default();
    for k in 0..FRAMES {
        let at = (k + 1) * MILLIS;
        m.advance(at, &mut c);
        let req = TxRequest {
            handle: k + 1,
            dst: Dest::Broadcast,
            len: 1500,
            ac: Ac::Be,
            rates: Some(RateSeries::single(Rate::Ofdm54, 1)),
            no_ack: true,
        };
        m.enqueue(at, TX, req).unwrap();
    }
    m.advance((FRAMES + 10) * MILLIS, &mut c);
    c
}

fn delivered(c: &Collect) -> f64 {
    c.rx.iter().filter(|r| r.station == RX && r.kind == FrameKind::Data).count() as f64
        / FRAMES as f64
}

fn delivery_ratio(snr_db: f64, fading_db: Option<f64>) -> f64 {
    let mut m = pair(snr_db, 5);
    if let Some(sd) = fading_db {
        m.set_fading(sd);
    }
    delivered(&send(&mut m))
}

#[test]
fn fading_zero_or_off_gives_the_same_results_bit_for_bit() {
    // 22 dB at 54 Mb/s (1500 B) is on the waterfall: the error model draws for every
    // frame (about half get through).
    let plain = send(&mut pair(22.0, 9));
    let mut zero = pair(22.0, 9);
    zero.set_fading(0.0);
    assert_eq!(zero.fading_db(), 0.0);
    let zero = send(&mut zero);
    let mut on_off = pair(22.0, 9);
    on_off.set_fading(3.0);
    assert_eq!(on_off.fading_db(), 3.0);
    on_off.set_fading(0.0);
    let on_off = send(&mut on_off);
    assert_eq!(plain.tx, zero.tx);
    assert_eq!(plain.rx, zero.rx);
    assert_eq!(plain.tx, on_off.tx);
    assert_eq!(plain.rx, on_off.rx);
    let ratio = delivered(&plain);
    assert!(ratio > 0.3 && ratio < 0.7, "22 dB should be marginal at 54 Mb/s: {ratio}");
}

#[test]
fn fading_spreads_a_marginal_link_in_both_directions() {
    // Above the waterfall (2 dB over its middle): every frame gets through without
    // fading; a 6 dB spread fades about 40 % of them below it.
    let good = delivery_ratio(24.0, None);
    let good_faded = delivery_ratio(24.0, Some(6.0));
    assert_eq!(good, 1.0);
    assert!(
        good_faded > 0.45 && good_faded < 0.75,
        "fading should lose frames on a good link: {good} -> {good_faded}"
    );
    // Below it (2 dB under): nothing without fading; upward fades let about a third
    // through.
    let bad = delivery_ratio(20.0, None);
    let bad_faded = delivery_ratio(20.0, Some(6.0));
    assert_eq!(bad, 0.0);
    assert!(
        bad_faded > 0.2 && bad_faded < 0.5,
        "fading should let frames through on a bad link: {bad} -> {bad_faded}"
    );
}

#[test]
fn reported_signal_varies_as_the_documented_gaussian() {
    // A strong link (40 dB): every frame is received, so the reported signals are an
    // unbiased sample of mean power + F.
    let mut m = pair(40.0, 3);
    let mean_power = m.link_power_dbm(TX, RX).unwrap();
    m.set_fading(3.0);
    let c = send(&mut m);
    let s: Vec<f64> =
        c.rx.iter().filter(|r| r.station == RX).map(|r| r.signal_dbm - mean_power).collect();
    assert_eq!(s.len() as u64, FRAMES);
    let mean = s.iter().sum::<f64>() / s.len() as f64;
    let sd = (s.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / s.len() as f64).sqrt();
    assert!(mean.abs() < 0.2, "mean {mean}");
    assert!((sd - 3.0).abs() < 0.15, "sd {sd}");
    // The mean link power (carrier sense, interference) is untouched.
    assert_eq!(m.link_power_dbm(TX, RX), Some(mean_power));
}

#[test]
fn fading_is_deterministic_for_a_seed() {
    let run = |seed| {
        let mut m = pair(22.0, seed);
        m.set_fading(4.0);
        send(&mut m).rx
    };
    assert_eq!(run(4), run(4));
    assert_ne!(run(4), run(5));
}
