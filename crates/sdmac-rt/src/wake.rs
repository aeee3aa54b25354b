//! Spin-then-park wake-ups between one producer thread and one consumer thread.
//!
//! The consumer checks its condition, spins for a budget, and only then announces
//! that it will park. The producer, after publishing, pays one atomic load, and a
//! syscall (`unpark`) only when the consumer really parked. A consumer that is
//! answered within its spin budget therefore costs no syscall on either side.
//!
//! The hand-off is a store-then-load on each side (the producer publishes, then reads
//! `parked`; the consumer sets `parked`, then reads what was published). Both sides put
//! a `SeqCst` fence between their store and their load: without it a producer whose
//! publication is a plain release store (an SPSC ring's tail) may read `parked` before
//! that store is visible, while the consumer, having announced its park, still sees the
//! old tail — and parks for ever with the item waiting (x86 reorders a store with a
//! later load).

use std::sync::atomic::{fence, AtomicBool, Ordering};
use std::sync::Mutex;
use std::thread::Thread;
use std::time::Duration;

use crate::clock::monotonic_ns;

/// What ended a wait.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum WaitOutcome {
    /// The condition became true.
    Ready,
    /// The deadline passed first.
    TimedOut,
}

/// The shared half of a wake-up: the consumer waits on it, producers notify it.
#[derive(Debug, Default)]
pub struct Wake {
    parked: AtomicBool,
    thread: Mutex<Option<Thread>>,
}

impl Wake {
    /// A wake-up nobody waits on yet.
    pub fn new() -> Wake {
        Wake::default()
    }

    /// Called by a producer after publishing: wakes the consumer if it parked.
    #[inline]
    pub fn notify(&self) {
        // Orders the caller's publication (any store, of any ordering) before the
        // read of `parked`; pairs with the fence in `park_until`.
        fence(Ordering::SeqCst);
        if self.parked.load(Ordering::SeqCst) {
            self.unpark_slow();
        }
    }

    #[cold]
    fn unpark_slow(&self) {
        if let Some(t) = self.thread.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
            t.unpark();
        }
    }

    /// Is the consumer parked (or about to park)?
    pub fn is_parked(&self) -> bool {
        self.parked.load(Ordering::SeqCst)
    }

    /// Waits until `ready()` is true or `deadline_ns` (`CLOCK_MONOTONIC`; `u64::MAX`
    /// for none) passes: spins for `spin_ns`, then parks until notified. Only one
    /// consumer waits at a time, but it may be a different thread from one wait to
    /// the next.
    pub fn wait_until(
        &self,
        deadline_ns: u64,
        spin_ns: u64,
        mut ready: impl FnMut() -> bool,
    ) -> WaitOutcome {
        if ready() {
            return WaitOutcome::Ready;
        }
        let start = monotonic_ns();
        let spin_end = start.saturating_add(spin_ns).min(deadline_ns);
        loop {
            if ready() {
                return WaitOutcome::Ready;
            }
            let now = monotonic_ns();
            if now >= deadline_ns {
                return WaitOutcome::TimedOut;
            }
            if now < spin_end {
                std::hint::spin_loop();
                continue;
            }
            self.park_until(deadline_ns, &mut ready);
        }
    }

    /// Announces the park, re-checks, and parks until notified or `deadline_ns`.
    fn park_until(&self, deadline_ns: u64, ready: &mut impl FnMut() -> bool) {
        {
            // The consumer may move to another thread between waits (an interface
            // handed to a worker): the thread parking now is the one to unpark.
            let me = std::thread::current();
            let mut t = self.thread.lock().unwrap_or_else(|e| e.into_inner());
            if t.as_ref().map(Thread::id) != Some(me.id()) {
                *t = Some(me);
            }
        }
        self.parked.store(true, Ordering::SeqCst);
        // Orders the announcement before the re-check; pairs with `notify`'s fence.
        fence(Ordering::SeqCst);
        if !ready() {
            let now = monotonic_ns();
            if deadline_ns == u64::MAX {
                std::thread::park();
            } else if deadline_ns > now {
                std::thread::park_timeout(Duration::from_nanos(deadline_ns - now));
            }
        }
        self.parked.store(false, Ordering::SeqCst);
    }

    /// Forgets the consumer thread (a different thread may wait from now on).
    pub fn reset_consumer(&self) {
        *self.thread.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;
    use std::sync::Arc;

    /// The deadline a lost wake-up runs into: far beyond any stall of this host's
    /// threads, so that reaching it means the wake-up was lost, never that the
    /// producer was descheduled.
    const GUARD_NS: u64 = 60_000_000_000;

    #[test]
    fn times_out_without_notification() {
        let w = Wake::new();
        let t0 = monotonic_ns();
        let r = w.wait_until(t0 + 3_000_000, 100_000, || false);
        assert_eq!(r, WaitOutcome::TimedOut);
        assert!(monotonic_ns() - t0 >= 3_000_000);
    }

    #[test]
    fn parked_consumer_is_woken() {
        let w = Arc::new(Wake::new());
        let v = Arc::new(AtomicU64::new(0));
        let (w2, v2) = (w.clone(), v.clone());
        let h = std::thread::spawn(move || {
            let r = w2.wait_until(u64::MAX, 0, || v2.load(Ordering::SeqCst) == 1);
            assert_eq!(r, WaitOutcome::Ready);
        });
        // Let it park, then publish and notify.
        while !w.is_parked() {
            std::thread::yield_now();
        }
        v.store(1, Ordering::SeqCst);
        w.notify();
        h.join().unwrap();
    }

    /// A consumer that moves to another thread is still woken there: the first
    /// thread parks and is woken once, then a second thread parks.
    #[test]
    fn consumer_moved_to_another_thread_is_woken() {
        let w = Arc::new(Wake::new());
        let v = Arc::new(AtomicU64::new(0));
        for round in 1..=2u64 {
            let (w2, v2) = (w.clone(), v.clone());
            let h = std::thread::spawn(move || {
                // A lost wake-up shows as the deadline passing, not a hung test.
                let deadline = monotonic_ns() + GUARD_NS;
                let r = w2.wait_until(deadline, 0, || v2.load(Ordering::SeqCst) == round);
                assert_eq!(r, WaitOutcome::Ready, "round {round}");
                // Woken by the notification, not by its deadline passing.
                assert!(monotonic_ns() < deadline, "round {round}: the wake-up was lost");
            });
            while !w.is_parked() {
                std::thread::yield_now();
            }
            v.store(round, Ordering::SeqCst);
            w.notify();
            h.join().unwrap();
        }
    }

    /// The producer publishes with a plain release store, as an SPSC ring's push does,
    /// and the consumer parks at once (no spin): the hand-off most exposed to a lost
    /// wake-up. A lost one shows as a wait that reaches its (generous) deadline.
    #[test]
    fn release_publications_are_never_missed() {
        let w = Arc::new(Wake::new());
        let v = Arc::new(AtomicU64::new(0));
        let done = Arc::new(AtomicU64::new(0));
        let (w2, v2, d2) = (w.clone(), v.clone(), done.clone());
        const N: u64 = 20_000;
        let h = std::thread::spawn(move || {
            for i in 1..=N {
                let r =
                    w2.wait_until(monotonic_ns() + GUARD_NS, 0, || v2.load(Ordering::Acquire) >= i);
                assert_eq!(r, WaitOutcome::Ready, "hand-off {i} lost its wake-up");
                d2.store(i, Ordering::Release);
            }
        });
        for i in 1..=N {
            v.store(i, Ordering::Release);
            w.notify();
            // Lock-step, so that every hand-off can meet a consumer about to park.
            while done.load(Ordering::Acquire) < i {
                std::hint::spin_loop();
            }
        }
        h.join().unwrap();
    }

    #[test]
    fn many_handoffs_never_hang() {
        let w = Arc::new(Wake::new());
        let v = Arc::new(AtomicU64::new(0));
        let (w2, v2) = (w.clone(), v.clone());
        let h = std::thread::spawn(move || {
            for i in 1..=2000u64 {
                let r = w2.wait_until(monotonic_ns() + GUARD_NS, 2_000, || {
                    v2.load(Ordering::SeqCst) >= i
                });
                assert_eq!(r, WaitOutcome::Ready, "hand-off {i} hung");
            }
        });
        for i in 1..=2000u64 {
            if i % 7 == 0 {
                std::thread::sleep(Duration::from_micros(50));
            }
            v.store(i, Ordering::SeqCst);
            w.notify();
        }
        h.join().unwrap();
    }
}
