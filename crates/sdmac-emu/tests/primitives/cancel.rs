//! `cancel`, and the attributes of a packet queued or on air.

use crate::common::*;

#[test]
fn cancel_queued_unknown_on_air_and_confirmed() {
    let (_s, _ap, mut sta) = hand(false, 4);
    sta.data_req(1, Body::Payload(LONG), Ac::Be, &long_attrs()).unwrap();
    sta.data_req(2, Body::Payload(&[0; 10]), Ac::Be, &one_shot(Rate::Ofdm54)).unwrap();
    sta.data_req(3, Body::Payload(&[0; 10]), Ac::Be, &one_shot(Rate::Ofdm54)).unwrap();
    std::thread::sleep(Duration::from_millis(1));
    // Queued behind the head: cancelled, with its own confirmation.
    assert_eq!(sta.cancel(2), Ok(true));
    let c = con(&mut sta);
    assert_eq!((c.id, c.status, c.attempts), (2, Status::Dropped(DropReason::Cancelled), 0));
    let t = c.truth.unwrap();
    assert_eq!(
        (t.outcome, t.cause, t.delivered),
        (Outcome::Dropped, sdmac_medium::Cause::Cancelled, false)
    );
    assert_eq!(sta.queue_len(Ac::Be), 2);
    // Twice: gone.
    assert_eq!(sta.cancel(2), Ok(false));
    // Never requested.
    assert_eq!(sta.cancel(12345), Ok(false));
    // The head has made its first attempt: not cancellable.
    assert!(int(sta.get("attempts", Scope::Packet(1)).unwrap()) >= 1);
    assert_eq!(sta.cancel(1), Ok(false));
    assert_eq!(sta.data_con(Wait::NoWait).unwrap(), None, "a failed cancel confirms nothing");
    assert_eq!(sta.unconfirmed(), 2);
    // 3 goes after the head's 15 tries; cancel it too, then check a confirmed one.
    assert_eq!(sta.cancel(3), Ok(true));
    assert_eq!(con(&mut sta).id, 3);
    let c = con(&mut sta);
    assert_eq!((c.id, c.status, c.attempts), (1, Status::AckTimeout, 15));
    assert_eq!(sta.cancel(1), Ok(false), "already confirmed");
    no_more_cons(&mut sta);
}

#[test]
fn cancel_a_packet_held_by_the_device_latency() {
    // With a 50 ms request latency the packet waits in the device, not yet in a queue.
    let (_s, _ap, mut sta) = one_packet_held();
    assert_eq!(sta.cancel(1), Ok(true));
    let c = con(&mut sta);
    assert_eq!((c.id, c.status), (1, Status::Dropped(DropReason::Cancelled)));
    assert_eq!(sta.queue_len(Ac::Be), 0);
    no_more_cons(&mut sta);
}

#[test]
fn packet_attributes_of_queued_and_on_air_packets() {
    let (_s, _ap, mut sta) = hand(false, 4);
    sta.data_req(1, Body::Payload(LONG), Ac::Be, &long_attrs()).unwrap();
    let r = series(&[(Rate::Ofdm54, 2), (Rate::Ofdm6, 1)]);
    sta.data_req(
        2,
        Body::Payload(&[0; 50]),
        Ac::Be,
        &TxAttrs { dst: Some(AP_MAC), rates: Some(r), ..TxAttrs::default() },
    )
    .unwrap();
    sta.data_req(
        3,
        Body::Payload(&[0; 50]),
        Ac::Be,
        &TxAttrs { dst: Some(AP_MAC), rates: None, ..TxAttrs::default() },
    )
    .unwrap();
    std::thread::sleep(Duration::from_millis(1));

    // The queued packet 2.
    assert_eq!(sta.get("rates", Scope::Packet(2)).unwrap(), Value::Rates(r));
    assert_eq!(int(sta.get("tries", Scope::Packet(2)).unwrap()), 3);
    assert_eq!(int(sta.get("attempts", Scope::Packet(2)).unwrap()), 0);
    assert_eq!(sta.get("state", Scope::Packet(2)).unwrap(), Value::Text("queued".into()));
    let ts = sta.get("timestamps", Scope::Packet(2)).unwrap();
    let t: Vec<i64> =
        ["t1", "t2", "t3", "t4"].iter().map(|k| int(map_get(&ts, k).clone())).collect();
    assert!(t[0] > 0 && t.windows(2).all(|w| w[0] <= w[1]), "{ts}");
    // A packet without rates shows the default series it was queued with.
    assert_eq!(
        sta.get("rates", Scope::Packet(3)).unwrap(),
        sta.get("default_rates", Scope::Adapter).unwrap()
    );
    // Its rates can change until its first attempt.
    let r2 = series(&[(Rate::Ofdm24, 2)]);
    sta.set("rates", Scope::Packet(2), r2).unwrap();
    assert_eq!(sta.get("rates", Scope::Packet(2)).unwrap(), Value::Rates(r2));
    sta.set("rates", Scope::Packet(2), "36x1,12x3").unwrap();
    assert_eq!(sta.get("tries", Scope::Packet(2)).unwrap(), Value::Int(4));
    let e = sta.set("rates", Scope::Packet(2), "11x1").unwrap_err();
    assert!(matches!(&e, ApiError::InvalidValue { name, .. } if name == "rates"), "{e:?}");
    assert!(e.to_string().contains("\"rates\""), "{e}");
    let e = sta.set("rates", Scope::Packet(2), "fast").unwrap_err();
    assert!(matches!(&e, ApiError::InvalidValue { name, .. } if name == "rates"), "{e:?}");
    let e = sta.set("rates", Scope::Packet(2), 54i64).unwrap_err();
    assert!(matches!(&e, ApiError::InvalidValue { name, .. } if name == "rates"), "{e:?}");
    assert_eq!(
        sta.get("tries", Scope::Packet(2)).unwrap(),
        Value::Int(4),
        "refused values change nothing"
    );

    // The head has started: its rates are frozen.
    assert!(int(sta.get("attempts", Scope::Packet(1)).unwrap()) >= 1);
    assert_eq!(int(sta.get("tries", Scope::Packet(1)).unwrap()), 15);
    let state = sta.get("state", Scope::Packet(1)).unwrap();
    assert!(
        state == Value::Text("on_air".into()) || state == Value::Text("retrying".into()),
        "{state:?}"
    );
    let e = sta.set("rates", Scope::Packet(1), "54x1").unwrap_err();
    assert_eq!(e, ApiError::PacketOnAir { id: 1 });
    assert!(e.to_string().starts_with("packet 1 "), "{e}");

    // Unknown packets.
    for name in ["rates", "tries", "attempts", "state", "timestamps"] {
        let e = sta.get(name, Scope::Packet(99)).unwrap_err();
        assert_eq!(e, ApiError::NoSuchPacket { id: 99 }, "{name}");
        assert!(e.to_string().contains("99"), "{e}");
    }
    assert_eq!(sta.set("rates", Scope::Packet(99), "54"), Err(ApiError::NoSuchPacket { id: 99 }));

    // Cancel the head's followers, wait for the head, then 2's attributes are gone.
    assert!(sta.cancel(3).unwrap());
    assert_eq!(con(&mut sta).id, 3);
    let c = con(&mut sta);
    assert_eq!(c.id, 1);
    let c = con(&mut sta);
    assert_eq!((c.id, c.status), (2, Status::Acked));
    assert_eq!(c.rates_used(), &[(Rate::Ofdm36, 1)], "sent with the rates set");
    assert_eq!(sta.get("state", Scope::Packet(2)), Err(ApiError::NoSuchPacket { id: 2 }));
    assert_eq!(sta.set("rates", Scope::Packet(2), "54"), Err(ApiError::NoSuchPacket { id: 2 }));
}
