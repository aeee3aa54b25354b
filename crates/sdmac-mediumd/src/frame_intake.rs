//! Frames the kernel hands over, taken in: what each teaches about its transmitter
//! (radio, interface address, channel), then its request to the channel's engine
//! medium or its refusal.

use crate::channel_rates::{carries, standard_for, usable_rates};
use crate::hwsim_medium::{HwsimMedium, Learned};
use crate::medium_io::{
    ac_of, AttemptCounts, Counters, InFlight, KernelFrame, Output, UNHEARD_SIGNAL_DBM,
};
use crate::refusal::{report_once, Cause, RateName};
use sdmac_control::ext::TruthRecord;
use sdmac_frame::ieee80211::Frame;
use sdmac_medium::{Dest, Time, TxRequest};

impl HwsimMedium {
    /// A frame from the kernel at `now` (ns on the daemon's clock). Outputs that are
    /// due at once (a refusal) are appended to `out`; the rest come from `advance`.
    /// Movement steps due by `now` are taken first.
    pub fn on_frame(&mut self, now: Time, f: KernelFrame<'_>, out: &mut Vec<Output>) {
        self.counters.frames_in += 1;
        // Group addressed (addr1's group bit) goes without acknowledgement.
        let no_ack = f.no_ack || (f.frame.len() >= 10 && f.frame[4] & 1 == 1);
        let custom = self.setup.custom_phy.as_ref();
        let kbps = crate::truth::kbps_of(
            &f.rates,
            |r| carries(f.freq, r, custom),
            |r| crate::channel_rates::sent_at(r, custom),
        );
        let refuse = |out: &mut Vec<Output>,
                      counters: &mut Counters,
                      truth: &mut Option<Vec<TruthRecord>>,
                      cause: Cause,
                      why: &dyn Fn() -> String| {
            if let Some(t) = truth.as_mut() {
                t.push(crate::truth::not_carried(
                    f.transmitter,
                    f.frame,
                    f.cookie,
                    no_ack,
                    &f.echo,
                    &kbps,
                    f.rates.len(),
                    crate::truth::refusal_cause(cause),
                    now,
                    now,
                ));
            }
            counters.refused += 1;
            counters.refusals.count(cause);
            counters.statuses += 1;
            report_once(cause, || {
                format!(
                    "refused a frame from {} on {} MHz: {}; answered as not acknowledged",
                    f.transmitter,
                    f.freq,
                    why()
                )
            });
            out.push(Output::TxStatus {
                transmitter: f.transmitter,
                cookie: f.cookie,
                acked: false,
                signal_dbm: UNHEARD_SIGNAL_DBM,
                attempts: AttemptCounts::defaults(f.rates.len().max(1)),
                echo: f.echo,
                due: now,
            });
        };
        let Ok(frame) = Frame::new_checked(f.frame) else {
            refuse(out, &mut self.counters, &mut self.truth, Cause::Malformed, &|| {
                format!("{} bytes are no 802.11 frame", f.frame.len())
            });
            return;
        };
        let usable = usable_rates(f.freq, &f.rates, custom);
        let tries = usable.tries;
        let Some(rates) = usable.series() else {
            let list = f
                .rates
                .iter()
                .map(|(r, n)| format!("{}x{n}", RateName(*r)))
                .collect::<Vec<_>>()
                .join(", ");
            refuse(out, &mut self.counters, &mut self.truth, Cause::NoUsableRate, &|| {
                format!(
                    "no rate entry the {} channel carries (entries: {list})",
                    standard_for(f.freq)
                )
            });
            return;
        };
        if let Some(r) = usable.first_skipped {
            self.counters.refusals.rates_skipped += usable.skipped;
            report_once(Cause::RateSkipped, || {
                format!("skipped rate {} of a frame from {} on {} MHz: the {} channel does not carry it; the frame went at its other rates", RateName(r), f.transmitter, f.freq, standard_for(f.freq))
            });
        }
        self.take_movement_steps(now, out);
        // As learn_from_frame does, in the same order (a dispatcher's replica and the
        // thread that takes the frame must end up with the same radio table).
        let (r, _) = self.learn_radio(f.transmitter, frame.addr2());
        self.retune(r, f.freq);
        let within = self.radios[r].medium;
        let c = self.channel_index(now, within, f.freq);
        self.advance_channel(c, now, out);
        let s = self.station_for(c, r);
        let a1 = frame.addr1();
        let dst = if a1.is_multicast() {
            Dest::Broadcast
        } else {
            match self.radio_by_addr(a1) {
                // A radio of another medium is as unknown as no radio at all.
                Some(r2) if self.radios[r2].medium == within => {
                    Dest::Station(self.station_for(c, r2))
                }
                _ => Dest::Unknown,
            }
        };
        let handle = self.next_handle;
        self.next_handle += 1;
        let req = TxRequest {
            handle,
            dst,
            len: f.frame.len() as u32 + 4,
            ac: ac_of(f.frame),
            rates: Some(rates),
            no_ack: f.no_ack || dst == Dest::Broadcast,
        };
        match self.channels[c].engine.enqueue(now, s, req) {
            Ok(()) => {
                let no_ack = f.no_ack || dst == Dest::Broadcast;
                self.channels[c].in_flight.insert(
                    handle,
                    InFlight {
                        transmitter: f.transmitter,
                        cookie: f.cookie,
                        bytes: self.frames.copy_of(f.frame),
                        n_rates: f.rates.len(),
                        tries,
                        echo: f.echo,
                        signal_dbm: None,
                        arrived: now,
                        no_ack,
                        kbps,
                    },
                );
            }
            Err(e) => refuse(out, &mut self.counters, &mut self.truth, Cause::Engine, &|| {
                format!("the medium refused it: {e:?}")
            }),
        }
    }

    /// What [`on_frame`](Self::on_frame) learns from `f` before the frame reaches a
    /// channel — its transmitter (a radio, created if new) and the interface address
    /// it sends from — learnt here without running any channel: for a dispatcher that
    /// hands the frame to the thread of its engine medium. None if `on_frame` would
    /// refuse the frame (it learns nothing from it then).
    pub fn learn_from_frame(&mut self, f: &KernelFrame<'_>) -> Option<Learned> {
        let frame = Frame::new_checked(f.frame).ok()?;
        usable_rates(f.freq, &f.rates, self.setup.custom_phy.as_ref()).series()?;
        let addr = frame.addr2();
        let (r, changed) = self.learn_radio(f.transmitter, addr);
        let retuned = self.radios[r].tuned != Some(f.freq);
        self.retune(r, f.freq);
        Some(Learned { medium: self.media[self.radios[r].medium].setup.id, addr, changed, retuned })
    }
}
