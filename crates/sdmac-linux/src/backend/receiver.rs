//! The receive thread: reads the monitor socket in batches, matches echoes and TX
//! statuses to requests, and publishes confirmations and indications.

use super::{Shared, State};
use crate::frames::{injected, read, Read};
use crate::matcher::{Echo, EchoOutcome, Key};
use crate::rates::{from_tx_rate, to_tx_rate};
use crate::socket::{realtime_offset_ns, RxBatch};
use sdmac_api::{BeaconInd, Indication, MacAddress, RxInfo, Time};
use sdmac_frame::radiotap::TxParams;
use sdmac_rt::monotonic_ns;
use std::sync::atomic::Ordering;

/// The receive thread: reads the socket, matches echoes, resends, expires, closes.
pub(super) fn receive_loop(sh: &Shared, me: MacAddress, cap: usize) {
    let mut batch = RxBatch::default();
    let mut done = Vec::new();
    let mut out = Vec::new();
    loop {
        if sh.stop.load(Ordering::SeqCst) {
            return;
        }
        let timeout_ms = {
            let st = sh.lock();
            let now = monotonic_ns();
            st.matcher
                .next_deadline()
                .map_or(100, |d| (d.saturating_sub(now) / 1_000_000 + 1).min(100))
                as i32
        };
        let revents = match sh.sock.poll(timeout_ms) {
            Ok(r) => r,
            Err(e) => return close(sh, format!("poll: {e}")),
        };
        let mut failure = None;
        if revents & (libc::POLLERR | libc::POLLHUP | libc::POLLNVAL) != 0
            && revents & libc::POLLIN == 0
        {
            failure = Some(
                sh.sock
                    .take_error()
                    .map_or_else(|| "the socket failed".to_string(), |e| e.to_string()),
            );
        }
        let off = realtime_offset_ns();
        let mut any = false;
        while failure.is_none() {
            let n = match sh.sock.recv_batch(&mut batch) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) => {
                    failure = Some(e.to_string());
                    break;
                }
            };
            let now = monotonic_ns();
            let mut st = sh.lock();
            for i in 0..n {
                let m = batch.meta[i];
                let t = if m.stamp_realtime_ns == 0 {
                    0
                } else {
                    (m.stamp_realtime_ns as i128 - off).max(1) as u64
                };
                if m.truncated {
                    st.stats.skipped += 1;
                    continue;
                }
                any |= handle(sh, &mut st, me, cap, batch.frame(i), m.pkttype, t, now, &mut out);
            }
            if n < crate::socket::BATCH {
                break;
            }
        }
        let now = monotonic_ns();
        let mut st = sh.lock();
        done.clear();
        st.matcher.expire(now, &mut done);
        if !done.is_empty() {
            let State { frames, matcher, .. } = &mut *st;
            frames.retain(|k, _| matcher.has_key(k));
            st.cons.extend(done.drain(..));
            any = true;
        }
        drop(st);
        if let Some(why) = failure {
            return close(sh, why);
        }
        if any {
            sh.wake();
        }
    }
}

/// One frame read; true when something was queued for the application.
#[allow(clippy::too_many_arguments)]
fn handle(
    sh: &Shared,
    st: &mut State,
    me: MacAddress,
    cap: usize,
    bytes: &[u8],
    pkttype: u8,
    t: u64,
    now: u64,
    out: &mut Vec<u8>,
) -> bool {
    let bit = 1u8.checked_shl(pkttype as u32).unwrap_or(0);
    match read(bytes) {
        Read::Echo { status, addr1, addr2, seq_ctrl } => {
            st.stats.echo_pkttypes |= bit;
            let (Some(sc), true) = (seq_ctrl, addr2 == Some(me)) else {
                st.stats.foreign_echoes += 1;
                return false;
            };
            let key = Key { addr1, seq_ctrl: sc & 0xfff0 };
            let echo = Echo {
                failed: status.failed(),
                attempts: status.attempts().min(255) as u8,
                rate: status.rate.and_then(from_tx_rate),
                t_echo: t,
            };
            match st.matcher.on_echo(now, key, echo) {
                EchoOutcome::Confirmed(c) => {
                    st.frames.remove(&key);
                    st.cons.push_back(c);
                    true
                }
                EchoOutcome::Resend { rate, tries, .. } => {
                    let Some((mpdu, no_ack)) = st.frames.get_mut(&key) else { return false };
                    let tx = TxParams {
                        rate: to_tx_rate(rate),
                        retries: tries.saturating_sub(1),
                        no_ack: *no_ack,
                        keep_seq: true,
                    };
                    mpdu[1] |= 0x08;
                    injected(&tx, mpdu, out);
                    if sh.sock.send(out).is_err() {
                        st.stats.resend_failed += 1;
                    }
                    false
                }
                EchoOutcome::Late | EchoOutcome::Unknown => false,
            }
        }
        Read::Rx(rx) => {
            st.stats.rx_pkttypes |= bit;
            // The frame was stamped before it was read at `now`; a carried stamp
            // after that is the carry's error.
            let t = if t > now {
                st.stats.rx_stamps_clamped += 1;
                now
            } else {
                t
            };
            let signal = rx.signal_dbm.map_or(f64::NAN, |s| s as f64);
            let info = RxInfo {
                signal_dbm: signal,
                snr_db: rx.noise_dbm.map_or(f64::NAN, |n| signal - n as f64),
                rate: rx.rate.unwrap_or(sdmac_api::Rate::Custom { kbps: 0 }),
                t_start: Time::ZERO,
                t_end: Time::from_ns(t),
                t_published: Time::from_ns(now),
                t_returned: Time::ZERO,
                tsft_us: rx.tsft_us,
            };
            if rx.beacon {
                st.beacon_seq += 1;
                st.stats.beacons += 1;
                if st.beacons.len() >= cap {
                    st.beacons.pop_front();
                    st.stats.ind_dropped += 1;
                }
                let b = BeaconInd {
                    bssid: rx.src,
                    seq: st.beacon_seq,
                    t_start: Time::ZERO,
                    t_end: Time::from_ns(t),
                    t_published: Time::from_ns(now),
                    signal_dbm: signal,
                    tsf_us: rx.beacon_tsf_us,
                };
                st.beacons.push_back(b);
                return true;
            }
            let duplicate = match rx.seq_ctrl {
                Some(sc) => {
                    let dup = rx.retry && st.last_seq.get(&rx.src) == Some(&sc);
                    st.last_seq.insert(rx.src, sc);
                    dup
                }
                None => false,
            };
            st.ind_id += 1;
            st.stats.indicated += 1;
            let ind = Indication {
                id: st.ind_id,
                class: rx.class,
                src: rx.src,
                dst: rx.dst,
                ac: rx.ac,
                len: rx.mpdu.len(),
                payload_offset: rx.payload_offset,
                duplicate,
                rx: info,
            };
            if st.inds.len() >= cap {
                st.inds.pop_front();
                st.stats.ind_dropped += 1;
            }
            st.inds.push_back((ind, rx.mpdu.to_vec()));
            true
        }
        Read::Skip(_) => {
            st.stats.skipped += 1;
            false
        }
    }
}

/// The interface is gone: confirm everything waiting `Closed`, wake every caller.
fn close(sh: &Shared, why: String) {
    let mut st = sh.lock();
    let mut done = Vec::new();
    st.matcher.close(monotonic_ns(), &mut done);
    st.cons.extend(done);
    st.frames.clear();
    st.closed = Some(why);
    drop(st);
    sh.efd.signal();
    sh.cond.notify_all();
}
