//! A timerfd on CLOCK_MONOTONIC, armed at absolute times: the daemon's wake-up for
//! the medium's next event, with microsecond resolution (epoll's own timeout has 1 ms).

use crate::syscall_count;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// A non-blocking timerfd.
#[derive(Debug)]
pub struct Timer {
    fd: OwnedFd,
    armed_at: Option<u64>,
    /// It expired and the expiry was not read: the descriptor stays readable until
    /// the timer is set again.
    expired: bool,
}

impl Timer {
    /// A disarmed timer.
    pub fn new() -> io::Result<Timer> {
        // SAFETY: plain syscall; the result is checked.
        let fd = unsafe {
            libc::timerfd_create(libc::CLOCK_MONOTONIC, libc::TFD_NONBLOCK | libc::TFD_CLOEXEC)
        };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: a fresh descriptor nobody else owns.
        Ok(Timer { fd: unsafe { OwnedFd::from_raw_fd(fd) }, armed_at: None, expired: false })
    }

    /// Arms the timer to fire at `at` (CLOCK_MONOTONIC ns), or disarms it (None).
    /// Does nothing (no syscall) when already armed for that time. Setting the timer
    /// also clears an expiry not yet read (see [`Timer::fired`]).
    pub fn arm(&mut self, at: Option<u64>) -> io::Result<()> {
        if self.armed_at == at && !self.expired {
            return Ok(());
        }
        let t = at.unwrap_or(0).max(if at.is_some() { 1 } else { 0 });
        let spec = libc::itimerspec {
            it_interval: libc::timespec { tv_sec: 0, tv_nsec: 0 },
            it_value: libc::timespec {
                tv_sec: (t / 1_000_000_000) as libc::time_t,
                tv_nsec: (t % 1_000_000_000) as libc::c_long,
            },
        };
        syscall_count::add(1);
        // SAFETY: spec is a valid itimerspec; the old value is not requested.
        let r = unsafe {
            libc::timerfd_settime(
                self.fd.as_raw_fd(),
                libc::TFD_TIMER_ABSTIME,
                &spec,
                std::ptr::null_mut(),
            )
        };
        if r < 0 {
            return Err(io::Error::last_os_error());
        }
        self.armed_at = at;
        self.expired = false;
        Ok(())
    }

    /// Notes that the timer expired (its descriptor became readable). The expiry is
    /// not read: the next [`Timer::arm`] sets the timer again, which clears it, and
    /// saves a system call per wake-up.
    pub fn fired(&mut self) {
        self.expired = true;
    }
}

impl AsRawFd for Timer {
    fn as_raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}
