//! `sdmac._core`: the Python bindings of sdmac.
//!
//! Every simulation runs with the GIL released; the GIL is taken back only to call
//! the progress callback and to check for signals, so Ctrl-C (SIGINT) stops a run
//! at the next progress step and surfaces as `KeyboardInterrupt`.

#![warn(missing_docs)]

mod emu;
mod oneshot;
mod overlay_a;
mod overlay_b;

use std::path::PathBuf;

use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;

use sdmac_phy::{Phy, Rate, Standard};
use sdmac_sim::{Progress, RunOptions, SaturationParams};

const NS_PER_S: f64 = 1e9;

/// The version of the sdmac crates this module was built from.
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// Builds the closure the simulator calls every progress step. It takes the GIL,
/// runs pending signal handlers (Ctrl-C), then calls the Python callback, if any,
/// as `callback(simulated_s, total_s, events)`. A callback that returns `False`
/// stops the run; one that raises stops it and the exception is re-raised.
fn progress_bridge<'a>(
    callback: &'a Option<Py<PyAny>>,
    error: &'a mut Option<PyErr>,
) -> impl FnMut(&Progress) -> bool + 'a {
    move |p: &Progress| -> bool {
        Python::attach(|py| {
            if let Err(e) = py.check_signals() {
                *error = Some(e);
                return false;
            }
            let Some(cb) = callback else { return true };
            let args = (p.simulated_ns as f64 / NS_PER_S, p.total_ns as f64 / NS_PER_S, p.events);
            match cb.call1(py, args) {
                Ok(ret) => {
                    let ret = ret.bind(py);
                    if ret.is_none() {
                        return true;
                    }
                    match ret.is_truthy() {
                        Ok(keep_going) => keep_going,
                        Err(e) => {
                            *error = Some(e);
                            false
                        }
                    }
                }
                Err(e) => {
                    *error = Some(e);
                    false
                }
            }
        })
    }
}

/// Runs `f` with the GIL released and a progress bridge, then turns the outcome
/// into a Python result. An exception raised by the callback (or by a signal
/// handler) wins over whatever the simulator returned after being stopped.
fn run_detached<F>(py: Python<'_>, callback: Option<Py<PyAny>>, f: F) -> PyResult<String>
where
    F: FnOnce(&mut dyn FnMut(&Progress) -> bool) -> Result<String, sdmac_sim::SimError> + Send,
{
    let (result, error, callback) = py.detach(move || {
        let mut error: Option<PyErr> = None;
        let result = {
            let mut bridge = progress_bridge(&callback, &mut error);
            f(&mut bridge)
        };
        // Hand the callback back so that it is released with the GIL held.
        (result, error, callback)
    });
    drop(callback);
    if let Some(e) = error {
        return Err(e);
    }
    result.map_err(sim_error)
}

/// A bad scenario is a `ValueError` carrying the simulator's message
/// (`file:line: key: what is wrong`); failing to write an output file is an `OSError`.
fn sim_error(e: sdmac_sim::SimError) -> PyErr {
    match e {
        sdmac_sim::SimError::Io(_) => PyOSError::new_err(e.to_string()),
        _ => PyValueError::new_err(e.to_string()),
    }
}

fn step_ns(progress_step_s: f64) -> PyResult<u64> {
    if !(progress_step_s.is_finite() && progress_step_s > 0.0) {
        return Err(PyValueError::new_err(format!(
            "progress_step_s must be a positive number of seconds, not {progress_step_s}"
        )));
    }
    Ok(((progress_step_s * NS_PER_S).round() as u64).max(1))
}

/// Runs a TOML scenario and returns the results as JSON text.
///
/// `name` is the file name used in error messages (`name:line: ...`), `pcap` a
/// pcapng file to write every frame to, `progress` a callable
/// `(simulated_s, total_s, events) -> bool | None` called every `progress_step_s`
/// simulated seconds (return `False` to stop early), `threads` runs each medium on
/// its own thread. Raises `ValueError` for a bad scenario.
#[pyfunction]
#[pyo3(signature = (text, name = "scenario".to_string(), pcap = None, progress = None, progress_step_s = 0.1, threads = false))]
fn run_scenario(
    py: Python<'_>,
    text: String,
    name: String,
    pcap: Option<PathBuf>,
    progress: Option<Py<PyAny>>,
    progress_step_s: f64,
    threads: bool,
) -> PyResult<String> {
    // `..Default::default()` keeps this building when RunOptions grows a field.
    #[allow(clippy::needless_update)]
    let opts = RunOptions {
        pcap,
        progress_step_ns: step_ns(progress_step_s)?,
        threads,
        ..Default::default()
    };
    run_detached(py, progress, move |cb| sdmac_sim::run_scenario_json(&text, &name, &opts, cb))
}

/// Sweeps the number of saturated stations and returns `{"results": [...]}` as
/// JSON text: one entry per element of `stations`, with throughput, collision
/// probability, events and wall-clock seconds.
#[pyfunction]
#[pyo3(signature = (standard = "802.11a".to_string(), rate = "54".to_string(), payload = 1500, stations = vec![1, 2, 5, 10, 20, 50], duration = 10.0, seed = 1, progress = None))]
#[allow(clippy::too_many_arguments)]
fn saturation(
    py: Python<'_>,
    standard: String,
    rate: String,
    payload: u32,
    stations: Vec<u32>,
    duration: f64,
    seed: u64,
    progress: Option<Py<PyAny>>,
) -> PyResult<String> {
    if !(duration.is_finite() && duration > 0.0) {
        return Err(PyValueError::new_err(format!(
            "duration must be a positive number of seconds, not {duration}"
        )));
    }
    if stations.is_empty() || stations.contains(&0) {
        return Err(PyValueError::new_err(
            "stations must be a non-empty list of positive station counts",
        ));
    }
    let params = SaturationParams { standard, rate, payload, stations, duration_s: duration, seed };
    run_detached(py, progress, move |cb| sdmac_sim::saturation_json(&params, cb))
}

/// Airtime in microseconds of a PSDU of `length` bytes (MAC header + body + FCS)
/// sent at `rate` (e.g. "54", "5.5", "mcs7-40-sgi") on `standard` (e.g. "802.11a").
#[pyfunction]
#[pyo3(signature = (standard, rate, length, short_preamble = false))]
fn airtime_us(standard: &str, rate: &str, length: u32, short_preamble: bool) -> PyResult<f64> {
    let std: Standard = standard.parse().map_err(PyValueError::new_err)?;
    let r: Rate = rate
        .parse()
        .map_err(|e: sdmac_phy::rate::RateParseError| PyValueError::new_err(e.to_string()))?;
    if !std.supports(r) {
        return Err(PyValueError::new_err(format!("rate {rate} is not a {std} rate")));
    }
    let mut phy = Phy::new(std);
    phy.short_preamble = short_preamble;
    Ok(phy.airtime_ns(length, r) as f64 / 1000.0)
}

/// Statistics of a set of samples: count, mean, sd, min, p99, p99.9, p99.99, max
/// (nearest rank) and the 95 % confidence interval of the mean (Student t), as a
/// dict; None for no samples. A NaN or infinite sample is a ValueError naming it.
#[pyfunction]
fn summary(py: Python<'_>, samples: Vec<f64>) -> PyResult<Option<Py<PyAny>>> {
    let s = match sdmac_measure::Summary::of(&samples) {
        Ok(Some(s)) => s,
        Ok(None) => return Ok(None),
        Err(e) => return Err(PyValueError::new_err(e.to_string())),
    };
    let d = pyo3::types::PyDict::new(py);
    d.set_item("count", s.count)?;
    for (k, v) in [
        ("mean", s.mean),
        ("sd", s.sd),
        ("min", s.min),
        ("p99", s.p99),
        ("p99.9", s.p999),
        ("p99.99", s.p9999),
        ("max", s.max),
    ] {
        d.set_item(k, v)?;
    }
    d.set_item("ci95", (s.ci95_lo, s.ci95_hi))?;
    Ok(Some(d.into_any().unbind()))
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(run_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(saturation, m)?)?;
    m.add_function(wrap_pyfunction!(airtime_us, m)?)?;
    m.add_function(wrap_pyfunction!(oneshot::bench_oneshot, m)?)?;
    m.add_function(wrap_pyfunction!(summary, m)?)?;
    emu::register(m)?;
    overlay_a::register(m)?;
    overlay_b::register(m)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
