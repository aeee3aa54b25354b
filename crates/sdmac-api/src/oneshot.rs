//! The SDMAC paper's measurement task: confirmed one-shot transmissions, each timed
//! against a beacon (or back to back), with every timestamp recorded. Written on the
//! public API only, so it runs unchanged on every backend.

use crate::backend::{Backend, Wait};
use crate::confirmation::Status;
use crate::error::ApiError;
use crate::interface::Interface;
use crate::request::{Body, TxAttrs};
use crate::timestamps::{Components, Timestamps, COMPONENT_NAMES};
use sdmac_measure::Summary;
use sdmac_phy::Rate;
use sdmac_types::MacAddress;
use sdmac_types::{Ac, RateSeries, Span, Time};
use serde_json::{json, Map, Value as Json};
use std::time::Duration;

/// When each transmission is requested.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `twait` after the end of each beacon heard (the paper: 20 ms after beacons
    /// 51.2 ms apart): the channel is quiet and the station's clock is aligned.
    Beacon {
        /// Delay after the beacon.
        twait: Span,
    },
    /// `gap` after the previous confirmation returned. A gap of at least EIFS +
    /// CWmin slots (94 + 135 µs for 802.11a) lets any post-transmission backoff finish,
    /// even after a corrupted ACK, so channel access is immediate and only software and
    /// air time are measured (beacons aside).
    BackToBack {
        /// Gap after each confirmation.
        gap: Span,
    },
}

/// Parameters of a run.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct OneshotParams {
    /// Pacing.
    pub mode: Mode,
    /// Transmissions.
    pub count: u64,
    /// Payload bytes (the paper: 50).
    pub payload: usize,
    /// The one rate (the paper: 54 Mb/s).
    pub rate: Rate,
    /// Destination (the AP).
    pub dst: MacAddress,
    /// Access category.
    pub ac: Ac,
    /// How long to wait for a beacon or a confirmation before giving up.
    pub timeout: Duration,
}

/// One measured transmission.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Sample {
    /// The request id.
    pub id: u64,
    /// Outcome set: A, LD, LA (or NOACK, DROP, or L without the truth).
    pub set: &'static str,
    /// The adapter's status.
    pub status: Status,
    /// Why the last attempt failed (from the truth; "none" when acked or unknown).
    pub cause: &'static str,
    /// Attempts made.
    pub attempts: u8,
    /// Components (ns).
    pub c: Components,
    /// Timestamps.
    pub ts: Timestamps,
}

/// Why a run stopped early.
#[derive(Debug)]
pub enum RunError {
    /// A primitive failed.
    Api(ApiError),
    /// No beacon was heard in time.
    NoBeacon(Duration),
    /// A confirmation did not come in time.
    NoConfirmation {
        /// The request.
        id: u64,
        /// How long we waited.
        waited: Duration,
    },
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Api(e) => write!(f, "{e}"),
            RunError::NoBeacon(d) => write!(
                f,
                "no beacon heard within {:.1} s: is an AP beaconing on this channel?",
                d.as_secs_f64()
            ),
            RunError::NoConfirmation { id, waited } => {
                write!(f, "no confirmation for request {id} within {:.1} s", waited.as_secs_f64())
            }
        }
    }
}

impl std::error::Error for RunError {}

impl From<ApiError> for RunError {
    fn from(e: ApiError) -> RunError {
        RunError::Api(e)
    }
}

/// Waits until `t` on `CLOCK_MONOTONIC`: sleeps, then spins the last 200 µs.
fn wait_until(t: Time) {
    loop {
        let now = sdmac_rt::monotonic_ns();
        if now >= t.as_ns() {
            return;
        }
        let left = t.as_ns() - now;
        if left > 300_000 {
            std::thread::sleep(Duration::from_nanos(left - 200_000));
        } else {
            std::hint::spin_loop();
        }
    }
}

/// Runs the task. `progress(done, total)` is called after every sample; returning
/// false stops the run (the samples so far are returned). No allocation after start.
pub fn run<B: Backend>(
    iface: &mut Interface<B>,
    p: &OneshotParams,
    mut progress: impl FnMut(u64, u64) -> bool,
) -> Result<Vec<Sample>, RunError> {
    let mut samples = Vec::with_capacity(p.count as usize);
    let payload = vec![0x5au8; p.payload];
    let attrs = TxAttrs {
        dst: Some(p.dst),
        rates: Some(RateSeries::single(p.rate, 1)),
        no_ack: false,
        timestamps: true,
        not_before: None,
        not_after: None,
    };
    let mut last_con = Time::ZERO;
    for i in 0..p.count {
        match p.mode {
            Mode::Beacon { twait } => {
                // The most recent beacon, or the next one.
                let mut latest = None;
                while let Some(b) = iface.beacon_ind(Wait::NoWait)? {
                    latest = Some(b);
                }
                let fresh = latest.filter(|b| b.t_end + twait > iface.now());
                let b = match fresh {
                    Some(b) => b,
                    None => iface
                        .beacon_ind(Wait::For(p.timeout))?
                        .ok_or(RunError::NoBeacon(p.timeout))?,
                };
                wait_until(b.t_end + twait);
            }
            Mode::BackToBack { gap } => {
                if !last_con.is_zero() {
                    wait_until(last_con + gap);
                }
            }
        }
        let id = i + 1;
        iface.data_req(id, Body::Payload(&payload), p.ac, &attrs)?;
        let c = iface
            .data_con(Wait::For(p.timeout))?
            .ok_or(RunError::NoConfirmation { id, waited: p.timeout })?;
        last_con = c.ts.t9;
        let comps = c.ts.components().unwrap_or_default();
        samples.push(Sample {
            id: c.id,
            set: c.set_name(),
            status: c.status,
            cause: c.truth.map(|t| t.cause.name()).unwrap_or("none"),
            attempts: c.attempts,
            c: comps,
            ts: c.ts,
        });
        if !progress(i + 1, p.count) {
            break;
        }
    }
    Ok(samples)
}

/// The sets reported, in order; other outcomes (if any) follow them.
pub const SETS: [&str; 3] = ["A", "LD", "LA"];

fn summary_json(s: &Summary) -> Json {
    let f = |x: f64| if x.is_finite() { json!(x) } else { Json::Null };
    json!({
        "mean": f(s.mean), "sd": f(s.sd), "min": f(s.min), "p99": f(s.p99),
        "p99.9": f(s.p999), "p99.99": f(s.p9999), "max": f(s.max),
        "ci95": [f(s.ci95_lo), f(s.ci95_hi)],
    })
}

/// The report: `{"config": config, "sets": {"A": {"count": n, "components": {name:
/// {mean, sd, min, p99, p99.9, p99.99, max, ci95}}, "ttoa_us": {value: count}}, ...}}`,
/// all times in µs. A, LD and LA are always present.
pub fn report(samples: &[Sample], config: Json) -> Json {
    let mut names: Vec<&'static str> = SETS.to_vec();
    for s in samples {
        if !names.contains(&s.set) {
            names.push(s.set);
        }
    }
    let mut sets = Map::new();
    for name in names {
        let members: Vec<&Sample> = samples.iter().filter(|s| s.set == name).collect();
        let mut comps = Map::new();
        if !members.is_empty() {
            for (k, cname) in COMPONENT_NAMES.iter().enumerate() {
                let v: Vec<f64> =
                    members.iter().map(|s| s.c.as_array()[k] as f64 / 1000.0).collect();
                if let Some(sum) = summary(&v) {
                    comps.insert((*cname).to_string(), summary_json(&sum));
                }
            }
        }
        // Distinct air times, to show the modes (e.g. LA's two).
        let mut modes: Vec<(i64, u64)> = Vec::new();
        for s in &members {
            match modes.iter_mut().find(|m| m.0 == s.c.ttoa) {
                Some(m) => m.1 += 1,
                None => modes.push((s.c.ttoa, 1)),
            }
        }
        modes.sort();
        let mut ttoa = Map::new();
        for (v, n) in modes {
            ttoa.insert(format!("{}", v as f64 / 1000.0), json!(n));
        }
        sets.insert(
            name.to_string(),
            json!({"count": members.len(), "components": comps, "ttoa_us": ttoa}),
        );
    }
    json!({"config": config, "sets": sets})
}

fn summary(v: &[f64]) -> Option<Summary> {
    Summary::of(v).ok().flatten()
}
