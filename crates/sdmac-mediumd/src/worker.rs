//! The thread of one engine medium (`--threads`): it owns a [`HwsimMedium`] that
//! carries the frames of one (configured medium, channel), takes what the dispatcher
//! hands it from an SPSC ring, waits in its own epoll on an eventfd and on its
//! medium's next output, and sends its outputs itself on the shared netlink socket —
//! one datagram per round.
//!
//! Its medium is a replica of the dispatcher's radio table: it receives every event
//! that changes that table (radios and addresses learnt, control requests) in the
//! dispatcher's order, so radio indices — the control socket's station ids — are the
//! same on every thread.

use crate::capture::Capture;
use crate::coalesce::{first_due, Coalesce};
use crate::control::{Request, UpdateResult};
use crate::encode::{Batch, Datagrams, Encoder};
use crate::error::{io_err, DaemonError};
use crate::frame_pool::FramePool;
use crate::hwsim_medium::{
    AttemptCounts, Counters, HwsimMedium, KernelFrame, Mac, Output, RateEntries, SharedFrame,
    StatusEcho, UNHEARD_SIGNAL_DBM,
};
use crate::lateness::Lateness;
use crate::media::MediumId;
use crate::mininet_requests::apply;
use crate::poller::Poller;
use crate::syscall_count;
use sdmac_medium::{MediumStats, WallClock};
use sdmac_rt::EventFd;
use std::os::fd::AsRawFd;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// A frame from the kernel, copied out of the receive buffer (into a buffer of the
/// dispatcher's pool, free again once the worker has let go of it).
#[derive(Debug)]
pub(crate) struct FrameMsg {
    pub transmitter: Mac,
    pub frame: SharedFrame,
    pub no_ack: bool,
    pub freq: u32,
    pub rates: RateEntries,
    pub cookie: u64,
    pub echo: StatusEcho,
}

impl FrameMsg {
    /// Copies `f`, its bytes into a buffer of `pool`.
    pub fn copy_of(f: KernelFrame<'_>, pool: &mut FramePool) -> FrameMsg {
        FrameMsg {
            transmitter: f.transmitter,
            frame: pool.copy_of(f.frame),
            no_ack: f.no_ack,
            freq: f.freq,
            rates: f.rates,
            cookie: f.cookie,
            echo: f.echo,
        }
    }

    /// Its status when it cannot be carried (it came at `t`): not acknowledged, no
    /// attempt.
    pub fn refusal(&self, t: u64) -> Output {
        Output::TxStatus {
            transmitter: self.transmitter,
            cookie: self.cookie,
            acked: false,
            signal_dbm: UNHEARD_SIGNAL_DBM,
            attempts: AttemptCounts::defaults(self.rates.len().max(1)),
            echo: self.echo,
            due: t,
        }
    }
}

/// What the dispatcher hands a worker. Times are on the daemon's clock (ns).
#[derive(Debug)]
pub(crate) enum Msg {
    /// A frame to carry, received at `0`.
    Frame(u64, FrameMsg),
    /// A radio (hwsim address) and maybe an interface address of it, learnt from a
    /// frame or an ADD_MAC_ADDR event.
    Learn(Mac, Option<Mac>),
    /// A radio sends on this channel (MHz) now.
    Tuned(Mac, u32),
    /// A control request applied at `t`; the dispatcher's replica answered `expect`
    /// (result, id) — a worker that gets something else says so.
    Control { t: u64, req: Request, expect: (UpdateResult, i32) },
    /// Answer every frame still in flight and stop.
    Stop,
    /// Panics (tests of the failure path).
    #[cfg(test)]
    Panic,
}

/// What a worker publishes for the per-second statistics.
#[derive(Clone, Debug, Default)]
pub(crate) struct Published {
    pub stats: Vec<(MediumId, u32, MediumStats)>,
    pub counters: Counters,
    pub rounds: u64,
    /// How late the worker's outputs left (the dispatcher takes each interval).
    pub late: Lateness,
}

/// A failure of some worker, for the main thread.
#[derive(Debug)]
pub(crate) struct Failure {
    failed: AtomicBool,
    what: Mutex<Vec<String>>,
    /// Signalled when a worker fails (the main thread waits on it).
    pub wake: EventFd,
}

impl Failure {
    pub fn new() -> std::io::Result<Failure> {
        Ok(Failure {
            failed: AtomicBool::new(false),
            what: Mutex::new(Vec::new()),
            wake: EventFd::new()?,
        })
    }

    /// Records that something failed and wakes the main thread.
    pub fn report(&self, what: String) {
        self.what.lock().unwrap_or_else(|e| e.into_inner()).push(what);
        self.failed.store(true, Ordering::SeqCst);
        self.wake.signal();
    }

    /// What failed, if anything.
    pub fn get(&self) -> Option<String> {
        if !self.failed.load(Ordering::SeqCst) {
            return None;
        }
        Some(self.what.lock().unwrap_or_else(|e| e.into_inner()).join("; "))
    }
}

/// What every worker shares with the dispatcher.
#[derive(Clone)]
pub(crate) struct Shared {
    pub sink: Arc<dyn Datagrams>,
    pub family: u16,
    pub capture: Option<Arc<Mutex<Capture>>>,
    /// Publish statistics each round.
    pub stats: bool,
    /// CLOCK_MONOTONIC at the daemon's time 0.
    pub origin: u64,
    /// Outputs wait up to this long for the next ones ([`Coalesce`]).
    pub coalesce_ns: u64,
    pub log: u8,
    pub failure: Arc<Failure>,
}

/// How a worker ended.
pub(crate) struct Exit {
    /// Its medium (its counters are the worker's).
    pub medium: HwsimMedium,
    /// Messages it did not take (after a failure); the dispatcher answers their frames.
    pub left: rtrb::Consumer<Msg>,
    pub rounds: u64,
    /// Control requests whose result differed from the dispatcher's.
    pub diverged: u64,
}

/// One engine medium's thread.
pub(crate) struct Worker {
    pub name: String,
    medium: HwsimMedium,
    rx: rtrb::Consumer<Msg>,
    wake: Arc<EventFd>,
    shared: Shared,
    published: Arc<Mutex<Published>>,
    enc: Encoder,
    /// The round's datagrams, sent together.
    batch: Batch,
    out: Vec<Output>,
    rounds: u64,
    diverged: u64,
}

const WAKE: u64 = 1;

impl Worker {
    /// A worker named `name` running `medium`, taking messages from `rx`, woken
    /// through `wake`; its netlink messages are numbered from `seq`.
    pub fn new(
        name: String,
        medium: HwsimMedium,
        rx: rtrb::Consumer<Msg>,
        wake: Arc<EventFd>,
        shared: Shared,
        published: Arc<Mutex<Published>>,
        seq: u32,
    ) -> Worker {
        let enc = Encoder::new(shared.family, shared.sink.pid(), seq);
        Worker {
            name,
            medium,
            rx,
            wake,
            shared,
            published,
            enc,
            batch: Batch::default(),
            out: Vec::new(),
            rounds: 0,
            diverged: 0,
        }
    }

    /// Runs until told to stop, then answers every frame in flight. If the loop
    /// fails or panics, it answers what it can (frames in flight, as not
    /// acknowledged), reports the failure and ends; the messages it did not take are
    /// returned for the dispatcher to answer.
    pub fn run(mut self) -> Exit {
        block_stop_signals();
        let r = catch_unwind(AssertUnwindSafe(|| self.run_loop()));
        let failed = match r {
            Ok(Ok(())) => None,
            Ok(Err(e)) => Some(e.to_string()),
            Err(p) => Some(panic_text(&p)),
        };
        if let Some(what) = &failed {
            let what = format!("the thread of {} failed: {what}", self.name);
            eprintln!("sdmac-mediumd: {what}; answering its frames in flight as not acknowledged");
            let flushed = catch_unwind(AssertUnwindSafe(|| {
                self.out.retain(|o| !matches!(o, Output::Air { .. }));
                self.medium.flush(&mut self.out);
                self.send()
            }));
            if !matches!(flushed, Ok(Ok(()))) {
                eprintln!("sdmac-mediumd: {}: could not answer its frames in flight", self.name);
            }
            self.shared.failure.report(what);
        }
        self.publish();
        Exit { medium: self.medium, left: self.rx, rounds: self.rounds, diverged: self.diverged }
    }

    fn run_loop(&mut self) -> Result<(), DaemonError> {
        let mut poller = Poller::new().map_err(io_err("epoll"))?;
        poller.add(self.wake.as_raw_fd(), WAKE).map_err(io_err("epoll add"))?;
        let origin = self.shared.origin;
        // The daemon's clock (see the daemon's "The clock"); the wait paces it.
        let clock = WallClock::with_origin(origin);
        let mut coalesce = Coalesce::new(self.shared.coalesce_ns);
        loop {
            self.rounds += 1;
            let deadline = coalesce.wake_at(self.medium.next_output_time()).map(|t| t + origin);
            // Only the eventfd is watched: woken by anything but the deadline means
            // it was signalled. Cleared before the ring is read, so nothing pushed
            // after the read goes unnoticed.
            if !poller.wait(deadline, 500).map_err(io_err("epoll"))?.is_empty() {
                syscall_count::add(1);
                self.wake.clear();
            }
            while let Ok(m) = self.rx.pop() {
                if self.take(m) {
                    self.medium.flush(&mut self.out);
                    self.send()?;
                    self.publish();
                    return Ok(());
                }
            }
            let t = clock.medium_time(crate::syscall_count::monotonic_ns());
            self.medium.advance(t, &mut self.out);
            if coalesce.send_now(t, first_due(&self.out), self.medium.next_output_time()) {
                self.send()?;
            }
            if self.shared.stats {
                self.publish();
            }
        }
    }

    /// Takes one message; true at Stop.
    fn take(&mut self, m: Msg) -> bool {
        match m {
            Msg::Frame(t, f) => {
                let FrameMsg { transmitter, frame, no_ack, freq, rates, cookie, echo } = f;
                let kf =
                    KernelFrame { transmitter, frame: &frame, no_ack, freq, rates, cookie, echo };
                self.medium.on_frame(t, kf, &mut self.out);
            }
            Msg::Learn(hw, addr) => {
                self.medium.learn_radio(hw, addr);
            }
            Msg::Tuned(hw, freq) => self.medium.set_tuned(hw, freq),
            Msg::Control { t, req, expect } => {
                // Whatever was due before the request happens first, as on one thread.
                self.medium.advance(t, &mut self.out);
                let a = apply(&mut self.medium, &req);
                if (a.result, a.id) != expect {
                    self.diverged += 1;
                    if self.shared.log >= 3 {
                        eprintln!("sdmac-mediumd: {}: {req:?} gave {:?} here, {expect:?} on the dispatcher", self.name, (a.result, a.id));
                    }
                }
            }
            Msg::Stop => return true,
            #[cfg(test)]
            Msg::Panic => panic!("a test asked for it"),
        }
        false
    }

    /// Sends the round's outputs (as few datagrams as fit, together); frames on air
    /// go to the capture.
    fn send(&mut self) -> Result<(), DaemonError> {
        if self.out.is_empty() {
            return Ok(());
        }
        let sink = &self.shared.sink;
        let origin = self.shared.origin;
        let capture = self.shared.capture.as_deref();
        let now = crate::syscall_count::monotonic_ns() - origin;
        // Lateness goes straight to what the dispatcher reads (its lock is taken
        // once a second there).
        let mut p = self.published.lock().unwrap_or_else(|e| e.into_inner());
        self.enc.send_batched(
            &mut self.out,
            now,
            &mut p.late,
            &mut self.batch,
            sink.as_ref(),
            |t, freq, rate, frame| match capture {
                Some(c) => c.lock().unwrap_or_else(|e| e.into_inner()).record(
                    origin + t,
                    freq,
                    rate,
                    frame,
                ),
                None => Ok(()),
            },
        )
    }

    fn publish(&self) {
        let mut p = self.published.lock().unwrap_or_else(|e| e.into_inner());
        // Into the same vector every round: no allocation per round.
        self.medium.medium_stats_into(&mut p.stats);
        p.counters = self.medium.counters();
        p.rounds = self.rounds;
    }
}

/// Keeps SIGTERM and SIGINT away from this thread, so that they interrupt the main
/// thread's wait (the one that stops the daemon) rather than a worker's.
fn block_stop_signals() {
    // SAFETY: a zeroed sigset_t is valid storage for sigemptyset; the set is only
    // passed to the libc functions that fill and read it.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGTERM);
        libc::sigaddset(&mut set, libc::SIGINT);
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
    }
}

fn panic_text(p: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        format!("panic: {s}")
    } else if let Some(s) = p.downcast_ref::<String>() {
        format!("panic: {s}")
    } else {
        "panic".to_string()
    }
}
