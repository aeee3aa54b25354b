//! The medium's outputs as netlink messages to the kernel: TX_INFO_FRAME for a
//! status, FRAME for a delivery, several messages per datagram (no ACK requested).
//! Frames on air go to a capture instead.
//!
//! The kernel matches a status by transmitter and cookie and checks that it comes
//! from the registered socket's port id; it does not look at sequence numbers, so
//! threads that share the socket each number their own messages.

use crate::error::{io_err, DaemonError};
use crate::hwsim_medium::Output;
use crate::lateness::Lateness;
use crate::netlink::NlSocket;
use sdmac_netlink::hwsim::{HwsimFlags, HwsimMsg, RxFrame, TxInfoFrame, TxRate, TX_MAX_RATES};
use sdmac_netlink::nl::{self, NlHeader};
use sdmac_netlink::rate::{rx_rate_index, Band};
use sdmac_phy::Rate;
use std::io;

/// Where datagrams for the kernel go: the netlink socket, or a stand-in in tests.
/// Shared by every thread that sends (one `sendto` per datagram is atomic).
pub trait Datagrams: Send + Sync {
    /// Sends one datagram.
    fn send(&self, datagram: &[u8]) -> io::Result<()>;
    /// Sends the datagrams of a [`Batch`], in order (the socket: with one system call).
    fn send_batch(&self, batch: &Batch) -> io::Result<()> {
        batch.datagrams().try_for_each(|d| self.send(d))
    }
    /// The port id messages carry.
    fn pid(&self) -> u32;
}

impl Datagrams for NlSocket {
    fn send(&self, datagram: &[u8]) -> io::Result<()> {
        NlSocket::send(self, datagram)
    }

    fn send_batch(&self, batch: &Batch) -> io::Result<()> {
        NlSocket::send_many(self, &batch.buf, &batch.spans)
    }

    fn pid(&self) -> u32 {
        NlSocket::pid(self)
    }
}

/// The largest datagram the encoder fills with several messages. The kernel copies a
/// datagram to the netlink socket into a buffer from its page allocator when it fits
/// in NLMSG_GOODSIZE (a 4 KiB page less the skb's shared info, 3,776 bytes on x86-64)
/// and into vmalloc'ed memory otherwise — mapped and unmapped for every send, which
/// costs TLB flushes and, in User-Mode Linux, host mappings that ran out under load.
/// A message longer than this (a frame of more than ~3.4 KB) goes alone.
pub const DATAGRAM_MAX: usize = 3584;

/// A round's datagrams, kept to leave together (with one sendmmsg).
#[derive(Debug, Default)]
pub struct Batch {
    buf: Vec<u8>,
    spans: Vec<(usize, usize)>,
}

impl Batch {
    /// Adds a datagram.
    pub fn push(&mut self, datagram: &[u8]) {
        self.spans.push((self.buf.len(), datagram.len()));
        self.buf.extend_from_slice(datagram);
    }

    /// The datagrams, in order.
    pub fn datagrams(&self) -> impl Iterator<Item = &[u8]> {
        self.spans.iter().map(|&(at, len)| &self.buf[at..at + len])
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// Sends them all on `sink` (if there are any) and empties the batch.
    pub fn send_on(&mut self, sink: &(impl Datagrams + ?Sized)) -> io::Result<()> {
        let sent = if self.is_empty() { Ok(()) } else { sink.send_batch(self) };
        self.buf.clear();
        self.spans.clear();
        sent
    }
}

/// Packs outputs into datagrams for one sender (one thread).
#[derive(Debug)]
pub struct Encoder {
    family: u16,
    pid: u32,
    seq: u32,
    tx: Vec<u8>,
}

impl Encoder {
    /// An encoder for family `family`, port id `pid`; its first message gets sequence
    /// number `seq + 1`.
    pub fn new(family: u16, pid: u32, seq: u32) -> Encoder {
        Encoder { family, pid, seq, tx: vec![0u8; 1 << 16] }
    }

    /// Encodes every output of `out` (which it empties) and hands the datagrams to
    /// `send` — as few as fit in [`DATAGRAM_MAX`]; frames on air go to `air` (start on air on
    /// the daemon's clock, MHz, rate, frame). They leave at `now` (the daemon's
    /// clock): how late each status and delivery is goes to `late` (None: they leave
    /// at their time, sent by the kernel).
    pub fn send(
        &mut self,
        out: &mut Vec<Output>,
        now: u64,
        late: Option<&mut Lateness>,
        send: impl FnMut(&[u8]) -> io::Result<()>,
        air: impl FnMut(u64, u32, Rate, &[u8]) -> io::Result<()>,
    ) -> Result<(), DaemonError> {
        self.send_each(out.drain(..), now, late, send, air)
    }

    /// As [`Encoder::send`], for the outputs `out` yields (a group of
    /// [`crate::timed::Later`], say).
    pub fn send_each(
        &mut self,
        out: impl IntoIterator<Item = Output>,
        now: u64,
        mut late: Option<&mut Lateness>,
        mut send: impl FnMut(&[u8]) -> io::Result<()>,
        mut air: impl FnMut(u64, u32, Rate, &[u8]) -> io::Result<()>,
    ) -> Result<(), DaemonError> {
        let mut at = 0;
        for o in out {
            if let Output::Air { t_start, freq, rate, frame } = &o {
                air(*t_start, *freq, *rate, frame).map_err(io_err("capture file"))?;
                continue;
            }
            if let Output::Resend { msg, .. } = &o {
                // Sent again as it was (its own header, sequence number included).
                let len = sdmac_netlink::align4(msg.len());
                if at > 0 && at + len > DATAGRAM_MAX {
                    send(&self.tx[..at]).map_err(io_err("netlink send"))?;
                    at = 0;
                }
                let room = self.tx.len() - at;
                if len > room {
                    return Err(DaemonError::Protocol(format!(
                        "a message to send again has {} bytes; at most {room} fit",
                        msg.len()
                    )));
                }
                self.tx[at..at + msg.len()].copy_from_slice(msg);
                self.tx[at + msg.len()..at + len].fill(0);
                at += len;
                continue;
            }
            self.seq = self.seq.wrapping_add(1);
            let hdr = NlHeader::request(self.family, nl::flags::REQUEST, self.seq, self.pid);
            let msg = match &o {
                Output::TxStatus {
                    transmitter,
                    cookie,
                    acked,
                    signal_dbm,
                    attempts,
                    echo,
                    due,
                } => {
                    if let Some(l) = late.as_deref_mut() {
                        l.record(*due, now);
                    }
                    // The frame's own rate indices with the attempts made; the list ends
                    // after the last entry used (an entry skipped before it says 0).
                    let mut tx_info = [TxRate::END; TX_MAX_RATES];
                    let used = (0..TX_MAX_RATES)
                        .take_while(|&k| echo.rate_idx[k] >= 0)
                        .filter(|&k| attempts.get(k).is_some_and(|n| *n > 0))
                        .last();
                    for (k, r) in tx_info.iter_mut().enumerate().take(used.map_or(0, |u| u + 1)) {
                        *r = TxRate::new(echo.rate_idx[k], attempts.get(k).copied().unwrap_or(0));
                    }
                    let flags = HwsimFlags::from_bits_retain(echo.flags);
                    let flags = if *acked { flags | HwsimFlags::STAT_ACK } else { flags };
                    HwsimMsg::TxInfo(TxInfoFrame {
                        transmitter: transmitter.0,
                        flags,
                        cookie: *cookie,
                        signal: *signal_dbm,
                        tx_info,
                    })
                }
                Output::Deliver { receiver, frame, rate, signal_dbm, freq, due } => {
                    if let Some(l) = late.as_deref_mut() {
                        l.record(*due, now);
                    }
                    let band = Band::from_freq(*freq)
                        .unwrap_or(Band::from_freq(2412).expect("2.4 GHz band"));
                    HwsimMsg::Delivery(RxFrame {
                        receiver: receiver.0,
                        frame,
                        rx_rate: rx_rate_index(*rate, band),
                        signal: *signal_dbm,
                        freq: *freq,
                    })
                }
                Output::Air { .. } | Output::Resend { .. } => continue,
            };
            let len = msg.buffer_len();
            if at > 0 && at + len > DATAGRAM_MAX {
                send(&self.tx[..at]).map_err(io_err("netlink send"))?;
                at = 0;
            }
            let n = msg
                .emit(&hdr, &mut self.tx[at..])
                .map_err(|e| DaemonError::Protocol(e.to_string()))?;
            at += n;
        }
        if at > 0 {
            send(&self.tx[..at]).map_err(io_err("netlink send"))?;
        }
        Ok(())
    }

    /// As [`Encoder::send`], with the datagrams gathered in `batch` and sent on `sink`
    /// together — also those encoded before an output failed to encode.
    pub fn send_batched(
        &mut self,
        out: &mut Vec<Output>,
        now: u64,
        late: &mut Lateness,
        batch: &mut Batch,
        sink: &(impl Datagrams + ?Sized),
        air: impl FnMut(u64, u32, Rate, &[u8]) -> io::Result<()>,
    ) -> Result<(), DaemonError> {
        let encoded = self.send(
            out,
            now,
            Some(late),
            |d| {
                batch.push(d);
                Ok(())
            },
            air,
        );
        let sent = batch.send_on(sink).map_err(io_err("netlink send"));
        encoded.and(sent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hwsim_medium::StatusEcho;

    #[test]
    fn lateness_is_the_send_time_after_each_output_time() {
        let status = |due| Output::TxStatus {
            transmitter: sdmac_types::MacAddress([2, 0, 0, 0, 0, 0]),
            cookie: 1,
            acked: true,
            signal_dbm: -50,
            attempts: vec![1].into(),
            echo: StatusEcho { rate_idx: [0, -1, -1, -1], flags: 1 },
            due,
        };
        let delivery = |due| Output::Deliver {
            receiver: sdmac_types::MacAddress([2, 0, 0, 0, 1, 0]),
            frame: vec![0x08; 24].into(),
            rate: Rate::Ofdm6,
            signal_dbm: -50,
            freq: 2412,
            due,
        };
        let air = Output::Air { t_start: 0, freq: 2412, rate: Rate::Ofdm6, frame: vec![0xd4, 0] };
        let mut out = vec![delivery(1_000_000), status(1_060_000), air, status(1_090_000)];
        let (mut late, mut datagrams, mut on_air) = (Lateness::new(), 0, 0);
        let mut enc = Encoder::new(20, 1, 0);
        let sent = enc.send(
            &mut out,
            1_100_000,
            Some(&mut late),
            |_| {
                datagrams += 1;
                Ok(())
            },
            |_, _, _, _| {
                on_air += 1;
                Ok(())
            },
        );
        sent.unwrap();
        assert!(out.is_empty());
        assert_eq!((datagrams, on_air), (1, 1));
        // 100, 40 and 10 µs late; the frame on air is not an output to the kernel.
        let s = late.take_interval();
        assert_eq!(s.n, 3);
        assert!(s.max_ns.abs_diff(100_000) <= 1_000 && s.p50_ns.abs_diff(40_000) <= 400, "{s:?}");
    }

    #[test]
    fn datagrams_stay_within_the_kernels_good_size() {
        let delivery = |len| Output::Deliver {
            receiver: sdmac_types::MacAddress([2, 0, 0, 0, 1, 0]),
            frame: vec![0x08; len].into(),
            rate: Rate::Ofdm54,
            signal_dbm: -50,
            freq: 2412,
            due: 0,
        };
        // Ten deliveries of 1,500 bytes, then one frame larger than a datagram's limit.
        let mut out: Vec<Output> = (0..10).map(|_| delivery(1500)).collect();
        out.push(delivery(5000));
        let mut enc = Encoder::new(20, 1, 0);
        let mut sizes = Vec::new();
        let mut messages = 0;
        enc.send(
            &mut out,
            0,
            None,
            |d| {
                sizes.push(d.len());
                // Count the messages: each starts with its length.
                let mut at = 0;
                while at < d.len() {
                    let len = u32::from_ne_bytes(d[at..at + 4].try_into().unwrap()) as usize;
                    assert!(len >= 16 && at + len <= d.len(), "a whole message at {at}");
                    at += (len + 3) & !3;
                    messages += 1;
                }
                Ok(())
            },
            |_, _, _, _| Ok(()),
        )
        .unwrap();
        assert_eq!(messages, 11, "{sizes:?}");
        // Two deliveries of 1,500 bytes fit in a datagram, three do not.
        assert_eq!(sizes.len(), 6, "{sizes:?}");
        assert!(sizes[..5].iter().all(|&n| n <= DATAGRAM_MAX && n > 3000), "{sizes:?}");
        assert!(sizes[5] > 5000, "the large frame alone: {sizes:?}");
    }
}

#[cfg(test)]
mod status_tests {
    use super::*;
    use crate::hwsim_medium::StatusEcho;
    use sdmac_netlink::hwsim::HwsimMsg;

    /// The TX_INFO of the status the encoder writes for `attempts` of a frame whose
    /// rate series had the indices `idx`.
    fn tx_info(idx: [i8; 4], attempts: Vec<u8>) -> [TxRate; TX_MAX_RATES] {
        let mut out = vec![Output::TxStatus {
            transmitter: sdmac_types::MacAddress([0x42, 0, 0, 0, 0, 0]),
            cookie: 3,
            acked: true,
            signal_dbm: -50,
            attempts: attempts.into(),
            echo: StatusEcho { rate_idx: idx, flags: 1 },
            due: 0,
        }];
        let mut enc = Encoder::new(20, 1, 0);
        let mut got = None;
        enc.send(
            &mut out,
            0,
            None,
            |d| {
                let m = nl::messages(d).next().unwrap().unwrap();
                match HwsimMsg::parse(&m).unwrap() {
                    HwsimMsg::TxInfo(t) => got = Some(t.tx_info),
                    other => panic!("{other:?}"),
                }
                Ok(())
            },
            |_, _, _, _| Ok(()),
        )
        .unwrap();
        got.unwrap()
    }

    #[test]
    fn a_skipped_entry_keeps_its_place_with_0_attempts() {
        let t = |i, n| TxRate::new(i, n);
        // Entry 0 skipped, the frame acked at entry 1's first try: (idx0, 0), (idx1, 1).
        assert_eq!(
            tx_info([7, 4, 0, -1], vec![0, 1, 0]),
            [t(7, 0), t(4, 1), TxRate::END, TxRate::END]
        );
        // Acked at once: the list ends after entry 0.
        assert_eq!(
            tx_info([7, 4, 0, -1], vec![1, 0, 0]),
            [t(7, 1), TxRate::END, TxRate::END, TxRate::END]
        );
        // Nothing tried (a refused frame): an empty list.
        assert_eq!(tx_info([7, 4, -1, -1], vec![0, 0]), [TxRate::END; 4]);
        // Entries 0 and 2 used, 1 skipped.
        assert_eq!(tx_info([7, 4, 0, -1], vec![2, 0, 3]), [t(7, 2), t(4, 0), t(0, 3), TxRate::END]);
    }
}
