//! What the medium reports, turned into the interfaces' confirmations, indications
//! and beacons (the device's [`Sink`]).

use super::{DevIface, DeviceStats};
use crate::channel::{ConMsg, IndMsg};
use crate::frame::{is_data, rx_payload_offset, write_beacon, write_zero_frame};
use crate::profile::DeviceProfile;
use rand_xoshiro::Xoshiro256PlusPlus;
use sdmac_api::{
    BeaconInd, Confirmation, DropReason, FrameClass, Indication, RxInfo, Status, Time, Truth,
};
use sdmac_frame::ieee80211::SupportedRate;
use sdmac_frame::MacAddress;
use sdmac_medium::{
    Cause, FrameKind, Outcome, RxIndication, Sink, TxReport, GENERATED_HANDLE_BASE,
};
use std::collections::VecDeque;
use std::sync::atomic::Ordering;

/// Everything the medium's reports are turned into.
pub(super) struct Outputs<'a> {
    pub(super) ifaces: &'a mut [DevIface],
    pub(super) iface_of: &'a [Option<usize>],
    pub(super) addrs: &'a [MacAddress],
    pub(super) origin: u64,
    pub(super) profile: &'a DeviceProfile,
    pub(super) rng: &'a mut Xoshiro256PlusPlus,
    pub(super) held_cons: &'a mut VecDeque<(u64, usize, ConMsg)>,
    pub(super) stats: &'a mut DeviceStats,
    pub(super) beacon_interval_tu: &'a [u16],
    pub(super) channel: u8,
    pub(super) beacon_rates: &'a [SupportedRate],
}

fn status_of(r: &TxReport) -> Status {
    match r.outcome {
        Outcome::Acked => Status::Acked,
        Outcome::DataLost | Outcome::AckLost => Status::AckTimeout,
        Outcome::NoAck => Status::Sent,
        Outcome::Dropped => Status::Dropped(if r.cause == Cause::Cancelled {
            DropReason::Cancelled
        } else {
            DropReason::Refused
        }),
    }
}

impl Sink for Outputs<'_> {
    fn tx_done(&mut self, r: &TxReport) {
        let Some(i) = self.iface_of.get(r.station as usize).copied().flatten() else { return };
        if r.handle >= GENERATED_HANDLE_BASE {
            return;
        }
        let dev = &mut self.ifaces[i];
        let Some(p) = dev.pending.remove(&r.handle) else { return };
        let mut ts = p.ts;
        if !ts.t1.is_zero() {
            if r.attempts > 0 {
                ts.t_start = Time::from_ns(self.origin + r.t_first_start.as_ns());
                ts.t_last_start = Time::from_ns(self.origin + r.t_last_start.as_ns());
                ts.t_data_end = Time::from_ns(self.origin + r.t_data_end.as_ns());
            }
            ts.t5 = Time::from_ns(self.origin + r.t_done.as_ns());
        }
        let con = Confirmation {
            id: r.handle,
            status: status_of(r),
            ac: p.ac,
            attempts: r.attempts,
            rates: r.rates,
            n_rates: r.n_rates,
            len: r.len,
            truth: Some(Truth {
                outcome: r.outcome,
                cause: r.cause,
                delivered: r.delivered,
                collisions: r.collisions,
            }),
            ts,
        };
        let hw = self.profile.con.sample(self.rng);
        let mut m = ConMsg { con, buf: Some(p.buf) };
        if hw == 0 {
            if !m.con.ts.t1.is_zero() {
                m.con.ts.t7 = m.con.ts.t5;
            }
            dev.publish(m, self.stats);
        } else {
            let release = self.origin + r.t_done.as_ns() + hw;
            if !m.con.ts.t1.is_zero() {
                m.con.ts.t7 = Time::from_ns(release);
            }
            self.held_cons.push_back((release, i, m));
        }
    }

    fn rx(&mut self, ind: &RxIndication) {
        let Some(i) = self.iface_of.get(ind.station as usize).copied().flatten() else { return };
        let now = self.ifaces[i].time.now();
        let src = self.addrs[ind.from as usize];
        let rx = RxInfo {
            signal_dbm: ind.signal_dbm,
            snr_db: ind.snr_db,
            rate: ind.rate,
            t_start: Time::from_ns(self.origin + ind.t_start.as_ns()),
            t_end: Time::from_ns(self.origin + ind.t_end.as_ns()),
            t_published: Time::from_ns(now),
            t_returned: Time::ZERO,
            tsft_us: None,
        };
        let bytes = match ind.kind {
            FrameKind::Ack => return,
            FrameKind::Beacon => {
                let dev = &mut self.ifaces[i];
                dev.beacon_seq += 1;
                // The sender's TSF: µs of medium time (the beacon's timestamp field,
                // as written into the frame below).
                let tsf_us = ind.t_start.as_ns() / 1000;
                let b = BeaconInd {
                    bssid: src,
                    seq: dev.beacon_seq,
                    t_start: rx.t_start,
                    t_end: rx.t_end,
                    t_published: Time::from_ns(now),
                    signal_dbm: ind.signal_dbm,
                    tsf_us: Some(tsf_us),
                };
                if dev.ends.beacon.push(b).is_err() {
                    dev.shared.beacon_overflow.fetch_add(1, Ordering::Relaxed);
                }
                self.stats.beacons += 1;
                if !dev.rx_management {
                    dev.shared.signal();
                    return;
                }
                let tu = self.beacon_interval_tu.get(ind.from as usize).copied().unwrap_or(100);
                let mut out = dev.ind_buffer();
                write_beacon(&mut out, src, tu, self.channel, tsf_us, self.beacon_rates);
                out
            }
            FrameKind::Data => {
                if ind.duplicate {
                    self.stats.rx_duplicates_dropped += 1;
                    return;
                }
                let mut out = self.ifaces[i].ind_buffer();
                let sent = self
                    .iface_of
                    .get(ind.from as usize)
                    .copied()
                    .flatten()
                    .and_then(|j| self.ifaces[j].pending.get(&ind.handle));
                match sent {
                    Some(p) => {
                        out.clear();
                        out.extend_from_slice(&p.buf[..p.len as usize]);
                    }
                    None => {
                        // Traffic of a station without an interface: a frame of the
                        // right length with a zero payload.
                        let dst = if ind.unicast {
                            self.addrs[ind.station as usize]
                        } else {
                            MacAddress::BROADCAST
                        };
                        write_zero_frame(&mut out, dst, src, ind.len);
                    }
                }
                out
            }
        };
        let dev = &mut self.ifaces[i];
        let class = match is_data(&bytes) {
            Some(true) => FrameClass::Data,
            Some(false) if dev.rx_management => FrameClass::Management,
            _ => {
                dev.spare_ind = Some(bytes);
                return;
            }
        };
        dev.ind_seq += 1;
        let dst = sdmac_frame::ieee80211::Frame::new_checked(&bytes[..])
            .map(|f| f.addr1())
            .unwrap_or(MacAddress::BROADCAST);
        let m = IndMsg {
            ind: Indication {
                id: dev.ind_seq,
                class,
                src,
                dst,
                ac: ind.ac,
                len: bytes.len(),
                payload_offset: rx_payload_offset(&bytes),
                duplicate: ind.duplicate,
                rx,
            },
            bytes,
        };
        if let Err(rtrb::PushError::Full(m)) = dev.ends.ind.push(m) {
            dev.spare_ind = Some(m.bytes);
            dev.shared.ind_overflow.fetch_add(1, Ordering::Relaxed);
        } else {
            self.stats.indications += 1;
        }
        dev.shared.signal();
    }
}
