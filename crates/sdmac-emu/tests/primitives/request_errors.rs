//! Requests `data_req` refuses: payload length, ids, rates, duplicate ids.

use crate::common::*;

#[test]
fn payload_length_limit() {
    let (_s, mut ap, mut sta) = quiet(PaperSetup::default(), opts());
    let attrs = one_shot(Rate::Ofdm54);
    let e = sta.data_req(1, Body::Payload(&[0; MAX_PAYLOAD + 1]), Ac::Be, &attrs).unwrap_err();
    assert_eq!(e, ApiError::TooLong { len: MAX_PAYLOAD + 1, max: MAX_PAYLOAD });
    assert!(e.to_string().contains("2305") && e.to_string().contains("2304"), "{e}");
    assert_eq!(sta.unconfirmed(), 0);
    let payload: Vec<u8> = (0..MAX_PAYLOAD).map(|i| i as u8).collect();
    sta.data_req(2, Body::Payload(&payload), Ac::Be, &attrs).unwrap();
    let c = con(&mut sta);
    assert_eq!((c.id, c.status, c.len), (2, Status::Acked, (24 + 8 + MAX_PAYLOAD + 4) as u32));
    let mut buf = Vec::new();
    let ind = ap.data_ind(&mut buf, W).unwrap().unwrap();
    assert_eq!(&buf[ind.payload_offset..], &payload[..]);
    // An empty payload is fine too.
    std::thread::sleep(Duration::from_micros(300));
    sta.data_req(3, Body::Payload(&[]), Ac::Be, &attrs).unwrap();
    assert_eq!(con(&mut sta).len, 24 + 8 + 4);
    no_more_cons(&mut sta);
}

#[test]
fn ids_above_max_id_are_refused() {
    let (_s, _ap, mut sta) = quiet(PaperSetup::default(), opts());
    let attrs = one_shot(Rate::Ofdm54);
    for id in [MAX_ID + 1, u64::MAX] {
        let e = sta.data_req(id, Body::Payload(&[0; 10]), Ac::Be, &attrs).unwrap_err();
        assert_eq!(e, ApiError::InvalidId { id });
        assert!(e.to_string().contains(&id.to_string()), "{e}");
        assert_eq!(sta.cancel(id), Err(ApiError::InvalidId { id }));
        assert_eq!(sta.set("rates", Scope::Packet(id), "54"), Err(ApiError::InvalidId { id }));
        assert_eq!(sta.get("state", Scope::Packet(id)), Err(ApiError::InvalidId { id }));
    }
    assert_eq!(sta.unconfirmed(), 0);
    for id in [MAX_ID, 0] {
        sta.data_req(id, Body::Payload(&[0; 10]), Ac::Be, &attrs).unwrap();
        let c = con(&mut sta);
        assert_eq!((c.id, c.status), (id, Status::Acked));
        std::thread::sleep(Duration::from_micros(300));
    }
    no_more_cons(&mut sta);
}

#[test]
fn rates_the_phy_cannot_send_are_refused() {
    let (_s, _ap, mut sta) = quiet(PaperSetup::default(), opts());
    let bad = [
        RateSeries::single(Rate::Cck11, 1),
        RateSeries::single(Rate::Dsss1, 2),
        RateSeries::single(Rate::Ht { mcs: 7, bw40: false, sgi: false }, 1),
        series(&[(Rate::Ofdm54, 1), (Rate::Cck5_5, 1)]),
    ];
    for r in bad {
        let attrs = TxAttrs { dst: Some(AP_MAC), rates: Some(r), ..TxAttrs::default() };
        match sta.data_req(1, Body::Payload(&[0; 10]), Ac::Be, &attrs) {
            Err(e @ ApiError::InvalidRequest { what: "rates", .. }) => {
                assert!(e.to_string().contains("rates"), "{e}");
            }
            other => panic!("{r:?}: expected InvalidRequest, got {other:?}"),
        }
    }
    let e = sta
        .data_req(1, Body::Payload(&[0; 10]), Ac::Be, &one_shot(Rate::Cck11))
        .unwrap_err()
        .to_string();
    assert!(e.contains("rates") && e.contains("11"), "{e}");
    assert_eq!(sta.queue_len(Ac::Be), 0);
    std::thread::sleep(Duration::from_millis(1));
    no_more_cons(&mut sta);
}

#[test]
fn duplicate_id_of_a_queued_packet_is_confirmed_dropped() {
    let (_s, _ap, mut sta) = hand(false, 4);
    sta.data_req(7, Body::Payload(LONG), Ac::Be, &long_attrs()).unwrap();
    sta.data_req(7, Body::Payload(&[0; 10]), Ac::Be, &one_shot(Rate::Ofdm54)).unwrap();
    let c = con(&mut sta);
    assert_eq!((c.id, c.status, c.attempts), (7, Status::Dropped(DropReason::DuplicateId), 0));
    assert_eq!(c.set_name(), "DROP");
    // The first one is still there.
    assert_eq!(sta.queue_len(Ac::Be), 1);
    assert_eq!(int(sta.get("tries", Scope::Packet(7)).unwrap()), 15);
    assert!(sta.cancel(7).is_ok());
}
