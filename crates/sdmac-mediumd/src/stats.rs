//! Per-second statistics of each medium as JSON lines (`--stats FILE`): frames,
//! airtime (medium utilization), retries, failures, drops and collisions per access
//! category, from the engine's counters.

use sdmac_medium::MediumStats;
use std::collections::HashMap;
use std::io::{self, Write};

const ACS: [&str; 4] = ["BK", "BE", "VI", "VO"];

/// Writes one line per medium per interval.
pub struct StatsWriter<W: Write> {
    out: W,
    last: HashMap<u32, (u64, MediumStats)>,
}

impl<W: Write> StatsWriter<W> {
    /// A writer to `out`.
    pub fn new(out: W) -> StatsWriter<W> {
        StatsWriter { out, last: HashMap::new() }
    }

    /// Writes the changes since the previous call for every medium, at `t_ns` (the
    /// daemon's clock).
    pub fn write(&mut self, t_ns: u64, media: &[(u32, MediumStats)]) -> io::Result<()> {
        for (freq, s) in media {
            let (t0, prev) = self.last.get(freq).copied().unwrap_or((0, MediumStats::default()));
            let dt = (t_ns.saturating_sub(t0)).max(1) as f64;
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
                "{{\"t\": {:.3}, \"freq\": {freq}, \"interval_s\": {:.3}, \"utilization\": {:.6}, \"events\": {}, \"ac\": {{{acs}}}}}",
                t_ns as f64 / 1e9,
                dt / 1e9,
                (s.busy_ns - prev.busy_ns) as f64 / dt,
                s.events - prev.events,
            )?;
            self.last.insert(*freq, (t_ns, *s));
        }
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
        w.write(1_000_000_000, &[(2412, s)]).unwrap();
        s.busy_ns += 1_000_000_000;
        s.attempts[1] += 3;
        w.write(2_000_000_000, &[(2412, s)]).unwrap();
        let text = String::from_utf8(w.out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2);
        assert!(lines[0].contains("\"utilization\": 0.500000"), "{}", lines[0]);
        assert!(lines[0].contains("\"BE\": {\"attempts\": 7"), "{}", lines[0]);
        assert!(lines[0].contains("\"airtime\": 0.250000"), "{}", lines[0]);
        assert!(lines[1].contains("\"utilization\": 1.000000"), "{}", lines[1]);
        assert!(lines[1].contains("\"BE\": {\"attempts\": 3"), "{}", lines[1]);
    }
}
