//! The daemon with `--threads`: the main thread receives from the kernel (one
//! recvmmsg per batch, as on one thread), serves the control socket and writes the
//! statistics; each engine medium — (configured medium id, channel) — runs on its own
//! thread (`worker`), fed by the [`Dispatcher`]. Every thread sends its own
//! outputs on the one netlink socket.
//!
//! Shutdown (SIGTERM/SIGINT, or a control client's shutdown): every worker answers
//! every frame still in flight and ends; the main thread joins them, writes the last
//! statistics and exits. If a worker fails (a panic, a send error), it answers its
//! frames in flight as not acknowledged, the others are stopped the same way and the
//! daemon exits with an error.

use crate::control_clients::Clients;
use crate::control_socket::ControlSocket;
use crate::dispatch::Dispatcher;
use crate::encode::Datagrams;
use crate::error::{io_err, DaemonError};
use crate::kernel_side::{EpollSide, KernelSide, NL};
use crate::options::Options;
use crate::poller::Poller;
use crate::stats::DaemonCounters;
use crate::{startup, syscall_count};
use std::os::fd::AsRawFd;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

const FAILED: u64 = 1;

/// Runs until SIGTERM/SIGINT (or a control client's shutdown).
/// `control` is the control socket of `-s`, already open
/// (the daemon's `open_control`).
pub fn run(opts: Options, control: Option<ControlSocket>) -> Result<(), DaemonError> {
    let (sock, family) = startup::connect()?;
    let sock = Arc::new(sock);
    let stop = startup::stop_flag()?;
    let mut poller = Poller::new().map_err(io_err("epoll"))?;
    poller.add(sock.as_raw_fd(), NL).map_err(io_err("epoll add"))?;
    let mut clients = Clients::new(control, &poller)?;
    let mut ready: Vec<u64> = Vec::new();
    let origin = crate::syscall_count::monotonic_ns();
    let mut setup = opts.setup.clone();
    setup.capture = opts.capture.is_some();
    let capture = startup::open_capture(&opts)?.map(|c| Arc::new(Mutex::new(c)));
    // Flushed however run returns, even while workers still hold it.
    let _flush_at_end = capture.clone().map(crate::capture::FlushOnDrop);
    let mut stats = startup::open_stats(&opts)?;
    let log = opts.log_level;
    let sink: Arc<dyn Datagrams> = sock.clone();
    let mut d = Dispatcher::new(setup, sink, family, capture.clone(), stats.is_some(), origin, log)
        .map_err(io_err("eventfd"))?
        .coalesce(opts.coalesce_ns);
    poller.add(d.failure_fd(), FAILED).map_err(io_err("epoll add"))?;
    let mut next_stats = 1_000_000_000u64;
    let mut next_capture_flush = 1_000_000_000u64;
    // The kernel side is epoll's (the workers send on their own).
    let mut kernel = EpollSide::new(&sock);
    let mut rounds = 0u64;
    let now = || crate::syscall_count::monotonic_ns() - origin;
    loop {
        rounds += 1;
        let deadline = match (stats.is_some(), capture.is_some()) {
            (false, false) => None,
            (true, false) => Some(next_stats + origin),
            (false, true) => Some(next_capture_flush + origin),
            (true, true) => Some(next_stats.min(next_capture_flush) + origin),
        };
        // Wake for a refused TX status to send again too.
        let deadline = match (deadline, d.next_resend_time().map(|r| r + origin)) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        ready.clear();
        kernel.wait(deadline, &mut poller, &mut ready, &now, &mut |_, _| {})?;
        clients.accept(&ready, &poller, log);
        if Clients::any_ready(&ready) {
            clients.serve(&ready, &poller, &stop, log, |req| d.control(now(), req));
        }
        let failed = d.failure();
        if stop.load(Ordering::Relaxed) || failed.is_some() {
            let fin = d.stop()?;
            if let Some(c) = capture.as_ref() {
                c.lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .flush()
                    .map_err(io_err("capture file"))?;
            }
            if let Some(w) = stats.as_mut() {
                let c = DaemonCounters {
                    mono_ns: crate::syscall_count::monotonic_ns(),
                    frames: fin.counters.frames_in,
                    deliveries: fin.counters.deliveries,
                    statuses: fin.counters.statuses,
                    syscalls: syscall_count::total(),
                    rounds: rounds + fin.rounds,
                    late: fin.late.0,
                    timed: 0,
                    timed_overdue: 0,
                    refused: fin.counters.refused,
                    refusals: fin.counters.refusals,
                    status_retries: fin.counters.status_retries,
                    statuses_refused: fin.counters.statuses_refused,
                };
                w.write(now(), &fin.stats, &c).map_err(io_err("stats file"))?;
            }
            if log >= 5 {
                for (k, m) in fin.keys.iter().zip(&fin.media) {
                    eprintln!("sdmac-mediumd: medium {} on {} MHz: {:?}", k.0, k.1, m.counters());
                }
                eprintln!(
                    "sdmac-mediumd: stopping; {:?}; {} system calls in {} rounds ({} threads); {}",
                    fin.counters,
                    syscall_count::total(),
                    rounds + fin.rounds,
                    fin.media.len() + 1,
                    fin.late.1
                );
            }
            clients.remove_socket_file();
            return match fin.failed {
                Some(what) => Err(DaemonError::Worker(what)),
                None => Ok(()),
            };
        }
        // Everything the kernel sent: a batch that comes back short emptied the
        // socket. The workers are woken once per batch.
        kernel.receive(&now, &mut |batch, t| {
            for dg in batch.datagrams() {
                d.on_datagram(dg, t);
            }
            d.wake_workers()
        })?;
        d.resend_due(now());
        // Control requests handed on are taken when the workers next wake.
        d.wake_workers()?;
        if let Some(w) = stats.as_mut() {
            let t = now();
            if t >= next_stats {
                let (media, c, n, late) = d.stats(rounds);
                let dc = DaemonCounters {
                    mono_ns: crate::syscall_count::monotonic_ns(),
                    frames: c.frames_in,
                    deliveries: c.deliveries,
                    statuses: c.statuses,
                    syscalls: syscall_count::total(),
                    rounds: n,
                    late,
                    timed: 0,
                    timed_overdue: 0,
                    refused: c.refused,
                    refusals: c.refusals,
                    status_retries: c.status_retries,
                    statuses_refused: c.statuses_refused,
                };
                w.write(t, &media, &dc).map_err(io_err("stats file"))?;
                next_stats = t - t % 1_000_000_000 + 1_000_000_000;
            }
        }
        if let Some(c) = capture.as_ref() {
            // Once a second the capture reaches the file whole, so that it is valid up
            // to then however the daemon ends.
            let t = now();
            if t >= next_capture_flush {
                c.lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .flush()
                    .map_err(io_err("capture file"))?;
                next_capture_flush = t - t % 1_000_000_000 + 1_000_000_000;
            }
        }
    }
}
