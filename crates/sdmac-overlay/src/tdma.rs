//! TDMA above DCF, in the manner of TBMAC: time is divided into rounds; a round is a
//! contention-free period of assigned slots, one station per slot, followed by a
//! contention period in which stations ask a coordinator for a slot. Requests and
//! grants are ordinary data frames.
//!
//! # Time base
//!
//! Slot start times are computed from a time base every station shares. On emu it is
//! the medium's clock, which is `CLOCK_MONOTONIC` on every interface of a session
//! ([`sdmac_api::Interface::now`]). Elsewhere it is the AP's TSF, carried by beacons;
//! [`TsfSync`] maps it onto the local clock (see there for the algorithm), and its
//! [`TsfSync::error`] is the synchronisation error that goes into the guard.
//!
//! # Guard interval
//!
//! Within its slot, a station starts an exchange only once the guard has passed since
//! the slot opened, and only if the exchange ends a guard before the slot closes. The
//! guard is the spread of the backend's request path (t_start − t1 over a probe burst,
//! [`measure_jitter`]) plus the synchronisation error; [`Guard`] keeps both, and a
//! [`TdmaPlan`] prints them.
//!
//! # Refusals
//!
//! [`TdmaPlan::new`] refuses, before anything is sent: no slots, slots (and the
//! contention period) that do not fit the round, a guard that leaves nothing of a
//! slot, a frame whose exchange does not fit in a slot, and a contention period too
//! short for a request and its grant.

use crate::exchange::{confirmation_of, mpdu_len, try_ns, wait_until};
use crate::retransmit::CONFIRMATION_LIMIT;
use sdmac_api::{
    Ac, ApiError, Backend, BeaconInd, Body, Confirmation, DropReason, FrameClass, Indication,
    Interface, MacAddress, Rate, RateSeries, Span, Status, Time, TxAttrs, Wait,
};
use sdmac_phy::Phy;
use std::fmt;

/// The guard interval and where it comes from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Guard {
    /// Spread of the backend's request path (t_start − t1) over a probe burst.
    pub jitter: Span,
    /// Error of the shared time base (zero for the medium's clock on emu).
    pub sync_error: Span,
}

impl Guard {
    /// Jitter plus synchronisation error.
    pub fn total(&self) -> Span {
        self.jitter + self.sync_error
    }
}

impl fmt::Display for Guard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:.1} µs = request-path jitter {:.1} µs + synchronisation error {:.1} µs",
            self.total().as_us_f64(),
            self.jitter.as_us_f64(),
            self.sync_error.as_us_f64()
        )
    }
}

/// The request path measured by [`measure_jitter`].
#[derive(Clone, Debug, PartialEq)]
pub struct JitterReport {
    /// t_start − t1 of every probe.
    pub latencies: Vec<Span>,
    /// The shortest.
    pub min: Span,
    /// The longest.
    pub max: Span,
}

impl JitterReport {
    /// The spread, max − min: the jitter the guard must absorb.
    pub fn spread(&self) -> Span {
        self.max - self.min
    }
}

/// What went wrong in TDMA.
#[derive(Clone, Debug, PartialEq)]
pub enum TdmaError {
    /// The plan has no slot.
    NoSlots,
    /// The slots and the contention period take longer than the round.
    SlotsDoNotFit {
        /// Slots.
        slots: u32,
        /// Length of each.
        slot: Span,
        /// The contention period.
        contention: Span,
        /// The round.
        round: Span,
    },
    /// The guards at both ends of a slot leave no time in it.
    GuardLargerThanSlot {
        /// The guard.
        guard: Span,
        /// The slot.
        slot: Span,
    },
    /// One exchange of the frame, with both guards, does not fit in a slot.
    FrameDoesNotFit {
        /// MPDU length (bytes, FCS included).
        len: u32,
        /// Its rate.
        rate: Rate,
        /// The time one exchange needs.
        exchange: Span,
        /// The time a slot leaves between its guards.
        usable: Span,
    },
    /// The contention period cannot hold a request and its grant.
    ContentionTooShort {
        /// The contention period.
        contention: Span,
        /// What a request and a grant need.
        needed: Span,
    },
    /// The rate is not one of the PHY's.
    BadRate(Rate),
    /// A measurement had nothing to work with.
    Measurement(String),
    /// No grant came within the rounds allowed.
    NoGrant {
        /// Rounds tried.
        rounds: u32,
    },
    /// The backend gave no confirmation for a request within [`CONFIRMATION_LIMIT`].
    NoConfirmation {
        /// The request.
        id: u64,
    },
    /// A primitive failed.
    Api(ApiError),
}

impl fmt::Display for TdmaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TdmaError::NoSlots => write!(f, "TDMA plan: zero slots"),
            TdmaError::SlotsDoNotFit { slots, slot, contention, round } => write!(
                f,
                "TDMA plan: {slots} slots of {slot} and a contention period of {contention} do not fit a round of {round}"
            ),
            TdmaError::GuardLargerThanSlot { guard, slot } => write!(
                f,
                "TDMA plan: a guard of {guard} at each end of a slot of {slot} leaves no time to send"
            ),
            TdmaError::FrameDoesNotFit { len, rate, exchange, usable } => write!(
                f,
                "TDMA plan: a {len} B frame at {rate} needs {exchange} per exchange but a slot leaves {usable} between its guards"
            ),
            TdmaError::ContentionTooShort { contention, needed } => write!(
                f,
                "TDMA plan: a contention period of {contention} cannot hold a request and its grant ({needed})"
            ),
            TdmaError::BadRate(r) => write!(f, "TDMA plan: rate {r} is not a rate of this PHY"),
            TdmaError::Measurement(m) => write!(f, "TDMA measurement: {m}"),
            TdmaError::NoGrant { rounds } => {
                write!(f, "TDMA: no slot granted in {rounds} contention periods")
            }
            TdmaError::NoConfirmation { id } => {
                write!(f, "TDMA: no confirmation for request {id} within {CONFIRMATION_LIMIT}")
            }
            TdmaError::Api(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for TdmaError {}

impl From<ApiError> for TdmaError {
    fn from(e: ApiError) -> Self {
        TdmaError::Api(e)
    }
}

/// What a plan is made of.
#[derive(Clone, Debug, PartialEq)]
pub struct TdmaParams {
    /// The PHY (for airtimes).
    pub phy: Phy,
    /// Length of a round.
    pub round: Span,
    /// Slots in the contention-free period.
    pub slots: u32,
    /// Length of each slot.
    pub slot: Span,
    /// Length of the contention period (at least; the rest of the round is added to it).
    pub contention: Span,
    /// The guard.
    pub guard: Guard,
    /// Payload bytes of the data frames sent in slots.
    pub payload: usize,
    /// Their rate.
    pub rate: Rate,
    /// Start of round 0 on the shared time base.
    pub epoch: Time,
}

/// A checked TDMA plan.
#[derive(Clone, Debug, PartialEq)]
pub struct TdmaPlan {
    p: TdmaParams,
    exchange: Span,
    control: Span,
}

/// Payload bytes of a request or grant frame.
const CONTROL_PAYLOAD: usize = 16;
const MAGIC: &[u8; 4] = b"TBMA";
const KIND_REQUEST: u8 = 1;
const KIND_GRANT: u8 = 2;

/// One exchange in a slot: DIFS, the longest first backoff (CWmin slots: the station
/// may be in post-backoff after its previous frame), then one try.
fn exchange_ns(phy: &Phy, len: u32, rate: Rate) -> u64 {
    phy.difs_ns() + u64::from(phy.cw_min) * phy.slot_ns + try_ns(phy, len, rate)
}

impl TdmaPlan {
    /// Checks `p` and makes the plan, or says what cannot work.
    pub fn new(p: TdmaParams) -> Result<TdmaPlan, TdmaError> {
        if p.slots == 0 {
            return Err(TdmaError::NoSlots);
        }
        if !p.phy.standard.supports(p.rate) {
            return Err(TdmaError::BadRate(p.rate));
        }
        let cfp = p.slot.saturating_mul(u64::from(p.slots));
        if cfp.saturating_add(p.contention) > p.round || p.slot.is_zero() {
            return Err(TdmaError::SlotsDoNotFit {
                slots: p.slots,
                slot: p.slot,
                contention: p.contention,
                round: p.round,
            });
        }
        let g = p.guard.total();
        if g.saturating_mul(2) >= p.slot {
            return Err(TdmaError::GuardLargerThanSlot { guard: g, slot: p.slot });
        }
        let len = mpdu_len(p.payload);
        let exchange = Span::from_ns(exchange_ns(&p.phy, len, p.rate));
        let usable = p.slot - g.saturating_mul(2);
        if exchange > usable {
            return Err(TdmaError::FrameDoesNotFit { len, rate: p.rate, exchange, usable });
        }
        let control = Span::from_ns(exchange_ns(&p.phy, mpdu_len(CONTROL_PAYLOAD), p.rate));
        let needed = control.saturating_mul(2) + g.saturating_mul(2);
        let contention = p.round - cfp;
        if contention < needed {
            return Err(TdmaError::ContentionTooShort { contention, needed });
        }
        Ok(TdmaPlan { p, exchange, control })
    }

    /// The time one data exchange of `payload` bytes at `rate` is given in a slot:
    /// DIFS, CWmin backoff slots (the station may be in post-backoff), DATA, and the
    /// longer of SIFS + ACK and the ACKTimeout.
    pub fn exchange_for(phy: &Phy, payload: usize, rate: Rate) -> Span {
        Span::from_ns(exchange_ns(phy, mpdu_len(payload), rate))
    }

    /// The same plan with round 0 starting at TSF instant `epoch_tsf_ns`, mapped onto
    /// the local clock by `sync` (for a station whose time base is the AP's TSF);
    /// `None` before `sync` has seen a beacon. Re-map after new beacons to follow the
    /// drift.
    pub fn on_tsf(&self, sync: &TsfSync, epoch_tsf_ns: u64) -> Option<TdmaPlan> {
        let epoch = sync.to_local(epoch_tsf_ns)?;
        Some(TdmaPlan { p: TdmaParams { epoch, ..self.p.clone() }, ..self.clone() })
    }

    /// The parameters.
    pub fn params(&self) -> &TdmaParams {
        &self.p
    }

    /// The time one data exchange is given in a slot.
    pub fn exchange(&self) -> Span {
        self.exchange
    }

    /// Exchanges that fit in one slot between its guards.
    pub fn frames_per_slot(&self) -> u64 {
        (self.p.slot - self.p.guard.total().saturating_mul(2)).as_ns() / self.exchange.as_ns()
    }

    /// Start of round `k`.
    pub fn round_start(&self, k: u64) -> Time {
        self.p.epoch.saturating_add(self.p.round.saturating_mul(k))
    }

    /// The round under way at `t` (0 before the epoch).
    pub fn round_at(&self, t: Time) -> u64 {
        t.saturating_since(self.p.epoch).as_ns() / self.p.round.as_ns()
    }

    /// Where slot `s` of round `k` may be used: from its start plus the guard to its
    /// end minus the guard.
    pub fn slot_window(&self, k: u64, s: u32) -> (Time, Time) {
        let start = self.round_start(k).saturating_add(self.p.slot.saturating_mul(u64::from(s)));
        let g = self.p.guard.total();
        (start + g, start + self.p.slot - g)
    }

    /// Where the contention period of round `k` may be used (guards inside it too).
    pub fn contention_window(&self, k: u64) -> (Time, Time) {
        let start =
            self.round_start(k).saturating_add(self.p.slot.saturating_mul(u64::from(self.p.slots)));
        let g = self.p.guard.total();
        (start + g, self.round_start(k + 1) - g)
    }
}

impl fmt::Display for TdmaPlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = &self.p;
        let cfp = p.slot.saturating_mul(u64::from(p.slots));
        writeln!(
            f,
            "TDMA round {:.1} µs: {} slots of {:.1} µs, contention period {:.1} µs",
            p.round.as_us_f64(),
            p.slots,
            p.slot.as_us_f64(),
            (p.round - cfp).as_us_f64()
        )?;
        writeln!(f, "guard {}", p.guard)?;
        write!(
            f,
            "frame {} B at {}: {:.1} µs per exchange (DIFS + CWmin backoff + DATA + ACK), {} per slot",
            mpdu_len(p.payload),
            p.rate,
            self.exchange.as_us_f64(),
            self.frames_per_slot()
        )
    }
}

/// Measures the request path's jitter: `probes` one-try frames to `dst` at `rate`,
/// one at a time, each `gap` after the previous outcome (long enough for the medium
/// to be idle and any post-backoff over), and the spread of t_start − t1 from their
/// confirmations.
pub fn measure_jitter<B: Backend>(
    iface: &mut Interface<B>,
    dst: MacAddress,
    rate: Rate,
    probes: u32,
    gap: Span,
) -> Result<JitterReport, TdmaError> {
    if probes < 2 {
        return Err(TdmaError::Measurement(format!(
            "{probes} probes cannot show a spread (at least 2)"
        )));
    }
    let attrs = TxAttrs {
        dst: Some(dst),
        rates: Some(RateSeries::single(rate, 1)),
        no_ack: false,
        timestamps: true,
    };
    let mut lat = Vec::with_capacity(probes as usize);
    let mut next = iface.now();
    for k in 0..probes {
        let _not_ours = wait_until(iface, next)?;
        let id = (1 << 61) + u64::from(k);
        iface.data_req(id, Body::Payload(&[0u8; CONTROL_PAYLOAD]), Ac::Be, &attrs)?;
        let c = read_con(iface, id)?;
        if c.ts.t1.is_zero() || c.ts.t_start.is_zero() {
            return Err(TdmaError::Measurement(
                "the backend recorded no t1 or t_start for a probe".into(),
            ));
        }
        lat.push(c.ts.t_start.saturating_since(c.ts.t1));
        next = iface.now() + gap;
    }
    let min = *lat.iter().min().expect("probes");
    let max = *lat.iter().max().expect("probes");
    Ok(JitterReport { latencies: lat, min, max })
}

fn read_con<B: Backend>(iface: &mut Interface<B>, id: u64) -> Result<Confirmation, TdmaError> {
    confirmation_of(iface, id, CONFIRMATION_LIMIT)?.ok_or(TdmaError::NoConfirmation { id })
}

/// TSF synchronisation from beacons.
///
/// Every beacon carries the AP's TSF (µs). For beacon `i`, let `l_i` be the local time
/// (`CLOCK_MONOTONIC`, ns) at which its frame started on air, as the backend reports
/// it, and `s_i = 1000 · tsf_i`. The local clock and the TSF are modelled as
/// `l = s + offset + drift · (s − s_0)`; the offset and drift are fitted by least
/// squares over the last `window` beacons. The synchronisation error is the largest
/// residual of the fit plus the TSF's resolution (1 µs); with fewer than 3 beacons the
/// drift is taken as 0. A constant delay between the frame start and the moment the
/// AP stamped the TSF (802.11 stamps the timestamp field's first bit; emu stamps the
/// frame start) is the same for every station that hears the AP, so it shifts every
/// station's slots alike and does not separate them.
#[derive(Clone, Debug, PartialEq)]
pub struct TsfSync {
    window: usize,
    samples: Vec<(u64, u64)>,
    fit: Option<(f64, f64, f64)>,
    error_ns: u64,
}

impl TsfSync {
    /// A synchroniser that fits over the last `window` beacons (at least 2).
    pub fn new(window: usize) -> TsfSync {
        TsfSync { window: window.max(2), samples: Vec::new(), fit: None, error_ns: 0 }
    }

    /// Adds a beacon whose TSF the backend reported (`tsf_us`); false if it had none.
    pub fn observe_beacon(&mut self, b: &BeaconInd) -> bool {
        match b.tsf_us {
            Some(tsf) => {
                self.observe(tsf, b.t_start);
                true
            }
            None => false,
        }
    }

    /// Adds a beacon received as a management frame (`rx_management` on): its TSF is
    /// read from the frame's timestamp field. False if the frame is not a beacon.
    pub fn observe_frame(&mut self, ind: &Indication, bytes: &[u8]) -> bool {
        if ind.class != FrameClass::Management || bytes.len() < 32 || bytes[0] != 0x80 {
            return false;
        }
        let mut ts = [0u8; 8];
        ts.copy_from_slice(&bytes[24..32]);
        self.observe(u64::from_le_bytes(ts), ind.rx.t_start);
        true
    }

    /// Adds one (TSF µs, local frame start) pair.
    pub fn observe(&mut self, tsf_us: u64, local: Time) {
        self.samples.push((tsf_us * 1000, local.as_ns()));
        if self.samples.len() > self.window {
            self.samples.remove(0);
        }
        self.refit();
    }

    fn refit(&mut self) {
        let n = self.samples.len();
        if n == 0 {
            return;
        }
        let (s0, _) = self.samples[0];
        // Offsets l − s relative to the first sample's, as functions of s − s0.
        let pts: Vec<(f64, f64)> =
            self.samples.iter().map(|&(s, l)| ((s - s0) as f64, l as f64 - s as f64)).collect();
        let mx = pts.iter().map(|p| p.0).sum::<f64>() / n as f64;
        let my = pts.iter().map(|p| p.1).sum::<f64>() / n as f64;
        let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
        let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
        let drift = if n >= 3 && sxx > 0.0 { sxy / sxx } else { 0.0 };
        let offset = my - drift * mx;
        let worst = pts.iter().map(|p| (p.1 - offset - drift * p.0).abs()).fold(0.0, f64::max);
        self.fit = Some((s0 as f64, offset, drift));
        self.error_ns = worst.ceil() as u64 + 1000;
    }

    /// Beacons in the window.
    pub fn samples(&self) -> usize {
        self.samples.len()
    }

    /// The synchronisation error (largest residual + 1 µs), once a beacon was seen.
    pub fn error(&self) -> Option<Span> {
        self.fit.map(|_| Span::from_ns(self.error_ns))
    }

    /// The estimated local time − TSF (ns) at TSF `tsf_ns`.
    pub fn offset_at(&self, tsf_ns: u64) -> Option<f64> {
        let (s0, offset, drift) = self.fit?;
        Some(offset + drift * (tsf_ns as f64 - s0))
    }

    /// The local time of TSF instant `tsf_ns`.
    pub fn to_local(&self, tsf_ns: u64) -> Option<Time> {
        let o = self.offset_at(tsf_ns)?;
        Some(Time::from_ns((tsf_ns as f64 + o).round().max(0.0) as u64))
    }
}

fn control_frame(kind: u8, slot: u32) -> [u8; CONTROL_PAYLOAD] {
    let mut b = [0u8; CONTROL_PAYLOAD];
    b[..4].copy_from_slice(MAGIC);
    b[4] = kind;
    b[5..9].copy_from_slice(&slot.to_le_bytes());
    b
}

fn parse_control(payload: &[u8]) -> Option<(u8, u32)> {
    if payload.len() < 9 || &payload[..4] != MAGIC {
        return None;
    }
    Some((payload[4], u32::from_le_bytes(payload[5..9].try_into().ok()?)))
}

/// What the coordinator saw.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CoordinatorReport {
    /// The stations granted a slot, by slot.
    pub granted: Vec<MacAddress>,
    /// Requests refused because every slot was taken.
    pub refused: u32,
    /// Data frames received (not counting requests), per slot.
    pub received: Vec<u64>,
}

/// The coordinator: grants slots to stations that ask in a contention period, and
/// counts what it receives.
#[derive(Debug)]
pub struct Coordinator<'a, B: Backend> {
    iface: &'a mut Interface<B>,
    plan: TdmaPlan,
    report: CoordinatorReport,
    pending: Vec<(MacAddress, u32)>,
    next_id: u64,
}

impl<'a, B: Backend> Coordinator<'a, B> {
    /// A coordinator on `iface` for `plan`.
    pub fn new(iface: &'a mut Interface<B>, plan: TdmaPlan) -> Coordinator<'a, B> {
        let n = plan.params().slots as usize;
        Coordinator {
            iface,
            plan,
            report: CoordinatorReport { received: vec![0; n], ..Default::default() },
            pending: Vec::new(),
            next_id: 1,
        }
    }

    /// Serves requests and counts frames until `end` (backend clock). Grants are sent
    /// only inside a contention period, where they fit.
    pub fn run_until(&mut self, end: Time) -> Result<&CoordinatorReport, TdmaError> {
        let mut buf = Vec::with_capacity(2400);
        loop {
            let now = self.iface.now();
            if now >= end {
                break;
            }
            self.send_grants(now)?;
            // Drain confirmations of grants.
            while self.iface.data_con(Wait::NoWait)?.is_some() {}
            let left: std::time::Duration = (end - now).into();
            let wait = left.min(std::time::Duration::from_micros(500));
            let Some(ind) = self.iface.data_ind(&mut buf, Wait::For(wait))? else { continue };
            if ind.class != FrameClass::Data || ind.duplicate {
                continue;
            }
            let payload = &buf[ind.payload_offset.min(buf.len())..];
            match parse_control(payload) {
                Some((KIND_REQUEST, _)) => self.request(ind.src),
                Some(_) => {}
                None => {
                    if let Some(s) = self.report.granted.iter().position(|a| *a == ind.src) {
                        self.report.received[s] += 1;
                    }
                }
            }
        }
        Ok(&self.report)
    }

    fn request(&mut self, src: MacAddress) {
        let slot = match self.report.granted.iter().position(|a| *a == src) {
            Some(s) => s as u32,
            None if self.report.granted.len() < self.plan.params().slots as usize => {
                self.report.granted.push(src);
                (self.report.granted.len() - 1) as u32
            }
            None => {
                self.report.refused += 1;
                return;
            }
        };
        if !self.pending.iter().any(|(a, _)| *a == src) {
            self.pending.push((src, slot));
        }
    }

    fn send_grants(&mut self, now: Time) -> Result<(), TdmaError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let k = self.plan.round_at(now);
        let (open, close) = self.plan.contention_window(k);
        if now < open || now + self.plan.control > close {
            return Ok(());
        }
        let (dst, slot) = self.pending.remove(0);
        let attrs = TxAttrs {
            dst: Some(dst),
            rates: Some(RateSeries::single(self.plan.params().rate, 4)),
            no_ack: false,
            timestamps: true,
        };
        let id = self.next_id;
        self.next_id += 1;
        self.iface.data_req(id, Body::Payload(&control_frame(KIND_GRANT, slot)), Ac::Be, &attrs)?;
        Ok(())
    }
}

/// What a station saw in its slots.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StationReport {
    /// Its slot.
    pub slot: u32,
    /// Data frames sent in slots.
    pub sent: u64,
    /// Of them, acknowledged.
    pub acked: u64,
    /// Attempts lost to collisions (from the confirmations' truth, where the backend
    /// knows it).
    pub collisions: u64,
    /// Frames withdrawn (cancelled while still queued) because their exchange could no
    /// longer end inside the slot.
    pub withdrawn: u64,
    /// Frames whose exchange started before their slot's window opened or ended after
    /// it closed (from the confirmation timestamps).
    pub outside_window: u64,
}

/// A station of the TDMA schedule.
#[derive(Debug)]
pub struct TdmaStation<'a, B: Backend> {
    iface: &'a mut Interface<B>,
    plan: TdmaPlan,
    coordinator: MacAddress,
    slot: Option<u32>,
    next_id: u64,
}

impl<'a, B: Backend> TdmaStation<'a, B> {
    /// A station on `iface` for `plan`, asking `coordinator` for its slot.
    pub fn new(
        iface: &'a mut Interface<B>,
        plan: TdmaPlan,
        coordinator: MacAddress,
    ) -> TdmaStation<'a, B> {
        TdmaStation { iface, plan, coordinator, slot: None, next_id: 1 }
    }

    /// The slot granted, once it is.
    pub fn slot(&self) -> Option<u32> {
        self.slot
    }

    /// Asks for a slot in the next contention periods, at most `rounds` of them;
    /// returns the slot granted.
    pub fn join(&mut self, rounds: u32) -> Result<u32, TdmaError> {
        let now = self.iface.now();
        let mut buf = Vec::with_capacity(2400);
        let first = self.plan.round_at(now);
        for k in first..first + u64::from(rounds) {
            let (open, close) = self.plan.contention_window(k);
            let now = self.iface.now();
            if now + self.plan.control > close {
                continue;
            }
            let _not_ours = wait_until(self.iface, open)?;
            let attrs = TxAttrs {
                dst: Some(self.coordinator),
                rates: Some(RateSeries::single(self.plan.params().rate, 4)),
                no_ack: false,
                timestamps: true,
            };
            let id = self.take_id();
            self.iface.data_req(
                id,
                Body::Payload(&control_frame(KIND_REQUEST, 0)),
                Ac::Be,
                &attrs,
            )?;
            // The grant comes in this contention period or a later one: wait until the
            // next one closes.
            let until = self.plan.contention_window(k + 1).1;
            loop {
                let now = self.iface.now();
                if now >= until {
                    break;
                }
                while self.iface.data_con(Wait::NoWait)?.is_some() {}
                let w: std::time::Duration = (until - now).into();
                let w = w.min(std::time::Duration::from_millis(1));
                let Some(ind) = self.iface.data_ind(&mut buf, Wait::For(w))? else { continue };
                if ind.class != FrameClass::Data || ind.src != self.coordinator {
                    continue;
                }
                if let Some((KIND_GRANT, s)) = parse_control(&buf[ind.payload_offset..]) {
                    while self.iface.data_con(Wait::NoWait)?.is_some() {}
                    self.slot = Some(s);
                    return Ok(s);
                }
            }
        }
        Err(TdmaError::NoGrant { rounds })
    }

    fn take_id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// Sends `payload` to the coordinator in its slot of every round from the next
    /// one until `end`, as many exchanges as fit (saturating load), one at a time.
    pub fn run_until(&mut self, payload: &[u8], end: Time) -> Result<StationReport, TdmaError> {
        let slot = self.slot.ok_or(TdmaError::NoGrant { rounds: 0 })?;
        let mut rep = StationReport { slot, ..Default::default() };
        let attrs = TxAttrs {
            dst: Some(self.coordinator),
            rates: Some(RateSeries::single(self.plan.params().rate, 1)),
            no_ack: false,
            timestamps: true,
        };
        let mut k = self.plan.round_at(self.iface.now()) + 1;
        loop {
            let (open, close) = self.plan.slot_window(k, slot);
            if close > end {
                break;
            }
            let _not_ours = wait_until(self.iface, open)?;
            loop {
                let now = self.iface.now();
                if now < open || now + self.plan.exchange > close {
                    break;
                }
                let id = self.take_id();
                self.iface.data_req(id, Body::Payload(payload), Ac::Be, &attrs)?;
                // A frame that has not finished by the latest moment its exchange could
                // start and still end in the window is withdrawn if it is still queued,
                // so that a late request never spills into the next slot.
                let latest = close.saturating_sub(self.plan.exchange);
                let left = latest.saturating_since(self.iface.now());
                let c = match confirmation_of(self.iface, id, left)? {
                    Some(c) => c,
                    None => {
                        self.iface.cancel(id)?;
                        read_con(self.iface, id)?
                    }
                };
                if c.status == Status::Dropped(DropReason::Cancelled) {
                    rep.withdrawn += 1;
                    continue;
                }
                rep.sent += 1;
                if c.status == Status::Acked {
                    rep.acked += 1;
                }
                if let Some(t) = c.truth {
                    rep.collisions += u64::from(t.collisions);
                }
                if c.ts.t_start < open || (!c.ts.t5.is_zero() && c.ts.t5 > close) {
                    rep.outside_window += 1;
                }
            }
            k = (self.plan.round_at(self.iface.now()) + 1).max(k + 1);
        }
        Ok(rep)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sdmac_phy::Standard;

    fn params() -> TdmaParams {
        TdmaParams {
            phy: Phy::new(Standard::Dot11a),
            round: Span::from_ms(10),
            slots: 4,
            slot: Span::from_ms(2),
            contention: Span::from_ms(1),
            guard: Guard { jitter: Span::from_us(50), sync_error: Span::from_us(10) },
            payload: 200,
            rate: Rate::Ofdm24,
            epoch: Time::from_ns(1_000_000_000),
        }
    }

    #[test]
    fn a_good_plan_is_accepted_and_printed() {
        let p = TdmaPlan::new(params()).unwrap();
        let s = p.to_string();
        assert!(
            s.contains(
                "guard 60.0 µs = request-path jitter 50.0 µs + synchronisation error 10.0 µs"
            ),
            "{s}"
        );
        assert!(p.frames_per_slot() >= 1);
        let (o, c) = p.slot_window(2, 1);
        assert_eq!(o.as_ns(), 1_000_000_000 + 20_000_000 + 2_000_000 + 60_000);
        assert_eq!(c.as_ns(), 1_000_000_000 + 20_000_000 + 4_000_000 - 60_000);
        assert_eq!(p.round_at(Time::from_ns(1_025_000_000)), 2);
    }

    #[test]
    fn impossible_plans_are_refused() {
        let e = TdmaPlan::new(TdmaParams { slots: 0, ..params() }).unwrap_err();
        assert_eq!(e, TdmaError::NoSlots);
        let e = TdmaPlan::new(TdmaParams { slots: 5, ..params() }).unwrap_err();
        assert!(matches!(e, TdmaError::SlotsDoNotFit { .. }), "{e}");
        assert!(e.to_string().contains("do not fit a round"), "{e}");
        let g = Guard { jitter: Span::from_ms(1), sync_error: Span::from_us(10) };
        let e = TdmaPlan::new(TdmaParams { guard: g, ..params() }).unwrap_err();
        assert!(matches!(e, TdmaError::GuardLargerThanSlot { .. }), "{e}");
        let e =
            TdmaPlan::new(TdmaParams { payload: 2304, rate: Rate::Ofdm6, ..params() }).unwrap_err();
        assert!(matches!(e, TdmaError::FrameDoesNotFit { .. }), "{e}");
        assert!(e.to_string().contains("at 6"), "{e}");
        let e = TdmaPlan::new(TdmaParams { round: Span::from_us(8_010), ..params() }).unwrap_err();
        assert!(matches!(e, TdmaError::SlotsDoNotFit { .. }), "{e}");
        let e = TdmaPlan::new(TdmaParams {
            round: Span::from_us(8_100),
            contention: Span::from_us(50),
            ..params()
        })
        .unwrap_err();
        assert!(matches!(e, TdmaError::ContentionTooShort { .. }), "{e}");
        let e = TdmaPlan::new(TdmaParams { rate: Rate::Cck11, ..params() }).unwrap_err();
        assert_eq!(e, TdmaError::BadRate(Rate::Cck11));
    }

    #[test]
    fn the_tsf_fit_recovers_offset_and_drift() {
        let mut s = TsfSync::new(8);
        // local = tsf + 5 s + 20 ppm · (tsf − first), with ±300 ns of noise.
        for (i, noise) in [0i64, 300, -300, 100, -200, 250, 0, -100].iter().enumerate() {
            let tsf_us = 1_000 + i as u64 * 102_400;
            let s_ns = tsf_us * 1000;
            let l = s_ns as f64 + 5e9 + 20e-6 * (s_ns - 1_000_000) as f64 + *noise as f64;
            s.observe(tsf_us, Time::from_ns(l as u64));
        }
        let t = 1_000_000 + 800 * 102_400_000 / 100;
        let want = t as f64 + 5e9 + 20e-6 * (t - 1_000_000) as f64;
        let got = s.to_local(t).unwrap().as_ns() as f64;
        let err = s.error().unwrap().as_ns() as f64;
        assert!((got - want).abs() <= err, "{got} vs {want}, error {err}");
        assert!(err < 2_000.0, "{err}");
    }
}
