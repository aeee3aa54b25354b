//! A medium run by its caller instead of a device thread.
//!
//! [`crate::EmuSession::start_driven`] gives the session and an [`EmuDriver`]. The
//! thread that holds the driver runs the medium: each [`EmuDriver::pass`] takes the
//! interfaces' requests and commands, the stations to add, and processes the medium's
//! events due by now on the wall clock; [`EmuDriver::next_due`] says when the next one
//! is due. Between passes nothing happens on the medium, so a thread that serves
//! several interfaces and the medium (a run-to-completion loop, as sdmac-tap's
//! one-thread mode) makes no hand-off between threads per frame: an interface's
//! request goes on air at the driver's next pass, and what the medium delivers is in
//! the receiving interface's ring when the pass returns.
//!
//! Events are processed when a pass runs, never before their time: a pass that runs
//! late processes every event due by then, in order, each at its own medium time, as
//! the device thread does when it runs late. The interfaces must be read without
//! blocking (`Wait::NoWait`) on the driving thread: a blocking read there would wait
//! for a pass that cannot come. Attribute `set`/`get` and `cancel`, which wait for
//! the device's answer, pass the medium themselves while they wait, so they work on
//! any thread, the driving one included. Dropping the driver ends the session's
//! medium: the requests still queued are confirmed as `Dropped(Closed)`.

use crate::device::{Device, DeviceStats};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, MutexGuard};

/// The device while the medium runs; `None` once it ended. Shared with the session's
/// interfaces only weakly, for their waits (see the module's documentation).
type Shared = Arc<Mutex<Option<Device>>>;

/// Runs a session's medium on the caller's thread (see the module's documentation).
pub struct EmuDriver {
    device: Shared,
    final_stats: Arc<Mutex<Option<DeviceStats>>>,
}

impl std::fmt::Debug for EmuDriver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmuDriver").field("running", &self.lock().is_some()).finish()
    }
}

impl EmuDriver {
    pub(crate) fn new(device: Device, final_stats: Arc<Mutex<Option<DeviceStats>>>) -> EmuDriver {
        let session = device.session.clone();
        let device: Shared = Arc::new(Mutex::new(Some(device)));
        let weak = Arc::downgrade(&device);
        let _ = session.help.0.set(Box::new(move || {
            let Some(shared) = weak.upgrade() else { return };
            // Busy: another thread is in a pass, which is as good.
            let guard = shared.try_lock();
            if let Ok(mut d) = guard {
                if let Some(d) = d.as_mut() {
                    d.pass();
                }
            }
        }));
        EmuDriver { device, final_stats }
    }

    fn lock(&self) -> MutexGuard<'_, Option<Device>> {
        self.device.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// One pass: the stations to add, the interfaces' requests and commands, and the
    /// medium's events due by now. True if there was anything to do (call again at
    /// once: what it did may have made more due). False once the session is closed.
    pub fn pass(&mut self) -> bool {
        let mut g = self.lock();
        let Some(d) = g.as_mut() else { return false };
        let (work, _) = d.pass();
        if d.session.closed.load(Ordering::Acquire) {
            drop(g);
            self.finish();
            return false;
        }
        work
    }

    /// When (`CLOCK_MONOTONIC`, ns) the medium's next event or held item is due;
    /// `None` when nothing is scheduled (or the session ended). Requests made since
    /// the last pass are not counted: pass first.
    pub fn next_due(&self) -> Option<u64> {
        let t = self.lock().as_ref()?.next_due();
        (t != u64::MAX).then_some(t)
    }

    /// Whether the session has ended (closed, or the driver finished).
    pub fn is_closed(&self) -> bool {
        self.lock().as_ref().is_none_or(|d| d.session.closed.load(Ordering::Acquire))
    }

    /// Events processed so far, and how late the latest ran behind its time at most
    /// (ns).
    pub fn events(&self) -> (u64, u64) {
        self.lock().as_ref().map_or((0, 0), |d| (d.stats.events, d.stats.max_event_lateness_ns))
    }

    /// Ends the medium: the session is closed, and every request still queued is
    /// confirmed as `Dropped(Closed)`.
    pub fn finish(&mut self) {
        let taken = self.lock().take();
        if let Some(mut d) = taken {
            d.session.closed.store(true, Ordering::Release);
            d.close();
            *self.final_stats.lock().unwrap_or_else(|e| e.into_inner()) = Some(d.stats);
        }
    }
}

impl Drop for EmuDriver {
    fn drop(&mut self) {
        self.finish();
    }
}
