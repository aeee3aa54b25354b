//! data_req and data_con: one-shot and multi-shot, ACK or not, timestamps and truth.

use crate::common::*;

#[test]
fn acked_one_shot_timestamps_and_truth() {
    let (_s, mut ap, mut sta) = quiet(PaperSetup::default(), opts());
    let payload: Vec<u8> = (0..50).collect();
    for id in [1u64, 2, 3] {
        sta.data_req(id, Body::Payload(&payload), Ac::Be, &one_shot(Rate::Ofdm54)).unwrap();
        assert_eq!(sta.unconfirmed(), 1);
        let c = con(&mut sta);
        assert_eq!(c.id, id);
        assert_eq!(c.status, Status::Acked);
        assert_eq!(c.ac, Ac::Be);
        assert_eq!(c.attempts, 1);
        assert_eq!(c.rates_used(), &[(Rate::Ofdm54, 1)]);
        assert_eq!(c.len, 86);
        assert_eq!(c.set_name(), "A");
        let t = c.truth.expect("emu knows the truth");
        assert_eq!((t.outcome, t.delivered, t.collisions), (Outcome::Acked, true, 0));
        let ts = c.ts;
        assert!(!ts.t1.is_zero() && ts.t1 <= ts.t2 && ts.t2 <= ts.t3 && ts.t3 <= ts.t4, "{ts:?}");
        assert!(
            ts.t4 <= ts.t_start && ts.t_start == ts.t_last_start && ts.t_last_start < ts.t_data_end,
            "{ts:?}"
        );
        assert!(
            ts.t_data_end < ts.t5 && ts.t5 <= ts.t7 && ts.t7 <= ts.t8 && ts.t8 <= ts.t9,
            "{ts:?}"
        );
        assert_eq!(ts.t_data_end - ts.t_start, Span::from_ns(DATA_54 as u64));
        assert_eq!(ts.t7, ts.t5, "no device latency by default");
        let k = ts.components().unwrap();
        assert_eq!(k.ttoa, TTOA_ACKED, "DATA 36 + SIFS 16 + ACK 44 µs");
        assert_eq!(k.tca, 0, "quiet channel: immediate access");
        assert_eq!(k.thw, 0);
        assert_eq!(k.tsw_req + k.thw + k.tca + k.ttoa + k.tsw_con, k.tpath);
        assert_eq!(sta.unconfirmed(), 0);
        assert_eq!(sta.queue_len(Ac::Be), 0);
        // The AP received it.
        let mut buf = Vec::new();
        let ind = ap.data_ind(&mut buf, W).unwrap().expect("the AP receives it");
        assert_eq!(ind.class, FrameClass::Data);
        assert_eq!((ind.src, ind.dst), (STA_MAC, AP_MAC));
        assert_eq!(&buf[ind.payload_offset..], &payload[..]);
        assert!(ind.rx.t_end <= ts.t5 && ind.rx.t_end == ts.t_data_end, "{ind:?} {ts:?}");
        assert!(!ind.duplicate);
        std::thread::sleep(Duration::from_micros(300));
    }
    no_more_cons(&mut sta);
}

#[test]
fn timestamps_off_records_none() {
    let (_s, _ap, mut sta) = quiet(PaperSetup::default(), opts());
    let attrs = TxAttrs { timestamps: false, ..one_shot(Rate::Ofdm54) };
    sta.data_req(5, Body::Payload(&[1; 50]), Ac::Be, &attrs).unwrap();
    let c = con(&mut sta);
    assert_eq!((c.id, c.status), (5, Status::Acked));
    assert_eq!(c.ts, sdmac_api::Timestamps::default());
    assert_eq!(c.ts.components(), None);
}

#[test]
fn multi_shot_all_lost_uses_every_try_of_the_series() {
    let (_s, _ap, mut sta) =
        quiet(PaperSetup { loss_data: Loss::Probability(1.0), ..PaperSetup::default() }, opts());
    let r = series(&[(Rate::Ofdm54, 2), (Rate::Ofdm24, 2), (Rate::Ofdm6, 1)]);
    let attrs = TxAttrs { dst: Some(AP_MAC), rates: Some(r), ..TxAttrs::default() };
    sta.data_req(1, Body::Payload(&[0; 50]), Ac::Be, &attrs).unwrap();
    let c = con(&mut sta);
    assert_eq!(c.status, Status::AckTimeout);
    assert_eq!(c.set_name(), "LD");
    assert_eq!(c.attempts, 5);
    assert_eq!(c.rates_used(), r.entries());
    assert!(!c.truth.unwrap().delivered);
    let ts = c.ts;
    assert!(ts.t_last_start > ts.t_start);
    let phy = Phy::new(Standard::Dot11a);
    assert_eq!(
        ts.t_data_end - ts.t_last_start,
        Span::from_ns(phy.airtime_ns(86, Rate::Ofdm6)),
        "last attempt at 6 Mb/s"
    );
    assert_eq!(ts.t_data_end - ts.t_last_start, Span::from_ns(140_000));
    assert_eq!(
        ts.t5 - ts.t_data_end,
        Span::from_ns(ACK_TIMEOUT as u64),
        "outcome at the ACKTimeout"
    );
    assert_eq!(ts.components().unwrap().tca, 0);
}

#[test]
fn multi_shot_with_random_data_loss_counts_attempts_per_rate() {
    let (_s, _ap, mut sta) = quiet(
        PaperSetup { loss_data: Loss::Probability(0.6), seed: 7, ..PaperSetup::default() },
        opts(),
    );
    let r = series(&[(Rate::Ofdm54, 2), (Rate::Ofdm36, 1), (Rate::Ofdm12, 3), (Rate::Ofdm6, 1)]);
    let attrs = TxAttrs { dst: Some(AP_MAC), rates: Some(r), ..TxAttrs::default() };
    let (mut acked, mut failed, mut retried) = (0, 0, 0);
    for id in 0..40u64 {
        sta.data_req(id, Body::Payload(&[0; 50]), Ac::Be, &attrs).unwrap();
        let c = con(&mut sta);
        assert_eq!(c.id, id);
        let used = c.rates_used();
        assert!(!used.is_empty() && used.len() <= r.entries().len());
        for (k, &(rate, n)) in used.iter().enumerate() {
            assert_eq!(rate, r.entries()[k].0, "rates in series order: {used:?}");
            assert!(n >= 1 && n <= r.entries()[k].1, "{used:?}");
            if k + 1 < used.len() {
                assert_eq!(n, r.entries()[k].1, "an entry is used up before the next: {used:?}");
            }
        }
        assert_eq!(used.iter().map(|e| e.1 as u32).sum::<u32>(), c.attempts as u32);
        match c.status {
            Status::Acked => {
                acked += 1;
                assert_eq!(c.set_name(), "A");
            }
            Status::AckTimeout => {
                failed += 1;
                assert_eq!(c.attempts as u32, r.total_tries(), "a failure uses every try");
                assert_eq!(c.set_name(), "LD");
                assert_eq!(c.ts.t5 - c.ts.t_data_end, Span::from_ns(ACK_TIMEOUT as u64));
            }
            s => panic!("unexpected status {s:?}"),
        }
        if c.attempts > 1 {
            retried += 1;
        }
        if c.attempts == 1 {
            assert_eq!(c.ts.t_start, c.ts.t_last_start);
            assert_eq!(c.ts.components().unwrap().ttoa, TTOA_ACKED);
        }
    }
    assert!(acked > 0 && retried > 0, "acked {acked}, failed {failed}, retried {retried}");
}

#[test]
fn no_ack_is_sent_once_and_delivered() {
    let (_s, mut ap, mut sta) = quiet(PaperSetup::default(), opts());
    let payload: Vec<u8> = (100..150).collect();
    // Even with a multi-try series, a no-ack packet is sent once.
    let attrs = TxAttrs {
        dst: Some(AP_MAC),
        rates: Some(RateSeries::single(Rate::Ofdm54, 4)),
        no_ack: true,
        timestamps: true,
        not_before: None,
        not_after: None,
    };
    sta.data_req(3, Body::Payload(&payload), Ac::Be, &attrs).unwrap();
    let c = con(&mut sta);
    assert_eq!((c.id, c.status, c.attempts), (3, Status::Sent, 1));
    assert_eq!(c.set_name(), "NOACK");
    assert_eq!(c.truth.unwrap().outcome, Outcome::NoAck);
    assert!(c.truth.unwrap().delivered);
    let k = c.ts.components().unwrap();
    assert_eq!(k.ttoa, DATA_54, "the outcome is known at the end of DATA");
    assert_eq!(c.ts.t5, c.ts.t_data_end);
    assert_eq!(k.tca, 0);
    let mut buf = Vec::new();
    let ind = ap.data_ind(&mut buf, W).unwrap().expect("the AP receives it");
    assert_eq!(&buf[ind.payload_offset..], &payload[..], "no-ack payload delivered as sent");
    assert_eq!(ind.src, STA_MAC);
}

#[test]
fn no_ack_to_nobody_and_broadcast_are_sent() {
    let (_s, mut ap, mut sta) = quiet(PaperSetup::default(), opts());
    let attrs = TxAttrs {
        dst: Some(NOBODY),
        rates: Some(RateSeries::single(Rate::Ofdm54, 1)),
        no_ack: true,
        timestamps: true,
        not_before: None,
        not_after: None,
    };
    sta.data_req(1, Body::Payload(&[0; 50]), Ac::Be, &attrs).unwrap();
    assert_eq!(con(&mut sta).status, Status::Sent);
    std::thread::sleep(Duration::from_micros(300));
    // Broadcast never expects an ACK, whatever no_ack says.
    let attrs = TxAttrs {
        dst: Some(MacAddress::BROADCAST),
        rates: Some(RateSeries::single(Rate::Ofdm54, 3)),
        no_ack: false,
        timestamps: true,
        not_before: None,
        not_after: None,
    };
    let payload = [9u8; 20];
    sta.data_req(2, Body::Payload(&payload), Ac::Be, &attrs).unwrap();
    let c = con(&mut sta);
    assert_eq!((c.status, c.attempts), (Status::Sent, 1));
    let mut buf = Vec::new();
    let ind = ap.data_ind(&mut buf, W).unwrap().expect("broadcast heard by the AP");
    assert_eq!(ind.dst, MacAddress::BROADCAST);
    assert_eq!(&buf[ind.payload_offset..], &payload[..]);
}

#[test]
fn unicast_to_nobody_times_out_on_every_try() {
    let (_s, _ap, mut sta) = quiet(PaperSetup::default(), opts());
    let attrs = TxAttrs {
        dst: Some(NOBODY),
        rates: Some(RateSeries::single(Rate::Ofdm54, 3)),
        ..TxAttrs::default()
    };
    sta.data_req(1, Body::Payload(&[0; 50]), Ac::Be, &attrs).unwrap();
    let c = con(&mut sta);
    assert_eq!((c.status, c.attempts), (Status::AckTimeout, 3));
    assert_eq!(c.rates_used(), &[(Rate::Ofdm54, 3)]);
    assert_eq!(c.ts.t5 - c.ts.t_data_end, Span::from_ns(ACK_TIMEOUT as u64));
}
