//! The seamless-redundancy and rate-adaptation overlays in Python: `redundancy_run`,
//! `rate_run` and the `RateAdapter` class, over `Interface`s of any backend.

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::sync::Mutex;

use sdmac_api::attribute::parse_mac;
use sdmac_api::{parse_rate_series, Backend, Interface, MacAddress, Rate, Time};
use sdmac_open::AnyBackend;
use sdmac_overlay::rate::{self, Minstrel, MinstrelConfig, Policy, RateError, RatePlan};
use sdmac_overlay::redundancy::{
    self, Mode, Percentiles, RedundancyError, RedundantReceiver, RedundantSender, RunPlan,
    SenderConfig,
};
use sdmac_phy::{Phy, Standard};

use crate::emu::{api_err, parse_ac, span_arg, PyConfirmation, PyInterface, TimeUnit};

/// The backend of a `PyInterface`, lent to an overlay for the length of one call.
struct Lent<'a>(&'a mut AnyBackend);

impl Backend for Lent<'_> {
    sdmac_api::forward_backend!(|s| &mut *s.0, &*s.0);
}

fn standard_arg(s: &str) -> PyResult<Standard> {
    s.parse().map_err(|e: String| PyValueError::new_err(format!("invalid standard: {e}")))
}

fn mac(what: &str, s: &str) -> PyResult<MacAddress> {
    parse_mac(s).ok_or_else(|| {
        PyValueError::new_err(format!(
            "invalid {what}: {s:?} is not a MAC address like 02:00:00:00:00:01"
        ))
    })
}

fn redundancy_err(e: RedundancyError) -> PyErr {
    match e {
        RedundancyError::Api { iface, what, error } => {
            let py_err = api_err(error);
            Python::attach(|py| {
                let msg = format!("interface {iface}: {what}: {}", py_err.value(py));
                PyErr::from_type(py_err.get_type(py), msg)
            })
        }
        RedundancyError::Stalled { .. } => PyRuntimeError::new_err(e.to_string()),
        _ => PyValueError::new_err(e.to_string()),
    }
}

fn rate_err(e: RateError) -> PyErr {
    match e {
        RateError::Api { error, .. } => api_err(error),
        RateError::Stalled { .. } => PyRuntimeError::new_err(e.to_string()),
        _ => PyValueError::new_err(e.to_string()),
    }
}

/// Refuses an interface given twice (it could not be locked twice).
fn distinct(all: &[&PyInterface]) -> PyResult<()> {
    for (k, a) in all.iter().enumerate() {
        if let Some(j) = all[..k].iter().position(|b| std::ptr::eq(*a, *b)) {
            return Err(PyValueError::new_err(format!(
                "the same interface is given twice (positions {j} and {k} of tx + rx)"
            )));
        }
    }
    Ok(())
}

fn percentiles<'py>(py: Python<'py>, p: &Percentiles) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("p50", p.p50)?;
    d.set_item("p90", p.p90)?;
    d.set_item("p95", p.p95)?;
    d.set_item("p99", p.p99)?;
    d.set_item("max", p.max)?;
    Ok(d)
}

/// Runs seamless redundancy: `packets` packets from the interfaces `tx` (one per
/// channel) to the interfaces `rx` (the receiver's, one per channel), addressed to
/// `dst[k]` on channel k. `mode`: "one" (the first interface only, the baseline),
/// "two" (a copy on every interface) or "two_cancel" (copies still queued are
/// cancelled once one is acknowledged). `rates`: the series of every copy, e.g.
/// "24x1" (None: each interface's default). Returns a dict: sent, delivered, lost,
/// duplicates_dropped, duplicates_delivered, latency_ns and ack_latency_ns
/// (percentiles p50, p90, p95, p99, max), copies, copies_on_air, attempts_on_air,
/// copies_cancelled, cancel_too_late, airtime_saved_ns, acked, unacked. Sender and
/// receiver must share the host's clock (the latency is the first copy's end on air
/// minus the request).
#[pyfunction]
#[pyo3(signature = (tx, rx, dst, *, mode = "two_cancel", rates = None, ac = "BE", standard = "802.11a", packets = 200, payload_len = 100, spacing_us = 0.0, window = 16, stall_ms = 2000))]
#[allow(clippy::too_many_arguments)]
fn redundancy_run(
    py: Python<'_>,
    tx: Vec<PyRef<'_, PyInterface>>,
    rx: Vec<PyRef<'_, PyInterface>>,
    dst: Vec<String>,
    mode: &str,
    rates: Option<&str>,
    ac: &str,
    standard: &str,
    packets: u32,
    payload_len: usize,
    spacing_us: f64,
    window: usize,
    stall_ms: u64,
) -> PyResult<Py<PyDict>> {
    let mode = Mode::from_name(mode).ok_or_else(|| {
        PyValueError::new_err(format!("invalid mode {mode:?}: one, two or two_cancel"))
    })?;
    let rates = rates
        .map(|r| {
            parse_rate_series(r).map_err(|e| PyValueError::new_err(format!("invalid rates: {e}")))
        })
        .transpose()?;
    let dst = dst.iter().map(|d| mac("dst", d)).collect::<PyResult<Vec<_>>>()?;
    let cfg = SenderConfig {
        dst,
        rates,
        ac: parse_ac(ac)?,
        mode,
        phy: Phy::new(standard_arg(standard)?),
    };
    let plan = RunPlan {
        packets,
        payload_len,
        spacing: span_arg("spacing_us", spacing_us, TimeUnit::Us)?,
        window,
        stall_ms,
    };
    plan.check().map_err(redundancy_err)?;
    let tx: Vec<&PyInterface> = tx.iter().map(|r| &**r).collect();
    let rx: Vec<&PyInterface> = rx.iter().map(|r| &**r).collect();
    distinct(&tx.iter().chain(rx.iter()).copied().collect::<Vec<_>>())?;
    let report = py.detach(|| {
        let mut tg: Vec<_> = tx.iter().map(|i| i.lock()).collect();
        let mut rg: Vec<_> = rx.iter().map(|i| i.lock()).collect();
        let ti = tg.iter_mut().map(|g| Interface::new(Lent(g.backend_mut()))).collect();
        let ri = rg.iter_mut().map(|g| Interface::new(Lent(g.backend_mut()))).collect();
        let mut sender = RedundantSender::new(ti, cfg)?;
        let mut receiver = RedundantReceiver::new(ri)?;
        redundancy::run(&mut sender, &mut receiver, &plan)
    });
    let r = report.map_err(redundancy_err)?;
    let d = PyDict::new(py);
    d.set_item("mode", r.mode.name())?;
    d.set_item("sent", r.sent)?;
    d.set_item("delivered", r.delivered)?;
    d.set_item("lost", r.lost)?;
    d.set_item("duplicates_dropped", r.duplicates_dropped)?;
    d.set_item("duplicates_delivered", r.duplicates_delivered)?;
    d.set_item("latency_ns", percentiles(py, &r.latency)?)?;
    d.set_item("ack_latency_ns", percentiles(py, &r.ack_latency)?)?;
    let s = r.sender;
    d.set_item("copies", s.copies)?;
    d.set_item("copies_on_air", s.copies_on_air)?;
    d.set_item("attempts_on_air", s.attempts_on_air)?;
    d.set_item("copies_cancelled", s.copies_cancelled)?;
    d.set_item("cancel_too_late", s.cancel_too_late)?;
    d.set_item("airtime_saved_ns", s.airtime_saved_ns)?;
    d.set_item("acked", s.acked)?;
    d.set_item("unacked", s.unacked)?;
    Ok(d.unbind())
}

/// The adaptation's parameters from Python arguments.
#[allow(clippy::too_many_arguments)]
fn minstrel_config(
    standard: &str,
    rates: Option<Vec<String>>,
    sample_share: f64,
    ewma_weight: f64,
    update_ms: f64,
    tries: (u8, u8, u8, u8),
    seed: u64,
) -> PyResult<MinstrelConfig> {
    let rates = rates
        .unwrap_or_default()
        .iter()
        .map(|r| {
            r.parse::<Rate>().map_err(|e| PyValueError::new_err(format!("invalid rate {r:?}: {e}")))
        })
        .collect::<PyResult<Vec<_>>>()?;
    Ok(MinstrelConfig {
        phy: Phy::new(standard_arg(standard)?),
        rates,
        sample_share,
        ewma_weight,
        update_interval: span_arg("update_ms", update_ms, TimeUnit::Ms)?,
        tries: [tries.0, tries.1, tries.2, tries.3],
        seed,
    })
}

/// Runs a saturated queue from `iface` to `dst` for `duration_ms` of backend time,
/// under the Minstrel-like adaptation, or under the series `fixed` (e.g. "6x8") when
/// given. `steps`: [(ms, dBm), ...] sets the interface's `tx_power` at those offsets
/// (each starts a phase). Returns a dict: sent, delivered, attempts, attempts_per_rate
/// ({rate: attempts}), phases ([{start_ns, delivered, attempts, best}]; best is None
/// under a fixed series).
#[pyfunction]
#[pyo3(signature = (iface, dst, *, fixed = None, standard = "802.11a", rates = None, duration_ms = 300.0, payload_len = 1000, window = 64, backlog_ms = 40.0, steps = Vec::new(), sample_share = 0.1, ewma_weight = 0.25, update_ms = 50.0, tries = (2, 2, 2, 2), seed = 1))]
#[allow(clippy::too_many_arguments)]
fn rate_run(
    py: Python<'_>,
    iface: PyRef<'_, PyInterface>,
    dst: &str,
    fixed: Option<&str>,
    standard: &str,
    rates: Option<Vec<String>>,
    duration_ms: f64,
    payload_len: usize,
    window: usize,
    backlog_ms: f64,
    steps: Vec<(f64, f64)>,
    sample_share: f64,
    ewma_weight: f64,
    update_ms: f64,
    tries: (u8, u8, u8, u8),
    seed: u64,
) -> PyResult<Py<PyDict>> {
    let dst = mac("dst", dst)?;
    let mut policy = match fixed {
        Some(f) => Policy::Fixed(
            parse_rate_series(f)
                .map_err(|e| PyValueError::new_err(format!("invalid fixed: {e}")))?,
        ),
        None => {
            let cfg = minstrel_config(
                standard,
                rates,
                sample_share,
                ewma_weight,
                update_ms,
                tries,
                seed,
            )?;
            Policy::Adaptive(Box::new(Minstrel::new(cfg).map_err(rate_err)?))
        }
    };
    let steps = steps
        .into_iter()
        .enumerate()
        .map(|(k, (ms, dbm))| Ok((span_arg(&format!("steps[{k}] offset"), ms, TimeUnit::Ms)?, dbm)))
        .collect::<PyResult<Vec<_>>>()?;
    let plan = RatePlan {
        duration: span_arg("duration_ms", duration_ms, TimeUnit::Ms)?,
        payload_len,
        window,
        backlog: span_arg("backlog_ms", backlog_ms, TimeUnit::Ms)?,
        steps,
    };
    plan.check().map_err(rate_err)?;
    let iface: &PyInterface = &iface;
    let r = py
        .detach(|| {
            let mut g = iface.lock();
            let mut i = Interface::new(Lent(g.backend_mut()));
            rate::run(&mut i, dst, &mut policy, &plan)
        })
        .map_err(rate_err)?;
    let d = PyDict::new(py);
    d.set_item("sent", r.sent)?;
    d.set_item("delivered", r.delivered)?;
    d.set_item("attempts", r.attempts)?;
    let per = PyDict::new(py);
    for (rate, n) in &r.attempts_per_rate {
        per.set_item(rate.to_string(), n)?;
    }
    d.set_item("attempts_per_rate", per)?;
    let phases = PyList::empty(py);
    for p in &r.phases {
        let e = PyDict::new(py);
        e.set_item("start_ns", p.start.as_ns())?;
        e.set_item("delivered", p.delivered)?;
        e.set_item("attempts", p.attempts)?;
        e.set_item("best", p.best.map(|b| b.to_string()))?;
        phases.append(e)?;
    }
    d.set_item("phases", phases)?;
    Ok(d.unbind())
}

/// The Minstrel-like rate adaptation for a caller's own loop: `series(dst, now_ns)`
/// gives the rate series of the next packet, `confirm(dst, confirmation)` feeds its
/// outcome back, `decision(dst)` says what it has learnt.
#[pyclass(module = "sdmac._core", name = "RateAdapter")]
pub struct PyRateAdapter {
    inner: Mutex<Minstrel>,
}

#[pymethods]
impl PyRateAdapter {
    /// An adaptation over `rates` (names like "54"; None: every legacy rate of
    /// `standard`), probing with `sample_share` of packets, weighting each update
    /// interval of `update_ms` by `ewma_weight`, with `tries` per series entry.
    #[new]
    #[pyo3(signature = (*, standard = "802.11a", rates = None, sample_share = 0.1, ewma_weight = 0.25, update_ms = 50.0, tries = (2, 2, 2, 2), seed = 1))]
    fn new(
        standard: &str,
        rates: Option<Vec<String>>,
        sample_share: f64,
        ewma_weight: f64,
        update_ms: f64,
        tries: (u8, u8, u8, u8),
        seed: u64,
    ) -> PyResult<PyRateAdapter> {
        let cfg =
            minstrel_config(standard, rates, sample_share, ewma_weight, update_ms, tries, seed)?;
        Ok(PyRateAdapter { inner: Mutex::new(Minstrel::new(cfg).map_err(rate_err)?) })
    }

    /// The rate series ("36x2,24x2,6x2") for the next packet to `dst`, at backend time
    /// `now_ns` (an interface's clock, e.g. time.monotonic_ns()).
    fn series(&self, dst: &str, now_ns: u64) -> PyResult<String> {
        let dst = mac("dst", dst)?;
        let mut m = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        Ok(sdmac_api::format_rate_series(&m.series(dst, Time::from_ns(now_ns))))
    }

    /// Counts the attempts of `confirmation`, of a packet sent to `dst`.
    fn confirm(&self, dst: &str, confirmation: PyRef<'_, PyConfirmation>) -> PyResult<()> {
        let dst = mac("dst", dst)?;
        let mut m = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        m.confirm(dst, &confirmation.c);
        Ok(())
    }

    /// What it has decided for `dst` (None before its first packet): a dict with
    /// best_throughput, second_throughput, best_probability, packets, samples and table
    /// ([{rate, prob, throughput_bps, attempts, successes}], lowest rate first).
    fn decision(&self, py: Python<'_>, dst: &str) -> PyResult<Option<Py<PyDict>>> {
        let dst = mac("dst", dst)?;
        let m = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let Some(dec) = m.decision(dst) else { return Ok(None) };
        let d = PyDict::new(py);
        d.set_item("best_throughput", dec.best_throughput.to_string())?;
        d.set_item("second_throughput", dec.second_throughput.to_string())?;
        d.set_item("best_probability", dec.best_probability.to_string())?;
        d.set_item("packets", dec.packets)?;
        d.set_item("samples", dec.samples)?;
        let table = PyList::empty(py);
        for s in &dec.table {
            let e = PyDict::new(py);
            e.set_item("rate", s.rate.to_string())?;
            e.set_item("prob", s.prob)?;
            e.set_item("throughput_bps", s.throughput_bps)?;
            e.set_item("attempts", s.attempts)?;
            e.set_item("successes", s.successes)?;
            table.append(e)?;
        }
        d.set_item("table", table)?;
        Ok(Some(d.unbind()))
    }

    fn __repr__(&self) -> String {
        let m = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let rates: Vec<String> = m.rates().iter().map(|r| r.to_string()).collect();
        format!("RateAdapter(rates=[{}])", rates.join(", "))
    }
}

/// Adds the overlay functions and classes to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(redundancy_run, m)?)?;
    m.add_function(wrap_pyfunction!(rate_run, m)?)?;
    m.add_class::<PyRateAdapter>()?;
    Ok(())
}
