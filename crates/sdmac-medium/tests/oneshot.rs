//! The SDMAC paper's one-shot transmission, timed to the microsecond: 802.11a, basic
//! rate set {6 Mb/s}, an AP and a station 10 m apart; the station sends one 86-byte MPDU
//! (50 B payload, non-QoS) at 54 Mb/s with a single attempt on a medium idle for long.
//! DATA 36 µs, SIFS 16, ACK at 6 Mb/s 44 µs: 96 µs on air when acked; DATA 36 +
//! ACKTimeout 45 = 81 µs when the sender does not see the ACK's preamble.
//!
//! Also: per-link preamble misses vs. corrupted bodies, per-station ACKTimeout, EDCA
//! changed at run time, queued requests changed by handle, per-station counters.

use sdmac_medium::*;
use sdmac_phy::{ErrorModel, Phy, Rate, RateSet, Standard};

const US: Time = MICROS;
const AP: StationId = 0;
const STA: StationId = 1;
/// The medium has been idle since 0: far longer than DIFS + CWmin slots.
const T0: Time = 20 * MILLIS;

fn phy() -> Phy {
    let mut phy = Phy::new(Standard::Dot11a);
    phy.basic_rates = RateSet::from_rates(&[Rate::Ofdm6]);
    phy
}

/// AP at the origin, station 10 m away; no SNR errors, the standard's DCF defaults
/// (CWmin 15), no beacons.
fn paper_medium() -> Medium {
    let phy = phy();
    let mut cfg = MediumConfig::new(phy.clone());
    cfg.error_model = ErrorModel::NoErrors;
    let mut m = Medium::new(cfg);
    assert_eq!(m.add_station(StationConfig::new(&phy, [2, 0, 0, 0, 0, 1], [0.0; 3])), AP);
    assert_eq!(m.add_station(StationConfig::new(&phy, [2, 0, 0, 0, 0, 2], [10.0, 0.0, 0.0])), STA);
    m
}

/// 24 B header + 8 B LLC/SNAP + 50 B payload + 4 B FCS, at 54 Mb/s, one attempt.
fn one_shot(handle: u64) -> TxRequest {
    TxRequest {
        handle,
        dst: Dest::Station(AP),
        len: 86,
        ac: Ac::Be,
        rates: Some(RateSeries::single(Rate::Ofdm54, 1)),
        no_ack: false,
    }
}

/// Runs the medium up to `at`, hands the station a one-shot there, and runs event by
/// event until it is reported (so that `now()` is then its `t_done`).
fn shot(m: &mut Medium, c: &mut Collect, at: Time, handle: u64) -> TxReport {
    m.advance(at, c);
    m.enqueue(at, STA, one_shot(handle)).unwrap();
    loop {
        if let Some(r) = c.tx.iter().find(|r| r.handle == handle) {
            return *r;
        }
        let t = m.next_event_time().expect("one-shot never reported");
        assert!(t <= at + MILLIS, "one-shot not reported within 1 ms");
        m.advance(t, c);
    }
}

fn single_shot(setup: impl FnOnce(&mut Medium)) -> TxReport {
    let mut m = paper_medium();
    setup(&mut m);
    let mut c = Collect::default();
    let r = shot(&mut m, &mut c, T0, 1);
    // Immediate access: the medium has been idle for longer than DIFS and no backoff is
    // pending, so the frame goes on air the moment it is queued.
    assert_eq!((r.t_queued.as_ns(), r.t_first_start.as_ns(), r.attempts), (T0, T0, 1));
    assert_eq!(r.t_data_end.as_ns() - r.t_first_start.as_ns(), 36 * US);
    r
}

fn link(error_prob: Option<f64>, preamble_error_prob: Option<f64>) -> LinkOverride {
    LinkOverride { error_prob, preamble_error_prob, ..Default::default() }
}

#[test]
fn acked_one_shot_starts_at_once_and_lasts_96_us() {
    let mut m = paper_medium();
    let mut c = Collect { record_air: true, ..Default::default() };
    let r = shot(&mut m, &mut c, T0, 1);
    assert_eq!(
        (r.outcome, r.cause, r.delivered, r.attempts),
        (Outcome::Acked, Cause::None, true, 1)
    );
    assert_eq!((r.t_queued.as_ns(), r.t_first_start.as_ns()), (T0, T0));
    assert_eq!(r.t_done.as_ns() - r.t_first_start.as_ns(), 96 * US);
    assert_eq!(&r.rates[..r.n_rates as usize], &[(Rate::Ofdm54, 1)]);
    // DATA 36 µs; the ACK from the AP SIFS later at 6 Mb/s (the only basic rate), 44 µs.
    assert_eq!(c.air.len(), 2);
    assert_eq!(
        (c.air[0].kind, c.air[0].t_start.as_ns(), c.air[0].t_end.as_ns()),
        (FrameKind::Data, T0, T0 + 36 * US)
    );
    assert_eq!((c.air[1].kind, c.air[1].station, c.air[1].rate), (FrameKind::Ack, AP, Rate::Ofdm6));
    assert_eq!((c.air[1].t_start.as_ns(), c.air[1].t_end.as_ns()), (T0 + 52 * US, T0 + 96 * US));
}

#[test]
fn data_body_corrupted_is_data_lost_at_ack_timeout() {
    let r = single_shot(|m| m.set_link(STA, AP, link(Some(1.0), None)));
    assert_eq!((r.outcome, r.cause, r.delivered), (Outcome::DataLost, Cause::LinkErrorProb, false));
    assert_eq!(r.t_done.as_ns() - r.t_first_start.as_ns(), (36 + 45) * US);
}

#[test]
fn data_preamble_missed_is_data_lost_at_ack_timeout() {
    let r = single_shot(|m| m.set_link(STA, AP, link(None, Some(1.0))));
    assert_eq!(
        (r.outcome, r.cause, r.delivered),
        (Outcome::DataLost, Cause::PreambleMissed, false)
    );
    assert_eq!(r.t_done.as_ns() - r.t_first_start.as_ns(), (36 + 45) * US);
}

#[test]
fn ack_body_corrupted_is_learnt_at_the_end_of_the_ack() {
    // The sender detects the ACK's preamble within the ACKTimeout, so it waits for the
    // whole ACK before it knows: as late as a success.
    let r = single_shot(|m| m.set_link(AP, STA, link(Some(1.0), None)));
    assert_eq!((r.outcome, r.cause, r.delivered), (Outcome::AckLost, Cause::LinkErrorProb, true));
    assert_eq!(r.t_done.as_ns() - r.t_first_start.as_ns(), 96 * US);
}

#[test]
fn ack_preamble_missed_is_learnt_at_ack_timeout() {
    let r = single_shot(|m| m.set_link(AP, STA, link(None, Some(1.0))));
    assert_eq!((r.outcome, r.cause, r.delivered), (Outcome::AckLost, Cause::PreambleMissed, true));
    assert_eq!(r.t_done.as_ns() - r.t_first_start.as_ns(), (36 + 45) * US);
}

#[test]
fn zero_probabilities_change_nothing() {
    let r = single_shot(|m| {
        m.set_link(STA, AP, link(Some(0.0), Some(0.0)));
        m.set_link(AP, STA, link(Some(-1.0), Some(0.0)));
    });
    assert_eq!((r.outcome, r.t_done.as_ns() - r.t_first_start.as_ns()), (Outcome::Acked, 96 * US));
}

#[test]
fn a_station_ack_timeout_replaces_the_phy_one() {
    let r = single_shot(|m| {
        assert_eq!(m.ack_timeout(STA), Some(45 * US));
        m.set_ack_timeout(STA, Some(25 * US));
        assert_eq!(m.ack_timeout(STA), Some(25 * US));
        assert_eq!(m.station(STA).unwrap().ack_timeout_ns, Some(25 * US));
        assert_eq!(m.ack_timeout(AP), Some(45 * US));
        m.set_link(STA, AP, link(Some(1.0), None));
    });
    assert_eq!(
        (r.outcome, r.t_done.as_ns() - r.t_first_start.as_ns()),
        (Outcome::DataLost, (36 + 25) * US)
    );
    // The ACK's preamble arrives SIFS (16 µs) after the DATA: within 25 µs, so a
    // corrupted ACK is still learnt at its end...
    let r = single_shot(|m| {
        m.set_ack_timeout(STA, Some(25 * US));
        m.set_link(AP, STA, link(Some(1.0), None));
    });
    assert_eq!(
        (r.outcome, r.t_done.as_ns() - r.t_first_start.as_ns()),
        (Outcome::AckLost, 96 * US)
    );
    // ...and a missed one at the shorter timeout.
    let r = single_shot(|m| {
        m.set_ack_timeout(STA, Some(25 * US));
        m.set_link(AP, STA, link(None, Some(1.0)));
    });
    assert_eq!(
        (r.outcome, r.t_done.as_ns() - r.t_first_start.as_ns()),
        (Outcome::AckLost, (36 + 25) * US)
    );
    // None goes back to the PHY's.
    let r = single_shot(|m| {
        m.set_ack_timeout(STA, Some(25 * US));
        m.set_ack_timeout(STA, None);
        m.set_link(STA, AP, link(Some(1.0), None));
    });
    assert_eq!(r.t_done.as_ns() - r.t_first_start.as_ns(), 81 * US);
}

#[test]
fn a_later_one_shot_starts_at_once_only_after_the_post_backoff() {
    let mut m = paper_medium();
    let mut c = Collect::default();
    let first = shot(&mut m, &mut c, T0, 1);
    assert_eq!(first.outcome, Outcome::Acked);
    // After a success the sender draws a post-backoff in [0, CWmin = 15] slots, counted
    // after DIFS from the ACK's end. 200 µs later it has surely ended (34 + 15 × 9 =
    // 169 µs): the next one-shot goes on air the moment it is queued.
    let at = first.t_done.as_ns() + 200 * US;
    let second = shot(&mut m, &mut c, at, 2);
    assert_eq!((second.outcome, second.t_first_start.as_ns()), (Outcome::Acked, at));
    assert_eq!(second.t_done.as_ns() - second.t_first_start.as_ns(), 96 * US);
    // 20 µs after a success the medium has not even been idle for DIFS and the
    // post-backoff is pending: the frame waits for DIFS plus the post-backoff's slots
    // (IEEE 802.11-2016 §10.3.4.3: a frame finding a backoff in progress transmits when
    // it ends). The wait is 34 + 9·b µs after the ACK's end, b in 0..=15.
    let at = second.t_done.as_ns() + 20 * US;
    let third = shot(&mut m, &mut c, at, 3);
    assert_eq!(third.outcome, Outcome::Acked);
    assert!(third.t_first_start.as_ns() > third.t_queued.as_ns());
    let after_difs = third.t_first_start.as_ns() - second.t_done.as_ns() - 34 * US;
    assert_eq!(after_difs % (9 * US), 0, "{after_difs}");
    assert!(after_difs / (9 * US) <= 15, "{after_difs}");
}

#[test]
fn without_backoff_a_one_shot_20_us_after_a_success_waits_exactly_difs() {
    let mut m = paper_medium();
    let dcf = m.edca(STA, Ac::Be).unwrap();
    m.set_edca(STA, Ac::Be, EdcaParams { cw_min: 0, cw_max: 0, ..dcf }).unwrap();
    let mut c = Collect::default();
    let first = shot(&mut m, &mut c, T0, 1);
    let at = first.t_done.as_ns() + 20 * US;
    let second = shot(&mut m, &mut c, at, 2);
    assert_eq!(second.t_first_start.as_ns(), first.t_done.as_ns() + 34 * US);
    assert_eq!(second.t_first_start.as_ns() - second.t_queued.as_ns(), 14 * US);
}

#[test]
fn preamble_misses_and_corrupted_acks_split_ack_losses_by_when_they_are_known() {
    // ACK link: the preamble is missed with p = 0.5 (LA known at ACKTimeout, 81 µs);
    // otherwise the body is corrupted with p = 0.2 (LA known at the ACK's end, 96 µs).
    // So LA@81 : LA@96 : A = 0.5 : 0.1 : 0.4.
    let mut m = paper_medium();
    m.set_link(AP, STA, link(Some(0.2), Some(0.5)));
    let mut c = Collect::default();
    let n = 2000u64;
    for k in 0..n {
        let at = T0 + k * MILLIS;
        m.advance(at, &mut c);
        m.enqueue(at, STA, one_shot(k)).unwrap();
    }
    m.advance(T0 + (n + 1) * MILLIS, &mut c);
    assert_eq!(c.tx.len(), n as usize);
    let (mut la81, mut la96, mut acked) = (0u64, 0u64, 0u64);
    for r in &c.tx {
        // 1 ms apart, every one-shot finds the medium idle and no backoff pending.
        assert_eq!(r.t_first_start.as_ns(), r.t_queued.as_ns());
        assert!(r.delivered);
        match (r.outcome, r.cause, (r.t_done.as_ns() - r.t_first_start.as_ns()) / US) {
            (Outcome::AckLost, Cause::PreambleMissed, 81) => la81 += 1,
            (Outcome::AckLost, Cause::LinkErrorProb, 96) => la96 += 1,
            (Outcome::Acked, Cause::None, 96) => acked += 1,
            other => panic!("unexpected {other:?}"),
        }
    }
    let within_5_sigma = |count: u64, p: f64| {
        let (mean, sd) = (n as f64 * p, (n as f64 * p * (1.0 - p)).sqrt());
        assert!((count as f64 - mean).abs() <= 5.0 * sd, "{count} vs {mean} ± 5 × {sd:.1}");
    };
    within_5_sigma(la81, 0.5);
    within_5_sigma(la96, 0.5 * 0.2);
    within_5_sigma(acked, 0.5 * 0.8);
    let s = m.station_stats(STA).unwrap();
    assert_eq!((s.tx_acked, s.tx_failed, s.tx_attempts), (acked, la81 + la96, n));
}

#[test]
fn set_edca_errors_name_the_field_and_value() {
    let mut m = paper_medium();
    let ok = m.edca(STA, Ac::Be).unwrap();
    assert_eq!(ok, EdcaParams { aifsn: 2, cw_min: 15, cw_max: 1023, txop_limit_ns: 0 });
    let cases: [(EdcaParams, EdcaError, &str); 7] = [
        (EdcaParams { aifsn: 0, ..ok }, EdcaError::Aifsn(0), "aifsn 0"),
        (EdcaParams { aifsn: 16, ..ok }, EdcaError::Aifsn(16), "aifsn 16"),
        (
            EdcaParams { cw_min: 10, ..ok },
            EdcaError::CwMin(10),
            "cw_min 10 is not of the form 2^k-1",
        ),
        (EdcaParams { cw_max: 65_535, ..ok }, EdcaError::CwMax(65_535), "cw_max 65535"),
        (
            EdcaParams { cw_max: 0, ..ok },
            EdcaError::CwOrder { cw_min: 15, cw_max: 0 },
            "cw_min 15 is greater than cw_max 0",
        ),
        (
            EdcaParams { txop_limit_ns: 8_160_001, ..ok },
            EdcaError::TxopLimit(8_160_001),
            "txop_limit_ns 8160001",
        ),
        (EdcaParams { cw_min: u32::MAX, ..ok }, EdcaError::CwMin(u32::MAX), "cw_min 4294967295"),
    ];
    for (p, err, text) in cases {
        let e = m.set_edca(STA, Ac::Be, p).unwrap_err();
        assert_eq!(e, err);
        assert!(e.to_string().contains(text), "{e}");
    }
    // Refused changes leave the parameters alone.
    assert_eq!(m.edca(STA, Ac::Be), Some(ok));
    assert_eq!(m.set_edca(9, Ac::Be, ok), Err(EdcaError::UnknownStation(9)));
    // A non-QoS station has one DCF queue: it is set through BE and used for every AC.
    let e = m.set_edca(STA, Ac::Vo, ok).unwrap_err();
    assert_eq!(e, EdcaError::NotQos { station: STA, ac: Ac::Vo });
    assert!(e.to_string().contains("not a QoS station"), "{e}");
    let edge = EdcaParams { aifsn: 15, cw_min: 0, cw_max: 32_767, txop_limit_ns: 8_160_000 };
    m.set_edca(STA, Ac::Be, edge).unwrap();
    assert_eq!(m.edca(STA, Ac::Be), Some(edge));
    assert_eq!(m.edca(STA, Ac::Vo), Some(edge));
    assert_eq!(m.station(STA).unwrap().edca[Ac::Be as usize], edge);
    assert_eq!(m.edca(9, Ac::Be), None);
}

#[test]
fn set_edca_on_a_qos_station_changes_only_that_ac() {
    let phy = phy();
    let mut m = Medium::new(MediumConfig::new(phy.clone()));
    let s = m.add_station(StationConfig::new(&phy, [2, 0, 0, 0, 0, 1], [0.0; 3]).with_qos(&phy));
    let vi = m.edca(s, Ac::Vi).unwrap();
    let p = EdcaParams { aifsn: 1, cw_min: 1, cw_max: 3, txop_limit_ns: 0 };
    m.set_edca(s, Ac::Vo, p).unwrap();
    assert_eq!((m.edca(s, Ac::Vo), m.edca(s, Ac::Vi)), (Some(p), Some(vi)));
}

/// The paper's pair plus a third station 5 m from both that sends a 1536 B broadcast
/// at 54 Mb/s (248 µs) at T0: a busy period of known end.
fn with_talker() -> (Medium, StationId) {
    let phy = phy();
    let mut m = paper_medium();
    let talker = m.add_station(StationConfig::new(&phy, [2, 0, 0, 0, 0, 3], [5.0, 5.0, 0.0]));
    (m, talker)
}

fn broadcast(handle: u64) -> TxRequest {
    TxRequest {
        handle,
        dst: Dest::Broadcast,
        len: 1536,
        ac: Ac::Be,
        rates: Some(RateSeries::single(Rate::Ofdm54, 1)),
        no_ack: true,
    }
}

/// The talker broadcasts at `at`; the station queues a one-shot 100 µs later, during
/// the broadcast. Returns the one-shot's report and the broadcast's end.
fn shot_after_busy(
    m: &mut Medium,
    c: &mut Collect,
    talker: StationId,
    at: Time,
    handle: u64,
) -> (TxReport, Time) {
    m.advance(at, c);
    m.enqueue(at, talker, broadcast(handle + 1_000)).unwrap();
    let r = shot(m, c, at + 100 * US, handle);
    let b = c.tx.iter().find(|r| r.handle == handle + 1_000).unwrap();
    assert_eq!(
        (b.t_first_start.as_ns(), b.t_done.as_ns() - b.t_first_start.as_ns()),
        (at, 248 * US)
    );
    (r, b.t_done.as_ns())
}

#[test]
fn without_backoff_slots_a_frame_waits_exactly_aifs_after_a_busy_period() {
    let (mut m, talker) = with_talker();
    m.set_edca(STA, Ac::Be, EdcaParams { aifsn: 2, cw_min: 0, cw_max: 0, txop_limit_ns: 0 })
        .unwrap();
    let mut c = Collect::default();
    let (r, busy_end) = shot_after_busy(&mut m, &mut c, talker, T0, 1);
    assert_eq!(r.t_first_start.as_ns(), busy_end + 34 * US); // SIFS + 2 × 9 µs, no slot
    assert_eq!(r.t_first_start.as_ns(), T0 + 282 * US);
    assert_eq!((r.outcome, r.t_done.as_ns() - r.t_first_start.as_ns()), (Outcome::Acked, 96 * US));
}

#[test]
fn set_edca_leaves_a_backoff_in_progress_alone() {
    // Reference: default DCF; the station queues during a busy period and so draws a
    // backoff in [0, 15] slots, which it counts after DIFS.
    let (mut reference, talker) = with_talker();
    let mut c = Collect::default();
    let (r_ref, busy_end) = shot_after_busy(&mut reference, &mut c, talker, T0, 1);
    let slots = (r_ref.t_first_start.as_ns() - busy_end - 34 * US) / (9 * US);
    assert_eq!(r_ref.t_first_start.as_ns(), busy_end + (34 + 9 * slots) * US);
    assert!(slots > 0, "this seed should draw a non-zero backoff");

    // Same run, but 20 µs into the DIFS after the busy period, with that backoff
    // pending, the station switches to AIFSN 5 and no backoff: the pending backoff
    // still runs to its end as drawn, after the DIFS already under way.
    let (mut m, talker) = with_talker();
    let mut c = Collect::default();
    m.advance(T0, &mut c);
    m.enqueue(T0, talker, broadcast(1_001)).unwrap();
    m.advance(T0 + 100 * US, &mut c);
    m.enqueue(T0 + 100 * US, STA, one_shot(1)).unwrap();
    m.advance(busy_end + 20 * US, &mut c);
    m.set_edca(STA, Ac::Be, EdcaParams { aifsn: 5, cw_min: 0, cw_max: 0, txop_limit_ns: 0 })
        .unwrap();
    m.advance(T0 + MILLIS, &mut c);
    let r = *c.tx.iter().find(|r| r.handle == 1).unwrap();
    assert_eq!(r.t_first_start.as_ns(), r_ref.t_first_start.as_ns());

    // The next access uses the new parameters: AIFS = 16 + 5 × 9 = 61 µs, no slots.
    let (r, busy_end) = shot_after_busy(&mut m, &mut c, talker, T0 + 2 * MILLIS, 2);
    assert_eq!(r.t_first_start.as_ns(), busy_end + 61 * US);
}

#[test]
fn queued_requests_can_be_inspected_and_their_rates_changed_before_they_start() {
    let mut m = paper_medium();
    let mut c = Collect { record_air: true, ..Default::default() };
    m.advance(T0, &mut c);
    m.enqueue(T0, STA, one_shot(1)).unwrap();
    let mut second = one_shot(2);
    second.rates = None; // the station's default: 54 Mb/s, 7 tries
    m.enqueue(T0, STA, second).unwrap();
    let info = m.queued(STA, 2).unwrap();
    assert_eq!(info.rates, RateSeries::single(Rate::Ofdm54, 7));
    assert_eq!(
        (info.ac, info.len, info.no_ack, info.t_queued.as_ns(), info.attempts, info.on_air),
        (Ac::Be, 86, false, T0, 0, false)
    );

    m.advance(T0 + 10 * US, &mut c); // handle 1 is on air since T0
    let info = m.queued(STA, 1).unwrap();
    assert_eq!(
        (info.attempts, info.on_air, info.rates),
        (1, true, RateSeries::single(Rate::Ofdm54, 1))
    );
    let e = m.set_queued_rates(STA, 1, RateSeries::single(Rate::Ofdm6, 1)).unwrap_err();
    assert_eq!(e, QueuedError::AlreadyStarted { station: STA, handle: 1 });
    assert!(e.to_string().contains("request 1 "), "{e}");

    let at24 = RateSeries::single(Rate::Ofdm24, 2);
    m.set_queued_rates(STA, 2, at24).unwrap();
    assert_eq!(m.queued(STA, 2).unwrap().rates, at24);
    let e = m.set_queued_rates(STA, 77, at24).unwrap_err();
    assert_eq!(e, QueuedError::NotQueued { station: STA, handle: 77 });
    assert!(e.to_string().contains("handle 77"), "{e}");
    let e = m.set_queued_rates(STA, 2, RateSeries::single(Rate::Cck11, 1)).unwrap_err();
    assert_eq!(e, QueuedError::UnsupportedRate { handle: 2, rate: Rate::Cck11 });
    assert!(e.to_string().contains("request 2"), "{e}");

    m.advance(T0 + MILLIS, &mut c);
    assert_eq!(m.queued(STA, 1), None);
    assert_eq!(m.queued(STA, 2), None);
    assert_eq!(m.queued(9, 2), None);
    let r2 = c.tx.iter().find(|r| r.handle == 2).unwrap();
    assert_eq!(
        (r2.outcome, &r2.rates[..r2.n_rates as usize]),
        (Outcome::Acked, &[(Rate::Ofdm24, 1)][..])
    );
    // 86 B at 24 Mb/s: 52 µs; its ACK at 6 Mb/s.
    assert_eq!(r2.t_data_end.as_ns() - r2.t_first_start.as_ns(), 52 * US);
    let data2 = c.air.iter().find(|a| a.kind == FrameKind::Data && a.handle == 2).unwrap();
    assert_eq!(data2.rate, Rate::Ofdm24);
    assert_eq!(
        m.set_queued_rates(STA, 2, at24),
        Err(QueuedError::NotQueued { station: STA, handle: 2 })
    );
}

#[test]
fn a_frame_waiting_for_a_retry_counts_as_started() {
    let mut m = paper_medium();
    m.set_link(STA, AP, link(Some(1.0), None));
    let mut c = Collect::default();
    m.advance(T0, &mut c);
    let mut r = one_shot(1);
    r.rates = Some(RateSeries::single(Rate::Ofdm54, 3));
    m.enqueue(T0, STA, r).unwrap();
    m.advance(T0 + 90 * US, &mut c); // first attempt failed at T0 + 81 µs
    let info = m.queued(STA, 1).unwrap();
    assert_eq!((info.attempts, info.on_air), (1, false));
    assert_eq!(
        m.set_queued_rates(STA, 1, RateSeries::single(Rate::Ofdm6, 1)),
        Err(QueuedError::AlreadyStarted { station: STA, handle: 1 })
    );
}

#[test]
fn default_rates_apply_to_requests_queued_afterwards() {
    let mut m = paper_medium();
    assert_eq!(m.default_rates(STA), Some(RateSeries::single(Rate::Ofdm54, 7)));
    let mut c = Collect::default();
    m.advance(T0, &mut c);
    let mut old = one_shot(1);
    old.rates = None;
    m.enqueue(T0, STA, old).unwrap();
    let series = RateSeries::new(&[(Rate::Ofdm36, 1), (Rate::Ofdm12, 2)]).unwrap();
    m.set_default_rates(STA, series).unwrap();
    assert_eq!(m.default_rates(STA), Some(series));
    assert_eq!(m.station(STA).unwrap().default_rates, series);
    let mut new = one_shot(2);
    new.rates = None;
    m.enqueue(T0, STA, new).unwrap();
    assert_eq!(m.queued(STA, 1).unwrap().rates, RateSeries::single(Rate::Ofdm54, 7));
    assert_eq!(m.queued(STA, 2).unwrap().rates, series);
    assert_eq!(
        m.set_default_rates(STA, RateSeries::single(Rate::Dsss1, 1)),
        Err(EnqueueError::UnsupportedRate(Rate::Dsss1))
    );
    assert_eq!(m.set_default_rates(9, series), Err(EnqueueError::UnknownStation(9)));
    m.advance(T0 + MILLIS, &mut c);
    let rate_of = |h: u64| c.tx.iter().find(|r| r.handle == h).unwrap().rates[0].0;
    assert_eq!((rate_of(1), rate_of(2)), (Rate::Ofdm54, Rate::Ofdm36));
}

#[test]
fn station_stats_match_the_reports() {
    let phy = phy();
    let mut cfg = MediumConfig::new(phy.clone());
    cfg.error_model = ErrorModel::NoErrors;
    let mut m = Medium::new(cfg);
    let mut ap = StationConfig::new(&phy, [2, 0, 0, 0, 0, 1], [0.0; 3]);
    ap.beacon = Some(BeaconConfig::default());
    m.add_station(ap);
    m.add_station(StationConfig::new(&phy, [2, 0, 0, 0, 0, 2], [10.0, 0.0, 0.0]));
    // A third station whose CBR flow overflows its one-frame queue.
    let mut small = StationConfig::new(&phy, [2, 0, 0, 0, 0, 3], [0.0, 10.0, 0.0]);
    small.queue_limit = 1;
    small.flows.push(Flow {
        pattern: TrafficPattern::ConstantBitRate { interval_ns: 500 * US },
        dst: Dest::Station(AP),
        payload: 1500,
        mpdu_len: 1536,
        ac: Ac::Be,
        rates: Some(RateSeries::single(Rate::Ofdm6, 2)),
        start_ns: 0,
        stop_ns: 300 * MILLIS,
    });
    let small = m.add_station(small);
    // Lost DATA frames, lost ACKs (so duplicates at the AP), preamble misses both ways.
    m.set_link(STA, AP, link(Some(0.2), Some(0.1)));
    m.set_link(AP, STA, link(Some(0.2), Some(0.1)));
    let mut c = Collect::default();
    let mut cancelled = Vec::new();
    for k in 0..200u64 {
        let at = T0 + k * MILLIS;
        m.advance(at, &mut c);
        let mut r = one_shot(k);
        r.rates = Some(RateSeries::single(Rate::Ofdm54, 1 + (k % 4) as u8));
        if k % 10 == 3 {
            r.dst = Dest::Broadcast;
        }
        m.enqueue(at, STA, r).unwrap();
        if k % 25 == 7 {
            // Queue one more and take it back before it starts.
            m.enqueue(at, STA, one_shot(10_000 + k)).unwrap();
            cancelled.push(m.cancel(STA, 10_000 + k).unwrap());
        }
    }
    m.advance(500 * MILLIS, &mut c);
    for s in [AP, STA, small] {
        let st = m.station_stats(s).unwrap();
        let reports: Vec<&TxReport> =
            c.tx.iter().chain(&cancelled).filter(|r| r.station == s).collect();
        let count = |o: Outcome| reports.iter().filter(|r| r.outcome == o).count() as u64;
        assert_eq!(st.tx_acked, count(Outcome::Acked), "station {s}");
        assert_eq!(st.tx_failed, count(Outcome::DataLost) + count(Outcome::AckLost), "station {s}");
        assert_eq!(st.tx_no_ack, count(Outcome::NoAck), "station {s}");
        assert_eq!(st.tx_dropped, count(Outcome::Dropped), "station {s}");
        assert_eq!(
            st.tx_requests,
            reports.len() as u64 + m.queue_len(s, Ac::Be) as u64,
            "station {s}"
        );
        let attempts: u64 = reports.iter().map(|r| r.attempts as u64).sum();
        let retries: u64 = reports.iter().map(|r| (r.attempts as u64).saturating_sub(1)).sum();
        assert_eq!((st.tx_attempts, st.tx_retries), (attempts, retries), "station {s}");
        let rx: Vec<&RxIndication> = c.rx.iter().filter(|r| r.station == s).collect();
        let data = rx.iter().filter(|r| r.kind == FrameKind::Data).count() as u64;
        let beacons = rx.iter().filter(|r| r.kind == FrameKind::Beacon).count() as u64;
        let dups = rx.iter().filter(|r| r.duplicate).count() as u64;
        assert_eq!(
            (st.rx_frames, st.rx_beacons, st.rx_duplicates),
            (data, beacons, dups),
            "station {s}"
        );
    }
    // The run exercised every counter.
    let (ap, sta, small) = (
        m.station_stats(AP).unwrap(),
        m.station_stats(STA).unwrap(),
        m.station_stats(small).unwrap(),
    );
    assert!(
        sta.tx_acked > 0
            && sta.tx_failed > 0
            && sta.tx_no_ack > 0
            && sta.tx_dropped == cancelled.len() as u64
    );
    assert!(sta.tx_retries > 0 && ap.rx_duplicates > 0 && sta.rx_beacons > 0 && ap.rx_frames > 0);
    assert!(small.tx_dropped > 0 && small.tx_acked > 0);
    assert_eq!(ap.tx_requests, 0); // beacons are not requests
    assert_eq!(m.station_stats(9), None);
}

#[test]
fn slower_rates_set_during_a_txop_end_the_txop_instead_of_overrunning_it() {
    // A QoS station, VO without backoff (TXOP limit 1504 µs), three 1536 B frames at
    // 54 Mb/s: each exchange is DATA 248 + SIFS 16 + ACK (6 Mb/s) 44 = 308 µs.
    let phy = phy();
    let mut cfg = MediumConfig::new(phy.clone());
    cfg.error_model = ErrorModel::NoErrors;
    let mut m = Medium::new(cfg);
    m.add_station(StationConfig::new(&phy, [2, 0, 0, 0, 0, 1], [0.0; 3]));
    let sta = m
        .add_station(StationConfig::new(&phy, [2, 0, 0, 0, 0, 2], [10.0, 0.0, 0.0]).with_qos(&phy));
    let vo = m.edca(sta, Ac::Vo).unwrap();
    assert_eq!(vo.txop_limit_ns, 1504 * US);
    m.set_edca(sta, Ac::Vo, EdcaParams { cw_min: 0, cw_max: 0, ..vo }).unwrap();
    let mut c = Collect::default();
    m.advance(T0, &mut c);
    for h in 1..=3 {
        let r = TxRequest { len: 1536, ac: Ac::Vo, ..one_shot(h) };
        m.enqueue(T0, sta, r).unwrap();
    }
    // Frame 1 is acked at T0 + 308 µs; frame 2 is due SIFS later within the TXOP. In
    // that gap the caller slows it to 6 Mb/s: 2072 + 16 + 44 µs no longer fit.
    m.advance(T0 + 310 * US, &mut c);
    assert_eq!(c.tx.len(), 1);
    assert_eq!(c.tx[0].t_done.as_ns(), T0 + 308 * US);
    m.set_queued_rates(sta, 2, RateSeries::single(Rate::Ofdm6, 1)).unwrap();
    m.advance(T0 + 10 * MILLIS, &mut c);
    let r2 = c.tx.iter().find(|r| r.handle == 2).unwrap();
    assert_eq!((r2.outcome, r2.rates[0]), (Outcome::Acked, (Rate::Ofdm6, 1)));
    // Not SIFS after the ACK: the TXOP ended and the queue contended again (AIFS[VO]
    // = 34 µs, no backoff slots), counted from the due time of the continuation.
    assert!(r2.t_first_start.as_ns() >= T0 + (308 + 34) * US, "{}", r2.t_first_start.as_ns());
    assert_eq!(r2.t_first_start.as_ns(), T0 + (308 + 16 + 34) * US);
}
