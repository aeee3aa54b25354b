//! When the medium can next report something: the earliest time at which, with no new
//! request, a [`Sink`](crate::report::Sink) call (`tx_done`, `rx`) may happen.
//!
//! A driver on the wall clock (the hwsim medium daemon) only has to wake up then: the
//! events before it (backoff ends, transmission starts, SIFS before an ACK) change
//! nothing anyone can see, and `advance` runs them, in order and at their own times,
//! whenever the driver next calls it — before a new request is applied at its arrival
//! time, or at the horizon. The result of a run does not depend on when the driver
//! wakes; only the number of wake-ups does.

use crate::event::Event;
use crate::medium::Medium;
use crate::time::Time;
use sdmac_phy::ACK_LEN;

/// No PPDU of a supported PHY is shorter than an OFDM preamble and SIGNAL field.
const MIN_PPDU_NS: Time = 20_000;

impl Medium {
    /// The earliest time at which the medium may report an outcome or a reception, if
    /// nothing is enqueued meanwhile; `None` when nothing is scheduled. Never later
    /// than the true time (a lower bound: waking then may find nothing to report).
    pub fn next_output_time(&self) -> Option<Time> {
        self.events.iter().filter_map(|(at, ev)| self.output_bound(at, ev)).min()
    }

    fn output_bound(&self, at: Time, ev: &Event) -> Option<Time> {
        match *ev {
            // A stale access event does nothing; a current one starts transmissions
            // whose first report is at their end.
            Event::Access { gen } if gen != self.access_gen => None,
            Event::Access { .. } => Some(at + self.shortest_start_at(at)),
            // The ACK goes on air; the exchange ends with it.
            Event::SendAck { rate, .. } => Some(
                at + self.cfg.phy.airtime_ns(ACK_LEN, self.cfg.phy.control_response_rate(rate)),
            ),
            Event::AckTimeout { station, gen } => {
                let st = self.stations.get(station as usize)?;
                (st.exchange.is_some() && st.exchange_gen == gen).then_some(at)
            }
            // Ends of transmissions, beacons, generated traffic and TXOP continuations
            // may report at once.
            Event::TxEnd { .. }
            | Event::TxopContinue { .. }
            | Event::Arrival { .. }
            | Event::Tbtt { .. } => Some(at),
        }
    }

    /// The airtime of the shortest frame whose backoff ends at `at` (the
    /// shortest PPDU when none is known).
    fn shortest_start_at(&self, at: Time) -> Time {
        let phy = &self.cfg.phy;
        let mut best: Option<Time> = None;
        for i in self.expiry.each_due(at) {
            for q in &self.stations[i as usize].queues {
                let Some(f) = q.frames.front() else { continue };
                if q.access.expiry != at {
                    continue;
                }
                let Some(rate) = f.rates.rate_of_attempt(q.attempts as u32) else { continue };
                let a = phy.airtime_ns(f.len, rate);
                best = Some(best.map_or(a, |b| b.min(a)));
            }
        }
        best.unwrap_or(MIN_PPDU_NS)
    }
}
