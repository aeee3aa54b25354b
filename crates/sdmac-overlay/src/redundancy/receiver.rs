//! The receiving side: every interface read, each sequence number passed up once.

use super::error::{api, check_channels, RedundancyError};
use super::header::decode;
use sdmac_api::{Backend, Interface, Time, Wait};
use std::time::Duration;

/// Accepts each sequence number once, over a sliding window of the last
/// [`DuplicateFilter::WINDOW`] numbers below the highest seen; anything older is
/// treated as a duplicate.
#[derive(Clone, Debug, Default)]
pub struct DuplicateFilter {
    highest: Option<u64>,
    bits: [u64; 16],
}

impl DuplicateFilter {
    /// How many sequence numbers the filter remembers.
    pub const WINDOW: u64 = 1024;

    /// A filter that has seen nothing.
    pub fn new() -> DuplicateFilter {
        DuplicateFilter::default()
    }

    fn bit(&mut self, seq: u64) -> (&mut u64, u64) {
        let k = (seq % Self::WINDOW) as usize;
        (&mut self.bits[k / 64], 1u64 << (k % 64))
    }

    /// True the first time `seq` is seen; false for a duplicate (or one too old).
    pub fn accept(&mut self, seq: u64) -> bool {
        match self.highest {
            None => {
                self.highest = Some(seq);
                let (w, b) = self.bit(seq);
                *w |= b;
                true
            }
            Some(h) if seq > h => {
                // Forget the numbers that slide out of the window.
                let gap = seq - h;
                if gap >= Self::WINDOW {
                    self.bits = [0; 16];
                } else {
                    for s in h + 1..=seq {
                        let (w, b) = self.bit(s);
                        *w &= !b;
                    }
                }
                self.highest = Some(seq);
                let (w, b) = self.bit(seq);
                *w |= b;
                true
            }
            Some(h) if h - seq >= Self::WINDOW => false,
            Some(_) => {
                let (w, b) = self.bit(seq);
                let seen = *w & b != 0;
                *w |= b;
                !seen
            }
        }
    }
}

/// One packet passed up by the receiver.
#[derive(Clone, Debug, PartialEq)]
pub struct Delivered {
    /// Its sequence number.
    pub seq: u64,
    /// The interface whose copy came first.
    pub iface: usize,
    /// The end of that copy on air (`CLOCK_MONOTONIC`).
    pub t_end: Time,
    /// The application payload.
    pub payload: Vec<u8>,
}

/// Counters of a receiver.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct ReceiverStats {
    /// Copies received with the overlay's header.
    pub copies: u64,
    /// Packets passed up.
    pub delivered: u64,
    /// Copies dropped as duplicates.
    pub duplicates_dropped: u64,
    /// Frames without the overlay's header (ignored).
    pub foreign: u64,
}

/// The receiving side of seamless redundancy.
#[derive(Debug)]
pub struct RedundantReceiver<B: Backend> {
    ifaces: Vec<Interface<B>>,
    filter: DuplicateFilter,
    stats: ReceiverStats,
    buf: Vec<u8>,
    rr: usize,
}

impl<B: Backend> RedundantReceiver<B> {
    /// A receiver over `ifaces`; refuses fewer than two interfaces or a channel used
    /// twice.
    pub fn new(mut ifaces: Vec<Interface<B>>) -> Result<RedundantReceiver<B>, RedundancyError> {
        check_channels(&mut ifaces)?;
        Ok(RedundantReceiver {
            ifaces,
            filter: DuplicateFilter::new(),
            stats: ReceiverStats::default(),
            buf: Vec::with_capacity(4096),
            rr: 0,
        })
    }

    /// Reads one indication from interface `k`: None when there was none, Some(None)
    /// for a frame not passed up (foreign or duplicate).
    fn take(&mut self, k: usize, wait: Wait) -> Result<Option<Option<Delivered>>, RedundancyError> {
        let Some(ind) = self.ifaces[k].data_ind(&mut self.buf, wait).map_err(api(k, "data_ind"))?
        else {
            return Ok(None);
        };
        let end = ind.len.min(self.buf.len());
        let Some((seq, payload)) = decode(&self.buf[ind.payload_offset.min(end)..end]) else {
            self.stats.foreign += 1;
            return Ok(Some(None));
        };
        self.stats.copies += 1;
        if !self.filter.accept(seq) {
            self.stats.duplicates_dropped += 1;
            return Ok(Some(None));
        }
        self.stats.delivered += 1;
        Ok(Some(Some(Delivered { seq, iface: k, t_end: ind.rx.t_end, payload: payload.to_vec() })))
    }

    /// The next packet not seen before, from any interface, waiting up to `wait`.
    pub fn recv(&mut self, wait: Wait) -> Result<Option<Delivered>, RedundancyError> {
        let deadline = wait.deadline(self.ifaces[0].now());
        let n = self.ifaces.len();
        loop {
            let mut any = false;
            for j in 0..n {
                let k = (self.rr + j) % n;
                while let Some(d) = self.take(k, Wait::NoWait)? {
                    any = true;
                    if let Some(d) = d {
                        self.rr = (k + 1) % n;
                        return Ok(Some(d));
                    }
                }
            }
            if any {
                continue;
            }
            if self.ifaces[0].now() >= deadline {
                return Ok(None);
            }
            self.rr = (self.rr + 1) % n;
            let k = self.rr;
            let left = deadline.saturating_since(self.ifaces[0].now());
            let step = Duration::from_nanos(left.as_ns().min(50_000));
            if let Some(Some(d)) = self.take(k, Wait::For(step))? {
                return Ok(Some(d));
            }
        }
    }

    /// The counters so far.
    pub fn stats(&self) -> ReceiverStats {
        self.stats
    }

    /// The interfaces back.
    pub fn into_interfaces(self) -> Vec<Interface<B>> {
        self.ifaces
    }
}
