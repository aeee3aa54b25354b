//! Adapter and queue attributes: kinds, scopes, values, refusals and their effects.

use crate::common::*;

/// The attributes this file sets (and checks the effect of).
const WRITABLE: &[&str] = &[
    "bssid",
    "tx_power",
    "position",
    "ack_timeout",
    "retry_limit",
    "default_rates",
    "rx_management",
    "aifsn",
    "cw_min",
    "cw_max",
    "txop_limit",
    "rates",
];

#[test]
fn every_attribute_can_be_read_with_its_kind_and_scope() {
    let (_s, _ap, mut sta) = hand(true, 4);
    // Packet 2 waits behind packet 1 for the whole test: 15 attempts to nobody, each
    // after a ~150 ms backoff, keep the queue busy for seconds.
    make_slow(&mut sta, Ac::Be);
    sta.data_req(1, Body::Payload(LONG), Ac::Be, &long_attrs()).unwrap();
    sta.data_req(2, Body::Payload(&[0; 50]), Ac::Be, &one_shot(Rate::Ofdm54)).unwrap();
    let writable: Vec<&str> = ATTRIBUTES.iter().filter(|a| a.writable).map(|a| a.name).collect();
    assert_eq!(writable, WRITABLE, "the writable attributes tested here");
    for spec in ATTRIBUTES {
        let scopes: Vec<Scope> = match spec.scope {
            "adapter" => vec![Scope::Adapter],
            "queue" => Ac::ALL.iter().map(|&ac| Scope::Queue(ac)).collect(),
            "packet" => vec![Scope::Packet(2)],
            s => panic!("scope {s}"),
        };
        for scope in scopes {
            let v = sta
                .get(spec.name, scope)
                .unwrap_or_else(|e| panic!("{} {scope:?}: {e}", spec.name));
            assert_eq!(kind_of(&v), spec.kind, "{} = {v:?}", spec.name);
        }
        // Any other scope is refused, naming the attribute.
        for scope in [Scope::Adapter, Scope::Queue(Ac::Vi), Scope::Packet(2)] {
            if scope.kind() == spec.scope {
                continue;
            }
            let e = sta.get(spec.name, scope).unwrap_err();
            assert_eq!(
                e,
                ApiError::WrongScope {
                    name: spec.name.into(),
                    expected: spec.scope,
                    given: scope.kind()
                }
            );
            assert!(e.to_string().contains(&format!("{:?}", spec.name)), "{e}");
            assert!(matches!(sta.set(spec.name, scope, 1i64), Err(ApiError::WrongScope { .. })));
        }
        // The read-only ones cannot be set, whatever the value.
        if !spec.writable {
            let scope = match spec.scope {
                "adapter" => Scope::Adapter,
                "queue" => Scope::Queue(Ac::Be),
                _ => Scope::Packet(2),
            };
            let v = sta.get(spec.name, scope).unwrap();
            let e = sta.set(spec.name, scope, v).unwrap_err();
            assert_eq!(e, ApiError::ReadOnly { name: spec.name.into() });
            assert!(e.to_string().contains(&format!("{:?}", spec.name)), "{e}");
        }
    }
    // Unknown names.
    for name in ["nope", "", "Address", "queue_len "] {
        for scope in [Scope::Adapter, Scope::Queue(Ac::Be), Scope::Packet(2)] {
            let e = sta.get(name, scope).unwrap_err();
            assert_eq!(e, ApiError::UnknownAttribute { name: name.into() });
            assert!(e.to_string().contains(&format!("{name:?}")), "{e}");
            assert_eq!(
                sta.set(name, scope, 1i64),
                Err(ApiError::UnknownAttribute { name: name.into() })
            );
        }
    }
}

#[test]
fn adapter_attribute_values() {
    let (_s, mut ap, mut sta) = quiet(PaperSetup::default(), opts());
    let g = |i: &mut Iface, n: &str| i.get(n, Scope::Adapter).unwrap();
    assert_eq!(g(&mut sta, "address"), Value::Mac(STA_MAC));
    assert_eq!(g(&mut ap, "address"), Value::Mac(AP_MAC));
    assert_eq!(g(&mut sta, "bssid"), Value::Mac(AP_MAC));
    assert_eq!(g(&mut sta, "channel"), Value::Int(36));
    assert_eq!(g(&mut sta, "frequency"), Value::Int(5180));
    assert_eq!(g(&mut sta, "tx_power"), Value::Float(20.0));
    assert_eq!(g(&mut sta, "ack_timeout"), Value::Float(45.0));
    assert_eq!(g(&mut sta, "retry_limit"), Value::Int(7));
    assert_eq!(g(&mut sta, "default_rates"), Value::Rates(RateSeries::single(Rate::Ofdm54, 7)));
    assert_eq!(g(&mut sta, "basic_rates"), Value::Text("6".into()));
    assert_eq!(g(&mut sta, "queue_limit"), Value::Int(500));
    assert_eq!(g(&mut sta, "rx_management"), Value::Bool(false));
    // Queue parameters of a non-QoS station: DCF, whatever the AC.
    for ac in Ac::ALL {
        let q = Scope::Queue(ac);
        assert_eq!(sta.get("aifsn", q).unwrap(), Value::Int(2));
        assert_eq!(sta.get("cw_min", q).unwrap(), Value::Int(15));
        assert_eq!(sta.get("cw_max", q).unwrap(), Value::Int(1023));
        assert_eq!(sta.get("txop_limit", q).unwrap(), Value::Float(0.0));
        assert_eq!(sta.get("queue_len", q).unwrap(), Value::Int(0));
    }
    // stats count what happened.
    sta.data_req(1, Body::Payload(&[0; 50]), Ac::Be, &one_shot(Rate::Ofdm54)).unwrap();
    con(&mut sta);
    let st = g(&mut sta, "stats");
    for k in ["tx_requests", "tx_attempts", "tx_acked"] {
        assert_eq!(map_get(&st, k), &Value::Int(1), "{k} in {st}");
    }
    for k in [
        "tx_failed",
        "tx_no_ack",
        "tx_dropped",
        "tx_retries",
        "rx_indications_lost",
        "beacons_lost",
    ] {
        assert_eq!(map_get(&st, k), &Value::Int(0), "{k} in {st}");
    }
    assert_eq!(map_get(&st, "rx_beacons"), &Value::Int(1), "{st}");
    let ap_stats = g(&mut ap, "stats");
    assert_eq!(map_get(&ap_stats, "rx_frames"), &Value::Int(1), "{ap_stats}");
}

#[test]
fn qos_queue_attributes_set_and_get() {
    let (_s, _ap, mut sta) = hand(true, 4);
    let get = |i: &mut Iface, n: &str, ac: Ac| i.get(n, Scope::Queue(ac)).unwrap();
    // The standard's defaults for 802.11a.
    let defaults = [
        (Ac::Bk, 7, 15, 1023, 0.0),
        (Ac::Be, 3, 15, 1023, 0.0),
        (Ac::Vi, 2, 7, 15, 3008.0),
        (Ac::Vo, 2, 3, 7, 1504.0),
    ];
    for (ac, aifsn, cw_min, cw_max, txop) in defaults {
        assert_eq!(get(&mut sta, "aifsn", ac), Value::Int(aifsn), "{ac:?}");
        assert_eq!(get(&mut sta, "cw_min", ac), Value::Int(cw_min), "{ac:?}");
        assert_eq!(get(&mut sta, "cw_max", ac), Value::Int(cw_max), "{ac:?}");
        assert_eq!(get(&mut sta, "txop_limit", ac), Value::Float(txop), "{ac:?}");
    }
    let vo = Scope::Queue(Ac::Vo);
    sta.set("aifsn", vo, 5i64).unwrap();
    sta.set("cw_max", vo, 63i64).unwrap();
    sta.set("cw_min", vo, 31i64).unwrap();
    sta.set("txop_limit", vo, 500.5).unwrap();
    assert_eq!(get(&mut sta, "aifsn", Ac::Vo), Value::Int(5));
    assert_eq!(get(&mut sta, "cw_min", Ac::Vo), Value::Int(31));
    assert_eq!(get(&mut sta, "cw_max", Ac::Vo), Value::Int(63));
    assert_eq!(get(&mut sta, "txop_limit", Ac::Vo), Value::Float(500.5));
    // Integers given as floats are accepted.
    sta.set("aifsn", vo, 4.0).unwrap();
    assert_eq!(get(&mut sta, "aifsn", Ac::Vo), Value::Int(4));
    // The other queues are untouched.
    assert_eq!(get(&mut sta, "aifsn", Ac::Be), Value::Int(3));
    assert_eq!(get(&mut sta, "cw_min", Ac::Vi), Value::Int(7));
    // Refused values name the attribute and change nothing.
    let bad: &[(&str, Value)] = &[
        ("aifsn", Value::Int(0)),
        ("aifsn", Value::Int(16)),
        ("aifsn", Value::Int(300)),
        ("aifsn", Value::Int(-1)),
        ("aifsn", Value::Float(2.5)),
        ("cw_min", Value::Int(10)),
        ("cw_min", Value::Int(127)), // above cw_max 63
        ("cw_min", Value::Int(-1)),
        ("cw_max", Value::Int(15)), // below cw_min 31
        ("cw_max", Value::Int(65535)),
        ("txop_limit", Value::Float(-1.0)),
        ("txop_limit", Value::Float(8161.0)),
        ("txop_limit", Value::Text("long".into())),
    ];
    for (name, v) in bad {
        let e = sta.set(name, vo, v.clone()).unwrap_err();
        assert!(
            matches!(&e, ApiError::InvalidValue { name: n, .. } if n == name),
            "{name} = {v:?}: {e:?}"
        );
        assert!(e.to_string().contains(&format!("{name:?}")), "{e}");
    }
    assert_eq!(get(&mut sta, "aifsn", Ac::Vo), Value::Int(4));
    assert_eq!(get(&mut sta, "cw_min", Ac::Vo), Value::Int(31));
    assert_eq!(get(&mut sta, "cw_max", Ac::Vo), Value::Int(63));
    assert_eq!(get(&mut sta, "txop_limit", Ac::Vo), Value::Float(500.5));
}

#[test]
fn adapter_attribute_invalid_values_name_the_attribute() {
    let (_s, _ap, mut sta) = quiet(PaperSetup::default(), opts());
    let bad: &[(&str, Value)] = &[
        ("bssid", Value::Text("02:00".into())),
        ("bssid", Value::Int(1)),
        ("tx_power", Value::Float(51.0)),
        ("tx_power", Value::Float(f64::NAN)),
        ("tx_power", Value::Bool(true)),
        ("ack_timeout", Value::Float(0.5)),
        ("ack_timeout", Value::Float(10_001.0)),
        ("retry_limit", Value::Int(0)),
        ("retry_limit", Value::Int(16)),
        ("retry_limit", Value::Float(2.5)),
        ("default_rates", Value::Text("11x1".into())),
        ("default_rates", Value::Text("54x0".into())),
        ("default_rates", Value::Rates(RateSeries::single(Rate::Cck11, 1))),
        ("rx_management", Value::Int(1)),
    ];
    let before: Vec<Value> =
        ["bssid", "tx_power", "ack_timeout", "retry_limit", "default_rates", "rx_management"]
            .iter()
            .map(|n| sta.get(n, Scope::Adapter).unwrap())
            .collect();
    for (name, v) in bad {
        let e = sta.set(name, Scope::Adapter, v.clone()).unwrap_err();
        assert!(
            matches!(&e, ApiError::InvalidValue { name: n, .. } if n == name),
            "{name} = {v:?}: {e:?}"
        );
        assert!(e.to_string().contains(&format!("{name:?}")), "{e}");
        assert_eq!(e.kind(), "InvalidValue");
    }
    let after: Vec<Value> =
        ["bssid", "tx_power", "ack_timeout", "retry_limit", "default_rates", "rx_management"]
            .iter()
            .map(|n| sta.get(n, Scope::Adapter).unwrap())
            .collect();
    assert_eq!(before, after);
}

#[test]
fn ack_timeout_set_shortens_lost_data() {
    let (_s, _ap, mut sta) =
        quiet(PaperSetup { loss_data: Loss::Probability(1.0), ..PaperSetup::default() }, opts());
    sta.data_req(1, Body::Payload(&[0; 50]), Ac::Be, &one_shot(Rate::Ofdm54)).unwrap();
    let c = con(&mut sta);
    assert_eq!((c.set_name(), c.ts.components().unwrap().ttoa), ("LD", DATA_54 + ACK_TIMEOUT));
    sta.set("ack_timeout", Scope::Adapter, 25.0).unwrap();
    assert_eq!(sta.get("ack_timeout", Scope::Adapter).unwrap(), Value::Float(25.0));
    std::thread::sleep(Duration::from_micros(500));
    sta.data_req(2, Body::Payload(&[0; 50]), Ac::Be, &one_shot(Rate::Ofdm54)).unwrap();
    let c = con(&mut sta);
    assert_eq!(
        (c.set_name(), c.ts.components().unwrap().ttoa),
        ("LD", 61_000),
        "DATA 36 + ACKTimeout 25 µs"
    );
    sta.set("ack_timeout", Scope::Adapter, 100i64).unwrap();
    std::thread::sleep(Duration::from_micros(500));
    sta.data_req(3, Body::Payload(&[0; 50]), Ac::Be, &one_shot(Rate::Ofdm54)).unwrap();
    assert_eq!(con(&mut sta).ts.components().unwrap().ttoa, 136_000);
}

#[test]
fn default_rates_and_retry_limit_apply_to_requests_without_rates() {
    let (_s, _ap, mut sta) =
        quiet(PaperSetup { loss_data: Loss::Probability(1.0), ..PaperSetup::default() }, opts());
    let no_rates = TxAttrs { dst: Some(AP_MAC), rates: None, ..TxAttrs::default() };
    // Default: 54 Mb/s, 7 tries.
    sta.data_req(1, Body::Payload(&[0; 50]), Ac::Be, &no_rates).unwrap();
    let c = con(&mut sta);
    assert_eq!((c.status, c.attempts), (Status::AckTimeout, 7));
    assert_eq!(c.rates_used(), &[(Rate::Ofdm54, 7)]);
    // retry_limit keeps the first rate.
    sta.set("retry_limit", Scope::Adapter, 3i64).unwrap();
    assert_eq!(sta.get("retry_limit", Scope::Adapter).unwrap(), Value::Int(3));
    assert_eq!(
        sta.get("default_rates", Scope::Adapter).unwrap(),
        Value::Rates(RateSeries::single(Rate::Ofdm54, 3))
    );
    sta.data_req(2, Body::Payload(&[0; 50]), Ac::Be, &no_rates).unwrap();
    let c = con(&mut sta);
    assert_eq!((c.attempts, c.rates_used()), (3, &[(Rate::Ofdm54, 3)][..]));
    sta.set("retry_limit", Scope::Adapter, 1i64).unwrap();
    sta.data_req(3, Body::Payload(&[0; 50]), Ac::Be, &no_rates).unwrap();
    let c = con(&mut sta);
    assert_eq!(c.attempts, 1);
    assert_eq!(c.ts.components().unwrap().ttoa, DATA_54 + ACK_TIMEOUT);
    // default_rates, as text or as a series.
    sta.set("default_rates", Scope::Adapter, "24x2,6x1").unwrap();
    let want = series(&[(Rate::Ofdm24, 2), (Rate::Ofdm6, 1)]);
    assert_eq!(sta.get("default_rates", Scope::Adapter).unwrap(), Value::Rates(want));
    assert_eq!(sta.get("retry_limit", Scope::Adapter).unwrap(), Value::Int(3));
    sta.data_req(4, Body::Payload(&[0; 50]), Ac::Be, &no_rates).unwrap();
    let c = con(&mut sta);
    assert_eq!((c.attempts, c.rates_used()), (3, want.entries()));
    // A request's own series wins.
    sta.data_req(5, Body::Payload(&[0; 50]), Ac::Be, &one_shot(Rate::Ofdm48)).unwrap();
    assert_eq!(con(&mut sta).rates_used(), &[(Rate::Ofdm48, 1)]);
    let s2 = series(&[(Rate::Ofdm12, 1), (Rate::Ofdm9, 1)]);
    sta.set("default_rates", Scope::Adapter, s2).unwrap();
    sta.data_req(6, Body::Payload(&[0; 50]), Ac::Be, &no_rates).unwrap();
    assert_eq!(con(&mut sta).rates_used(), s2.entries());
}

#[test]
fn default_rates_acked_uses_the_first_rate() {
    let (_s, _ap, mut sta) = quiet(PaperSetup::default(), opts());
    sta.set("default_rates", Scope::Adapter, "24x2,6x1").unwrap();
    sta.data_req(
        1,
        Body::Payload(&[0; 50]),
        Ac::Be,
        &TxAttrs { dst: Some(AP_MAC), ..TxAttrs::default() },
    )
    .unwrap();
    let c = con(&mut sta);
    assert_eq!((c.status, c.rates_used()), (Status::Acked, &[(Rate::Ofdm24, 1)][..]));
    // DATA at 24 Mb/s: 20 + 4 × ceil((16 + 688 + 6) / 96) = 52 µs; SIFS 16; ACK 44.
    assert_eq!(c.ts.components().unwrap().ttoa, 52_000 + 16_000 + 44_000);
}

#[test]
fn tx_power_changes_the_received_signal() {
    let (_s, mut ap, mut sta) = quiet(PaperSetup::default(), opts());
    let mut buf = Vec::new();
    let mut signal = |sta: &mut Iface, ap: &mut Iface, id: u64| {
        // 6 Mb/s: still received at -5 dBm from 10 m.
        sta.data_req(id, Body::Payload(&[0; 50]), Ac::Be, &one_shot(Rate::Ofdm6)).unwrap();
        assert_eq!(con(sta).status, Status::Acked);
        std::thread::sleep(Duration::from_micros(300));
        ap.data_ind(&mut buf, W).unwrap().expect("received").rx.signal_dbm
    };
    let s20 = signal(&mut sta, &mut ap, 1);
    sta.set("tx_power", Scope::Adapter, 10.0).unwrap();
    assert_eq!(sta.get("tx_power", Scope::Adapter).unwrap(), Value::Float(10.0));
    let s10 = signal(&mut sta, &mut ap, 2);
    assert!((s20 - s10 - 10.0).abs() < 1e-9, "20 dBm: {s20}, 10 dBm: {s10}");
    sta.set("tx_power", Scope::Adapter, -5i64).unwrap();
    assert_eq!(float(sta.get("tx_power", Scope::Adapter).unwrap()), -5.0);
    let s_5 = signal(&mut sta, &mut ap, 3);
    assert!((s20 - s_5 - 25.0).abs() < 1e-9, "20 dBm: {s20}, -5 dBm: {s_5}");
}

#[test]
fn position_moves_the_station_on_the_medium() {
    let (_s, mut ap, mut sta) = quiet(PaperSetup::default(), opts());
    let mut buf = Vec::new();
    let mut send = |sta: &mut Iface, ap: &mut Iface, id: u64| {
        sta.data_req(id, Body::Payload(&[0; 50]), Ac::Be, &one_shot(Rate::Ofdm6)).unwrap();
        let c = con(sta);
        std::thread::sleep(Duration::from_micros(300));
        let heard = ap.data_ind(&mut buf, Wait::NoWait).unwrap().map(|i| i.rx.signal_dbm);
        (c.status, heard)
    };
    let at = sta.get("position", Scope::Adapter).unwrap();
    let Value::Text(t) = &at else { panic!("{at:?}") };
    let start = at.to_position("position").unwrap();
    assert_eq!(sdmac_api::attribute::format_position(start), *t);
    let (s, near) = send(&mut sta, &mut ap, 1);
    assert_eq!(s, Status::Acked);
    // Twice as far: weaker, still heard at 6 Mb/s.
    let far = [start[0] * 2.0, start[1] * 2.0, start[2]];
    sta.set("position", Scope::Adapter, Value::Text(format!("{},{},{}", far[0], far[1], far[2])))
        .unwrap();
    assert_eq!(sta.get("position", Scope::Adapter).unwrap().to_position("p").unwrap(), far);
    let (s, farther) = send(&mut sta, &mut ap, 2);
    assert_eq!(s, Status::Acked);
    assert!(farther.unwrap() < near.unwrap() - 3.0, "near {near:?}, twice as far {farther:?}");
    // 100 km away: nothing heard, no ACK.
    sta.set("position", Scope::Adapter, Value::Text("100000 0 0".into())).unwrap();
    assert_eq!(send(&mut sta, &mut ap, 3), (Status::AckTimeout, None));
    // Back: the same signal as before, to the bit.
    sta.set("position", Scope::Adapter, at.clone()).unwrap();
    assert_eq!(send(&mut sta, &mut ap, 4), (Status::Acked, near));
    // Bad values name the attribute and change nothing.
    for bad in ["1 2", "a b c", "1 2 inf"] {
        let e = sta.set("position", Scope::Adapter, Value::Text(bad.into())).unwrap_err();
        assert!(matches!(&e, ApiError::InvalidValue { name, .. } if name == "position"), "{e}");
    }
    assert!(sta.set("position", Scope::Adapter, 3.0).is_err());
    assert_eq!(sta.get("position", Scope::Adapter).unwrap(), at);
}

#[test]
fn rx_management_delivers_beacons_through_data_ind() {
    let (m, ap, sta) = paper_medium(&PaperSetup::default()).unwrap();
    let mut s = EmuSession::start(m, &[(AP, ap), (STA, sta)], opts()).unwrap();
    let mut sta = s.take(STA).unwrap();
    let mut buf = Vec::new();
    // Off: beacons come through beacon_ind only.
    let b = sta.beacon_ind(W).unwrap().expect("a beacon");
    assert_eq!(sta.data_ind(&mut buf, Wait::NoWait).unwrap(), None, "no beacon through data_ind");
    sta.set("rx_management", Scope::Adapter, true).unwrap();
    assert_eq!(sta.get("rx_management", Scope::Adapter).unwrap(), Value::Bool(true));
    let ind = sta.data_ind(&mut buf, W).unwrap().expect("the next beacon through data_ind");
    assert_eq!(ind.class, FrameClass::Management);
    assert_eq!((ind.src, ind.dst), (AP_MAC, MacAddress::BROADCAST));
    assert_eq!(buf[0], 0x80, "a beacon frame");
    assert_eq!(&buf[16..22], &AP_ADDR, "BSSID");
    assert_eq!(ind.len, buf.len());
    // beacon_ind still reports it.
    let b2 = sta.beacon_ind(W).unwrap().expect("beacon_ind too");
    assert_eq!(b2.seq, b.seq + 1);
    assert_eq!(b2.t_end, ind.rx.t_end);
    // Off again.
    sta.set("rx_management", Scope::Adapter, false).unwrap();
    let b3 = sta.beacon_ind(W).unwrap().expect("a third beacon");
    assert_eq!(b3.seq, b2.seq + 1);
    assert_eq!(sta.data_ind(&mut buf, Wait::NoWait).unwrap(), None);
}

#[test]
fn bssid_set_is_written_into_payload_frames() {
    let (_s, mut ap, mut sta) = quiet(PaperSetup::default(), opts());
    let other = MacAddress([0x02, 0, 0, 0, 0, 0x42]);
    sta.set("bssid", Scope::Adapter, "02:00:00:00:00:42").unwrap();
    sta.data_req(1, Body::Payload(&[0; 20]), Ac::Be, &one_shot(Rate::Ofdm54)).unwrap();
    assert_eq!(con(&mut sta).status, Status::Acked);
    let mut buf = Vec::new();
    ap.data_ind(&mut buf, W).unwrap().unwrap();
    assert_eq!(&buf[16..22], &other.0, "address 3 is the BSSID set");
    // A payload without dst goes to the BSSID (nobody has it: no ACK).
    std::thread::sleep(Duration::from_micros(300));
    let attrs = TxAttrs {
        dst: None,
        rates: Some(RateSeries::single(Rate::Ofdm54, 1)),
        ..TxAttrs::default()
    };
    sta.data_req(2, Body::Payload(&[0; 20]), Ac::Be, &attrs).unwrap();
    assert_eq!(con(&mut sta).status, Status::AckTimeout);
    sta.set("bssid", Scope::Adapter, AP_MAC).unwrap();
    std::thread::sleep(Duration::from_micros(300));
    sta.data_req(3, Body::Payload(&[0; 20]), Ac::Be, &attrs).unwrap();
    assert_eq!(con(&mut sta).status, Status::Acked, "dst None: the BSSID, the AP again");
}

#[test]
fn bssid_get_reflects_set() {
    let (_s, _ap, mut sta) = quiet(PaperSetup::default(), opts());
    let other = MacAddress([0x02, 0, 0, 0, 0, 0x42]);
    sta.set("bssid", Scope::Adapter, other).unwrap();
    assert_eq!(sta.get("bssid", Scope::Adapter).unwrap(), Value::Mac(other));
}
