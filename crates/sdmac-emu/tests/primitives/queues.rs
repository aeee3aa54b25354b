//! Queues: `QueueFull` at the limit, one queue per AC, `ConfirmationBacklog`.

use crate::common::*;

#[test]
fn queue_full_exactly_at_the_limit() {
    let (mut s, _ap, mut sta) = hand(false, 4);
    make_slow(&mut sta, Ac::Be);
    assert_eq!(int(sta.get("queue_limit", Scope::Adapter).unwrap()), 4);
    for id in 0..4u64 {
        assert_eq!(sta.queue_len(Ac::Be), id as usize);
        sta.data_req(id, Body::Payload(LONG), Ac::Be, &long_attrs()).unwrap();
    }
    assert_eq!(sta.queue_len(Ac::Be), 4);
    assert_eq!(int(sta.get("queue_len", Scope::Queue(Ac::Be)).unwrap()), 4);
    let e = sta.data_req(4, Body::Payload(&[0; 10]), Ac::Be, &one_shot(Rate::Ofdm54)).unwrap_err();
    assert_eq!(e, ApiError::QueueFull { ac: Ac::Be, limit: 4 });
    assert!(e.to_string().contains("BE") && e.to_string().contains('4'), "{e}");
    // A non-QoS station has one queue: every AC shares it.
    for ac in Ac::ALL {
        assert_eq!(sta.queue_len(ac), 4);
        assert_eq!(
            sta.data_req(5, Body::Payload(&[0; 10]), ac, &one_shot(Rate::Ofdm54)),
            Err(ApiError::QueueFull { ac, limit: 4 })
        );
    }
    assert_eq!(sta.unconfirmed(), 4);
    // Cancelling one makes room for exactly one.
    assert!(sta.cancel(3).unwrap());
    assert_eq!(con(&mut sta).status, Status::Dropped(DropReason::Cancelled));
    assert_eq!(sta.queue_len(Ac::Be), 3);
    sta.data_req(6, Body::Payload(LONG), Ac::Vo, &long_attrs()).unwrap();
    assert_eq!(
        sta.data_req(7, Body::Payload(LONG), Ac::Be, &long_attrs()),
        Err(ApiError::QueueFull { ac: Ac::Be, limit: 4 })
    );
    s.close();
    let mut ids: Vec<u64> = (0..4)
        .map(|_| con(&mut sta))
        .map(|c| {
            assert_eq!(c.status, Status::Dropped(DropReason::Closed));
            assert_eq!(c.ac, Ac::Be, "a non-QoS station sends everything on its one (BE) queue");
            c.id
        })
        .collect();
    ids.sort();
    assert_eq!(ids, [0, 1, 2, 6], "refused requests are never confirmed");
    assert_eq!(sta.data_con(W), Err(ApiError::Closed));
}

#[test]
fn qos_queues_fill_independently() {
    let (mut s, _ap, mut sta) = hand(true, 4);
    for ac in Ac::ALL {
        make_slow(&mut sta, ac);
    }
    for id in 0..4u64 {
        sta.data_req(id, Body::Payload(LONG), Ac::Be, &long_attrs()).unwrap();
    }
    assert_eq!(sta.queue_len(Ac::Be), 4);
    assert_eq!(
        sta.data_req(10, Body::Payload(LONG), Ac::Be, &long_attrs()),
        Err(ApiError::QueueFull { ac: Ac::Be, limit: 4 })
    );
    // VO, VI, BK are still open.
    for (id, ac) in [(20u64, Ac::Vo), (21, Ac::Vi), (22, Ac::Bk)] {
        assert_eq!(sta.queue_len(ac), 0);
        sta.data_req(id, Body::Payload(LONG), ac, &long_attrs()).unwrap();
        assert_eq!(sta.queue_len(ac), 1);
        assert_eq!(int(sta.get("queue_len", Scope::Queue(ac)).unwrap()), 1);
    }
    for id in 30..33u64 {
        sta.data_req(id, Body::Payload(LONG), Ac::Vo, &long_attrs()).unwrap();
    }
    assert_eq!(sta.queue_len(Ac::Vo), 4);
    let e = sta.data_req(40, Body::Payload(LONG), Ac::Vo, &long_attrs()).unwrap_err();
    assert_eq!(e, ApiError::QueueFull { ac: Ac::Vo, limit: 4 });
    assert!(e.to_string().contains("VO"), "{e}");
    assert_eq!(sta.queue_len(Ac::Be), 4);
    assert_eq!(sta.unconfirmed(), 10);
    // The confirmation of a QoS packet carries its AC.
    assert!(sta.cancel(32).unwrap());
    let c = con(&mut sta);
    assert_eq!((c.id, c.ac, c.status), (32, Ac::Vo, Status::Dropped(DropReason::Cancelled)));
    s.close();
    let mut n = 0;
    while let Some(c) = sta.data_con(Wait::NoWait).unwrap_or(None) {
        assert_eq!(c.status, Status::Dropped(DropReason::Closed));
        n += 1;
    }
    assert_eq!(n, 9);
}

#[test]
fn qos_packets_are_confirmed_on_their_ac() {
    let (_s, mut ap, mut sta) = hand(true, 4);
    std::thread::sleep(Duration::from_micros(300));
    for (id, ac) in [(1u64, Ac::Bk), (2, Ac::Be), (3, Ac::Vi), (4, Ac::Vo)] {
        sta.data_req(id, Body::Payload(&[id as u8; 30]), ac, &one_shot(Rate::Ofdm24)).unwrap();
        let c = con(&mut sta);
        assert_eq!((c.id, c.ac, c.status), (id, ac, Status::Acked));
        assert_eq!(c.len, 26 + 8 + 30 + 4, "QoS data header");
        let mut buf = Vec::new();
        let ind = ap.data_ind(&mut buf, W).unwrap().unwrap();
        assert_eq!(ind.ac, ac);
        assert_eq!(&buf[ind.payload_offset..], &[id as u8; 30]);
    }
}

#[test]
fn confirmation_backlog_when_confirmations_are_not_read() {
    let (_s, _ap, mut sta) = hand(false, 4);
    // Capacity of the confirmation channel: 1 queue × 4 + 16.
    let attrs = TxAttrs { no_ack: true, ..one_shot(Rate::Ofdm54) };
    for id in 0..20u64 {
        if sta.queue_len(Ac::Be) == 4 {
            wait_empty(&sta, Ac::Be);
        }
        sta.data_req(id, Body::Payload(&[0; 10]), Ac::Be, &attrs).unwrap();
    }
    wait_empty(&sta, Ac::Be);
    assert_eq!(sta.unconfirmed(), 20);
    let e = sta.data_req(20, Body::Payload(&[0; 10]), Ac::Be, &attrs).unwrap_err();
    assert_eq!(e, ApiError::ConfirmationBacklog { limit: 20 });
    assert!(e.to_string().contains("data_con"), "{e}");
    assert_eq!(con(&mut sta).id, 0);
    sta.data_req(21, Body::Payload(&[0; 10]), Ac::Be, &attrs).unwrap();
    for id in (1..20).chain([21]) {
        let c = con(&mut sta);
        assert_eq!((c.id, c.status), (id, Status::Sent));
    }
    no_more_cons(&mut sta);
}
