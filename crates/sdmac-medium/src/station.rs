//! Per-station state: queues of frames, carrier sense, the frame exchange in progress.
//! The channel access of each queue and station (backoff, idle and busy times, NAV,
//! EIFS) is a part of its own (`access`).

use crate::access::{QueueAccess, StationAccess};
use crate::config::{Dest, EdcaParams, RateSeries, StationConfig};
use crate::report::{Cause, FrameKind, StationStats};
use crate::time::{Time, NEVER};
use sdmac_phy::Rate;
use std::collections::VecDeque;

/// Index of the beacon queue in `Station::queues` (after the four ACs).
pub(crate) const BEACON_QUEUE: usize = 4;
/// "No transmission".
pub(crate) const NO_SLOT: u32 = u32::MAX;

/// A frame waiting in a queue.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Queued {
    /// The caller's handle (or a generated one, from `GENERATED_HANDLE_BASE` up).
    pub handle: u64,
    /// Where it goes.
    pub dst: Dest,
    /// MPDU length, bytes.
    pub len: u32,
    /// The rates to try, in order, with their attempts.
    pub rates: RateSeries,
    /// Sent without expecting an ACK.
    pub no_ack: bool,
    /// When it was queued.
    pub t_queued: Time,
    /// Data or beacon.
    pub kind: FrameKind,
    /// The flow that generated it (for throughput accounting and saturation refill).
    pub flow: Option<u16>,
}

/// One channel access function: a queue of frames, its channel access (`access`)
/// and the attempt history of its head frame. `repr(C)`: the channel access, read at
/// every busy and idle transition, comes first.
#[derive(Clone, Debug)]
#[repr(C)]
pub(crate) struct AccessQueue {
    /// Backoff, contention window and EDCA parameters of this queue.
    pub access: QueueAccess,
    /// The frames waiting, head first.
    pub frames: VecDeque<Queued>,
    /// Attempts made on the head frame.
    pub attempts: u8,
    /// Attempts of the head frame whose DATA was lost in a collision.
    pub collisions: u8,
    /// The destination received the head frame at least once (ACK lost or not).
    pub delivered: bool,
    /// When the head frame's first attempt began.
    pub first_start: Time,
    /// The rates the head frame was tried at, each with its attempts.
    pub rates_used: [(Rate, u8); 4],
    /// Entries of `rates_used` in use.
    pub n_rates: u8,
    /// The head frame's sequence number (12 bits).
    pub seq: u16,
}

impl AccessQueue {
    /// An empty queue with EDCA parameters `params`.
    pub fn new(params: EdcaParams) -> AccessQueue {
        AccessQueue {
            access: QueueAccess::new(params),
            frames: VecDeque::new(),
            attempts: 0,
            collisions: 0,
            delivered: false,
            first_start: 0,
            rates_used: [(Rate::Ofdm6, 0); 4],
            n_rates: 0,
            seq: 0,
        }
    }

    /// Records an attempt at `rate`.
    pub fn note_attempt(&mut self, rate: Rate) {
        let n = self.n_rates as usize;
        if n > 0 && self.rates_used[n - 1].0 == rate {
            self.rates_used[n - 1].1 += 1;
        } else if n < 4 {
            self.rates_used[n] = (rate, 1);
            self.n_rates += 1;
        } else {
            self.rates_used[3].1 += 1;
        }
        self.attempts += 1;
    }

    /// Forgets the head frame's attempt history.
    pub fn reset_head(&mut self) {
        self.attempts = 0;
        self.collisions = 0;
        self.delivered = false;
        self.n_rates = 0;
    }
}

/// A DATA frame sent and waiting for its ACK.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Exchange {
    /// The queue whose frame it is.
    pub queue: u8,
    /// When the DATA frame went on air.
    pub t_start: Time,
    /// When the DATA frame ends.
    pub t_data_end: Time,
    /// Did the destination receive the DATA frame (None until known)?
    pub data_ok: Option<bool>,
    /// Why the destination lost the DATA frame (meaningful when `data_ok` is false).
    pub data_cause: Cause,
    /// The ACK transmission the sender locked onto.
    pub ack_slot: u32,
    /// Why the sender could not lock onto (or lost) its ACK, when that is known before
    /// the ACKTimeout; None otherwise.
    pub ack_fail: Cause,
}

/// A station. `repr(C)` keeps the fields every transmission on the medium reads and
/// writes (carrier sense, lock, idle time, the queues in use) together at the front,
/// in the first cache lines, and the configuration and counters behind.
#[derive(Clone, Debug)]
#[repr(C)]
pub(crate) struct Station {
    /// Transmissions on air received at or above the CCA threshold.
    pub cs_count: u32,
    /// The transmission being received, NO_SLOT if none.
    pub rx_lock: u32,
    /// A frame of its own is on air.
    pub transmitting: bool,
    /// An ACK is owed (from the end of the DATA frame to the end of the ACK).
    pub responding: bool,
    /// The next frame of a TXOP follows SIFS after the last ACK.
    pub bursting: bool,
    /// Indexes of the queues this station uses (one DCF queue, or four EDCA queues,
    /// plus the beacon queue of an AP); the others never hold a frame.
    pub used: Used,
    /// Idle and busy bookkeeping, NAV and EIFS, that every queue counts from.
    pub access: StationAccess,
    /// Noise floor, mW.
    pub noise_mw: f64,
    /// The DATA/ACK exchange under way, if any.
    pub exchange: Option<Exchange>,
    /// Generation of the exchange, so that a stale ACKTimeout event is ignored.
    pub exchange_gen: u32,
    /// The sequence number the next new frame gets (12 bits).
    pub next_seq: u16,
    /// When the current TXOP began (the last access won).
    pub txop_start: Time,
    /// The four AC queues (index = `Ac`) and the beacon queue (`BEACON_QUEUE`).
    pub queues: [AccessQueue; 5],
    /// The configuration it was added with (updated by runtime changes).
    pub cfg: StationConfig,
    /// Handle of the last unicast frame received per sender, for duplicate detection.
    pub last_rx: Vec<(u32, u64)>,
    /// Counters of this station.
    pub stats: StationStats,
}

/// The indexes of the queues a station uses, held inline (read at every busy and idle
/// transition of every station).
#[derive(Copy, Clone, Debug)]
pub(crate) struct Used {
    q: [usize; 5],
    n: u8,
}

impl Used {
    /// The queues `qs`, in this order (at most five).
    fn new(qs: &[usize]) -> Used {
        let mut q = [0; 5];
        q[..qs.len()].copy_from_slice(qs);
        Used { q, n: qs.len() as u8 }
    }
}

impl std::ops::Deref for Used {
    type Target = [usize];

    fn deref(&self) -> &[usize] {
        &self.q[..self.n as usize]
    }
}

impl Station {
    /// A station of configuration `cfg`, idle since time 0; its beacon queue (used if
    /// it sends beacons) has parameters `beacon_params`.
    pub fn new(cfg: StationConfig, beacon_params: EdcaParams) -> Station {
        let q = |i: usize| AccessQueue::new(cfg.edca[i]);
        let queues = [q(0), q(1), q(2), q(3), AccessQueue::new(beacon_params)];
        let used = match (cfg.qos, cfg.beacon.is_some()) {
            (true, true) => Used::new(&[0, 1, 2, 3, BEACON_QUEUE]),
            (true, false) => Used::new(&[0, 1, 2, 3]),
            (false, true) => Used::new(&[1, BEACON_QUEUE]),
            (false, false) => Used::new(&[1]),
        };
        Station {
            used,
            noise_mw: sdmac_phy::units::dbm_to_mw(cfg.noise_floor_dbm),
            cfg,
            queues,
            cs_count: 0,
            rx_lock: NO_SLOT,
            transmitting: false,
            responding: false,
            exchange: None,
            exchange_gen: 0,
            txop_start: 0,
            bursting: false,
            access: StationAccess::new(),
            next_seq: 0,
            last_rx: Vec::new(),
            stats: StationStats::default(),
        }
    }

    /// Busy by physical carrier sense or own activity (NAV is folded into idle_since).
    pub fn busy(&self) -> bool {
        self.cs_count > 0
            || self.rx_lock != NO_SLOT
            || self.transmitting
            || self.responding
            || self.bursting
    }

    /// Idle, with no exchange of its own under way: a frame given now may count down
    /// its backoff (else the station is *blocked*, `lookahead`).
    pub fn may_access(&self) -> bool {
        self.access.idle_since.is_some() && self.exchange.is_none() && !self.busy()
    }

    /// Earliest queue expiry.
    pub fn expiry(&self) -> Time {
        self.used.iter().map(|&i| self.queues[i].access.expiry).min().unwrap_or(NEVER)
    }

    /// Records a unicast reception; true if it repeats the last one from `from`.
    pub fn is_duplicate(&mut self, from: u32, handle: u64) -> bool {
        match self.last_rx.iter_mut().find(|(f, _)| *f == from) {
            Some(e) if e.1 == handle => true,
            Some(e) => {
                e.1 = handle;
                false
            }
            None => {
                self.last_rx.push((from, handle));
                false
            }
        }
    }
}
