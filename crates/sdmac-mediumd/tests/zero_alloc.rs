//! The daemon's hot path allocates nothing per frame. The one-thread loop
//! ([`run_loop`], the code `sdmac-mediumd` runs) is driven without a kernel: a
//! stand-in for the kernel side hands it the FRAME datagrams mac80211_hwsim would
//! send (encoded with `sdmac_netlink`), decodes the TX statuses and deliveries it
//! sends back, and gives every station its next frame as soon as the status of the
//! last one comes — saturated stations, on a virtual clock that jumps to the loop's
//! deadline. A counting global allocator counts this thread's allocations; after a
//! warm-up (buffers and tables grown to their steady size) the loop must make none,
//! whatever the stand-in itself does (its own work is not counted). The warm-up is
//! 5,000 frames: with retries, the engine's event queue reaches its largest size
//! (a rare long chain of retries) only after a few thousand frames; it is a high-water
//! mark, not growth — 35,000 frames after it were counted without an allocation.

use sdmac_frame::ieee80211::{write_data_frame, DataParams};
use sdmac_frame::MacAddress;
use sdmac_mediumd::daemon::{run_loop, LoopEnv, Options};
use sdmac_mediumd::error::DaemonError;
use sdmac_mediumd::hwsim_medium::{hw_addr_of, LinkModel, Mac, Setup};
use sdmac_mediumd::kernel_side::KernelSide;
use sdmac_mediumd::netlink::RecvBatch;
use sdmac_mediumd::poller::Poller;
use sdmac_netlink::hwsim::{HwsimFlags, HwsimMsg, TxFrame, TxRate};
use sdmac_netlink::nl::{self, NlHeader};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::collections::VecDeque;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Counts the allocations (and reallocations) of the thread that has counting on.
struct Counting;

thread_local! {
    /// Between the warm-up and the end of the count.
    static ARMED: Cell<bool> = const { Cell::new(false) };
    /// While the stand-in works.
    static PAUSED: Cell<bool> = const { Cell::new(false) };
    static ALLOCS: Cell<u64> = const { Cell::new(0) };
}

fn note() {
    let on =
        ARMED.try_with(Cell::get).unwrap_or(false) && !PAUSED.try_with(Cell::get).unwrap_or(true);
    if on {
        let _ = ALLOCS.try_with(|n| n.set(n.get() + 1));
    }
}

// SAFETY: every call goes to the system allocator unchanged; counting touches only
// const-initialised thread-locals, which never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        note();
        System.alloc(l)
    }

    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        note();
        System.alloc_zeroed(l)
    }

    unsafe fn realloc(&self, p: *mut u8, l: Layout, new_size: usize) -> *mut u8 {
        note();
        System.realloc(p, l, new_size)
    }

    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocs() -> u64 {
    ALLOCS.with(Cell::get)
}

/// Counting stays off while the stand-in works (`set(true)`), or on while the loop's
/// code runs inside it (`set(false)`), and comes back as it was.
struct Paused(bool);

fn paused(p: bool) -> Paused {
    Paused(PAUSED.with(|c| c.replace(p)))
}

fn pause() -> Paused {
    paused(true)
}

impl Drop for Paused {
    fn drop(&mut self) {
        PAUSED.with(|c| c.set(self.0));
    }
}

const FAMILY: u16 = 0x1d;
const FREQ: u32 = 2412;

/// A station: its interface address, the peer it sends to, its next cookie.
struct Station {
    addr: Mac,
    peer: Mac,
    cookie: u64,
}

/// What the stand-in saw of the loop's outputs.
#[derive(Debug, Default)]
struct Seen {
    frames: u64,
    statuses: u64,
    acked: u64,
    /// Attempts over all statuses (more than `statuses`: some frames were retried).
    attempts: u64,
    deliveries: u64,
}

/// The kernel side of the test: mac80211_hwsim's part, on a virtual clock.
struct Loopback<'a> {
    time: &'a Cell<u64>,
    stations: Vec<Station>,
    /// Legacy rate indices and tries of every frame's rate series.
    series: Vec<(i8, u8)>,
    /// Datagrams for the loop, delivered with its next wait.
    to_loop: VecDeque<Vec<u8>>,
    /// Datagrams the loop handed over to be sent at their time (CLOCK_MONOTONIC =
    /// the virtual clock: the loop's origin is 0).
    timed: Vec<(u64, Vec<u8>)>,
    /// Whether it takes timed sends (as io_uring does) or has everything sent at
    /// once (as epoll does).
    can_time: bool,
    seen: Seen,
    /// Statuses after which counting starts, and after which the loop is stopped.
    warm_up: u64,
    until: u64,
    counted: Option<u64>,
    stop: Arc<AtomicBool>,
}

impl Loopback<'_> {
    /// The FRAME datagram of station `i`'s next frame.
    fn next_frame(&mut self, i: usize) {
        let s = &mut self.stations[i];
        s.cookie += 1;
        let mut frame = vec![0u8; 2400];
        let p = DataParams::new(s.peer, s.addr, s.addr, 0x0800);
        let n = write_data_frame(&mut frame, &p, &[0x5a; 1400], false).unwrap();
        frame.truncate(n);
        let mut tx_info = [TxRate::END; 4];
        for (slot, &(idx, tries)) in tx_info.iter_mut().zip(&self.series) {
            *slot = TxRate::new(idx, tries);
        }
        let msg = HwsimMsg::Frame(TxFrame {
            transmitter: hw_addr_of(s.addr).0,
            frame: &frame,
            flags: HwsimFlags::REQ_TX_STATUS,
            freq: Some(FREQ),
            tx_info,
            tx_info_flags: None,
            cookie: s.cookie,
            extra: Vec::new(),
        });
        let mut buf = vec![0u8; 4096];
        let n = msg.emit(&NlHeader::request(FAMILY, nl::flags::REQUEST, 0, 0), &mut buf).unwrap();
        buf.truncate(n);
        self.to_loop.push_back(buf);
        self.seen.frames += 1;
    }

    /// Takes a datagram from the loop as the kernel would when it is sent: a
    /// status gives its station the next frame.
    fn take(&mut self, d: &[u8]) {
        for m in nl::messages(d) {
            let m = m.expect("a netlink message");
            match HwsimMsg::parse(&m).expect("a hwsim message") {
                HwsimMsg::TxInfo(t) => {
                    self.seen.statuses += 1;
                    if t.flags.contains(HwsimFlags::STAT_ACK) {
                        self.seen.acked += 1;
                    }
                    self.seen.attempts += t
                        .tx_info
                        .iter()
                        .take_while(|r| r.idx >= 0)
                        .map(|r| r.count as u64)
                        .sum::<u64>();
                    let i = self
                        .stations
                        .iter()
                        .position(|s| hw_addr_of(s.addr).0 == t.transmitter)
                        .expect("a status of a station's frame");
                    self.next_frame(i);
                    if self.seen.statuses == self.warm_up {
                        ALLOCS.with(|n| n.set(0));
                        ARMED.with(|c| c.set(true));
                    }
                    if self.seen.statuses == self.until && self.counted.is_none() {
                        ARMED.with(|c| c.set(false));
                        self.counted = Some(allocs());
                        self.stop.store(true, Ordering::Relaxed);
                    }
                }
                HwsimMsg::Delivery(_) => self.seen.deliveries += 1,
                other => panic!("unexpected message to the kernel: {other:?}"),
            }
        }
    }

    /// Sends the timed datagrams due by now.
    fn send_due(&mut self) {
        let now = self.time.get();
        while let Some(k) = self.timed.iter().position(|(due, _)| *due <= now) {
            let (_, d) = self.timed.remove(k);
            self.take(&d);
        }
    }
}

impl KernelSide for Loopback<'_> {
    fn name(&self) -> &'static str {
        "loopback"
    }

    fn wait(
        &mut self,
        deadline_ns: Option<u64>,
        _poller: &mut Poller,
        _ready: &mut Vec<u64>,
        _now: &dyn Fn() -> u64,
        feed: &mut dyn FnMut(&[u8], u64),
    ) -> Result<(), DaemonError> {
        let _p = pause();
        // Time runs until a datagram comes (a timed send's status brings the next
        // frame) or the deadline.
        while self.to_loop.is_empty() {
            let next_timed = self.timed.iter().map(|(due, _)| *due).min();
            let Some(to) = [deadline_ns, next_timed].into_iter().flatten().min() else { break };
            self.time.set(self.time.get().max(to));
            self.send_due();
            if deadline_ns.is_some_and(|d| self.time.get() >= d) {
                break;
            }
        }
        let t = self.time.get();
        let batch = std::mem::take(&mut self.to_loop);
        for d in &batch {
            let _loop_code = paused(false);
            feed(d, t);
        }
        drop(batch);
        Ok(())
    }

    fn receive(
        &mut self,
        _now: &dyn Fn() -> u64,
        _each: &mut dyn FnMut(&RecvBatch, u64) -> Result<(), DaemonError>,
    ) -> Result<(), DaemonError> {
        // The wait handed everything over.
        Ok(())
    }

    fn receive_now(&mut self, feed: &mut dyn FnMut(&[u8])) -> Result<usize, DaemonError> {
        let _p = pause();
        let batch = std::mem::take(&mut self.to_loop);
        for d in &batch {
            let _loop_code = paused(false);
            feed(d);
        }
        Ok(batch.len())
    }

    fn queue(&mut self, d: &[u8]) -> io::Result<()> {
        let _p = pause();
        self.take(d);
        Ok(())
    }

    fn send_queued(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        let _p = pause();
        for (_, d) in std::mem::take(&mut self.timed) {
            self.take(&d);
        }
        Ok(())
    }

    fn queues_timed(&self) -> bool {
        self.can_time
    }

    fn can_time_sends(&self) -> bool {
        self.can_time
    }

    fn queue_at(&mut self, d: &[u8], due_ns: u64) -> io::Result<()> {
        let _p = pause();
        self.timed.push((due_ns, d.to_vec()));
        Ok(())
    }

    fn hold_until(&mut self, _t_ns: u64) {}

    fn timed_overdue(&self) -> u64 {
        0
    }
}

/// Runs `n` saturated stations (pairs sending to each other) at SNR `snr_db` with
/// rate series `series` through the loop: what the stand-in saw and the allocations
/// counted after the warm-up.
fn run(n: usize, snr_db: f64, series: &[(i8, u8)], can_time: bool) -> (Seen, u64) {
    let addr = |i: usize| MacAddress([2, 0, 0, 0, i as u8, 0]);
    let setup = Setup {
        interfaces: (0..n).map(addr).collect(),
        model: LinkModel::Snr { default_snr_db: snr_db, links: Vec::new() },
        ..Setup::default()
    };
    let opts = Options { setup, ..Options::default() };
    let time = Cell::new(0u64);
    let stop = Arc::new(AtomicBool::new(false));
    let mut side = Loopback {
        time: &time,
        stations: (0..n).map(|i| Station { addr: addr(i), peer: addr(i ^ 1), cookie: 0 }).collect(),
        series: series.to_vec(),
        to_loop: VecDeque::new(),
        timed: Vec::new(),
        can_time,
        seen: Seen::default(),
        warm_up: 5000,
        until: 25000,
        counted: None,
        stop: stop.clone(),
    };
    for i in 0..n {
        side.next_frame(i);
    }
    let mut poller = Poller::new().unwrap();
    let env = LoopEnv { family: FAMILY, pid: 4242, stop, origin: 0, now: &|| time.get() };
    run_loop(&mut side, &mut poller, None, &opts, env).unwrap();
    ARMED.with(|c| c.set(false));
    let counted = side.counted.expect("the loop ran to the end of the count");
    (side.seen, counted)
}

/// 54 Mb/s, 6 tries.
const CLEAN: [(i8, u8); 1] = [(11, 6)];
/// 54, then 24, then 6 Mb/s, two tries each.
const FALLING: [(i8, u8); 3] = [(11, 2), (8, 2), (4, 2)];

#[test]
fn two_stations_allocate_nothing_per_frame() {
    for can_time in [true, false] {
        let (seen, allocs) = run(2, 40.0, &CLEAN, can_time);
        assert!(seen.deliveries >= 24_000 && seen.acked >= 24_000, "{seen:?}");
        assert_eq!(allocs, 0, "allocations in 20,000 frames (timed sends: {can_time}): {seen:?}");
    }
}

#[test]
fn ten_stations_allocate_nothing_per_frame() {
    for can_time in [true, false] {
        let (seen, allocs) = run(10, 40.0, &CLEAN, can_time);
        // Collisions among ten saturated stations: some frames are sent again.
        assert!(seen.attempts > seen.statuses, "{seen:?}");
        assert!(seen.deliveries >= 20_000, "{seen:?}");
        assert_eq!(allocs, 0, "allocations in 20,000 frames (timed sends: {can_time}): {seen:?}");
    }
}

#[test]
fn a_lossy_link_with_retries_and_falling_rates_allocates_nothing_per_frame() {
    for can_time in [true, false] {
        // 20 dB: 54 Mb/s mostly fails, 24 Mb/s mostly gets through.
        let (seen, allocs) = run(4, 20.0, &FALLING, can_time);
        assert!(seen.attempts > seen.statuses + seen.statuses / 4, "retries: {seen:?}");
        assert!(seen.acked > seen.statuses / 2, "{seen:?}");
        assert_eq!(allocs, 0, "allocations in 20,000 frames (timed sends: {can_time}): {seen:?}");
    }
}

/// The io_uring side as the daemon uses it, on a UNIX datagram socket pair in place
/// of the netlink socket: each round a datagram comes in (a frame), one goes out at
/// once (a delivery) and one at a set time (its status), as with a medium run ahead.
#[test]
fn the_io_uring_side_allocates_nothing_per_datagram() {
    use sdmac_mediumd::syscall_count::monotonic_ns;
    use sdmac_mediumd::uring::Ring;
    use std::os::fd::AsRawFd;
    use std::os::unix::net::UnixDatagram;

    let (ours, kernel) = UnixDatagram::pair().unwrap();
    kernel.set_nonblocking(true).unwrap();
    let poller = Poller::new().unwrap();
    let mut ring = Ring::new(ours.as_raw_fd(), poller.as_raw_fd(), 8, 4096)
        .expect("io_uring with multishot recvmsg (Linux 6.0)");
    assert!(ring.can_time_sends(), "timed sends (Linux 5.17)");
    let (mut got, mut back) = (0u64, 0u64);
    let mut buf = [0u8; 64];
    for k in 0..3000u32 {
        if k == 1000 {
            ALLOCS.with(|n| n.set(0));
            ARMED.with(|c| c.set(true));
        }
        let _theirs = pause();
        kernel.send(&k.to_le_bytes()).unwrap();
        drop(_theirs);
        let now = monotonic_ns();
        ring.queue_send(b"delivery").unwrap();
        ring.queue_send_at(b"status", now + 50_000).unwrap();
        ring.timed_may_hold_until(now + 50_000);
        ring.wait(Some(now + 100_000), 10, 64, |d| got += d.len() as u64).unwrap();
        // Every send is out before the next round: the slots stay as few as here.
        ring.flush().unwrap();
        let _theirs = pause();
        while kernel.recv(&mut buf).is_ok() {
            back += 1;
        }
    }
    ARMED.with(|c| c.set(false));
    let counted = allocs();
    // What the last waits left is taken now.
    for _ in 0..100 {
        if got == 4 * 3000 {
            break;
        }
        ring.wait(Some(monotonic_ns() + 1_000_000), 10, 64, |d| got += d.len() as u64).unwrap();
    }
    assert_eq!(got, 4 * 3000, "every datagram in");
    assert_eq!(back, 2 * 3000, "every datagram out");
    assert_eq!(counted, 0, "allocations in 2,000 rounds");
}
