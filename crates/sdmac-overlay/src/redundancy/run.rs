//! A run of a sender and a receiver through a plan of packets, and its report.

use super::error::RedundancyError;
use super::header::MAX_APP_PAYLOAD;
use super::receiver::RedundantReceiver;
use super::sender::{Mode, RedundantSender, SenderStats};
use sdmac_api::{Backend, Span, Time, Wait};
use std::collections::HashMap;
use std::time::Duration;

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
    /// 95th percentile.
    pub p95: u64,
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
        Percentiles {
            p50: at(0.5),
            p90: at(0.9),
            p95: at(0.95),
            p99: at(0.99),
            max: v[v.len() - 1],
        }
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
