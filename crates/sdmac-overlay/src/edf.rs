//! Earliest-deadline-first scheduling above the MAC: a station's pending frames, and
//! the retries of frames that failed, go to the MAC in order of absolute deadline,
//! one at a time (or a bounded few, [`EdfConfig::in_mac`]), each request with few
//! tries. A not-acked confirmation comes at the
//! ACKTimeout (the early failure notification), so the scheduler re-plans at once: the
//! failed frame goes back among the pending ones and the earliest deadline goes next.
//! A frame whose deadline can no longer be met (not even one exchange fits before
//! it) is dropped and counted, never sent.
//!
//! [`run_fifo`] is the baseline: the same frames handed to the MAC as they are
//! released, first in first out, with the MAC's own retries.

use crate::exchange::{confirmation_of, mpdu_len, try_ns};
use crate::retransmit::CONFIRMATION_LIMIT;
use sdmac_api::{
    Ac, ApiError, Backend, Body, Confirmation, Interface, MacAddress, Rate, RateSeries, Span,
    Status, Time, TxAttrs, Wait,
};
use sdmac_phy::Phy;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::fmt;

/// A periodic flow of frames with a relative deadline.
#[derive(Clone, Debug, PartialEq)]
pub struct Flow {
    /// Name, for reports.
    pub name: String,
    /// Time between releases.
    pub period: Span,
    /// First release after the start.
    pub offset: Span,
    /// Frames released together at each release.
    pub burst: u32,
    /// Relative deadline: each frame is due this long after its release.
    pub deadline: Span,
    /// Payload bytes.
    pub payload: usize,
    /// Rate of every try.
    pub rate: Rate,
}

/// A station's EDF set-up.
#[derive(Clone, Debug, PartialEq)]
pub struct EdfConfig {
    /// The PHY (for airtimes).
    pub phy: Phy,
    /// Where the frames go.
    pub dst: MacAddress,
    /// The flows.
    pub flows: Vec<Flow>,
    /// Tries of each request (the MAC retries of one request; 1 re-plans after every
    /// failed try).
    pub tries_per_request: u8,
    /// Attempts a frame gets in all before it is given up.
    pub max_attempts: u32,
    /// Frames in the MAC at once (1..=4): more hide the software round trip between a
    /// confirmation and the next request; an urgent frame then waits behind at most
    /// this many frames already handed over.
    pub in_mac: usize,
}

/// Why an EDF set-up was refused, or a run failed.
#[derive(Clone, Debug, PartialEq)]
pub enum EdfError {
    /// No flow.
    NoFlows,
    /// A flow parameter is out of range.
    BadFlow {
        /// The flow.
        flow: String,
        /// What is wrong.
        reason: String,
    },
    /// The flows need more airtime than there is.
    Overloaded {
        /// Airtime share the flows need (one try per frame), above 1.
        utilisation: f64,
    },
    /// A parameter of the set-up is out of range.
    BadParameter {
        /// The parameter.
        what: &'static str,
        /// Why.
        reason: String,
    },
    /// The run's end is not after its start.
    EmptyRun,
    /// The backend gave no confirmation for a request within [`CONFIRMATION_LIMIT`].
    NoConfirmation {
        /// The request.
        id: u64,
    },
    /// A primitive failed.
    Api(ApiError),
}

impl fmt::Display for EdfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EdfError::NoFlows => write!(f, "EDF: no flows"),
            EdfError::BadFlow { flow, reason } => write!(f, "EDF flow {flow:?}: {reason}"),
            EdfError::Overloaded { utilisation } => write!(
                f,
                "EDF: the flows need {:.0} % of the airtime (one try per frame); the load does not fit",
                utilisation * 100.0
            ),
            EdfError::BadParameter { what, reason } => write!(f, "EDF: {what} {reason}"),
            EdfError::EmptyRun => write!(f, "EDF: the run ends before it starts"),
            EdfError::NoConfirmation { id } => {
                write!(f, "EDF: no confirmation for request {id} within {CONFIRMATION_LIMIT}")
            }
            EdfError::Api(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for EdfError {}

impl From<ApiError> for EdfError {
    fn from(e: ApiError) -> Self {
        EdfError::Api(e)
    }
}

impl EdfConfig {
    /// Checks the set-up: at least one flow, positive periods, bursts and deadlines, a
    /// deadline that holds at least one exchange of its frame, valid rates and tries,
    /// and flows whose airtime (one try per frame) fits. Returns the utilisation.
    pub fn check(&self) -> Result<f64, EdfError> {
        if self.flows.is_empty() {
            return Err(EdfError::NoFlows);
        }
        if self.tries_per_request == 0 || self.tries_per_request > sdmac_api::MAX_TRIES {
            return Err(EdfError::BadParameter {
                what: "tries_per_request",
                reason: format!("is {} (must be 1..=15)", self.tries_per_request),
            });
        }
        if !(1..=4).contains(&self.in_mac) {
            return Err(EdfError::BadParameter {
                what: "in_mac",
                reason: format!("is {} (must be 1..=4)", self.in_mac),
            });
        }
        if self.max_attempts == 0 {
            return Err(EdfError::BadParameter {
                what: "max_attempts",
                reason: "is 0 (at least 1)".into(),
            });
        }
        let mut u = 0.0;
        for fl in &self.flows {
            let bad = |reason: String| EdfError::BadFlow { flow: fl.name.clone(), reason };
            if fl.period.is_zero() {
                return Err(bad("period is 0".into()));
            }
            if fl.burst == 0 {
                return Err(bad("burst is 0".into()));
            }
            if !self.phy.standard.supports(fl.rate) {
                return Err(bad(format!("rate {} is not a rate of this PHY", fl.rate)));
            }
            let one = Span::from_ns(self.exchange_ns(fl));
            if fl.deadline < one {
                return Err(bad(format!(
                    "deadline {} is shorter than one exchange of its frame ({one})",
                    fl.deadline
                )));
            }
            u += one.as_ns() as f64 * f64::from(fl.burst) / fl.period.as_ns() as f64;
        }
        if u > 1.0 {
            return Err(EdfError::Overloaded { utilisation: u });
        }
        Ok(u)
    }

    /// One exchange of a frame of `fl` without backoff: DIFS then one try.
    fn exchange_ns(&self, fl: &Flow) -> u64 {
        self.phy.difs_ns() + try_ns(&self.phy, mpdu_len(fl.payload), fl.rate)
    }
}

/// What happened to the frames of one flow.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FlowReport {
    /// The flow.
    pub name: String,
    /// Frames released.
    pub released: u64,
    /// Acknowledged by their deadline.
    pub met: u64,
    /// Acknowledged after their deadline.
    pub late: u64,
    /// Dropped because their deadline could no longer be met (never sent again), or
    /// given up after their attempts.
    pub dropped: u64,
    /// Released but not finished when the run ended.
    pub unfinished: u64,
    /// MAC attempts made for the flow.
    pub attempts: u64,
}

impl FlowReport {
    /// Frames that missed their deadline (late or dropped) over frames finished.
    pub fn miss_ratio(&self) -> f64 {
        let done = self.met + self.late + self.dropped;
        if done == 0 {
            0.0
        } else {
            (self.late + self.dropped) as f64 / done as f64
        }
    }
}

/// How a frame ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum EdfFate {
    /// Acknowledged, with the outcome known at the MAC (t5) by its deadline.
    Met,
    /// Acknowledged after its deadline.
    Late,
    /// Dropped: its deadline could no longer be met, its attempts ran out, or the MAC
    /// dropped it.
    Dropped,
    /// Still pending when the run ended, its deadline not yet past.
    Unfinished,
}

impl EdfFate {
    /// The fate's name: "met", "late", "dropped" or "unfinished".
    pub fn name(self) -> &'static str {
        match self {
            EdfFate::Met => "met",
            EdfFate::Late => "late",
            EdfFate::Dropped => "dropped",
            EdfFate::Unfinished => "unfinished",
        }
    }
}

/// What became of one frame.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct EdfFrame {
    /// Its flow (index in the configuration).
    pub flow: usize,
    /// When it was released.
    pub release: Time,
    /// When it was due.
    pub deadline: Time,
    /// When its first attempt started on air (None: never on air).
    pub first_tx: Option<Time>,
    /// When the MAC knew it was acknowledged (t5; None: never acknowledged).
    pub acked_at: Option<Time>,
    /// MAC attempts made for it.
    pub attempts: u32,
    /// How it ended.
    pub fate: EdfFate,
}

impl EdfFrame {
    fn new(flow: usize, release: Time, deadline: Time) -> EdfFrame {
        EdfFrame {
            flow,
            release,
            deadline,
            first_tx: None,
            acked_at: None,
            attempts: 0,
            fate: EdfFate::Unfinished,
        }
    }

    /// Books one confirmation of a request for this frame.
    fn confirmed(&mut self, c: &Confirmation) {
        self.attempts += u32::from(c.attempts);
        if self.first_tx.is_none() && !c.ts.t_start.is_zero() {
            self.first_tx = Some(c.ts.t_start);
        }
    }
}

/// What a run did, per flow and per frame.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EdfReport {
    /// One per flow, in the configuration's order.
    pub flows: Vec<FlowReport>,
    /// One per frame released, in release order.
    pub frames: Vec<EdfFrame>,
    /// How far the host let the scheduler's timing slip, on the backend's clock: the
    /// longest it woke up after the moment it asked to, or read a confirmation after
    /// the MAC knew the outcome (t9 − t5). EDF only (zero for FIFO).
    pub max_host_lag: Span,
}

impl EdfReport {
    /// Misses over frames finished, all flows together.
    pub fn miss_ratio(&self) -> f64 {
        let (m, d) = self
            .flows
            .iter()
            .fold((0, 0), |(m, d), f| (m + f.late + f.dropped, d + f.met + f.late + f.dropped));
        if d == 0 {
            0.0
        } else {
            m as f64 / d as f64
        }
    }
}

#[derive(Clone, Debug)]
struct Frame {
    flow: usize,
    deadline: Time,
    attempts: u32,
}

/// The release times of every flow from `start` to `end`, in order: (time, flow).
fn releases(cfg: &EdfConfig, start: Time, end: Time) -> Vec<(Time, usize)> {
    let mut v = Vec::new();
    for (i, fl) in cfg.flows.iter().enumerate() {
        let mut t = start.saturating_add(fl.offset);
        while t < end {
            for _ in 0..fl.burst {
                v.push((t, i));
            }
            t = t.saturating_add(fl.period);
        }
    }
    v.sort_by_key(|&(t, i)| (t, i));
    v
}

fn finish(rep: &mut FlowReport, fr: &mut EdfFrame, c: &Confirmation) {
    let t = if c.ts.t5.is_zero() { c.ts.t9 } else { c.ts.t5 };
    fr.acked_at = Some(t);
    if t <= fr.deadline {
        rep.met += 1;
        fr.fate = EdfFate::Met;
    } else {
        rep.late += 1;
        fr.fate = EdfFate::Late;
    }
}

/// Runs EDF on `iface` from `start` to `end` (backend clock): frames are released by
/// their flows, sent one at a time in order of deadline, re-planned after each
/// failure. Frames still pending at `end` count as unfinished.
pub fn run_edf<B: Backend>(
    iface: &mut Interface<B>,
    cfg: &EdfConfig,
    start: Time,
    end: Time,
) -> Result<EdfReport, EdfError> {
    cfg.check()?;
    if end <= start {
        return Err(EdfError::EmptyRun);
    }
    let rel = releases(cfg, start, end);
    let mut rep = EdfReport {
        flows: cfg
            .flows
            .iter()
            .map(|f| FlowReport { name: f.name.clone(), ..Default::default() })
            .collect(),
        frames: Vec::new(),
        max_host_lag: Span::ZERO,
    };
    let exchange: Vec<Span> = cfg.flows.iter().map(|f| Span::from_ns(cfg.exchange_ns(f))).collect();
    let payloads: Vec<Vec<u8>> = cfg.flows.iter().map(|f| vec![0x3c; f.payload]).collect();
    // Pending frames by (deadline, sequence); frames by sequence.
    let mut pending: BinaryHeap<Reverse<(Time, u64)>> = BinaryHeap::new();
    let mut frames: HashMap<u64, Frame> = HashMap::new();
    let mut next_rel = 0;
    let mut seq = 0u64;
    let mut in_flight: Vec<(u64, u64)> = Vec::with_capacity(cfg.in_mac);
    let mut next_id = 1u64;
    loop {
        let now = iface.now();
        while next_rel < rel.len() && rel[next_rel].0 <= now {
            let (t, f) = rel[next_rel];
            next_rel += 1;
            rep.flows[f].released += 1;
            rep.frames.push(EdfFrame::new(f, t, t + cfg.flows[f].deadline));
            frames.insert(seq, Frame { flow: f, deadline: t + cfg.flows[f].deadline, attempts: 0 });
            pending.push(Reverse((t + cfg.flows[f].deadline, seq)));
            seq += 1;
        }
        if now >= end && in_flight.is_empty() {
            break;
        }
        while in_flight.len() < cfg.in_mac && now < end && !pending.is_empty() {
            // The earliest deadline that can still be met goes next; the rest that
            // cannot are dropped on the way.
            while let Some(Reverse((d, s))) = pending.pop() {
                let fr = &frames[&s];
                if now + exchange[fr.flow] > d {
                    rep.flows[fr.flow].dropped += 1;
                    rep.frames[s as usize].fate = EdfFate::Dropped;
                    frames.remove(&s);
                    continue;
                }
                let fl = &cfg.flows[fr.flow];
                let attrs = TxAttrs {
                    dst: Some(cfg.dst),
                    rates: Some(RateSeries::single(fl.rate, cfg.tries_per_request)),
                    no_ack: false,
                    timestamps: true,
                    not_before: None,
                    not_after: None,
                };
                let id = next_id;
                next_id += 1;
                iface.data_req(id, Body::Payload(&payloads[fr.flow]), Ac::Be, &attrs)?;
                in_flight.push((id, s));
                break;
            }
        }
        // Wait for the confirmation or the next release, whichever is first.
        let until = rel.get(next_rel).map_or(end, |r| r.0).min(end.max(now));
        let wait = until.saturating_since(iface.now()).min(Span::from_ms(50));
        let wait = if !in_flight.is_empty() && wait.is_zero() { Span::from_ms(1) } else { wait };
        if in_flight.is_empty() && wait.is_zero() && now >= end {
            break;
        }
        let asked = iface.now().saturating_add(wait);
        let got = iface.data_con(Wait::For(wait.into()))?;
        if got.is_none() {
            rep.max_host_lag = rep.max_host_lag.max(iface.now().saturating_since(asked));
        }
        if let Some(c) = got {
            if !c.ts.t5.is_zero() {
                rep.max_host_lag = rep.max_host_lag.max(c.ts.t9.saturating_since(c.ts.t5));
            }
            let Some(k) = in_flight.iter().position(|&(id, _)| id == c.id) else { continue };
            let (_, s) = in_flight.remove(k);
            let mut fr = frames.remove(&s).expect("frame in flight");
            let r = &mut rep.flows[fr.flow];
            let rec = &mut rep.frames[s as usize];
            r.attempts += u64::from(c.attempts);
            fr.attempts += u32::from(c.attempts);
            rec.confirmed(&c);
            match c.status {
                Status::Acked => finish(r, rec, &c),
                _ if fr.attempts >= cfg.max_attempts => {
                    r.dropped += 1;
                    rec.fate = EdfFate::Dropped;
                }
                Status::Dropped(_) => {
                    r.dropped += 1;
                    rec.fate = EdfFate::Dropped;
                }
                _ => {
                    // Early failure: back among the pending frames, by its deadline.
                    pending.push(Reverse((fr.deadline, s)));
                    frames.insert(s, fr);
                }
            }
        }
    }
    let now = iface.now();
    for (&s, fr) in &frames {
        if fr.deadline <= now {
            rep.flows[fr.flow].dropped += 1;
            rep.frames[s as usize].fate = EdfFate::Dropped;
        } else {
            rep.flows[fr.flow].unfinished += 1;
        }
    }
    Ok(rep)
}

/// The baseline: each frame handed to the MAC when it is released (FIFO in the MAC's
/// queue) with `mac_tries` tries, from `start` to `end`; then the confirmations of
/// every frame are awaited. A frame is met if acked by its deadline.
pub fn run_fifo<B: Backend>(
    iface: &mut Interface<B>,
    cfg: &EdfConfig,
    mac_tries: u8,
    start: Time,
    end: Time,
) -> Result<EdfReport, EdfError> {
    cfg.check()?;
    if end <= start {
        return Err(EdfError::EmptyRun);
    }
    if mac_tries == 0 || mac_tries > sdmac_api::MAX_TRIES {
        return Err(EdfError::BadParameter {
            what: "mac_tries",
            reason: format!("is {mac_tries} (must be 1..=15)"),
        });
    }
    let rel = releases(cfg, start, end);
    let mut rep = EdfReport {
        flows: cfg
            .flows
            .iter()
            .map(|f| FlowReport { name: f.name.clone(), ..Default::default() })
            .collect(),
        frames: Vec::new(),
        max_host_lag: Span::ZERO,
    };
    let payloads: Vec<Vec<u8>> = cfg.flows.iter().map(|f| vec![0x3c; f.payload]).collect();
    // Request ids are release indices + 1.
    let mut sent: HashMap<u64, usize> = HashMap::new();
    let take = |c: Confirmation, sent: &mut HashMap<u64, usize>, rep: &mut EdfReport| {
        if let Some(f) = sent.remove(&c.id) {
            let r = &mut rep.flows[f];
            let rec = &mut rep.frames[c.id as usize - 1];
            r.attempts += u64::from(c.attempts);
            rec.confirmed(&c);
            match c.status {
                Status::Acked => finish(r, rec, &c),
                _ => {
                    r.dropped += 1;
                    rec.fate = EdfFate::Dropped;
                }
            }
        }
    };
    for (k, &(t, f)) in rel.iter().enumerate() {
        for c in crate::exchange::wait_until(iface, t)? {
            take(c, &mut sent, &mut rep);
        }
        let fl = &cfg.flows[f];
        let attrs = TxAttrs {
            dst: Some(cfg.dst),
            rates: Some(RateSeries::single(fl.rate, mac_tries)),
            no_ack: false,
            timestamps: true,
            not_before: None,
            not_after: None,
        };
        let id = k as u64 + 1;
        rep.flows[f].released += 1;
        rep.frames.push(EdfFrame::new(f, t, t + fl.deadline));
        match iface.data_req(id, Body::Payload(&payloads[f]), Ac::Be, &attrs) {
            Ok(()) => {
                sent.insert(id, f);
            }
            Err(ApiError::QueueFull { .. }) => {
                rep.flows[f].dropped += 1;
                rep.frames[k].fate = EdfFate::Dropped;
            }
            Err(e) => return Err(e.into()),
        }
    }
    for id in 1..=rel.len() as u64 {
        if !sent.contains_key(&id) {
            continue;
        }
        let c = confirmation_of(iface, id, CONFIRMATION_LIMIT)?
            .ok_or(EdfError::NoConfirmation { id })?;
        take(c, &mut sent, &mut rep);
    }
    Ok(rep)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sdmac_phy::Standard;

    fn flow(name: &str, period_ms: u64, deadline_us: u64, payload: usize) -> Flow {
        Flow {
            name: name.into(),
            period: Span::from_ms(period_ms),
            offset: Span::ZERO,
            burst: 1,
            deadline: Span::from_us(deadline_us),
            payload,
            rate: Rate::Ofdm24,
        }
    }

    fn cfg(flows: Vec<Flow>) -> EdfConfig {
        EdfConfig {
            phy: Phy::new(Standard::Dot11a),
            dst: MacAddress([2, 0, 0, 0, 0, 1]),
            flows,
            tries_per_request: 1,
            max_attempts: 7,
            in_mac: 1,
        }
    }

    #[test]
    fn impossible_set_ups_are_refused() {
        assert_eq!(cfg(vec![]).check(), Err(EdfError::NoFlows));
        let e = cfg(vec![flow("a", 0, 1000, 100)]).check().unwrap_err();
        assert!(e.to_string().contains("\"a\": period is 0"), "{e}");
        let e = cfg(vec![flow("tight", 10, 20, 1500)]).check().unwrap_err();
        assert!(e.to_string().contains("shorter than one exchange"), "{e}");
        let e = cfg(vec![Flow { burst: 40, ..flow("heavy", 10, 9000, 1500) }]).check().unwrap_err();
        assert!(matches!(e, EdfError::Overloaded { .. }), "{e}");
        let e = EdfConfig { tries_per_request: 0, ..cfg(vec![flow("a", 10, 1000, 100)]) }
            .check()
            .unwrap_err();
        assert!(e.to_string().contains("tries_per_request"), "{e}");
        let e = EdfConfig { in_mac: 0, ..cfg(vec![flow("a", 10, 1000, 100)]) }.check().unwrap_err();
        assert!(e.to_string().contains("in_mac is 0"), "{e}");
        let e =
            cfg(vec![Flow { rate: Rate::Cck11, ..flow("b", 10, 1000, 100) }]).check().unwrap_err();
        assert!(e.to_string().contains("not a rate"), "{e}");
        let u = cfg(vec![flow("ok", 10, 1000, 100)]).check().unwrap();
        assert!(u > 0.0 && u < 0.1, "{u}");
    }

    #[test]
    fn releases_are_periodic_and_in_order() {
        let c = cfg(vec![
            Flow { burst: 2, ..flow("a", 10, 1000, 100) },
            Flow { offset: Span::from_ms(5), ..flow("b", 10, 1000, 100) },
        ]);
        let r = releases(&c, Time::from_ns(0), Time::from_ns(20_000_000));
        let got: Vec<(u64, usize)> = r.iter().map(|&(t, f)| (t.as_ns() / 1_000_000, f)).collect();
        assert_eq!(got, vec![(0, 0), (0, 0), (5, 1), (10, 0), (10, 0), (15, 1)]);
    }
}
