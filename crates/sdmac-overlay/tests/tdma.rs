//! TDMA on the emu backend: stations ask the coordinator for slots in the contention
//! period, then send in their slots with saturating load; no attempt collides, while
//! the same load under plain DCF collides. And TSF synchronisation from beacons.

use sdmac_api::{Ac, Body, Interface, MacAddress, Rate, RateSeries, Span, TxAttrs, Wait};
use sdmac_emu::{EmuClock, EmuIface, EmuOptions, EmuSession};
use sdmac_medium::{BeaconConfig, Medium, MediumConfig, StationConfig, TU};
use sdmac_overlay::tdma::{
    measure_jitter, Coordinator, Guard, StationReport, TdmaParams, TdmaPlan, TdmaStation, TsfSync,
};
use sdmac_phy::{Phy, Standard};
use std::time::Duration;

const RATE: Rate = Rate::Ofdm24;
const PAYLOAD: usize = 200;
const ROUNDS: u64 = 40;
/// Frames each station queues under plain DCF.
const DCF_FRAMES: usize = 64;

fn addr(k: usize) -> [u8; 6] {
    [2, 0, 0, 0, 0, k as u8 + 1]
}

/// A coordinator (station 0, beaconing every `beacon_tu` if given) and `n` stations
/// within 10 m of it and of each other.
fn medium(n: usize, beacon_tu: Option<u64>, seed: u64) -> (Medium, Phy) {
    let phy = Phy::new(Standard::Dot11a);
    let mut cfg = MediumConfig::new(phy.clone());
    cfg.seed = seed;
    let mut m = Medium::new(cfg);
    let mut ap = StationConfig::new(&phy, addr(0), [0.0, 0.0, 0.0]);
    if let Some(tu) = beacon_tu {
        ap.beacon = Some(BeaconConfig {
            interval_ns: tu * TU,
            offset_ns: 1_000_000,
            ..BeaconConfig::default()
        });
    }
    m.add_station(ap);
    for k in 1..=n {
        let a = k as f64 * std::f64::consts::TAU / n as f64;
        let mut c = StationConfig::new(&phy, addr(k), [5.0 * a.cos(), 5.0 * a.sin(), 0.0]);
        c.queue_limit = DCF_FRAMES;
        m.add_station(c);
    }
    (m, phy)
}

fn session(n: usize, beacon_tu: Option<u64>) -> (EmuSession, Vec<Interface<EmuIface>>, Phy) {
    session_on(n, beacon_tu, EmuClock::Wall)
}

/// [`session`] on the given clock; every interface is taken before any thread runs,
/// so that on the virtual clock time starts only once each of them waits.
fn session_on(
    n: usize,
    beacon_tu: Option<u64>,
    clock: EmuClock,
) -> (EmuSession, Vec<Interface<EmuIface>>, Phy) {
    let (m, phy) = medium(n, beacon_tu, 3);
    let names: Vec<String> = (0..=n).map(|k| format!("s{k}")).collect();
    let list: Vec<(&str, u32)> =
        names.iter().enumerate().map(|(k, s)| (s.as_str(), k as u32)).collect();
    let mut s = EmuSession::start(m, &list, EmuOptions { clock, ..EmuOptions::default() }).unwrap();
    let ifaces = (0..=n).map(|k| s.take_index(k).unwrap()).collect();
    (s, ifaces, phy)
}

/// Measures the guard on station 1 and lays out `n` slots for it.
fn plan(n: usize, probe: &mut Interface<EmuIface>, phy: &Phy) -> TdmaPlan {
    let j = measure_jitter(probe, MacAddress(addr(0)), RATE, 30, Span::from_ms(1)).unwrap();
    let guard = Guard { jitter: j.spread(), sync_error: Span::ZERO };
    let ex = TdmaPlan::exchange_for(phy, PAYLOAD, RATE);
    let round_up = |s: Span| Span::from_us(s.as_ns().div_ceil(100_000) * 100);
    let slot = round_up(guard.total().saturating_mul(2) + ex.saturating_mul(3));
    let contention = round_up(guard.total().saturating_mul(2) + ex.saturating_mul(6));
    let round = slot.saturating_mul(n as u64) + contention;
    let p = TdmaPlan::new(TdmaParams {
        phy: phy.clone(),
        round,
        slots: n as u32,
        slot,
        contention,
        guard,
        payload: PAYLOAD,
        rate: RATE,
        epoch: probe.now() + Span::from_ms(5),
    })
    .unwrap();
    println!("N = {n}: request path t_start − t1 from {} to {}\n{p}", j.min, j.max);
    p
}

fn tdma(n: usize, clock: EmuClock) -> (Vec<StationReport>, Vec<u64>) {
    // The guard is measured on a session of its own, whose probing leaves nothing
    // queued behind it in the session the plan then runs on.
    // The coordinator's interface there has no thread: it is dropped, so that on the
    // virtual clock time does not wait for it (its station still acknowledges).
    let (mut m, probe, phy) = session_on(1, None, clock);
    let mut probe = probe.into_iter().nth(1).unwrap();
    let p = plan(n, &mut probe, &phy);
    drop(probe);
    m.close();
    let (mut s, ifaces, _) = session_on(n, None, clock);
    let p = TdmaPlan::new(TdmaParams {
        epoch: ifaces[0].now() + Span::from_ms(5),
        ..p.params().clone()
    })
    .unwrap();
    let end = p.round_start(ROUNDS);
    let coord = MacAddress(addr(0));
    let mut it = ifaces.into_iter();
    let mut ap = it.next().unwrap();
    let pc = p.clone();
    let hc = std::thread::spawn(move || {
        let mut c = Coordinator::new(&mut ap, pc);
        c.run_until(end + Span::from_ms(5)).unwrap().clone()
    });
    let hs: Vec<_> = it
        .map(|mut i| {
            let p = p.clone();
            std::thread::spawn(move || {
                let mut st = TdmaStation::new(&mut i, p, coord);
                st.join(20).unwrap();
                st.run_until(&[0x5a; PAYLOAD], end).unwrap()
            })
        })
        .collect();
    let reps: Vec<StationReport> = hs.into_iter().map(|h| h.join().unwrap()).collect();
    let c = hc.join().unwrap();
    s.close();
    println!("N = {n} TDMA: {reps:?}\n  coordinator received per slot {:?}", c.received);
    (reps, c.received)
}

/// The same stations under plain DCF, each with [`DCF_FRAMES`] frames queued at one
/// instant (a timed request each, so that every queue fills at the same medium time
/// however the host runs the threads); returns frames sent and attempts lost to
/// collisions.
fn dcf(n: usize, clock: EmuClock) -> (u64, u64) {
    let (mut s, ifaces, _) = session_on(n, None, clock);
    let start = ifaces[0].now() + Span::from_ms(200);
    let hs: Vec<_> = ifaces
        .into_iter()
        .skip(1)
        .map(|mut i| {
            std::thread::spawn(move || {
                let attrs = TxAttrs {
                    dst: Some(MacAddress(addr(0))),
                    rates: Some(RateSeries::single(RATE, 7)),
                    no_ack: false,
                    timestamps: true,
                    not_before: Some(start),
                    not_after: None,
                };
                for id in 1..=DCF_FRAMES as u64 {
                    i.data_req(id, Body::Payload(&[0x5a; PAYLOAD]), Ac::Be, &attrs).unwrap();
                }
                let (mut sent, mut coll) = (0u64, 0u64);
                while i.unconfirmed() > 0 {
                    let c = i.data_con(Wait::For(Duration::from_secs(5))).unwrap().unwrap();
                    sent += 1;
                    coll += u64::from(c.truth.expect("emu knows the truth").collisions);
                }
                (sent, coll)
            })
        })
        .collect();
    let r = hs.into_iter().map(|h| h.join().unwrap()).fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    s.close();
    r
}

fn tdma_has_no_collisions_where_dcf_has(
    n: usize,
    clock: EmuClock,
) -> (Vec<StationReport>, Vec<u64>) {
    let (reps, received) = tdma(n, clock);
    let mut slots: Vec<u32> = reps.iter().map(|r| r.slot).collect();
    slots.sort();
    slots.dedup();
    assert_eq!(slots.len(), n, "every station has a slot of its own: {reps:?}");
    for r in &reps {
        assert!(r.sent > 0, "station in slot {} sent nothing", r.slot);
        assert_eq!(r.collisions, 0, "a TDMA attempt collided: {r:?}");
    }
    assert!(received.iter().all(|&k| k > 0), "the coordinator heard every slot: {received:?}");
    let sent: u64 = reps.iter().map(|r| r.sent).sum();
    let (dsent, dcoll) = dcf(n, clock);
    println!("N = {n}: TDMA {sent} frames, 0 collisions; DCF {dsent} frames, {dcoll} collisions");
    assert!(dcoll > 0, "saturated DCF with {n} stations showed no collision in {dsent} frames");
    (reps, received)
}

#[test]
fn two_stations_in_tdma_never_collide() {
    tdma_has_no_collisions_where_dcf_has(2, EmuClock::Wall);
}

#[test]
fn five_stations_in_tdma_never_collide() {
    tdma_has_no_collisions_where_dcf_has(5, EmuClock::Wall);
}

/// On the virtual clock the host's timing never shows: no frame is withdrawn for
/// lateness, and two runs are the same run.
#[test]
fn five_stations_in_tdma_on_the_virtual_clock_never_collide_and_repeat() {
    let a = tdma_has_no_collisions_where_dcf_has(5, EmuClock::Virtual);
    for r in &a.0 {
        assert_eq!((r.withdrawn, r.outside_window), (0, 0), "{r:?}");
        assert_eq!(r.sent, r.acked, "{r:?}");
    }
    let b = tdma(5, EmuClock::Virtual);
    assert_eq!(a, b, "two runs on the virtual clock differ");
}

#[test]
fn beacons_synchronise_stations_to_the_tsf() {
    let (s, mut ifaces, _) = session(2, Some(10));
    let origin = s.origin();
    let mut fits = Vec::new();
    let mut buf = Vec::new();
    for i in ifaces.iter_mut().skip(1) {
        i.set("rx_management", sdmac_api::Scope::Adapter, true).unwrap();
    }
    for i in ifaces.iter_mut().skip(1) {
        let mut sync = TsfSync::new(8);
        let limit = i.now() + Span::from_secs(3);
        while sync.samples() < 8 && i.now() < limit {
            if let Some(ind) = i.data_ind(&mut buf, Wait::For(Duration::from_millis(50))).unwrap() {
                sync.observe_frame(&ind, &buf);
            }
        }
        assert_eq!(sync.samples(), 8, "8 beacons heard within 3 s");
        fits.push(sync);
    }
    // Emu's TSF counts µs of medium time from the session's start, which is `origin`
    // on the local clock: TSF 0 must map to it within the synchronisation error.
    for f in &fits {
        let err = f.error().unwrap();
        println!("TSF sync: offset {:.0} ns, error {err}", f.offset_at(0).unwrap());
        let got = f.to_local(0).unwrap().as_ns() as i64;
        assert!(
            (got - origin as i64).unsigned_abs() <= err.as_ns(),
            "TSF 0 maps to {got}, the medium started at {origin} (error {err})"
        );
    }
    let t = 5_000_000_000u64;
    let (a, b) = (fits[0].to_local(t).unwrap(), fits[1].to_local(t).unwrap());
    let apart = (a.as_ns() as i64 - b.as_ns() as i64).unsigned_abs();
    let both = fits[0].error().unwrap() + fits[1].error().unwrap();
    assert!(apart <= both.as_ns());
    // A plan on the TSF: each station's slot windows on its own clock, with the sync
    // error in the guard, coincide within the two errors, so the guard covers them.
    let phy = Phy::new(Standard::Dot11a);
    let plan = TdmaPlan::new(TdmaParams {
        phy,
        round: Span::from_ms(10),
        slots: 2,
        slot: Span::from_ms(3),
        contention: Span::from_ms(4),
        guard: Guard { jitter: Span::from_us(100), sync_error: both },
        payload: PAYLOAD,
        rate: RATE,
        epoch: sdmac_api::Time::ZERO,
    })
    .unwrap();
    println!("{plan}");
    let (p0, p1) = (plan.on_tsf(&fits[0], t).unwrap(), plan.on_tsf(&fits[1], t).unwrap());
    for k in [0, 7, 100] {
        for s in 0..2 {
            let (o0, c0) = p0.slot_window(k, s);
            let (o1, c1) = p1.slot_window(k, s);
            let d = (o0.as_ns() as i64 - o1.as_ns() as i64).unsigned_abs();
            assert!(d <= both.as_ns(), "round {k} slot {s}: windows {d} ns apart");
            assert_eq!(c0 - o0, c1 - o1);
        }
    }
}
