//! `Medium::advance_quiet` runs ahead of the caller only while no request could change
//! anything: a driver that runs ahead at every wake-up and gives requests late sees
//! exactly the reports of one that stops at every event and gives each request at its
//! time. With a contention window of 0 and no random errors nothing is drawn at random,
//! so the two runs must agree exactly; the backoff a late request draws is checked on
//! its own below.

mod common;

use common::*;
use proptest::prelude::*;
use sdmac_medium::*;
use sdmac_phy::{ErrorModel, Phy, Rate, Standard};

/// `n` stations 2 m apart, each with its own AIFSN (2..=4) and a window of `cw`;
/// the pairs in `hidden` cannot hear each other. 802.11a, or 802.11g (`g`: its
/// ACKTimeout ends before the ACK does).
fn medium_of(n: u32, hidden: &[(u32, u32)], cw: u32, seed: u64, g: bool) -> Medium {
    let phy = Phy::new(if g { Standard::Dot11g } else { Standard::Dot11a });
    let mut cfg = MediumConfig::new(phy.clone());
    cfg.error_model = ErrorModel::NoErrors;
    cfg.seed = seed;
    let mut m = Medium::new(cfg);
    for i in 0..n {
        let mut sc = StationConfig::new(&phy, [2, 0, 0, 0, 0, i as u8], [i as f64 * 2.0, 0.0, 0.0]);
        for e in sc.edca.iter_mut() {
            *e = EdcaParams { aifsn: 2 + (i % 3) as u8, cw_min: cw, cw_max: cw, txop_limit_ns: 0 };
        }
        m.add_station(sc);
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

fn medium(n: u32, hidden: &[(u32, u32)], cw: u32, seed: u64) -> Medium {
    medium_of(n, hidden, cw, seed, false)
}

/// Everything reported, with its time, sorted (a run ahead reports in another order).
fn reports(c: &Collect) -> Vec<String> {
    let mut v: Vec<String> =
        c.tx.iter()
            .map(|r| {
                format!(
                    "{:>12} tx {} {:?} {:?} q{} first{} last{}",
                    r.t_done.as_ns(),
                    r.handle,
                    r.outcome,
                    r.rates,
                    r.t_queued.as_ns(),
                    r.t_first_start.as_ns(),
                    r.t_last_start.as_ns()
                )
            })
            .collect();
    v.extend(c.rx.iter().map(|r| {
        format!(
            "{:>12} rx {} {} {} {}",
            r.t_end.as_ns(),
            r.handle,
            r.station,
            r.t_start.as_ns(),
            r.duplicate
        )
    }));
    v.sort();
    v
}

/// Stops at every event and gives each request at its time.
fn every_event(mut m: Medium, reqs: &[Req]) -> Vec<String> {
    let mut c = Collect::default();
    let step = |m: &mut Medium, until: u64, c: &mut Collect| {
        while let Some(e) = m.next_event_time().filter(|&e| e <= until) {
            m.advance(e, c);
        }
        m.advance(until, c);
    };
    drive(&mut m, reqs, &mut c, step);
    reports(&c)
}

/// As the daemon: wakes at the next output and at each request, and runs ahead each
/// time (if `run_ahead`); requests come late when the medium is ahead. Returns the reports and the
/// wake-ups.
fn run(mut m: Medium, reqs: &[Req], run_ahead: bool) -> (Vec<String>, usize, usize) {
    let mut c = Collect::default();
    let mut wakes = 0;
    let mut late = 0;
    let step = |m: &mut Medium, until: u64, c: &mut Collect, wakes: &mut usize| {
        while let Some(w) = m.next_output_time().filter(|&w| w <= until) {
            m.advance(w, c);
            if run_ahead {
                m.advance_quiet(NEVER, c);
            }
            *wakes += 1;
        }
        m.advance(until, c);
    };
    for (h, r) in reqs.iter().enumerate() {
        step(&mut m, r.at, &mut c, &mut wakes);
        late += usize::from(m.now() > r.at);
        let _ = m.enqueue(r.at, r.station, request(h as u64, r));
        if run_ahead {
            m.advance_quiet(NEVER, &mut c);
        }
    }
    step(&mut m, u64::MAX / 4, &mut c, &mut wakes);
    (reports(&c), wakes, late)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn running_ahead_changes_nothing(((n, hidden, reqs), g) in (traffic(), any::<bool>())) {
        let a = every_event(medium_of(n, &hidden, 0, 1, g), &reqs);
        let (b, _, _) = run(medium_of(n, &hidden, 0, 1, g), &reqs, true);
        prop_assert_eq!(a, b);
    }
}

#[test]
fn a_busy_medium_takes_many_requests_late_and_reports_the_same() {
    // 5 stations sending to each other every 20 µs for 20 ms: the run ahead is taken
    // often, and many requests come while the medium is ahead.
    let reqs: Vec<Req> = (0..1000u64)
        .map(|k| {
            let station = (k * 7 % 5) as u32;
            let dst = if k % 9 == 0 { None } else { Some((station + 1 + (k % 3) as u32) % 5) };
            let rate = [Rate::Ofdm54, Rate::Ofdm24, Rate::Ofdm6][(k % 3) as usize];
            Req { at: k * 20 * US, station, dst, len: 40 + (k * 131 % 1500) as u32, rate }
        })
        .collect();
    let a = every_event(medium(5, &[], 0, 1), &reqs);
    let (b, wakes, late) = run(medium(5, &[], 0, 1), &reqs, true);
    let (c, plain_wakes, _) = run(medium(5, &[], 0, 1), &reqs, false);
    assert_eq!(a, b);
    assert_eq!(a, c);
    assert!(late > 200, "{late} of 1000 late");
    // Outcomes come with the receptions before them: far fewer wake-ups.
    assert!(wakes * 4 < plain_wakes * 3, "{wakes} wake-ups running ahead, {plain_wakes} without");
}

#[test]
fn a_frame_within_accatime_of_an_arrival_is_not_run_past() {
    // Station 1 broadcasts at 121 µs; station 0 is given a frame 3 µs later, within
    // 802.11a's aCCATime (4 µs): it has not sensed station 1 yet and sends at once,
    // so the two collide. Running ahead must not take station 0 as blocked then.
    let b = |at: u64, station: u32| Req { at, station, dst: None, len: 14, rate: Rate::Ofdm6 };
    let reqs = [b(121 * US, 1), b(121 * US, 1), b(124 * US, 0)];
    let a = every_event(medium(2, &[], 0, 1), &reqs);
    let (r, _, _) = run(medium(2, &[], 0, 1), &reqs, true);
    assert_eq!(a, r);
}

#[test]
fn one_exchange_needs_one_wake_up() {
    // One unicast frame at 54 Mb/s: at the DATA frame's end (reception) every station
    // is blocked until the ACK's end, so the outcome is known then too.
    let reqs = [Req { at: 0, station: 0, dst: Some(1), len: 1500, rate: Rate::Ofdm54 }];
    let (r, wakes, _) = run(medium(3, &[], 0, 1), &reqs, true);
    assert_eq!(r.len(), 2, "{r:?}");
    assert_eq!(wakes, 1, "{r:?}");
}

#[test]
fn quiet_from_the_data_end_to_the_ack_end() {
    // 1,500 B at 54 Mb/s: 244 µs on air (20 µs preamble and SIGNAL, 56 symbols), AIFS
    // (DIFS, 34 µs) after the request; then SIFS (16 µs) and the ACK at 24 Mb/s (28 µs).
    let mut m = medium(3, &[], 0, 1);
    let mut c = Collect::default();
    m.enqueue(
        0,
        0,
        request(1, &Req { at: 0, station: 0, dst: Some(1), len: 1500, rate: Rate::Ofdm54 }),
    )
    .unwrap();
    let data_end = (34 + 244) * US;
    m.advance(data_end - 1, &mut c);
    // While the DATA frame is on air every station is blocked until its end.
    assert_eq!(m.quiet_until(), data_end);
    m.advance(data_end, &mut c);
    assert_eq!(c.rx.len(), 1);
    let ack_end = data_end + (16 + 28) * US;
    assert_eq!(m.quiet_until(), ack_end);
    assert_eq!(m.advance_quiet(NEVER, &mut c), ack_end);
    assert_eq!(c.tx.len(), 1);
    assert_eq!(c.tx[0].t_done.as_ns(), ack_end);
    // Not again until the caller caught up.
    assert_eq!(m.advance_quiet(NEVER, &mut c), ack_end);
}

#[test]
fn a_station_that_could_send_at_once_stops_the_run_ahead() {
    // Stations 0 and 2 cannot hear each other: while 0 sends to 1, a frame for 2
    // could go on air at once, so nothing is certain.
    let mut m = medium(3, &[(0, 2)], 0, 1);
    let mut c = Collect::default();
    m.enqueue(
        0,
        0,
        request(1, &Req { at: 0, station: 0, dst: Some(1), len: 1500, rate: Rate::Ofdm54 }),
    )
    .unwrap();
    m.advance(100 * US, &mut c);
    assert_eq!(m.quiet_until(), 100 * US);
    assert_eq!(m.advance_quiet(NEVER, &mut c), 100 * US);
}

/// When station 2 (AIFSN 4: AIFS 52 µs) starts sending its frame given at `at` after
/// station 0 got the medium at once for an exchange with 1 — DATA to 244 µs, ACK from
/// 260 to 288 µs —, with a contention window of 15.
fn third_station_start(seed: u64, at: u64, run_ahead: bool) -> u64 {
    let mut m = medium(3, &[], 15, seed);
    let mut c = Collect { record_air: true, ..Collect::default() };
    // Draw the first backoffs, then let them run out.
    m.advance(10_000 * US, &mut c);
    let t0 = 10_000 * US;
    m.enqueue(
        t0,
        0,
        request(1, &Req { at: t0, station: 0, dst: Some(1), len: 1500, rate: Rate::Ofdm54 }),
    )
    .unwrap();
    // The medium was idle for longer than AIFS: on air at once, for 244 µs.
    let data_end = t0 + 244 * US;
    m.advance(data_end, &mut c);
    if run_ahead {
        assert_eq!(m.advance_quiet(NEVER, &mut c), data_end + 44 * US);
    } else {
        m.advance(t0 + at, &mut c);
    }
    m.enqueue(
        t0 + at,
        2,
        request(2, &Req { at: t0 + at, station: 2, dst: Some(1), len: 100, rate: Rate::Ofdm54 }),
    )
    .unwrap();
    m.advance(t0 + 2_000 * US, &mut c);
    c.air.iter().find(|a| a.station == 2).expect("station 2 sent").t_start.as_ns() - t0
}

#[test]
fn a_frame_that_finds_the_medium_busy_before_aifs_draws_a_backoff() {
    // Given in the SIFS before the ACK (at 250 µs) or during it (270 µs), in time or
    // late: the ACK makes the medium busy before AIFS ran out, so the frame waits for
    // AIFS after the ACK (288 + 52 µs) and then a backoff of 0..=15 slots of 9 µs —
    // the same rule each time, and not always 0 slots (IEEE 802.11-2016 §10.3.4.3).
    for (at, run_ahead) in [(250, false), (270, false), (250, true), (270, true)] {
        let starts: Vec<u64> =
            (1..=24).map(|seed| third_station_start(seed, at * US, run_ahead)).collect();
        let slots: Vec<u64> = starts
            .iter()
            .map(|&s| {
                let after = s - 340 * US;
                assert_eq!(after % (9 * US), 0, "{starts:?}");
                after / (9 * US)
            })
            .collect();
        assert!(slots.iter().all(|&k| k <= 15), "{slots:?}");
        assert!(
            slots.iter().any(|&k| k > 0),
            "no backoff drawn: {slots:?} (at {at} µs, ahead {run_ahead})"
        );
    }
}
