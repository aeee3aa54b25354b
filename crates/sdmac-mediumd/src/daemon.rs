//! The daemon: registers with mac80211_hwsim over generic netlink and runs the medium
//! on the wall clock in one loop — netlink socket, control socket, a deadline,
//! SIGTERM/SIGINT.
//!
//! System calls are the cost of a medium daemon, so a round makes few. Where the
//! kernel has io_uring ([`Ring`]) a round is one `io_uring_enter`: it sends the
//! round's outputs and waits, with the deadline as its timeout, while a multishot
//! receive takes the kernel's frames. Otherwise (or with `--epoll`) it is one
//! epoll wait (epoll_pwait2, a nanosecond timeout: no timer descriptor to set or
//! read); one recvmmsg for every frame the kernel sent meanwhile (each frame is its
//! own datagram), only when the socket became readable; one send for every output
//! of the round (several netlink messages per datagram, no ACK requested). The
//! daemon wakes when a frame arrives and at the medium's next *output*
//! (`next_output_time`), not at each of the engine's internal events: those run, at
//! their own times, when it next advances. With io_uring it also runs each channel
//! ahead while its stations are blocked (`HwsimMedium::advance_quiet`) and queues what
//! is then known — at a DATA frame's end, the status due at its ACK's end — for the
//! kernel to send at its time (`Ring::queue_send_at`, see [`crate::timed`]): one
//! wake-up per exchange, exact timing (`--no-run-ahead` turns it off). Those sends
//! do not wake the daemon; a frame from the kernel does (`uring`'s bells). With
//! `--coalesce-us` ([`Coalesce`]) it wakes that window after an output is due instead,
//! and sends what is due by then (a delivery and its status) at once.
//!
//! With `--threads` ([`Options::threads`]) the loop of [`crate::threaded`] runs
//! instead: each engine medium on its own thread.

use crate::capture::Capture;
use crate::coalesce::{first_due, Coalesce};
use crate::control_clients::Clients;
use crate::control_socket::ControlSocket;
use crate::encode::Encoder;
use crate::error::io_err;
use crate::hwsim_medium::{HwsimMedium, Output};
use crate::kernel_msg::on_datagram;
use crate::kernel_side::{EpollSide, KernelSide, UringSide, NL};
use crate::lateness::{Lateness, LatenessSummary};
use crate::media::MediumId;
use crate::poller::Poller;
use crate::stats::{DaemonCounters, StatsWriter};
use crate::timed::Later;
use crate::uring::Ring;
use crate::{startup, syscall_count};
use sdmac_medium::{Clock, Time, WallClock};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

pub use crate::error::DaemonError;
pub use crate::options::Options;

/// Runs until SIGTERM/SIGINT (or a control client's shutdown). Every frame still in
/// flight is answered before exit.
pub fn run(opts: Options) -> Result<(), DaemonError> {
    // The control socket first: a path in use is refused before registering.
    let control = open_control(&opts)?;
    if opts.threads {
        return crate::threaded::run(opts, control);
    }
    let (sock, family) = startup::connect()?;
    let stop = startup::stop_flag()?;
    let mut poller = Poller::new().map_err(io_err("epoll"))?;
    // One system call a round where io_uring can (see `uring`); the epoll set then
    // holds only the control sockets.
    let ring = if opts.epoll {
        None
    } else {
        match Ring::new(sock.as_raw_fd(), poller.as_raw_fd(), 64, 16 << 10) {
            Ok(r) => Some(r),
            Err(e) => {
                if opts.log_level >= 4 {
                    eprintln!("sdmac-mediumd: io_uring not available ({e}); waiting with epoll");
                }
                None
            }
        }
    };
    let mut kernel: Box<dyn KernelSide + '_> = match ring {
        Some(r) => Box::new(UringSide::new(r)),
        None => {
            poller.add(sock.as_raw_fd(), NL).map_err(io_err("epoll add"))?;
            Box::new(EpollSide::new(&sock))
        }
    };
    // Medium time 0 is now; the kernel side's wait paces the loop (see the module
    // docs of `crate::daemon` for why the clock does not wait itself).
    let clock = WallClock::new();
    let env = LoopEnv {
        family,
        pid: sock.pid(),
        stop,
        origin: clock.origin(),
        now: &|| Clock::now(&clock),
    };
    run_loop(&mut *kernel, &mut poller, control, &opts, env)
}

/// What the one-thread loop runs on besides the kernel side.
pub struct LoopEnv<'a> {
    /// The hwsim generic netlink family.
    pub family: u16,
    /// The port id the daemon's messages carry.
    pub pid: u32,
    /// Set to stop the loop (SIGTERM/SIGINT, or a control client's shutdown).
    pub stop: Arc<AtomicBool>,
    /// CLOCK_MONOTONIC (ns) of the daemon's time 0: deadlines and timed sends are
    /// given to the kernel side on that clock.
    pub origin: u64,
    /// The daemon's time now (ns since `origin`).
    pub now: &'a dyn Fn() -> Time,
}

/// The one-thread loop: the medium's frames from `kernel` in, its outputs to
/// `kernel` out, the control socket `control` served (its clients in `poller`),
/// until `env.stop` is set; then every frame still in flight is answered.
pub fn run_loop(
    kernel: &mut dyn KernelSide,
    poller: &mut Poller,
    control: Option<ControlSocket>,
    opts: &Options,
    env: LoopEnv<'_>,
) -> Result<(), DaemonError> {
    let LoopEnv { family, pid, stop, origin, now } = env;
    let loop_name = kernel.name();
    if opts.log_level >= 5 {
        eprintln!("sdmac-mediumd: the loop waits with {loop_name}");
    }
    let mut clients = Clients::new(control, poller)?;
    // This loop's medium makes the truth records of sdmac's extension.
    clients.truth_available = true;
    let mut truth = Vec::new();
    let mut ready: Vec<u64> = Vec::new();
    let mut setup = opts.setup.clone();
    setup.capture = opts.capture.is_some();
    let mut capture = startup::open_capture(opts)?;
    let mut stats = startup::open_stats(opts)?;
    let mut next_stats = 1_000_000_000u64;
    let mut next_capture_flush = 1_000_000_000u64;
    let mut medium = HwsimMedium::new(setup);
    let mut rounds = 0u64;
    let mut coalesce = Coalesce::new(opts.coalesce_ns);
    let mut out: Vec<Output> = Vec::new();
    let mut enc = Encoder::new(family, pid, 3);
    let mut late = Lateness::new();
    let log = opts.log_level;
    // Run the medium ahead where the kernel can send what it then knows at its time.
    let can_time = kernel.can_time_sends();
    let run_ahead = can_time && opts.coalesce_ns == 0 && !opts.no_run_ahead;
    if kernel.queues_timed() && !can_time && log >= 4 {
        eprintln!("sdmac-mediumd: this kernel's io_uring cannot send at a set time (Linux < 5.17): every output is sent by the daemon");
    }
    let mut later = Later::new();
    let mut timed_outputs = 0u64;
    loop {
        rounds += 1;
        let mut deadline = coalesce.wake_at(medium.next_output_time()).map(|t| t + origin);
        if capture.is_some() {
            // Wake for the capture's flush too (an idle medium has no output due).
            let flush_at = next_capture_flush + origin;
            deadline = Some(deadline.map_or(flush_at, |d| d.min(flush_at)));
        }
        ready.clear();
        kernel.wait(deadline, poller, &mut ready, now, &mut |d, t| {
            on_datagram(&mut medium, t, d, family, log, &mut out)
        })?;
        clients.accept(&ready, poller, log);
        if Clients::any_ready(&ready) {
            // Whatever was due before the request happens first (a movement step, a
            // frame's end), so the request applies to the medium as it is now.
            medium.advance(now(), &mut out);
        }
        clients.serve_with(&ready, poller, &stop, log, &mut medium);
        medium.set_truth(clients.wants_truth());
        if stop.load(Ordering::Relaxed) {
            // What was captured reaches the file first, whatever happens next.
            if let Some(c) = capture.as_mut() {
                c.flush().map_err(io_err("capture file"))?;
            }
            // Frames the kernel sent that the daemon has not looked at yet are taken
            // too (a bounded number of rounds), so that every one is answered.
            let t = now();
            let mut feed = |d: &[u8]| on_datagram(&mut medium, t, d, family, log, &mut out);
            for _ in 0..16 {
                if kernel.receive_now(&mut feed)? == 0 {
                    break;
                }
            }
            medium.flush(&mut out);
            // Subscribers get the records of the frames answered last (as far as
            // their sockets take them now).
            medium.take_truth(&mut truth);
            clients.publish(&mut truth, origin, poller);
            clients.drain(std::time::Duration::from_secs(1));
            // The capture is written out even if the last send fails.
            let sent =
                send_outputs(&mut enc, &mut out, now(), &mut late, kernel, &mut capture, origin)
                    .and_then(|()| kernel.flush().map_err(io_err("netlink send")));
            if let Some(c) = capture.as_mut() {
                c.flush().map_err(io_err("capture file"))?;
            }
            sent?;
            if let Some(w) = stats.as_mut() {
                let c = daemon_counters(
                    &medium,
                    rounds,
                    timed_outputs,
                    kernel.timed_overdue(),
                    late.take_interval(),
                );
                write_stats(w, now(), &medium.medium_stats_by_medium(), &c)?;
            }
            if log >= 5 {
                eprintln!(
                    "sdmac-mediumd: stopping; {:?}; {} system calls in {rounds} rounds ({loop_name}); {}; {timed_outputs} sent by the kernel at their time ({} overdue)",
                    medium.counters(),
                    syscall_count::total(),
                    late.total(),
                    kernel.timed_overdue()
                );
            }
            if log >= 5 && clients.truth_lost() > 0 {
                eprintln!("sdmac-mediumd: {} truth records dropped for subscribers that did not read them in time", clients.truth_lost());
            }
            clients.remove_socket_file();
            return Ok(());
        }
        // What the kernel sent (a bounded round: outputs go out even while it floods).
        kernel.receive(now, &mut |batch, t| {
            for d in batch.datagrams() {
                on_datagram(&mut medium, t, d, family, log, &mut out);
            }
            Ok(())
        })?;
        let t = now();
        medium.advance(t, &mut out);
        if run_ahead {
            // Frames from the kernel may wait for the timed sends due before every
            // channel's stations may act again; after that, one wakes the daemon at
            // once, whatever the kernel still has to send.
            let quiet = medium.advance_quiet(t, &mut out);
            kernel.hold_until(origin + quiet);
        }
        if coalesce.send_now(t, first_due(&out), medium.next_output_time()) {
            later.take_from(&mut out, t);
            send_outputs(&mut enc, &mut out, t, &mut late, kernel, &mut capture, origin)?;
            if kernel.queues_timed() {
                while let Some((due, group)) = later.next_group() {
                    let mut n = 0u64;
                    enc.send_each(
                        group.inspect(|_| n += 1),
                        due,
                        None,
                        |d| kernel.queue_at(d, origin + due),
                        |_, _, _, _| Ok(()),
                    )?;
                    timed_outputs += n;
                }
            }
        }
        // The truth about the frames answered this round, to its subscribers.
        medium.take_truth(&mut truth);
        clients.publish(&mut truth, origin, poller);
        if let Some(w) = stats.as_mut() {
            if t >= next_stats {
                let c = daemon_counters(
                    &medium,
                    rounds,
                    timed_outputs,
                    kernel.timed_overdue(),
                    late.take_interval(),
                );
                write_stats(w, t, &medium.medium_stats_by_medium(), &c)?;
                next_stats = next_second(t);
            }
        }
        if let Some(c) = capture.as_mut() {
            // Once a second the capture reaches the file whole (every block complete),
            // so that it is valid up to then however the daemon ends.
            if t >= next_capture_flush {
                c.flush().map_err(io_err("capture file"))?;
                next_capture_flush = next_second(t);
            }
        }
    }
}

/// The start of the second after `t` (ns): when the next statistics line or capture
/// flush is due.
pub(crate) fn next_second(t: u64) -> u64 {
    t - t % 1_000_000_000 + 1_000_000_000
}

/// Writes one statistics interval: the engine media's and the daemon's counters, at
/// `t` on the daemon's clock.
pub(crate) fn write_stats(
    w: &mut StatsWriter<Box<dyn std::io::Write>>,
    t: u64,
    media: &[(MediumId, u32, sdmac_medium::MediumStats)],
    c: &DaemonCounters,
) -> Result<(), DaemonError> {
    w.write(t, media, c).map_err(io_err("stats file"))
}

/// Sends the round's outputs: to the kernel (with io_uring: queued, sent with the
/// next wait; with epoll: the round's datagrams in one sendmmsg); frames on air go to
/// the capture, on CLOCK_MONOTONIC. What was encoded leaves even if a later output
/// failed to encode (as in `Encoder::send_batched`).
fn send_outputs(
    enc: &mut Encoder,
    out: &mut Vec<Output>,
    now: Time,
    late: &mut Lateness,
    kernel: &mut dyn KernelSide,
    capture: &mut Option<Capture>,
    origin: u64,
) -> Result<(), DaemonError> {
    let encoded = enc.send(
        out,
        now,
        Some(late),
        |d| kernel.queue(d),
        |t, freq, rate, frame| match capture.as_mut() {
            Some(c) => c.record(origin + t, freq, rate, frame),
            None => Ok(()),
        },
    );
    encoded.and(kernel.send_queued().map_err(io_err("netlink send")))
}

fn daemon_counters(
    m: &HwsimMedium,
    rounds: u64,
    timed: u64,
    timed_overdue: u64,
    late: LatenessSummary,
) -> DaemonCounters {
    let c = m.counters();
    DaemonCounters {
        mono_ns: crate::syscall_count::monotonic_ns(),
        frames: c.frames_in,
        deliveries: c.deliveries,
        statuses: c.statuses,
        syscalls: syscall_count::total(),
        rounds,
        late,
        timed,
        timed_overdue,
        refused: c.refused,
        refusals: c.refusals,
        status_retries: c.status_retries,
        statuses_refused: c.statuses_refused,
    }
}

/// The control socket of `-s` (see [`crate::control_socket`]), before anything else
/// of the run, so that a path in use is refused before registering with the kernel.
pub fn open_control(opts: &Options) -> Result<Option<ControlSocket>, DaemonError> {
    match &opts.control_socket {
        Some(p) => Ok(Some(ControlSocket::open(p, opts.socket_access.clone())?)),
        None => Ok(None),
    }
}
