//! Unit tests of the configuration checks, the adaptation and the run plan.

use super::config::MinstrelConfig;
use super::error::RateError;
use super::minstrel::Minstrel;
use super::run::RatePlan;
use sdmac_api::{Ac, Confirmation, MacAddress, Rate, RateSeries, Span, Status, Time, Timestamps};
use sdmac_phy::{Phy, Standard};

const DST: MacAddress = MacAddress([2, 0, 0, 0, 0, 1]);

fn con(series: &RateSeries, works: impl Fn(Rate) -> bool) -> Confirmation {
    let mut rates = [(Rate::Ofdm6, 0u8); 4];
    let mut n = 0;
    let mut acked = false;
    let mut attempts = 0;
    'outer: for &(r, t) in series.entries() {
        let mut used = 0;
        for _ in 0..t {
            used += 1;
            attempts += 1;
            if works(r) {
                acked = true;
                rates[n] = (r, used);
                n += 1;
                break 'outer;
            }
        }
        rates[n] = (r, used);
        n += 1;
    }
    Confirmation {
        id: 0,
        status: if acked { Status::Acked } else { Status::AckTimeout },
        ac: Ac::Be,
        attempts,
        rates,
        n_rates: n as u8,
        len: 1028,
        truth: None,
        ts: Timestamps::default(),
    }
}

fn drive(m: &mut Minstrel, packets: u64, works: impl Fn(Rate) -> bool) -> Vec<RateSeries> {
    let mut out = Vec::new();
    for k in 0..packets {
        let s = m.series(DST, Time::from_ns(k * 1_000_000));
        m.confirm(DST, &con(&s, &works));
        out.push(s);
    }
    out
}

fn cfg() -> MinstrelConfig {
    MinstrelConfig {
        update_interval: Span::from_ms(10),
        ..MinstrelConfig::new(Phy::new(Standard::Dot11a))
    }
}

#[test]
fn settles_on_the_fastest_rate_that_works() {
    let mut m = Minstrel::new(cfg()).unwrap();
    drive(&mut m, 500, |r| r.kbps() <= 36_000);
    let d = m.decision(DST).unwrap();
    assert_eq!(d.best_throughput, Rate::Ofdm36, "{d:?}");
    assert!(d.samples > 0 && d.samples < d.packets / 5, "{d:?}");
    let s = m.series(DST, Time::from_ns(600_000_000));
    assert_eq!(s.entries().last().unwrap().0, Rate::Ofdm6, "the lowest rate ends {s:?}");
}

#[test]
fn follows_a_link_that_gets_worse() {
    let mut m = Minstrel::new(cfg()).unwrap();
    drive(&mut m, 300, |r| r.kbps() <= 48_000);
    assert_eq!(m.decision(DST).unwrap().best_throughput, Rate::Ofdm48);
    let later: Vec<RateSeries> = (300..900)
        .map(|k| {
            let s = m.series(DST, Time::from_ns(k * 1_000_000));
            m.confirm(DST, &con(&s, |r| r.kbps() <= 12_000));
            s
        })
        .collect();
    assert_eq!(m.decision(DST).unwrap().best_throughput, Rate::Ofdm12);
    assert_eq!(later.last().unwrap().entries()[0].0, Rate::Ofdm12);
}

#[test]
fn same_seed_same_series() {
    let works = |r: Rate| r.kbps() <= 24_000;
    let a = drive(&mut Minstrel::new(cfg()).unwrap(), 400, works);
    let b = drive(&mut Minstrel::new(cfg()).unwrap(), 400, works);
    assert_eq!(a, b);
    let c = drive(&mut Minstrel::new(MinstrelConfig { seed: 99, ..cfg() }).unwrap(), 400, works);
    assert_ne!(a, c, "another seed samples other packets");
}

#[test]
fn refusals() {
    let e = |c: MinstrelConfig| Minstrel::new(c).unwrap_err();
    assert_eq!(e(MinstrelConfig { sample_share: 1.0, ..cfg() }), RateError::SampleShare(1.0));
    assert_eq!(e(MinstrelConfig { sample_share: -0.1, ..cfg() }), RateError::SampleShare(-0.1));
    assert_eq!(e(MinstrelConfig { ewma_weight: 0.0, ..cfg() }), RateError::EwmaWeight(0.0));
    assert_eq!(e(MinstrelConfig { update_interval: Span::ZERO, ..cfg() }), RateError::ZeroInterval);
    assert_eq!(
        e(MinstrelConfig { tries: [2, 0, 2, 2], ..cfg() }),
        RateError::Tries { entry: 1, tries: 0 }
    );
    assert_eq!(
        e(MinstrelConfig { rates: vec![Rate::Cck11], ..cfg() }),
        RateError::UnsupportedRate { rate: Rate::Cck11, standard: Standard::Dot11a.name() }
    );
    assert_eq!(
        e(MinstrelConfig { rates: vec![Rate::Ofdm6, Rate::Ofdm6], ..cfg() }),
        RateError::DuplicateRate(Rate::Ofdm6)
    );
    let msg = e(MinstrelConfig { sample_share: 2.0, ..cfg() }).to_string();
    assert!(msg.contains("sample share 2"), "{msg}");
}

#[test]
fn plan_refusals() {
    let ok = RatePlan::default();
    assert!(ok.check().is_ok());
    let bad = |p: RatePlan| p.check().unwrap_err().to_string();
    assert!(bad(RatePlan { duration: Span::ZERO, ..ok.clone() }).contains("duration is 0"));
    assert!(bad(RatePlan { window: 0, ..ok.clone() }).contains("window is 0"));
    assert!(bad(RatePlan { payload_len: 0, ..ok.clone() }).contains("payload of 0"));
    let steps = vec![(Span::from_ms(300), 10.0)];
    assert!(bad(RatePlan { steps, ..ok.clone() }).contains("not inside the run"));
    let steps = vec![(Span::from_ms(200), 10.0), (Span::from_ms(100), 5.0)];
    assert!(bad(RatePlan { steps, ..ok.clone() }).contains("not after"));
    let steps = vec![(Span::from_ms(100), f64::NAN)];
    assert!(bad(RatePlan { steps, ..ok }).contains("not a number"));
}

#[test]
fn attempt_time_from_the_airtime_formulas() {
    let m = Minstrel::new(cfg()).unwrap();
    // 802.11a, 1028 bytes at 54 Mb/s: 20 µs + 4 µs × ceil((16 + 8224 + 6) / 216) =
    // 176 µs; DIFS 34, mean backoff 7.5 slots of 9 µs, SIFS 16, ACK at 24 Mb/s 28.
    assert_eq!(m.attempt_ns(1028, Rate::Ofdm54), 34_000 + 67_500 + 176_000 + 16_000 + 28_000);
}
