//! The time base: `CLOCK_MONOTONIC` in nanoseconds, the same clock as Python's
//! `time.monotonic_ns()` and Rust's `Instant` on Linux.

/// Nanoseconds of `CLOCK_MONOTONIC`.
#[inline]
pub fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec; CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn monotonic_and_close_to_instant() {
        // Both read CLOCK_MONOTONIC: each reading of one, bracketed by readings of
        // the other, falls between them, however long the thread is stalled.
        let a0 = monotonic_ns();
        let i = std::time::Instant::now();
        let a1 = monotonic_ns();
        std::thread::sleep(std::time::Duration::from_millis(2));
        let e0 = i.elapsed().as_nanos() as u64;
        let b = monotonic_ns();
        let e1 = i.elapsed().as_nanos() as u64;
        assert!(a0 <= a1 && a1 < b);
        assert!(b - a0 >= 2_000_000, "slept 2 ms, clock moved {} ns", b - a0);
        // i is within [a0, a1] and b within [i + e0, i + e1].
        assert!(b - a0 >= e0, "{} ns on the clock, {e0} ns on Instant before it", b - a0);
        assert!(b - a1 <= e1, "{} ns on the clock, {e1} ns on Instant after it", b - a1);
    }
}
