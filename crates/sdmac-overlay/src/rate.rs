//! Rate adaptation in user space, Minstrel-like, driven by confirmations.
//!
//! [`Minstrel`] keeps, per destination, a table with one row per candidate rate: the
//! attempts and successes reported by confirmations ([`Minstrel::confirm`]) and, every
//! update interval of backend time, an exponentially weighted moving average (EWMA) of
//! the success probability. A rate's throughput estimate is its probability times the
//! bits of a frame over the time one attempt takes: DIFS, the mean backoff of CWmin,
//! the DATA frame, SIFS and the ACK, all from the IEEE 802.11 airtime formulas of
//! `sdmac-phy`. A rate never tried counts as certain (so the table starts from the top
//! and descends), and one below 10 % as carrying nothing.
//!
//! Each packet gets a rate series ([`Minstrel::series`]): best throughput, second best
//! throughput, best probability, lowest rate (a rate already in the series is not
//! repeated). A share of packets ([`MinstrelConfig::sample_share`]) instead probes a
//! rate drawn at random, with one try, ahead of the best; a rate whose throughput could
//! not beat the best's even if every attempt succeeded is not probed. The draws come
//! from a generator seeded by [`MinstrelConfig::seed`], so the same confirmations give
//! the same series.
//!
//! [`run`] drives one interface with a saturated queue for a time, under the adaptation
//! or a fixed series, optionally changing the transmit power (the `tx_power` attribute)
//! at set moments to move the link, and reports what was delivered per phase.

use sdmac_api::{
    Ac, ApiError, Backend, Body, Confirmation, Interface, MacAddress, Rate, RateSeries, Scope,
    Span, Status, Time, TxAttrs, Wait, MAX_PAYLOAD,
};
use sdmac_phy::{Phy, LEGACY_RATES};
use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::time::Duration;

/// Why the rate adaptation or a run refused, or stopped.
#[derive(Debug, Clone, PartialEq)]
pub enum RateError {
    /// No candidate rate (none given and the standard has none).
    NoRates,
    /// A candidate rate the PHY standard cannot send.
    UnsupportedRate {
        /// The rate.
        rate: Rate,
        /// The standard's name.
        standard: &'static str,
    },
    /// A candidate rate given twice.
    DuplicateRate(Rate),
    /// A sampling share outside 0..1.
    SampleShare(f64),
    /// An EWMA weight outside (0, 1].
    EwmaWeight(f64),
    /// An update interval of zero.
    ZeroInterval,
    /// An entry of the tries with 0 or more than 15 tries.
    Tries {
        /// Which entry (0: best throughput .. 3: lowest).
        entry: usize,
        /// Its tries.
        tries: u8,
    },
    /// A run plan that cannot be carried out.
    Plan(String),
    /// A primitive failed.
    Api {
        /// What it was doing.
        what: &'static str,
        /// The error.
        error: ApiError,
    },
    /// No confirmation came for this long while some were due.
    Stalled {
        /// Requests unconfirmed.
        unconfirmed: usize,
    },
}

impl fmt::Display for RateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RateError::NoRates => write!(f, "rate adaptation: no candidate rate"),
            RateError::UnsupportedRate { rate, standard } => {
                write!(f, "rate adaptation: {rate} is not a rate of {standard}")
            }
            RateError::DuplicateRate(r) => write!(f, "rate adaptation: rate {r} given twice"),
            RateError::SampleShare(s) => {
                write!(f, "rate adaptation: sample share {s} is not within 0..1")
            }
            RateError::EwmaWeight(w) => {
                write!(f, "rate adaptation: EWMA weight {w} is not within (0, 1]")
            }
            RateError::ZeroInterval => write!(f, "rate adaptation: update interval is 0"),
            RateError::Tries { entry, tries } => write!(
                f,
                "rate adaptation: entry {entry} of the series has {tries} tries (must be 1..=15)"
            ),
            RateError::Plan(m) => write!(f, "rate run plan: {m}"),
            RateError::Api { what, error } => write!(f, "rate run: {what}: {error}"),
            RateError::Stalled { unconfirmed } => {
                write!(
                    f,
                    "rate run: no confirmation for 2 s with {unconfirmed} requests unconfirmed"
                )
            }
        }
    }
}

impl std::error::Error for RateError {}

/// Parameters of the adaptation.
#[derive(Clone, Debug, PartialEq)]
pub struct MinstrelConfig {
    /// PHY timing, for the airtime of each rate.
    pub phy: Phy,
    /// Candidate rates (empty: the standard's legacy rates).
    pub rates: Vec<Rate>,
    /// Share of packets that probe another rate (0..1; Minstrel uses 0.1).
    pub sample_share: f64,
    /// Weight of the newest interval in the EWMA of the success probability (0..=1;
    /// Minstrel uses 0.25).
    pub ewma_weight: f64,
    /// How often (backend time) the probabilities and the ranking are updated.
    pub update_interval: Span,
    /// Tries of the four entries: best throughput, second best, best probability,
    /// lowest.
    pub tries: [u8; 4],
    /// Seed of the sampling draws.
    pub seed: u64,
}

impl MinstrelConfig {
    /// Minstrel's usual parameters on `phy`: every legacy rate of its standard, 10 %
    /// sampling, EWMA weight 0.25, updates every 50 ms, two tries per entry.
    pub fn new(phy: Phy) -> MinstrelConfig {
        MinstrelConfig {
            phy,
            rates: Vec::new(),
            sample_share: 0.1,
            ewma_weight: 0.25,
            update_interval: Span::from_ms(50),
            tries: [2, 2, 2, 2],
            seed: 1,
        }
    }

    /// The candidate rates, lowest first, or why they cannot be used.
    fn candidates(&self) -> Result<Vec<Rate>, RateError> {
        if !(0.0..1.0).contains(&self.sample_share) {
            return Err(RateError::SampleShare(self.sample_share));
        }
        if !(self.ewma_weight > 0.0 && self.ewma_weight <= 1.0) {
            return Err(RateError::EwmaWeight(self.ewma_weight));
        }
        if self.update_interval.is_zero() {
            return Err(RateError::ZeroInterval);
        }
        if let Some((entry, &tries)) =
            self.tries.iter().enumerate().find(|(_, &t)| t == 0 || t > sdmac_api::MAX_TRIES)
        {
            return Err(RateError::Tries { entry, tries });
        }
        let std = self.phy.standard;
        let mut rates: Vec<Rate> = if self.rates.is_empty() {
            LEGACY_RATES.iter().copied().filter(|r| std.supports(*r)).collect()
        } else {
            self.rates.clone()
        };
        if rates.is_empty() {
            return Err(RateError::NoRates);
        }
        if let Some(r) = rates.iter().find(|r| !std.supports(**r)) {
            return Err(RateError::UnsupportedRate { rate: *r, standard: std.name() });
        }
        for (k, r) in rates.iter().enumerate() {
            if rates[..k].contains(r) {
                return Err(RateError::DuplicateRate(*r));
            }
        }
        rates.sort_by_key(|r| r.kbps());
        Ok(rates)
    }
}

/// One row of a destination's table.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct RateStat {
    /// The rate.
    pub rate: Rate,
    /// EWMA of the success probability of one attempt (None: never tried).
    pub prob: Option<f64>,
    /// Throughput estimate (bit/s) for the destination's latest frame length.
    pub throughput_bps: f64,
    /// Attempts at this rate, in all.
    pub attempts: u64,
    /// Successful attempts, in all.
    pub successes: u64,
    cur_attempts: u32,
    cur_successes: u32,
}

#[derive(Clone, Debug)]
struct Table {
    stats: Vec<RateStat>,
    last_update: Option<Time>,
    frame_len: u32,
    best_tp: usize,
    second_tp: usize,
    best_prob: usize,
    packets: u64,
    samples: u64,
}

/// What the adaptation has decided for one destination.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    /// The rate of best throughput.
    pub best_throughput: Rate,
    /// The second best.
    pub second_throughput: Rate,
    /// The rate of best success probability.
    pub best_probability: Rate,
    /// Packets given a series.
    pub packets: u64,
    /// Of those, packets that probed another rate.
    pub samples: u64,
    /// The table, lowest rate first.
    pub table: Vec<RateStat>,
}

/// Minstrel-like rate adaptation for any number of destinations.
#[derive(Clone, Debug)]
pub struct Minstrel {
    cfg: MinstrelConfig,
    rates: Vec<Rate>,
    tables: HashMap<MacAddress, Table>,
    rng: u64,
}

/// Frame length assumed before a destination's first confirmation (bytes on air).
const DEFAULT_FRAME_LEN: u32 = 1536;

impl Minstrel {
    /// The adaptation with `cfg`; refuses an empty or unsupported rate set, a sampling
    /// share outside 0..1, an EWMA weight outside (0, 1], a zero interval or bad tries.
    pub fn new(cfg: MinstrelConfig) -> Result<Minstrel, RateError> {
        let rates = cfg.candidates()?;
        let rng = cfg.seed;
        Ok(Minstrel { cfg, rates, tables: HashMap::new(), rng })
    }

    /// The candidate rates, lowest first.
    pub fn rates(&self) -> &[Rate] {
        &self.rates
    }

    fn next_u64(&mut self) -> u64 {
        // SplitMix64.
        self.rng = self.rng.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Time of one attempt at `rate` of a frame of `len` bytes (ns): DIFS, the mean
    /// backoff of CWmin, DATA, SIFS and ACK.
    pub fn attempt_ns(&self, len: u32, rate: Rate) -> u64 {
        let p = &self.cfg.phy;
        p.difs_ns()
            + p.cw_min as u64 * p.slot_ns / 2
            + p.airtime_ns(len, rate)
            + p.sifs_ns
            + p.ack_airtime_ns(rate)
    }

    fn ideal_bps(&self, len: u32, rate: Rate) -> f64 {
        8.0 * len as f64 * 1e9 / self.attempt_ns(len, rate) as f64
    }

    fn table(&mut self, dst: MacAddress) -> &mut Table {
        let rates = &self.rates;
        self.tables.entry(dst).or_insert_with(|| {
            let stats = rates
                .iter()
                .map(|&rate| RateStat {
                    rate,
                    prob: None,
                    throughput_bps: 0.0,
                    attempts: 0,
                    successes: 0,
                    cur_attempts: 0,
                    cur_successes: 0,
                })
                .collect();
            Table {
                stats,
                last_update: None,
                frame_len: DEFAULT_FRAME_LEN,
                best_tp: 0,
                second_tp: 0,
                best_prob: 0,
                packets: 0,
                samples: 0,
            }
        })
    }

    /// Folds the interval's counts into the EWMA and ranks the rates again.
    fn update(&mut self, dst: MacAddress) {
        let w = self.cfg.ewma_weight;
        let len = self.table(dst).frame_len;
        let ideal: Vec<f64> = self.rates.clone().iter().map(|&r| self.ideal_bps(len, r)).collect();
        let t = self.table(dst);
        for (s, ideal) in t.stats.iter_mut().zip(&ideal) {
            if s.cur_attempts > 0 {
                let p = s.cur_successes as f64 / s.cur_attempts as f64;
                s.prob = Some(match s.prob {
                    None => p,
                    Some(old) => (1.0 - w) * old + w * p,
                });
                s.cur_attempts = 0;
                s.cur_successes = 0;
            }
            let p = s.prob.unwrap_or(1.0);
            s.throughput_bps = if p < 0.1 { 0.0 } else { p * ideal };
        }
        // Ties go to the higher rate (the later index).
        let mut order: Vec<usize> = (0..t.stats.len()).collect();
        order.sort_by(|&a, &b| {
            t.stats[b].throughput_bps.total_cmp(&t.stats[a].throughput_bps).then(b.cmp(&a))
        });
        t.best_tp = order[0];
        t.second_tp = *order.get(1).unwrap_or(&order[0]);
        t.best_prob = (0..t.stats.len())
            .filter(|&k| t.stats[k].prob.is_some())
            .max_by(|&a, &b| {
                let (pa, pb) = (t.stats[a].prob.unwrap_or(0.0), t.stats[b].prob.unwrap_or(0.0));
                // Above 95 % the probabilities count as equal, and throughput decides.
                let (ca, cb) = (pa.min(0.95), pb.min(0.95));
                ca.total_cmp(&cb)
                    .then(t.stats[a].throughput_bps.total_cmp(&t.stats[b].throughput_bps))
            })
            .unwrap_or(0);
    }

    /// The rate series for the next packet to `dst`, at backend time `now`.
    pub fn series(&mut self, dst: MacAddress, now: Time) -> RateSeries {
        let interval = self.cfg.update_interval;
        let due = match self.table(dst).last_update {
            None => true,
            Some(t) => now.saturating_since(t) >= interval,
        };
        if due {
            self.update(dst);
            self.table(dst).last_update = Some(now);
        }
        let share = self.cfg.sample_share;
        let tries = self.cfg.tries;
        let draw = (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        let n = self.rates.len();
        let pick = (self.next_u64() % n as u64) as usize;
        let len = self.table(dst).frame_len;
        let ideal_pick = self.ideal_bps(len, self.rates[pick]);
        let t = self.table(dst);
        t.packets += 1;
        let mut entries: Vec<(Rate, u8)> = Vec::with_capacity(4);
        let mut push = |r: Rate, k: u8| {
            if !entries.iter().any(|e| e.0 == r) && entries.len() < 4 {
                entries.push((r, k));
            }
        };
        let best = t.stats[t.best_tp];
        if draw < share && pick != t.best_tp && ideal_pick > best.throughput_bps {
            t.samples += 1;
            push(t.stats[pick].rate, 1);
            push(best.rate, tries[0]);
            push(t.stats[t.best_prob].rate, tries[2]);
            push(t.stats[0].rate, tries[3]);
        } else {
            push(best.rate, tries[0]);
            push(t.stats[t.second_tp].rate, tries[1]);
            push(t.stats[t.best_prob].rate, tries[2]);
            push(t.stats[0].rate, tries[3]);
        }
        RateSeries::new(&entries).expect("one to four entries, each with a try")
    }

    /// Counts the attempts of a confirmation of a packet sent to `dst`: every attempt
    /// failed but the last of an acknowledged packet. Confirmations of packets that
    /// never went on air, or whose outcome is unknown, count nothing.
    pub fn confirm(&mut self, dst: MacAddress, c: &Confirmation) {
        let ok = match c.status {
            Status::Acked => true,
            Status::AckTimeout => false,
            Status::Sent | Status::NoReport | Status::Dropped(_) => return,
        };
        let t = self.table(dst);
        if c.len > 0 {
            t.frame_len = c.len;
        }
        let used = c.rates_used();
        for (k, &(rate, n)) in used.iter().enumerate() {
            let Some(s) = t.stats.iter_mut().find(|s| s.rate == rate) else { continue };
            s.cur_attempts += n as u32;
            s.attempts += n as u64;
            if ok && k + 1 == used.len() && n > 0 {
                s.cur_successes += 1;
                s.successes += 1;
            }
        }
    }

    /// Expected time to deliver one packet to `dst` at the rate of best throughput
    /// (ns): one attempt's time over its success probability (taken as at least 10 %;
    /// an untried rate counts as certain). None until some rate has been tried.
    pub fn expected_ns(&self, dst: MacAddress) -> Option<u64> {
        let t = self.tables.get(&dst)?;
        t.stats.iter().find(|s| s.prob.is_some())?;
        let s = &t.stats[t.best_tp];
        let p = s.prob.unwrap_or(1.0);
        Some((self.attempt_ns(t.frame_len, s.rate) as f64 / p.max(0.1)) as u64)
    }

    /// What the adaptation has decided for `dst` (None before its first packet).
    pub fn decision(&self, dst: MacAddress) -> Option<Decision> {
        let t = self.tables.get(&dst)?;
        Some(Decision {
            best_throughput: t.stats[t.best_tp].rate,
            second_throughput: t.stats[t.second_tp].rate,
            best_probability: t.stats[t.best_prob].rate,
            packets: t.packets,
            samples: t.samples,
            table: t.stats.clone(),
        })
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use sdmac_api::{Confirmation, Timestamps};
    use sdmac_phy::Standard;

    const DST: MacAddress = MacAddress([2, 0, 0, 0, 0, 1]);

    fn con(series: &RateSeries, works: impl Fn(Rate) -> bool) -> Confirmation {
        let mut rates = [(Rate::Ofdm6, 0u8); 4];
        let mut n = 0;
        let mut acked = false;
        let mut attempts = 0;
        'outer: for &(r, t) in series.entries() {
            let mut used = 0;
            for _ in 0..t {
                used += 1;
                attempts += 1;
                if works(r) {
                    acked = true;
                    rates[n] = (r, used);
                    n += 1;
                    break 'outer;
                }
            }
            rates[n] = (r, used);
            n += 1;
        }
        Confirmation {
            id: 0,
            status: if acked { Status::Acked } else { Status::AckTimeout },
            ac: Ac::Be,
            attempts,
            rates,
            n_rates: n as u8,
            len: 1028,
            truth: None,
            ts: Timestamps::default(),
        }
    }

    fn drive(m: &mut Minstrel, packets: u64, works: impl Fn(Rate) -> bool) -> Vec<RateSeries> {
        let mut out = Vec::new();
        for k in 0..packets {
            let s = m.series(DST, Time::from_ns(k * 1_000_000));
            m.confirm(DST, &con(&s, &works));
            out.push(s);
        }
        out
    }

    fn cfg() -> MinstrelConfig {
        MinstrelConfig {
            update_interval: Span::from_ms(10),
            ..MinstrelConfig::new(Phy::new(Standard::Dot11a))
        }
    }

    #[test]
    fn settles_on_the_fastest_rate_that_works() {
        let mut m = Minstrel::new(cfg()).unwrap();
        drive(&mut m, 500, |r| r.kbps() <= 36_000);
        let d = m.decision(DST).unwrap();
        assert_eq!(d.best_throughput, Rate::Ofdm36, "{d:?}");
        assert!(d.samples > 0 && d.samples < d.packets / 5, "{d:?}");
        let s = m.series(DST, Time::from_ns(600_000_000));
        assert_eq!(s.entries().last().unwrap().0, Rate::Ofdm6, "the lowest rate ends {s:?}");
    }

    #[test]
    fn follows_a_link_that_gets_worse() {
        let mut m = Minstrel::new(cfg()).unwrap();
        drive(&mut m, 300, |r| r.kbps() <= 48_000);
        assert_eq!(m.decision(DST).unwrap().best_throughput, Rate::Ofdm48);
        let later: Vec<RateSeries> = (300..900)
            .map(|k| {
                let s = m.series(DST, Time::from_ns(k * 1_000_000));
                m.confirm(DST, &con(&s, |r| r.kbps() <= 12_000));
                s
            })
            .collect();
        assert_eq!(m.decision(DST).unwrap().best_throughput, Rate::Ofdm12);
        assert_eq!(later.last().unwrap().entries()[0].0, Rate::Ofdm12);
    }

    #[test]
    fn same_seed_same_series() {
        let works = |r: Rate| r.kbps() <= 24_000;
        let a = drive(&mut Minstrel::new(cfg()).unwrap(), 400, works);
        let b = drive(&mut Minstrel::new(cfg()).unwrap(), 400, works);
        assert_eq!(a, b);
        let c =
            drive(&mut Minstrel::new(MinstrelConfig { seed: 99, ..cfg() }).unwrap(), 400, works);
        assert_ne!(a, c, "another seed samples other packets");
    }

    #[test]
    fn refusals() {
        let e = |c: MinstrelConfig| Minstrel::new(c).unwrap_err();
        assert_eq!(e(MinstrelConfig { sample_share: 1.0, ..cfg() }), RateError::SampleShare(1.0));
        assert_eq!(e(MinstrelConfig { sample_share: -0.1, ..cfg() }), RateError::SampleShare(-0.1));
        assert_eq!(e(MinstrelConfig { ewma_weight: 0.0, ..cfg() }), RateError::EwmaWeight(0.0));
        assert_eq!(
            e(MinstrelConfig { update_interval: Span::ZERO, ..cfg() }),
            RateError::ZeroInterval
        );
        assert_eq!(
            e(MinstrelConfig { tries: [2, 0, 2, 2], ..cfg() }),
            RateError::Tries { entry: 1, tries: 0 }
        );
        assert_eq!(
            e(MinstrelConfig { rates: vec![Rate::Cck11], ..cfg() }),
            RateError::UnsupportedRate { rate: Rate::Cck11, standard: Standard::Dot11a.name() }
        );
        assert_eq!(
            e(MinstrelConfig { rates: vec![Rate::Ofdm6, Rate::Ofdm6], ..cfg() }),
            RateError::DuplicateRate(Rate::Ofdm6)
        );
        let msg = e(MinstrelConfig { sample_share: 2.0, ..cfg() }).to_string();
        assert!(msg.contains("sample share 2"), "{msg}");
    }

    #[test]
    fn plan_refusals() {
        let ok = RatePlan::default();
        assert!(ok.check().is_ok());
        let bad = |p: RatePlan| p.check().unwrap_err().to_string();
        assert!(bad(RatePlan { duration: Span::ZERO, ..ok.clone() }).contains("duration is 0"));
        assert!(bad(RatePlan { window: 0, ..ok.clone() }).contains("window is 0"));
        assert!(bad(RatePlan { payload_len: 0, ..ok.clone() }).contains("payload of 0"));
        let steps = vec![(Span::from_ms(300), 10.0)];
        assert!(bad(RatePlan { steps, ..ok.clone() }).contains("not inside the run"));
        let steps = vec![(Span::from_ms(200), 10.0), (Span::from_ms(100), 5.0)];
        assert!(bad(RatePlan { steps, ..ok.clone() }).contains("not after"));
        let steps = vec![(Span::from_ms(100), f64::NAN)];
        assert!(bad(RatePlan { steps, ..ok }).contains("not a number"));
    }

    #[test]
    fn attempt_time_from_the_airtime_formulas() {
        let m = Minstrel::new(cfg()).unwrap();
        // 802.11a, 1028 bytes at 54 Mb/s: 20 µs + 4 µs × ceil((16 + 8224 + 6) / 216) =
        // 176 µs; DIFS 34, mean backoff 7.5 slots of 9 µs, SIFS 16, ACK at 24 Mb/s 28.
        assert_eq!(m.attempt_ns(1028, Rate::Ofdm54), 34_000 + 67_500 + 176_000 + 16_000 + 28_000);
    }
}
