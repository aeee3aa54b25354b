use super::*;
use proptest::prelude::*;
use sdmac_api::{Ac, DropReason, Rate};

const W: u64 = 1_000_000;

fn key(n: u16) -> FrameKey {
    FrameKey { ra: MacAddress([2, 0, 0, 0, 1, 0]), seq_ctrl: n << 4 }
}

fn conf(id: u64, status: Status, n_rates: u8) -> Confirmation {
    Confirmation {
        id,
        status,
        ac: Ac::Be,
        attempts: n_rates,
        rates: [(Rate::Ofdm54, 1); 4],
        n_rates,
        len: 100,
        truth: None,
        ts: Timestamps {
            t1: Time::from_ns(1),
            t2: Time::from_ns(2),
            t3: Time::from_ns(3),
            t4: Time::from_ns(4),
            t7: Time::from_ns(90),
            ..Timestamps::default()
        },
    }
}

fn rec(n: u16, outcome: Outcome, cause: Cause, t_start: u64) -> Record {
    Record {
        key: key(n),
        outcome,
        cause,
        delivered: outcome != Outcome::DataLost,
        attempts: 1,
        t_start: Time::from_ns(t_start),
        t_end: Time::from_ns(t_start + 96),
    }
}

#[test]
fn record_after_confirmation_gives_truth_and_times() {
    let mut j = Joiner::new(W);
    j.confirm(10, conf(1, Status::Acked, 1), Some(key(1)));
    assert_eq!((j.held(), j.ready()), (1, 0));
    j.record(20, rec(1, Outcome::Acked, Cause::None, 40));
    let c = j.pop().expect("released");
    let t = c.truth.expect("truth");
    assert_eq!((t.outcome, t.cause, t.delivered), (Outcome::Acked, Cause::None, true));
    assert_eq!(
        (c.ts.t_start.as_ns(), c.ts.t_last_start.as_ns(), c.ts.t5.as_ns(), c.ts.t_data_end.as_ns()),
        (40, 40, 136, 0)
    );
    assert_eq!(j.counters().joined, 1);
}

#[test]
fn record_before_confirmation_is_kept() {
    let mut j = Joiner::new(W);
    j.record(5, rec(2, Outcome::DataLost, Cause::LinkErrorProb, 40));
    j.confirm(10, conf(1, Status::AckTimeout, 1), Some(key(2)));
    let c = j.pop().expect("released at once");
    assert_eq!(
        c.truth.map(|t| (t.outcome, t.cause, t.delivered)),
        Some((Outcome::DataLost, Cause::LinkErrorProb, false))
    );
}

#[test]
fn no_timestamps_asked_none_filled() {
    let mut j = Joiner::new(W);
    let mut c = conf(1, Status::Acked, 1);
    c.ts = Timestamps::default();
    j.confirm(0, c, Some(key(1)));
    j.record(1, rec(1, Outcome::Acked, Cause::None, 40));
    let c = j.pop().unwrap();
    assert!(c.truth.is_some());
    assert_eq!(c.ts, Timestamps::default());
}

#[test]
fn a_series_waits_for_a_record_per_frame_sent() {
    let mut j = Joiner::new(W);
    j.confirm(0, conf(1, Status::Acked, 2), Some(key(3)));
    j.record(1, rec(3, Outcome::DataLost, Cause::Collision, 10));
    assert_eq!(j.ready(), 0);
    j.record(2, rec(3, Outcome::Acked, Cause::None, 500));
    let c = j.pop().unwrap();
    let t = c.truth.unwrap();
    assert_eq!((t.outcome, t.collisions, t.delivered), (Outcome::Acked, 1, true));
    assert_eq!((c.ts.t_start.as_ns(), c.ts.t_last_start.as_ns(), c.ts.t5.as_ns()), (10, 500, 596));
}

#[test]
fn no_record_in_time_confirms_without_truth_and_counts() {
    let mut j = Joiner::new(W);
    j.confirm(0, conf(1, Status::Acked, 1), Some(key(1)));
    j.expire(W - 1);
    assert_eq!(j.ready(), 0);
    assert_eq!(j.next_deadline(), Some(W));
    j.expire(W);
    let c = j.pop().unwrap();
    assert_eq!((c.id, c.truth), (1, None));
    assert_eq!(j.counters().missing, 1);
    // Its record, late, is kept a while and then dropped as stray.
    j.record(W + 1, rec(1, Outcome::Acked, Cause::None, 1));
    j.expire(W + 1 + 1_000_000_000);
    assert_eq!(j.counters().stray_records, 1);
}

#[test]
fn unsent_frames_never_wait() {
    let mut j = Joiner::new(W);
    j.confirm(0, conf(1, Status::NoReport, 0), Some(key(1)));
    j.confirm(0, conf(2, Status::Dropped(DropReason::DuplicateId), 0), None);
    assert_eq!(j.pop().map(|c| c.id), Some(1));
    assert_eq!(j.pop().map(|c| c.id), Some(2));
    assert_eq!(j.counters().not_sent, 2);
}

#[test]
fn daemon_gone_releases_everything_and_nothing_waits_after() {
    let mut j = Joiner::new(W);
    j.confirm(0, conf(1, Status::Acked, 1), Some(key(1)));
    j.confirm(0, conf(2, Status::Acked, 1), Some(key(2)));
    j.unavailable();
    assert!(!j.available());
    assert_eq!((j.held(), j.ready()), (0, 2));
    j.confirm(1, conf(3, Status::Acked, 1), Some(key(3)));
    assert_eq!(j.ready(), 3);
    assert_eq!(j.counters().unavailable, 3);
}

#[test]
fn same_key_twice_lets_the_first_go() {
    let mut j = Joiner::new(W);
    j.confirm(0, conf(1, Status::Acked, 1), Some(key(1)));
    j.confirm(1, conf(2, Status::Acked, 1), Some(key(1)));
    assert_eq!(j.pop().map(|c| (c.id, c.truth.is_none())), Some((1, true)));
    j.record(2, rec(1, Outcome::Acked, Cause::None, 5));
    assert_eq!(j.pop().map(|c| (c.id, c.truth.is_some())), Some((2, true)));
}

#[test]
fn unclaimed_records_are_bounded() {
    let mut j = Joiner::new(W);
    for i in 0..(EARLY_CAPACITY + 10) {
        j.record(0, rec((i % 4096) as u16, Outcome::Acked, Cause::None, 0));
    }
    assert_eq!(j.counters().stray_records, 10);
}

#[derive(Clone, Debug)]
enum Ev {
    Confirm(usize),
    Record(usize, usize),
    Tick(u64),
    DaemonGone,
}

proptest! {
    /// Whatever order confirmations, records, time and the daemon's death come in,
    /// each confirmation comes out exactly once, and one that got truth got the
    /// outcome of its own frame's last record.
    #[test]
    fn every_confirmation_exactly_once(
        frames in prop::collection::vec((1u8..=3, 0u8..3, any::<bool>()), 1..40),
        shuffle in prop::collection::vec(any::<u32>(), 0..200),
        ticks in prop::collection::vec(0u64..3 * W, 0..10),
        gone in prop::option::of(any::<u32>()),
    ) {
        // Frame i has key i % 64 (keys repeat), needs n records; record outcome o.
        let mut evs = Vec::new();
        for (i, (n, _, _)) in frames.iter().enumerate() {
            evs.push(Ev::Confirm(i));
            for r in 0..*n as usize {
                evs.push(Ev::Record(i, r));
            }
        }
        evs.extend(ticks.iter().map(|t| Ev::Tick(*t)));
        if gone.is_some() {
            evs.push(Ev::DaemonGone);
        }
        // A random permutation, records of a frame kept in order among themselves.
        let len = evs.len();
        for (k, s) in shuffle.iter().enumerate() {
            let a = k % len;
            let b = *s as usize % len;
            evs.swap(a, b);
        }
        let mut seen_rec = vec![0usize; frames.len()];
        let mut fixed = Vec::new();
        for e in evs {
            if let Ev::Record(i, _) = e {
                let r = seen_rec[i];
                seen_rec[i] += 1;
                fixed.push(Ev::Record(i, r));
            } else {
                fixed.push(e);
            }
        }
        let outcome = |o: u8| [Outcome::Acked, Outcome::DataLost, Outcome::AckLost][o as usize];
        let mut j = Joiner::new(W);
        let mut now = 0u64;
        for e in fixed {
            match e {
                Ev::Confirm(i) => {
                    let (n, _, noreport) = frames[i];
                    let st = if noreport && n == 1 { Status::NoReport } else { Status::Acked };
                    j.confirm(now, conf(i as u64, st, n), Some(key((i % 64) as u16)));
                }
                Ev::Record(i, r) => {
                    let (n, o, _) = frames[i];
                    let out = if r + 1 == n as usize { outcome(o) } else { Outcome::DataLost };
                    let mut rc = rec((i % 64) as u16, out, Cause::None, i as u64);
                    rc.t_end = Time::from_ns(i as u64 * 1000 + r as u64);
                    j.record(now, rc);
                }
                Ev::Tick(t) => {
                    now += t;
                    j.expire(now);
                }
                Ev::DaemonGone => j.unavailable(),
            }
        }
        now += 2 * W;
        j.expire(now);
        let mut out = Vec::new();
        while let Some(c) = j.pop() {
            out.push(c);
        }
        prop_assert_eq!(j.held(), 0);
        let mut ids: Vec<u64> = out.iter().map(|c| c.id).collect();
        ids.sort_unstable();
        prop_assert_eq!(ids, (0..frames.len() as u64).collect::<Vec<_>>());
        let c = j.counters();
        prop_assert_eq!(c.joined + c.missing + c.unavailable + c.not_sent, frames.len() as u64);
        for conf in &out {
            if let Some(t) = conf.truth {
                // Truth only from records of the same key; with unique keys, its own.
                if frames.len() <= 64 {
                    let (n, o, _) = frames[conf.id as usize];
                    prop_assert_eq!(t.outcome, outcome(o));
                    prop_assert_eq!(conf.ts.t5.as_ns(), conf.id * 1000 + n as u64 - 1);
                }
            }
        }
    }
}
