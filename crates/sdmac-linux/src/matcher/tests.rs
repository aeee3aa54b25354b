use super::*;
use proptest::prelude::*;

const T: u64 = 1_000_000;

fn key(n: u16) -> Key {
    Key { addr1: MacAddress([2, 0, 0, 0, 1, 0]), seq_ctrl: n << 4 }
}

fn req(id: u64, rates: Option<RateSeries>, no_ack: bool) -> Request {
    Request {
        id,
        ac: Ac::Be,
        no_ack,
        rates,
        len: 100,
        ts: Timestamps {
            t1: Time::from_ns(1),
            t2: Time::from_ns(2),
            t3: Time::from_ns(3),
            t4: Time::from_ns(4),
            ..Timestamps::default()
        },
        want_ts: true,
    }
}

fn echo(failed: bool, attempts: u8, rate: Rate) -> Echo {
    Echo { failed, attempts, rate: Some(rate), t_echo: 50 }
}

fn confirmed(o: EchoOutcome) -> Confirmation {
    match o {
        EchoOutcome::Confirmed(c) => c,
        other => panic!("not confirmed: {other:?}"),
    }
}

#[test]
fn acked_one_shot() {
    let mut m = Matcher::new(T);
    assert!(m
        .submit(10, key(1), req(7, Some(RateSeries::single(Rate::Ofdm54, 1)), false))
        .is_none());
    assert_eq!((m.len(), m.len_ac(Ac::Be), m.len_ac(Ac::Vo)), (1, 1, 0));
    let c = confirmed(m.on_echo(60, key(1), echo(false, 1, Rate::Ofdm54)));
    assert_eq!(
        (c.id, c.status, c.attempts, c.rates_used()),
        (7, Status::Acked, 1, &[(Rate::Ofdm54, 1)][..])
    );
    assert_eq!((c.ts.t4.as_ns(), c.ts.t7.as_ns(), c.ts.t8.as_ns()), (4, 50, 60));
    assert!(m.is_empty());
}

#[test]
fn an_echo_stamp_outside_send_to_read_is_clamped_and_counted() {
    let mut m = Matcher::new(T);
    let at = |t_echo| Echo { failed: false, attempts: 1, rate: None, t_echo };
    // Carried 2 ms before the send (the realtime offset read too large).
    m.submit(10_000_000, key(1), req(1, None, false));
    let c = confirmed(m.on_echo(10_500_000, key(1), at(8_000_000)));
    assert_eq!((c.ts.t7.as_ns(), c.ts.t8.as_ns()), (10_000_000, 10_500_000));
    // Carried after it was read.
    m.submit(20_000_000, key(2), req(2, None, false));
    let c = confirmed(m.on_echo(20_500_000, key(2), at(21_000_000)));
    assert_eq!((c.ts.t7.as_ns(), c.ts.t8.as_ns()), (20_500_000, 20_500_000));
    // Inside the span, and unknown (0): kept as they are.
    m.submit(30_000_000, key(3), req(3, None, false));
    let c = confirmed(m.on_echo(30_500_000, key(3), at(30_200_000)));
    assert_eq!(c.ts.t7.as_ns(), 30_200_000);
    m.submit(40_000_000, key(4), req(4, None, false));
    let c = confirmed(m.on_echo(40_500_000, key(4), at(0)));
    assert_eq!(c.ts.t7.as_ns(), 0);
    assert_eq!(m.counters().clamped_stamps, 2);
}

#[test]
fn the_last_echo_of_a_series_follows_its_resend() {
    let mut m = Matcher::new(T);
    let s = RateSeries::new(&[(Rate::Ofdm54, 1), (Rate::Ofdm24, 1)]).unwrap();
    m.submit(1_000, key(2), req(1, Some(s), false));
    let e = |failed, t_echo| Echo { failed, attempts: 1, rate: None, t_echo };
    assert!(matches!(m.on_echo(5_000, key(2), e(true, 4_000)), EchoOutcome::Resend { .. }));
    // Stamped before the resend made at 5 000: the final echo cannot be.
    let c = confirmed(m.on_echo(9_000, key(2), e(false, 4_500)));
    assert_eq!((c.status, c.ts.t7.as_ns()), (Status::Acked, 5_000));
    assert_eq!(m.counters().clamped_stamps, 1);
}

#[test]
fn failed_series_is_resent_at_each_entry_then_times_out() {
    let mut m = Matcher::new(T);
    let s = RateSeries::new(&[(Rate::Ofdm54, 2), (Rate::Ofdm24, 2)]).unwrap();
    m.submit(0, key(2), req(1, Some(s), false));
    assert_eq!(
        m.on_echo(5, key(2), echo(true, 2, Rate::Ofdm54)),
        EchoOutcome::Resend { id: 1, entry: 1, rate: Rate::Ofdm24, tries: 2 }
    );
    assert_eq!(m.counters().resends, 1);
    let c = confirmed(m.on_echo(9, key(2), echo(true, 2, Rate::Ofdm24)));
    assert_eq!((c.status, c.attempts), (Status::AckTimeout, 4));
    assert_eq!(c.rates_used(), &[(Rate::Ofdm54, 2), (Rate::Ofdm24, 2)]);
}

#[test]
fn no_ack_is_sent_and_echo_rate_wins() {
    let mut m = Matcher::new(T);
    m.submit(0, key(3), req(1, None, true));
    let c =
        confirmed(m.on_echo(5, key(3), Echo { failed: false, attempts: 1, rate: None, t_echo: 0 }));
    assert_eq!((c.status, c.attempts), (Status::Sent, 1));
    m.submit(0, key(4), req(2, Some(RateSeries::single(Rate::Ofdm54, 1)), false));
    let c = confirmed(m.on_echo(5, key(4), echo(false, 1, Rate::Ofdm48)));
    assert_eq!(c.rates_used(), &[(Rate::Ofdm48, 1)]);
}

#[test]
fn unreported_then_late_echo() {
    let mut m = Matcher::new(T);
    m.submit(100, key(5), req(9, None, false));
    assert_eq!(m.next_deadline(), Some(100 + T));
    let mut out = Vec::new();
    m.expire(100 + T - 1, &mut out);
    assert!(out.is_empty());
    m.expire(100 + T, &mut out);
    assert_eq!((out[0].id, out[0].status, out[0].attempts), (9, Status::NoReport, 0));
    assert_eq!(m.on_echo(100 + 2 * T, key(5), echo(false, 1, Rate::Ofdm6)), EchoOutcome::Late);
    assert_eq!(m.on_echo(100 + 2 * T, key(5), echo(false, 1, Rate::Ofdm6)), EchoOutcome::Unknown);
    assert_eq!(
        (m.counters().late_echoes, m.counters().unknown_echoes, m.counters().no_report),
        (1, 1, 1)
    );
}

#[test]
fn duplicate_id_and_close() {
    let mut m = Matcher::new(T);
    m.submit(0, key(6), req(1, None, false));
    let d = m.submit(0, key(7), req(1, None, false)).unwrap();
    assert_eq!(d.status, Status::Dropped(DropReason::DuplicateId));
    assert!(m.submit(0, key(6), req(2, None, false)).is_some(), "a key in use is refused");
    let mut out = Vec::new();
    m.close(3, &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!((out[0].id, out[0].status), (1, Status::Dropped(DropReason::Closed)));
    assert!(m.is_empty());
    assert_eq!(m.len_ac(Ac::Be), 0);
}

#[derive(Clone, Debug)]
enum Step {
    Submit { tries: Vec<u8>, no_ack: bool },
    Echo { which: usize, failed: bool, attempts: u8 },
    Tick(u64),
    Close,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        (prop::collection::vec(1u8..4, 0..5), any::<bool>())
            .prop_map(|(tries, no_ack)| Step::Submit { tries, no_ack }),
        (0usize..64, any::<bool>(), 1u8..5).prop_map(|(which, failed, attempts)| Step::Echo {
            which,
            failed,
            attempts
        }),
        (0u64..3 * T).prop_map(Step::Tick),
        Just(Step::Close),
    ]
}

proptest! {
    /// Whatever the order, loss and duplication of echoes, every request is
    /// confirmed exactly once, attempts add up, and a failure used its series.
    #[test]
    fn every_request_confirmed_exactly_once(steps in prop::collection::vec(step(), 1..200)) {
        let mut m = Matcher::new(T);
        let mut now = 0u64;
        let mut next_id = 0u64;
        let mut keys: Vec<(Key, u64, Option<RateSeries>)> = Vec::new();
        let mut out: Vec<Confirmation> = Vec::new();
        for s in steps {
            match s {
                Step::Submit { tries, no_ack } => {
                    let entries: Vec<(Rate, u8)> = tries.iter().map(|&t| (Rate::Ofdm54, t)).collect();
                    let rates = RateSeries::new(&entries);
                    let k = key((next_id % 4096) as u16);
                    prop_assert!(m.submit(now, k, req(next_id, rates, no_ack)).is_none());
                    keys.push((k, next_id, rates));
                    next_id += 1;
                }
                Step::Echo { which, failed, attempts } => {
                    if keys.is_empty() { continue; }
                    let (k, _, _) = keys[which % keys.len()];
                    if let EchoOutcome::Confirmed(c) = m.on_echo(now, k, echo(failed, attempts, Rate::Ofdm54)) {
                        out.push(c);
                    }
                }
                Step::Tick(d) => {
                    now += d;
                    m.expire(now, &mut out);
                }
                Step::Close => m.close(now, &mut out),
            }
        }
        now += 10 * T;
        m.expire(now, &mut out);
        prop_assert!(m.is_empty());
        prop_assert_eq!(out.len() as u64, next_id, "one confirmation per request");
        let mut seen = HashSet::new();
        for c in &out {
            prop_assert!(seen.insert(c.id), "confirmed twice: {:?}", c);
            let sum: u32 = c.rates_used().iter().map(|e| e.1 as u32).sum();
            prop_assert_eq!(sum, c.attempts as u32);
            if c.status == Status::AckTimeout {
                let series = keys.iter().find(|k| k.1 == c.id).unwrap().2;
                prop_assert_eq!(c.n_rates as usize, series.map_or(1, |s| s.entries().len()));
            }
        }
        prop_assert_eq!(m.counters().confirmed, next_id);
    }
}
