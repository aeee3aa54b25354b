//! The thread that reads the daemon's truth stream into the joiner, lets held
//! confirmations go when their bound passes, and notices the daemon's end.

use super::join::Joiner;
use super::record::of_truth;
use sdmac_api::MacAddress;
use sdmac_control::client::Client;
use sdmac_rt::{monotonic_ns, EventFd};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Duration;

/// Longest the thread sleeps between looks at the joiner's deadlines.
const TICK: Duration = Duration::from_millis(20);

/// What the truth thread and the backend share.
pub struct Shared {
    /// The joiner.
    pub join: Mutex<Joiner>,
    /// Signalled when a confirmation becomes ready.
    pub cond: Condvar,
    /// Readable while confirmations are ready (part of the backend's event fd).
    pub efd: EventFd,
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
            stop: AtomicBool::new(false),
            lost: AtomicU64::new(0),
            gone: Mutex::new(None),
        })
    }

    /// The joiner, locked.
    pub fn lock(&self) -> MutexGuard<'_, Joiner> {
        self.join.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Wakes waiters when something is ready (call with the joiner locked).
    pub fn wake_if_ready(&self, j: &Joiner) {
        if j.ready() > 0 {
            self.efd.signal();
            self.cond.notify_all();
        }
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
                sh.wake_if_ready(&j);
                sh.cond.notify_all();
                return;
            }
        }
        j.expire(now);
        sh.wake_if_ready(&j);
    }
}
