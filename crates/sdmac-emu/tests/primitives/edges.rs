//! Edges: waits that time out, more than 255 tries, packets held by the device latency, non-QoS ACs.

use crate::common::*;

#[test]
fn wait_for_times_out_with_none() {
    let (_s, mut ap, mut sta) = hand(false, 4);
    let w = Wait::For(Duration::from_millis(5));
    assert_eq!(sta.data_con(w).unwrap(), None);
    assert_eq!(sta.data_con(Wait::NoWait).unwrap(), None);
    let mut buf = Vec::new();
    assert_eq!(ap.data_ind(&mut buf, w).unwrap(), None);
    assert_eq!(sta.beacon_ind(w).unwrap(), None, "no AP beacons on this medium");
    assert!(sta.event_fd().is_some());
    assert_eq!(sta.backend().name(), STA);
    assert_eq!(sta.backend().address(), STA_MAC);
}

#[test]
fn more_than_255_tries_is_refused_or_confirmed() {
    let (_s, _ap, mut sta) = hand(false, 4);
    // Fast retries: AIFSN 1, CW 0 (each attempt ~110 µs).
    let q = Scope::Queue(Ac::Be);
    sta.set("aifsn", q, 1i64).unwrap();
    sta.set("cw_min", q, 0i64).unwrap();
    sta.set("cw_max", q, 0i64).unwrap();
    let r = series(&[(Rate::Ofdm54, 255), (Rate::Ofdm48, 1)]);
    assert_eq!(r.total_tries(), 256);
    let attrs = TxAttrs { dst: Some(NOBODY), rates: Some(r), ..TxAttrs::default() };
    match sta.data_req(1, Body::Payload(&[0; 10]), Ac::Be, &attrs) {
        Err(ApiError::InvalidRequest { what: "rates", .. }) => {}
        Err(e) => panic!("unexpected {e:?}"),
        Ok(()) => {
            let c =
                sta.data_con(W).unwrap().expect("256 tries of ~0.1 ms each end well within 2 s");
            assert_eq!((c.id, c.status), (1, Status::AckTimeout));
        }
    }
}

#[test]
fn packet_attributes_of_a_packet_held_by_the_device_latency() {
    let (_s, _ap, mut sta) = one_packet_held();
    assert_eq!(sta.get("state", Scope::Packet(1)).unwrap(), Value::Text("held".into()));
    sta.set("rates", Scope::Packet(1), "24").unwrap();
    assert_eq!(con(&mut sta).rates_used(), &[(Rate::Ofdm24, 1)]);
}

#[test]
fn non_qos_confirmations_always_report_be() {
    // DuplicateId.
    let (_s, _ap, mut sta) = hand(false, 4);
    sta.data_req(7, Body::Payload(LONG), Ac::Vo, &long_attrs()).unwrap();
    sta.data_req(7, Body::Payload(&[0; 10]), Ac::Vo, &one_shot(Rate::Ofdm54)).unwrap();
    let c = con(&mut sta);
    assert_eq!(c.status, Status::Dropped(DropReason::DuplicateId));
    assert_eq!(c.ac, Ac::Be, "duplicate");
    // Cancelled while held by the device's request latency.
    let (m, ap, st) = hand_medium(false, 4, 0.0, 1);
    let mut s = EmuSession::start(m, &[(AP, ap), (STA, st)], holding_device()).unwrap();
    let mut sta = s.take(STA).unwrap();
    sta.data_req(1, Body::Payload(&[0; 10]), Ac::Vi, &one_shot(Rate::Ofdm54)).unwrap();
    assert!(sta.cancel(1).unwrap());
    let c = con(&mut sta);
    assert_eq!(c.status, Status::Dropped(DropReason::Cancelled));
    assert_eq!(c.ac, Ac::Be, "cancelled while held");
}
