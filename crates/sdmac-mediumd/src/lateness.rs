//! How late the daemon's outputs leave. Every status and delivery has the time the
//! medium says it happens (`due`: the ACK's end, the DATA frame's end); the daemon
//! sends it at some wall time after that. The difference is the emulation's timing
//! error as the kernel sees it: how late the daemon woke, the work of its round, and
//! what `--coalesce-us` held back. A daemon that keeps up sends within tens of
//! microseconds; one that falls behind shows it here first.

use hdrhistogram::Histogram;

/// Lateness above this is counted as this (a minute).
const MAX_NS: u64 = 60_000_000_000;

/// Lateness of the outputs sent, per statistics interval and since the start.
#[derive(Clone, Debug)]
pub struct Lateness {
    interval: Histogram<u64>,
    total: Histogram<u64>,
}

/// Percentiles of one histogram, in ns (all 0 when it is empty).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct LatenessSummary {
    /// Outputs counted.
    pub n: u64,
    /// Median.
    pub p50_ns: u64,
    /// 99th percentile.
    pub p99_ns: u64,
    /// Largest.
    pub max_ns: u64,
}

fn histogram() -> Histogram<u64> {
    // Two significant digits from 1 ns to a minute: ~1 % resolution, ~30 KB.
    Histogram::new_with_bounds(1, MAX_NS, 2).expect("valid histogram bounds")
}

impl Default for Lateness {
    fn default() -> Self {
        Lateness::new()
    }
}

impl Lateness {
    /// Nothing counted yet.
    pub fn new() -> Lateness {
        Lateness { interval: histogram(), total: histogram() }
    }

    /// An output due at `due` left at `sent` (both ns on the daemon's clock); one
    /// sent early (never, on one clock) counts as 0.
    pub fn record(&mut self, due: u64, sent: u64) {
        self.interval.saturating_record(sent.saturating_sub(due).min(MAX_NS));
    }

    /// Moves what `other` counted in its interval (another thread's) to this
    /// interval; `other`'s interval starts again.
    pub fn take_from(&mut self, other: &mut Lateness) {
        // Both have the same bounds, so adding cannot fail.
        let _ = self.interval.add(&other.interval);
        other.interval.reset();
    }

    /// The interval's summary; the interval then starts again (its counts go to the
    /// total).
    pub fn take_interval(&mut self) -> LatenessSummary {
        let s = summary(&self.interval);
        let _ = self.total.add(&self.interval);
        self.interval.reset();
        s
    }

    /// Everything counted since the start (the current interval included).
    pub fn total(&self) -> LatenessSummary {
        let mut all = self.total.clone();
        let _ = all.add(&self.interval);
        summary(&all)
    }
}

fn summary(h: &Histogram<u64>) -> LatenessSummary {
    if h.is_empty() {
        return LatenessSummary::default();
    }
    LatenessSummary {
        n: h.len(),
        p50_ns: h.value_at_quantile(0.5),
        p99_ns: h.value_at_quantile(0.99),
        max_ns: h.max(),
    }
}

impl std::fmt::Display for LatenessSummary {
    /// "n outputs, late by p50 X µs, p99 Y µs, max Z µs".
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let us = |ns: u64| ns as f64 / 1e3;
        write!(
            f,
            "{} outputs late by p50 {:.1} µs, p99 {:.1} µs, max {:.1} µs",
            self.n,
            us(self.p50_ns),
            us(self.p99_ns),
            us(self.max_ns)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn within_1pct(got: u64, want: u64) -> bool {
        got.abs_diff(want) * 100 <= want
    }

    #[test]
    fn percentiles_of_known_lateness() {
        let mut l = Lateness::new();
        // 1..=100 µs late, one each.
        for k in 1..=100u64 {
            l.record(1_000_000, 1_000_000 + k * 1_000);
        }
        let s = l.take_interval();
        assert_eq!(s.n, 100);
        assert!(within_1pct(s.p50_ns, 50_000), "{s:?}");
        assert!(within_1pct(s.p99_ns, 99_000), "{s:?}");
        assert!(within_1pct(s.max_ns, 100_000), "{s:?}");
    }

    #[test]
    fn intervals_start_again_and_the_total_keeps_everything() {
        let mut l = Lateness::new();
        l.record(0, 10_000);
        assert_eq!(l.take_interval().n, 1);
        assert_eq!(l.take_interval(), LatenessSummary::default());
        l.record(0, 30_000);
        l.record(0, 30_000);
        let t = l.total();
        assert_eq!(t.n, 3);
        assert!(within_1pct(t.max_ns, 30_000), "{t:?}");
        assert!(within_1pct(t.p50_ns, 30_000), "{t:?}");
    }

    #[test]
    fn early_and_huge_values_are_clamped() {
        let mut l = Lateness::new();
        l.record(5_000, 1_000);
        l.record(0, u64::MAX);
        let s = l.take_interval();
        assert_eq!(s.n, 2);
        assert!(s.max_ns >= MAX_NS && within_1pct(s.max_ns, MAX_NS), "{s:?}");
        assert_eq!(l.total().n, 2);
    }

    #[test]
    fn taking_from_another_moves_its_interval() {
        let (mut a, mut b) = (Lateness::new(), Lateness::new());
        a.record(0, 1_000);
        b.record(0, 2_000);
        b.record(0, 2_000);
        a.take_from(&mut b);
        let s = a.take_interval();
        assert_eq!(s.n, 3);
        assert!(within_1pct(s.p50_ns, 2_000), "{s:?}");
        assert_eq!(b.take_interval(), LatenessSummary::default());
    }

    #[test]
    fn shown_in_microseconds() {
        let s = LatenessSummary { n: 3, p50_ns: 12_340, p99_ns: 56_000, max_ns: 1_000_000 };
        assert_eq!(s.to_string(), "3 outputs late by p50 12.3 µs, p99 56.0 µs, max 1000.0 µs");
    }
}
