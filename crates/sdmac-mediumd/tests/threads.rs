//! `--threads` without a kernel: the dispatcher and its worker threads fed with the
//! netlink datagrams the kernel would send, their datagrams to the kernel recorded
//! and decoded. Compared with the same datagrams through one `HwsimMedium`, as the
//! one-thread daemon runs it.

use sdmac_frame::ieee80211::{write_data_frame, DataParams};
use sdmac_frame::MacAddress;
use sdmac_mediumd::capture::Capture;
use sdmac_mediumd::coalesce::{first_due, Coalesce};
use sdmac_mediumd::control::{Request, UpdateResult};
use sdmac_mediumd::dispatch::{Dispatcher, Finished};
use sdmac_mediumd::encode::{Datagrams, Encoder};
use sdmac_mediumd::hwsim_medium::{hw_addr_of, HwsimMedium, LinkModel, Mac, Setup};
use sdmac_mediumd::kernel_msg::on_datagram;
use sdmac_mediumd::mininet_requests::apply;
use sdmac_netlink::hwsim::{HwsimFlags, HwsimMsg, MacAddrEvent, TxFrame, TxRate};
use sdmac_netlink::nl::{self, NlHeader, NlPacket};
use std::io;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const FAMILY: u16 = 0x1d;
const A: Mac = MacAddress([2, 0, 0, 0, 0, 0]);
const B: Mac = MacAddress([2, 0, 0, 0, 1, 0]);
const C: Mac = MacAddress([2, 0, 0, 0, 2, 0]);
const D: Mac = MacAddress([2, 0, 0, 0, 3, 0]);
const E: Mac = MacAddress([2, 0, 0, 0, 4, 0]);
const F: Mac = MacAddress([2, 0, 0, 0, 5, 0]);
const BCAST: Mac = MacAddress([0xff; 6]);
/// Legacy rate indices at 2.4 GHz: 0 is 1 Mb/s, 4 is 6 Mb/s.
const R1M: i8 = 0;
const R6M: i8 = 4;

/// Records every datagram sent to the kernel.
#[derive(Default)]
struct Recorder {
    got: Mutex<Vec<Vec<u8>>>,
}

impl Datagrams for Recorder {
    fn send(&self, d: &[u8]) -> io::Result<()> {
        self.got.lock().unwrap().push(d.to_vec());
        Ok(())
    }

    fn pid(&self) -> u32 {
        4242
    }
}

/// What the medium told the kernel, decoded.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Seen {
    Status { transmitter: Mac, cookie: u64, acked: bool, signal: i32, attempts: Vec<(i8, u8)> },
    Delivery { receiver: Mac, frame: Vec<u8>, rx_rate: u32, signal: i32, freq: u32 },
}

fn decode(datagrams: &[Vec<u8>]) -> Vec<Seen> {
    let mut seen = Vec::new();
    for d in datagrams {
        for m in nl::messages(d) {
            let m: NlPacket<'_> = m.expect("a netlink message");
            assert_eq!(m.header().ty, FAMILY);
            match HwsimMsg::parse(&m).expect("a hwsim message") {
                HwsimMsg::TxInfo(t) => seen.push(Seen::Status {
                    transmitter: t.transmitter.into(),
                    cookie: t.cookie,
                    acked: t.flags.contains(HwsimFlags::STAT_ACK),
                    signal: t.signal,
                    attempts: t
                        .tx_info
                        .iter()
                        .take_while(|r| r.idx >= 0)
                        .map(|r| (r.idx, r.count))
                        .collect(),
                }),
                HwsimMsg::Delivery(r) => seen.push(Seen::Delivery {
                    receiver: r.receiver.into(),
                    frame: r.frame.to_vec(),
                    rx_rate: r.rx_rate,
                    signal: r.signal,
                    freq: r.freq,
                }),
                other => panic!("unexpected message to the kernel: {other:?}"),
            }
        }
    }
    seen
}

/// `seen` sorted (threads interleave their datagrams).
fn comparable(seen: &[Seen]) -> Vec<Seen> {
    let mut v = seen.to_vec();
    v.sort();
    v
}

fn statuses(seen: &[Seen]) -> usize {
    seen.iter().filter(|s| matches!(s, Seen::Status { .. })).count()
}

fn data(from: Mac, to: Mac, len: usize, tag: u8) -> Vec<u8> {
    let mut buf = vec![0u8; 2400];
    let p = DataParams::new(to, from, from, 0x0800);
    let n = write_data_frame(&mut buf, &p, &vec![tag; len], false).unwrap();
    buf.truncate(n);
    buf
}

/// The kernel's FRAME datagram: radio of interface `from` sends `frame` on `freq` at
/// legacy rate index `idx`, up to 3 tries.
fn kernel_frame(from: Mac, frame: &[u8], freq: u32, idx: i8, cookie: u64) -> Vec<u8> {
    let mut tx_info = [TxRate::END; 4];
    tx_info[0] = TxRate::new(idx, 3);
    let msg = HwsimMsg::Frame(TxFrame {
        transmitter: hw_addr_of(from).0,
        frame,
        flags: HwsimFlags::REQ_TX_STATUS,
        freq: Some(freq),
        tx_info,
        tx_info_flags: None,
        cookie,
        extra: Vec::new(),
    });
    let mut buf = vec![0u8; 4096];
    let n = msg.emit(&NlHeader::request(FAMILY, nl::flags::REQUEST, 0, 0), &mut buf).unwrap();
    buf.truncate(n);
    buf
}

fn add_mac_addr(radio: Mac, addr: Mac) -> Vec<u8> {
    let mut buf = vec![0u8; 256];
    let n = HwsimMsg::AddMacAddr(MacAddrEvent { radio: hw_addr_of(radio).0, addr: addr.0 })
        .emit(&NlHeader::request(FAMILY, 0, 0, 0), &mut buf)
        .unwrap();
    buf.truncate(n);
    buf
}

/// Something the kernel or a control client does, or a pause.
#[derive(Clone)]
enum Step {
    Kernel(Vec<u8>),
    Control(Request),
    Pause(Duration),
}

/// A run on threads.
struct Run {
    /// What came out, decoded.
    seen: Vec<Seen>,
    /// The control answers.
    answers: Vec<(UpdateResult, i32)>,
    fin: Finished,
    /// The steps with the times the run gave them.
    stamped: Vec<(u64, Step)>,
    /// The statistics the workers had published before the stop.
    live: (Vec<(i32, u32, sdmac_medium::MediumStats)>, sdmac_mediumd::hwsim_medium::Counters),
}

/// Runs the steps through the threaded dispatcher, stamped with the wall clock and
/// the workers woken after each, as the daemon does; waits (up to 20 s) until
/// `want_statuses` statuses came out and the workers published them (0: stops at
/// once); stops it.
fn threaded(
    setup: Setup,
    steps: &[Step],
    want_statuses: usize,
    capture: Option<Arc<Mutex<Capture>>>,
) -> Run {
    threaded_coalescing(setup, steps, want_statuses, capture, 0).0
}

/// [`threaded`] with outputs held up to `coalesce_ns`; also gives the datagrams.
fn threaded_coalescing(
    setup: Setup,
    steps: &[Step],
    want_statuses: usize,
    capture: Option<Arc<Mutex<Capture>>>,
    coalesce_ns: u64,
) -> (Run, Vec<Vec<u8>>) {
    let rec = Arc::new(Recorder::default());
    let origin = sdmac_rt::monotonic_ns();
    let mut d = Dispatcher::new(setup, rec.clone(), FAMILY, capture, true, origin, 3)
        .unwrap()
        .coalesce(coalesce_ns);
    let mut answers = Vec::new();
    let mut stamped = Vec::new();
    for s in steps {
        let t = sdmac_rt::monotonic_ns() - origin;
        match s {
            Step::Kernel(dg) => d.on_datagram(dg, t),
            Step::Control(r) => {
                let a = d.control(t, r);
                answers.push((a.result, a.id));
            }
            Step::Pause(p) => std::thread::sleep(*p),
        }
        d.wake_workers().unwrap();
        stamped.push((t, s.clone()));
    }
    let deadline = Instant::now() + Duration::from_secs(20);
    while statuses(&decode(&rec.got.lock().unwrap())) < want_statuses && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    // Workers publish after every round: wait until what they published counts
    // every status that came out (the round after the last output).
    let (stats, counters) = loop {
        let (stats, counters, _, _) = d.stats(0);
        if counters.statuses as usize >= want_statuses || Instant::now() >= deadline {
            break (stats, counters);
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    assert!(d.failure().is_none(), "{:?}", d.failure());
    let fin = d.stop().unwrap();
    let got = rec.got.lock().unwrap().clone();
    (Run { seen: decode(&got), answers, fin, stamped, live: (stats, counters) }, got)
}

/// The same steps, at the same times, through one `HwsimMedium` as the one-thread
/// daemon drives it (advance before a control request), run to `until`.
fn one_thread(
    setup: Setup,
    steps: &[(u64, Step)],
    until: u64,
) -> (Vec<Seen>, Vec<(UpdateResult, i32)>, HwsimMedium) {
    let mut m = HwsimMedium::new(setup);
    let mut out = Vec::new();
    let mut answers = Vec::new();
    for (t, s) in steps {
        match s {
            Step::Kernel(dg) => on_datagram(&mut m, *t, dg, FAMILY, 0, &mut out),
            Step::Control(r) => {
                m.advance(*t, &mut out);
                let a = apply(&mut m, r);
                answers.push((a.result, a.id));
            }
            Step::Pause(_) => {}
        }
    }
    m.advance(until, &mut out);
    let mut got = Vec::new();
    encode_into(&mut Encoder::new(FAMILY, 4242, 3), &mut out, &mut got);
    (decode(&got), answers, m)
}

/// Encodes `out` (emptied) as the daemon sends it, the datagrams appended to `got`.
fn encode_into(
    enc: &mut Encoder,
    out: &mut Vec<sdmac_mediumd::hwsim_medium::Output>,
    got: &mut Vec<Vec<u8>>,
) {
    enc.send(
        out,
        0,
        None,
        |d| {
            got.push(d.to_vec());
            Ok(())
        },
        |_, _, _, _| Ok(()),
    )
    .unwrap();
}

fn snr30(interfaces: Vec<Mac>) -> Setup {
    Setup {
        interfaces,
        model: LinkModel::Snr { default_snr_db: 30.0, links: vec![] },
        ..Setup::default()
    }
}

/// Pair A-B on 2412 MHz, pair C-D on 2437 MHz: one sender per channel (A, C), so
/// nothing collides and every outcome is the same whenever the frames arrive.
fn two_channel_traffic(n: u64, len: usize, idx: i8) -> Vec<Step> {
    let mut steps = Vec::new();
    for k in 0..n {
        let (to1, to2) = if k % 5 == 4 { (BCAST, BCAST) } else { (B, D) };
        steps.push(Step::Kernel(kernel_frame(A, &data(A, to1, len, k as u8), 2412, idx, k)));
        steps.push(Step::Kernel(kernel_frame(C, &data(C, to2, len, k as u8), 2437, idx, 1000 + k)));
    }
    steps
}

#[test]
fn two_channels_on_threads_give_what_one_thread_gives() {
    let setup = snr30(vec![A, B, C, D]);
    let steps = two_channel_traffic(20, 200, R6M);
    let Run { seen, fin, stamped, .. } = threaded(setup.clone(), &steps, 40, None);
    assert_eq!(statuses(&seen), 40, "every frame answered once: {seen:?}");
    let mut keys = fin.keys.clone();
    keys.sort();
    assert_eq!(keys, vec![(0, 2412), (0, 2437)], "one worker per channel");
    assert_eq!(fin.counters.frames_in, 40);
    assert_eq!(fin.counters.statuses, 40);
    assert_eq!(fin.diverged, 0);
    // Every status and delivery of every thread was timed, once: the ones counted
    // before the stop (the statistics taken then) and after.
    assert_eq!(fin.late.1.n, fin.counters.statuses + fin.counters.deliveries, "{:?}", fin.late);
    assert!(fin.late.1.p50_ns <= fin.late.1.max_ns);
    let (reference, _, m) = one_thread(setup, &stamped, stamped.last().unwrap().0 + 1_000_000_000);
    assert_eq!(m.counters().statuses, 40);
    assert!(
        seen.iter().any(|s| matches!(s, Seen::Delivery { freq: 2437, .. }))
            && seen.iter().any(|s| matches!(s, Seen::Delivery { freq: 2412, .. }))
    );
    assert!(
        seen.iter().all(|s| !matches!(s, Seen::Status { acked: false, .. })),
        "a clean channel: every frame acknowledged (or sent)"
    );
    assert_eq!(
        comparable(&seen),
        comparable(&reference),
        "the threads said something else than one thread"
    );
}

#[test]
fn station_ids_are_the_same_on_every_thread() {
    // No radio configured: each one gets the next index when it first shows up —
    // from a frame on either channel, an ADD_MAC_ADDR event or a control request.
    let setup = snr30(vec![]);
    let pause = || Step::Pause(Duration::from_millis(5));
    let steps = vec![
        Step::Kernel(kernel_frame(A, &data(A, B, 100, 1), 2412, R6M, 1)), // A: 0, on 2412's worker
        pause(),
        Step::Kernel(kernel_frame(C, &data(C, D, 100, 2), 2437, R6M, 2)), // C: 1, on 2437's worker
        pause(),
        Step::Kernel(add_mac_addr(E, E)), // E: 2
        Step::Control(Request::Add(B)),   // B: 3
        Step::Kernel(kernel_frame(B, &data(B, A, 100, 3), 2412, R6M, 3)),
        pause(),
        Step::Kernel(kernel_frame(D, &data(D, C, 100, 4), 2437, R6M, 4)), // D: 4, seen by 2437's worker only
        pause(),
        Step::Control(Request::Add(F)),     // F: 5
        Step::Control(Request::Add(F)),     // a duplicate
        Step::Control(Request::DelById(4)), // D, on both workers
        Step::Control(Request::DelById(9)),
        Step::Kernel(kernel_frame(C, &data(C, D, 100, 5), 2437, R6M, 5)), // to a deleted station
        pause(),
        Step::Control(Request::Add(D)), // back, with its id
        Step::Kernel(kernel_frame(C, &data(C, D, 100, 6), 2437, R6M, 6)),
        pause(),
        Step::Control(Request::DelByMac(A)),
        Step::Control(Request::Snr { from: C, to: D, snr_db: 25 }),
        Step::Control(Request::Snr { from: A, to: B, snr_db: 25 }), // A is deleted
    ];
    let Run { seen, answers, fin, stamped, .. } = threaded(setup.clone(), &steps, 6, None);
    use UpdateResult::*;
    assert_eq!(
        answers,
        vec![
            (Success, 3),
            (Success, 5),
            (Duplicate, 5),
            (Success, 0),
            (NotFound, 0),
            (Success, 4),
            (Success, 0),
            (Success, 0),
            (NotFound, 0)
        ],
        "the answers of the dispatcher"
    );
    let (reference, reference_answers, _) =
        one_thread(setup, &stamped, stamped.last().unwrap().0 + 1_000_000_000);
    assert_eq!(answers, reference_answers, "one thread answers the same");
    assert_eq!(fin.diverged, 0, "every worker got the dispatcher's answer to every request");
    assert_eq!(fin.media.len(), 2);
    for mac in [A, B, C, D, E, F] {
        let want = fin.replica.station_id(mac);
        for (k, m) in fin.keys.iter().zip(&fin.media) {
            assert_eq!(m.station_id(mac), want, "station {mac:02x?} on the worker of {k:?}");
        }
    }
    assert_eq!(fin.replica.station_id(D), Some(4));
    assert_eq!(fin.replica.station_id(A), None, "deleted");
    // The frame to D while D was deleted was not acknowledged; the ones between known
    // stations before and after were.
    let status = |cookie| {
        seen.iter().find_map(|s| match s {
            Seen::Status { cookie: c, acked, .. } if *c == cookie => Some(*acked),
            _ => None,
        })
    };
    assert_eq!(
        [3, 4, 5, 6].map(status),
        [Some(true), Some(true), Some(false), Some(true)],
        "{seen:?}"
    );
    // With a pause between frames, outcomes do not depend on when the threads ran.
    assert_eq!(
        comparable(&seen),
        comparable(&reference),
        "the threads said something else than one thread"
    );
}

#[test]
fn shutdown_answers_every_frame_in_flight() {
    // 1500-byte frames at 1 Mb/s: ~12 ms each, 30 per channel; stopped at once.
    let setup = snr30(vec![A, B, C, D]);
    let steps = two_channel_traffic(30, 1500, R1M);
    let Run { seen, fin, .. } = threaded(setup, &steps, 0, None);
    let mut cookies: Vec<(Mac, u64)> = seen
        .iter()
        .filter_map(|s| match s {
            Seen::Status { transmitter, cookie, .. } => Some((*transmitter, *cookie)),
            _ => None,
        })
        .collect();
    cookies.sort();
    let mut want: Vec<(Mac, u64)> = (0..30)
        .map(|k| (hw_addr_of(A), k))
        .chain((0..30).map(|k| (hw_addr_of(C), 1000 + k)))
        .collect();
    want.sort();
    assert_eq!(cookies, want, "every frame answered exactly once");
    assert!(
        seen.iter().any(|s| matches!(s, Seen::Status { acked: false, .. })),
        "frames still in flight at the stop were answered (not acknowledged)"
    );
    assert_eq!((fin.counters.frames_in, fin.counters.statuses), (60, 60));
    assert!(fin.failed.is_none());
}

#[test]
fn statistics_and_capture_come_from_every_thread() {
    let path =
        std::env::temp_dir().join(format!("sdmac-mediumd-threads-{}.pcapng", std::process::id()));
    let capture = Arc::new(Mutex::new(Capture::create(&path).unwrap()));
    let mut setup = snr30(vec![A, B, C, D]);
    setup.capture = true;
    let steps = two_channel_traffic(10, 200, R6M);
    let Run { seen, fin, live, .. } = threaded(setup, &steps, 20, Some(capture.clone()));
    assert_eq!(statuses(&seen), 20);
    for (what, stats) in [("published", &live.0), ("final", &fin.stats)] {
        let mut stats = stats.clone();
        stats.sort_by_key(|s| (s.0, s.1));
        assert_eq!(
            stats.iter().map(|s| (s.0, s.1)).collect::<Vec<_>>(),
            vec![(0, 2412), (0, 2437)],
            "{what}"
        );
        for (_, freq, s) in &stats {
            assert_eq!(s.attempts.iter().sum::<u64>(), 10, "{what}, {freq} MHz: {s:?}");
        }
    }
    assert_eq!((live.1.frames_in, live.1.statuses), (20, 20), "published counters");
    capture.lock().unwrap().flush().unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    let packets = sdmac_frame::pcapng::read_packets(&bytes).unwrap();
    // 10 frames per channel, and an ACK for each of the 8 unicast ones.
    assert_eq!(packets.len(), 2 * (10 + 8), "frames and ACKs of both channels in the capture");
}

/// The one-thread daemon's loop on a virtual clock that wakes exactly at each next
/// output: `steps` at time 0, then rounds until nothing is left; the datagrams sent.
fn paced(setup: Setup, steps: &[Step], coalesce_ns: u64) -> Vec<Vec<u8>> {
    let mut m = HwsimMedium::new(setup);
    let mut out = Vec::new();
    let mut c = Coalesce::new(coalesce_ns);
    for s in steps {
        if let Step::Kernel(dg) = s {
            on_datagram(&mut m, 0, dg, FAMILY, 0, &mut out);
        }
    }
    let mut enc = Encoder::new(FAMILY, 4242, 3);
    let mut got = Vec::new();
    while let Some(t) = c.wake_at(m.next_output_time()) {
        m.advance(t, &mut out);
        if c.send_now(t, first_due(&out), m.next_output_time()) {
            encode_into(&mut enc, &mut out, &mut got);
        }
    }
    assert!(out.is_empty(), "outputs left unsent: {out:?}");
    got
}

#[test]
fn coalescing_sends_a_delivery_with_its_status() {
    // One unicast exchange at 6 Mb/s: the delivery at the DATA's end, the status
    // SIFS + ACK (16 + 44 µs) later.
    let steps = vec![Step::Kernel(kernel_frame(A, &data(A, B, 200, 1), 2412, R6M, 1))];
    let apart = paced(snr30(vec![A, B]), &steps, 0);
    assert_eq!(apart.len(), 2, "without coalescing: delivery and status each at its own time");
    assert_eq!(
        paced(snr30(vec![A, B]), &steps, 59_000).len(),
        2,
        "59 µs is shorter than SIFS + ACK"
    );
    let together = paced(snr30(vec![A, B]), &steps, 60_000);
    assert_eq!(together.len(), 1, "60 µs: one datagram");
    assert_eq!(
        comparable(&decode(&apart)),
        comparable(&decode(&together)),
        "the same outputs either way"
    );
    // A broadcast has one output time (delivery and status at the DATA's end).
    let bcast = vec![Step::Kernel(kernel_frame(A, &data(A, BCAST, 200, 2), 2412, R6M, 2))];
    assert_eq!(paced(snr30(vec![A, B]), &bcast, 0).len(), 1);
    // Two exchanges (the second 2.7 ms long) are not joined by a 100 µs window.
    let two =
        vec![steps[0].clone(), Step::Kernel(kernel_frame(B, &data(B, A, 2000, 3), 2412, R6M, 2))];
    let sent = paced(snr30(vec![A, B]), &two, 100_000);
    assert_eq!(statuses(&decode(&sent)), 2);
    assert_eq!(
        sent.len(),
        2,
        "one datagram per exchange: {:?}",
        sent.iter().map(|d| decode(std::slice::from_ref(d))).collect::<Vec<_>>()
    );
}

#[test]
fn coalescing_on_threads() {
    let steps = vec![Step::Kernel(kernel_frame(A, &data(A, B, 200, 1), 2412, R6M, 1))];
    let (apart, _) = threaded_coalescing(snr30(vec![A, B]), &steps, 1, None, 0);
    let (together, sent_together) =
        threaded_coalescing(snr30(vec![A, B]), &steps, 1, None, 200_000);
    assert_eq!(statuses(&together.seen), 1);
    assert_eq!(comparable(&apart.seen), comparable(&together.seen), "the same outputs either way");
    // However late the worker wakes, a 200 µs window covers SIFS + ACK.
    assert_eq!(sent_together.len(), 1, "with a 200 µs window: one datagram");
}
