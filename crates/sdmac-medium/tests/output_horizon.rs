//! `Medium::next_output_time` is a sound wake-up time for a wall-clock driver: no
//! report ever happens before it, and a driver that advances only to it (and to the
//! arrival of each request) sees exactly the reports of one that stops at every event.

mod common;

use common::*;
use proptest::prelude::*;
use sdmac_medium::*;
use sdmac_phy::{ErrorModel, Phy, Rate, Standard};

fn medium(n: u32, hidden: &[(u32, u32)], seed: u64) -> Medium {
    let phy = Phy::new(Standard::Dot11a);
    let mut cfg = MediumConfig::new(phy.clone());
    cfg.error_model = ErrorModel::Nist;
    cfg.seed = seed;
    let mut m = Medium::new(cfg);
    for i in 0..n {
        m.add_station(StationConfig::new(
            &phy,
            [2, 0, 0, 0, 0, i as u8],
            [i as f64 * 2.0, 0.0, 0.0],
        ));
    }
    let gone = LinkOverride { rx_power_dbm: Some(-200.0), ..LinkOverride::default() };
    for &(a, b) in hidden {
        if a != b && a < n && b < n {
            m.set_link(a, b, gone);
            m.set_link(b, a, gone);
        }
    }
    m
}

/// Everything reported, in order, with its time.
fn reports(c: &Collect) -> Vec<String> {
    let mut v: Vec<String> =
        c.tx.iter()
            .map(|r| format!("tx {} {:?} {} {:?}", r.handle, r.outcome, r.t_done.as_ns(), r.rates))
            .collect();
    v.extend(
        c.rx.iter()
            .map(|r| format!("rx {} {} {} {}", r.handle, r.station, r.t_end.as_ns(), r.duplicate)),
    );
    v
}

/// Runs the requests stopping at every event; checks the horizon at each step.
fn every_event(mut m: Medium, reqs: &[Req]) -> Vec<String> {
    let mut c = Collect::default();
    let step = |m: &mut Medium, until: u64, c: &mut Collect| {
        while let Some(e) = m.next_event_time().filter(|&e| e <= until) {
            let bound = m.next_output_time().unwrap_or(u64::MAX); // None: only stale events left
            let before = c.tx.len() + c.rx.len();
            m.advance(e, c);
            if e < bound {
                assert_eq!(
                    c.tx.len() + c.rx.len(),
                    before,
                    "a report at {e} before the horizon {bound}"
                );
            }
        }
        m.advance(until, c);
    };
    drive(&mut m, reqs, &mut c, step);
    reports(&c)
}

/// Runs the requests waking only at the horizon and at arrivals.
fn at_horizon(mut m: Medium, reqs: &[Req]) -> (Vec<String>, usize) {
    let mut c = Collect::default();
    let mut wakes = 0;
    let step = |m: &mut Medium, until: u64, c: &mut Collect, wakes: &mut usize| {
        while let Some(w) = m.next_output_time().filter(|&w| w <= until) {
            m.advance(w, c);
            *wakes += 1;
        }
        m.advance(until, c);
    };
    for (h, r) in reqs.iter().enumerate() {
        step(&mut m, r.at, &mut c, &mut wakes);
        let _ = m.enqueue(r.at, r.station, request(h as u64, r));
    }
    step(&mut m, u64::MAX / 4, &mut c, &mut wakes);
    (reports(&c), wakes)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn waking_at_the_horizon_changes_nothing(((n, hidden, reqs), seed) in (traffic(), any::<u64>())) {
        let a = every_event(medium(n, &hidden, seed), &reqs);
        let (b, _) = at_horizon(medium(n, &hidden, seed), &reqs);
        prop_assert_eq!(a, b);
    }
}

#[test]
fn one_exchange_needs_two_wake_ups() {
    // One unicast frame: the driver wakes at the DATA frame's end (reception) and at
    // the ACK's end (outcome); the backoff end and the SIFS before the ACK need none.
    let m = medium(2, &[], 1);
    let reqs = [Req { at: 0, station: 0, dst: Some(1), len: 1500, rate: Rate::Ofdm54 }];
    let (r, wakes) = at_horizon(m, &reqs);
    assert_eq!(r.len(), 2, "{r:?}");
    assert_eq!(wakes, 2, "{r:?}");
}
