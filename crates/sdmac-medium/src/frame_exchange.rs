//! Frame exchange: a DATA frame goes on air, its receivers decide when it ends, the
//! destination answers with an ACK after SIFS at the control-response rate, the sender
//! learns the outcome at the ACK's end or at ACKTimeout, and retries over its rate
//! series or gives up.

use crate::air::{Air, Transmission};
use crate::config::{Dest, StationId};
use crate::event::Event;
use crate::medium::{queue_ac, Medium};
use crate::report::{AirRecord, Cause, FrameKind, Outcome, RxIndication, Sink, TxReport};
use crate::station::{Exchange, BEACON_QUEUE, NO_SLOT};
use crate::time::{at, Time, MICROS};
use sdmac_phy::ACK_LEN;

/// The most attempts a frame gets, whatever its rate series allows (four entries of up
/// to 255 tries each): 255, the top of 802.11's retry limits (dot11ShortRetryLimit and
/// dot11LongRetryLimit are 1..=255), and what a queue's attempt counters hold.
const MAX_ATTEMPTS: u32 = u8::MAX as u32;

impl Medium {
    /// Sends the head frame of queue `qi` of station `s` (its backoff just ended).
    pub(crate) fn begin_data<S: Sink + ?Sized>(
        &mut self,
        t: Time,
        s: StationId,
        qi: usize,
        _sink: &mut S,
    ) {
        let phy = &self.cfg.phy;
        let st = &mut self.stations[s as usize];
        let q = &mut st.queues[qi];
        let f = *q.frames.front().expect("access with an empty queue");
        let attempt = q.attempts as u32;
        let rate = f.rates.rate_of_attempt(attempt).expect("attempt beyond the rate series");
        if attempt == 0 {
            q.first_start = t;
            q.seq = st.next_seq;
            st.next_seq = (st.next_seq + 1) & 0x0FFF;
        }
        let q = &mut st.queues[qi];
        q.note_attempt(rate);
        q.access.expiry = crate::time::NEVER;
        let needs_ack = !f.no_ack && f.dst != Dest::Broadcast;
        let airtime = phy.airtime_ns(f.len, rate);
        let nav_ns = if needs_ack { phy.sifs_ns + phy.ack_airtime_ns(rate) } else { 0 };
        let ac = queue_ac(qi) as usize;
        if f.kind == FrameKind::Beacon {
            self.stats.beacons += 1;
            self.stats.beacon_airtime_ns += airtime;
        } else {
            self.stats.attempts[ac] += 1;
            st.stats.tx_attempts += 1;
            if attempt > 0 {
                self.stats.retries[ac] += 1;
                st.stats.tx_retries += 1;
            }
            self.stats.airtime_ns[ac] += airtime;
        }
        let tx = Transmission {
            src: s,
            kind: f.kind,
            queue: qi as u8,
            dst: f.dst,
            handle: f.handle,
            len: f.len,
            rate,
            start: t,
            end: t + airtime,
            nav_us: nav_ns.div_ceil(MICROS).min(32_767) as u16,
            needs_ack,
            seq: q.seq,
            retry: attempt > 0,
            ended: false,
            dst_fail: None,
            received: false,
        };
        if needs_ack {
            st.exchange_gen = st.exchange_gen.wrapping_add(1);
            st.exchange = Some(Exchange {
                queue: qi as u8,
                t_start: t,
                t_data_end: t + airtime,
                data_ok: None,
                data_cause: Cause::None,
                ack_slot: NO_SLOT,
                ack_fail: Cause::None,
            });
        }
        self.start_transmission(t, tx);
    }

    /// Puts a transmission on air: the sender becomes busy (dropping any frame it was
    /// receiving), every station that hears it updates carrier sense and may lock on.
    pub(crate) fn start_transmission(&mut self, t: Time, mut tx: Transmission) {
        let s = tx.src;
        self.ensure_links(s);
        // The sender stops receiving.
        let lock = self.stations[s as usize].rx_lock;
        if lock != NO_SLOT {
            let other = &mut self.air.txs[lock as usize];
            if other.dst == Dest::Station(s) {
                other.dst_fail.get_or_insert(Cause::HalfDuplex);
            }
            self.stations[s as usize].rx_lock = NO_SLOT;
        }
        if let Dest::Station(d) = tx.dst {
            if self.links.get(s, d).is_none() {
                tx.dst_fail = Some(Cause::OutOfRange);
            }
        } else if tx.dst == Dest::Unknown {
            tx.dst_fail = Some(Cause::OutOfRange);
        }
        let slot = self.air.alloc_slot(tx, self.links.gen);
        self.stations[s as usize].transmitting = true;
        if self.stations[s as usize].access.idle_since.is_some() {
            self.on_busy(t, s);
        }
        let st = &mut self.stations[s as usize];
        for &qi in st.used.iter() {
            st.queues[qi].access.expiry = crate::time::NEVER;
        }
        self.mark_dirty(s);
        if self.air.active_count == 0 {
            self.air.busy_start = t;
        }
        self.air.active_count += 1;
        let (kind, dst) = (tx.kind, tx.dst);
        // The interference at each receiver from the other transmissions on air, summed
        // in `on_air` order (see `HeardPower`).
        self.refresh_heard(slot);
        for li in 0..self.links.of(s).len() {
            let l = self.links.of(s)[li];
            let j = l.rx as usize;
            let interference = self.air.heard.at(l.rx);
            self.air.heard.add(l.rx, l.power_mw);
            let st = &mut self.stations[j];
            let was_idle = st.access.idle_since.is_some();
            if l.cs {
                st.cs_count += 1;
            }
            let is_dst = dst == Dest::Station(l.rx);
            // A frame locked onto moments ago loses its preamble to this one?
            let lock = st.rx_lock;
            if lock != NO_SLOT
                && t < self.air.txs[lock as usize].start + self.cfg.preamble_detection_ns
            {
                let locked = self.air.txs[lock as usize];
                let p = self.links.power_mw(locked.src, l.rx);
                if !self.preamble_detected(l.rx, p, lock) {
                    self.stations[j].rx_lock = NO_SLOT;
                    if locked.dst == Dest::Station(l.rx) {
                        self.air.txs[lock as usize].dst_fail.get_or_insert(Cause::Collision);
                        if locked.kind == FrameKind::Ack {
                            self.note_ack_fail(l.rx, Cause::Collision);
                        }
                    }
                }
            }
            let st = &self.stations[j];
            let free = !st.transmitting && !st.responding && st.rx_lock == NO_SLOT;
            let detected = free && l.detect && self.preamble_clear(l.rx, l.power_mw, interference);
            // A configured preamble miss is drawn only when the receiver would lock.
            let p_miss = self.links.preamble_error_prob(s, &l);
            let missed =
                detected && p_miss > 0.0 && (p_miss >= 1.0 || self.mac_rng.unit() < p_miss);
            let st = &self.stations[j];
            if detected && !missed {
                let st = &mut self.stations[j];
                st.rx_lock = slot;
                if kind == FrameKind::Ack && is_dst {
                    if let Some(ex) = st.exchange.as_mut() {
                        ex.ack_slot = slot;
                    }
                }
            } else if is_dst {
                let cause = if missed {
                    Cause::PreambleMissed
                } else if st.transmitting || st.responding {
                    Cause::HalfDuplex
                } else if !l.detect {
                    Cause::OutOfRange
                } else if free && l.power_mw < self.preamble_threshold * self.stations[j].noise_mw {
                    // Too weak even without interference.
                    Cause::LowSinr
                } else {
                    // Receiving another frame, or this one's preamble drowned: a collision.
                    Cause::Collision
                };
                let txr = &mut self.air.txs[slot as usize];
                txr.dst_fail.get_or_insert(cause);
                if kind == FrameKind::Ack {
                    self.note_ack_fail(l.rx, cause);
                }
            }
            let st = &self.stations[j];
            if was_idle && st.busy() {
                self.on_busy(t, l.rx);
            }
        }
        let end = self.air.txs[slot as usize].end;
        self.events.push(end, Event::TxEnd { slot });
    }

    /// Records the receivers of every frame on air that has not recorded them yet, as
    /// its start found them: called before any link changes. A frame records nothing
    /// at its start; while the link generation is the one it started with, the
    /// sender's links are its receivers, and its end reads them there.
    pub(crate) fn record_receivers(&mut self) {
        let gen = self.links.gen;
        let Air { on_air, txs, slot_rx, slot_links_gen, .. } = &mut self.air;
        for &o in on_air.iter() {
            let o = o as usize;
            if txs[o].ended || slot_links_gen[o] != gen || !slot_rx[o].is_empty() {
                continue;
            }
            let links = self.links.of(txs[o].src);
            slot_rx[o].extend(links.iter().map(|l| (l.rx, l.cs, l.power_dbm)));
        }
    }

    /// Makes `air.heard` the sums over every transmission on air but the one in `slot`
    /// (just started), rebuilding them if a frame ended or a link changed since.
    fn refresh_heard(&mut self, slot: u32) {
        let heard = &mut self.air.heard;
        let n = self.stations.len();
        if heard.valid && heard.links_gen == self.links.gen && heard.stamp.len() >= n {
            return;
        }
        heard.clear(n);
        for &o in &self.air.on_air {
            let y = &self.air.txs[o as usize];
            if o != slot && !y.ended {
                for l in self.links.of(y.src) {
                    heard.add(l.rx, l.power_mw);
                }
            }
        }
        heard.valid = true;
        heard.links_gen = self.links.gen;
    }

    /// The ACK that station `s` waits for will not be received: remember why, for the
    /// report at its ACKTimeout.
    fn note_ack_fail(&mut self, s: StationId, cause: Cause) {
        if let Some(ex) = self.stations[s as usize].exchange.as_mut() {
            if ex.ack_fail == Cause::None {
                ex.ack_fail = cause;
            }
        }
    }

    /// Can station `j` detect the preamble of transmission `slot`, received at
    /// `power_mw`, against the noise and every other transmission on air?
    fn preamble_detected(&self, j: StationId, power_mw: f64, slot: u32) -> bool {
        let mut interference = 0.0;
        if self.air.on_air.len() > 1 {
            for &o in &self.air.on_air {
                let y = &self.air.txs[o as usize];
                if o != slot && !y.ended {
                    interference += self.links.power_mw(y.src, j);
                }
            }
        }
        self.preamble_clear(j, power_mw, interference)
    }

    /// Does station `j` detect a preamble received at `power_mw` against its noise and
    /// `interference` (mW)?
    fn preamble_clear(&self, j: StationId, power_mw: f64, interference: f64) -> bool {
        let noise = self.stations[j as usize].noise_mw;
        power_mw >= self.preamble_threshold * (noise + interference)
    }

    /// A transmission ends: its receivers decide, carrier sense drops, stations that
    /// become idle resume their backoff.
    pub(crate) fn tx_end<S: Sink + ?Sized>(&mut self, t: Time, slot: u32, sink: &mut S) {
        self.air.txs[slot as usize].ended = true;
        self.air.heard.valid = false;
        let tx = self.air.txs[slot as usize];
        let s = tx.src;
        self.air.active_count -= 1;
        if self.air.active_count == 0 {
            self.stats.busy_ns += t - self.air.busy_start;
        }
        {
            let st = &mut self.stations[s as usize];
            st.transmitting = false;
            if tx.kind == FrameKind::Ack {
                st.responding = false;
            }
        }
        if tx.needs_ack {
            let st = &self.stations[s as usize];
            let gen = st.exchange_gen;
            let timeout = st.cfg.ack_timeout_ns.unwrap_or_else(|| self.cfg.phy.ack_timeout_ns());
            self.events.push(t + timeout, Event::AckTimeout { station: s, gen });
        }
        let mut received_any = false;
        let recs = std::mem::take(&mut self.air.slot_rx[slot as usize]);
        // `recs` (the receivers at the start) and the links now are both sorted by
        // receiver: one walk over both finds each receiver's start entry.
        debug_assert!(recs.windows(2).all(|w| w[0].0 < w[1].0));
        // Unchanged links: the sender's links are the receivers at the start, one for
        // one (`recs` is then empty, or recorded but not needed).
        let unchanged = self.air.slot_links_gen[slot as usize] == self.links.gen;
        debug_assert!(
            !unchanged
                || recs.is_empty()
                || (recs.len() == self.links.of(s).len()
                    && recs.iter().zip(self.links.of(s)).all(|(r, l)| r.0 == l.rx && r.1 == l.cs))
        );
        // The frame's clean-reception question, the same at every receiver.
        let clean_tag = self.links.clean_tag(tx.rate, tx.len);
        let mut ri = 0;
        for li in 0..self.links.of(s).len() {
            let l = self.links.of(s)[li];
            let j = l.rx;
            // Undo the start's carrier sense as it was then (links may have changed).
            let sensed = if unchanged {
                l.cs
            } else {
                while ri < recs.len() && recs[ri].0 < j {
                    ri += 1;
                }
                ri < recs.len() && recs[ri].0 == j && recs[ri].1
            };
            if sensed {
                self.stations[j as usize].cs_count -= 1;
            }
            if self.stations[j as usize].rx_lock == slot {
                self.stations[j as usize].rx_lock = NO_SLOT;
                let (ok, cause) = self.decide_reception(slot, s, li, clean_tag);
                if ok {
                    received_any = true;
                }
                self.stations[j as usize].access.eifs = !ok;
                self.after_reception(
                    t,
                    &tx,
                    slot,
                    j,
                    ok,
                    cause,
                    l.power_dbm + self.links.last_fade_db,
                    sink,
                );
            }
            let st = &self.stations[j as usize];
            if st.access.idle_since.is_none() && !st.busy() {
                self.on_idle(t, j);
            }
        }
        // Receivers whose link vanished while the frame was on air: undo their carrier
        // sense, and a lock on the frame ends in a failed reception. None if the links
        // are unchanged since the start.
        let mut li = 0;
        let vanished: &[crate::air::Heard] = if unchanged { &[] } else { &recs };
        for &(j, cs, power_dbm) in vanished {
            let links = self.links.of(s);
            while li < links.len() && links[li].rx < j {
                li += 1;
            }
            if li < links.len() && links[li].rx == j {
                continue;
            }
            if cs {
                self.stations[j as usize].cs_count -= 1;
            }
            if self.stations[j as usize].rx_lock == slot {
                self.stations[j as usize].rx_lock = NO_SLOT;
                self.stations[j as usize].access.eifs = true;
                self.after_reception(t, &tx, slot, j, false, Cause::OutOfRange, power_dbm, sink);
            }
            let st = &self.stations[j as usize];
            if st.access.idle_since.is_none() && !st.busy() {
                self.on_idle(t, j);
            }
        }
        self.air.slot_rx[slot as usize] = recs;
        // The sender itself.
        let st = &self.stations[s as usize];
        if st.access.idle_since.is_none() && !st.busy() {
            self.on_idle(t, s);
        }
        let received = match tx.dst {
            Dest::Broadcast => received_any,
            _ => self.air.txs[slot as usize].received,
        };
        self.air.txs[slot as usize].received = received;
        // The frame on air is reported before its outcome (a no-ack frame's comes next).
        if sink.wants_air() {
            sink.air(&AirRecord {
                station: s,
                kind: tx.kind,
                dst: tx.dst,
                handle: tx.handle,
                len: tx.len,
                rate: tx.rate,
                t_start: at(tx.start),
                t_end: at(tx.end),
                duration_us: tx.nav_us,
                seq: tx.seq,
                retry: tx.retry,
                ac: queue_ac(tx.queue as usize),
                received,
            });
        }
        if tx.kind != FrameKind::Ack {
            if tx.needs_ack {
                let fail = self.air.txs[slot as usize].dst_fail;
                if let Some(ex) = self.stations[s as usize].exchange.as_mut() {
                    if ex.data_ok.is_none() {
                        ex.data_ok = Some(received);
                        ex.data_cause =
                            if received { Cause::None } else { fail.unwrap_or(Cause::OutOfRange) };
                    }
                }
            } else {
                let cause = if received {
                    Cause::None
                } else {
                    self.air.txs[slot as usize].dst_fail.unwrap_or(Cause::OutOfRange)
                };
                self.finish_no_ack(t, s, tx.queue as usize, received, cause, tx.start, sink);
                self.reschedule(s, t);
            }
        }
        self.air.prune();
    }

    /// What a station does with a frame it finished receiving.
    #[allow(clippy::too_many_arguments)]
    fn after_reception<S: Sink + ?Sized>(
        &mut self,
        t: Time,
        tx: &Transmission,
        slot: u32,
        j: StationId,
        ok: bool,
        cause: Cause,
        power_dbm: f64,
        sink: &mut S,
    ) {
        let for_me = tx.dst == Dest::Station(j);
        if !ok {
            if for_me {
                let txr = &mut self.air.txs[slot as usize];
                txr.dst_fail.get_or_insert(cause);
                if tx.kind == FrameKind::Ack
                    && self.stations[j as usize].exchange.is_some_and(|e| e.ack_slot == slot)
                {
                    self.finish_exchange(t, j, false, cause, sink);
                }
            }
            return;
        }
        match tx.kind {
            FrameKind::Ack => {
                if for_me && self.stations[j as usize].exchange.is_some_and(|e| e.ack_slot == slot)
                {
                    self.finish_exchange(t, j, true, Cause::None, sink);
                }
            }
            FrameKind::Data | FrameKind::Beacon => {
                let st = &mut self.stations[j as usize];
                if !for_me && tx.dst != Dest::Broadcast {
                    let nav = t + tx.nav_us as Time * MICROS;
                    st.access.nav_until = st.access.nav_until.max(nav);
                    return;
                }
                let duplicate = for_me && st.is_duplicate(tx.src, tx.handle);
                if for_me {
                    self.air.txs[slot as usize].received = true;
                    if tx.needs_ack {
                        self.ensure_links(j);
                        self.stations[j as usize].responding = true;
                        self.events.push(
                            t + self.cfg.phy.sifs_ns,
                            Event::SendAck {
                                station: j,
                                to: tx.src,
                                handle: tx.handle,
                                rate: tx.rate,
                                queue: tx.queue,
                            },
                        );
                    }
                }
                let st = &mut self.stations[j as usize];
                if tx.kind == FrameKind::Beacon {
                    st.stats.rx_beacons += 1;
                } else {
                    st.stats.rx_frames += 1;
                    st.stats.rx_duplicates += u64::from(duplicate);
                }
                let noise = st.cfg.noise_floor_dbm;
                sink.rx(&RxIndication {
                    station: j,
                    from: tx.src,
                    handle: tx.handle,
                    kind: tx.kind,
                    ac: queue_ac(tx.queue as usize),
                    len: tx.len,
                    rate: tx.rate,
                    signal_dbm: power_dbm,
                    snr_db: power_dbm - noise,
                    t_start: at(tx.start),
                    t_end: at(tx.end),
                    duplicate,
                    unicast: for_me,
                });
            }
        }
    }

    /// SIFS after a DATA frame it received, a station sends the ACK.
    pub(crate) fn send_ack(
        &mut self,
        t: Time,
        j: StationId,
        to: StationId,
        handle: u64,
        data_rate: sdmac_phy::Rate,
        queue: u8,
    ) {
        let phy = &self.cfg.phy;
        let rate = phy.control_response_rate(data_rate);
        let airtime = phy.airtime_ns(ACK_LEN, rate);
        self.stats.airtime_ns[queue_ac(queue as usize) as usize] += airtime;
        self.stations[j as usize].transmitting = true;
        let ack = Transmission {
            src: j,
            kind: FrameKind::Ack,
            queue,
            dst: Dest::Station(to),
            handle,
            len: ACK_LEN,
            rate,
            start: t,
            end: t + airtime,
            nav_us: 0,
            needs_ack: false,
            seq: 0,
            retry: false,
            ended: false,
            dst_fail: None,
            received: false,
        };
        self.start_transmission(t, ack);
    }

    /// The sender knows the outcome of its attempt.
    pub(crate) fn finish_exchange<S: Sink + ?Sized>(
        &mut self,
        t: Time,
        s: StationId,
        acked: bool,
        ack_cause: Cause,
        sink: &mut S,
    ) {
        let st = &mut self.stations[s as usize];
        let Some(ex) = st.exchange.take() else { return };
        st.exchange_gen = st.exchange_gen.wrapping_add(1);
        let qi = ex.queue as usize;
        let ac = queue_ac(qi) as usize;
        let data_ok = ex.data_ok.unwrap_or(false);
        let q = &mut st.queues[qi];
        q.delivered |= data_ok;
        if !data_ok && ex.data_cause == Cause::Collision {
            q.collisions += 1;
            self.stats.collisions[ac] += 1;
        }
        if acked {
            self.stats.acked[ac] += 1;
            self.new_backoff(s, qi, false);
            self.complete_head(
                t,
                s,
                qi,
                Outcome::Acked,
                Cause::None,
                ex.t_start,
                ex.t_data_end,
                sink,
            );
            self.maybe_continue_txop(t, s, qi);
            return;
        }
        let (outcome, cause) = if data_ok {
            (Outcome::AckLost, if ack_cause == Cause::None { Cause::OutOfRange } else { ack_cause })
        } else {
            (Outcome::DataLost, ex.data_cause)
        };
        let q = &self.stations[s as usize].queues[qi];
        let f = q.frames.front().expect("exchange without a frame");
        if (q.attempts as u32) < f.rates.total_tries().min(MAX_ATTEMPTS) {
            self.new_backoff(s, qi, true);
        } else {
            self.stats.failed[ac] += 1;
            self.new_backoff(s, qi, false);
            self.complete_head(t, s, qi, outcome, cause, ex.t_start, ex.t_data_end, sink);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn finish_no_ack<S: Sink + ?Sized>(
        &mut self,
        t: Time,
        s: StationId,
        qi: usize,
        received: bool,
        cause: Cause,
        start: Time,
        sink: &mut S,
    ) {
        let q = &mut self.stations[s as usize].queues[qi];
        q.delivered |= received;
        if qi == BEACON_QUEUE {
            q.frames.pop_front();
            q.reset_head();
            return;
        }
        self.new_backoff(s, qi, false);
        self.complete_head(t, s, qi, Outcome::NoAck, cause, start, t, sink);
    }

    /// Removes the head frame of a queue and reports it.
    #[allow(clippy::too_many_arguments)]
    fn complete_head<S: Sink + ?Sized>(
        &mut self,
        t: Time,
        s: StationId,
        qi: usize,
        outcome: Outcome,
        cause: Cause,
        t_last_start: Time,
        t_data_end: Time,
        sink: &mut S,
    ) {
        self.count_backlog(t, false);
        let q = &mut self.stations[s as usize].queues[qi];
        let f = q.frames.pop_front().expect("complete without a frame");
        let report = TxReport {
            station: s,
            handle: f.handle,
            dst: f.dst,
            ac: queue_ac(qi),
            len: f.len,
            flow: f.flow,
            outcome,
            cause,
            delivered: q.delivered,
            attempts: q.attempts,
            rates: q.rates_used,
            n_rates: q.n_rates,
            collisions: q.collisions,
            t_queued: at(f.t_queued),
            t_first_start: at(q.first_start),
            t_last_start: at(t_last_start),
            t_data_end: at(t_data_end),
            t_done: at(t),
        };
        q.reset_head();
        let stats = &mut self.stations[s as usize].stats;
        match outcome {
            Outcome::Acked => stats.tx_acked += 1,
            Outcome::DataLost | Outcome::AckLost => stats.tx_failed += 1,
            Outcome::NoAck => stats.tx_no_ack += 1,
            Outcome::Dropped => stats.tx_dropped += 1,
        }
        sink.tx_done(&report);
        if let Some(flow) = f.flow {
            self.refill(t, s, flow, sink);
        }
    }

    /// After an acknowledged frame, keeps the medium for the queue's next frame if its
    /// whole exchange still fits in the TXOP limit (EDCA TXOP, IEEE 802.11-2016
    /// §10.22.2.8): the frame follows SIFS after the ACK, without backoff.
    fn maybe_continue_txop(&mut self, t: Time, s: StationId, qi: usize) {
        let at = t + self.cfg.phy.sifs_ns;
        if !self.txop_fits(s, qi, at) {
            return;
        }
        self.stations[s as usize].bursting = true;
        self.events.push(at, Event::TxopContinue { station: s, queue: qi as u8 });
    }

    /// Does the exchange of the head frame of queue `qi`, started at `at`, end within
    /// the TXOP the station holds?
    fn txop_fits(&self, s: StationId, qi: usize, at: Time) -> bool {
        let phy = &self.cfg.phy;
        let st = &self.stations[s as usize];
        let q = &st.queues[qi];
        if q.access.params.txop_limit_ns == 0 {
            return false;
        }
        let Some(next) = q.frames.front() else { return false };
        if next.no_ack || next.dst == Dest::Broadcast {
            return false;
        }
        let Some(rate) = next.rates.rate_of_attempt(q.attempts as u32) else { return false };
        let exchange = phy.airtime_ns(next.len, rate) + phy.sifs_ns + phy.ack_airtime_ns(rate);
        at + exchange - st.txop_start <= q.access.params.txop_limit_ns
    }

    /// The next frame of a TXOP (checked again: since it was scheduled, the caller may
    /// have cancelled the head frame or changed its rates).
    pub(crate) fn txop_continue<S: Sink + ?Sized>(
        &mut self,
        t: Time,
        s: StationId,
        qi: usize,
        sink: &mut S,
    ) {
        let fits = self.txop_fits(s, qi, t);
        let st = &mut self.stations[s as usize];
        st.bursting = false;
        let ready = fits && !st.transmitting && st.exchange.is_none() && !st.responding;
        if ready {
            self.begin_data(t, s, qi, sink);
        } else if st.access.idle_since.is_none() && !st.busy() {
            self.on_idle(t, s);
        }
    }
}
