//! A TDMA station that runs a whole run on the backend's clock: its frames are
//! released periodically (or each time it hears a frame from a given source), wait for
//! the station's slot, go in it, and every frame's fate is recorded.
//!
//! The station blocks in `data_con` (or `data_ind`, when it answers frames it hears)
//! until `lead` before its slot's window opens, then polls without blocking until the
//! window opens, so that a late wake-up of the host is absorbed by the lead rather than
//! by the guard. It starts an exchange only while the exchange can still end inside the
//! window; a frame still queued at the latest such moment is cancelled (withdrawn) and
//! waits for the next window if its deadline allows.
//!
//! On a backend with timed sends ([`Interface::timed_sends`]) the station does not
//! poll: `lead` before the window it hands over, earliest deadline first, every pending
//! frame whose exchange fits the window, with `not_before` at the window's opening and
//! `not_after` at its latest start, so the backend, not the host's scheduling, puts the
//! exchanges inside the window back to back; a frame the backend could not hand to
//! channel access in time comes back `Dropped(Late)` and counts as withdrawn.

use super::error::TdmaError;
use super::guard::read_con;
use super::plan::TdmaPlan;
use crate::exchange::{confirmation_of, wait_until};
use sdmac_api::{
    Ac, Backend, Body, DropReason, FrameClass, Interface, MacAddress, Rate, RateSeries, Span,
    Status, Time, Timestamps, TxAttrs, Wait,
};
use std::collections::VecDeque;

/// Where one station may send: a window that repeats every round.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SlotTimes {
    /// Start of round 0 on the shared time base.
    pub epoch: Time,
    /// Length of a round.
    pub round: Span,
    /// Where in a round the window opens (after the slot's leading guard).
    pub open: Span,
    /// Where in a round the window closes (before the slot's trailing guard).
    pub close: Span,
    /// The time one exchange of the frame needs, channel access included: an exchange
    /// is started only where it ends by the window's close.
    pub exchange: Span,
}

impl SlotTimes {
    /// The window of slot `slot` of `plan`, with the plan's exchange.
    pub fn of_plan(plan: &TdmaPlan, slot: u32) -> Result<SlotTimes, TdmaError> {
        let slots = plan.params().slots;
        if slot >= slots {
            return Err(TdmaError::Schedule(format!(
                "slot {slot} is not a slot of the plan (it has {slots})"
            )));
        }
        let (o, c) = plan.slot_window(0, slot);
        let e = plan.params().epoch;
        let t = SlotTimes {
            epoch: e,
            round: plan.params().round,
            open: o - e,
            close: c - e,
            exchange: plan.exchange(),
        };
        t.check()?;
        Ok(t)
    }

    /// Refuses a window that cannot work: an empty round, a window that does not lie in
    /// the round, or one shorter than one exchange.
    pub fn check(&self) -> Result<(), TdmaError> {
        if self.round.is_zero() {
            return Err(TdmaError::Schedule("the round is 0".into()));
        }
        if self.open >= self.close || self.close > self.round {
            return Err(TdmaError::Schedule(format!(
                "the window {} … {} does not lie inside the round of {}",
                self.open, self.close, self.round
            )));
        }
        if self.exchange.is_zero() || self.exchange > self.close - self.open {
            return Err(TdmaError::Schedule(format!(
                "one exchange ({}) does not fit the window of {}",
                self.exchange,
                self.close - self.open
            )));
        }
        Ok(())
    }

    /// The window of round `k`: (open, close).
    pub fn window(&self, k: u64) -> (Time, Time) {
        let start = self.epoch.saturating_add(self.round.saturating_mul(k));
        (start.saturating_add(self.open), start.saturating_add(self.close))
    }

    /// The latest moment an exchange may start in the window of round `k`.
    pub fn latest_start(&self, k: u64) -> Time {
        self.window(k).1.saturating_sub(self.exchange)
    }

    /// The first round whose window still lets an exchange start at or after `t`.
    pub fn first_round_from(&self, t: Time) -> u64 {
        let since = t.saturating_since(self.epoch.saturating_add(self.close - self.exchange));
        since.as_ns().div_ceil(self.round.as_ns())
    }
}

/// When a station's frames are released.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Releases {
    /// One frame every `period`, the first at `first`, up to the run's end.
    Periodic {
        /// The first release.
        first: Time,
        /// Time between releases.
        period: Span,
    },
    /// Several periodic flows (an urgent one and a bulk one, say): each releases
    /// `burst` frames every `period`, due `deadline` after; in the slot the station
    /// sends its pending frames earliest deadline first. `PeriodicConfig::payload` and
    /// `deadline` are unused (each flow has its own), and the window's `exchange` must
    /// be that of the largest frame.
    Flows(Vec<PeriodicFlow>),
    /// One frame each time a data frame from `from` is heard, released when that frame
    /// ended on air; its payload is the heard payload with byte `tag_at` set to `tag`
    /// (an amended reply).
    Heard {
        /// The source whose frames are answered.
        from: MacAddress,
        /// The payload byte that marks the reply.
        tag_at: usize,
        /// Its value.
        tag: u8,
    },
}

/// One periodic flow of a station ([`Releases::Flows`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PeriodicFlow {
    /// The first release.
    pub first: Time,
    /// Time between releases.
    pub period: Span,
    /// Frames released together each time.
    pub burst: u32,
    /// Relative deadline of its frames.
    pub deadline: Span,
    /// Payload of its frames.
    pub payload: Vec<u8>,
}

/// What a periodic TDMA station sends, and how.
#[derive(Clone, Debug, PartialEq)]
pub struct PeriodicConfig {
    /// Where the frames go.
    pub dst: MacAddress,
    /// Sent without acknowledgement (broadcasts): a frame is then done once sent.
    pub no_ack: bool,
    /// Rate of every try.
    pub rate: Rate,
    /// MAC tries of each request.
    pub tries: u8,
    /// Payload of periodic frames (a heard frame's replies carry its own; flows have
    /// their own).
    pub payload: Vec<u8>,
    /// Where a periodic frame's payload carries its number (from 1, 4 bytes big-endian),
    /// if anywhere; it must lie inside the payload. A reply reads the heard frame's
    /// number from there.
    pub number_at: Option<usize>,
    /// When frames are released.
    pub releases: Releases,
    /// Relative deadline: each frame is due this long after its release (flows have
    /// their own).
    pub deadline: Span,
    /// How long before a window opens the station stops blocking and polls.
    pub lead: Span,
    /// The access category.
    pub ac: Ac,
}

/// What became of one frame.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct FrameRecord {
    /// Its number: from 1 in release order for periodic frames; for a reply, the
    /// number the heard frame carried at `number_at` (0 when there is none).
    pub number: u32,
    /// Its flow (the index in [`Releases::Flows`]; 0 otherwise).
    pub flow: u32,
    /// When it was released.
    pub release: Time,
    /// When it was due.
    pub deadline: Time,
    /// The round whose window it went in (None: never handed to the MAC).
    pub round: Option<u64>,
    /// When it was handed to the MAC (t1).
    pub t1: Option<Time>,
    /// How late after its window opened it was handed over.
    pub lag: Span,
    /// The first attempt's start on air.
    pub t_start: Option<Time>,
    /// When the MAC knew the outcome (t5).
    pub t5: Option<Time>,
    /// The outcome, once confirmed (a withdrawal is not an outcome: it waits for
    /// another window).
    pub status: Option<Status>,
    /// Attempts made.
    pub attempts: u8,
    /// Attempts lost to collisions (from the confirmation's truth, where known).
    pub collisions: u8,
    /// Times it was withdrawn (cancelled while still queued at the window's latest
    /// start, or dropped by a backend with timed sends as too late for it).
    pub withdrawn: u32,
    /// It started before its window opened or ended after the window closed.
    pub outside_window: bool,
    /// Its deadline passed before a window could take it: never sent.
    pub expired: bool,
    /// The confirmation's timestamps (all zero before it is confirmed).
    pub ts: Timestamps,
}

impl FrameRecord {
    /// Delivered (acknowledged, or sent when no acknowledgement is asked for) with the
    /// outcome known at the MAC by its deadline.
    pub fn met(&self, no_ack: bool) -> bool {
        let done = match self.status {
            Some(Status::Acked) => true,
            Some(Status::Sent) => no_ack,
            _ => false,
        };
        done && self.t5.is_some_and(|t| t <= self.deadline)
    }
}

/// What a periodic TDMA run did: one record per frame released, in release order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PeriodicReport {
    /// Every frame released.
    pub frames: Vec<FrameRecord>,
    /// Whether the frames were sent without acknowledgement.
    pub no_ack: bool,
}

impl PeriodicReport {
    /// Frames that met their deadline.
    pub fn met(&self) -> usize {
        self.frames.iter().filter(|f| f.met(self.no_ack)).count()
    }
    /// Frames that went on air at least once.
    pub fn sent(&self) -> usize {
        self.frames.iter().filter(|f| f.attempts > 0).count()
    }
    /// Attempts lost to collisions, all frames together.
    pub fn collisions(&self) -> u64 {
        self.frames.iter().map(|f| u64::from(f.collisions)).sum()
    }
    /// Frames sent outside their window.
    pub fn outside_window(&self) -> usize {
        self.frames.iter().filter(|f| f.outside_window).count()
    }
    /// Withdrawals, all frames together.
    pub fn withdrawn(&self) -> u64 {
        self.frames.iter().map(|f| u64::from(f.withdrawn)).sum()
    }
    /// The longest a frame was handed over after its window opened.
    pub fn max_lag(&self) -> Span {
        self.frames.iter().map(|f| f.lag).max().unwrap_or(Span::ZERO)
    }
}

/// How long after its window closes a timed frame's confirmation may still come (the
/// host may run that late) before the station gives up on it and cancels.
const TIMED_CON_SLACK: Span = Span::from_ms(200);

/// Runs a TDMA station on `iface` until `end` (backend clock): frames are released as
/// `cfg.releases` says (none at or after `end`), each goes in the first window of
/// `times` that opens after its release and still lets its exchange end by its
/// deadline, and the run ends once no frame is pending. Refuses, before sending
/// anything, a window that cannot hold an exchange, a deadline shorter than one
/// exchange, no tries, and a run whose end is already past.
pub fn run_periodic<B: Backend>(
    iface: &mut Interface<B>,
    times: &SlotTimes,
    cfg: &PeriodicConfig,
    end: Time,
) -> Result<PeriodicReport, TdmaError> {
    times.check()?;
    if cfg.tries == 0 || cfg.tries > sdmac_api::MAX_TRIES {
        return Err(TdmaError::Schedule(format!("tries is {} (must be 1..=15)", cfg.tries)));
    }
    // Periodic releases and flows have their deadlines checked with the flows below.
    if matches!(cfg.releases, Releases::Heard { .. }) && cfg.deadline < times.exchange {
        return Err(TdmaError::Schedule(format!(
            "the deadline {} is shorter than one exchange ({})",
            cfg.deadline, times.exchange
        )));
    }
    let flows = flows_of(cfg);
    if matches!(cfg.releases, Releases::Flows(_)) && flows.is_empty() {
        return Err(TdmaError::Schedule("no flow is given".into()));
    }
    for (n, f) in flows.iter().enumerate() {
        let name = if flows.len() > 1 { format!("flow {n}: ") } else { String::new() };
        if f.period.is_zero() {
            return Err(TdmaError::Schedule(format!("{name}the release period is 0")));
        }
        if f.burst == 0 {
            return Err(TdmaError::Schedule(format!("{name}the burst is 0 frames")));
        }
        if f.deadline < times.exchange {
            return Err(TdmaError::Schedule(format!(
                "{name}the deadline {} is shorter than one exchange ({})",
                f.deadline, times.exchange
            )));
        }
        if let Some(at) = cfg.number_at {
            if at + 4 > f.payload.len() {
                return Err(TdmaError::Schedule(format!(
                    "{name}number_at {at}: a 4-byte number does not fit a payload of {} bytes",
                    f.payload.len()
                )));
            }
        }
    }
    let now = iface.now();
    if end <= now {
        return Err(TdmaError::Schedule(format!("the run's end is {} in the past", now - end)));
    }
    let attrs = TxAttrs {
        dst: Some(cfg.dst),
        rates: Some(RateSeries::single(cfg.rate, cfg.tries)),
        no_ack: cfg.no_ack,
        timestamps: true,
        not_before: None,
        not_after: None,
    };
    let mut rep = PeriodicReport { frames: Vec::new(), no_ack: cfg.no_ack };
    let mut payloads: Vec<Vec<u8>> = Vec::new();
    let mut pending: VecDeque<usize> = VecDeque::new();
    let mut next: Vec<Time> = flows.iter().map(|f| f.first).collect();
    let mut buf = Vec::with_capacity(2400);
    let mut numbered: Vec<Vec<u8>> = flows.iter().map(|f| f.payload.clone()).collect();
    let mut k = times.first_round_from(now);
    let timed = iface.timed_sends();
    loop {
        let (open, close) = times.window(k);
        let latest = times.latest_start(k);
        let heard = matches!(cfg.releases, Releases::Heard { .. });
        let next_rel = next.iter().copied().min().unwrap_or(Time::MAX);
        if pending.is_empty() && !heard && next_rel >= end {
            break;
        }
        if heard && open >= end.saturating_add(cfg.deadline) {
            break;
        }
        if pending.is_empty() && !heard && next_rel > latest {
            // Nothing for this window: skip to the first that can take the next release.
            k = times.first_round_from(next_rel).max(k + 1);
            continue;
        }
        // Block until `lead` before the window, then poll until it opens.
        let wake = open.saturating_sub(cfg.lead);
        if heard {
            listen(iface, cfg, &mut rep, &mut payloads, &mut pending, &mut buf, wake, end, false)?;
            // With timed sends a reply already released is handed over now, early, and
            // the backend holds it until the window opens; otherwise listen on until then.
            // With timed sends this blocks on the backend's clock until the opening or a
            // release (a virtual clock moves meanwhile); without, it polls, to hand the
            // first reply over as the window opens.
            let until = if timed { open } else { Time::ZERO };
            while iface.now() < open && (!timed || pending.is_empty()) {
                listen(
                    iface,
                    cfg,
                    &mut rep,
                    &mut payloads,
                    &mut pending,
                    &mut buf,
                    until,
                    end,
                    timed,
                )?;
                if !timed {
                    std::hint::spin_loop();
                }
            }
        } else {
            let _not_ours = wait_until(iface, wake)?;
            // Only a backend without timed sends polls the last `lead` to start on
            // time; emu has them, so its virtual clock never meets this loop.
            while !timed && iface.now() < open {
                let _ = iface.data_con(Wait::NoWait)?;
                std::hint::spin_loop();
            }
        }
        loop {
            let now = iface.now();
            // With timed sends a frame handed over before the window waits in the
            // backend until it opens.
            let at = if timed { now.max(open) } else { now };
            if at > latest {
                break;
            }
            // With timed sends, frames released by the window's opening are handed over
            // now, `lead` early, as with a launch time (SO_TXTIME): the backend starts
            // none before the opening, so none goes on air before its release.
            release_periodic(&flows, &mut rep, &mut pending, &mut next, end, at);
            let Some(&i) = pending.front() else { break };
            if timed {
                // Hand over, earliest deadline first, every pending frame whose exchange
                // still fits the window, all at once: the backend starts them back to back
                // from the window's opening on its own clock, so the host's latency
                // between two confirmations never eats into the window.
                let mut batch: Vec<usize> = Vec::new();
                let mut start = at;
                while start <= latest {
                    let Some(i) = pending.pop_front() else { break };
                    if rep.frames[i].deadline < start.saturating_add(times.exchange) {
                        rep.frames[i].expired = true;
                        continue;
                    }
                    let body = body_of(cfg, &rep, &payloads, &mut numbered, heard, i);
                    let attrs =
                        TxAttrs { not_before: Some(open), not_after: Some(latest), ..attrs };
                    match iface.data_req_at(now, i as u64 + 1, Body::Payload(body), cfg.ac, &attrs)
                    {
                        Ok(()) => {}
                        Err(sdmac_api::ApiError::QueueFull { .. }) => {
                            push_pending(&rep, &mut pending, i);
                            break;
                        }
                        Err(e) => return Err(e.into()),
                    }
                    let f = &mut rep.frames[i];
                    f.round = Some(k);
                    f.t1 = Some(now);
                    f.lag = start.saturating_since(open);
                    batch.push(i);
                    start = start.saturating_add(times.exchange);
                }
                // Their outcomes come in the order they were handed over; one that never
                // comes is cancelled (and read) after the window's close and some slack.
                let limit = close.saturating_add(TIMED_CON_SLACK);
                let mut got: Vec<Option<sdmac_api::Confirmation>> = vec![None; batch.len()];
                while got.iter().any(Option::is_none) {
                    let now = iface.now();
                    if now >= limit {
                        break;
                    }
                    if let Some(c) = iface.data_con(Wait::For((limit - now).into()))? {
                        if let Some(b) = batch.iter().position(|&i| i as u64 + 1 == c.id) {
                            got[b] = Some(c);
                        }
                    }
                }
                for (b, &i) in batch.iter().enumerate() {
                    let c = match got[b].take() {
                        Some(c) => c,
                        None => {
                            iface.cancel(i as u64 + 1)?;
                            read_con(iface, i as u64 + 1)?
                        }
                    };
                    if !record_outcome(&mut rep.frames[i], &c, open, close, true) {
                        push_pending(&rep, &mut pending, i);
                    }
                }
                continue;
            }
            if rep.frames[i].deadline < at.saturating_add(times.exchange) {
                pending.pop_front();
                rep.frames[i].expired = true;
                continue;
            }
            pending.pop_front();
            let body = body_of(cfg, &rep, &payloads, &mut numbered, heard, i);
            let id = i as u64 + 1;
            match iface.data_req_at(now, id, Body::Payload(body), cfg.ac, &attrs) {
                Ok(()) => {}
                Err(sdmac_api::ApiError::QueueFull { .. }) => {
                    pending.push_front(i);
                    break;
                }
                Err(e) => return Err(e.into()),
            }
            let f = &mut rep.frames[i];
            f.round = Some(k);
            f.t1 = Some(now);
            f.lag = at.saturating_since(open);
            // A frame still queued at `latest` is withdrawn, so that a late request
            // never spills into the next slot.
            let c = match confirmation_of(iface, id, latest.saturating_since(iface.now()))? {
                Some(c) => c,
                None => {
                    iface.cancel(id)?;
                    read_con(iface, id)?
                }
            };
            if !record_outcome(&mut rep.frames[i], &c, open, close, false) {
                pending.push_front(i);
                break;
            }
        }
        // A host stall may have carried the station past later windows.
        k = times.first_round_from(iface.now()).max(k + 1);
    }
    for &i in &pending {
        rep.frames[i].expired = true;
    }
    Ok(rep)
}

/// The payload of frame `i`: a reply's own, or its flow's with its number written in.
fn body_of<'a>(
    cfg: &PeriodicConfig,
    rep: &PeriodicReport,
    payloads: &'a [Vec<u8>],
    numbered: &'a mut [Vec<u8>],
    heard: bool,
    i: usize,
) -> &'a [u8] {
    if heard {
        return &payloads[i][..];
    }
    let b = &mut numbered[rep.frames[i].flow as usize];
    if let Some(at) = cfg.number_at {
        b[at..at + 4].copy_from_slice(&(i as u32 + 1).to_be_bytes());
    }
    &b[..]
}

/// Writes confirmation `c` into frame record `f`; false if the frame was withdrawn
/// (cancelled, or dropped as late by a backend with timed sends) and waits for another
/// window.
fn record_outcome(
    f: &mut FrameRecord,
    c: &sdmac_api::Confirmation,
    open: Time,
    close: Time,
    timed: bool,
) -> bool {
    if matches!(c.status, Status::Dropped(DropReason::Cancelled | DropReason::Late)) {
        f.withdrawn += 1;
        return false;
    }
    if timed && !c.ts.t4.is_zero() {
        // When the backend handed it to channel access.
        f.lag = c.ts.t4.saturating_since(open);
    }
    f.status = Some(c.status);
    f.ts = c.ts;
    f.attempts = c.attempts;
    f.collisions = c.truth.map_or(0, |t| t.collisions);
    f.t_start = (!c.ts.t_start.is_zero()).then_some(c.ts.t_start);
    f.t5 = (!c.ts.t5.is_zero()).then_some(c.ts.t5);
    f.outside_window = f.t_start.is_some_and(|t| t < open) || f.t5.is_some_and(|t| t > close);
    true
}

/// The flows of a periodic configuration (none for replies).
fn flows_of(cfg: &PeriodicConfig) -> Vec<PeriodicFlow> {
    match &cfg.releases {
        Releases::Periodic { first, period } => vec![PeriodicFlow {
            first: *first,
            period: *period,
            burst: 1,
            deadline: cfg.deadline,
            payload: cfg.payload.clone(),
        }],
        Releases::Flows(f) => f.clone(),
        Releases::Heard { .. } => Vec::new(),
    }
}

/// Puts frame `i` among the pending ones, earliest deadline first (after those due at
/// the same time).
fn push_pending(rep: &PeriodicReport, pending: &mut VecDeque<usize>, i: usize) {
    let d = rep.frames[i].deadline;
    let at = pending.partition_point(|&j| rep.frames[j].deadline <= d);
    pending.insert(at, i);
}

/// Releases the periodic frames due by `upto` (none at or after `end`), in release
/// order (flows in their order among releases at one time).
fn release_periodic(
    flows: &[PeriodicFlow],
    rep: &mut PeriodicReport,
    pending: &mut VecDeque<usize>,
    next: &mut [Time],
    end: Time,
    upto: Time,
) {
    loop {
        let Some((n, t)) = next
            .iter()
            .copied()
            .enumerate()
            .filter(|&(_, t)| t <= upto && t < end)
            .min_by_key(|&(n, t)| (t, n))
        else {
            return;
        };
        let f = &flows[n];
        for _ in 0..f.burst {
            rep.frames.push(FrameRecord {
                number: rep.frames.len() as u32 + 1,
                flow: n as u32,
                release: t,
                deadline: t.saturating_add(f.deadline),
                ..Default::default()
            });
            push_pending(rep, pending, rep.frames.len() - 1);
        }
        next[n] = t.saturating_add(f.period);
    }
}

/// Reads the frames heard until `until` (at once when it is past), releasing a reply to
/// each one from the source answered; with `first_release`, returns after the first
/// reply released.
#[allow(clippy::too_many_arguments)]
fn listen<B: Backend>(
    iface: &mut Interface<B>,
    cfg: &PeriodicConfig,
    rep: &mut PeriodicReport,
    payloads: &mut Vec<Vec<u8>>,
    pending: &mut VecDeque<usize>,
    buf: &mut Vec<u8>,
    until: Time,
    end: Time,
    first_release: bool,
) -> Result<(), TdmaError> {
    let Releases::Heard { from, tag_at, tag } = cfg.releases else { return Ok(()) };
    loop {
        let now = iface.now();
        let wait = if now >= until { Wait::NoWait } else { Wait::For((until - now).into()) };
        let Some(ind) = iface.data_ind(buf, wait)? else {
            if iface.now() >= until {
                return Ok(());
            }
            continue;
        };
        if ind.class != FrameClass::Data || ind.src != from || ind.duplicate {
            continue;
        }
        if ind.rx.t_end >= end {
            continue;
        }
        let mut p = buf[ind.payload_offset.min(buf.len())..].to_vec();
        if let Some(b) = p.get_mut(tag_at) {
            *b = tag;
        }
        let number = cfg
            .number_at
            .and_then(|at| p.get(at..at + 4))
            .map_or(0, |b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
        payloads.push(p);
        rep.frames.push(FrameRecord {
            number,
            release: ind.rx.t_end,
            deadline: ind.rx.t_end.saturating_add(cfg.deadline),
            ..Default::default()
        });
        push_pending(rep, pending, rep.frames.len() - 1);
        if first_release {
            return Ok(());
        }
    }
}
