//! The daemon's own work per frame, without a kernel: N radios in pairs, every
//! first-of-pair saturated with 1500-byte unicast frames at 54 Mb/s to its partner,
//! every radio beaconing (broadcast, 1 Mb/s) each BEACON_TU (0: none), each frame
//! arriving as the kernel's netlink datagram, parsed, run through the
//! medium, its outputs encoded into datagrams — the single-thread daemon's round on
//! a virtual clock that wakes exactly at each next output. With CHANNELS > 1 the pairs
//! are spread over that many channels (pair k on the k-th, round robin), every radio
//! listed in the configuration as a benchmark's are: the 10 x 20 test bed is
//! `200 FRAMES 0 1000 10`.
//!
//!     cargo run --release -p sdmac-mediumd --example medium_cost -- [N] [FRAMES] [COALESCE_US] [BEACON_TU] [CHANNELS]
//!
//! With SDMAC_DIGEST=1 it also hashes every byte sent (a check that a change to the
//! engine or the daemon leaves the outputs as they were; costs time).
//!
//! Prints one JSON line: the time until every sender's first frame was answered
//! (channels, stations and links being made), ns of CPU per data frame over the whole
//! run (beacons' work and that start included), deliveries and datagrams per data frame.

use sdmac_frame::ieee80211::{write_data_frame, DataParams};
use sdmac_mediumd::coalesce::{first_due, Coalesce};
use sdmac_mediumd::encode::Encoder;
use sdmac_mediumd::hwsim_medium::{hw_addr_of, HwsimMedium, LinkModel, Mac, Output, Setup};
use sdmac_mediumd::kernel_msg::on_datagram;
use sdmac_mediumd::lateness::Lateness;
use sdmac_netlink::hwsim::{HwsimFlags, HwsimMsg, TxFrame, TxRate};
use sdmac_netlink::nl::{self, NlHeader};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::time::Instant;

const FAMILY: u16 = 0x1d;
/// 54 Mb/s at 2.4 GHz (hwsim's legacy rate index).
const R54M: i8 = 11;

fn mac(i: usize) -> Mac {
    Mac::new([2, 0, 0, (i >> 8) as u8, i as u8, 0])
}

/// The k-th channel's centre frequency (MHz): 2.4 GHz channels 1–13, then 5 GHz.
fn freq_of(k: usize) -> u32 {
    if k < 13 {
        2412 + 5 * k as u32
    } else {
        5180 + 20 * (k as u32 - 13)
    }
}

fn kernel_datagram(from: Mac, to: Mac, freq: u32, cookie: u64, buf: &mut Vec<u8>) {
    let mut frame = vec![0u8; 1600];
    let p = DataParams::new(to, from, from, 0x0800);
    let n = write_data_frame(&mut frame, &p, &[0x5a; 1500], false).unwrap();
    let mut tx_info = [TxRate::END; 4];
    tx_info[0] = TxRate::new(R54M, 7);
    let msg = HwsimMsg::Frame(TxFrame {
        transmitter: hw_addr_of(from).0,
        frame: &frame[..n],
        flags: HwsimFlags::REQ_TX_STATUS,
        freq: Some(freq),
        tx_info,
        tx_info_flags: None,
        cookie,
        extra: Vec::new(),
    });
    buf.resize(4096, 0);
    let len = msg.emit(&NlHeader::request(FAMILY, nl::flags::REQUEST, 0, 0), buf).unwrap();
    buf.truncate(len);
}

/// An IBSS beacon of `from` (broadcast, no ACK, 1 Mb/s) as the kernel hands it over.
fn beacon_datagram(from: Mac, freq: u32, cookie: u64, buf: &mut Vec<u8>) {
    let mut frame = vec![0x80, 0x00, 0, 0];
    frame.extend_from_slice(&[0xff; 6]);
    frame.extend_from_slice(from.as_bytes());
    frame.extend_from_slice(from.as_bytes());
    frame.extend_from_slice(&[0, 0]);
    frame.extend_from_slice(&[0; 8]); // timestamp
    frame.extend_from_slice(&[100, 0, 0x02, 0]); // interval, capability (IBSS)
    frame.extend_from_slice(&[0, 5, b'p', b'a', b'i', b'r', b's', 1, 4, 0x02, 0x04, 0x0b, 0x16]);
    let mut tx_info = [TxRate::END; 4];
    tx_info[0] = TxRate::new(0, 1);
    let msg = HwsimMsg::Frame(TxFrame {
        transmitter: hw_addr_of(from).0,
        frame: &frame,
        flags: HwsimFlags::NO_ACK,
        freq: Some(freq),
        tx_info,
        tx_info_flags: None,
        cookie,
        extra: Vec::new(),
    });
    buf.resize(4096, 0);
    let len = msg.emit(&NlHeader::request(FAMILY, nl::flags::REQUEST, 0, 0), buf).unwrap();
    buf.truncate(len);
}

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("numbers: N FRAMES COALESCE_US BEACON_TU CHANNELS"))
        .collect();
    let n = args.first().copied().unwrap_or(100) as usize;
    let frames = args.get(1).copied().unwrap_or(20_000);
    let coalesce_ns = args.get(2).copied().unwrap_or(0) * 1000;
    let beacon_ns = args.get(3).copied().unwrap_or(100) * 1_024_000;
    let channels = args.get(4).copied().unwrap_or(1).max(1) as usize;
    assert!(n >= 2 && n.is_multiple_of(2), "N must be even and at least 2");
    // Radio i's channel: its pair's, round robin.
    let freq = |i: usize| freq_of(i / 2 % channels);
    let ifaces: Vec<Mac> = (0..n).map(mac).collect();
    let setup = Setup {
        interfaces: ifaces.clone(),
        model: LinkModel::Snr { default_snr_db: 30.0, links: vec![] },
        ..Setup::default()
    };
    let mut m = HwsimMedium::new(setup);
    let mut out: Vec<Output> = Vec::new();
    let mut enc = Encoder::new(FAMILY, 4242, 3);
    let mut late = Lateness::new();
    let mut c = Coalesce::new(coalesce_ns);
    // Every datagram to send, prepared beforehand: what the kernel would hand over.
    let mut dg = Vec::new();
    let mut cookie = 0u64;
    let mut sent_bytes = 0usize;
    let mut datagrams = 0u64;
    // FNV-1a over every byte sent (SDMAC_DIGEST=1): the same inputs must give the
    // same outputs, whatever is changed in how they are computed.
    let with_digest = std::env::var_os("SDMAC_DIGEST").is_some_and(|v| v == "1");
    let mut digest = 0xcbf29ce484222325u64;
    let start = Instant::now();
    let mut data_cookies = std::collections::HashSet::new();
    let mut feed = |m: &mut HwsimMedium,
                    t: u64,
                    from: usize,
                    out: &mut Vec<Output>,
                    cookie: &mut u64,
                    data_cookies: &mut std::collections::HashSet<u64>| {
        *cookie += 1;
        data_cookies.insert(*cookie);
        kernel_datagram(ifaces[from], ifaces[from + 1], freq(from), *cookie, &mut dg);
        on_datagram(m, t, &dg, FAMILY, 0, out);
    };
    for i in (0..n).step_by(2) {
        feed(&mut m, 0, i, &mut out, &mut cookie, &mut data_cookies);
    }
    let mut done = 0u64;
    // Until every sender's first frame is answered: channels, stations and links made.
    let mut unanswered: std::collections::HashSet<usize> = (0..n).step_by(2).collect();
    let mut started = None;
    let mut pending: Vec<usize> = Vec::new();
    // Each radio's next beacon: TBTTs spread over the interval (each IBSS its own TSF).
    // (time, radio), earliest first (the lowest radio first at equal times).
    let mut next_beacon: BinaryHeap<Reverse<(u64, usize)>> = (0..n)
        .map(|i| {
            Reverse((if beacon_ns > 0 { beacon_ns * i as u64 / n as u64 + 1 } else { u64::MAX }, i))
        })
        .collect();
    let index_of: HashMap<Mac, usize> =
        ifaces.iter().enumerate().map(|(i, &a)| (hw_addr_of(a), i)).collect();
    let mut bdg = Vec::new();
    while done < frames {
        let Some(t) = c.wake_at(m.next_output_time()) else { break };
        let Reverse((tb, b)) = *next_beacon.peek().unwrap();
        if tb <= t {
            cookie += 1;
            beacon_datagram(ifaces[b], freq(b), cookie, &mut bdg);
            on_datagram(&mut m, tb, &bdg, FAMILY, 0, &mut out);
            next_beacon.pop();
            next_beacon.push(Reverse((tb + beacon_ns, b)));
            continue;
        }
        m.advance(t, &mut out);
        for o in &out {
            if let Output::TxStatus { transmitter, cookie: c, .. } = o {
                let i = index_of[transmitter];
                if i.is_multiple_of(2) && data_cookies.remove(c) {
                    done += 1;
                    pending.push(i);
                    if started.is_none() {
                        unanswered.remove(&i);
                        if unanswered.is_empty() {
                            started = Some(start.elapsed());
                        }
                    }
                }
            }
        }
        if c.send_now(t, first_due(&out), m.next_output_time()) {
            enc.send(
                &mut out,
                t,
                Some(&mut late),
                |d| {
                    if with_digest {
                        digest = d
                            .iter()
                            .fold(digest, |h, &b| (h ^ b as u64).wrapping_mul(0x100000001b3));
                    }
                    sent_bytes += d.len();
                    datagrams += 1;
                    Ok(())
                },
                |_, _, _, _| Ok(()),
            )
            .unwrap();
        }
        for i in pending.drain(..) {
            feed(&mut m, t, i, &mut out, &mut cookie, &mut data_cookies);
        }
    }
    let cpu = start.elapsed();
    let k = m.counters();
    println!(
        "{{\"stations\": {n}, \"channels\": {channels}, \"frames\": {done}, \"start_ms\": {:.1}, \"ns_per_frame\": {:.0}, \"deliveries_per_frame\": {:.2}, \"datagrams_per_frame\": {:.3}, \"bytes_per_frame\": {:.0}, \"digest\": {}}}",
        started.unwrap_or(cpu).as_secs_f64() * 1e3,
        cpu.as_nanos() as f64 / done as f64,
        k.deliveries as f64 / done as f64,
        datagrams as f64 / done as f64,
        sent_bytes as f64 / done as f64,
        if with_digest { format!("\"{digest:016x}\"") } else { "null".to_string() }
    );
}
