//! The Minstrel-like adaptation: per-destination rate tables and the series they give.

use super::config::MinstrelConfig;
use super::error::RateError;
use sdmac_api::{Confirmation, MacAddress, Rate, RateSeries, Status, Time};
use std::collections::HashMap;

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
