//! Per-second statistics as JSON lines (`--stats FILE`). Per medium (configured
//! medium id and channel): frames,
//! airtime, retries, failures, drops and collisions per access category, from the
//! engine's counters; `utilization` (time with a frame on air) and `backlog` (time
//! with a frame queued or in its exchange: 1.0 means the medium never waited for the
//! daemon or the kernel). Then one line for the daemon itself: cumulative frames,
//! deliveries and system calls, the CLOCK_MONOTONIC time (`mono_s`) to line
//! the statistics up with other clocks, and how late the interval's outputs left
//! (`late_us`: count, median, 99th percentile and largest, µs after their time on
//! the medium; see [`crate::lateness`]).

use crate::lateness::LatenessSummary;
use crate::refusal::Refusals;
use sdmac_medium::MediumStats;
use std::collections::HashMap;
use std::io::{self, Write};

const ACS: [&str; 4] = ["BK", "BE", "VI", "VO"];

/// Cumulative counters of the daemon, for its statistics line.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct DaemonCounters {
    /// CLOCK_MONOTONIC now, ns.
    pub mono_ns: u64,
    /// Frames from the kernel.
    pub frames: u64,
    /// Copies delivered to radios.
    pub deliveries: u64,
    /// TX statuses sent.
    pub statuses: u64,
    /// System calls made.
    pub syscalls: u64,
    /// Wake-ups of the loop.
    pub rounds: u64,
    /// How late the outputs of the interval left (not cumulative); those the kernel
    /// sent at their time are not in it.
    pub late: LatenessSummary,
    /// Outputs the kernel sent at their time: the daemon knew them ahead (see
    /// `crate::timed`).
    pub timed: u64,
    /// Timed sends found not done 2 ms after their time (should stay 0).
    pub timed_overdue: u64,
    /// Frames refused (answered as not acknowledged, nothing delivered).
    pub refused: u64,
    /// Refusals per cause, and rate entries skipped.
    pub refusals: Refusals,
    /// TX statuses the kernel refused as too early, sent again.
    pub status_retries: u64,
    /// TX statuses given up after their last retry was refused too.
    pub statuses_refused: u64,
}

/// Writes one line per medium per interval, and one for the daemon.
pub struct StatsWriter<W: Write> {
    out: W,
    last: HashMap<(i32, u32), (u64, MediumStats)>,
}

impl<W: Write> StatsWriter<W> {
    /// A writer to `out`.
    pub fn new(out: W) -> StatsWriter<W> {
        StatsWriter { out, last: HashMap::new() }
    }

    /// Writes the changes since the previous call for every medium, at `t_ns` (the
    /// daemon's clock).
    /// `media` holds (configured medium id, channel MHz, engine counters).
    pub fn write(
        &mut self,
        t_ns: u64,
        media: &[(i32, u32, MediumStats)],
        daemon: &DaemonCounters,
    ) -> io::Result<()> {
        for (id, freq, s) in media {
            let (t0, prev) =
                self.last.get(&(*id, *freq)).copied().unwrap_or((0, MediumStats::default()));
            // Over the medium's own time: it may have run ahead of `t_ns` (by an exchange
            // at most), and its counters are at its time.
            let dt =
                if s.at_ns > prev.at_ns { s.at_ns - prev.at_ns } else { t_ns.saturating_sub(t0) }
                    .max(1) as f64;
            let mut acs = String::new();
            for (k, name) in ACS.iter().enumerate() {
                if k > 0 {
                    acs.push_str(", ");
                }
                acs.push_str(&format!(
                    "\"{name}\": {{\"attempts\": {}, \"retries\": {}, \"acked\": {}, \"failed\": {}, \"dropped\": {}, \"collisions\": {}, \"airtime\": {:.6}}}",
                    s.attempts[k] - prev.attempts[k],
                    s.retries[k] - prev.retries[k],
                    s.acked[k] - prev.acked[k],
                    s.failed[k] - prev.failed[k],
                    s.dropped[k] - prev.dropped[k],
                    s.collisions[k] - prev.collisions[k],
                    (s.airtime_ns[k] - prev.airtime_ns[k]) as f64 / dt,
                ));
            }
            writeln!(
                self.out,
                "{{\"t\": {:.3}, \"medium\": {id}, \"freq\": {freq}, \"interval_s\": {:.3}, \"utilization\": {:.6}, \"backlog\": {:.6}, \"events\": {}, \"ac\": {{{acs}}}}}",
                t_ns as f64 / 1e9,
                dt / 1e9,
                (s.busy_ns - prev.busy_ns) as f64 / dt,
                (s.backlog_ns - prev.backlog_ns) as f64 / dt,
                s.events - prev.events,
            )?;
            self.last.insert((*id, *freq), (t_ns, *s));
        }
        let d = daemon;
        writeln!(
            self.out,
            "{{\"t\": {:.3}, \"mono_s\": {:.6}, \"daemon\": {{\"frames\": {}, \"deliveries\": {}, \"statuses\": {}, \"syscalls\": {}, \"rounds\": {}, \"timed\": {}, \"timed_overdue\": {}, \"status_retries\": {}, \"statuses_refused\": {}, \"refused\": {}, \"refusals\": {}}}, \"late_us\": {{\"n\": {}, \"p50\": {:.1}, \"p99\": {:.1}, \"max\": {:.1}}}}}",
            t_ns as f64 / 1e9,
            d.mono_ns as f64 / 1e9,
            d.frames,
            d.deliveries,
            d.statuses,
            d.syscalls,
            d.rounds,
            d.timed,
            d.timed_overdue,
            d.status_retries,
            d.statuses_refused,
            d.refused,
            d.refusals.json(),
            d.late.n,
            d.late.p50_ns as f64 / 1e3,
            d.late.p99_ns as f64 / 1e3,
            d.late.max_ns as f64 / 1e3,
        )?;
        crate::syscall_count::add(1);
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deltas_per_interval() {
        let mut w = StatsWriter::new(Vec::new());
        let mut s = MediumStats { busy_ns: 500_000_000, events: 10, ..MediumStats::default() };
        s.attempts[1] = 7;
        s.airtime_ns[1] = 250_000_000;
        s.backlog_ns = 750_000_000;
        let late = LatenessSummary { n: 4, p50_ns: 12_345, p99_ns: 80_000, max_ns: 81_200 };
        let refusals = Refusals { no_usable_rate: 2, rates_skipped: 3, ..Refusals::default() };
        let d = DaemonCounters {
            mono_ns: 5_500_000_000,
            frames: 9,
            syscalls: 20,
            late,
            refused: 2,
            refusals,
            ..DaemonCounters::default()
        };
        w.write(1_000_000_000, &[(0, 2412, s)], &d).unwrap();
        s.busy_ns += 1_000_000_000;
        s.backlog_ns += 1_000_000_000;
        s.attempts[1] += 3;
        w.write(2_000_000_000, &[(0, 2412, s)], &d).unwrap();
        let text = String::from_utf8(w.out).unwrap();
        let lines: Vec<&str> = text.lines().filter(|l| l.contains("freq")).collect();
        assert_eq!(lines.len(), 2);
        assert!(lines[0].contains("\"backlog\": 0.750000"), "{}", lines[0]);
        assert!(lines[1].contains("\"backlog\": 1.000000"), "{}", lines[1]);
        let daemon: Vec<&str> = text.lines().filter(|l| l.contains("daemon")).collect();
        assert_eq!(daemon.len(), 2);
        assert!(
            daemon[0].contains("\"mono_s\": 5.500000")
                && daemon[0].contains("\"frames\": 9")
                && daemon[0].contains("\"syscalls\": 20"),
            "{}",
            daemon[0]
        );
        assert!(daemon[0].contains("\"refused\": 2, \"refusals\": {\"malformed\": 0, \"no_usable_rate\": 2, \"engine\": 0, \"rates_skipped\": 3}}"), "{}", daemon[0]);
        assert!(
            daemon[0]
                .ends_with("\"late_us\": {\"n\": 4, \"p50\": 12.3, \"p99\": 80.0, \"max\": 81.2}}"),
            "{}",
            daemon[0]
        );
        assert!(lines[0].contains("\"utilization\": 0.500000"), "{}", lines[0]);
        assert!(lines[0].contains("\"BE\": {\"attempts\": 7"), "{}", lines[0]);
        assert!(lines[0].contains("\"airtime\": 0.250000"), "{}", lines[0]);
        assert!(lines[1].contains("\"utilization\": 1.000000"), "{}", lines[1]);
        assert!(lines[1].contains("\"BE\": {\"attempts\": 3"), "{}", lines[1]);
    }
}
