//! What an engine medium reports, turned into the daemon's outputs: TX statuses with
//! the attempts made, deliveries, and frames on air for a capture.

use crate::hwsim_medium::{Counters, InFlight, Output};
use crate::radio::Radio;
use sdmac_medium::{Dest, FrameKind, RxIndication, Sink, TxReport};
use std::collections::HashMap;

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
}

impl Sink for Collector<'_> {
    fn wants_air(&self) -> bool {
        self.capture
    }

    fn air(&mut self, r: &sdmac_medium::AirRecord) {
        let frame = match r.kind {
            FrameKind::Data => match self.ch.get(&r.handle) {
                Some(f) => {
                    let mut b = f.bytes.clone();
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
                if sdmac_frame::ieee80211::write_ack_frame(&mut b, sdmac_frame::MacAddress(ra), r.duration_us, false).is_err() {
                    return;
                }
                b
            }
            FrameKind::Beacon => return,
        };
        self.out.push(Output::Air { t_start: r.t_start, freq: self.freq, rate: r.rate, frame });
    }

    fn tx_done(&mut self, r: &TxReport) {
        let Some(f) = self.ch.remove(&r.handle) else { return };
        let mut attempts = vec![0u8; f.n_rates];
        for (k, (_, n)) in r.rates[..r.n_rates as usize].iter().enumerate() {
            if k < attempts.len() {
                attempts[k] = *n;
            }
        }
        let acked = matches!(r.outcome, sdmac_medium::Outcome::Acked) || (matches!(r.outcome, sdmac_medium::Outcome::NoAck) && r.attempts > 0);
        // The signal its destination received it with (kept with the frame: the
        // reception and the outcome may come out of different rounds).
        let signal_dbm = f.signal_dbm.unwrap_or(-91);
        self.counters.statuses += 1;
        if acked {
            self.counters.acked += 1;
        }
        self.out.push(Output::TxStatus { transmitter: f.transmitter, cookie: f.cookie, acked, signal_dbm, attempts, echo: f.echo, due: r.t_done });
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
        self.out.push(Output::Deliver { receiver, frame: f.bytes.clone(), rate: ind.rate, signal_dbm: signal, freq: self.freq, due: ind.t_end });
    }
}
