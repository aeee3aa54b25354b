//! The daemon's one loop, for both modes: it waits on the kernel side
//! ([`KernelSide`]: io_uring or epoll) until what it drives next needs it, serves the
//! control socket, receives, lets the driver do its round, and writes the statistics
//! once a second (one function, in the loop and at shutdown). What it drives
//! ([`Driver`]): on one thread every engine medium (`one_thread`); with `--threads`
//! the dispatcher that hands each engine medium's frames to its own thread
//! ([`crate::threaded`]).

use crate::control_clients::Clients;
use crate::error::{io_err, DaemonError};
use crate::kernel_side::KernelSide;
use crate::media::MediumId;
use crate::poller::Poller;
use crate::stats::{DaemonCounters, StatsWriter};
use sdmac_medium::{MediumStats, Time};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

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

/// How a driver ended.
pub(crate) struct Stopped {
    /// What failed (a worker thread), if anything: the daemon exits with an error.
    pub failed: Option<String>,
}

/// What the loop drives: the medium on one thread, or the dispatcher of the
/// per-medium threads.
pub(crate) trait Driver {
    /// When the loop must next be awake for it (the daemon's time), if ever.
    fn wake_at(&self) -> Option<Time>;

    /// Whether it writes a capture (flushed once a second).
    fn has_capture(&self) -> bool;

    /// Whether the loop wakes for the statistics too, not only when a round comes.
    fn wakes_for_stats(&self) -> bool {
        false
    }

    /// A datagram from the kernel, received at `t`.
    fn on_datagram(&mut self, d: &[u8], t: Time);

    /// After each batch received (the threads are woken once per batch).
    fn after_batch(&mut self) -> Result<(), DaemonError> {
        Ok(())
    }

    /// Serves the control clients among `ready` at `now`.
    fn serve(
        &mut self,
        clients: &mut Clients,
        ready: &[u64],
        poller: &Poller,
        stop: &AtomicBool,
        now: Time,
    );

    /// Something failed and the loop must stop (a worker thread).
    fn failed(&self) -> bool {
        false
    }

    /// The round's work at `t`, after what the kernel sent was taken.
    fn round(
        &mut self,
        t: Time,
        kernel: &mut dyn KernelSide,
        clients: &mut Clients,
        poller: &Poller,
    ) -> Result<(), DaemonError>;

    /// Flushes the capture to its file.
    fn flush_capture(&mut self) -> Result<(), DaemonError>;

    /// Answers every frame still in flight and stops.
    fn stop(
        &mut self,
        now: &dyn Fn() -> Time,
        kernel: &mut dyn KernelSide,
        clients: &mut Clients,
        poller: &Poller,
    ) -> Result<Stopped, DaemonError>;

    /// The statistics interval ending now: the engine media's and the daemon's
    /// counters (`rounds`: the loop's).
    fn stats(
        &mut self,
        rounds: u64,
        kernel: &dyn KernelSide,
    ) -> (Vec<(MediumId, u32, MediumStats)>, DaemonCounters);

    /// Reports the end on stderr (by log level).
    fn report_end(&self, rounds: u64, kernel: &dyn KernelSide, clients: &Clients);
}

/// The loop of both modes, until `env.stop` is set or the driver failed; statistics
/// go to `stats` once a second, what happens to stderr by log level `log`.
pub(crate) fn drive(
    driver: &mut impl Driver,
    kernel: &mut dyn KernelSide,
    poller: &mut Poller,
    mut clients: Clients,
    mut stats: Option<StatsWriter<Box<dyn std::io::Write>>>,
    log: u8,
    env: &LoopEnv<'_>,
) -> Result<(), DaemonError> {
    let (origin, now, stop) = (env.origin, env.now, &env.stop);
    let mut ready: Vec<u64> = Vec::new();
    let mut next_stats = 1_000_000_000u64;
    let mut next_capture_flush = 1_000_000_000u64;
    let mut rounds = 0u64;
    loop {
        rounds += 1;
        let wake = [
            driver.wake_at(),
            driver.has_capture().then_some(next_capture_flush),
            (stats.is_some() && driver.wakes_for_stats()).then_some(next_stats),
        ];
        let deadline = wake.into_iter().flatten().min().map(|t| t + origin);
        ready.clear();
        kernel.wait(deadline, poller, &mut ready, now, &mut |d, t| driver.on_datagram(d, t))?;
        clients.accept(&ready, poller, log);
        driver.serve(&mut clients, &ready, poller, stop, now());
        if stop.load(Ordering::Relaxed) || driver.failed() {
            let stopped = driver.stop(now, kernel, &mut clients, poller)?;
            if let Some(w) = stats.as_mut() {
                let (media, c) = driver.stats(rounds, kernel);
                write_stats(w, now(), &media, &c)?;
            }
            driver.report_end(rounds, kernel, &clients);
            clients.remove_socket_file();
            return match stopped.failed {
                Some(what) => Err(DaemonError::Worker(what)),
                None => Ok(()),
            };
        }
        // What the kernel sent (a bounded round: outputs go out even while it floods).
        kernel.receive(now, &mut |batch, t| {
            for d in batch.datagrams() {
                driver.on_datagram(d, t);
            }
            driver.after_batch()
        })?;
        let t = now();
        driver.round(t, kernel, &mut clients, poller)?;
        if let Some(w) = stats.as_mut() {
            if t >= next_stats {
                let (media, c) = driver.stats(rounds, kernel);
                write_stats(w, t, &media, &c)?;
                next_stats = next_second(t);
            }
        }
        // Once a second the capture reaches the file whole (every block complete), so
        // that it is valid up to then however the daemon ends.
        if driver.has_capture() && t >= next_capture_flush {
            driver.flush_capture()?;
            next_capture_flush = next_second(t);
        }
    }
}

/// The start of the second after `t` (ns): when the next statistics line or capture
/// flush is due.
fn next_second(t: u64) -> u64 {
    t - t % 1_000_000_000 + 1_000_000_000
}

/// Writes one statistics interval: the engine media's and the daemon's counters, at
/// `t` on the daemon's clock.
fn write_stats(
    w: &mut StatsWriter<Box<dyn std::io::Write>>,
    t: u64,
    media: &[(MediumId, u32, MediumStats)],
    c: &DaemonCounters,
) -> Result<(), DaemonError> {
    w.write(t, media, c).map_err(io_err("stats file"))
}
