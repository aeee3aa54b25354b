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
//! `--coalesce-us` ([`crate::coalesce::Coalesce`]) it wakes that window after an output is due instead,
//! and sends what is due by then (a delivery and its status) at once.
//!
//! One loop (`event_loop`, private to the crate) runs both modes: it waits on the kernel
//! side ([`KernelSide`]: io_uring or epoll) until what it drives next needs it,
//! serves the control socket, receives, lets the driver do its round, and writes the
//! statistics once a second (one function, in the loop and at
//! shutdown). What it drives: on one thread every engine medium (`one_thread`);
//! with `--threads` ([`Options::threads`]) the dispatcher that hands each engine
//! medium's frames to its own thread ([`crate::threaded`]).
//!
//! ## The clock
//!
//! The daemon's time is a [`sdmac_medium::WallClock`]: medium time 0 is the daemon's
//! start, the daemon's time is the clock's medium time of a CLOCK_MONOTONIC read
//! (read through [`crate::syscall_count`], which counts it: a system call in
//! User-Mode Linux), and its origin turns deadlines and timed sends into
//! CLOCK_MONOTONIC for the kernel side. The daemon does not let the clock wait or
//! poll: [`sdmac_medium::Clock::wait_until`] sleeps and spins, and a daemon must
//! instead wait on its sockets with the deadline as the timeout (one `io_uring_enter`
//! or `epoll_pwait2`), so that a frame from the kernel wakes it at once; and
//! [`sdmac_medium::WallClock::poll_at`] advances one engine [`sdmac_medium::Medium`],
//! while the daemon advances many (one per medium and channel) together with the
//! movement steps and refused statuses between them ([`crate::hwsim_medium::HwsimMedium::advance`]). How
//! late the daemon is, is measured per output as it leaves ([`crate::lateness`]),
//! which is what the kernel sees, rather than per wake-up as the clock counts it.

use crate::control_clients::Clients;
use crate::control_socket::ControlSocket;
use crate::error::io_err;
use crate::event_loop::drive;
use crate::kernel_side::{EpollSide, KernelSide, UringSide, NL};
use crate::one_thread::OneThread;
use crate::poller::Poller;
use crate::startup;
use crate::syscall_count;
use crate::uring::Ring;
use sdmac_medium::WallClock;
use std::os::fd::AsRawFd;

pub use crate::event_loop::LoopEnv;

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
    // Medium time 0 is now (see "The clock" above).
    let clock = WallClock::new();
    let env = LoopEnv {
        family,
        pid: sock.pid(),
        stop,
        origin: clock.origin(),
        now: &|| clock.medium_time(syscall_count::monotonic_ns()),
    };
    run_loop(&mut *kernel, &mut poller, control, &opts, env)
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
    let mut setup = opts.setup.clone();
    setup.capture = opts.capture.is_some();
    // Run the medium ahead where the kernel can send what it then knows at its time.
    let can_time = kernel.can_time_sends();
    let run_ahead = can_time && opts.coalesce_ns == 0 && !opts.no_run_ahead;
    if kernel.queues_timed() && !can_time && opts.log_level >= 4 {
        eprintln!("sdmac-mediumd: this kernel's io_uring cannot send at a set time (Linux < 5.17): every output is sent by the daemon");
    }
    let capture = startup::open_capture(opts)?;
    let stats = startup::open_stats(opts)?;
    let mut one = OneThread::new(
        setup,
        env.family,
        env.pid,
        opts.log_level,
        env.origin,
        opts.coalesce_ns,
        run_ahead,
        capture,
    );
    let mut clients = Clients::new(control, poller)?;
    // This loop's medium makes the truth records of sdmac's extension.
    clients.truth_available = true;
    if opts.log_level >= 5 {
        eprintln!("sdmac-mediumd: the loop waits with {}", kernel.name());
    }
    drive(&mut one, kernel, poller, clients, stats, opts.log_level, &env)
}

/// The control socket of `-s` (see [`crate::control_socket`]), before anything else
/// of the run, so that a path in use is refused before registering with the kernel.
pub fn open_control(opts: &Options) -> Result<Option<ControlSocket>, DaemonError> {
    match &opts.control_socket {
        Some(p) => Ok(Some(ControlSocket::open(p, opts.socket_access.clone())?)),
        None => Ok(None),
    }
}
