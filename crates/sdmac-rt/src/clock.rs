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
        let a = monotonic_ns();
        let i = std::time::Instant::now();
        std::thread::sleep(std::time::Duration::from_millis(2));
        let b = monotonic_ns();
        assert!(b > a);
        let d = b - a;
        let di = i.elapsed().as_nanos() as u64;
        assert!(d >= 2_000_000, "slept 2 ms, clock moved {d} ns");
        assert!(d.abs_diff(di) < 1_000_000, "{d} vs Instant {di}");
    }
}
