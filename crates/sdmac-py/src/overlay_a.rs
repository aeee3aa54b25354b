//! The overlays of `sdmac-overlay` part A in Python: software retransmission
//! policies, TDMA (plan, jitter measurement, coordinator, station) and EDF. Each runs
//! on an `Interface` with the GIL released; the interface must stay on one thread.

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use sdmac_api::{Ac, Rate, Span, Time};
use sdmac_overlay::edf::{run_edf, run_fifo, EdfConfig, EdfError, EdfReport, Flow};
use sdmac_overlay::retransmit::{
    BeyondBurst, DeadlineSpread, Fate, FixedSpacing, MacRetries, Policy, RetransmitError,
    Retransmitter,
};
use sdmac_overlay::tdma::{
    measure_jitter, Coordinator, Guard, TdmaError, TdmaParams, TdmaPlan, TdmaStation, TsfSync,
};
use sdmac_overlay::tdma::{run_periodic, PeriodicConfig, PeriodicFlow, Releases, SlotTimes};
use sdmac_phy::{Phy, Standard};
use std::sync::Mutex;

use crate::emu::{api_err, mac_arg, parse_ac, rates_arg, span_arg, PyInterface, TimeUnit};

fn phy_arg(standard: &str) -> PyResult<Phy> {
    let s: Standard = standard
        .parse()
        .map_err(|e: String| PyValueError::new_err(format!("invalid standard: {e}")))?;
    Ok(Phy::new(s))
}

fn rate_arg(what: &str, s: &str) -> PyResult<Rate> {
    s.parse().map_err(|e: sdmac_phy::rate::RateParseError| {
        PyValueError::new_err(format!("invalid {what}: {e}"))
    })
}

/// A non-negative finite number of microseconds as a span.
fn span_us(what: &str, us: f64) -> PyResult<Span> {
    span_arg(what, us, TimeUnit::Us)
}

fn retransmit_err(e: RetransmitError) -> PyErr {
    match e {
        RetransmitError::Api(a) => api_err(a),
        RetransmitError::NoConfirmation { .. } => PyRuntimeError::new_err(e.to_string()),
        _ => PyValueError::new_err(e.to_string()),
    }
}

fn tdma_err(e: TdmaError) -> PyErr {
    match e {
        TdmaError::Api(a) => api_err(a),
        TdmaError::NoConfirmation { .. } | TdmaError::NoGrant { .. } => {
            PyRuntimeError::new_err(e.to_string())
        }
        _ => PyValueError::new_err(e.to_string()),
    }
}

fn edf_err(e: EdfError) -> PyErr {
    match e {
        EdfError::Api(a) => api_err(a),
        EdfError::NoConfirmation { .. } => PyRuntimeError::new_err(e.to_string()),
        _ => PyValueError::new_err(e.to_string()),
    }
}

fn fate_name(f: Fate) -> &'static str {
    match f {
        Fate::Delivered => "delivered",
        Fate::Late => "late",
        Fate::GaveUp => "gave_up",
        Fate::DeadlineReached => "deadline_reached",
        Fate::Dropped => "dropped",
    }
}

/// Sends one packet under a software retransmission policy and returns its record as
/// a dict: fate ("delivered", "late", "gave_up", "deadline_reached", "dropped"),
/// delivered, created_ns, deadline_ns, acked_at_ns, requests, attempts, statuses (of
/// each request). `policy`: "mac_retries" (one request, the MAC's retries in
/// `rates`), "fixed_spacing" (`requests` requests `spacing_us` apart),
/// "beyond_burst" (each retry `burst_us` after the failure) or "deadline_spread"
/// (`requests` spread before the deadline). The deadline is `deadline_us` from now.
#[pyfunction]
#[pyo3(signature = (iface, payload, *, dst, deadline_us, policy = "mac_retries", rates = None, requests = 3, spacing_us = None, burst_us = None, standard = "802.11a", ac = "BE", first_id = 1))]
#[allow(clippy::too_many_arguments)]
fn retransmit(
    py: Python<'_>,
    iface: PyRef<'_, PyInterface>,
    payload: Vec<u8>,
    dst: &str,
    deadline_us: f64,
    policy: &str,
    rates: Option<&Bound<'_, PyAny>>,
    requests: u32,
    spacing_us: Option<f64>,
    burst_us: Option<f64>,
    standard: &str,
    ac: &str,
    first_id: u64,
) -> PyResult<Py<PyDict>> {
    let dst = mac_arg("dst", dst)?;
    let phy = phy_arg(standard)?;
    let ac: Ac = parse_ac(ac)?;
    let rates = match rates {
        Some(r) => rates_arg(r)?,
        None => sdmac_api::RateSeries::single(Rate::Ofdm24, 7),
    };
    let deadline = span_us("deadline_us", deadline_us)?;
    let need = |what: &str, v: Option<f64>| -> PyResult<Span> {
        span_us(
            what,
            v.ok_or_else(|| PyValueError::new_err(format!("policy {policy:?} needs {what}")))?,
        )
    };
    let mut p: Box<dyn Policy + Send> = match policy {
        "mac_retries" => Box::new(MacRetries::new(rates).map_err(retransmit_err)?),
        "fixed_spacing" => Box::new(
            FixedSpacing::new(rates, requests, need("spacing_us", spacing_us)?)
                .map_err(retransmit_err)?,
        ),
        "beyond_burst" => Box::new(
            BeyondBurst::new(rates, requests, need("burst_us", burst_us)?)
                .map_err(retransmit_err)?,
        ),
        "deadline_spread" => {
            Box::new(DeadlineSpread::new(rates, requests).map_err(retransmit_err)?)
        }
        other => {
            return Err(PyValueError::new_err(format!(
            "unknown policy {other:?} (mac_retries, fixed_spacing, beyond_burst, deadline_spread)"
        )))
        }
    };
    let i: &PyInterface = &iface;
    let r = py
        .detach(move || {
            i.with(|i| {
                let mut tx = Retransmitter::new(i, phy, dst, ac, first_id);
                let d = tx.iface().now().saturating_add(deadline);
                tx.send(&payload, d, p.as_mut())
            })
        })
        .map_err(retransmit_err)?;
    let d = PyDict::new(py);
    d.set_item("fate", fate_name(r.fate))?;
    d.set_item("delivered", r.delivered())?;
    d.set_item("created_ns", r.created.as_ns())?;
    d.set_item("deadline_ns", r.deadline.as_ns())?;
    d.set_item("acked_at_ns", r.acked_at.map(|t| t.as_ns()))?;
    d.set_item("requests", r.requests)?;
    d.set_item("attempts", r.attempts)?;
    let st: Vec<&str> = r.confirmations.iter().map(|c| c.status.name()).collect();
    d.set_item("statuses", st)?;
    Ok(d.unbind())
}

/// A checked TDMA plan: rounds of `slots` slots of `slot_us` and a contention
/// period, from `epoch_ns` on the shared clock. Refuses (ValueError) slots that do not
/// fit the round, a guard that leaves nothing of a slot, a frame that does not fit a
/// slot, a contention period too short for a request and its grant.
#[pyclass(frozen, module = "sdmac._core", name = "TdmaPlan")]
pub struct PyTdmaPlan {
    plan: TdmaPlan,
}

#[pymethods]
impl PyTdmaPlan {
    #[new]
    #[pyo3(signature = (*, slots, slot_us, round_us, contention_us, jitter_us, epoch_ns, payload = 200, rate = "24", sync_error_us = 0.0, standard = "802.11a"))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        slots: u32,
        slot_us: f64,
        round_us: f64,
        contention_us: f64,
        jitter_us: f64,
        epoch_ns: u64,
        payload: usize,
        rate: &str,
        sync_error_us: f64,
        standard: &str,
    ) -> PyResult<PyTdmaPlan> {
        let plan = TdmaPlan::new(TdmaParams {
            phy: phy_arg(standard)?,
            round: span_us("round_us", round_us)?,
            slots,
            slot: span_us("slot_us", slot_us)?,
            contention: span_us("contention_us", contention_us)?,
            guard: Guard {
                jitter: span_us("jitter_us", jitter_us)?,
                sync_error: span_us("sync_error_us", sync_error_us)?,
            },
            payload,
            rate: rate_arg("rate", rate)?,
            epoch: Time::from_ns(epoch_ns),
        })
        .map_err(tdma_err)?;
        Ok(PyTdmaPlan { plan })
    }

    /// The time (µs) one data exchange of `payload` bytes at `rate` is given in a slot.
    #[staticmethod]
    #[pyo3(signature = (payload, rate = "24", standard = "802.11a"))]
    fn exchange_for_us(payload: usize, rate: &str, standard: &str) -> PyResult<f64> {
        let phy = phy_arg(standard)?;
        Ok(TdmaPlan::exchange_for(&phy, payload, rate_arg("rate", rate)?).as_us_f64())
    }

    /// Slots per round.
    #[getter]
    fn slots(&self) -> u32 {
        self.plan.params().slots
    }
    /// Length of a round (µs).
    #[getter]
    fn round_us(&self) -> f64 {
        self.plan.params().round.as_us_f64()
    }
    /// Length of a slot (µs).
    #[getter]
    fn slot_us(&self) -> f64 {
        self.plan.params().slot.as_us_f64()
    }
    /// The guard (µs): jitter plus synchronisation error.
    #[getter]
    fn guard_us(&self) -> f64 {
        self.plan.params().guard.total().as_us_f64()
    }
    /// Time one exchange is given (µs).
    #[getter]
    fn exchange_us(&self) -> f64 {
        self.plan.exchange().as_us_f64()
    }
    /// Exchanges that fit in a slot between its guards.
    #[getter]
    fn frames_per_slot(&self) -> u64 {
        self.plan.frames_per_slot()
    }
    /// Start of round 0 (ns, shared clock).
    #[getter]
    fn epoch_ns(&self) -> u64 {
        self.plan.params().epoch.as_ns()
    }
    /// Start of round `k` (ns).
    fn round_start_ns(&self, k: u64) -> u64 {
        self.plan.round_start(k).as_ns()
    }
    /// Where slot `s` of round `k` may be used: (open, close) in ns.
    fn slot_window_ns(&self, k: u64, s: u32) -> (u64, u64) {
        let (o, c) = self.plan.slot_window(k, s);
        (o.as_ns(), c.as_ns())
    }
    fn __str__(&self) -> String {
        self.plan.to_string()
    }
}

/// TSF synchronisation from beacons: fits local time = TSF + offset + drift · (TSF −
/// TSF₀) by least squares over the last `window` beacons; the error is the largest
/// residual plus 1 µs.
#[pyclass(module = "sdmac._core", name = "TsfSync")]
pub struct PyTsfSync {
    inner: Mutex<TsfSync>,
}

#[pymethods]
impl PyTsfSync {
    #[new]
    #[pyo3(signature = (window = 8))]
    fn new(window: usize) -> PyTsfSync {
        PyTsfSync { inner: Mutex::new(TsfSync::new(window)) }
    }
    /// Adds one beacon: its TSF (µs) and the local time its frame started (ns).
    fn observe(&self, tsf_us: u64, local_ns: u64) {
        self.inner
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .observe(tsf_us, Time::from_ns(local_ns));
    }
    /// Beacons in the window.
    #[getter]
    fn samples(&self) -> usize {
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).samples()
    }
    /// The synchronisation error (µs), None before the first beacon.
    #[getter]
    fn error_us(&self) -> Option<f64> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).error().map(|s| s.as_us_f64())
    }
    /// The local time (ns) of TSF instant `tsf_ns`, None before the first beacon.
    fn to_local_ns(&self, tsf_ns: u64) -> Option<u64> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).to_local(tsf_ns).map(|t| t.as_ns())
    }
}

/// Measures the request path's jitter on `iface`: `probes` one-try frames to `dst`,
/// one at a time, `gap_us` apart. Returns latencies_ns (t_start − t1 of each),
/// min_ns, max_ns and spread_ns (the jitter a TDMA guard absorbs).
#[pyfunction]
#[pyo3(signature = (iface, dst, *, rate = "24", probes = 30, gap_us = 1000.0))]
fn tdma_measure_jitter(
    py: Python<'_>,
    iface: PyRef<'_, PyInterface>,
    dst: &str,
    rate: &str,
    probes: u32,
    gap_us: f64,
) -> PyResult<Py<PyDict>> {
    let dst = mac_arg("dst", dst)?;
    let rate = rate_arg("rate", rate)?;
    let gap = span_us("gap_us", gap_us)?;
    let i: &PyInterface = &iface;
    let j = py
        .detach(move || i.with(|i| measure_jitter(i, dst, rate, probes, gap)))
        .map_err(tdma_err)?;
    let d = PyDict::new(py);
    let lat: Vec<u64> = j.latencies.iter().map(|s| s.as_ns()).collect();
    d.set_item("latencies_ns", lat)?;
    d.set_item("min_ns", j.min.as_ns())?;
    d.set_item("max_ns", j.max.as_ns())?;
    d.set_item("spread_ns", j.spread().as_ns())?;
    Ok(d.unbind())
}

/// Runs the TDMA coordinator on `iface` until `end_ns`: grants slots to the stations
/// that ask and counts their frames. Returns granted (addresses by slot), refused and
/// received (frames per slot).
#[pyfunction]
fn tdma_coordinator(
    py: Python<'_>,
    iface: PyRef<'_, PyInterface>,
    plan: PyRef<'_, PyTdmaPlan>,
    end_ns: u64,
) -> PyResult<Py<PyDict>> {
    let plan = plan.plan.clone();
    let i: &PyInterface = &iface;
    let r = py
        .detach(move || {
            i.with(|i| {
                let mut c = Coordinator::new(i, plan);
                c.run_until(Time::from_ns(end_ns)).cloned()
            })
        })
        .map_err(tdma_err)?;
    let d = PyDict::new(py);
    let g: Vec<String> = r.granted.iter().map(|m| m.to_string()).collect();
    d.set_item("granted", g)?;
    d.set_item("refused", r.refused)?;
    d.set_item("received", r.received)?;
    Ok(d.unbind())
}

/// Runs a TDMA station on `iface`: asks `coordinator` for a slot (at most
/// `join_rounds` contention periods), then sends `payload` in its slot of every
/// round until `end_ns`, as many exchanges as fit. Returns slot, sent, acked,
/// collisions, withdrawn, outside_window.
#[pyfunction]
#[pyo3(signature = (iface, plan, coordinator, payload, end_ns, *, join_rounds = 20))]
fn tdma_station(
    py: Python<'_>,
    iface: PyRef<'_, PyInterface>,
    plan: PyRef<'_, PyTdmaPlan>,
    coordinator: &str,
    payload: Vec<u8>,
    end_ns: u64,
    join_rounds: u32,
) -> PyResult<Py<PyDict>> {
    let coord = mac_arg("coordinator", coordinator)?;
    let plan = plan.plan.clone();
    let i: &PyInterface = &iface;
    let r = py
        .detach(move || {
            i.with(|i| {
                let mut st = TdmaStation::new(i, plan, coord);
                st.join(join_rounds)?;
                st.run_until(&payload, Time::from_ns(end_ns))
            })
        })
        .map_err(tdma_err)?;
    let d = PyDict::new(py);
    d.set_item("slot", r.slot)?;
    d.set_item("sent", r.sent)?;
    d.set_item("acked", r.acked)?;
    d.set_item("collisions", r.collisions)?;
    d.set_item("withdrawn", r.withdrawn)?;
    d.set_item("outside_window", r.outside_window)?;
    Ok(d.unbind())
}

fn flow_arg(i: usize, v: &Bound<'_, PyAny>) -> PyResult<Flow> {
    let d = v
        .cast::<PyDict>()
        .map_err(|_| PyValueError::new_err(format!("flows[{i}] must be a dict")))?;
    let get = |k: &str| -> PyResult<Bound<'_, PyAny>> {
        d.get_item(k)?.ok_or_else(|| PyValueError::new_err(format!("flows[{i}] has no {k:?}")))
    };
    let opt = |k: &str| -> PyResult<Option<Bound<'_, PyAny>>> { d.get_item(k) };
    let name: String = match opt("name")? {
        Some(n) => n.extract()?,
        None => format!("flow{i}"),
    };
    let us = |k: &str, v: f64| span_us(&format!("flows[{i}].{k}"), v);
    Ok(Flow {
        name,
        period: us("period_us", get("period_us")?.extract()?)?,
        offset: us("offset_us", opt("offset_us")?.map_or(Ok(0.0), |v| v.extract())?)?,
        burst: opt("burst")?.map_or(Ok(1), |v| v.extract())?,
        deadline: us("deadline_us", get("deadline_us")?.extract()?)?,
        payload: get("payload")?.extract()?,
        rate: rate_arg(
            &format!("flows[{i}].rate"),
            &opt("rate")?.map_or(Ok("24".to_string()), |v| v.str().map(|s| s.to_string()))?,
        )?,
    })
}

fn edf_report(py: Python<'_>, r: &EdfReport) -> PyResult<Py<PyDict>> {
    let flows = PyList::empty(py);
    for f in &r.flows {
        let d = PyDict::new(py);
        d.set_item("name", &f.name)?;
        d.set_item("released", f.released)?;
        d.set_item("met", f.met)?;
        d.set_item("late", f.late)?;
        d.set_item("dropped", f.dropped)?;
        d.set_item("unfinished", f.unfinished)?;
        d.set_item("attempts", f.attempts)?;
        d.set_item("miss_ratio", f.miss_ratio())?;
        flows.append(d)?;
    }
    let frames = PyList::empty(py);
    for f in &r.frames {
        let d = PyDict::new(py);
        d.set_item("flow", f.flow)?;
        d.set_item("release_ns", f.release.as_ns())?;
        d.set_item("deadline_ns", f.deadline.as_ns())?;
        d.set_item("first_tx_ns", f.first_tx.map(|t| t.as_ns()))?;
        d.set_item("acked_ns", f.acked_at.map(|t| t.as_ns()))?;
        d.set_item("attempts", f.attempts)?;
        d.set_item("fate", f.fate.name())?;
        d.set_item("met", f.fate == sdmac_overlay::edf::EdfFate::Met)?;
        frames.append(d)?;
    }
    let d = PyDict::new(py);
    d.set_item("flows", flows)?;
    d.set_item("frames", frames)?;
    d.set_item("miss_ratio", r.miss_ratio())?;
    Ok(d.unbind())
}

/// Runs periodic flows with deadlines on `iface` from `start_ns` to `end_ns` (shared
/// clock), to `dst`: under EDF above the MAC (one frame in the MAC at a time,
/// `tries_per_request` tries each, re-planned after each failure, at most
/// `max_attempts` in all, `in_mac` frames in the MAC at once), or with `fifo=True` handed to the MAC as released with
/// `mac_tries` tries. `flows`: dicts with period_us, deadline_us, payload, and
/// optionally name, offset_us, burst, rate. Returns per-flow counts and miss ratios,
/// and `frames`: one record per frame released (flow, release_ns, deadline_ns,
/// first_tx_ns, acked_ns, attempts, fate "met"/"late"/"dropped"/"unfinished", met).
#[pyfunction]
#[pyo3(signature = (iface, flows, *, dst, start_ns, end_ns, standard = "802.11a", tries_per_request = 1, max_attempts = 7, in_mac = 1, fifo = false, mac_tries = 7))]
#[allow(clippy::too_many_arguments)]
fn edf_run(
    py: Python<'_>,
    iface: PyRef<'_, PyInterface>,
    flows: Vec<Bound<'_, PyAny>>,
    dst: &str,
    start_ns: u64,
    end_ns: u64,
    standard: &str,
    tries_per_request: u8,
    max_attempts: u32,
    in_mac: usize,
    fifo: bool,
    mac_tries: u8,
) -> PyResult<Py<PyDict>> {
    let flows = flows.iter().enumerate().map(|(i, f)| flow_arg(i, f)).collect::<PyResult<_>>()?;
    let cfg = EdfConfig {
        phy: phy_arg(standard)?,
        dst: mac_arg("dst", dst)?,
        flows,
        tries_per_request,
        max_attempts,
        in_mac,
    };
    let (s, e) = (Time::from_ns(start_ns), Time::from_ns(end_ns));
    let i: &PyInterface = &iface;
    let r = py
        .detach(move || {
            i.with(
                |i| {
                    if fifo {
                        run_fifo(i, &cfg, mac_tries, s, e)
                    } else {
                        run_edf(i, &cfg, s, e)
                    }
                },
            )
        })
        .map_err(edf_err)?;
    edf_report(py, &r)
}

/// A TDMA station's flow from a dict with the keys of `edf_run`'s flows
/// (`period_us`, `offset_us` = 0 from `first`, `burst` = 1, `deadline_us`, `payload`:
/// its length in bytes).
fn tdma_flow_arg(i: usize, v: &Bound<'_, PyAny>, first: Time) -> PyResult<PeriodicFlow> {
    let f = flow_arg(i, v)?;
    Ok(PeriodicFlow {
        first: first.saturating_add(f.offset),
        period: f.period,
        burst: f.burst,
        deadline: f.deadline,
        payload: vec![0x5a; f.payload],
    })
}

/// Runs a TDMA station on `iface` for a whole run, on the backend's clock, and returns
/// one record per frame. Its window repeats every `round_us` from `epoch_ns`, open
/// from `open_us` to `close_us` into the round; an exchange (`exchange_us`, channel
/// access included) starts only where it ends by the close. With `plan` and `slot`
/// the window and exchange are that slot's of the plan instead. Frames are released
/// every `period_us` from `first_ns`, or, with `heard_from`, one for each data frame
/// heard from that address (its payload with byte `tag_at` set to `tag`); each is due
/// `deadline_us` after its release; or, with `flows` (dicts as `edf_run`'s, offsets from
/// `first_ns`), several periodic flows sent earliest deadline first in the window,
/// whose `exchange_us` must then be that of the largest frame. A periodic frame carries its number (from 1, 4
/// bytes big-endian) at `number_at` of `payload`, if given. The station blocks until `lead_us` before its
/// window, then polls until it opens. Returns frames (number, release_ns, deadline_ns, round,
/// t1_ns, lag_ns, t_start_ns, t5_ns, status, attempts, collisions, withdrawn,
/// outside_window, expired, met, timestamps) and the counts released, sent, met, collisions,
/// withdrawn, outside_window, expired, max_lag_ns.
#[pyfunction]
#[pyo3(signature = (iface, *, dst, deadline_us, end_ns, plan = None, slot = None, epoch_ns = 0, round_us = 0.0, open_us = 0.0, close_us = 0.0, exchange_us = 0.0, period_us = None, first_ns = None, heard_from = None, flows = None, tag_at = 4, tag = 1, payload = Vec::new(), number_at = None, rate = "24", tries = 1, no_ack = false, lead_us = 0.0, ac = "BE"))]
#[allow(clippy::too_many_arguments)]
fn tdma_periodic(
    py: Python<'_>,
    iface: PyRef<'_, PyInterface>,
    dst: &str,
    deadline_us: f64,
    end_ns: u64,
    plan: Option<PyRef<'_, PyTdmaPlan>>,
    slot: Option<u32>,
    epoch_ns: u64,
    round_us: f64,
    open_us: f64,
    close_us: f64,
    exchange_us: f64,
    period_us: Option<f64>,
    first_ns: Option<u64>,
    heard_from: Option<&str>,
    flows: Option<Vec<Bound<'_, PyAny>>>,
    tag_at: usize,
    tag: u8,
    payload: Vec<u8>,
    number_at: Option<usize>,
    rate: &str,
    tries: u8,
    no_ack: bool,
    lead_us: f64,
    ac: &str,
) -> PyResult<Py<PyDict>> {
    let times = match (plan, slot) {
        (Some(p), Some(s)) => SlotTimes::of_plan(&p.plan, s).map_err(tdma_err)?,
        (None, None) => SlotTimes {
            epoch: Time::from_ns(epoch_ns),
            round: span_us("round_us", round_us)?,
            open: span_us("open_us", open_us)?,
            close: span_us("close_us", close_us)?,
            exchange: span_us("exchange_us", exchange_us)?,
        },
        _ => return Err(PyValueError::new_err("plan and slot go together")),
    };
    let first = Time::from_ns(first_ns.unwrap_or(times.epoch.as_ns()));
    let releases = match (period_us, heard_from, flows) {
        (Some(per), None, None) => Releases::Periodic { first, period: span_us("period_us", per)? },
        (None, Some(src), None) => {
            Releases::Heard { from: mac_arg("heard_from", src)?, tag_at, tag }
        }
        (None, None, Some(fl)) => Releases::Flows(
            fl.iter()
                .enumerate()
                .map(|(i, v)| tdma_flow_arg(i, v, first))
                .collect::<PyResult<_>>()?,
        ),
        _ => {
            return Err(PyValueError::new_err(
                "give exactly one of period_us (periodic releases), heard_from (replies) and \
                 flows (several periodic flows)",
            ))
        }
    };
    let cfg = PeriodicConfig {
        dst: mac_arg("dst", dst)?,
        no_ack,
        rate: rate_arg("rate", rate)?,
        tries,
        payload,
        number_at,
        releases,
        deadline: span_us("deadline_us", deadline_us)?,
        lead: span_us("lead_us", lead_us)?,
        ac: parse_ac(ac)?,
    };
    let end = Time::from_ns(end_ns);
    let i: &PyInterface = &iface;
    let r = py.detach(move || i.with(|i| run_periodic(i, &times, &cfg, end))).map_err(tdma_err)?;
    let frames = PyList::empty(py);
    let ns = |t: Option<Time>| t.map(|t| t.as_ns());
    for f in &r.frames {
        let d = PyDict::new(py);
        d.set_item("number", f.number)?;
        d.set_item("flow", f.flow)?;
        d.set_item("release_ns", f.release.as_ns())?;
        d.set_item("deadline_ns", f.deadline.as_ns())?;
        d.set_item("round", f.round)?;
        d.set_item("t1_ns", ns(f.t1))?;
        d.set_item("lag_ns", f.lag.as_ns())?;
        d.set_item("t_start_ns", ns(f.t_start))?;
        d.set_item("t5_ns", ns(f.t5))?;
        d.set_item("status", f.status.map(|s| s.name()))?;
        d.set_item("attempts", f.attempts)?;
        d.set_item("collisions", f.collisions)?;
        d.set_item("withdrawn", f.withdrawn)?;
        d.set_item("outside_window", f.outside_window)?;
        d.set_item("expired", f.expired)?;
        d.set_item("met", f.met(r.no_ack))?;
        let ts = PyDict::new(py);
        let t = &f.ts;
        for (k, v) in [
            ("t1", t.t1),
            ("t2", t.t2),
            ("t3", t.t3),
            ("t4", t.t4),
            ("t_start", t.t_start),
            ("t5", t.t5),
            ("t7", t.t7),
            ("t8", t.t8),
            ("t9", t.t9),
        ] {
            ts.set_item(k, (!v.is_zero()).then_some(v.as_ns()))?;
        }
        d.set_item("timestamps", ts)?;
        frames.append(d)?;
    }
    let d = PyDict::new(py);
    d.set_item("frames", frames)?;
    d.set_item("released", r.frames.len())?;
    d.set_item("sent", r.sent())?;
    d.set_item("met", r.met())?;
    d.set_item("collisions", r.collisions())?;
    d.set_item("withdrawn", r.withdrawn())?;
    d.set_item("outside_window", r.outside_window())?;
    d.set_item("expired", r.frames.iter().filter(|f| f.expired).count())?;
    d.set_item("max_lag_ns", r.max_lag().as_ns())?;
    Ok(d.unbind())
}

/// Registers the part-A overlays.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(retransmit, m)?)?;
    m.add_class::<PyTdmaPlan>()?;
    m.add_class::<PyTsfSync>()?;
    m.add_function(wrap_pyfunction!(tdma_measure_jitter, m)?)?;
    m.add_function(wrap_pyfunction!(tdma_coordinator, m)?)?;
    m.add_function(wrap_pyfunction!(tdma_station, m)?)?;
    m.add_function(wrap_pyfunction!(edf_run, m)?)?;
    m.add_function(wrap_pyfunction!(tdma_periodic, m)?)?;
    Ok(())
}
