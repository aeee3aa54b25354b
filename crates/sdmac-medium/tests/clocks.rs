//! The same engine under both clocks: virtual time gives the same results as wall-clock
//! time, and the wall clock paces the medium to real time and reports its lateness.

use sdmac_medium::*;
use sdmac_phy::{ErrorModel, Phy, Standard};
use std::time::Instant;

fn medium() -> Medium {
    let phy = Phy::new(Standard::Dot11a);
    let mut cfg = MediumConfig::new(phy.clone());
    cfg.error_model = ErrorModel::NoErrors;
    let mut m = Medium::new(cfg);
    let ap = m.add_station(StationConfig::new(&phy, [2, 0, 0, 0, 0, 1], [0.0; 3]));
    let mut sta = StationConfig::new(&phy, [2, 0, 0, 0, 0, 2], [3.0, 0.0, 0.0]);
    sta.flows.push(Flow {
        pattern: TrafficPattern::ConstantBitRate { interval_ns: MILLIS },
        dst: Dest::Station(ap),
        payload: 50,
        mpdu_len: 86,
        ac: Ac::Be,
        rates: None,
        start_ns: 0,
        stop_ns: NEVER,
    });
    m.add_station(sta);
    m
}

#[test]
fn wall_clock_paces_the_engine_and_gives_the_same_results_as_virtual_time() {
    let until = 50 * MILLIS;
    let mut virt = medium();
    let mut a = Collect::default();
    let n_virtual = run_virtual(&mut virt, until, &mut a, MILLIS, |_, _| true);

    let mut wall = medium();
    let mut b = Collect::default();
    let mut clock = WallClock::new();
    let started = Instant::now();
    clock.run_until(&mut wall, &mut b, until);
    let elapsed = started.elapsed().as_nanos() as u64;

    // Paced: 50 ms of medium time took at least 50 ms of wall time.
    assert!(elapsed >= until, "{elapsed} ns");
    // Same engine, same inputs: the same outcomes at the same simulated times.
    let key = |c: &Collect| {
        c.tx.iter().map(|r| (r.handle, r.outcome, r.t_done.as_ns())).collect::<Vec<_>>()
    };
    // The wall-clock run may have processed events up to its last wake-up past `until`.
    let wall_tx: Vec<_> = key(&b).into_iter().filter(|x| x.2 <= until).collect();
    assert_eq!(key(&a), wall_tx);
    assert_eq!(a.tx.len(), 50);
    let s = clock.stats();
    assert!(s.events >= n_virtual, "{s:?}");
    assert!(s.wakeups > 0);
    // Lateness is measured, not hidden (its size depends on the machine's load).
    assert!(s.max_late_ns >= s.total_late_ns / s.wakeups.max(1));
}
