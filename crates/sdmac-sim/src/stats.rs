//! Statistics a simulation collects from a medium's reports.

use sdmac_medium::{Outcome, RxIndication, Sink, Time, TxReport};

/// Counters of one station.
#[derive(Clone, Debug, Default)]
pub struct StationStats {
    /// Requests that were sent and finished (acked, failed or sent without ACK).
    pub sent: u64,
    /// Requests acknowledged.
    pub acked: u64,
    /// Requests that failed after their last attempt, or no-ack frames not delivered.
    pub lost: u64,
    /// Frames refused by a full queue.
    pub dropped: u64,
    /// Payload bytes delivered to their destination (each request counted once).
    pub delivered_bytes: u64,
    /// DATA attempts.
    pub attempts: u64,
    /// Attempts lost to collisions.
    pub collisions: u64,
    /// Queueing + access + transmission delay of delivered frames (ns).
    pub delays: Vec<Time>,
    /// Frames received (unicast to this station, not duplicates, or broadcast).
    pub received: u64,
    /// Duplicate receptions (retransmissions of frames already received).
    pub duplicates: u64,
}

/// Collects statistics of one medium; `payload[station][flow]` gives the payload
/// bytes of each flow.
pub struct StatsSink<'a> {
    /// Per station of the medium.
    pub stations: Vec<StationStats>,
    /// Reports finishing before this time are ignored.
    pub warmup: Time,
    /// Payload size per station and flow.
    pub payload: Vec<Vec<u32>>,
    /// Optional frame capture.
    pub capture: Option<&'a mut dyn FnMut(&sdmac_medium::AirRecord)>,
}

impl Sink for StatsSink<'_> {
    fn tx_done(&mut self, r: &TxReport) {
        if r.t_done.as_ns() < self.warmup {
            return;
        }
        let s = &mut self.stations[r.station as usize];
        if r.outcome == Outcome::Dropped {
            s.dropped += 1;
            return;
        }
        s.sent += 1;
        s.attempts += r.attempts as u64;
        s.collisions += r.collisions as u64;
        match r.outcome {
            Outcome::Acked => s.acked += 1,
            Outcome::NoAck if r.delivered => {}
            _ => s.lost += 1,
        }
        if r.delivered {
            let payload = r
                .flow
                .and_then(|f| self.payload[r.station as usize].get(f as usize).copied())
                .unwrap_or(0);
            s.delivered_bytes += payload as u64;
            s.delays.push(r.t_done.as_ns() - r.t_queued.as_ns());
        }
    }

    fn rx(&mut self, i: &RxIndication) {
        if i.t_end.as_ns() < self.warmup || i.kind != sdmac_medium::FrameKind::Data {
            return;
        }
        let s = &mut self.stations[i.station as usize];
        if i.duplicate {
            s.duplicates += 1;
        } else {
            s.received += 1;
        }
    }

    fn air(&mut self, record: &sdmac_medium::AirRecord) {
        if let Some(c) = self.capture.as_mut() {
            c(record);
        }
    }

    fn wants_air(&self) -> bool {
        self.capture.is_some()
    }
}

/// Percentiles of a sample (nearest-rank), in the sample's unit.
pub fn percentile(sorted: &[Time], p: f64) -> Option<Time> {
    if sorted.is_empty() {
        return None;
    }
    // The small epsilon keeps 0.99 * 1000 = 990.0000000000001 at rank 990.
    let rank = ((p / 100.0) * sorted.len() as f64 - 1e-9).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

#[cfg(test)]
mod tests {
    use super::percentile;

    #[test]
    fn nearest_rank_percentiles() {
        let v: Vec<u64> = (1..=1000).collect();
        assert_eq!(percentile(&v, 50.0), Some(500));
        assert_eq!(percentile(&v, 99.0), Some(990));
        assert_eq!(percentile(&v, 99.9), Some(999));
        assert_eq!(percentile(&v, 100.0), Some(1000));
        assert_eq!(percentile(&[], 50.0), None);
        assert_eq!(percentile(&[7], 99.9), Some(7));
    }
}
