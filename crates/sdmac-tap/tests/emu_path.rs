//! The data path end to end without root: two stations of an emulated medium, each
//! station's "TAP device" the far end of a SOCK_SEQPACKET socket pair (a packet
//! descriptor, as a TAP device is). Ethernet frames written at one station come out
//! at the other unchanged; bad ones are counted with their reason; and in steady
//! state the station loop allocates nothing per frame.

use sdmac_emu::{EmuOptions, EmuSession};
use sdmac_tap::datapath::StationPath;
use sdmac_tap::stations::StationTable;
use sdmac_tap::{DropReason, Ds, TxParams};
use sdmac_types::MacAddress;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::Arc;
use std::time::{Duration, Instant};

struct Counting;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static COUNT: Cell<u64> = const { Cell::new(0) };
    static ZEROED: Cell<u64> = const { Cell::new(0) };
    static LAST_SIZE: Cell<usize> = const { Cell::new(0) };
}

fn note() {
    let _ = COUNTING.try_with(|on| {
        if on.get() {
            let _ = COUNT.try_with(|c| c.set(c.get() + 1));
        }
    });
}

// SAFETY: forwards to the system allocator; only counts on the side.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        if COUNTING.try_with(|c| c.get()).unwrap_or(false) {
            let _ = LAST_SIZE.try_with(|c| c.set(l.size()));
        }
        note();
        System.alloc(l)
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        // Zeroed blocks are counted apart: the emu backend's frame buffers are made so
        // (see below); nothing in sdmac-tap's loop asks for zeroed memory.
        let _ = COUNTING.try_with(|on| {
            if on.get() {
                let _ = ZEROED.try_with(|c| c.set(c.get() + 1));
            }
        });
        System.alloc_zeroed(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        note();
        System.realloc(p, l, n)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const A: MacAddress = MacAddress([2, 0, 0, 0, 0x0a, 1]);
const B: MacAddress = MacAddress([2, 0, 0, 0, 0x0a, 2]);
const BSSID: MacAddress = MacAddress([2, 0, 0, 0, 0x0a, 0x81]);

const SCENARIO: &str = r#"
name = "pair"
duration = 1.0
[phy]
standard = "802.11a"
rate = 54
[[station]]
name = "a"
address = "02:00:00:00:0a:01"
position = [0, 0]
[[station]]
name = "b"
address = "02:00:00:00:0a:02"
position = [5, 0]
"#;

fn seqpacket_pair() -> (OwnedFd, OwnedFd) {
    let mut fds = [0i32; 2];
    // SAFETY: socketpair writes two descriptors into `fds`; checked.
    let r = unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_SEQPACKET | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC,
            0,
            fds.as_mut_ptr(),
        )
    };
    assert_eq!(r, 0, "socketpair: {}", std::io::Error::last_os_error());
    // SAFETY: two fresh descriptors we own.
    unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) }
}

fn send(fd: &OwnedFd, frame: &[u8]) {
    // SAFETY: writes a valid slice.
    let n = unsafe { libc::write(fd.as_raw_fd(), frame.as_ptr().cast(), frame.len()) };
    assert_eq!(n, frame.len() as isize, "write: {}", std::io::Error::last_os_error());
}

/// Writes `frame` unless the socket is full.
fn try_send(fd: &OwnedFd, frame: &[u8]) -> bool {
    // SAFETY: writes a valid slice.
    let n = unsafe { libc::write(fd.as_raw_fd(), frame.as_ptr().cast(), frame.len()) };
    n == frame.len() as isize
}

fn recv(fd: &OwnedFd, buf: &mut [u8], timeout: Duration) -> Option<usize> {
    let end = Instant::now() + timeout;
    loop {
        // SAFETY: reads into a valid buffer.
        let n = unsafe { libc::read(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
        if n >= 0 {
            return Some(n as usize);
        }
        if Instant::now() > end {
            return None;
        }
        std::thread::sleep(Duration::from_micros(200));
    }
}

fn frame(dst: MacAddress, src: MacAddress, k: u32, len: usize) -> Vec<u8> {
    let mut f = [&dst.0[..], &src.0[..], &[0x08, 0x00]].concat();
    f.extend((0..len - 14).map(|i| (i as u32).wrapping_mul(31).wrapping_add(k) as u8));
    f[14..18].copy_from_slice(&k.to_be_bytes());
    f
}

#[test]
fn frames_cross_the_medium_and_bad_ones_are_counted() {
    pair(false);
}

/// The same with the TAP side served by io_uring (reads armed on the ring, writes
/// queued on it): same frames, same drops, and no allocation per frame on either
/// station, the sender's reads nor the receiver's writes.
#[test]
fn frames_cross_the_medium_over_io_uring() {
    pair(true);
}

fn pair(uring: bool) {
    let sc = sdmac_sim::Scenario::parse(SCENARIO, "pair.toml").unwrap();
    let built = sdmac_sim::runner::build(&sc).unwrap().swap_remove(0);
    let mut session =
        EmuSession::start(built.medium, &[("a", 0), ("b", 1)], EmuOptions::default()).unwrap();
    let (app_a, dev_a) = seqpacket_pair();
    let (app_b, dev_b) = seqpacket_pair();
    let stations = Arc::new(StationTable::with_stations(&[A, B], 2));
    let pa = TxParams { own: A, bssid: BSSID, ds: Ds::Ibss, qos_tid: None };
    let pb = TxParams { own: B, ..pa };
    let mut path_a = StationPath::new(
        session.take("a").unwrap(),
        dev_a.as_raw_fd(),
        pa,
        stations.clone(),
        false,
    );
    let mut path_b =
        StationPath::new(session.take("b").unwrap(), dev_b.as_raw_fd(), pb, stations, false);
    if uring {
        path_a.use_io_uring().expect("io_uring");
        path_b.use_io_uring().expect("io_uring");
        assert_eq!(path_a.io_uring(), Some(true), "buffers registered");
    }
    // Both stations are served from this thread, so that the allocation count
    // (per thread) covers the sender's reads and the receiver's writes.
    let path_b = std::cell::RefCell::new(path_b);
    let step = |path_a: &mut StationPath<_>, ms: i32| {
        let n = path_a.pass().unwrap() + path_b.borrow_mut().pass().unwrap();
        if n == 0 {
            path_a.wait(ms).unwrap();
        }
    };
    let mut buf = vec![0u8; 4096];
    let pump = |path: &mut StationPath<_>, until: &mut dyn FnMut() -> bool| {
        let end = Instant::now() + Duration::from_secs(10);
        while !until() {
            assert!(Instant::now() < end, "timed out");
            step(path, 1);
        }
    };

    // Unicast, sizes up to a full MTU, in order and unchanged.
    for k in 0..200u32 {
        let f = frame(B, A, k, 60 + (k as usize * 37) % 1441);
        send(&app_a, &f);
        let mut got = None;
        pump(&mut path_a, &mut || {
            got = recv(&app_b, &mut buf, Duration::ZERO);
            got.is_some()
        });
        assert_eq!(&buf[..got.unwrap()], &f[..], "frame {k}");
    }
    // Broadcast.
    let f = frame(MacAddress::BROADCAST, A, 7, 42);
    send(&app_a, &f);
    let mut got = None;
    pump(&mut path_a, &mut || {
        got = recv(&app_b, &mut buf, Duration::ZERO);
        got.is_some()
    });
    assert_eq!(&buf[..got.unwrap()], &f[..]);

    // Bad frames: each dropped with its reason, none reaches b.
    send(&app_a, &frame(B, B, 1, 60)); // not our source address
    send(&app_a, &frame(MacAddress([2, 9, 9, 9, 9, 9]), A, 2, 60)); // nobody's
    send(&app_a, &frame(B, A, 3, 2400)); // larger than an MSDU carries
    send(&app_a, &[1, 2, 3]); // runt
    let want = [
        DropReason::ForeignSource,
        DropReason::UnknownDestination,
        DropReason::Oversized,
        DropReason::TooShort,
    ];
    // A good frame behind them: frames from a reach b in order, so the first thing b
    // gets after the bad ones tells whether one went through.
    let good = frame(B, A, 4, 60);
    send(&app_a, &good);
    let mut got = None;
    pump(&mut path_a, &mut || {
        got = recv(&app_b, &mut buf, Duration::ZERO);
        got.is_some()
    });
    assert_eq!(&buf[..got.unwrap()], &good[..], "a bad frame went through");
    for r in want {
        assert_eq!(path_a.stats.drops_for(r), 1, "{r:?}: {:?}", path_a.stats);
    }

    // Steady state: the station loop allocates nothing per frame. The socket is kept
    // full, so the MAC's queue fills and the loop runs as under load. The first two
    // rounds let every pool reach its size; the third is counted. The emu interface's
    // own buffer pool grows (zeroed buffers) whenever more frames than ever before are
    // in flight, which timing decides (usually 0, at times 1, more on a loaded
    // machine): that growth must stay far below one per frame; any other allocation
    // fails the test.
    let f = frame(B, A, 9, 1000);
    let (mut sent, mut delivered, mut counted_allocs, mut pool_growth) = (0u64, 0u64, 0u64, 0u64);
    for (round, frames) in [(0, 400u64), (1, 400), (2, 300)] {
        let target = sent + frames;
        COUNT.with(|c| c.set(0));
        ZEROED.with(|c| c.set(0));
        COUNTING.with(|c| c.set(round == 2));
        let end = Instant::now() + Duration::from_secs(20);
        while path_a.stats.tap_rx_frames < 206 + target && Instant::now() < end {
            while sent < target && try_send(&app_a, &f) {
                sent += 1;
            }
            step(&mut path_a, 1);
            while recv(&app_b, &mut buf, Duration::ZERO).is_some() {
                delivered += 1;
            }
        }
        COUNTING.with(|c| c.set(false));
        counted_allocs += COUNT.with(|c| c.get());
        pool_growth += ZEROED.with(|c| c.get());
    }
    assert_eq!(path_a.stats.tap_rx_frames, 206 + sent, "the loop read every frame");
    assert_eq!(
        counted_allocs,
        0,
        "the station loop allocated {counted_allocs} times over 300 frames (last {} bytes)",
        LAST_SIZE.with(|c| c.get())
    );
    eprintln!("steady state: {pool_growth} new backend buffers over 300 frames");
    assert!(pool_growth < 30, "the backend's buffer pool grew {pool_growth} times in steady state");
    let end = Instant::now() + Duration::from_secs(10);
    while delivered < sent && Instant::now() < end {
        step(&mut path_a, 1);
        while recv(&app_b, &mut buf, Duration::ZERO).is_some() {
            delivered += 1;
        }
    }
    assert_eq!(delivered, sent, "{:?}", path_a.stats);
    // The receiver's last writes end (and are counted) on its next passes.
    for _ in 0..20 {
        step(&mut path_a, 1);
    }
    let b = path_b.borrow().stats.clone();
    assert_eq!(b.tap_tx_frames, 202 + sent, "{b:?}");
    assert!(path_a.stats.tx_acked >= 200, "{:?}", path_a.stats);
}

/// QoS stations: each frame goes on the access category of its priority (DSCP, or
/// a VLAN tag's PCP), as a QoS data frame, and comes out unchanged; the receiver
/// sees the category it was sent on.
#[test]
fn qos_stations_send_each_frame_on_its_access_category() {
    let sc = SCENARIO
        .replace("position = [0, 0]", "position = [0, 0]\nqos = true")
        .replace("position = [5, 0]", "position = [5, 0]\nqos = true");
    let sc = sdmac_sim::Scenario::parse(&sc, "qos.toml").unwrap();
    let built = sdmac_sim::runner::build(&sc).unwrap().swap_remove(0);
    let mut session =
        EmuSession::start(built.medium, &[("a", 0), ("b", 1)], EmuOptions::default()).unwrap();
    let (app_a, dev_a) = seqpacket_pair();
    let (app_b, dev_b) = seqpacket_pair();
    let pa = TxParams { own: A, bssid: BSSID, ds: Ds::Ibss, qos_tid: None };
    let pb = TxParams { own: B, ..pa };
    let table = Arc::new(StationTable::with_stations(&[A, B], 2));
    let mut path_a =
        StationPath::new(session.take("a").unwrap(), dev_a.as_raw_fd(), pa, table.clone(), false)
            .with_qos(true);
    let mut path_b =
        StationPath::new(session.take("b").unwrap(), dev_b.as_raw_fd(), pb, table, false)
            .with_qos(true);
    let ipv4 = |tos: u8| {
        let mut f = frame(B, A, 0, 100);
        f[14] = 0x45;
        f[15] = tos;
        f
    };
    let mut vlan = frame(B, A, 0, 100);
    vlan[12..14].copy_from_slice(&0x8100u16.to_be_bytes());
    vlan[14] = 7 << 5; // PCP 7
    vlan[15] = 1;
    // EF (VI), CS1 (BK), default (BE), PCP 7 (VO).
    let frames = [ipv4(46 << 2), ipv4(8 << 2), ipv4(0), vlan];
    for f in &frames {
        send(&app_a, f);
    }
    let mut got = Vec::new();
    let mut buf = vec![0u8; 4096];
    let end = Instant::now() + Duration::from_secs(10);
    while got.len() < frames.len() {
        assert!(Instant::now() < end, "timed out: {:?} {:?}", path_a.stats, path_b.stats);
        let n = path_a.pass().unwrap() + path_b.pass().unwrap();
        if n == 0 {
            path_a.wait(1).unwrap();
        }
        while let Some(len) = recv(&app_b, &mut buf, Duration::ZERO) {
            got.push(buf[..len].to_vec());
        }
    }
    got.sort();
    let mut want = frames.to_vec();
    want.sort();
    assert_eq!(got, want, "every frame arrives unchanged");
    // BK, BE, VI, VO: one each.
    assert_eq!(path_a.stats.tx_by_ac, [1, 1, 1, 1], "{:?}", path_a.stats);
    assert_eq!(path_b.stats.rx_by_ac, [1, 1, 1, 1], "{:?}", path_b.stats);
}

/// A station put on the running medium (`EmuSession::add_station`) and into the
/// station table while the other paths run: frames to it are dropped as
/// `unknown_destination` until the table has it, then cross the medium both ways.
#[test]
fn a_station_added_while_the_paths_run_is_reached() {
    const C: MacAddress = MacAddress([2, 0, 0, 0, 0x0a, 3]);
    let sc = sdmac_sim::Scenario::parse(SCENARIO, "pair.toml").unwrap();
    let built = sdmac_sim::runner::build(&sc).unwrap().swap_remove(0);
    let mut cfg = built.medium.station(1).unwrap().clone();
    let mut session =
        EmuSession::start(built.medium, &[("a", 0), ("b", 1)], EmuOptions::default()).unwrap();
    let table = Arc::new(StationTable::with_stations(&[A, B], 3));
    let (app_a, dev_a) = seqpacket_pair();
    let pa = TxParams { own: A, bssid: BSSID, ds: Ds::Ibss, qos_tid: None };
    let mut path_a =
        StationPath::new(session.take("a").unwrap(), dev_a.as_raw_fd(), pa, table.clone(), false);
    let mut buf = vec![0u8; 4096];
    // Before C exists: unknown.
    send(&app_a, &frame(C, A, 1, 100));
    let end = Instant::now() + Duration::from_secs(10);
    while path_a.stats.drops_for(DropReason::UnknownDestination) == 0 {
        assert!(Instant::now() < end, "{:?}", path_a.stats);
        if path_a.pass().unwrap() == 0 {
            path_a.wait(1).unwrap();
        }
    }
    // C joins the running medium, then the table.
    cfg.address = C.0;
    cfg.position = [3.0, 0.0, 0.0];
    let iface_c = session.add_station("c", cfg).unwrap();
    assert_eq!(table.push(C), Ok(2));
    let (app_c, dev_c) = seqpacket_pair();
    let pc = TxParams { own: C, ..pa };
    let mut path_c = StationPath::new(iface_c, dev_c.as_raw_fd(), pc, table.clone(), false);
    let (to_c, to_a) = (frame(C, A, 2, 200), frame(A, C, 3, 300));
    send(&app_a, &to_c);
    send(&app_c, &to_a);
    let (mut at_c, mut at_a) = (None, None);
    let end = Instant::now() + Duration::from_secs(10);
    while at_c.is_none() || at_a.is_none() {
        assert!(Instant::now() < end, "timed out: {:?} {:?}", path_a.stats, path_c.stats);
        if path_a.pass().unwrap() + path_c.pass().unwrap() == 0 {
            path_a.wait(1).unwrap();
        }
        if let Some(n) = recv(&app_c, &mut buf, Duration::ZERO) {
            at_c = Some(buf[..n].to_vec());
        }
        if let Some(n) = recv(&app_a, &mut buf, Duration::ZERO) {
            at_a = Some(buf[..n].to_vec());
        }
    }
    assert_eq!(at_c.unwrap(), to_c);
    assert_eq!(at_a.unwrap(), to_a);
    assert_eq!(path_a.stats.drops_for(DropReason::UnknownDestination), 1);
    // Removed from the table: unknown again; the table is full, so no more fit.
    table.remove(2);
    send(&app_a, &frame(C, A, 4, 100));
    let end = Instant::now() + Duration::from_secs(10);
    while path_a.stats.drops_for(DropReason::UnknownDestination) < 2 {
        assert!(Instant::now() < end, "{:?}", path_a.stats);
        if path_a.pass().unwrap() == 0 {
            path_a.wait(1).unwrap();
        }
    }
    assert!(table.push(MacAddress([2, 0, 0, 0, 0x0a, 4])).is_err(), "capacity 3");
}
