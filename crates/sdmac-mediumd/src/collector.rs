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
    /// Signal at the destination of unicast frames delivered in this round.
    pub signal_to: Vec<(u64, i32)>,
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
        let signal_dbm = self.signal_to.iter().find(|s| s.0 == r.handle).map_or(-91, |s| s.1);
        self.signal_to.retain(|s| s.0 != r.handle);
        self.counters.statuses += 1;
        if acked {
            self.counters.acked += 1;
        }
        self.out.push(Output::TxStatus { transmitter: f.transmitter, cookie: f.cookie, acked, signal_dbm, attempts, echo: f.echo });
    }

    fn rx(&mut self, ind: &RxIndication) {
        if ind.kind != FrameKind::Data || ind.duplicate {
            return;
        }
        let Some(f) = self.ch.get(&ind.handle) else { return };
        let signal = ind.signal_dbm.round() as i32;
        if ind.unicast {
            self.signal_to.push((ind.handle, signal));
        }
        let receiver = self.radios[self.radio_of[ind.station as usize]].hw;
        self.counters.deliveries += 1;
        self.out.push(Output::Deliver { receiver, frame: f.bytes.clone(), rate: ind.rate, signal_dbm: signal, freq: self.freq });
    }
}
