//! The daemon's wait: epoll with a deadline in nanoseconds, in one system call.
//!
//! `epoll_pwait2` (Linux 5.11) takes a timeout with nanosecond resolution, so the
//! medium's next output needs no timer descriptor (no timerfd_settime per wake-up).
//! Where the kernel lacks it (ENOSYS), a timerfd set at the deadline stands in.
//! Level-triggered: a descriptor with data left unread reports again.

use crate::syscall_count;
use crate::timer::Timer;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// The token the fallback timer reports with (never returned to the caller).
const TIMER_TOKEN: u64 = u64::MAX;

/// An epoll instance.
#[derive(Debug)]
pub struct Poller {
    fd: OwnedFd,
    events: Vec<libc::epoll_event>,
    ready: Vec<u64>,
    /// The timerfd used where epoll_pwait2 is missing.
    fallback: Option<Timer>,
}

impl Poller {
    /// An empty poller.
    pub fn new() -> io::Result<Poller> {
        // SAFETY: plain syscall; the result is checked.
        let fd = unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: a fresh descriptor nobody else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        Ok(Poller {
            fd,
            events: vec![libc::epoll_event { events: 0, u64: 0 }; 64],
            ready: Vec::new(),
            fallback: None,
        })
    }

    /// Watches `fd` for input; `token` comes back when it is readable.
    pub fn add(&self, fd: RawFd, token: u64) -> io::Result<()> {
        let mut ev = libc::epoll_event { events: libc::EPOLLIN as u32, u64: token };
        syscall_count::add(1);
        // SAFETY: ev is a valid epoll_event.
        if unsafe { libc::epoll_ctl(self.fd.as_raw_fd(), libc::EPOLL_CTL_ADD, fd, &mut ev) } < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// Watches `fd` for input, and for room to write too when `write` holds.
    pub fn modify(&self, fd: RawFd, token: u64, write: bool) -> io::Result<()> {
        let events = libc::EPOLLIN as u32 | if write { libc::EPOLLOUT as u32 } else { 0 };
        let mut ev = libc::epoll_event { events, u64: token };
        syscall_count::add(1);
        // SAFETY: ev is a valid epoll_event.
        if unsafe { libc::epoll_ctl(self.fd.as_raw_fd(), libc::EPOLL_CTL_MOD, fd, &mut ev) } < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// Stops watching `fd`.
    pub fn remove(&self, fd: RawFd) {
        syscall_count::add(1);
        // SAFETY: a null event is allowed for EPOLL_CTL_DEL.
        unsafe {
            libc::epoll_ctl(self.fd.as_raw_fd(), libc::EPOLL_CTL_DEL, fd, std::ptr::null_mut())
        };
    }

    /// Waits until a watched descriptor is readable, the absolute CLOCK_MONOTONIC
    /// time `deadline_ns` passes, or `max_ms` elapse; returns the ready tokens (empty
    /// at the deadline or on a signal).
    pub fn wait(&mut self, deadline_ns: Option<u64>, max_ms: u64) -> io::Result<&[u64]> {
        self.ready.clear();
        let now = crate::syscall_count::monotonic_ns();
        let timeout = timeout_ns(deadline_ns, max_ms);
        let n = match self.fallback.as_mut() {
            None => {
                let ts = libc::timespec {
                    tv_sec: (timeout / 1_000_000_000) as libc::time_t,
                    tv_nsec: (timeout % 1_000_000_000) as libc::c_long,
                };
                syscall_count::add(1);
                // SAFETY: events has room for its length; ts is a valid timespec; no sigmask.
                let r = unsafe {
                    libc::syscall(
                        libc::SYS_epoll_pwait2,
                        self.fd.as_raw_fd(),
                        self.events.as_mut_ptr(),
                        self.events.len() as libc::c_int,
                        &ts as *const libc::timespec,
                        std::ptr::null::<libc::sigset_t>(),
                        0usize,
                    )
                };
                if r < 0 && io::Error::last_os_error().raw_os_error() == Some(libc::ENOSYS) {
                    let t = Timer::new()?;
                    self.add(t.as_raw_fd(), TIMER_TOKEN)?;
                    self.fallback = Some(t);
                    return self.wait(deadline_ns, max_ms);
                }
                r
            }
            Some(t) => {
                t.arm(deadline_ns.filter(|&d| d.saturating_sub(now) < max_ms * 1_000_000))?;
                syscall_count::add(1);
                // SAFETY: events has room for its length.
                libc::c_long::from(unsafe {
                    libc::epoll_wait(
                        self.fd.as_raw_fd(),
                        self.events.as_mut_ptr(),
                        self.events.len() as libc::c_int,
                        max_ms as libc::c_int,
                    )
                })
            }
        };
        if n < 0 {
            let e = io::Error::last_os_error();
            return if e.kind() == io::ErrorKind::Interrupted { Ok(&self.ready) } else { Err(e) };
        }
        for ev in &self.events[..n as usize] {
            let token = ev.u64;
            if token == TIMER_TOKEN {
                if let Some(t) = self.fallback.as_mut() {
                    t.fired();
                }
            } else {
                self.ready.push(token);
            }
        }
        Ok(&self.ready)
    }
}

/// How long a wait until the absolute CLOCK_MONOTONIC time `deadline_ns` (if any)
/// lasts from now, at most `max_ms` (ns).
pub fn timeout_ns(deadline_ns: Option<u64>, max_ms: u64) -> u64 {
    let max = max_ms * 1_000_000;
    match deadline_ns {
        Some(d) => d.saturating_sub(crate::syscall_count::monotonic_ns()).min(max),
        None => max,
    }
}

impl AsRawFd for Poller {
    /// The epoll descriptor (readable when a watched descriptor is).
    fn as_raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn wakes_at_the_deadline_and_on_input() {
        let mut p = Poller::new().unwrap();
        let (a, mut b) = std::os::unix::net::UnixStream::pair().unwrap();
        p.add(a.as_raw_fd(), 7).unwrap();
        let t0 = crate::syscall_count::monotonic_ns();
        assert!(p.wait(Some(t0 + 3_000_000), 1000).unwrap().is_empty());
        let waited = crate::syscall_count::monotonic_ns() - t0;
        assert!(waited >= 3_000_000, "woke {waited} ns after, before the deadline");
        b.write_all(b"x").unwrap();
        assert_eq!(p.wait(None, 1000).unwrap(), &[7]);
        // Level-triggered: unread input reports again.
        assert_eq!(p.wait(None, 1000).unwrap(), &[7]);
        p.remove(a.as_raw_fd());
        let t1 = crate::syscall_count::monotonic_ns();
        assert!(p.wait(None, 5).unwrap().is_empty());
        assert!(crate::syscall_count::monotonic_ns() - t1 >= 5_000_000);
    }

    #[test]
    fn a_past_deadline_returns_at_once() {
        let mut p = Poller::new().unwrap();
        let t0 = crate::syscall_count::monotonic_ns();
        // A minute at most otherwise: returning well before it is returning at once,
        // however long this thread is stalled.
        assert!(p.wait(Some(1), 60_000).unwrap().is_empty());
        assert!(crate::syscall_count::monotonic_ns() - t0 < 30_000_000_000, "waited");
    }
}
