//! The clocks that drive a medium: virtual time (as fast as possible, for the
//! simulator) and wall-clock time (paced to `CLOCK_MONOTONIC`, for emulation). The
//! engine is the same; only who calls [`Medium::advance`], and when, differs, and the
//! [`Clock`] trait is that "who and when".

use crate::medium::Medium;
use crate::report::Sink;
use crate::time::{Time, NEVER};
use std::time::Duration;

/// What drives a [`Medium`]'s time: tells it what time it is, and waits for the next
/// event. Two implementations:
///
/// - [`VirtualClock`]: as fast as possible. Waiting is free: time jumps to whatever the
///   medium needs next, so a run depends only on the seed and the inputs (the
///   simulator, `sdmac-sim`).
/// - [`WallClock`]: paced to `CLOCK_MONOTONIC`. Medium time 0 is a chosen instant (its
///   origin); events are processed when their time has come, and how late each wake-up
///   was is measured and reported in [`WallClockStats`], never hidden (the emulator's
///   device thread, `sdmac-emu`).
///
/// A driver that also waits for other things (requests from interfaces, sockets) does
/// not call [`Clock::run`]: it keeps its own wait and asks the clock only what it
/// knows. This is how the medium daemon (`sdmac-mediumd`) is meant to use it: it owns
/// a [`WallClock`] whose origin is the daemon's start; when its event loop (epoll)
/// wakes, for a frame from a client or for its timer, it calls
/// [`WallClock::poll_at`] with the `CLOCK_MONOTONIC` time it woke at, which processes
/// every medium event due by then and records the lateness; it enqueues a client's
/// frame at [`WallClock::medium_time`] of its arrival; and it arms its timer for
/// [`WallClock::monotonic_of`]`(medium.next_event_time())`. The same code with a
/// [`VirtualClock`] replays a recorded session as fast as possible.
pub trait Clock {
    /// Medium time now (ns since medium time 0), as this clock sees it.
    fn now(&self) -> Time;

    /// Waits until medium time `t`: a [`VirtualClock`] jumps there at once, a
    /// [`WallClock`] sleeps and then spins until `CLOCK_MONOTONIC` reaches it.
    fn wait_until(&mut self, t: Time);

    /// Processes every event of `medium` due by [`Clock::now`]; returns how many.
    fn poll<S: Sink + ?Sized>(&mut self, medium: &mut Medium, sink: &mut S) -> u64;

    /// Runs `medium` up to medium time `until`. Every `step` of medium time
    /// `progress(now, events)` is called (events processed so far in this run);
    /// returning false stops early. Returns the number of events processed.
    fn run<S: Sink + ?Sized>(
        &mut self,
        medium: &mut Medium,
        until: Time,
        sink: &mut S,
        step: Time,
        mut progress: impl FnMut(Time, u64) -> bool,
    ) -> u64 {
        let step = step.max(1);
        let mut events = 0;
        let mut mark = medium.now();
        while mark < until {
            let target = mark.saturating_add(step).min(until);
            loop {
                events += self.poll(medium, sink);
                if self.now() >= target {
                    break;
                }
                self.wait_until(medium.next_event_time().unwrap_or(NEVER).min(target));
            }
            mark = target;
            if !progress(mark, events) {
                break;
            }
        }
        events
    }
}

/// Virtual time: as fast as possible. The clock's time is the medium time it was last
/// asked to wait for; nothing ever sleeps.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct VirtualClock {
    now: Time,
}

impl VirtualClock {
    /// A virtual clock at medium time `now` (a medium's own [`Medium::now`] to start
    /// where it is).
    pub fn new(now: Time) -> VirtualClock {
        VirtualClock { now }
    }
}

impl Clock for VirtualClock {
    fn now(&self) -> Time {
        self.now
    }

    fn wait_until(&mut self, t: Time) {
        self.now = self.now.max(t);
    }

    fn poll<S: Sink + ?Sized>(&mut self, medium: &mut Medium, sink: &mut S) -> u64 {
        medium.advance(self.now, sink)
    }

    /// Without waiting there is nothing to wake up for between progress reports: the
    /// medium is advanced a whole `step` at a time.
    fn run<S: Sink + ?Sized>(
        &mut self,
        medium: &mut Medium,
        until: Time,
        sink: &mut S,
        step: Time,
        mut progress: impl FnMut(Time, u64) -> bool,
    ) -> u64 {
        let mut events = 0;
        let step = step.max(1);
        let mut t = medium.now();
        while t < until {
            let next = t.saturating_add(step).min(until);
            self.now = self.now.max(next);
            events += medium.advance(next, sink);
            t = next;
            if !progress(t, events) {
                break;
            }
        }
        events
    }
}

/// Runs `medium` in virtual time up to `until`, as fast as possible: a
/// [`VirtualClock`]'s [`Clock::run`]. Every `step` of simulated time
/// `progress(now, events)` is called; returning false stops early. Returns the number
/// of events processed.
pub fn run_virtual<S: Sink + ?Sized>(
    medium: &mut Medium,
    until: Time,
    sink: &mut S,
    step: Time,
    progress: impl FnMut(Time, u64) -> bool,
) -> u64 {
    VirtualClock::new(medium.now()).run(medium, until, sink, step, progress)
}

/// How well the wall clock kept up.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct WallClockStats {
    /// Times the driver woke and found events due.
    pub wakeups: u64,
    /// Events processed.
    pub events: u64,
    /// Wake-ups that found the earliest due event more than 10 µs in the past.
    pub late_wakeups: u64,
    /// Largest lag between an event's time and its processing (ns).
    pub max_late_ns: u64,
    /// Sum of lags (ns), for the mean.
    pub total_late_ns: u64,
}

/// Paces a medium to `CLOCK_MONOTONIC`: medium time 0 is its origin, by default the
/// instant the clock was created. Events are processed when their time has come;
/// lateness is measured and reported, never hidden.
#[derive(Debug)]
pub struct WallClock {
    /// `CLOCK_MONOTONIC` (ns) of medium time 0.
    origin: u64,
    /// Sleep until this long before an event, then spin (ns).
    pub spin_ns: u64,
    stats: WallClockStats,
}

impl Default for WallClock {
    fn default() -> Self {
        WallClock::new()
    }
}

impl WallClock {
    /// A clock whose medium time 0 is now.
    pub fn new() -> WallClock {
        WallClock::with_origin(sdmac_rt::monotonic_ns())
    }

    /// A clock whose medium time 0 is `CLOCK_MONOTONIC` time `origin` (ns).
    pub fn with_origin(origin: u64) -> WallClock {
        WallClock { origin, spin_ns: 50_000, stats: WallClockStats::default() }
    }

    /// `CLOCK_MONOTONIC` (ns) of medium time 0.
    pub fn origin(&self) -> u64 {
        self.origin
    }

    /// The medium time (ns) of `CLOCK_MONOTONIC` time `mono` (0 before the origin).
    pub fn medium_time(&self, mono: u64) -> Time {
        mono.saturating_sub(self.origin)
    }

    /// The `CLOCK_MONOTONIC` time (ns) of medium time `t`.
    pub fn monotonic_of(&self, t: Time) -> u64 {
        self.origin.saturating_add(t)
    }

    /// Lateness statistics so far.
    pub fn stats(&self) -> WallClockStats {
        self.stats
    }

    /// Processes every event due by `CLOCK_MONOTONIC` time `mono` (never moving the
    /// medium back), recording how late the earliest of them is; returns how many.
    pub fn poll_at<S: Sink + ?Sized>(
        &mut self,
        mono: u64,
        medium: &mut Medium,
        sink: &mut S,
    ) -> u64 {
        let now = self.medium_time(mono).max(medium.now());
        if let Some(next) = medium.next_event_time() {
            if next <= now {
                let late = now - next;
                self.stats.wakeups += 1;
                self.stats.max_late_ns = self.stats.max_late_ns.max(late);
                self.stats.total_late_ns += late;
                if late > 10_000 {
                    self.stats.late_wakeups += 1;
                }
            }
        }
        let n = medium.advance(now, sink);
        self.stats.events += n;
        n
    }

    /// Runs the medium in real time until medium time `until`.
    pub fn run_until<S: Sink + ?Sized>(&mut self, medium: &mut Medium, sink: &mut S, until: Time) {
        loop {
            self.poll(medium, sink);
            if Clock::now(self) >= until {
                return;
            }
            let next = medium.next_event_time().unwrap_or(NEVER);
            self.wait_until(next.min(until));
        }
    }
}

impl Clock for WallClock {
    /// Nanoseconds since the origin.
    fn now(&self) -> Time {
        self.medium_time(sdmac_rt::monotonic_ns())
    }

    /// Waits until `t` (sleeping, then spinning for the last `spin_ns`).
    fn wait_until(&mut self, t: Time) {
        loop {
            let now = Clock::now(self);
            if now >= t {
                return;
            }
            let left = t - now;
            if left > self.spin_ns {
                std::thread::sleep(Duration::from_nanos(left - self.spin_ns));
            } else {
                std::hint::spin_loop();
            }
        }
    }

    fn poll<S: Sink + ?Sized>(&mut self, medium: &mut Medium, sink: &mut S) -> u64 {
        self.poll_at(sdmac_rt::monotonic_ns(), medium, sink)
    }
}
