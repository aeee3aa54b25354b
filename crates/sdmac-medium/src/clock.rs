//! The two clocks that drive a medium: virtual time (as fast as possible, for the
//! simulator) and wall-clock time (paced to `CLOCK_MONOTONIC`, for emulation). The
//! engine is the same; only who calls `Medium::advance`, and when, differs.

use crate::medium::Medium;
use crate::report::Sink;
use crate::time::{Time, NEVER};
use std::time::{Duration, Instant};

/// Runs `medium` in virtual time up to `until`, as fast as possible. Every `step` of
/// simulated time `progress(now, events)` is called; returning false stops early.
/// Returns the number of events processed.
pub fn run_virtual<S: Sink + ?Sized>(
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
        events += medium.advance(next, sink);
        t = next;
        if !progress(t, events) {
            break;
        }
    }
    events
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

/// Paces a medium to `CLOCK_MONOTONIC`: simulated time 0 is the instant the clock was
/// created. Events are processed when their time has come; lateness is measured and
/// reported, never hidden.
#[derive(Debug)]
pub struct WallClock {
    origin: Instant,
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
    /// A clock whose time 0 is now.
    pub fn new() -> WallClock {
        WallClock { origin: Instant::now(), spin_ns: 50_000, stats: WallClockStats::default() }
    }

    /// Nanoseconds since the clock started.
    pub fn now(&self) -> Time {
        self.origin.elapsed().as_nanos() as Time
    }

    /// Lateness statistics so far.
    pub fn stats(&self) -> WallClockStats {
        self.stats
    }

    /// Processes every event whose time has come; returns the time of the next one.
    pub fn poll<S: Sink + ?Sized>(&mut self, medium: &mut Medium, sink: &mut S) -> Option<Time> {
        let now = self.now();
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
        self.stats.events += medium.advance(now, sink);
        medium.next_event_time()
    }

    /// Waits until `t` (sleeping, then spinning for the last `spin_ns`).
    pub fn wait_until(&self, t: Time) {
        loop {
            let now = self.now();
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

    /// Runs the medium in real time until wall-clock time `until`.
    pub fn run_until<S: Sink + ?Sized>(&mut self, medium: &mut Medium, sink: &mut S, until: Time) {
        loop {
            let next = self.poll(medium, sink).unwrap_or(NEVER);
            if self.now() >= until {
                return;
            }
            self.wait_until(next.min(until));
        }
    }
}
