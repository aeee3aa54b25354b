//! The thread that reads the daemon's truth stream into the joiner, lets held
//! confirmations go when their bound passes, and notices the daemon's end; and the
//! descriptors that tell a station loop a confirmation is ready or a held one's
//! bound has passed.

use super::join::Joiner;
use super::record::of_truth;
use sdmac_api::MacAddress;
use sdmac_control::client::Client;
use sdmac_rt::{monotonic_ns, EventFd};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Duration;

/// Longest the thread sleeps between looks at the joiner's deadlines.
const TICK: Duration = Duration::from_millis(20);

/// A CLOCK_MONOTONIC timerfd: readable once the time it is armed for has come.
pub struct DeadlineTimer {
    fd: OwnedFd,
}

impl DeadlineTimer {
    /// A disarmed timer.
    pub fn new() -> std::io::Result<DeadlineTimer> {
        // SAFETY: timerfd_create returns a new descriptor or -1.
        let fd = unsafe {
            libc::timerfd_create(libc::CLOCK_MONOTONIC, libc::TFD_NONBLOCK | libc::TFD_CLOEXEC)
        };
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: fd is a new descriptor owned from here on.
        Ok(DeadlineTimer { fd: unsafe { OwnedFd::from_raw_fd(fd) } })
    }

    /// Makes the descriptor readable at `at` (ns, CLOCK_MONOTONIC; None: never).
    /// Arming again forgets an expiry not yet read, so the descriptor is readable
    /// only while the time it was last armed for has passed.
    pub fn arm(&self, at: Option<u64>) {
        let ns = at.map_or(0, |t| t.max(1));
        let value = libc::timespec {
            tv_sec: (ns / 1_000_000_000) as libc::time_t,
            tv_nsec: (ns % 1_000_000_000) as libc::c_long,
        };
        let spec = libc::itimerspec {
            it_interval: libc::timespec { tv_sec: 0, tv_nsec: 0 },
            it_value: value,
        };
        // SAFETY: fd is a timerfd; spec is a valid itimerspec; the old value is not
        // asked for. It cannot fail with these arguments.
        unsafe {
            libc::timerfd_settime(
                self.fd.as_raw_fd(),
                libc::TFD_TIMER_ABSTIME,
                &spec,
                std::ptr::null_mut(),
            )
        };
    }
}

impl AsRawFd for DeadlineTimer {
    fn as_raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}

/// What the truth thread and the backend share.
pub struct Shared {
    /// The joiner.
    pub join: Mutex<Joiner>,
    /// Signalled when a confirmation becomes ready.
    pub cond: Condvar,
    /// Readable while confirmations are ready (part of the backend's event fd).
    pub efd: EventFd,
    /// Readable once the earliest held confirmation's bound has passed (part of the
    /// backend's event fd), so that its release does not wait for the truth
    /// thread's next look.
    pub timer: DeadlineTimer,
    /// Asks the thread to end.
    pub stop: AtomicBool,
    /// Records the daemon said it dropped for this connection (its backlog was full).
    pub lost: AtomicU64,
    /// Why the truth stream ended, once it has.
    pub gone: Mutex<Option<String>>,
}

impl Shared {
    /// A shared state around `join`.
    pub fn new(join: Joiner) -> std::io::Result<Shared> {
        Ok(Shared {
            join: Mutex::new(join),
            cond: Condvar::new(),
            efd: EventFd::new()?,
            timer: DeadlineTimer::new()?,
            stop: AtomicBool::new(false),
            lost: AtomicU64::new(0),
            gone: Mutex::new(None),
        })
    }

    /// The joiner, locked.
    pub fn lock(&self) -> MutexGuard<'_, Joiner> {
        self.join.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// After any change to the joiner (call with it locked): wakes waiters and
    /// makes the event descriptor readable when something is ready, and arms the
    /// timer for the earliest held confirmation's bound.
    pub fn settle(&self, j: &Joiner) {
        if j.ready() > 0 {
            self.efd.signal();
            self.cond.notify_all();
        }
        self.timer.arm(j.next_deadline());
    }

    /// The descriptors that belong in the backend's event fd.
    pub fn fds(&self) -> [RawFd; 2] {
        [self.efd.as_raw_fd(), self.timer.as_raw_fd()]
    }
}

/// Reads records from `client` (subscribed to `me`'s frames) until told to stop or
/// the daemon goes away; then the joiner stops waiting for truth.
pub fn run(sh: &Shared, mut client: Client, me: MacAddress) {
    loop {
        if sh.stop.load(Ordering::SeqCst) {
            return;
        }
        let got = client.next_record(Some(TICK));
        let now = monotonic_ns();
        let mut j = sh.lock();
        match got {
            Ok(Some(r)) => {
                if r.lost > 0 {
                    sh.lost.fetch_add(r.lost as u64, Ordering::Relaxed);
                }
                if let Some(rec) = of_truth(&r, me) {
                    j.record(now, rec);
                }
            }
            Ok(None) => {}
            Err(e) => {
                *sh.gone.lock().unwrap_or_else(|e| e.into_inner()) = Some(e.to_string());
                j.unavailable();
                sh.settle(&j);
                sh.cond.notify_all();
                return;
            }
        }
        j.expire(now);
        sh.settle(&j);
    }
}

#[cfg(test)]
#[path = "truth_thread_tests.rs"]
mod tests;
