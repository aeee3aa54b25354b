//! Property: under any interleaving of data_req, cancel, data_con and pauses, on a
//! QoS station with tiny queues and lossy DATA, every accepted request gets exactly one
//! confirmation, a refused one none, and cancel's answer matches the confirmation.

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use sdmac_api::{
    Ac, ApiError, Body, Confirmation, DropReason, Interface, RateSeries, Scope, Status, TxAttrs,
    Value, Wait,
};
use sdmac_emu::{DeviceProfile, DeviceWait, EmuIface, EmuOptions, EmuSession, Latency};
use sdmac_frame::MacAddress;
use sdmac_medium::{LinkOverride, Medium, MediumConfig, StationConfig};
use sdmac_phy::{Phy, Rate, Standard};
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

const LIMIT: usize = 3;
/// Confirmation channel of a QoS interface: 4 queues × LIMIT + 16.
const CON_CAPACITY: usize = 4 * LIMIT + 16;
const AP_ADDR: [u8; 6] = [2, 0, 0, 0, 0, 1];
const STA_ADDR: [u8; 6] = [2, 0, 0, 0, 0, 2];
/// Ids never requested (requests use ids below this).
const UNKNOWN_BASE: u64 = 1 << 40;

const RATES: [Rate; 8] = [
    Rate::Ofdm6,
    Rate::Ofdm9,
    Rate::Ofdm12,
    Rate::Ofdm18,
    Rate::Ofdm24,
    Rate::Ofdm36,
    Rate::Ofdm48,
    Rate::Ofdm54,
];

#[derive(Clone, Debug)]
enum Op {
    Req {
        ac: Ac,
        rates: Vec<(usize, u8)>,
        no_ack: bool,
        len: usize,
    },
    /// Cancel a previously used id (`pick` modulo their number), or an unknown one.
    Cancel {
        pick: usize,
        unknown: bool,
    },
    Con,
    Sleep {
        us: u64,
    },
}

/// `con_weight` 0 never reads confirmations before the drain (the backlog fills).
fn op(con_weight: u32) -> impl Strategy<Value = Op> {
    prop_oneof![
        5 => (
            prop::sample::select(Ac::ALL.to_vec()),
            prop::collection::vec((0..RATES.len(), 1..=3u8), 1..=4),
            prop::bool::weighted(0.25),
            0..400usize,
        )
            .prop_map(|(ac, rates, no_ack, len)| Op::Req { ac, rates, no_ack, len }),
        2 => (any::<usize>(), prop::bool::weighted(0.2)).prop_map(|(pick, unknown)| Op::Cancel { pick, unknown }),
        con_weight => Just(Op::Con),
        1 => (0..2_000u64).prop_map(|us| Op::Sleep { us }),
    ]
}

/// What one case saw (summed over cases, to check the interesting paths ran).
#[derive(Default, Debug)]
struct Totals {
    accepted: usize,
    queue_full: usize,
    backlog: usize,
    cancel_true: usize,
    cancel_false_known: usize,
    acked: usize,
    failed: usize,
    sent: usize,
    closed: usize,
}

struct Requested {
    ac: Ac,
    no_ack: bool,
    rates: RateSeries,
}

#[derive(Default)]
struct State {
    used: Vec<u64>,
    accepted: HashMap<u64, Requested>,
    refused: HashSet<u64>,
    confirmed: HashMap<u64, Status>,
    cancel_true: HashSet<u64>,
    /// The session was closed: queued requests are confirmed `Dropped(Closed)`.
    closed: bool,
}

impl State {
    fn take(&mut self, c: &Confirmation, totals: &mut Totals) -> Result<(), TestCaseError> {
        prop_assert!(
            !self.refused.contains(&c.id),
            "confirmation for refused request {}: {:?}",
            c.id,
            c
        );
        prop_assert!(
            !self.confirmed.contains_key(&c.id),
            "request {} confirmed twice: {:?}",
            c.id,
            c
        );
        let Some(r) = self.accepted.get(&c.id) else {
            return Err(TestCaseError::fail(format!(
                "confirmation for an id never requested: {c:?}"
            )));
        };
        prop_assert_eq!(c.ac, r.ac, "confirmed on another AC: {:?}", c);
        let counted: u32 = c.rates_used().iter().map(|e| e.1 as u32).sum();
        prop_assert_eq!(counted, c.attempts as u32, "per-rate counts do not add up: {:?}", c);
        match c.status {
            Status::Dropped(DropReason::Cancelled) => {
                prop_assert!(
                    self.cancel_true.contains(&c.id),
                    "cancelled without a cancel that returned true: {:?}",
                    c
                );
                prop_assert_eq!(c.attempts, 0);
            }
            Status::Dropped(DropReason::Closed) if self.closed => prop_assert_eq!(c.attempts, 0),
            Status::Dropped(why) => {
                return Err(TestCaseError::fail(format!("unexpected drop {why:?}: {c:?}")))
            }
            Status::NoReport => {
                return Err(TestCaseError::fail(format!("emu always reports: {c:?}")))
            }
            Status::Sent => {
                prop_assert!(r.no_ack, "Sent for an acked request: {:?}", c);
                prop_assert_eq!(c.attempts, 1);
                totals.sent += 1;
            }
            Status::Acked | Status::AckTimeout => {
                prop_assert!(!r.no_ack, "acked status for a no-ack request: {:?}", c);
                prop_assert!(
                    c.attempts >= 1 && c.attempts as u32 <= r.rates.total_tries(),
                    "{:?} for {:?}",
                    c,
                    r.rates
                );
                if c.status == Status::AckTimeout {
                    prop_assert_eq!(
                        c.attempts as u32,
                        r.rates.total_tries(),
                        "a failure uses every try: {:?}",
                        c
                    );
                    totals.failed += 1;
                } else {
                    totals.acked += 1;
                }
                // Every rate used is one of the series, in order.
                let mut k = 0;
                for &(rate, _) in c.rates_used() {
                    let pos = r.rates.entries()[k..].iter().position(|e| e.0 == rate);
                    prop_assert!(
                        pos.is_some(),
                        "rate {} not in {:?} (after entry {}): {:?}",
                        rate,
                        r.rates,
                        k,
                        c
                    );
                    k += pos.unwrap();
                }
            }
        }
        self.confirmed.insert(c.id, c.status);
        Ok(())
    }
}

fn session(loss: f64, seed: u64, profile: DeviceProfile) -> (EmuSession, Interface<EmuIface>) {
    let phy = Phy::new(Standard::Dot11a);
    let mut cfg = MediumConfig::new(phy.clone());
    cfg.seed = seed;
    let mut m = Medium::new(cfg);
    let ap = m.add_station(StationConfig::new(&phy, AP_ADDR, [0.0, 0.0, 0.0]).with_qos(&phy));
    let mut sc = StationConfig::new(&phy, STA_ADDR, [10.0, 0.0, 0.0]).with_qos(&phy);
    sc.queue_limit = LIMIT;
    let sta = m.add_station(sc);
    m.set_link(sta, ap, LinkOverride { error_prob: Some(loss), ..LinkOverride::default() });
    let opts = EmuOptions {
        wait: DeviceWait::Park { spin_ns: 50_000 },
        app_spin_ns: 50_000,
        seed,
        profile,
        ..EmuOptions::default()
    };
    let mut s = EmuSession::start(m, &[("ap", ap), ("sta", sta)], opts).unwrap();
    let sta = s.take("sta").unwrap();
    (s, sta)
}

fn run_case(
    loss: f64,
    seed: u64,
    profile: DeviceProfile,
    ops: &[Op],
    close: bool,
    totals: &mut Totals,
) -> Result<(), TestCaseError> {
    let (mut s, mut sta) = session(loss, seed, profile);
    let payload = [0x5au8; 400];
    let mut st = State::default();
    let mut next_id = 1u64;
    for op in ops {
        match op {
            Op::Req { ac, rates, no_ack, len } => {
                let entries: Vec<(Rate, u8)> = rates.iter().map(|&(r, t)| (RATES[r], t)).collect();
                let series = RateSeries::new(&entries).expect("1..=4 entries with tries");
                let attrs = TxAttrs {
                    dst: Some(MacAddress(AP_ADDR)),
                    rates: Some(series),
                    no_ack: *no_ack,
                    timestamps: true,
                    not_before: None,
                    not_after: None,
                };
                let id = next_id;
                next_id += 1;
                st.used.push(id);
                match sta.data_req(id, Body::Payload(&payload[..*len]), *ac, &attrs) {
                    Ok(()) => {
                        st.accepted
                            .insert(id, Requested { ac: *ac, no_ack: *no_ack, rates: series });
                        totals.accepted += 1;
                    }
                    Err(ApiError::QueueFull { ac: full, limit }) => {
                        prop_assert_eq!((full, limit), (*ac, LIMIT));
                        st.refused.insert(id);
                        totals.queue_full += 1;
                    }
                    Err(ApiError::ConfirmationBacklog { limit }) => {
                        prop_assert_eq!(limit, CON_CAPACITY);
                        prop_assert!(sta.unconfirmed() >= CON_CAPACITY);
                        st.refused.insert(id);
                        totals.backlog += 1;
                    }
                    Err(e) => return Err(TestCaseError::fail(format!("data_req {id}: {e}"))),
                }
            }
            Op::Cancel { pick, unknown } => {
                let id = if *unknown || st.used.is_empty() {
                    UNKNOWN_BASE + (*pick % 1000) as u64
                } else {
                    st.used[pick % st.used.len()]
                };
                let r =
                    sta.cancel(id).map_err(|e| TestCaseError::fail(format!("cancel {id}: {e}")))?;
                if r {
                    prop_assert!(
                        st.accepted.contains_key(&id),
                        "cancel({}) true for a request never accepted",
                        id
                    );
                    prop_assert!(
                        !st.confirmed.contains_key(&id),
                        "cancel({}) true after its confirmation was read",
                        id
                    );
                    prop_assert!(st.cancel_true.insert(id), "cancel({}) true twice", id);
                    totals.cancel_true += 1;
                } else if st.accepted.contains_key(&id) {
                    totals.cancel_false_known += 1;
                }
            }
            Op::Con => {
                if let Some(c) = sta
                    .data_con(Wait::NoWait)
                    .map_err(|e| TestCaseError::fail(format!("data_con: {e}")))?
                {
                    st.take(&c, totals)?;
                }
            }
            Op::Sleep { us } => std::thread::sleep(Duration::from_micros(*us)),
        }
        for ac in Ac::ALL {
            let n = sta.queue_len(ac);
            prop_assert!(n <= LIMIT, "queue {} holds {} > {}", ac.name(), n, LIMIT);
        }
        prop_assert_eq!(sta.unconfirmed(), st.accepted.len() - st.confirmed.len());
    }
    if close {
        // Close instead of draining: every request still in the device is confirmed.
        s.close();
        st.closed = true;
        loop {
            match sta.data_con(Wait::NoWait) {
                Ok(Some(c)) => {
                    if c.status == Status::Dropped(DropReason::Closed) {
                        totals.closed += 1;
                    }
                    st.take(&c, totals)?
                }
                Ok(None) => return Err(TestCaseError::fail("data_con returned None after close")),
                Err(ApiError::Closed) => break,
                Err(e) => return Err(TestCaseError::fail(format!("data_con after close: {e}"))),
            }
        }
        prop_assert_eq!(sta.unconfirmed(), 0);
        let missing: Vec<u64> =
            st.accepted.keys().filter(|id| !st.confirmed.contains_key(id)).copied().collect();
        prop_assert!(missing.is_empty(), "never confirmed after close: {:?}", missing);
        prop_assert_eq!(sta.cancel(1), Err(ApiError::Closed));
        return Ok(());
    }
    // Drain.
    let t0 = Instant::now();
    while sta.unconfirmed() > 0 {
        prop_assert!(t0.elapsed() < Duration::from_secs(20), "draining took over 20 s");
        match sta.data_con(Wait::For(Duration::from_secs(2))) {
            Ok(Some(c)) => st.take(&c, totals)?,
            Ok(None) => {
                let missing: Vec<u64> = st
                    .accepted
                    .keys()
                    .filter(|id| !st.confirmed.contains_key(id))
                    .copied()
                    .collect();
                return Err(TestCaseError::fail(format!(
                    "no confirmation within 2 s; missing {missing:?}"
                )));
            }
            Err(e) => return Err(TestCaseError::fail(format!("data_con: {e}"))),
        }
    }
    prop_assert_eq!(
        sta.data_con(Wait::NoWait).unwrap(),
        None,
        "a confirmation beyond unconfirmed()"
    );
    for ac in Ac::ALL {
        prop_assert_eq!(sta.queue_len(ac), 0);
    }
    // Nothing missing; cancel's answers match the confirmations.
    let mut missing: Vec<u64> =
        st.accepted.keys().filter(|id| !st.confirmed.contains_key(id)).copied().collect();
    missing.sort();
    prop_assert!(missing.is_empty(), "never confirmed: {:?}", missing);
    for (id, status) in &st.confirmed {
        let cancelled = *status == Status::Dropped(DropReason::Cancelled);
        prop_assert_eq!(cancelled, st.cancel_true.contains(id), "request {}: {:?}", id, status);
    }
    // The medium's counters agree: every accepted request not cancelled went to the
    // medium. (A request cancelled while the device latency held it never reached the
    // medium, so it is in neither tx_requests nor tx_dropped.)
    let stats = sta.get("stats", Scope::Adapter).unwrap();
    let Value::Map(m) = stats else { panic!("stats is a map") };
    let get = |k: &str| match m.iter().find(|(n, _)| n == k) {
        Some((_, Value::Int(v))) => *v,
        other => panic!("stats {k}: {other:?}"),
    };
    prop_assert_eq!(
        get("tx_requests") - get("tx_dropped"),
        (st.accepted.len() - st.cancel_true.len()) as i64
    );
    if profile.req.is_zero() {
        prop_assert_eq!(get("tx_requests"), st.accepted.len() as i64);
        prop_assert_eq!(get("tx_dropped"), st.cancel_true.len() as i64);
    }
    Ok(())
}

#[test]
fn every_accepted_request_is_confirmed_exactly_once() {
    // A hang (a blocked call that never returns) must fail the run with a message, not
    // hold up the whole suite: the watchdog ends the process after WATCHDOG.
    const WATCHDOG: Duration = Duration::from_secs(300);
    std::thread::spawn(|| {
        std::thread::sleep(WATCHDOG);
        eprintln!("every_accepted_request_is_confirmed_exactly_once: still running after {WATCHDOG:?}: a call hung");
        std::process::exit(101);
    });
    // Shrinking re-runs failing cases, each up to its 20 s drain: bound it in time too.
    let mut runner = TestRunner::new(Config {
        cases: 32,
        max_shrink_iters: 100,
        max_shrink_time: 60_000,
        failure_persistence: None,
        ..Config::default()
    });
    let totals = RefCell::new(Totals::default());
    // Device latencies (none, or up to 40 µs each way) hold requests and confirmations
    // in the device, where cancel and close must find them too.
    let latency = prop_oneof![
        Just(Latency::Fixed(0)),
        (0..40_000u64).prop_map(|hi| Latency::Uniform { lo: 0, hi })
    ];
    let profile = (latency.clone(), latency).prop_map(|(req, con)| DeviceProfile { req, con });
    let ops = (0..=3u32).prop_flat_map(|w| prop::collection::vec(op(w), 1..=60));
    let strategy = (0.0..0.9f64, any::<u64>(), profile, ops, prop::bool::weighted(0.25));
    let result = runner.run(&strategy, |(loss, seed, profile, ops, close)| {
        run_case(loss, seed, profile, &ops, close, &mut totals.borrow_mut())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    let t = totals.into_inner();
    eprintln!("{t:?}");
    // The interesting paths ran (over 32 cases, each is near certain).
    assert!(
        t.accepted > 0 && t.queue_full > 0 && t.cancel_true > 0 && t.acked > 0 && t.sent > 0,
        "{t:?}"
    );
}
