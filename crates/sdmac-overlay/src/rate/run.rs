//! A run: one interface driven with a saturated queue, under a policy, phase by phase.

use super::error::RateError;
use super::minstrel::Minstrel;
use sdmac_api::{
    Ac, Backend, Body, Confirmation, Interface, MacAddress, Rate, RateSeries, Scope, Span, Status,
    Time, TxAttrs, Wait, MAX_PAYLOAD,
};
use std::collections::VecDeque;
use std::time::Duration;

/// How a run chooses each packet's rates.
#[derive(Clone, Debug)]
pub enum Policy {
    /// The adaptation.
    Adaptive(Box<Minstrel>),
    /// The same series for every packet.
    Fixed(RateSeries),
}

/// A run: a saturated queue to one destination for a time.
#[derive(Clone, Debug, PartialEq)]
pub struct RatePlan {
    /// How long packets are sent (backend time).
    pub duration: Span,
    /// Payload of each packet (bytes).
    pub payload_len: usize,
    /// Most packets requested and not yet confirmed.
    pub window: usize,
    /// Under the adaptation, how much expected airtime may be queued (the number of
    /// packets in flight is this over [`Minstrel::expected_ns`], at most `window`; two
    /// until a rate has been tried): a packet's series is chosen when it is
    /// requested, so every packet queued ahead delays what the adaptation has learnt.
    /// A fixed series always keeps `window` packets in flight.
    pub backlog: Span,
    /// Transmit power changes (`tx_power`, dBm) at offsets from the start, in order:
    /// each starts a new phase of the report.
    pub steps: Vec<(Span, f64)>,
}

impl Default for RatePlan {
    fn default() -> Self {
        RatePlan {
            duration: Span::from_ms(300),
            payload_len: 1000,
            window: 64,
            backlog: Span::from_ms(40),
            steps: Vec::new(),
        }
    }
}

impl RatePlan {
    /// Refuses a plan that cannot be run: no time, no window, a payload too long, steps
    /// out of order or outside the run, a power that is not a number.
    pub fn check(&self) -> Result<(), RateError> {
        if self.duration.is_zero() {
            return Err(RateError::Plan("duration is 0".into()));
        }
        if self.window == 0 {
            return Err(RateError::Plan("window is 0: nothing could ever be sent".into()));
        }
        if self.payload_len == 0 || self.payload_len > MAX_PAYLOAD {
            return Err(RateError::Plan(format!(
                "payload of {} bytes is not within 1..={MAX_PAYLOAD}",
                self.payload_len
            )));
        }
        let mut last = Span::ZERO;
        for (k, &(at, dbm)) in self.steps.iter().enumerate() {
            if at.is_zero() || at >= self.duration {
                return Err(RateError::Plan(format!(
                    "step {k} at {} µs is not inside the run (0, {} µs)",
                    at.as_ns() / 1000,
                    self.duration.as_ns() / 1000
                )));
            }
            if at <= last && k > 0 {
                return Err(RateError::Plan(format!(
                    "step {k} at {} µs is not after the step before it",
                    at.as_ns() / 1000
                )));
            }
            if !dbm.is_finite() {
                return Err(RateError::Plan(format!("step {k}: tx power {dbm} is not a number")));
            }
            last = at;
        }
        Ok(())
    }
}

/// One phase of a run (between two transmit power steps).
#[derive(Clone, Debug, PartialEq)]
pub struct Phase {
    /// Its start, from the start of the run.
    pub start: Span,
    /// Packets acknowledged within it.
    pub delivered: u64,
    /// Attempts confirmed within it.
    pub attempts: u64,
    /// The adaptation's rate of best throughput at its end (None for a fixed series).
    pub best: Option<Rate>,
}

/// What a run shows.
#[derive(Clone, Debug, PartialEq)]
pub struct RateRun {
    /// Packets requested.
    pub sent: u64,
    /// Packets acknowledged before the end of the run.
    pub delivered: u64,
    /// Attempts of the packets confirmed.
    pub attempts: u64,
    /// Attempts at each rate, lowest rate first (rates never used left out).
    pub attempts_per_rate: Vec<(Rate, u64)>,
    /// The phases, in order.
    pub phases: Vec<Phase>,
}

/// Runs `plan` on `iface` to `dst` under `policy`.
pub fn run<B: Backend>(
    iface: &mut Interface<B>,
    dst: MacAddress,
    policy: &mut Policy,
    plan: &RatePlan,
) -> Result<RateRun, RateError> {
    plan.check()?;
    let api = |what: &'static str| move |error| RateError::Api { what, error };
    let payload = vec![0xa5_u8; plan.payload_len];
    let start = iface.now();
    let end = start.saturating_add(plan.duration);
    let bounds: Vec<Time> = std::iter::once(start)
        .chain(plan.steps.iter().map(|s| start.saturating_add(s.0)))
        .collect();
    let mut phases: Vec<Phase> = bounds
        .iter()
        .map(|b| Phase { start: b.saturating_since(start), delivered: 0, attempts: 0, best: None })
        .collect();
    let phase_of = |t: Time| bounds.iter().rposition(|b| t >= *b).unwrap_or(0);
    let mut next_step = 0;
    let mut per_rate: Vec<(Rate, u64)> = Vec::new();
    let mut in_flight: VecDeque<u64> = VecDeque::new();
    let (mut sent, mut delivered, mut attempts) = (0u64, 0u64, 0u64);
    let mut last_con = start;
    let on_con = |c: &Confirmation,
                  policy: &mut Policy,
                  phases: &mut Vec<Phase>,
                  per_rate: &mut Vec<(Rate, u64)>,
                  delivered: &mut u64,
                  attempts: &mut u64| {
        if let Policy::Adaptive(m) = policy {
            m.confirm(dst, c);
        }
        let t = if c.ts.t5.is_zero() { c.ts.t9 } else { c.ts.t5 };
        if t > end {
            return;
        }
        let ph = &mut phases[phase_of(t)];
        ph.attempts += c.attempts as u64;
        *attempts += c.attempts as u64;
        if c.status == Status::Acked {
            ph.delivered += 1;
            *delivered += 1;
        }
        for &(r, n) in c.rates_used() {
            match per_rate.iter_mut().find(|e| e.0 == r) {
                Some(e) => e.1 += n as u64,
                None => per_rate.push((r, n as u64)),
            }
        }
    };
    loop {
        let now = iface.now();
        while next_step < plan.steps.len() && now >= bounds[next_step + 1] {
            if let Policy::Adaptive(m) = policy {
                phases[next_step].best = m.decision(dst).map(|d| d.best_throughput);
            }
            iface
                .set("tx_power", Scope::Adapter, plan.steps[next_step].1)
                .map_err(api("setting tx_power"))?;
            next_step += 1;
        }
        if now >= end {
            break;
        }
        let limit = match policy {
            Policy::Adaptive(m) => match m.expected_ns(dst) {
                Some(e) => (plan.backlog.as_ns() / e.max(1)).clamp(1, plan.window as u64) as usize,
                None => plan.window.min(2),
            },
            Policy::Fixed(_) => plan.window,
        };
        if in_flight.len() < limit {
            let rates = match policy {
                Policy::Adaptive(m) => m.series(dst, now),
                Policy::Fixed(r) => *r,
            };
            let attrs = TxAttrs { dst: Some(dst), rates: Some(rates), ..TxAttrs::default() };
            iface
                .data_req(sent, Body::Payload(&payload), Ac::Be, &attrs)
                .map_err(api("data_req"))?;
            in_flight.push_back(sent);
            sent += 1;
            continue;
        }
        let left = end.saturating_since(iface.now()).as_ns().min(200_000);
        if let Some(c) =
            iface.data_con(Wait::For(Duration::from_nanos(left))).map_err(api("data_con"))?
        {
            in_flight.retain(|&id| id != c.id);
            last_con = iface.now();
            on_con(&c, policy, &mut phases, &mut per_rate, &mut delivered, &mut attempts);
        }
    }
    if let Policy::Adaptive(m) = policy {
        phases.last_mut().expect("one phase at least").best =
            m.decision(dst).map(|d| d.best_throughput);
    }
    // The requests still queued are cancelled; those on air are waited for.
    for &id in &in_flight {
        iface.cancel(id).map_err(api("cancel"))?;
    }
    while !in_flight.is_empty() {
        match iface.data_con(Wait::For(Duration::from_millis(100))).map_err(api("data_con"))? {
            Some(c) => {
                in_flight.retain(|&id| id != c.id);
                last_con = iface.now();
                on_con(&c, policy, &mut phases, &mut per_rate, &mut delivered, &mut attempts);
            }
            None if iface.now().saturating_since(last_con) > Span::from_secs(2) => {
                return Err(RateError::Stalled { unconfirmed: in_flight.len() });
            }
            None => {}
        }
    }
    per_rate.sort_by_key(|e| e.0.kbps());
    Ok(RateRun { sent, delivered, attempts, attempts_per_rate: per_rate, phases })
}
