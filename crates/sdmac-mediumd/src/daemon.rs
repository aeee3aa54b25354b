//! The daemon: registers with mac80211_hwsim over generic netlink and runs the medium
//! on the wall clock in an epoll loop — netlink socket, control socket, a deadline,
//! SIGTERM/SIGINT.
//!
//! System calls are the cost of a medium daemon, so a round makes few: one epoll
//! wait; one recvmmsg for every frame the kernel sent meanwhile (each frame is its own
//! datagram), only when the socket became readable; one send for every output of the
//! round (several netlink messages per datagram, no ACK requested); the deadline is
//! the wait's own timeout (epoll_pwait2, nanoseconds), no timer descriptor to set or
//! read. The daemon wakes when a frame
//! arrives and at the medium's next *output* (`next_output_time`), not at each of the
//! engine's internal events: those run, at their own times, when it next advances.

use crate::control::{encode_reply, Decoder};
use crate::control_apply::apply;
use crate::hwsim_medium::{HwsimMedium, KernelFrame, Output, Setup, StatusEcho};
use crate::capture::Capture;
use crate::netlink::{NlSocket, RecvBatch};
use crate::syscall_count;
use crate::stats::{DaemonCounters, StatsWriter};
use crate::poller::Poller;
use sdmac_hwsim::genl::ctrl::{FamilyInfo, GetFamily};
use sdmac_hwsim::hwsim::{HwsimFlags, HwsimMsg, RxFrame, TxInfoFrame, TxRate, FAMILY_NAME, TX_MAX_RATES};
use sdmac_hwsim::nl::{self, ErrorMsg, NlHeader, NlPacket};
use sdmac_hwsim::rate::{rx_rate_index, Band};
use std::collections::HashMap;
use std::os::unix::net::{UnixListener, UnixStream};
use std::io::{self, Write};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Why the daemon stopped.
#[derive(Debug)]
pub enum DaemonError {
    /// A system call failed.
    Io(&'static str, io::Error),
    /// The hwsim family is not there (module not loaded).
    NoFamily,
    /// The kernel refused the registration.
    Register(i32),
    /// A reply could not be decoded.
    Protocol(String),
}

impl std::fmt::Display for DaemonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DaemonError::Io(what, e) => write!(f, "{what}: {e}"),
            DaemonError::NoFamily => write!(f, "generic netlink family {FAMILY_NAME} not found: is mac80211_hwsim loaded?"),
            DaemonError::Register(e) if *e == libc::EBUSY => write!(f, "REGISTER refused (EBUSY): another medium daemon (wmediumd?) is registered"),
            DaemonError::Register(e) if *e == libc::EOPNOTSUPP => {
                write!(f, "REGISTER refused (EOPNOTSUPP): a radio has more than one channel (load mac80211_hwsim without multi-channel radios)")
            }
            DaemonError::Register(e) => write!(f, "REGISTER refused: errno {e}"),
            DaemonError::Protocol(m) => write!(f, "netlink: {m}"),
        }
    }
}

impl std::error::Error for DaemonError {}

/// Options of a run.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The medium.
    pub setup: Setup,
    /// Log level (0 quiet … 7 debug).
    pub log_level: u8,
    /// Mininet-WiFi's control socket (UNIX stream) to listen on.
    pub control_socket: Option<std::path::PathBuf>,
    /// Capture every frame on air here (pcapng, radiotap).
    pub capture: Option<std::path::PathBuf>,
    /// Write per-second statistics here (JSON lines; "-" for stdout).
    pub stats: Option<std::path::PathBuf>,
}

/// A client of the control socket.
struct Client {
    stream: UnixStream,
    decoder: Decoder,
}

const NL: u64 = 0;
const LISTENER: u64 = 2;
const FIRST_CLIENT: u64 = 16;

fn io_err(what: &'static str) -> impl FnOnce(io::Error) -> DaemonError {
    move |e| DaemonError::Io(what, e)
}

/// Waits for the reply to request `seq`: returns its bytes (NLMSG_ERROR handled).
fn request(sock: &NlSocket, msg: &[u8], seq: u32) -> Result<Vec<u8>, DaemonError> {
    sock.send(msg).map_err(io_err("netlink send"))?;
    let mut buf = vec![0u8; 65536];
    loop {
        let n = sock.recv(&mut buf, true).map_err(io_err("netlink recv"))?.unwrap_or(0);
        for m in nl::messages(&buf[..n]) {
            let m = m.map_err(|e| DaemonError::Protocol(e.to_string()))?;
            if m.header().seq != seq {
                continue;
            }
            if m.header().ty == nl::NLMSG_ERROR {
                let e = ErrorMsg::parse(&m).map_err(|e| DaemonError::Protocol(e.to_string()))?;
                return match e.errno() {
                    None | Some(0) => Ok(Vec::new()),
                    Some(errno) => Err(DaemonError::Register(errno)),
                };
            }
            return Ok(m.bytes().to_vec());
        }
    }
}

fn resolve_family(sock: &NlSocket) -> Result<u16, DaemonError> {
    let mut buf = [0u8; 128];
    let req = GetFamily { name: FAMILY_NAME };
    let n = req.emit(nl::flags::REQUEST, 1, sock.pid(), &mut buf).map_err(|e| DaemonError::Protocol(e.to_string()))?;
    let reply = request(sock, &buf[..n], 1).map_err(|e| match e {
        DaemonError::Register(_) => DaemonError::NoFamily,
        other => other,
    })?;
    if reply.is_empty() {
        return Err(DaemonError::NoFamily);
    }
    let p = NlPacket::new_checked(&reply[..]).map_err(|e| DaemonError::Protocol(e.to_string()))?;
    let info = FamilyInfo::parse(&p).map_err(|e| DaemonError::Protocol(e.to_string()))?;
    Ok(info.id)
}

fn register(sock: &NlSocket, family: u16) -> Result<(), DaemonError> {
    let mut buf = [0u8; 64];
    let hdr = NlHeader::request(family, nl::flags::REQUEST | nl::flags::ACK, 2, sock.pid());
    let n = HwsimMsg::Register.emit(&hdr, &mut buf).map_err(|e| DaemonError::Protocol(e.to_string()))?;
    request(sock, &buf[..n], 2).map(|_| ())
}

/// Runs until SIGTERM/SIGINT. Every frame still in flight is answered before exit.
pub fn run(opts: Options) -> Result<(), DaemonError> {
    let sock = NlSocket::open(8 << 20).map_err(io_err("netlink socket"))?;
    let family = resolve_family(&sock)?;
    register(&sock, family)?;
    {
        let mut out = io::stdout().lock();
        let _ = writeln!(out, "REGISTER SENT!");
        let _ = out.flush();
    }
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGTERM, signal_hook::consts::SIGINT] {
        signal_hook::flag::register(sig, stop.clone()).map_err(io_err("signal handler"))?;
    }
    let mut poller = Poller::new().map_err(io_err("epoll"))?;
    poller.add(sock.as_raw_fd(), NL).map_err(io_err("epoll add"))?;
    let listener = match &opts.control_socket {
        Some(path) => {
            let _ = std::fs::remove_file(path);
            let l = UnixListener::bind(path).map_err(io_err("control socket"))?;
            l.set_nonblocking(true).map_err(io_err("control socket"))?;
            poller.add(l.as_raw_fd(), LISTENER).map_err(io_err("epoll add"))?;
            Some(l)
        }
        None => None,
    };
    let mut clients: HashMap<u64, Client> = HashMap::new();
    let mut next_client = FIRST_CLIENT;
    let mut ready: Vec<u64> = Vec::new();
    let origin = sdmac_rt::monotonic_ns();
    let mut setup = opts.setup.clone();
    setup.capture = opts.capture.is_some();
    let mut capture = match &opts.capture {
        Some(p) => Some(Capture::create(p).map_err(io_err("capture file"))?),
        None => None,
    };
    let mut stats = match &opts.stats {
        // Buffered: a write system call per interval, not per field.
        Some(p) if p.as_os_str() == "-" => Some(StatsWriter::new(Box::new(io::BufWriter::new(io::stdout())) as Box<dyn Write>)),
        Some(p) => Some(StatsWriter::new(Box::new(io::BufWriter::new(std::fs::File::create(p).map_err(io_err("stats file"))?)) as Box<dyn Write>)),
        None => None,
    };
    let mut next_stats = 1_000_000_000u64;
    let mut medium = HwsimMedium::new(setup);
    let mut rx = RecvBatch::new(64, 16 << 10);
    let mut nl_ready = true;
    let mut rounds = 0u64;
    let mut out: Vec<Output> = Vec::new();
    let mut tx = vec![0u8; 1 << 16];
    let mut seq = 3u32;
    let now = || sdmac_rt::monotonic_ns() - origin;
    loop {
        rounds += 1;
        let deadline = medium.next_output_time().map(|t| t + origin);
        ready.clear();
        ready.extend_from_slice(poller.wait(deadline, 500).map_err(io_err("epoll"))?);
        nl_ready |= ready.contains(&NL);
        if let Some(l) = listener.as_ref() {
            if ready.contains(&LISTENER) {
                while let Ok((stream, _)) = {
                    syscall_count::add(1);
                    l.accept()
                } {
                    let t = next_client;
                    next_client += 1;
                    if stream.set_nonblocking(true).is_ok() && poller.add(stream.as_raw_fd(), t).is_ok() {
                        clients.insert(t, Client { stream, decoder: Decoder::new() });
                    }
                }
            }
        }
        if ready.iter().any(|&t| t >= FIRST_CLIENT) {
            // Whatever was due before the request happens first (a movement step, a
            // frame's end), so the request applies to the medium as it is now.
            medium.advance(now(), &mut out);
        }
        for &t in ready.iter().filter(|&&t| t >= FIRST_CLIENT) {
            let keep = match clients.get_mut(&t) {
                Some(c) => serve_client(c, &mut medium, &stop, opts.log_level),
                None => continue,
            };
            if !keep {
                if let Some(c) = clients.remove(&t) {
                    poller.remove(c.stream.as_raw_fd());
                }
            }
        }
        if stop.load(Ordering::Relaxed) {
            medium.flush(&mut out);
            send_outputs(&sock, family, &mut seq, &mut out, &mut tx, &mut capture, origin)?;
            if let Some(c) = capture.as_mut() {
                c.flush().map_err(io_err("capture file"))?;
            }
            if let Some(w) = stats.as_mut() {
                w.write(now(), &medium.medium_stats_by_medium(), &daemon_counters(&medium, rounds)).map_err(io_err("stats file"))?;
            }
            if opts.log_level >= 5 {
                eprintln!("sdmac-mediumd: stopping; {:?}; {} system calls in {rounds} rounds", medium.counters(), syscall_count::total());
            }
            if let Some(path) = &opts.control_socket {
                let _ = std::fs::remove_file(path);
            }
            return Ok(());
        }
        // Everything the kernel sent: a batch that comes back short emptied the
        // socket.
        while nl_ready {
            let n = sock.recv_batch(&mut rx).map_err(io_err("netlink recv"))?;
            nl_ready = n == rx.capacity();
            let t = now();
            for d in rx.datagrams() {
                on_datagram(d, family, t, &mut medium, &mut out, opts.log_level);
            }
        }
        let t = now();
        medium.advance(t, &mut out);
        send_outputs(&sock, family, &mut seq, &mut out, &mut tx, &mut capture, origin)?;
        if let Some(w) = stats.as_mut() {
            if t >= next_stats {
                w.write(t, &medium.medium_stats_by_medium(), &daemon_counters(&medium, rounds)).map_err(io_err("stats file"))?;
                next_stats = t - t % 1_000_000_000 + 1_000_000_000;
            }
        }
    }
}

fn daemon_counters(m: &HwsimMedium, rounds: u64) -> DaemonCounters {
    let c = m.counters();
    DaemonCounters {
        mono_ns: sdmac_rt::monotonic_ns(),
        frames: c.frames_in,
        deliveries: c.deliveries,
        statuses: c.statuses,
        syscalls: syscall_count::total(),
        rounds,
    }
}

/// Hands every hwsim message of a datagram from the kernel to the medium.
fn on_datagram(d: &[u8], family: u16, t: u64, medium: &mut HwsimMedium, out: &mut Vec<Output>, log: u8) {
    for m in nl::messages(d) {
        let Ok(m) = m else { break };
        if m.header().ty != family {
            continue;
        }
        match HwsimMsg::parse(&m) {
            Ok(HwsimMsg::Frame(f)) => {
                let rates: Vec<(sdmac_phy::Rate, u8)> =
                    f.rate_series().filter_map(|r| r.ok()).map(|(r, c)| (r.to_phy().unwrap_or_else(|_| r.nearest_phy()), c)).collect();
                let kf = KernelFrame {
                    transmitter: f.transmitter,
                    frame: f.frame,
                    no_ack: !f.wants_ack(),
                    freq: f.freq.unwrap_or(2412),
                    rates,
                    cookie: f.cookie,
                    echo: StatusEcho { rate_idx: f.tx_info.map(|r| r.idx), flags: f.flags.bits() },
                };
                medium.on_frame(t, kf, out);
            }
            Ok(HwsimMsg::AddMacAddr(e)) => medium.add_address(e.radio, e.addr),
            Ok(_) => {}
            Err(e) => {
                if log >= 4 {
                    eprintln!("sdmac-mediumd: ignoring a malformed message: {e}");
                }
            }
        }
    }
}

/// Reads what a control client sent, applies every whole request and answers it.
/// False when the client is gone or sent a request type that cannot be parsed (the
/// stream cannot be resynchronised, so it is closed; the daemon goes on).
fn serve_client(c: &mut Client, medium: &mut HwsimMedium, stop: &AtomicBool, log: u8) -> bool {
    use std::io::Read;
    let mut buf = [0u8; 4096];
    loop {
        syscall_count::add(1);
        match c.stream.read(&mut buf) {
            Ok(0) => return false,
            Ok(n) => c.decoder.push(&buf[..n]),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => return false,
        }
    }
    loop {
        match c.decoder.next_request() {
            Ok(Some((req, raw))) => {
                let a = apply(medium, &req);
                if let (Some(note), true) = (a.note, log >= 6) {
                    eprintln!("sdmac-mediumd: control: {note}");
                }
                if a.stop {
                    stop.store(true, Ordering::Relaxed);
                }
                if let Some(reply) = encode_reply(&raw, a.result, a.id) {
                    if write_all(&mut c.stream, &reply).is_err() {
                        return false;
                    }
                }
            }
            Ok(None) => return true,
            Err(e) => {
                if log >= 3 {
                    eprintln!("sdmac-mediumd: {e}; closing that client");
                }
                return false;
            }
        }
    }
}

fn write_all(s: &mut UnixStream, mut b: &[u8]) -> io::Result<()> {
    use std::io::Write as _;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(1);
    while !b.is_empty() {
        syscall_count::add(1);
        match s.write(b) {
            Ok(n) => b = &b[n..],
            Err(e) if e.kind() == io::ErrorKind::WouldBlock && std::time::Instant::now() < deadline => std::thread::yield_now(),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Encodes the outputs, several messages per datagram, and sends them; frames on
/// air go to the capture.
#[allow(clippy::too_many_arguments)]
fn send_outputs(
    sock: &NlSocket,
    family: u16,
    seq: &mut u32,
    out: &mut Vec<Output>,
    tx: &mut [u8],
    capture: &mut Option<Capture>,
    origin: u64,
) -> Result<(), DaemonError> {
    let mut at = 0;
    for o in out.drain(..) {
        if let Output::Air { t_start, freq, rate, frame } = &o {
            if let Some(c) = capture.as_mut() {
                c.record(origin + t_start, *freq, *rate, frame).map_err(io_err("capture file"))?;
            }
            continue;
        }
        *seq = seq.wrapping_add(1);
        let hdr = NlHeader::request(family, nl::flags::REQUEST, *seq, sock.pid());
        let msg = match &o {
            Output::TxStatus { transmitter, cookie, acked, signal_dbm, attempts, echo } => {
                // The frame's own rate indices with the attempts made; the list ends
                // at the first entry not used.
                let mut tx_info = [TxRate::END; TX_MAX_RATES];
                for (k, r) in tx_info.iter_mut().enumerate() {
                    let n = attempts.get(k).copied().unwrap_or(0);
                    if echo.rate_idx[k] < 0 || n == 0 {
                        break;
                    }
                    *r = TxRate::new(echo.rate_idx[k], n);
                }
                let flags = HwsimFlags::from_bits_retain(echo.flags);
                let flags = if *acked { flags | HwsimFlags::STAT_ACK } else { flags };
                HwsimMsg::TxInfo(TxInfoFrame { transmitter: *transmitter, flags, cookie: *cookie, signal: *signal_dbm, tx_info })
            }
            Output::Deliver { receiver, frame, rate, signal_dbm, freq } => {
                let band = Band::from_freq(*freq).unwrap_or(Band::from_freq(2412).expect("2.4 GHz band"));
                HwsimMsg::Delivery(RxFrame { receiver: *receiver, frame, rx_rate: rx_rate_index(*rate, band), signal: *signal_dbm, freq: *freq })
            }
            Output::Air { .. } => continue,
        };
        let len = msg.buffer_len();
        if at + len > tx.len() {
            sock.send(&tx[..at]).map_err(io_err("netlink send"))?;
            at = 0;
        }
        let n = msg.emit(&hdr, &mut tx[at..]).map_err(|e| DaemonError::Protocol(e.to_string()))?;
        at += n;
    }
    if at > 0 {
        sock.send(&tx[..at]).map_err(io_err("netlink send"))?;
    }
    Ok(())
}
