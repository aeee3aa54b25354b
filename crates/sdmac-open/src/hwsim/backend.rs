//! [`HwsimBackend`]: the linux backend on a mac80211_hwsim radio, its confirmations
//! joined with the truth of `sdmac-mediumd`, and the attributes stock mac80211
//! cannot set routed to the daemon.

use super::control::{through_daemon, DaemonControl};
use super::join::FrameKey;
use super::truth_thread::{self, Shared};
use sdmac_api::attribute::lookup;
use sdmac_api::{
    Ac, ApiError, Backend, Body, Confirmation, DropReason, Scope, Status, Time, TxAttrs, Value,
    Wait,
};
use sdmac_linux::LinuxBackend;
use sdmac_rt::monotonic_ns;
use std::collections::HashMap;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// Longest a blocked `data_con` waits at once before it looks at both sides again.
const SLICE: Duration = Duration::from_millis(2);

/// The `hwsim` backend. Implements [`Backend`].
pub struct HwsimBackend {
    inner: LinuxBackend,
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
    keys: HashMap<u64, FrameKey>,
    daemon: DaemonControl,
    inner_closed: bool,
    epoll: Option<OwnedFd>,
}

impl std::fmt::Debug for HwsimBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HwsimBackend").field("inner", &self.inner).finish()
    }
}

impl HwsimBackend {
    /// Joins `inner`'s confirmations with the records `subscriber` (subscribed to
    /// the monitor's frames) reads into `shared`; `daemon` carries set and get.
    pub fn start(
        inner: LinuxBackend,
        shared: Shared,
        subscriber: sdmac_control::client::Client,
        daemon: DaemonControl,
    ) -> Result<HwsimBackend, String> {
        let shared = Arc::new(shared);
        let sh = shared.clone();
        let me = inner.address();
        let thread = std::thread::Builder::new()
            .name(format!("sdmac-hwsim-{}", inner.iface()))
            .spawn(move || truth_thread::run(&sh, subscriber, me))
            .map_err(|e| format!("starting the truth thread: {e}"))?;
        Ok(HwsimBackend {
            inner,
            shared,
            thread: Some(thread),
            keys: HashMap::new(),
            daemon,
            inner_closed: false,
            epoll: None,
        })
    }

    /// Is the daemon's truth still coming?
    pub fn truth_available(&self) -> bool {
        self.shared.lock().available()
    }

    fn feed(&mut self, c: Confirmation) {
        let key = match c.status {
            Status::Dropped(DropReason::DuplicateId) => None,
            _ => self.keys.remove(&c.id),
        };
        let mut j = self.shared.lock();
        j.confirm(monotonic_ns(), c, key);
        self.shared.settle(&j);
    }

    /// Takes every confirmation the linux backend has ready.
    fn pull(&mut self) -> Result<(), ApiError> {
        while !self.inner_closed {
            match self.inner.data_con(Wait::NoWait) {
                Ok(Some(c)) => self.feed(c),
                Ok(None) => break,
                Err(ApiError::Closed) => self.inner_closed = true,
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    fn stats(&self) -> Value {
        let j = self.shared.lock();
        let c = j.counters();
        let l = self.inner.stats();
        let int = |v: u64| Value::Int(v.min(i64::MAX as u64) as i64);
        Value::Map(vec![
            ("truth_available".into(), Value::Bool(j.available())),
            ("truth_joined".into(), int(c.joined)),
            ("truth_missing".into(), int(c.missing)),
            ("truth_unavailable".into(), int(c.unavailable)),
            ("truth_not_sent".into(), int(c.not_sent)),
            ("truth_records".into(), int(c.records)),
            ("truth_stray_records".into(), int(c.stray_records)),
            ("truth_lost_by_daemon".into(), int(self.shared.lost.load(Ordering::Relaxed))),
            ("confirmed".into(), int(l.matcher.confirmed)),
            ("no_report".into(), int(l.matcher.no_report)),
            ("resends".into(), int(l.matcher.resends)),
        ])
    }
}

impl Drop for HwsimBackend {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Backend for HwsimBackend {
    fn data_req(
        &mut self,
        id: u64,
        body: Body<'_>,
        ac: Ac,
        attrs: &TxAttrs,
        t1: Time,
    ) -> Result<(), ApiError> {
        self.inner.data_req(id, body, ac, attrs, t1)?;
        if let Some(k) = self.inner.last_sent() {
            self.keys.insert(id, FrameKey { ra: k.addr1, seq_ctrl: k.seq_ctrl });
        }
        Ok(())
    }

    fn data_con(&mut self, wait: Wait) -> Result<Option<Confirmation>, ApiError> {
        let deadline = wait.deadline(Time::from_ns(monotonic_ns())).as_ns();
        loop {
            self.pull()?;
            let now = monotonic_ns();
            let held = {
                let mut j = self.shared.lock();
                j.expire(now);
                if self.inner_closed {
                    j.release_all(false);
                }
                if let Some(c) = j.pop() {
                    if j.ready() == 0 {
                        self.shared.efd.clear();
                    }
                    self.shared.settle(&j);
                    return Ok(Some(c));
                }
                self.shared.efd.clear();
                self.shared.settle(&j);
                if self.inner_closed {
                    return Err(ApiError::Closed);
                }
                if now >= deadline {
                    return Ok(None);
                }
                if j.held() > 0 {
                    let until = j
                        .next_deadline()
                        .unwrap_or(deadline)
                        .min(deadline)
                        .min(now + SLICE.as_nanos() as u64);
                    let _ = self
                        .shared
                        .cond
                        .wait_timeout(j, Duration::from_nanos(until.saturating_sub(now).max(1)))
                        .unwrap_or_else(|e| e.into_inner());
                    true
                } else {
                    false
                }
            };
            if held {
                continue;
            }
            let slice =
                Duration::from_nanos(deadline.saturating_sub(now)).min(Duration::from_millis(100));
            match self.inner.data_con(Wait::For(slice)) {
                Ok(Some(c)) => self.feed(c),
                Ok(None) => {}
                Err(ApiError::Closed) => self.inner_closed = true,
                Err(e) => return Err(e),
            }
        }
    }

    fn set(&mut self, name: &str, scope: Scope, value: &Value) -> Result<(), ApiError> {
        let spec = lookup(name, &scope, true)?;
        if through_daemon(spec.name, &scope) {
            return self.daemon.set(spec.name, scope, value);
        }
        self.inner.set(name, scope, value)
    }

    fn get(&mut self, name: &str, scope: Scope) -> Result<Value, ApiError> {
        let spec = lookup(name, &scope, false)?;
        if through_daemon(spec.name, &scope) {
            return self.daemon.get(spec.name, scope);
        }
        if spec.name == "stats" {
            return Ok(self.stats());
        }
        self.inner.get(name, scope)
    }

    fn unconfirmed(&self) -> usize {
        let j = self.shared.lock();
        self.inner.unconfirmed() + j.held() + j.ready()
    }

    fn event_fd(&mut self) -> Option<RawFd> {
        if let Some(fd) = &self.epoll {
            return Some(fd.as_raw_fd());
        }
        let inner = self.inner.event_fd()?;
        // One descriptor readable when either side is: the linux backend's (a
        // confirmation or indication to take) or the joiner's (a confirmation
        // released by a record, or a held one's bound passed: its timer).
        // SAFETY: epoll_create1 returns a new descriptor or -1.
        let ep = unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) };
        if ep < 0 {
            return None;
        }
        // SAFETY: ep is a descriptor this function owns from here on.
        let ep = unsafe { OwnedFd::from_raw_fd(ep) };
        let [efd, timer] = self.shared.fds();
        for fd in [inner, efd, timer] {
            let mut ev = libc::epoll_event { events: libc::EPOLLIN as u32, u64: fd as u64 };
            // SAFETY: both descriptors are open; ev is a valid epoll_event.
            if unsafe { libc::epoll_ctl(ep.as_raw_fd(), libc::EPOLL_CTL_ADD, fd, &mut ev) } < 0 {
                return None;
            }
        }
        let j = self.shared.lock();
        self.shared.settle(&j);
        drop(j);
        let raw = ep.as_raw_fd();
        self.epoll = Some(ep);
        Some(raw)
    }

    fn timed_sends(&self) -> bool {
        // Frames go through the kernel's radio, which sends them when they arrive.
        false
    }

    sdmac_api::forward_backend!(
        |s| &mut s.inner, &s.inner;
        except data_req, data_con, set, get, unconfirmed, event_fd, timed_sends
    );
}
