//! Timed requests: `not_before` hands a packet to channel access at a time of the
//! backend's clock, exactly on the medium's clock however late the device thread runs;
//! `not_after` drops it, unsent, when it would be handed over later.

use crate::common::*;
use sdmac_api::Time;

fn at(not_before: Option<Time>, not_after: Option<Time>) -> TxAttrs {
    TxAttrs { not_before, not_after, ..TxAttrs::one_shot(AP_MAC, Rate::Ofdm54) }
}

#[test]
fn the_emu_backend_takes_timed_requests() {
    let (_s, _ap, sta) = hand(false, 4);
    assert!(sta.timed_sends());
}

#[test]
fn a_timed_packet_reaches_its_queue_at_its_time_exactly() {
    let (_s, _ap, mut sta) = quiet(PaperSetup::default(), opts());
    let t = sta.now() + Span::from_ms(30);
    sta.data_req(1, Body::Payload(&[0; 50]), Ac::Be, &at(Some(t), None)).unwrap();
    // Held by the device until then: not on the medium's queue, its state says so.
    assert_eq!(sta.get("state", Scope::Packet(1)).unwrap(), Value::Text("held".into()));
    let c = con(&mut sta);
    assert_eq!((c.id, c.status, c.attempts), (1, Status::Acked, 1));
    assert_eq!(c.ts.t4, t, "handed to channel access at not_before, to the ns");
    // The medium was idle: it goes on air at once, and the exchange takes its airtime.
    assert_eq!(c.ts.t_start, t);
    assert_eq!(c.ts.components().unwrap().ttoa, TTOA_ACKED);
    no_more_cons(&mut sta);
}

#[test]
fn an_untimed_packet_overtakes_one_held_for_later() {
    let (_s, _ap, mut sta) = hand(false, 4);
    let t = sta.now() + Span::from_ms(200);
    sta.data_req(1, Body::Payload(&[0; 50]), Ac::Be, &at(Some(t), None)).unwrap();
    sta.data_req(2, Body::Payload(&[0; 50]), Ac::Be, &one_shot(Rate::Ofdm54)).unwrap();
    let first = con(&mut sta);
    assert_eq!((first.id, first.status), (2, Status::Acked));
    assert!(first.ts.t5 < t, "the untimed packet did not wait for the timed one");
    let second = con(&mut sta);
    assert_eq!((second.id, second.ts.t4), (1, t));
}

#[test]
fn a_packet_that_cannot_start_by_not_after_is_dropped_unsent() {
    let (_s, _ap, mut sta) = hand(false, 4);
    let past = sta.now() - Span::from_ms(1);
    sta.data_req(1, Body::Payload(&[0; 50]), Ac::Be, &at(None, Some(past))).unwrap();
    let c = con(&mut sta);
    assert_eq!((c.id, c.status, c.attempts), (1, Status::Dropped(DropReason::Late), 0));
    let t = c.truth.unwrap();
    assert_eq!((t.outcome, t.delivered), (Outcome::Dropped, false));
    assert!(c.ts.t_start.is_zero(), "nothing went on air");
    // A window still open: sent as usual.
    let later = sta.now() + Span::from_secs(5);
    sta.data_req(2, Body::Payload(&[0; 50]), Ac::Be, &at(None, Some(later))).unwrap();
    let c = con(&mut sta);
    assert_eq!((c.id, c.status), (2, Status::Acked));
    assert!(c.ts.t4 <= later);
    no_more_cons(&mut sta);
}

#[test]
fn a_window_that_closes_before_it_opens_is_refused() {
    let (_s, _ap, mut sta) = hand(false, 4);
    let t = sta.now() + Span::from_ms(10);
    let e =
        sta.data_req(1, Body::Payload(&[0; 50]), Ac::Be, &at(Some(t), Some(t - Span::from_ns(1))));
    match e {
        Err(ApiError::InvalidRequest { what, reason }) => {
            assert_eq!(what, "not_before");
            assert!(reason.contains("after not_after"), "{reason}");
        }
        other => panic!("expected InvalidRequest, got {other:?}"),
    }
    assert_eq!(sta.unconfirmed(), 0);
}

#[test]
fn a_held_timed_packet_can_be_cancelled() {
    let (_s, _ap, mut sta) = hand(false, 4);
    let t = sta.now() + Span::from_secs(1);
    sta.data_req(7, Body::Payload(&[0; 50]), Ac::Be, &at(Some(t), None)).unwrap();
    assert_eq!(sta.cancel(7), Ok(true));
    let c = con(&mut sta);
    assert_eq!((c.id, c.status, c.attempts), (7, Status::Dropped(DropReason::Cancelled), 0));
    no_more_cons(&mut sta);
}

#[test]
fn two_stations_timed_at_one_instant_collide_whatever_the_threads_do() {
    // Two stations 10 m from the AP, both handing a frame over at the same instant of an
    // idle medium: both transmit at once (no backoff pending) and collide, however the
    // host schedules their threads and the device's.
    let phy = Phy::new(Standard::Dot11a);
    let mut cfg = MediumConfig::new(phy.clone());
    cfg.seed = 5;
    let mut m = Medium::new(cfg);
    let ap = m.add_station(StationConfig::new(&phy, AP_ADDR, [0.0, 0.0, 0.0]));
    let a = m.add_station(StationConfig::new(&phy, STA_ADDR, [10.0, 0.0, 0.0]));
    let b = m.add_station(StationConfig::new(&phy, [2, 0, 0, 0, 0, 0x42], [0.0, 10.0, 0.0]));
    let mut s = EmuSession::start(m, &[("ap", ap), ("a", a), ("b", b)], opts()).unwrap();
    let mut a = s.take("a").unwrap();
    let mut b = s.take("b").unwrap();
    let t = a.now() + Span::from_ms(200);
    let attrs = TxAttrs { rates: Some(RateSeries::single(Rate::Ofdm54, 1)), ..at(Some(t), None) };
    a.data_req(1, Body::Payload(&[0; 50]), Ac::Be, &attrs).unwrap();
    std::thread::sleep(Duration::from_millis(20));
    b.data_req(1, Body::Payload(&[0; 50]), Ac::Be, &attrs).unwrap();
    for i in [&mut a, &mut b] {
        let c = con(i);
        assert_eq!((c.ts.t4, c.ts.t_start), (t, t));
        assert_eq!(c.status, Status::AckTimeout);
        assert_eq!(c.truth.unwrap().collisions, 1, "{c:?}");
    }
}
