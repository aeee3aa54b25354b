//! The periodic TDMA station on the emu backend: N stations release a frame at the same
//! instant every round, station i's frame due by the end of its slot i. Under TDMA each
//! frame goes in its own slot, so no attempt collides and every frame sent meets its
//! deadline; the same frames handed to DCF at their release (timed requests: at one
//! instant of the medium's clock) contend, collide and miss some of those deadlines.
//! Also: impossible schedules are refused before anything is sent, and a wait on the
//! backend's clock ends at its deadline.

use sdmac_api::{
    Ac, Body, Interface, MacAddress, Rate, RateSeries, Span, Status, Time, TxAttrs, Wait,
};
use sdmac_emu::{EmuClock, EmuIface, EmuOptions, EmuSession};
use sdmac_medium::{Medium, MediumConfig, StationConfig};
use sdmac_overlay::exchange::wait_until;
use sdmac_overlay::tdma::{
    run_periodic, Guard, PeriodicConfig, PeriodicFlow, PeriodicReport, Releases, SlotTimes,
    TdmaError, TdmaParams, TdmaPlan,
};
use sdmac_phy::{Phy, Standard};
use std::time::Duration;

const RATE: Rate = Rate::Ofdm24;
const PAYLOAD: usize = 200;
const ROUNDS: u64 = 40;
/// Slack for the host in each slot, beyond the measured guard: the station polls for
/// `LEAD` before its window, and may hand its frame over up to `SLACK` after it opens.
const SLACK: Span = Span::from_us(50);
const LEAD: Span = Span::from_us(300);
/// The guard of the slots. The stations hand their frames over as timed requests, which
/// the emu device keeps exactly on the medium's clock, and every station shares that
/// clock: neither request-path jitter nor synchronisation error reaches the air, so the
/// guard is a fixed margin, and the schedule (and with it every deadline, DCF's too)
/// is the same in every run.
const GUARD: Guard = Guard { jitter: Span::from_us(20), sync_error: Span::ZERO };
/// The timed tests run one at a time: stations of two tests polling at once under
/// SCHED_FIFO would hold each other up on a two-core host.
static TIMED: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Asks for SCHED_FIFO at `prio` for the calling thread (threads it starts inherit
/// it), so that a host loaded by other work wakes the stations on time; without the
/// privilege the test runs at normal priority.
fn realtime(prio: i32) {
    let p = libc::sched_param { sched_priority: prio };
    // SAFETY: sched_setscheduler reads the parameter struct for the calling thread.
    let r = unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &p) };
    if r != 0 {
        println!(
            "SCHED_FIFO refused ({}): running at normal priority",
            std::io::Error::last_os_error()
        );
    }
}

fn normal() {
    let p = libc::sched_param { sched_priority: 0 };
    // SAFETY: as above.
    unsafe { libc::sched_setscheduler(0, libc::SCHED_OTHER, &p) };
}

fn addr(k: usize) -> [u8; 6] {
    [2, 0, 0, 0, 0, k as u8 + 1]
}

fn session(n: usize, seed: u64) -> (EmuSession, Vec<Interface<EmuIface>>, Phy) {
    session_on(n, seed, EmuClock::Wall)
}

fn session_on(n: usize, seed: u64, clock: EmuClock) -> (EmuSession, Vec<Interface<EmuIface>>, Phy) {
    let phy = Phy::new(Standard::Dot11a);
    let mut cfg = MediumConfig::new(phy.clone());
    cfg.seed = seed;
    let mut m = Medium::new(cfg);
    m.add_station(StationConfig::new(&phy, addr(0), [0.0, 0.0, 0.0]));
    for k in 1..=n {
        let a = k as f64 * std::f64::consts::TAU / n as f64;
        m.add_station(StationConfig::new(&phy, addr(k), [5.0 * a.cos(), 5.0 * a.sin(), 0.0]));
    }
    let names: Vec<String> = (0..=n).map(|k| format!("s{k}")).collect();
    let list: Vec<(&str, u32)> =
        names.iter().enumerate().map(|(k, s)| (s.as_str(), k as u32)).collect();
    // The device thread inherits SCHED_FIFO 20: above the stations, so that their
    // polling never holds the medium up.
    realtime(20);
    let mut s = EmuSession::start(m, &list, EmuOptions { clock, ..EmuOptions::default() }).unwrap();
    normal();
    let ifaces = (0..=n).map(|k| s.take_index(k).unwrap()).collect();
    (s, ifaces, phy)
}

/// `n` slots, each two measured guards + one exchange + SLACK, then a contention
/// period; round 0 starts 20 ms after `now`.
fn plan(n: usize, guard: Guard, phy: &Phy, now: Time) -> TdmaPlan {
    let ex = TdmaPlan::exchange_for(phy, PAYLOAD, RATE);
    let slot = guard.total().saturating_mul(2) + ex + SLACK;
    let contention = guard.total().saturating_mul(2) + ex.saturating_mul(3);
    TdmaPlan::new(TdmaParams {
        phy: phy.clone(),
        round: slot.saturating_mul(n as u64) + contention,
        slots: n as u32,
        slot,
        contention,
        guard,
        payload: PAYLOAD,
        rate: RATE,
        epoch: now + Span::from_ms(20),
    })
    .unwrap()
}

/// Station i (from 0) is due by the end of its slot: i + 1 slots after the release.
fn deadline(p: &TdmaPlan, i: usize) -> Span {
    p.params().slot.saturating_mul(i as u64 + 1)
}

fn tdma(n: usize, guard: Guard) -> (TdmaPlan, Vec<PeriodicReport>) {
    tdma_on(n, guard, EmuClock::Wall)
}

fn tdma_on(n: usize, guard: Guard, clock: EmuClock) -> (TdmaPlan, Vec<PeriodicReport>) {
    let (mut s, ifaces, phy) = session_on(n, 7, clock);
    let p = plan(n, guard, &phy, ifaces[0].now());
    println!("{p}");
    let end = p.round_start(ROUNDS);
    let hs: Vec<_> = ifaces
        .into_iter()
        .skip(1)
        .enumerate()
        .map(|(i, mut iface)| {
            // The window holds one exchange + SLACK: the frame may go up to SLACK late.
            let times = SlotTimes::of_plan(&p, i as u32).unwrap();
            let cfg = PeriodicConfig {
                dst: MacAddress(addr(0)),
                no_ack: false,
                rate: RATE,
                tries: 1,
                payload: vec![0x5a; PAYLOAD],
                number_at: None,
                releases: Releases::Periodic { first: p.round_start(0), period: p.params().round },
                deadline: deadline(&p, i),
                lead: LEAD,
                ac: Ac::Be,
            };
            std::thread::spawn(move || {
                if clock == EmuClock::Wall {
                    realtime(10);
                }
                run_periodic(&mut iface, &times, &cfg, end).unwrap()
            })
        })
        .collect();
    let reps = hs.into_iter().map(|h| h.join().unwrap()).collect();
    s.close();
    (p, reps)
}

/// The same frames under plain DCF: station i hands each frame over at its release
/// (a timed request, so that the stations' frames reach the medium at one instant of
/// its clock, as they are released, however the host runs the threads), up to 7 tries;
/// met when acknowledged by its deadline. Returns frames, met and retries.
fn dcf(n: usize, p: &TdmaPlan) -> (usize, usize, u64) {
    let (mut s, ifaces, _) = session(n, 7);
    let start = ifaces[0].now() + Span::from_ms(100);
    let round = p.params().round;
    let hs: Vec<_> = ifaces
        .into_iter()
        .skip(1)
        .enumerate()
        .map(|(i, mut iface)| {
            let due = deadline(p, i);
            std::thread::spawn(move || {
                let release = |k: u64| start.saturating_add(round.saturating_mul(k));
                for k in 0..ROUNDS {
                    let attrs = TxAttrs {
                        dst: Some(MacAddress(addr(0))),
                        rates: Some(RateSeries::single(RATE, 7)),
                        not_before: Some(release(k)),
                        ..TxAttrs::default()
                    };
                    iface.data_req(k + 1, Body::Payload(&[0x5a; PAYLOAD]), Ac::Be, &attrs).unwrap();
                }
                let (mut met, mut retries) = (0, 0u64);
                for _ in 0..ROUNDS {
                    let c = iface.data_con(Wait::For(Duration::from_secs(5))).unwrap().unwrap();
                    let due = release(c.id - 1).saturating_add(due);
                    if c.status == Status::Acked && c.ts.t5 <= due {
                        met += 1;
                    }
                    retries += u64::from(c.attempts.max(1) - 1);
                }
                (met, retries)
            })
        })
        .collect();
    let reps: Vec<(usize, u64)> = hs.into_iter().map(|h| h.join().unwrap()).collect();
    s.close();
    let met = reps.iter().map(|r| r.0).sum();
    let retries = reps.iter().map(|r| r.1).sum();
    (n * ROUNDS as usize, met, retries)
}

fn tdma_meets_what_dcf_misses(n: usize) {
    let _one_at_a_time = TIMED.lock().unwrap_or_else(|e| e.into_inner());
    let (p, reps) = tdma(n, GUARD);
    let mut frames = 0;
    let mut met = 0;
    for (i, r) in reps.iter().enumerate() {
        println!(
            "TDMA station {i}: {} frames, {} sent, {} met, {} collisions, {} withdrawn, max lag {}",
            r.frames.len(),
            r.sent(),
            r.met(),
            r.collisions(),
            r.withdrawn(),
            r.max_lag()
        );
        assert!(r.sent() > 0, "station {i} sent nothing: {r:?}");
        assert_eq!(r.collisions(), 0, "a TDMA attempt of station {i} collided");
        assert_eq!(r.outside_window(), 0, "station {i} sent outside its window");
        // Every frame the station handed over met its deadline: the schedule, not the
        // host, decides. (A frame the host reached too late for every window it could
        // go in was never handed over: `expired`, counted in the totals printed.)
        for f in r.frames.iter().filter(|f| f.attempts > 0) {
            assert!(f.met(false), "station {i}: a frame sent in its slot missed: {f:?}");
        }
        frames += r.frames.len();
        met += r.met();
    }
    let (dframes, dmet, dretries) = dcf(n, &p);
    println!(
        "N = {n}: TDMA met {met} of {frames}; DCF met {dmet} of {dframes} ({dretries} retries)"
    );
    assert_eq!(frames, dframes, "both schemes release the same frames");
    // The DCF side runs on the medium's clock alone (timed releases): its misses are the
    // scheme's. How many TDMA frames the host got to in time is printed above, not
    // asserted (a host that stalls the stations for some rounds leaves frames unsent).
    assert!(dmet < dframes, "DCF met every deadline: the setting must make it miss");
}

// The emu backend takes timed sends: a station hands its frame over before the window
// with `not_before`/`not_after`, and the device puts it on the medium at the window's
// opening on the medium's clock, however late its thread wakes on a loaded host (here
// it has been seen 150-280 µs late; the measured guard misses that tail). A frame the
// host hands over too late to fit comes back `Late`, never outside its window.
#[test]
fn two_periodic_tdma_stations_meet_deadlines_dcf_misses() {
    tdma_meets_what_dcf_misses(2);
}

#[test]
fn five_periodic_tdma_stations_meet_deadlines_dcf_misses() {
    tdma_meets_what_dcf_misses(5);
}

/// On the virtual clock the host cannot hold a station up: every frame of every round
/// is sent in its own slot and meets its deadline, and two runs are the same.
#[test]
fn on_the_virtual_clock_every_frame_meets_its_deadline_in_every_run() {
    for n in [2, 5] {
        let (_, a) = tdma_on(n, GUARD, EmuClock::Virtual);
        for (i, r) in a.iter().enumerate() {
            assert_eq!(r.frames.len() as u64, ROUNDS, "station {i} of {n}");
            assert_eq!(r.met(), r.frames.len(), "station {i} of {n}: {r:?}");
            assert_eq!(r.collisions(), 0, "station {i} of {n}");
            assert_eq!(r.outside_window(), 0, "station {i} of {n}");
        }
        let (_, b) = tdma_on(n, GUARD, EmuClock::Virtual);
        assert_eq!(a, b, "two runs of {n} stations differ");
    }
}

#[test]
fn impossible_periodic_schedules_are_refused_before_sending() {
    let (mut s, mut ifaces, phy) = session(1, 1);
    let g = Guard { jitter: Span::from_us(20), sync_error: Span::ZERO };
    let p = plan(1, g, &phy, ifaces[1].now());
    let cfg = PeriodicConfig {
        dst: MacAddress(addr(0)),
        no_ack: false,
        rate: RATE,
        tries: 1,
        payload: vec![0; PAYLOAD],
        number_at: None,
        releases: Releases::Periodic { first: p.round_start(0), period: p.params().round },
        deadline: p.params().slot,
        lead: Span::ZERO,
        ac: Ac::Be,
    };
    let end = p.round_start(3);
    let e = SlotTimes::of_plan(&p, 1).unwrap_err();
    assert!(e.to_string().contains("slot 1 is not a slot of the plan"), "{e}");
    let t = SlotTimes::of_plan(&p, 0).unwrap();
    let short = SlotTimes { close: t.open + p.exchange() - Span::from_ns(1), ..t };
    let e = run_periodic(&mut ifaces[1], &short, &cfg, end).unwrap_err();
    assert!(e.to_string().contains("does not fit the window"), "{e}");
    let tight = PeriodicConfig { deadline: p.exchange() - Span::from_us(1), ..cfg.clone() };
    let e = run_periodic(&mut ifaces[1], &t, &tight, end).unwrap_err();
    assert!(e.to_string().contains("shorter than one exchange"), "{e}");
    let past = ifaces[1].now() - Span::from_ms(1);
    let e = run_periodic(&mut ifaces[1], &t, &cfg, past).unwrap_err();
    assert!(matches!(e, TdmaError::Schedule(_)) && e.to_string().contains("in the past"), "{e}");
    assert_eq!(ifaces[1].unconfirmed(), 0, "nothing was sent");
    s.close();
}

#[test]
fn a_wait_on_the_backends_clock_ends_at_its_deadline() {
    let (mut s, mut ifaces, _) = session(1, 1);
    for ms in [1, 30, 120] {
        let at = ifaces[1].now() + Span::from_ms(ms);
        let got = wait_until(&mut ifaces[1], at).unwrap();
        let now = ifaces[1].now();
        assert!(got.is_empty());
        assert!(now >= at, "the wait for {ms} ms returned {} early", at - now);
    }
    s.close();
}

/// Two flows on one station, in a slot that holds three exchanges: each round an urgent
/// frame (due when the slot ends) and, every other round, a burst of two bulk frames
/// (due two rounds later). In its slot the station sends earliest deadline first: an
/// urgent frame never waits behind bulk frames released with it.
#[test]
fn a_station_with_two_flows_sends_earliest_deadline_first_in_its_slot() {
    let _one_at_a_time = TIMED.lock().unwrap_or_else(|e| e.into_inner());
    let (mut s, mut ifaces, phy) = session(1, 7);
    let ex = TdmaPlan::exchange_for(&phy, PAYLOAD, RATE);
    let slot = GUARD.total().saturating_mul(2) + ex.saturating_mul(3) + SLACK;
    let contention = GUARD.total().saturating_mul(2) + ex.saturating_mul(3);
    let p = TdmaPlan::new(TdmaParams {
        phy: phy.clone(),
        round: slot + contention,
        slots: 1,
        slot,
        contention,
        guard: GUARD,
        payload: PAYLOAD,
        rate: RATE,
        epoch: ifaces[0].now() + Span::from_ms(20),
    })
    .unwrap();
    let round = p.params().round;
    let times = SlotTimes::of_plan(&p, 0).unwrap();
    let flows = vec![
        PeriodicFlow {
            first: p.round_start(0),
            period: round,
            burst: 1,
            deadline: slot,
            payload: vec![0x11; 64],
        },
        PeriodicFlow {
            first: p.round_start(0),
            period: round.saturating_mul(2),
            burst: 2,
            deadline: round.saturating_mul(2),
            payload: vec![0x22; PAYLOAD],
        },
    ];
    let cfg = PeriodicConfig {
        dst: MacAddress(addr(0)),
        no_ack: false,
        rate: RATE,
        tries: 1,
        payload: Vec::new(),
        number_at: Some(0),
        releases: Releases::Flows(flows),
        deadline: Span::ZERO,
        lead: LEAD,
        ac: Ac::Be,
    };
    let end = p.round_start(ROUNDS);
    realtime(10);
    let r = run_periodic(&mut ifaces[1], &times, &cfg, end);
    normal();
    let r = r.unwrap();
    s.close();
    let per_flow = |n: u32| r.frames.iter().filter(|f| f.flow == n).count();
    println!(
        "two flows: {} frames ({} urgent, {} bulk), {} sent, {} met, {} expired",
        r.frames.len(),
        per_flow(0),
        per_flow(1),
        r.sent(),
        r.met(),
        r.frames.iter().filter(|f| f.expired).count()
    );
    assert_eq!(per_flow(0) as u64, ROUNDS);
    assert_eq!(per_flow(1) as u64, ROUNDS);
    assert!(r.sent() > 0);
    assert_eq!(r.collisions(), 0);
    assert_eq!(r.outside_window(), 0);
    for f in r.frames.iter().filter(|f| f.attempts > 0) {
        assert!(f.met(false), "a frame sent in its slot missed its deadline: {f:?}");
    }
    // Within each round's window, frames went on air in deadline order.
    for k in 0..ROUNDS {
        let mut sent: Vec<_> = r.frames.iter().filter(|f| f.round == Some(k)).collect();
        sent.sort_by_key(|f| f.t_start);
        assert!(
            sent.windows(2).all(|w| w[0].deadline <= w[1].deadline),
            "round {k}: not earliest deadline first: {sent:?}"
        );
    }
    // A flow's bad parameters are refused before anything is sent, naming the flow.
    let (mut s, mut ifaces, _) = session(1, 8);
    let bad = PeriodicConfig {
        releases: Releases::Flows(vec![
            PeriodicFlow {
                first: p.round_start(0),
                period: round,
                burst: 1,
                deadline: slot,
                payload: vec![0; 64],
            },
            PeriodicFlow {
                first: p.round_start(0),
                period: round,
                burst: 0,
                deadline: slot,
                payload: vec![0; 64],
            },
        ]),
        ..cfg.clone()
    };
    let e = run_periodic(&mut ifaces[1], &times, &bad, end).unwrap_err().to_string();
    assert!(e.contains("flow 1") && e.contains("burst"), "{e}");
    let none = PeriodicConfig { releases: Releases::Flows(Vec::new()), ..cfg };
    assert!(run_periodic(&mut ifaces[1], &times, &none, end).is_err());
    assert_eq!(ifaces[1].unconfirmed(), 0, "nothing was sent");
    s.close();
}
