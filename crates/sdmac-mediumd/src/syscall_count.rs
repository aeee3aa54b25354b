//! The number of system calls the daemon has made: every wrapper that enters the
//! kernel adds to it, so the statistics can report system calls per frame (the cost
//! that dominates a medium daemon inside a VM).

use std::sync::atomic::{AtomicU64, Ordering};

static COUNT: AtomicU64 = AtomicU64::new(0);

/// Counts `n` system calls.
pub fn add(n: u64) {
    COUNT.fetch_add(n, Ordering::Relaxed);
}

/// System calls made so far.
pub fn total() -> u64 {
    COUNT.load(Ordering::Relaxed)
}
