//! The daemon with `--threads`: the main thread receives from the kernel (one
//! recvmmsg per batch, as on one thread), serves the control socket and writes the
//! statistics; each engine medium — (configured medium id, channel) — runs on its own
//! thread (`worker`), fed by the [`Dispatcher`]. Every thread sends its own
//! outputs on the one netlink socket. The main thread runs the daemon's one loop
//! (`crate::daemon`), driving the dispatcher.
//!
//! Shutdown (SIGTERM/SIGINT, or a control client's shutdown): every worker answers
//! every frame still in flight and ends; the main thread joins them, writes the last
//! statistics and exits. If a worker fails (a panic, a send error), it answers its
//! frames in flight as not acknowledged, the others are stopped the same way and the
//! daemon exits with an error.

use crate::capture::Capture;
use crate::control_clients::Clients;
use crate::control_socket::ControlSocket;
use crate::dispatch::{Dispatcher, Finished};
use crate::encode::Datagrams;
use crate::error::{io_err, DaemonError};
use crate::event_loop::{drive, Driver, LoopEnv, Stopped};
use crate::kernel_side::{EpollSide, KernelSide, NL};
use crate::media::MediumId;
use crate::options::Options;
use crate::poller::Poller;
use crate::stats::DaemonCounters;
use crate::stopping::Stopping;
use crate::{startup, syscall_count};
use sdmac_medium::{MediumStats, Time, WallClock};
use std::os::fd::AsRawFd;
use std::sync::atomic::AtomicBool;
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
    let clients = Clients::new(control, &poller)?;
    // Medium time 0 is now (see the daemon's "The clock").
    let clock = WallClock::new();
    let origin = clock.origin();
    let mut setup = opts.setup.clone();
    setup.capture = opts.capture.is_some();
    let capture = startup::open_capture(&opts)?.map(|c| Arc::new(Mutex::new(c)));
    // Flushed however run returns, even while workers still hold it.
    let _flush_at_end = capture.clone().map(crate::capture::FlushOnDrop);
    let stats = startup::open_stats(&opts)?;
    let log = opts.log_level;
    let sink: Arc<dyn Datagrams> = sock.clone();
    let d = Dispatcher::new(setup, sink, family, capture.clone(), stats.is_some(), origin, log)
        .map_err(io_err("eventfd"))?
        .coalesce(opts.coalesce_ns);
    poller.add(d.failure_fd(), FAILED).map_err(io_err("epoll add"))?;
    // The kernel side is epoll's (the workers send on their own).
    let mut kernel = EpollSide::new(&sock);
    let mut threads = Threads { d: Some(d), fin: None, capture, log };
    let now = || clock.medium_time(syscall_count::monotonic_ns());
    let env = LoopEnv { family, pid: sock.pid(), stop, origin, now: &now };
    drive(&mut threads, &mut kernel, &mut poller, clients, stats, log, &env)
}

/// The dispatcher, as the loop drives it; what the workers left when it stopped.
struct Threads {
    /// Taken when it stops.
    d: Option<Dispatcher>,
    fin: Option<Finished>,
    capture: Option<Arc<Mutex<Capture>>>,
    log: u8,
}

impl Threads {
    fn d(&mut self) -> &mut Dispatcher {
        self.d.as_mut().expect("the dispatcher runs until the loop stops")
    }
}

impl Driver for Threads {
    fn wake_at(&self) -> Option<Time> {
        // For a refused TX status to send again.
        self.d.as_ref().and_then(Dispatcher::next_resend_time)
    }

    fn has_capture(&self) -> bool {
        self.capture.is_some()
    }

    fn wakes_for_stats(&self) -> bool {
        true
    }

    fn on_datagram(&mut self, dg: &[u8], t: Time) {
        self.d().on_datagram(dg, t);
    }

    fn after_batch(&mut self) -> Result<(), DaemonError> {
        // Everything the kernel sent: a batch that comes back short emptied the
        // socket. The workers are woken once per batch.
        self.d().wake_workers()
    }

    fn serve(
        &mut self,
        clients: &mut Clients,
        ready: &[u64],
        poller: &Poller,
        stop: &AtomicBool,
        now: Time,
    ) {
        if Clients::any_ready(ready) {
            let log = self.log;
            let d = self.d();
            clients.serve(ready, poller, stop, log, |req| d.control(now, req));
        }
    }

    fn failed(&self) -> bool {
        self.d.as_ref().is_some_and(|d| d.failure().is_some())
    }

    fn round(
        &mut self,
        t: Time,
        _kernel: &mut dyn KernelSide,
        _clients: &mut Clients,
        _poller: &Poller,
    ) -> Result<(), DaemonError> {
        let d = self.d();
        d.resend_due(t);
        // Control requests handed on are taken when the workers next wake.
        d.wake_workers()
    }

    fn flush_capture(&mut self) -> Result<(), DaemonError> {
        self.flush_held_capture()
    }

    fn stop(
        &mut self,
        now: &dyn Fn() -> Time,
        kernel: &mut dyn KernelSide,
        clients: &mut Clients,
        poller: &Poller,
    ) -> Result<Stopped, DaemonError> {
        self.stop_and_flush(now, kernel, clients, poller)
    }

    fn stats(
        &mut self,
        rounds: u64,
        _kernel: &dyn KernelSide,
    ) -> (Vec<(MediumId, u32, MediumStats)>, DaemonCounters) {
        let (media, c, rounds, late) = match (&mut self.d, &self.fin) {
            (Some(d), _) => d.stats(rounds),
            (None, Some(fin)) => (fin.stats.clone(), fin.counters, rounds + fin.rounds, fin.late.0),
            (None, None) => unreachable!("a dispatcher or what it left"),
        };
        let counters = DaemonCounters {
            mono_ns: syscall_count::monotonic_ns(),
            frames: c.frames_in,
            deliveries: c.deliveries,
            statuses: c.statuses,
            syscalls: syscall_count::total(),
            rounds,
            late,
            timed: 0,
            timed_overdue: 0,
            refused: c.refused,
            refusals: c.refusals,
            status_retries: c.status_retries,
            statuses_refused: c.statuses_refused,
        };
        (media, counters)
    }

    fn report_end(&self, rounds: u64, _kernel: &dyn KernelSide, _clients: &Clients) {
        let Some(fin) = self.fin.as_ref().filter(|_| self.log >= 5) else { return };
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
}

impl Stopping for Threads {
    type Capture = Arc<Mutex<Capture>>;

    fn held_capture(&mut self) -> Option<&mut Arc<Mutex<Capture>>> {
        self.capture.as_mut()
    }

    fn finish(
        &mut self,
        _now: &dyn Fn() -> Time,
        _kernel: &mut dyn KernelSide,
        _clients: &mut Clients,
        _poller: &Poller,
    ) -> Result<Stopped, DaemonError> {
        let d = self.d.take().expect("stopped once");
        let fin = d.stop()?;
        let failed = fin.failed.clone();
        self.fin = Some(fin);
        Ok(Stopped { failed })
    }
}
