//! `close`: requests confirmed as dropped, then everything refused.

use crate::common::*;

#[test]
fn close_confirms_queued_requests_as_dropped_then_refuses_everything() {
    let (mut s, mut ap, mut sta) = hand(true, 4);
    make_slow(&mut sta, Ac::Be);
    make_slow(&mut sta, Ac::Vo);
    sta.data_req(1, Body::Payload(LONG), Ac::Be, &long_attrs()).unwrap();
    sta.data_req(2, Body::Payload(&[0; 10]), Ac::Be, &one_shot(Rate::Ofdm54)).unwrap();
    sta.data_req(3, Body::Payload(LONG), Ac::Vo, &long_attrs()).unwrap();
    sta.data_req(4, Body::Payload(&[0; 10]), Ac::Vo, &one_shot(Rate::Ofdm54)).unwrap();
    std::thread::sleep(Duration::from_millis(1));
    assert_eq!(sta.unconfirmed(), 4);
    s.close();
    let mut ids = Vec::new();
    for _ in 0..4 {
        let c = sta.data_con(Wait::NoWait).unwrap().expect("confirmed at close");
        assert_eq!(c.status, Status::Dropped(DropReason::Closed), "{c:?}");
        assert_eq!(c.set_name(), "DROP");
        ids.push(c.id);
    }
    ids.sort();
    assert_eq!(ids, [1, 2, 3, 4]);
    assert_eq!(sta.unconfirmed(), 0);
    assert_eq!(sta.queue_len(Ac::Be), 0);
    assert_eq!(sta.queue_len(Ac::Vo), 0);
    // Everything now says Closed.
    assert_eq!(sta.data_con(W), Err(ApiError::Closed));
    assert_eq!(sta.data_con(Wait::NoWait), Err(ApiError::Closed));
    assert_eq!(
        sta.data_req(5, Body::Payload(&[0; 10]), Ac::Be, &one_shot(Rate::Ofdm54)),
        Err(ApiError::Closed)
    );
    assert_eq!(sta.cancel(1), Err(ApiError::Closed));
    assert_eq!(sta.get("tx_power", Scope::Adapter), Err(ApiError::Closed));
    assert_eq!(sta.set("tx_power", Scope::Adapter, 10.0), Err(ApiError::Closed));
    let mut buf = Vec::new();
    assert_eq!(sta.data_ind(&mut buf, W), Err(ApiError::Closed));
    assert_eq!(sta.beacon_ind(W), Err(ApiError::Closed));
    assert_eq!(ap.data_con(W), Err(ApiError::Closed));
    assert_eq!(sta.unconfirmed(), 0);
    // Closing twice is harmless.
    s.close();
    drop(s);
    assert_eq!(sta.data_con(Wait::NoWait), Err(ApiError::Closed));
}

#[test]
fn close_with_requests_held_by_the_device_latency() {
    let o = EmuOptions {
        profile: DeviceProfile { req: Latency::Fixed(500_000_000), con: Latency::Fixed(0) },
        ..opts()
    };
    let (m, ap, sta) = hand_medium(false, 4, 0.0, 1);
    let mut s = EmuSession::start(m, &[(AP, ap), (STA, sta)], o).unwrap();
    let mut sta = s.take(STA).unwrap();
    sta.data_req(1, Body::Payload(&[0; 10]), Ac::Be, &one_shot(Rate::Ofdm54)).unwrap();
    sta.data_req(2, Body::Payload(&[0; 10]), Ac::Be, &one_shot(Rate::Ofdm54)).unwrap();
    std::thread::sleep(Duration::from_millis(1));
    s.close();
    for id in [1, 2] {
        let c = sta.data_con(Wait::NoWait).unwrap().expect("confirmed at close");
        assert_eq!((c.id, c.status), (id, Status::Dropped(DropReason::Closed)));
    }
    assert_eq!(sta.data_con(Wait::NoWait), Err(ApiError::Closed));
}
