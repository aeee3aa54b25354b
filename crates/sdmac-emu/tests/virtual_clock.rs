//! The virtual clock: medium time moves only when every interface taking part waits,
//! so a run depends on its seed and its inputs, never on how the host runs threads.
//!
//! Every wait here is bounded by wall time ([`within`]) so that a clock that never
//! moves fails the test instead of hanging it; no wall-clock duration is asserted.

use sdmac_api::{
    Ac, Body, Confirmation, Indication, Interface, RateSeries, Span, Status, Time, TxAttrs, Wait,
};
use sdmac_emu::setup::{paper_medium, PaperSetup, AP, STA};
use sdmac_emu::{EmuClock, EmuIface, EmuOptions, EmuSession, VIRTUAL_ORIGIN};
use sdmac_frame::MacAddress;
use sdmac_medium::TU;
use sdmac_phy::Rate;
use std::time::Duration;

type Iface = Interface<EmuIface>;

fn virtual_opts() -> EmuOptions {
    EmuOptions { clock: EmuClock::Virtual, ..EmuOptions::default() }
}

/// The paper's testbed (beacons every 50 TU) on the virtual clock, both interfaces
/// taken.
fn session(o: EmuOptions) -> (EmuSession, Iface, Iface) {
    let (m, ap, sta) = paper_medium(&PaperSetup::default()).unwrap();
    let mut s = EmuSession::start(m, &[(AP, ap), (STA, sta)], o).unwrap();
    let ap = s.take(AP).unwrap();
    let sta = s.take(STA).unwrap();
    (s, ap, sta)
}

/// Runs `f` on its own thread and fails if it has not returned within `secs` of wall
/// time (a clock that never moves).
fn within<R: Send + 'static>(secs: u64, f: impl FnOnce() -> R + Send + 'static) -> R {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(secs)).expect("virtual time did not move")
}

/// A broadcast at 6 Mb/s, no ACK, no retry, handed to the medium at `at` if given.
fn broadcast(at: Option<Time>) -> TxAttrs {
    TxAttrs {
        dst: Some(MacAddress::BROADCAST),
        rates: Some(RateSeries::single(Rate::Ofdm6, 1)),
        no_ack: true,
        timestamps: true,
        not_before: at,
        not_after: None,
    }
}

#[test]
fn medium_time_starts_at_the_fixed_origin() {
    let (s, ap, sta) = session(virtual_opts());
    assert_eq!(s.clock(), EmuClock::Virtual);
    assert_eq!(s.origin(), VIRTUAL_ORIGIN);
    // Nobody has waited yet: time is still 0 on the medium, whatever the host did.
    std::thread::sleep(Duration::from_millis(20));
    assert_eq!(sta.now(), Time::from_ns(VIRTUAL_ORIGIN));
    assert_eq!(ap.now(), sta.now());
}

#[test]
fn wait_for_returns_at_exactly_now_plus_d() {
    let (_s, ap, mut sta) = session(virtual_opts());
    drop(ap);
    within(20, move || {
        for d in [Duration::from_micros(1), Duration::from_micros(333), Duration::from_millis(7)] {
            let t0 = sta.now();
            assert_eq!(sta.data_con(Wait::For(d)).unwrap(), None);
            assert_eq!(sta.now(), t0 + Span::from(d), "Wait::For({d:?})");
        }
        // A beacon is handed up at the instant its reception ends.
        while sta.beacon_ind(Wait::NoWait).unwrap().is_some() {}
        let b = sta.beacon_ind(Wait::Forever).unwrap().expect("a beacon");
        assert_eq!(sta.now(), b.t_end);
        // The AP's beacons: every 50 TU from 1 ms.
        assert_eq!((b.t_start.as_ns() - VIRTUAL_ORIGIN - 1_000_000) % (50 * TU), 0);
    });
}

#[test]
fn no_wait_does_not_count_as_waiting() {
    let (_s, ap, mut sta) = session(virtual_opts());
    drop(ap);
    let t0 = sta.now();
    let wall = std::time::Instant::now();
    while wall.elapsed() < Duration::from_millis(30) {
        assert!(sta.data_con(Wait::NoWait).unwrap().is_none());
        assert!(sta.beacon_ind(Wait::NoWait).unwrap().is_none());
    }
    assert_eq!(sta.now(), t0);
}

/// The station sends a frame, stays busy (asleep) 50 ms of wall time or not at all,
/// then sends another: time stands still meanwhile, so both runs are the same, times
/// included.
#[test]
fn time_stands_still_while_an_interface_is_busy() {
    fn run(sleep: bool) -> (Vec<Confirmation>, Vec<Indication>) {
        let (_s, mut ap, mut sta) = session(virtual_opts());
        let rx = std::thread::spawn(move || {
            let mut got = Vec::new();
            let mut buf = Vec::new();
            while got.len() < 2 {
                if let Some(i) = ap.data_ind(&mut buf, Wait::For(Duration::from_secs(1))).unwrap() {
                    got.push(i);
                }
            }
            got
        });
        let mut cons = Vec::new();
        for id in 1..=2 {
            sta.data_req(id, Body::Payload(&[7; 40]), Ac::Be, &broadcast(None)).unwrap();
            cons.push(sta.data_con(Wait::Forever).unwrap().unwrap());
            if sleep {
                let before = sta.now();
                std::thread::sleep(Duration::from_millis(50));
                assert_eq!(sta.now(), before, "time moved while the station was busy");
            }
        }
        (cons, within(20, move || rx.join().unwrap()))
    }
    let a = within(30, || run(false));
    let b = within(30, || run(true));
    assert_eq!(a.0.len(), 2);
    assert!(a.0.iter().all(|c| c.status == Status::Sent));
    assert_eq!(a, b);
}

/// A TDMA-like exchange: the station sends a broadcast at the start of each 2 ms slot
/// (a timed request), the AP answers each one 300 µs after it heard it. One run has
/// both threads stalled at random moments (wall time); the other does not. Both
/// produce the same confirmations and indications, times included.
#[test]
fn a_timed_exchange_is_the_same_in_two_runs() {
    const N: u64 = 12;
    fn run(
        stall: bool,
    ) -> (Vec<Confirmation>, Vec<Indication>, Vec<Confirmation>, Vec<Indication>) {
        let (_s, mut ap, mut sta) = session(virtual_opts());
        let replier = std::thread::spawn(move || {
            let (mut cons, mut inds, mut buf) = (Vec::new(), Vec::new(), Vec::new());
            let mut id = 0;
            while inds.len() < N as usize {
                let Some(i) = ap.data_ind(&mut buf, Wait::For(Duration::from_millis(50))).unwrap()
                else {
                    continue;
                };
                if stall && i.id % 3 == 1 {
                    std::thread::sleep(Duration::from_millis(5));
                }
                id += 1;
                let at = i.rx.t_end + Span::from_us(300);
                ap.data_req(id, Body::Payload(&[1; 60]), Ac::Be, &broadcast(Some(at))).unwrap();
                inds.push(i);
                cons.push(ap.data_con(Wait::Forever).unwrap().unwrap());
            }
            (cons, inds)
        });
        let (mut cons, mut inds, mut buf) = (Vec::new(), Vec::new(), Vec::new());
        let first = sta.now() + Span::from_ms(3);
        for k in 0..N {
            let at = first + Span::from_ms(2 * k);
            sta.data_req(k + 1, Body::Payload(&[2; 74]), Ac::Be, &broadcast(Some(at))).unwrap();
            if stall && k % 4 == 2 {
                std::thread::sleep(Duration::from_millis(7));
            }
            cons.push(sta.data_con(Wait::Forever).unwrap().unwrap());
            // The reply to this one comes before the next slot.
            inds.push(sta.data_ind(&mut buf, Wait::Forever).unwrap().unwrap());
            assert!(sta.now() < first + Span::from_ms(2 * (k + 1)), "reply {k} late");
        }
        let (rc, ri) = within(20, move || replier.join().unwrap());
        (cons, inds, rc, ri)
    }
    let a = within(60, || run(false));
    let b = within(60, || run(true));
    assert_eq!(a.0.len(), N as usize);
    assert_eq!(a.1.len(), N as usize, "every reply heard");
    // Each request went on air at its slot's start.
    let first = a.0[0].ts.t_start;
    for (k, c) in a.0.iter().enumerate() {
        assert_eq!(c.ts.t_start, first + Span::from_ms(2 * k as u64), "request {k}");
    }
    assert_eq!(a, b);
}

#[test]
fn event_fd_is_refused_on_the_virtual_clock() {
    let (_s, _ap, mut sta) = session(virtual_opts());
    assert_eq!(sta.event_fd(), None);
    let (_w, _ap, mut sta) = session(EmuOptions::default());
    assert!(sta.event_fd().is_some());
}

#[test]
fn a_dropped_interface_takes_no_part() {
    let (_s, ap, mut sta) = session(virtual_opts());
    let t0 = sta.now();
    drop(ap);
    let sta = within(20, move || {
        assert_eq!(sta.data_con(Wait::For(Duration::from_millis(2))).unwrap(), None);
        sta
    });
    assert_eq!(sta.now(), t0 + Span::from_ms(2));
}

#[test]
fn the_watchdog_names_the_busy_interface() {
    let o = EmuOptions { watchdog: Duration::from_millis(100), ..virtual_opts() };
    let (s, ap, mut sta) = session(o);
    let waiter = std::thread::spawn(move || {
        sta.data_con(Wait::For(Duration::from_millis(1))).unwrap();
        sta
    });
    // The AP's application is busy (not in a receiving primitive) until the report.
    let wall = std::time::Instant::now();
    while s.stalls().is_empty() && wall.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let stalls = s.stalls();
    assert_eq!(stalls.len(), 1, "{stalls:?}");
    assert!(stalls[0].contains("interface(s) ap "), "{}", stalls[0]);
    assert!(!stalls[0].contains("sta"), "{}", stalls[0]);
    drop(ap);
    let sta = within(20, move || waiter.join().unwrap());
    assert_eq!(sta.now(), Time::from_ns(VIRTUAL_ORIGIN) + Span::from_ms(1));
}

#[test]
fn an_interface_said_to_take_no_part_no_longer_holds_time() {
    let (s, ap, mut sta) = session(virtual_opts());
    assert!(s.take_no_part(AP));
    assert!(!s.take_no_part("nobody"));
    let sta = within(20, move || {
        assert_eq!(sta.data_con(Wait::For(Duration::from_millis(3))).unwrap(), None);
        sta
    });
    assert_eq!(sta.now(), Time::from_ns(VIRTUAL_ORIGIN) + Span::from_ms(3));
    // Its own waits still end at their deadlines, on the medium's clock.
    let mut ap = ap;
    let t0 = ap.now();
    let h = std::thread::spawn(move || {
        let mut sta = sta;
        // The station keeps time moving meanwhile.
        sta.data_con(Wait::For(Duration::from_millis(10))).unwrap();
        sta
    });
    assert_eq!(ap.data_con(Wait::For(Duration::from_millis(1))).unwrap(), None);
    assert!(ap.now() >= t0 + Span::from_ms(1));
    drop(within(20, move || h.join().unwrap()));
}
