//! `--pcap`: a capture of what the stations' data paths put on and take off the
//! medium, written by a thread of its own.
//!
//! Each data path copies frames into fixed-size records and hands them to the
//! writer over a bounded channel (allocated once; a full channel drops the record
//! and counts it, the data path never waits): every frame it submits (DATA and
//! management), an ACK record for every frame the MAC confirms as acknowledged
//! (the engine generates the ACKs themselves; the record is written when the
//! confirmation arrives), and, from one chosen station, the beacons it hears. The
//! writer stores them as pcapng with link type IEEE 802.11 (105), without FCS.

use sdmac_frame::pcapng::{PcapngWriter, LINKTYPE_IEEE802_11};
use std::io::{self, BufWriter, Write};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError};
use std::time::{SystemTime, UNIX_EPOCH};

/// Largest frame kept whole in a record (a 26-byte header and a 2304-byte MSDU fit).
pub const RECORD_MAX: usize = 2336;

/// One captured frame.
#[derive(Clone)]
pub struct Record {
    /// Wall-clock time (ns since the Unix epoch).
    pub t_ns: u64,
    /// Bytes used in `bytes`.
    pub len: u16,
    /// The data path it came from (its spare records go back there).
    pub origin: u16,
    /// The frame.
    pub bytes: [u8; RECORD_MAX],
}

/// A data path's end of the capture.
#[derive(Debug)]
pub struct CaptureTap {
    tx: SyncSender<Box<Record>>,
    origin: u16,
    // Boxed: a record moves through the channels as a pointer, not 2.3 kB.
    #[allow(clippy::vec_box)]
    spare: Vec<Box<Record>>,
    /// Also capture beacons heard (one station does, so each appears once).
    pub beacons: bool,
    /// Records dropped because the writer was behind.
    pub dropped: u64,
}

impl std::fmt::Debug for Record {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Record").field("t_ns", &self.t_ns).field("len", &self.len).finish()
    }
}

fn now_ns() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64)
}

impl CaptureTap {
    /// Records `frame` (cut at [`RECORD_MAX`]).
    pub fn record(&mut self, frame: &[u8]) {
        let Some(mut r) = self.spare.pop() else {
            self.dropped += 1;
            return;
        };
        let n = frame.len().min(RECORD_MAX);
        r.t_ns = now_ns();
        r.len = n as u16;
        r.origin = self.origin;
        r.bytes[..n].copy_from_slice(&frame[..n]);
        match self.tx.try_send(r) {
            Ok(()) => {}
            Err(TrySendError::Full(r) | TrySendError::Disconnected(r)) => {
                self.dropped += 1;
                self.spare.push(r);
            }
        }
    }

    /// Records an ACK to `ra` (frame control 0xd4, no duration, no FCS).
    pub fn record_ack(&mut self, ra: &[u8; 6]) {
        let mut ack = [0u8; 10];
        ack[0] = 0xd4;
        ack[4..10].copy_from_slice(ra);
        self.record(&ack);
    }

    /// Takes back records the writer is done with (so that recording allocates nothing).
    pub fn refill(&mut self, back: &Receiver<Box<Record>>) {
        while let Ok(r) = back.try_recv() {
            self.spare.push(r);
        }
    }
}

/// A data path's capture end and the channel its spent records come back on.
#[derive(Debug)]
pub struct CaptureEnd {
    /// Where records go.
    pub tap: CaptureTap,
    /// Records returned by the writer.
    pub back: Receiver<Box<Record>>,
}

/// Makes the capture end of data path number `origin` with `n` records
/// preallocated, sending to `to_writer`; returns it and the writer's way of giving
/// its records back.
pub fn end(
    to_writer: SyncSender<Box<Record>>,
    origin: u16,
    n: usize,
    beacons: bool,
) -> (CaptureEnd, SyncSender<Box<Record>>) {
    let (give_back, back) = std::sync::mpsc::sync_channel(n);
    let spare = (0..n)
        .map(|_| Box::new(Record { t_ns: 0, len: 0, origin, bytes: [0; RECORD_MAX] }))
        .collect();
    let tap = CaptureTap { tx: to_writer, origin, spare, beacons, dropped: 0 };
    (CaptureEnd { tap, back }, give_back)
}

/// Writes records from `rx` to `out` until every sender is gone, giving each record
/// back to the data path it came from (`give_back[origin]`). Data paths started
/// later (stations added at run time) announce their way back on `added`, with
/// their origin, before their first record. Returns the number of frames written.
pub fn write_all<W: Write>(
    out: W,
    rx: Receiver<Box<Record>>,
    mut give_back: Vec<SyncSender<Box<Record>>>,
    added: Receiver<(u16, SyncSender<Box<Record>>)>,
) -> io::Result<u64> {
    let mut w = PcapngWriter::new(BufWriter::new(out), LINKTYPE_IEEE802_11, "sdmac-tap")?;
    for r in rx {
        while let Ok((origin, back)) = added.try_recv() {
            let k = origin as usize;
            if give_back.len() <= k {
                // A placeholder whose receiver is gone: records are let go.
                let (gone, _) = std::sync::mpsc::sync_channel(0);
                give_back.resize(k + 1, gone);
            }
            give_back[k] = back;
        }
        w.write_packet(r.t_ns, &r.bytes[..r.len as usize])?;
        if let Some(g) = give_back.get(r.origin as usize) {
            // A closed return channel (its data path has ended) lets the record go.
            let _ = g.try_send(r);
        }
    }
    w.flush()?;
    Ok(w.packets())
}
