//! Every primitive, attribute and error of the emu backend, through the public API.
//!
//! Times asserted are medium times (exact); wall-clock durations never are. Every
//! blocking call waits at most [`T`], so a bug cannot hang the suite.

use sdmac_api::attribute::Kind;
use sdmac_api::{
    Ac, ApiError, Body, Confirmation, DropReason, FrameClass, Interface, RateSeries, Scope, Span,
    Status, TxAttrs, Value, Wait, ATTRIBUTES, MAX_ID, MAX_PAYLOAD,
};
use sdmac_emu::setup::{paper_medium, Loss, PaperSetup, AP, AP_ADDR, STA, STA_ADDR};
use sdmac_emu::{DeviceProfile, DeviceWait, EmuIface, EmuOptions, EmuSession, Latency};
use sdmac_frame::ieee80211::{write_data_frame, DataParams};
use sdmac_frame::MacAddress;
use sdmac_medium::{
    LinkOverride, Medium, MediumConfig, Outcome, StationConfig, StationId, SECONDS,
};
use sdmac_phy::{Phy, Rate, Standard};
use std::time::{Duration, Instant};

type Iface = Interface<EmuIface>;

/// The longest any blocking call waits.
const T: Duration = Duration::from_secs(2);
const W: Wait = Wait::For(T);

const AP_MAC: MacAddress = MacAddress(AP_ADDR);
const STA_MAC: MacAddress = MacAddress(STA_ADDR);
/// A unicast address no station has: never acknowledged.
const NOBODY: MacAddress = MacAddress([0x02, 0, 0, 0, 0, 0x99]);

/// 50 B payload, non-QoS: 86 B on air. DATA at 54 Mb/s 36 µs + SIFS 16 + ACK at 6 Mb/s 44.
const TTOA_ACKED: i64 = 96_000;
const DATA_54: i64 = 36_000;
const ACK_TIMEOUT: i64 = 45_000;

fn opts() -> EmuOptions {
    EmuOptions { wait: DeviceWait::Park { spin_ns: 100_000 }, ..EmuOptions::default() }
}

/// The paper's testbed with a 10 s beacon interval, after its first beacon (at 1 ms)
/// and 300 µs of idle medium: nothing else is on air for 10 s, so channel access is
/// immediate and medium times are exact.
fn quiet(p: PaperSetup, o: EmuOptions) -> (EmuSession, Iface, Iface) {
    let (m, ap, sta) = paper_medium(&PaperSetup { beacon_interval_ns: 10 * SECONDS, ..p }).unwrap();
    let mut s = EmuSession::start(m, &[(AP, ap), (STA, sta)], o).unwrap();
    let mut sta = s.take(STA).unwrap();
    let ap = s.take(AP).unwrap();
    let b = sta.beacon_ind(W).unwrap().expect("the first beacon");
    assert_eq!(b.bssid, AP_MAC);
    std::thread::sleep(Duration::from_micros(300));
    (s, ap, sta)
}

/// A medium built by hand: an AP (no beacons) and a station 10 m away with `queue_limit`
/// packets per queue, QoS or not, whose DATA frames the AP loses with `loss`.
fn hand_medium(
    qos: bool,
    queue_limit: usize,
    loss: f64,
    seed: u64,
) -> (Medium, StationId, StationId) {
    let phy = Phy::new(Standard::Dot11a);
    let mut cfg = MediumConfig::new(phy.clone());
    cfg.seed = seed;
    let mut m = Medium::new(cfg);
    let ap = m.add_station(StationConfig::new(&phy, AP_ADDR, [0.0, 0.0, 0.0]));
    let mut sc = StationConfig::new(&phy, STA_ADDR, [10.0, 0.0, 0.0]);
    if qos {
        sc = sc.with_qos(&phy);
    }
    sc.queue_limit = queue_limit;
    let sta = m.add_station(sc);
    if loss > 0.0 {
        m.set_link(sta, ap, LinkOverride { error_prob: Some(loss), ..LinkOverride::default() });
    }
    (m, ap, sta)
}

fn hand(qos: bool, queue_limit: usize) -> (EmuSession, Iface, Iface) {
    let (m, ap, sta) = hand_medium(qos, queue_limit, 0.0, 1);
    let mut s = EmuSession::start(m, &[(AP, ap), (STA, sta)], opts()).unwrap();
    let sta = s.take(STA).unwrap();
    let ap = s.take(AP).unwrap();
    (s, ap, sta)
}

fn con(i: &mut Iface) -> Confirmation {
    i.data_con(W).unwrap().expect("a confirmation within 2 s")
}

fn one_shot(rate: Rate) -> TxAttrs {
    TxAttrs::one_shot(AP_MAC, rate)
}

fn series(e: &[(Rate, u8)]) -> RateSeries {
    RateSeries::new(e).unwrap()
}

/// A packet that stays in the adapter for tens of ms: 2304 B at 6 Mb/s (3.1 ms each
/// attempt), 15 tries, to an address nobody acknowledges.
fn long_attrs() -> TxAttrs {
    TxAttrs {
        dst: Some(NOBODY),
        rates: Some(RateSeries::single(Rate::Ofdm6, 15)),
        no_ack: false,
        timestamps: true,
    }
}
const LONG: &[u8] = &[0x11; MAX_PAYLOAD];

/// Makes the queue of `ac` back off for ~150 ms on average between attempts (AIFSN
/// 15, CW 32767), so a long packet stays for seconds.
fn make_slow(i: &mut Iface, ac: Ac) {
    let q = Scope::Queue(ac);
    i.set("aifsn", q, 15i64).unwrap();
    i.set("cw_max", q, 32767i64).unwrap();
    i.set("cw_min", q, 32767i64).unwrap();
}

fn int(v: Value) -> i64 {
    match v {
        Value::Int(i) => i,
        v => panic!("expected an integer, got {v:?}"),
    }
}

fn float(v: Value) -> f64 {
    match v {
        Value::Float(f) => f,
        v => panic!("expected a float, got {v:?}"),
    }
}

fn kind_of(v: &Value) -> Kind {
    match v {
        Value::Int(_) => Kind::Int,
        Value::Float(_) => Kind::Float,
        Value::Bool(_) => Kind::Bool,
        Value::Mac(_) => Kind::Mac,
        Value::Rates(_) => Kind::Rates,
        Value::Text(_) => Kind::Text,
        Value::Map(_) => Kind::Map,
    }
}

fn map_get<'a>(v: &'a Value, key: &str) -> &'a Value {
    match v {
        Value::Map(m) => {
            &m.iter().find(|(k, _)| k == key).unwrap_or_else(|| panic!("no {key:?} in {v}")).1
        }
        v => panic!("expected a map, got {v:?}"),
    }
}

/// Waits (at most 2 s) until `queue_len(ac)` is 0.
fn wait_empty(i: &Iface, ac: Ac) {
    let t0 = Instant::now();
    while i.queue_len(ac) != 0 {
        assert!(t0.elapsed() < T, "queue {} did not drain", ac.name());
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// Asserts that no confirmation is waiting.
fn no_more_cons(i: &mut Iface) {
    assert_eq!(i.data_con(Wait::NoWait).unwrap(), None);
    assert_eq!(i.unconfirmed(), 0);
}

// ---------------------------------------------------------------------------------
// data_req / data_con
// ---------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------
// Body::Frame
// ---------------------------------------------------------------------------------

#[test]
fn raw_frames_are_sent_and_delivered_byte_identical() {
    let (_s, mut ap, mut sta) = quiet(PaperSetup::default(), opts());
    // A data frame with LLC/SNAP, addressed to the AP by its address 1 (dst None).
    let mut f = vec![0u8; 200];
    let n = write_data_frame(
        &mut f,
        &DataParams::new(AP_MAC, STA_MAC, AP_MAC, 0x0800),
        &[0xab; 50],
        false,
    )
    .unwrap();
    f.truncate(n);
    let attrs = TxAttrs {
        dst: None,
        rates: Some(RateSeries::single(Rate::Ofdm54, 1)),
        ..TxAttrs::default()
    };
    sta.data_req(1, Body::Frame(&f), Ac::Be, &attrs).unwrap();
    let c = con(&mut sta);
    assert_eq!((c.status, c.len), (Status::Acked, n as u32 + 4));
    assert_eq!(c.ts.components().unwrap().ttoa, TTOA_ACKED);
    let mut buf = vec![0xee; 7]; // replaced, not appended to
    let ind = ap.data_ind(&mut buf, W).unwrap().expect("the AP receives it");
    assert_eq!(buf, f, "delivered byte-identical");
    assert_eq!(ind.len, f.len());
    assert_eq!((ind.src, ind.dst, ind.class), (STA_MAC, AP_MAC, FrameClass::Data));
    assert_eq!(ind.payload_offset, 24 + 8);
    std::thread::sleep(Duration::from_micros(300));

    // A data frame whose body is not LLC/SNAP: the payload starts after the header.
    let mut g = f[..24].to_vec();
    g.extend_from_slice(&[0xde, 0xad, 0xbe, 0xef, 1, 2, 3]);
    sta.data_req(2, Body::Frame(&g), Ac::Be, &attrs).unwrap();
    assert_eq!(con(&mut sta).status, Status::Acked);
    let ind = ap.data_ind(&mut buf, W).unwrap().unwrap();
    assert_eq!(buf, g);
    assert_eq!(ind.payload_offset, 24);
    std::thread::sleep(Duration::from_micros(300));

    // A management (action) frame: sent and acked; delivered to the AP only as management
    // and only with rx_management on.
    let mut action = vec![0xd0, 0x00, 0, 0];
    action.extend_from_slice(&AP_ADDR);
    action.extend_from_slice(&STA_ADDR);
    action.extend_from_slice(&AP_ADDR);
    action.extend_from_slice(&[0x10, 0x00, 0x7f, 1, 2, 3]);
    sta.data_req(3, Body::Frame(&action), Ac::Be, &attrs).unwrap();
    assert_eq!(con(&mut sta).status, Status::Acked);
    std::thread::sleep(Duration::from_micros(300));
    assert_eq!(
        ap.data_ind(&mut buf, Wait::NoWait).unwrap(),
        None,
        "management frames are off by default"
    );
    ap.set("rx_management", Scope::Adapter, true).unwrap();
    sta.data_req(4, Body::Frame(&action), Ac::Be, &attrs).unwrap();
    assert_eq!(con(&mut sta).status, Status::Acked);
    let ind = ap.data_ind(&mut buf, W).unwrap().expect("delivered as management");
    assert_eq!(ind.class, FrameClass::Management);
    assert_eq!(buf, action);
    // The explicit dst overrides address 1 as receiver: nobody acknowledges.
    std::thread::sleep(Duration::from_micros(300));
    let to_nobody = TxAttrs { dst: Some(NOBODY), ..attrs };
    sta.data_req(5, Body::Frame(&f), Ac::Be, &to_nobody).unwrap();
    assert_eq!(con(&mut sta).status, Status::AckTimeout);
}

#[test]
fn malformed_control_and_oversized_raw_frames_are_refused() {
    let (_s, _ap, mut sta) = quiet(PaperSetup::default(), opts());
    let attrs = one_shot(Rate::Ofdm54);
    let malformed: [&[u8]; 4] = [
        &[],
        &[0x08],
        &[0x08, 0x00, 0, 0], // no address 1
        &[0x09, 0x00, 0, 0, 2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0, 0], // protocol version 1
    ];
    for f in malformed {
        match sta.data_req(1, Body::Frame(f), Ac::Be, &attrs) {
            Err(e @ ApiError::MalformedFrame { .. }) => {
                assert!(e.to_string().contains("malformed"), "{e}")
            }
            other => panic!("{f:?}: expected MalformedFrame, got {other:?}"),
        }
    }
    // An ACK (control) frame is generated by the MAC, never requested.
    let mut ack = vec![0xd4, 0x00, 0, 0];
    ack.extend_from_slice(&AP_ADDR);
    match sta.data_req(1, Body::Frame(&ack), Ac::Be, &attrs) {
        Err(ApiError::MalformedFrame { reason }) => assert!(reason.contains("control"), "{reason}"),
        other => panic!("expected MalformedFrame, got {other:?}"),
    }
    // Too long.
    let mut big = vec![0u8; 2401];
    big[..24].copy_from_slice(&[
        0x08, 0, 0, 0, 2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0, 0,
    ]);
    assert_eq!(
        sta.data_req(1, Body::Frame(&big), Ac::Be, &attrs),
        Err(ApiError::TooLong { len: 2401, max: 2400 })
    );
    // Nothing was queued or confirmed.
    assert_eq!(sta.queue_len(Ac::Be), 0);
    std::thread::sleep(Duration::from_millis(1));
    no_more_cons(&mut sta);
    // The interface still works, and the longest frame accepted goes.
    big.truncate(2400);
    sta.data_req(2, Body::Frame(&big), Ac::Be, &attrs).unwrap();
    let c = con(&mut sta);
    assert_eq!((c.id, c.status, c.len), (2, Status::Acked, 2404));
}

// ---------------------------------------------------------------------------------
// data_req errors
// ---------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------
// Queues: QueueFull, per-AC, ConfirmationBacklog
// ---------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------
// cancel and packet attributes
// ---------------------------------------------------------------------------------

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
    let o = EmuOptions {
        profile: DeviceProfile { req: Latency::Fixed(50_000_000), con: Latency::Fixed(0) },
        ..opts()
    };
    let (_s, _ap, mut sta) = quiet(PaperSetup::default(), o);
    sta.data_req(1, Body::Payload(&[0; 10]), Ac::Be, &one_shot(Rate::Ofdm54)).unwrap();
    assert_eq!(sta.queue_len(Ac::Be), 1);
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

// ---------------------------------------------------------------------------------
// Attributes
// ---------------------------------------------------------------------------------

/// The attributes this file sets (and checks the effect of).
const WRITABLE: &[&str] = &[
    "bssid",
    "tx_power",
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

// ---------------------------------------------------------------------------------
// Device latency profile
// ---------------------------------------------------------------------------------

#[test]
fn device_profile_adds_exactly_its_latencies() {
    let o = EmuOptions {
        profile: DeviceProfile { req: Latency::Fixed(5_000), con: Latency::Fixed(7_000) },
        ..opts()
    };
    let (_s, _ap, mut sta) = quiet(PaperSetup::default(), o);
    for id in 0..5u64 {
        sta.data_req(id, Body::Payload(&[0; 50]), Ac::Be, &one_shot(Rate::Ofdm54)).unwrap();
        let c = con(&mut sta);
        assert_eq!((c.id, c.status), (id, Status::Acked));
        assert_eq!(c.ts.t4 - c.ts.t3, Span::from_ns(5_000));
        assert_eq!(c.ts.t7 - c.ts.t5, Span::from_ns(7_000));
        assert!(c.ts.t8 >= c.ts.t7);
        let k = c.ts.components().unwrap();
        assert_eq!(k.thw, 12_000, "Thw = 5 + 7 µs exactly");
        assert_eq!(k.ttoa, TTOA_ACKED);
        assert_eq!(k.tca, 0);
        assert_eq!(k.tsw_req + k.thw + k.tca + k.ttoa + k.tsw_con, k.tpath);
        std::thread::sleep(Duration::from_micros(300));
    }
}

// ---------------------------------------------------------------------------------
// close
// ---------------------------------------------------------------------------------

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
    let o = EmuOptions {
        profile: DeviceProfile { req: Latency::Fixed(50_000_000), con: Latency::Fixed(0) },
        ..opts()
    };
    let (_s, _ap, mut sta) = quiet(PaperSetup::default(), o);
    sta.data_req(1, Body::Payload(&[0; 10]), Ac::Be, &one_shot(Rate::Ofdm54)).unwrap();
    assert_eq!(sta.queue_len(Ac::Be), 1);
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
    let o = EmuOptions {
        profile: DeviceProfile { req: Latency::Fixed(50_000_000), con: Latency::Fixed(0) },
        ..opts()
    };
    let (m, ap, st) = hand_medium(false, 4, 0.0, 1);
    let mut s = EmuSession::start(m, &[(AP, ap), (STA, st)], o).unwrap();
    let mut sta = s.take(STA).unwrap();
    sta.data_req(1, Body::Payload(&[0; 10]), Ac::Vi, &one_shot(Rate::Ofdm54)).unwrap();
    assert!(sta.cancel(1).unwrap());
    let c = con(&mut sta);
    assert_eq!(c.status, Status::Dropped(DropReason::Cancelled));
    assert_eq!(c.ac, Ac::Be, "cancelled while held");
}
