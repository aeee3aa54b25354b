//! sdmac's extension of the control protocol: golden bytes, round trips, and any
//! byte stream decodes to messages or a clear error, never a panic.

use proptest::prelude::*;
use sdmac_control::ext::*;
use sdmac_control::mininet::{encode_request, Decoder, Request};
use sdmac_control::stream::{Incoming, IncomingDecoder, Message, StreamError};

const A: sdmac_types::MacAddress = sdmac_types::MacAddress::new([2, 0, 0, 0, 0, 1]);
const B: sdmac_types::MacAddress = sdmac_types::MacAddress::new([2, 0, 0, 0, 0, 2]);

#[test]
fn golden_subscribe_and_set_edca() {
    let s = encode_ext_request(&ExtRequest::Subscribe { tag: 0x0102_0304, transmitters: vec![A] });
    assert_eq!(s, [0x80, 0, 11, 1, 2, 3, 4, 1, 2, 0, 0, 0, 0, 1]);
    let all = encode_ext_request(&ExtRequest::Subscribe { tag: 7, transmitters: vec![] });
    assert_eq!(all, [0x80, 0, 5, 0, 0, 0, 7, 0]);
    let e = encode_ext_request(&ExtRequest::SetEdca {
        tag: 9,
        station: B,
        ac: 3,
        params: Edca { aifsn: 2, cw_min: 3, cw_max: 7, txop_limit_us: 1504 },
    });
    assert_eq!(e, [0x84, 0, 18, 0, 0, 0, 9, 2, 0, 0, 0, 0, 2, 3, 2, 0, 3, 0, 7, 0x05, 0xe0]);
    let t = encode_ext_request(&ExtRequest::SetAckTimeout { tag: 1, station: A, ns: 45_000 });
    assert_eq!(t, [0x88, 0, 14, 0, 0, 0, 1, 2, 0, 0, 0, 0, 1, 0, 0, 0xaf, 0xc8]);
    let l = encode_ext_request(&ExtRequest::GetLink { tag: 2, from: A, to: B });
    assert_eq!(l, [0x8c, 0, 16, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2]);
}

#[test]
fn golden_replies() {
    let r = encode_ext_reply(&ExtReply {
        kind: types::LINK,
        tag: 2,
        result: ExtResult::Ok,
        body: ReplyBody::Link { snr_db: 20.0, error_prob: 0.5 },
    });
    // 20.0 = 0x4034_0000_0000_0000, 0.5 = 0x3fe0_0000_0000_0000.
    assert_eq!(
        r,
        [0x8d, 0, 21, 0, 0, 0, 2, 0, 0x40, 0x34, 0, 0, 0, 0, 0, 0, 0x3f, 0xe0, 0, 0, 0, 0, 0, 0]
    );
    let refused = encode_ext_reply(&ExtReply {
        kind: types::REFUSED,
        tag: 5,
        result: ExtResult::UnknownType,
        body: ReplyBody::Refused(0x9a),
    });
    assert_eq!(refused, [0xff, 0, 6, 0, 0, 0, 5, 8, 0x9a]);
    let ack = encode_ext_reply(&ExtReply {
        kind: types::ACK_TIMEOUT,
        tag: 1,
        result: ExtResult::UnknownStation,
        body: ReplyBody::AckTimeout(0),
    });
    assert_eq!(ack, [0x8b, 0, 9, 0, 0, 0, 1, 1, 0, 0, 0, 0]);
}

fn record() -> TruthRecord {
    TruthRecord {
        lost: 3,
        transmitter: sdmac_types::MacAddress::new([0x42, 0, 0, 0, 0, 0]),
        ta: A,
        ra: B,
        seq_ctrl: 0x1230,
        cookie: 0xdead_beef,
        ac: 1,
        no_ack: false,
        delivered: true,
        outcome: TruthOutcome::AckLost,
        cause: TruthCause::LinkErrorProb,
        n_entries: 2,
        attempts: [
            Attempts { rate_idx: 7, count: 2, kbps: 54_000 },
            Attempts { rate_idx: 4, count: 1, kbps: 24_000 },
            Attempts::default(),
            Attempts::default(),
        ],
        t_arrival_ns: 1_000,
        t_first_start_ns: 2_000,
        t_end_ns: 3_000,
        signal_dbm: -61,
    }
}

#[test]
fn golden_truth_record() {
    let b = encode_truth(&record());
    assert_eq!(b.len(), HEADER_LEN + TRUTH_BODY_LEN);
    assert_eq!(&b[..3], [0x8f, 0, 86]);
    let body = &b[3..];
    assert_eq!(&body[..4], [0, 0, 0, 3], "lost");
    assert_eq!(&body[4..10], [0x42, 0, 0, 0, 0, 0]);
    assert_eq!(&body[22..24], [0x12, 0x30], "sequence control");
    assert_eq!(&body[24..32], [0, 0, 0, 0, 0xde, 0xad, 0xbe, 0xef], "cookie");
    assert_eq!(
        &body[32..37],
        [1, 2, 2, 6, 2],
        "ac, flags (delivered), LA, link_error_prob, 2 entries"
    );
    assert_eq!(&body[37..43], [7, 2, 0, 0, 0xd2, 0xf0], "54 Mb/s x2");
    assert_eq!(&body[61..69], 1_000u64.to_be_bytes());
    assert_eq!(body[85], (-61i8) as u8);
    assert_eq!(decode_truth(body), Ok(record()));
    assert_eq!(record().total_attempts(), 3);
}

#[test]
fn mixed_client_stream_and_bad_extension_messages() {
    let mut d = Decoder::new();
    let snr = encode_request(&Request::Snr { from: A, to: B, snr_db: 9 });
    d.push(&snr);
    d.push(&encode_ext_request(&ExtRequest::Unsubscribe { tag: 4 }));
    // Unknown extension type, then a get-EDCA with a byte too many.
    d.push(&[0x9a, 0, 4, 0, 0, 0, 8]);
    d.push(&[0x86, 0, 12, 0, 0, 0, 9, 2, 0, 0, 0, 0, 1, 1, 0]);
    d.push(&encode_ext_request(&ExtRequest::Subscribe { tag: 1, transmitters: vec![A, B] }));
    assert_eq!(
        d.next_message(),
        Ok(Some(Message::Mininet(Request::Snr { from: A, to: B, snr_db: 9 }, snr)))
    );
    assert_eq!(d.next_message(), Ok(Some(Message::Ext(ExtRequest::Unsubscribe { tag: 4 }))));
    assert_eq!(
        d.next_message(),
        Ok(Some(Message::BadExt { kind: 0x9a, tag: 8, error: ExtError::UnknownType(0x9a) }))
    );
    let Ok(Some(Message::BadExt { kind: 0x86, tag: 9, error })) = d.next_message() else {
        panic!("a bad length is refused alone")
    };
    assert_eq!(
        error.to_string(),
        "control socket: extension message type 0x86 with a body of 12 bytes (not its length)"
    );
    assert_eq!(
        d.next_message(),
        Ok(Some(Message::Ext(ExtRequest::Subscribe { tag: 1, transmitters: vec![A, B] })))
    );
    assert_eq!(d.next_message(), Ok(None));
    // A body longer than allowed loses the stream.
    d.push(&[0x80, 0xff, 0xff]);
    assert_eq!(d.next_message(), Err(StreamError::TooLong { kind: 0x80, len: 65535 }));
    // Subscribing to more than 64 transmitters is a bad field.
    let mut d = Decoder::new();
    let mut body = vec![0, 0, 0, 1, 65];
    body.extend(vec![0u8; 65 * 6]);
    d.push(&[0x80, (body.len() >> 8) as u8, body.len() as u8]);
    d.push(&body);
    let Ok(Some(Message::BadExt { error, .. })) = d.next_message() else { panic!() };
    assert_eq!(error.result(), ExtResult::OutOfRange);
}

#[test]
fn the_daemons_stream_mixed() {
    let mut d = IncomingDecoder::new();
    let mininet_reply = sdmac_control::mininet::encode_reply(
        &encode_request(&Request::Add(A)),
        sdmac_control::mininet::UpdateResult::Success,
        4,
    )
    .unwrap();
    let reply = ExtReply {
        kind: types::EDCA,
        tag: 3,
        result: ExtResult::Ok,
        body: ReplyBody::Edca {
            ac: 2,
            params: Edca { aifsn: 2, cw_min: 7, cw_max: 15, txop_limit_us: 3008 },
        },
    };
    let mut all = encode_truth(&record());
    all.extend(&mininet_reply);
    all.extend(encode_ext_reply(&reply));
    for chunk in all.chunks(7) {
        d.push(chunk);
    }
    assert_eq!(d.next_message(), Ok(Some(Incoming::Truth(record()))));
    assert_eq!(d.next_message(), Ok(Some(Incoming::Mininet(mininet_reply))));
    assert_eq!(d.next_message(), Ok(Some(Incoming::Reply(reply))));
    assert_eq!(d.next_message(), Ok(None));
    d.push(&[3]);
    assert_eq!(
        d.next_message(),
        Err(StreamError::UnknownType(3)),
        "an odd type is a request, never a reply"
    );
}

fn mac() -> impl Strategy<Value = sdmac_types::MacAddress> {
    any::<[u8; 6]>().prop_map(sdmac_types::MacAddress::new)
}

fn ext_request() -> impl Strategy<Value = ExtRequest> {
    let edca = (any::<u8>(), any::<u16>(), any::<u16>(), any::<u16>()).prop_map(
        |(aifsn, cw_min, cw_max, txop_limit_us)| Edca { aifsn, cw_min, cw_max, txop_limit_us },
    );
    prop_oneof![
        (any::<u32>(), prop::collection::vec(mac(), 0..=MAX_SUBSCRIBE))
            .prop_map(|(tag, transmitters)| ExtRequest::Subscribe { tag, transmitters }),
        any::<u32>().prop_map(|tag| ExtRequest::Unsubscribe { tag }),
        (any::<u32>(), mac(), any::<u8>(), edca).prop_map(|(tag, station, ac, params)| {
            ExtRequest::SetEdca { tag, station, ac, params }
        }),
        (any::<u32>(), mac(), any::<u8>()).prop_map(|(tag, station, ac)| ExtRequest::GetEdca {
            tag,
            station,
            ac
        }),
        (any::<u32>(), mac(), any::<u32>())
            .prop_map(|(tag, station, ns)| ExtRequest::SetAckTimeout { tag, station, ns }),
        (any::<u32>(), mac()).prop_map(|(tag, station)| ExtRequest::GetAckTimeout { tag, station }),
        (any::<u32>(), mac(), mac()).prop_map(|(tag, from, to)| ExtRequest::GetLink {
            tag,
            from,
            to
        }),
    ]
}

fn truth() -> impl Strategy<Value = TruthRecord> {
    let outcome = (0u8..5).prop_map(|b| TruthOutcome::from_u8(b).unwrap());
    let cause = prop::sample::select(vec![0u8, 1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 17, 18, 19])
        .prop_map(|b| TruthCause::from_u8(b).unwrap());
    let att = (any::<i8>(), any::<u8>(), any::<u32>())
        .prop_map(|(rate_idx, count, kbps)| Attempts { rate_idx, count, kbps });
    (
        (
            any::<u32>(),
            mac(),
            mac(),
            mac(),
            any::<u16>(),
            any::<u64>(),
            0u8..4,
            any::<bool>(),
            any::<bool>(),
        ),
        (
            outcome,
            cause,
            0u8..=4,
            [att.clone(), att.clone(), att.clone(), att],
            any::<u64>(),
            any::<u64>(),
            any::<u64>(),
            any::<i8>(),
        ),
    )
        .prop_map(
            |(
                (lost, transmitter, ta, ra, seq_ctrl, cookie, ac, no_ack, delivered),
                (outcome, cause, n_entries, attempts, t0, t1, t2, signal_dbm),
            )| TruthRecord {
                lost,
                transmitter,
                ta,
                ra,
                seq_ctrl,
                cookie,
                ac,
                no_ack,
                delivered,
                outcome,
                cause,
                n_entries,
                attempts,
                t_arrival_ns: t0,
                t_first_start_ns: t1,
                t_end_ns: t2,
                signal_dbm,
            },
        )
}

proptest! {
    #[test]
    fn requests_round_trip_in_any_cut(reqs in prop::collection::vec(ext_request(), 1..8), cut in 1usize..50) {
        let bytes: Vec<u8> = reqs.iter().flat_map(encode_ext_request).collect();
        let mut d = Decoder::new();
        let mut got = Vec::new();
        for c in bytes.chunks(cut) {
            d.push(c);
            while let Some(m) = d.next_message().unwrap() {
                got.push(m);
            }
        }
        let want: Vec<Message> = reqs.into_iter().map(Message::Ext).collect();
        prop_assert_eq!(got, want);
        prop_assert_eq!(d.pending(), 0);
    }

    #[test]
    fn truth_records_round_trip(r in truth()) {
        let b = encode_truth(&r);
        let mut d = IncomingDecoder::new();
        d.push(&b);
        prop_assert_eq!(d.next_message(), Ok(Some(Incoming::Truth(r))));
    }

    #[test]
    fn replies_round_trip(tag in any::<u32>(), res in 0u8..9, which in 0u8..4, x in any::<u32>(), snr in -100.0f64..100.0, p in 0.0f64..=1.0) {
        let result = ExtResult::from_u8(res).unwrap();
        let (kind, body) = match which {
            0 => (types::EDCA_SET, ReplyBody::None),
            1 => (types::ACK_TIMEOUT, ReplyBody::AckTimeout(x)),
            2 => (types::LINK, ReplyBody::Link { snr_db: snr, error_prob: p }),
            _ => (types::EDCA, ReplyBody::Edca { ac: x as u8, params: Edca { aifsn: 1, cw_min: x as u16, cw_max: (x >> 16) as u16, txop_limit_us: 0 } }),
        };
        let r = ExtReply { kind, tag, result, body };
        let mut d = IncomingDecoder::new();
        d.push(&encode_ext_reply(&r));
        prop_assert_eq!(d.next_message(), Ok(Some(Incoming::Reply(r))));
    }

    /// The reply `done` makes to any request, whatever the result, reads back.
    #[test]
    fn done_replies_read_back(req in ext_request(), res in 0u8..9) {
        let r = ExtReply::done(&req, ExtResult::from_u8(res).unwrap());
        let mut d = IncomingDecoder::new();
        d.push(&encode_ext_reply(&r));
        match d.next_message() {
            Ok(Some(Incoming::Reply(got))) => {
                prop_assert_eq!((got.kind, got.tag, got.result), (req.type_byte() + 1, req.tag(), r.result));
            }
            other => prop_assert!(false, "{:?}", other),
        }
    }

    /// Any bytes from a client: messages, a wait for more, or an error naming the
    /// offending type; never a panic.
    #[test]
    fn any_client_bytes(data in prop::collection::vec(any::<u8>(), 0..1200)) {
        let mut d = Decoder::new();
        d.push(&data);
        loop {
            match d.next_message() {
                Ok(Some(_)) => continue,
                Ok(None) => break,
                Err(e) => {
                    prop_assert!(e.to_string().starts_with("control socket: "));
                    break;
                }
            }
        }
    }

    /// Any bytes from a daemon: the same for the client's decoder.
    #[test]
    fn any_daemon_bytes(data in prop::collection::vec(any::<u8>(), 0..1200)) {
        let mut d = IncomingDecoder::new();
        d.push(&data);
        while let Ok(Some(_)) = d.next_message() {}
    }
}
