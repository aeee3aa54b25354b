//! What an engine medium reports, turned into the daemon's outputs: TX statuses with
//! the attempts made, deliveries, and frames on air for a capture.

use crate::medium_io::{AttemptCounts, Counters, InFlight, Output, UNHEARD_SIGNAL_DBM};
use crate::radio_table::Radio;
use sdmac_medium::{Dest, FrameKind, RxIndication, Sink, TxReport};
use std::collections::HashMap;

/// The attempts made at each of the kernel's rate entries: `made` attempts go through
/// the entries in order, each up to its tries (0 for an entry skipped), as the engine
/// spends a rate series; any beyond (never expected) count at the last entry tried.
pub(crate) fn attempts_per_entry(tries: &[u8], made: u8) -> AttemptCounts {
    let mut left = made;
    let mut out = AttemptCounts::from_iter_capped(tries.iter().map(|&t| {
        let n = left.min(t);
        left -= n;
        n
    }));
    // (At most MAX_RATES entries: `tries` is a frame's.)
    if let Some(last) = out.iter().zip(tries).rposition(|(_, t)| *t > 0).filter(|_| left > 0) {
        out[last] = out[last].saturating_add(left);
    }
    if out.is_empty() {
        out = AttemptCounts::defaults(1);
    }
    out
}

/// The sink of one channel's engine medium.
pub(crate) struct Collector<'a> {
    pub out: &'a mut Vec<Output>,
    pub ch: &'a mut HashMap<u64, InFlight>,
    /// Station → radio index.
    pub radio_of: &'a [usize],
    pub radios: &'a [Radio],
    pub freq: u32,
    pub counters: &'a mut Counters,
    pub capture: bool,
    /// Truth records, while some client subscribes.
    pub truth: Option<&'a mut Vec<sdmac_control::ext::TruthRecord>>,
}

impl Sink for Collector<'_> {
    fn wants_air(&self) -> bool {
        self.capture
    }

    fn air(&mut self, r: &sdmac_medium::AirRecord) {
        let frame = match r.kind {
            FrameKind::Data => match self.ch.get(&r.handle) {
                Some(f) => {
                    let mut b = f.bytes.to_vec();
                    if r.retry && b.len() > 1 {
                        b[1] |= 0x08;
                    }
                    b
                }
                None => return,
            },
            FrameKind::Ack => {
                let ra = match r.dst {
                    Dest::Station(s) => {
                        let radio = &self.radios[self.radio_of[s as usize]];
                        radio.addrs.first().copied().unwrap_or(radio.hw)
                    }
                    _ => return,
                };
                let mut b = vec![0u8; 10];
                if sdmac_frame::ieee80211::write_ack_frame(&mut b, ra, r.duration_us, false)
                    .is_err()
                {
                    return;
                }
                b
            }
            FrameKind::Beacon => return,
        };
        self.out.push(Output::Air {
            t_start: r.t_start.as_ns(),
            freq: self.freq,
            rate: r.rate,
            frame,
        });
    }

    fn tx_done(&mut self, r: &TxReport) {
        let Some(f) = self.ch.remove(&r.handle) else { return };
        let attempts = attempts_per_entry(&f.tries[..f.n_rates.min(4)], r.attempts);
        let acked = matches!(r.outcome, sdmac_medium::Outcome::Acked)
            || (matches!(r.outcome, sdmac_medium::Outcome::NoAck) && r.attempts > 0);
        // The signal its destination received it with (kept with the frame: the
        // reception and the outcome may come out of different rounds).
        let signal_dbm = f.signal_dbm.unwrap_or(UNHEARD_SIGNAL_DBM);
        self.counters.statuses += 1;
        if acked {
            self.counters.acked += 1;
        }
        if let Some(t) = self.truth.as_mut() {
            t.push(crate::truth::of_report(&f, r, &attempts, signal_dbm));
        }
        self.out.push(Output::TxStatus {
            transmitter: f.transmitter,
            cookie: f.cookie,
            acked,
            signal_dbm,
            attempts,
            echo: f.echo,
            due: r.t_done.as_ns(),
        });
    }

    fn rx(&mut self, ind: &RxIndication) {
        if ind.kind != FrameKind::Data || ind.duplicate {
            return;
        }
        let Some(f) = self.ch.get_mut(&ind.handle) else { return };
        let signal = ind.signal_dbm.round() as i32;
        if ind.unicast {
            f.signal_dbm = Some(signal);
        }
        let radio = &self.radios[self.radio_of[ind.station as usize]];
        if radio.tuned.is_some_and(|f| f != self.freq) {
            // It sends on another channel now: the kernel would drop the copy.
            return;
        }
        let receiver = radio.hw;
        self.counters.deliveries += 1;
        self.out.push(Output::Deliver {
            receiver,
            frame: f.bytes.clone(),
            rate: ind.rate,
            signal_dbm: signal,
            freq: self.freq,
            due: ind.t_end.as_ns(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::attempts_per_entry;

    #[test]
    fn attempts_follow_the_kernels_entries_skipped_ones_get_0() {
        // Entries 4, 0 (skipped), 3: 6 attempts = 4 at the first, 2 at the third.
        assert_eq!(attempts_per_entry(&[4, 0, 3], 6), [4, 0, 2]);
        // The first entry skipped: acked at once on the second.
        assert_eq!(attempts_per_entry(&[0, 2], 1), [0, 1]);
        assert_eq!(attempts_per_entry(&[2, 2], 0), [0, 0]);
        assert_eq!(attempts_per_entry(&[1, 0], 3), [3, 0]);
        assert_eq!(attempts_per_entry(&[], 0), [0]);
    }
}
