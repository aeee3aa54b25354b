//! Seamless redundancy (Wi-Red): every packet goes on two (or more) interfaces, each on
//! its own channel, so that one channel's loss is covered by the other's.
//!
//! The sender ([`RedundantSender`]) prefixes each payload with a small header (magic
//! `WR` and a 64-bit sequence number, [`HEADER_LEN`] bytes) and queues one copy per
//! interface, with the sequence number as the request id on each. When one copy is
//! acknowledged, the copies still queued on the other interfaces are cancelled
//! ([`sdmac_api::Interface::cancel`]); a copy already on air cannot be, and goes out.
//! The airtime saved is counted from the IEEE 802.11 airtime of each cancelled copy
//! (one attempt: DATA at the copy's first rate, SIFS and the ACK).
//!
//! The receiver ([`RedundantReceiver`]) reads every interface and passes each sequence
//! number up once ([`DuplicateFilter`]): the application never sees a duplicate.
//!
//! [`run`] drives a sender and a receiver through a plan of packets and returns a
//! [`RunReport`]: delivered, lost, latency percentiles, copies on air, copies
//! cancelled and airtime saved. [`Mode::OneChannel`] is the baseline on the first
//! interface only; [`Mode::TwoChannels`] sends every copy; [`Mode::TwoChannelsCancel`]
//! cancels the copies no longer needed.

use sdmac_api::{
    Ac, ApiError, Backend, Body, Confirmation, DropReason, Interface, MacAddress, Rate, RateSeries,
    Scope, Span, Status, Time, TxAttrs, Wait, MAX_ID, MAX_PAYLOAD,
};
use sdmac_phy::Phy;
use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::time::Duration;

/// The first two bytes of the overlay's header.
pub const MAGIC: [u8; 2] = *b"WR";

/// Length of the overlay's header: [`MAGIC`] and a big-endian 64-bit sequence number.
pub const HEADER_LEN: usize = 10;

/// Largest application payload a redundant packet can carry.
pub const MAX_APP_PAYLOAD: usize = MAX_PAYLOAD - HEADER_LEN;

/// Writes the header for `seq` and `payload` into `out` (replacing its contents).
pub fn encode(seq: u64, payload: &[u8], out: &mut Vec<u8>) {
    out.clear();
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&seq.to_be_bytes());
    out.extend_from_slice(payload);
}

/// Splits a received payload into its sequence number and application payload, or
/// None when it does not carry the overlay's header.
pub fn decode(bytes: &[u8]) -> Option<(u64, &[u8])> {
    if bytes.len() < HEADER_LEN || bytes[..2] != MAGIC {
        return None;
    }
    let seq = u64::from_be_bytes(bytes[2..HEADER_LEN].try_into().ok()?);
    Some((seq, &bytes[HEADER_LEN..]))
}

/// Why a redundant sender, receiver or run refused, or stopped.
#[derive(Debug, Clone, PartialEq)]
pub enum RedundancyError {
    /// Fewer than two interfaces were given.
    TooFewInterfaces {
        /// How many were given.
        given: usize,
    },
    /// Two interfaces are on the same channel: their losses would not be independent.
    SameChannel {
        /// The channel number.
        channel: i64,
        /// Index of the first interface on it.
        first: usize,
        /// Index of the second.
        second: usize,
    },
    /// A destination list whose length is not the number of interfaces.
    Destinations {
        /// Destinations given.
        given: usize,
        /// Interfaces.
        interfaces: usize,
    },
    /// An application payload too long for one frame with the header.
    PayloadTooLong {
        /// Its length (bytes).
        len: usize,
    },
    /// A run plan that cannot be carried out.
    Plan(String),
    /// A primitive failed on one interface.
    Api {
        /// Index of the interface.
        iface: usize,
        /// What it was doing.
        what: &'static str,
        /// The error.
        error: ApiError,
    },
    /// No confirmation or indication came for this long while some were due.
    Stalled {
        /// Copies still unconfirmed.
        unconfirmed: usize,
        /// How long nothing came (ms).
        ms: u64,
    },
}

impl fmt::Display for RedundancyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RedundancyError::TooFewInterfaces { given } => write!(
                f,
                "redundancy needs at least two interfaces on two channels; {given} given"
            ),
            RedundancyError::SameChannel { channel, first, second } => write!(
                f,
                "interfaces {first} and {second} are both on channel {channel}: redundancy needs a different channel on each"
            ),
            RedundancyError::Destinations { given, interfaces } => write!(
                f,
                "{given} destinations given for {interfaces} interfaces (one per interface)"
            ),
            RedundancyError::PayloadTooLong { len } => write!(
                f,
                "payload of {len} bytes is too long: at most {MAX_APP_PAYLOAD} with the {HEADER_LEN}-byte redundancy header"
            ),
            RedundancyError::Plan(m) => write!(f, "redundancy run plan: {m}"),
            RedundancyError::Api { iface, what, error } => {
                write!(f, "interface {iface}: {what}: {error}")
            }
            RedundancyError::Stalled { unconfirmed, ms } => write!(
                f,
                "no confirmation for {ms} ms with {unconfirmed} copies unconfirmed"
            ),
        }
    }
}

impl std::error::Error for RedundancyError {}

fn api(iface: usize, what: &'static str) -> impl FnOnce(ApiError) -> RedundancyError {
    move |error| RedundancyError::Api { iface, what, error }
}

/// Reads every interface's channel and refuses fewer than two interfaces or a channel
/// used twice.
fn check_channels<B: Backend>(ifaces: &mut [Interface<B>]) -> Result<Vec<i64>, RedundancyError> {
    if ifaces.len() < 2 {
        return Err(RedundancyError::TooFewInterfaces { given: ifaces.len() });
    }
    let mut channels = Vec::with_capacity(ifaces.len());
    for (k, i) in ifaces.iter_mut().enumerate() {
        let ch = i
            .get("channel", Scope::Adapter)
            .and_then(|v| v.to_int("channel"))
            .map_err(api(k, "reading its channel"))?;
        if let Some(first) = channels.iter().position(|&c| c == ch) {
            return Err(RedundancyError::SameChannel { channel: ch, first, second: k });
        }
        channels.push(ch);
    }
    Ok(channels)
}

/// How copies are sent.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The baseline: one copy, on the first interface only.
    OneChannel,
    /// One copy on every interface, none cancelled.
    TwoChannels,
    /// One copy on every interface; once one is acknowledged, the others still queued
    /// are cancelled.
    TwoChannelsCancel,
}

impl Mode {
    /// Short name: `one`, `two`, `two_cancel`.
    pub fn name(self) -> &'static str {
        match self {
            Mode::OneChannel => "one",
            Mode::TwoChannels => "two",
            Mode::TwoChannelsCancel => "two_cancel",
        }
    }

    /// The mode of a short name.
    pub fn from_name(s: &str) -> Option<Mode> {
        match s {
            "one" => Some(Mode::OneChannel),
            "two" => Some(Mode::TwoChannels),
            "two_cancel" => Some(Mode::TwoChannelsCancel),
            _ => None,
        }
    }
}

/// What a redundant sender sends with.
#[derive(Clone, Debug, PartialEq)]
pub struct SenderConfig {
    /// The receiver's address on each interface (one per interface, in order).
    pub dst: Vec<MacAddress>,
    /// Rate series of every copy (None: each interface's default series).
    pub rates: Option<RateSeries>,
    /// Access category.
    pub ac: Ac,
    /// How copies are sent.
    pub mode: Mode,
    /// PHY timing, for the airtime of cancelled copies.
    pub phy: Phy,
}

/// Counters of a sender.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct SenderStats {
    /// Packets sent (each with one copy per interface used).
    pub packets: u64,
    /// Packets for which some copy was acknowledged.
    pub acked: u64,
    /// Packets whose every copy finished without an acknowledgement.
    pub unacked: u64,
    /// Copies requested.
    pub copies: u64,
    /// Copies that went on air (at least one attempt).
    pub copies_on_air: u64,
    /// Attempts on air, over all copies.
    pub attempts_on_air: u64,
    /// Copies cancelled before their first attempt.
    pub copies_cancelled: u64,
    /// Cancellations asked for that came too late (the copy was on air or done).
    pub cancel_too_late: u64,
    /// Airtime of the cancelled copies, one attempt each (ns).
    pub airtime_saved_ns: u64,
}

#[derive(Debug)]
struct Pending {
    t_req: Time,
    open: Vec<bool>,
    acked: bool,
}

/// The sending side of seamless redundancy.
#[derive(Debug)]
pub struct RedundantSender<B: Backend> {
    ifaces: Vec<Interface<B>>,
    cfg: SenderConfig,
    first_rate: Vec<Rate>,
    next_seq: u64,
    pending: HashMap<u64, Pending>,
    acks: VecDeque<(u64, Time, Time)>,
    stats: SenderStats,
    buf: Vec<u8>,
    rr: usize,
}

impl<B: Backend> RedundantSender<B> {
    /// A sender over `ifaces`; refuses fewer than two interfaces, a channel used twice,
    /// or a destination list that does not match.
    pub fn new(
        mut ifaces: Vec<Interface<B>>,
        cfg: SenderConfig,
    ) -> Result<RedundantSender<B>, RedundancyError> {
        check_channels(&mut ifaces)?;
        if cfg.dst.len() != ifaces.len() {
            return Err(RedundancyError::Destinations {
                given: cfg.dst.len(),
                interfaces: ifaces.len(),
            });
        }
        let mut first_rate = Vec::with_capacity(ifaces.len());
        for (k, i) in ifaces.iter_mut().enumerate() {
            let series = match cfg.rates {
                Some(r) => r,
                None => i
                    .get("default_rates", Scope::Adapter)
                    .and_then(|v| v.to_rates("default_rates"))
                    .map_err(api(k, "reading its default rates"))?,
            };
            first_rate.push(series.entries()[0].0);
        }
        Ok(RedundantSender {
            ifaces,
            cfg,
            first_rate,
            next_seq: 0,
            pending: HashMap::new(),
            acks: VecDeque::new(),
            stats: SenderStats::default(),
            buf: Vec::with_capacity(MAX_PAYLOAD),
            rr: 0,
        })
    }

    fn used(&self) -> usize {
        match self.cfg.mode {
            Mode::OneChannel => 1,
            Mode::TwoChannels | Mode::TwoChannelsCancel => self.ifaces.len(),
        }
    }

    /// Sends `payload` on every interface the mode uses; returns its sequence number
    /// and the time it was requested. A request refused on one interface (e.g. a full
    /// queue) is an error; copies already queued on the others stay queued.
    pub fn send(&mut self, payload: &[u8]) -> Result<(u64, Time), RedundancyError> {
        if payload.len() > MAX_APP_PAYLOAD {
            return Err(RedundancyError::PayloadTooLong { len: payload.len() });
        }
        let seq = self.next_seq;
        if seq > MAX_ID {
            return Err(RedundancyError::Plan(format!(
                "sequence number {seq} is beyond the largest request id"
            )));
        }
        encode(seq, payload, &mut self.buf);
        let n = self.used();
        let t_req = self.ifaces[0].now();
        let mut p = Pending { t_req, open: vec![false; self.ifaces.len()], acked: false };
        for k in 0..n {
            let attrs =
                TxAttrs { dst: Some(self.cfg.dst[k]), rates: self.cfg.rates, ..TxAttrs::default() };
            let r = self.ifaces[k].data_req(seq, Body::Payload(&self.buf), self.cfg.ac, &attrs);
            if let Err(e) = r {
                if p.open.iter().any(|&o| o) {
                    self.next_seq += 1;
                    self.stats.packets += 1;
                    self.pending.insert(seq, p);
                }
                return Err(RedundancyError::Api { iface: k, what: "data_req", error: e });
            }
            p.open[k] = true;
            self.stats.copies += 1;
        }
        self.next_seq += 1;
        self.stats.packets += 1;
        self.pending.insert(seq, p);
        Ok((seq, t_req))
    }

    fn on_confirmation(&mut self, k: usize, c: &Confirmation) -> Result<(), RedundancyError> {
        let seq = c.id;
        let Some(p) = self.pending.get_mut(&seq) else { return Ok(()) };
        p.open[k] = false;
        if c.attempts > 0 {
            self.stats.copies_on_air += 1;
            self.stats.attempts_on_air += c.attempts as u64;
        }
        if c.status == Status::Dropped(DropReason::Cancelled) {
            let rate = self.first_rate[k];
            let phy = &self.cfg.phy;
            self.stats.airtime_saved_ns +=
                phy.airtime_ns(c.len, rate) + phy.sifs_ns + phy.ack_airtime_ns(rate);
        }
        if c.status == Status::Acked && !p.acked {
            p.acked = true;
            self.stats.acked += 1;
            let t = if c.ts.t5.is_zero() { self.ifaces[k].now() } else { c.ts.t5 };
            self.acks.push_back((seq, p.t_req, t));
            if self.cfg.mode == Mode::TwoChannelsCancel {
                let others: Vec<usize> = (0..p.open.len()).filter(|&j| p.open[j]).collect();
                for j in others {
                    if self.ifaces[j].cancel(seq).map_err(api(j, "cancel"))? {
                        self.stats.copies_cancelled += 1;
                    } else {
                        self.stats.cancel_too_late += 1;
                    }
                }
            }
        }
        let p = &self.pending[&seq];
        if !p.open.iter().any(|&o| o) {
            if !p.acked {
                self.stats.unacked += 1;
            }
            self.pending.remove(&seq);
        }
        Ok(())
    }

    /// Reads the confirmations that have come on every interface, waiting up to `wait`
    /// for the first; returns how many it read.
    pub fn poll(&mut self, wait: Wait) -> Result<usize, RedundancyError> {
        let deadline = wait.deadline(self.ifaces[0].now());
        let n = self.ifaces.len();
        loop {
            let mut got = 0;
            for k in 0..n {
                while let Some(c) =
                    self.ifaces[k].data_con(Wait::NoWait).map_err(api(k, "data_con"))?
                {
                    self.on_confirmation(k, &c)?;
                    got += 1;
                }
            }
            if got > 0 || self.ifaces[0].now() >= deadline {
                return Ok(got);
            }
            // Block briefly on one interface at a time, so that none is starved.
            self.rr = (self.rr + 1) % n;
            let k = self.rr;
            let left = deadline.saturating_since(self.ifaces[0].now());
            let step = Duration::from_nanos(left.as_ns().min(50_000));
            if let Some(c) = self.ifaces[k].data_con(Wait::For(step)).map_err(api(k, "data_con"))? {
                self.on_confirmation(k, &c)?;
                return Ok(1);
            }
        }
    }

    /// The next acknowledgement not yet taken: (sequence number, time it was
    /// requested, time the MAC knew of the first ACK).
    pub fn take_ack(&mut self) -> Option<(u64, Time, Time)> {
        self.acks.pop_front()
    }

    /// Packets with a copy not yet confirmed.
    pub fn in_flight(&self) -> usize {
        self.pending.len()
    }

    /// The counters so far.
    pub fn stats(&self) -> SenderStats {
        self.stats
    }

    /// The current time on the first interface's clock.
    pub fn now(&self) -> Time {
        self.ifaces[0].now()
    }

    /// The interfaces back.
    pub fn into_interfaces(self) -> Vec<Interface<B>> {
        self.ifaces
    }
}

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

/// A run: how many packets, how big, how fast.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct RunPlan {
    /// Packets to send.
    pub packets: u32,
    /// Application payload of each (bytes).
    pub payload_len: usize,
    /// Time between two packets (zero: as fast as the window allows).
    pub spacing: Span,
    /// Most packets in flight (requested and not yet confirmed on every interface).
    pub window: usize,
    /// How long the run waits for the last copies before it gives up (ms).
    pub stall_ms: u64,
}

impl Default for RunPlan {
    fn default() -> Self {
        RunPlan { packets: 200, payload_len: 100, spacing: Span::ZERO, window: 16, stall_ms: 2000 }
    }
}

impl RunPlan {
    /// Refuses a plan that cannot be run: no packets, a payload too long, a zero
    /// window or no stall timeout.
    pub fn check(&self) -> Result<(), RedundancyError> {
        if self.packets == 0 {
            return Err(RedundancyError::Plan("no packets to send (packets = 0)".into()));
        }
        if self.payload_len > MAX_APP_PAYLOAD {
            return Err(RedundancyError::PayloadTooLong { len: self.payload_len });
        }
        if self.window == 0 {
            return Err(RedundancyError::Plan("window is 0: nothing could ever be sent".into()));
        }
        if self.stall_ms == 0 {
            return Err(RedundancyError::Plan("stall_ms is 0: the run could not wait".into()));
        }
        Ok(())
    }
}

/// Percentiles of a set of latencies (ns).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Percentiles {
    /// Median.
    pub p50: u64,
    /// 90th percentile.
    pub p90: u64,
    /// 99th percentile.
    pub p99: u64,
    /// Largest.
    pub max: u64,
}

impl Percentiles {
    /// Nearest-rank percentiles of `v` (all zero when it is empty).
    pub fn of(v: &mut [u64]) -> Percentiles {
        if v.is_empty() {
            return Percentiles::default();
        }
        v.sort_unstable();
        let at = |q: f64| v[((q * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1];
        Percentiles { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: v[v.len() - 1] }
    }
}

/// What a run shows.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct RunReport {
    /// The mode it ran in.
    pub mode: Mode,
    /// Packets sent.
    pub sent: u64,
    /// Packets the receiver passed up (each once).
    pub delivered: u64,
    /// Packets never passed up.
    pub lost: u64,
    /// Copies the receiver dropped as duplicates.
    pub duplicates_dropped: u64,
    /// Packets the receiver passed up more than once (always 0 unless the filter fails).
    pub duplicates_delivered: u64,
    /// Latency from the request to the end on air of the first copy received (ns;
    /// both on `CLOCK_MONOTONIC`, so sender and receiver share the host's clock).
    pub latency: Percentiles,
    /// Latency from the request to the first acknowledgement known at the MAC (ns):
    /// the sender's own view, which needs no shared clock.
    pub ack_latency: Percentiles,
    /// The sender's counters (copies on air, cancelled, airtime saved).
    pub sender: SenderStats,
}

/// Runs `plan` from `tx` to `rx` (on one host: the latency needs one clock).
pub fn run<B: Backend, R: Backend>(
    tx: &mut RedundantSender<B>,
    rx: &mut RedundantReceiver<R>,
    plan: &RunPlan,
) -> Result<RunReport, RedundancyError> {
    plan.check()?;
    let payload = vec![0x5a_u8; plan.payload_len];
    let before_tx = tx.stats();
    let before_rx = rx.stats();
    let mut t_req: HashMap<u64, Time> = HashMap::new();
    let mut seen: HashMap<u64, u32> = HashMap::new();
    let mut lat = Vec::with_capacity(plan.packets as usize);
    while tx.take_ack().is_some() {}
    let start = tx.now();
    let mut sent = 0u32;
    let mut last_progress = start;
    let stall = Span::from_ms(plan.stall_ms);
    loop {
        let now = tx.now();
        let due = start.saturating_add(plan.spacing.saturating_mul(sent as u64));
        let mut progress = false;
        if sent < plan.packets && tx.in_flight() < plan.window && now >= due {
            let (seq, t) = tx.send(&payload)?;
            t_req.insert(seq, t);
            sent += 1;
            progress = true;
        }
        if tx.poll(Wait::NoWait)? > 0 {
            progress = true;
        }
        while let Some(d) = rx.recv(Wait::NoWait)? {
            progress = true;
            let n = seen.entry(d.seq).or_insert(0);
            *n += 1;
            if *n == 1 {
                if let Some(t) = t_req.get(&d.seq) {
                    lat.push(d.t_end.saturating_since(*t).as_ns());
                }
            }
        }
        let now = tx.now();
        if progress {
            last_progress = now;
        }
        if sent == plan.packets && tx.in_flight() == 0 {
            // Every copy is confirmed: what was received has been published. Read the
            // rest of the indications.
            while let Some(d) = rx.recv(Wait::For(Duration::from_millis(5)))? {
                let n = seen.entry(d.seq).or_insert(0);
                *n += 1;
                if *n == 1 {
                    if let Some(t) = t_req.get(&d.seq) {
                        lat.push(d.t_end.saturating_since(*t).as_ns());
                    }
                }
            }
            break;
        }
        if now.saturating_since(last_progress) > stall {
            return Err(RedundancyError::Stalled {
                unconfirmed: tx.in_flight(),
                ms: plan.stall_ms,
            });
        }
        if !progress {
            // Nothing to do now: wait for a confirmation, at most until the next packet.
            let wait_ns = if sent < plan.packets && tx.in_flight() < plan.window {
                due.saturating_since(tx.now()).as_ns().min(50_000)
            } else {
                50_000
            };
            tx.poll(Wait::For(Duration::from_nanos(wait_ns)))?;
        }
    }
    let s = tx.stats();
    let r = rx.stats();
    let delivered = seen.len() as u64;
    let sender = SenderStats {
        packets: s.packets - before_tx.packets,
        acked: s.acked - before_tx.acked,
        unacked: s.unacked - before_tx.unacked,
        copies: s.copies - before_tx.copies,
        copies_on_air: s.copies_on_air - before_tx.copies_on_air,
        attempts_on_air: s.attempts_on_air - before_tx.attempts_on_air,
        copies_cancelled: s.copies_cancelled - before_tx.copies_cancelled,
        cancel_too_late: s.cancel_too_late - before_tx.cancel_too_late,
        airtime_saved_ns: s.airtime_saved_ns - before_tx.airtime_saved_ns,
    };
    let mut ack_lat = Vec::with_capacity(plan.packets as usize);
    while let Some((_, t_req, t_ack)) = tx.take_ack() {
        ack_lat.push(t_ack.saturating_since(t_req).as_ns());
    }
    Ok(RunReport {
        mode: tx.cfg.mode,
        sent: sent as u64,
        delivered,
        lost: sent as u64 - delivered.min(sent as u64),
        duplicates_dropped: r.duplicates_dropped - before_rx.duplicates_dropped,
        duplicates_delivered: seen.values().filter(|&&n| n > 1).count() as u64,
        latency: Percentiles::of(&mut lat),
        ack_latency: Percentiles::of(&mut ack_lat),
        sender,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trip() {
        let mut b = Vec::new();
        encode(0x0102_0304_0506_0708, b"hello", &mut b);
        assert_eq!(b.len(), HEADER_LEN + 5);
        assert_eq!(decode(&b), Some((0x0102_0304_0506_0708, &b"hello"[..])));
        assert_eq!(decode(b"WR"), None);
        assert_eq!(decode(b"XX\0\0\0\0\0\0\0\0abc"), None);
    }

    #[test]
    fn filter_accepts_each_number_once() {
        let mut f = DuplicateFilter::new();
        assert!(f.accept(5));
        assert!(!f.accept(5));
        assert!(f.accept(3));
        assert!(!f.accept(3));
        assert!(f.accept(7));
        assert!(f.accept(6));
        assert!(!f.accept(6));
        // Far ahead: the window slides, old numbers are duplicates.
        assert!(f.accept(5000));
        assert!(!f.accept(7));
        assert!(f.accept(4999));
        assert!(!f.accept(4999));
        // A number whose slot was used by an older one is new again once it slides in.
        assert!(f.accept(5000 + DuplicateFilter::WINDOW - 1));
        assert!(f.accept(5000 + DuplicateFilter::WINDOW + 1));
        assert!(!f.accept(5000 + DuplicateFilter::WINDOW + 1));
    }

    #[test]
    fn plan_refusals() {
        let ok = RunPlan::default();
        assert!(ok.check().is_ok());
        let e = RunPlan { packets: 0, ..ok }.check().unwrap_err();
        assert!(e.to_string().contains("packets = 0"), "{e}");
        let e = RunPlan { window: 0, ..ok }.check().unwrap_err();
        assert!(e.to_string().contains("window is 0"), "{e}");
        let e = RunPlan { payload_len: MAX_APP_PAYLOAD + 1, ..ok }.check().unwrap_err();
        assert!(matches!(e, RedundancyError::PayloadTooLong { .. }), "{e}");
        let e = RunPlan { stall_ms: 0, ..ok }.check().unwrap_err();
        assert!(e.to_string().contains("stall_ms"), "{e}");
    }

    #[test]
    fn percentiles_by_nearest_rank() {
        let mut v: Vec<u64> = (1..=100).collect();
        let p = Percentiles::of(&mut v);
        assert_eq!((p.p50, p.p90, p.p99, p.max), (50, 90, 99, 100));
        assert_eq!(Percentiles::of(&mut []), Percentiles::default());
    }

    #[test]
    fn modes_by_name() {
        for m in [Mode::OneChannel, Mode::TwoChannels, Mode::TwoChannelsCancel] {
            assert_eq!(Mode::from_name(m.name()), Some(m));
        }
        assert_eq!(Mode::from_name("three"), None);
    }
}
