//! A medium run by its caller ([`EmuSession::start_driven`]): no device thread, the
//! caller's passes carry the frames, and dropping the driver ends the medium.
//!
//! Loops here are bounded by a count of passes and by wall time, so a medium that
//! never delivers fails the test instead of hanging it; no duration is asserted.

use sdmac_api::{Ac, ApiError, Body, DropReason, Interface, RateSeries, Status, TxAttrs, Wait};
use sdmac_emu::setup::{paper_medium, PaperSetup, AP, STA};
use sdmac_emu::{EmuClock, EmuDriver, EmuIface, EmuOptions, EmuSession};
use sdmac_phy::Rate;
use std::time::{Duration, Instant};

type Iface = Interface<EmuIface>;

fn driven() -> (EmuSession, EmuDriver, Iface, Iface) {
    let (m, ap, sta) = paper_medium(&PaperSetup::default()).unwrap();
    let (mut s, d) = EmuSession::start_driven(m, &[(AP, ap), (STA, sta)], EmuOptions::default())
        .expect("a driven session");
    let ap = s.take(AP).unwrap();
    let sta = s.take(STA).unwrap();
    (s, d, ap, sta)
}

fn unicast(to: &Iface) -> TxAttrs {
    TxAttrs {
        dst: Some(to.backend().address()),
        rates: Some(RateSeries::single(Rate::Ofdm24, 4)),
        ..TxAttrs::default()
    }
}

/// The threads of this process whose name starts with `prefix`.
fn threads_named(prefix: &str) -> usize {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|e| std::fs::read_to_string(e.ok()?.path().join("comm")).ok())
        .filter(|n| n.trim_end().starts_with(prefix))
        .count()
}

#[test]
fn the_callers_passes_carry_every_frame_and_no_device_thread_runs() {
    let before = threads_named("sdmac-emu-devic");
    let (_s, mut d, mut ap, mut sta) = driven();
    assert_eq!(threads_named("sdmac-emu-devic"), before, "a driven session starts no thread");
    let attrs = unicast(&sta);
    const N: u64 = 200;
    let mut sent = 0;
    let (mut acked, mut received) = (0, 0);
    let mut buf = Vec::new();
    let start = Instant::now();
    while (acked < N || received < N) && start.elapsed() < Duration::from_secs(30) {
        // Keep a few in flight, as a data path does.
        while sent < N && ap.unconfirmed() < 8 {
            ap.data_req(sent, Body::Payload(&[0x5a; 100]), Ac::Be, &attrs).unwrap();
            sent += 1;
        }
        d.pass();
        while let Some(c) = ap.data_con(Wait::NoWait).unwrap() {
            assert_eq!(c.status, Status::Acked, "a perfect link: {c:?}");
            acked += 1;
        }
        while let Some(i) = sta.data_ind(&mut buf, Wait::NoWait).unwrap() {
            if i.src == ap.backend().address() {
                received += 1;
            }
        }
        if let Some(t) = d.next_due() {
            assert!(t > 0);
        }
    }
    assert_eq!((acked, received), (N, N));
    let (events, _late) = d.events();
    assert!(events >= 4 * N, "four events per clean exchange at least: {events}");
}

#[test]
fn nothing_moves_between_passes() {
    let (_s, mut d, mut ap, sta) = driven();
    ap.data_req(1, Body::Payload(&[1; 60]), Ac::Be, &unicast(&sta)).unwrap();
    // Without a pass the request is not even taken: it stays unconfirmed however long
    // the caller waits.
    std::thread::sleep(Duration::from_millis(20));
    assert_eq!(ap.data_con(Wait::NoWait).unwrap(), None);
    let start = Instant::now();
    let c = loop {
        d.pass();
        if let Some(c) = ap.data_con(Wait::NoWait).unwrap() {
            break c;
        }
        assert!(start.elapsed() < Duration::from_secs(10), "no confirmation");
    };
    assert_eq!(c.status, Status::Acked);
}

#[test]
fn dropping_the_driver_confirms_what_is_queued_as_closed() {
    let (_s, d, mut ap, sta) = driven();
    let attrs = unicast(&sta);
    for id in 0..5 {
        ap.data_req(id, Body::Payload(&[2; 60]), Ac::Be, &attrs).unwrap();
    }
    assert!(!d.is_closed());
    drop(d);
    let mut closed = 0;
    // The confirmations come first, then the interface says the session ended.
    while let Some(c) = ap.data_con(Wait::NoWait).expect("confirmations before Closed") {
        assert_eq!(c.status, Status::Dropped(DropReason::Closed));
        closed += 1;
        if closed == 5 {
            break;
        }
    }
    assert_eq!(closed, 5, "every request gets its one confirmation");
    assert!(matches!(ap.data_con(Wait::NoWait), Err(ApiError::Closed)));
    assert!(ap.data_req(9, Body::Payload(&[3; 60]), Ac::Be, &attrs).is_err());
}

#[test]
fn closing_the_session_ends_the_driver() {
    let (mut s, mut d, _ap, _sta) = driven();
    assert!(!d.is_closed());
    s.close();
    assert!(!d.pass(), "a closed session has nothing to do");
    assert!(d.is_closed());
    assert_eq!(d.next_due(), None);
}

#[test]
fn the_virtual_clock_is_refused_with_the_reason() {
    let (m, ap, sta) = paper_medium(&PaperSetup::default()).unwrap();
    let o = EmuOptions { clock: EmuClock::Virtual, ..EmuOptions::default() };
    let e = EmuSession::start_driven(m, &[(AP, ap), (STA, sta)], o).unwrap_err();
    assert!(e.to_string().contains("wall clock only"), "{e}");
}

#[test]
fn attributes_answer_on_the_driving_thread_and_on_others() {
    use sdmac_api::{Scope, Value};
    let (_s, mut d, mut ap, _sta) = driven();
    // On the driving thread, between passes: the interface passes the medium itself
    // while it waits for the answer.
    ap.set("tx_power", Scope::Adapter, 7).unwrap();
    assert_eq!(ap.get("tx_power", Scope::Adapter).unwrap(), Value::Float(7.0));
    // On another thread, while this one keeps passing.
    let t = std::thread::spawn(move || {
        ap.set("tx_power", Scope::Adapter, 11).unwrap();
        ap.get("tx_power", Scope::Adapter).unwrap()
    });
    while !t.is_finished() {
        d.pass();
    }
    assert_eq!(t.join().unwrap(), Value::Float(11.0));
}
