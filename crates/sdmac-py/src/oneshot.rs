//! `bench_oneshot`: the SDMAC paper's measurement task on the emulated testbed.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use serde_json::json;
use std::time::Duration;

use sdmac_api::attribute::parse_mac;
use sdmac_api::oneshot::{report, run, Mode, OneshotParams, RunError};
use sdmac_api::{Ac, BackendName, Scope, Span, Value, COMPONENT_NAMES};
use sdmac_emu::{DeviceProfile, EmuOptions};
use sdmac_open::{open_with, OpenOptions};

use crate::emu::{
    device_wait as parse_device_wait, latency, open_err, paper_setup, parse_ac, OpenError,
};

/// Runs confirmed one-shots on the backend `backend` (by name; "emu" is the paper's
/// testbed, which the medium arguments configure) and returns `(report_json,
/// samples)`: the report as JSON text (the `sdmac bench oneshot --json` contract)
/// and the samples as columns (`id`, `set`, `status`, `cause`, `attempts`, and each
/// component in µs). `progress(done, total)` is called about every 0.25 s. `dst`: the
/// destination, by default the interface's `bssid`. The medium arguments (losses, SNRs,
/// ACK preamble share, ACK timeout, basic rates, beacon interval, distance) configure
/// plain "emu" only; with another backend they are ignored (the CLI refuses them).
#[pyfunction]
#[pyo3(signature = (*, backend = "emu", dst = None, mode = "beacon", count = 500, payload = 50, rate = "54", ac = "BE", loss_data = None, loss_ack = None, snr_data = None, snr_ack = None, ack_preamble_share = 0.5, ack_timeout_us = None, basic_rates = vec![6.0], beacon_interval_tu = 50, twait_ms = 20.0, gap_us = 250.0, distance_m = 10.0, seed = 1, device_wait = "spin", device_req_us = "0", device_con_us = "0", progress = None))]
#[allow(clippy::too_many_arguments)]
pub fn bench_oneshot<'py>(
    py: Python<'py>,
    backend: &str,
    dst: Option<&str>,
    mode: &str,
    count: u64,
    payload: usize,
    rate: &str,
    ac: &str,
    loss_data: Option<f64>,
    loss_ack: Option<f64>,
    snr_data: Option<f64>,
    snr_ack: Option<f64>,
    ack_preamble_share: f64,
    ack_timeout_us: Option<f64>,
    basic_rates: Vec<f64>,
    beacon_interval_tu: u32,
    twait_ms: f64,
    gap_us: f64,
    distance_m: f64,
    seed: u64,
    device_wait: &str,
    device_req_us: &str,
    device_con_us: &str,
    progress: Option<Py<PyAny>>,
) -> PyResult<(String, Bound<'py, PyDict>)> {
    let setup = paper_setup(
        loss_data,
        loss_ack,
        snr_data,
        snr_ack,
        ack_preamble_share,
        ack_timeout_us,
        &basic_rates,
        beacon_interval_tu,
        distance_m,
        seed,
    )?;
    let mode_v = match mode {
        "beacon" => {
            if !(twait_ms.is_finite() && twait_ms >= 0.0) {
                return Err(PyValueError::new_err(format!(
                    "twait {twait_ms} ms must not be negative"
                )));
            }
            Mode::Beacon { twait: Span::from_ns((twait_ms * 1e6).round() as u64) }
        }
        "back-to-back" => {
            if !(gap_us.is_finite() && gap_us >= 0.0) {
                return Err(PyValueError::new_err(format!("gap {gap_us} µs must not be negative")));
            }
            Mode::BackToBack { gap: Span::from_ns((gap_us * 1e3).round() as u64) }
        }
        _ => {
            return Err(PyValueError::new_err(format!(
                "mode must be \"beacon\" or \"back-to-back\", not {mode:?}"
            )))
        }
    };
    if count == 0 {
        return Err(PyValueError::new_err("count must be at least 1"));
    }
    if payload > sdmac_api::MAX_PAYLOAD {
        return Err(PyValueError::new_err(format!(
            "payload {payload} B is above the MSDU limit of {} B",
            sdmac_api::MAX_PAYLOAD
        )));
    }
    let name = BackendName::parse(backend).map_err(|e| OpenError::new_err(e.to_string()))?;
    let paper = matches!(name, BackendName::Emu { scenario: None, .. });
    let rate_v: sdmac_phy::Rate =
        rate.parse().map_err(|_| PyValueError::new_err(format!("unknown rate {rate:?}")))?;
    if paper && !setup.standard.supports(rate_v) {
        return Err(PyValueError::new_err(format!("rate {rate} is not an 802.11a rate")));
    }
    let dst_v = match dst {
        Some(d) => Some(parse_mac(d).ok_or_else(|| {
            PyValueError::new_err(format!("dst {d:?} is not a MAC address like 02:00:00:00:00:01"))
        })?),
        None => None,
    };
    let ac_v: Ac = parse_ac(ac)?;
    let profile = DeviceProfile {
        req: latency("device_req_us", device_req_us)?,
        con: latency("device_con_us", device_con_us)?,
    };
    let wait = parse_device_wait(device_wait)?;
    let timeout = Duration::from_secs_f64(
        (beacon_interval_tu as f64 * 1.024e-3 * 4.0).max(1.0) + twait_ms * 1e-3,
    );
    let opts = OpenOptions {
        paper: setup.clone(),
        emu: EmuOptions { wait, profile, seed, app_spin_ns: 100_000_000, ..EmuOptions::default() },
        ..OpenOptions::default()
    };
    let mut iface = py.detach(|| open_with(&name, &opts)).map_err(open_err)?;
    let dst_v = match dst_v {
        Some(d) => d,
        None => match iface.get("bssid", Scope::Adapter) {
            Ok(Value::Mac(m)) => m,
            _ => {
                return Err(PyValueError::new_err(format!(
                    "backend {backend:?} has no bssid to send to: give dst"
                )))
            }
        },
    };
    let params =
        OneshotParams { mode: mode_v, count, payload, rate: rate_v, dst: dst_v, ac: ac_v, timeout };

    // What the interface itself says (the same on every backend), then what the
    // paper's testbed was built with (plain emu only).
    let attr = |iface: &mut sdmac_open::AnyInterface, n: &str| match iface.get(n, Scope::Adapter) {
        Ok(Value::Int(v)) => json!(v),
        Ok(Value::Float(v)) => json!(v),
        Ok(Value::Text(t)) => json!(t),
        Ok(v) => json!(v.to_string()),
        Err(_) => json!(null),
    };
    let ack_timeout_eff = attr(&mut iface, "ack_timeout");
    let channel = attr(&mut iface, "channel");
    let mut config = json!({
        "backend": name.to_string(),
        "dst": dst_v.to_string(),
        "mode": mode,
        "count": count,
        "payload": payload,
        "rate": rate_v.to_string(),
        "ac": ac_v.name(),
        "channel": channel,
        "ack_timeout_us": ack_timeout_eff,
        "twait_ms": if mode == "beacon" { json!(twait_ms) } else { json!(null) },
        "gap_us": if mode == "back-to-back" { json!(gap_us) } else { json!(null) },
        "seed": seed,
        "device_wait": device_wait,
        "device_req_us": device_req_us,
        "device_con_us": device_con_us,
    });
    if paper {
        let more = json!({
            "standard": "802.11a",
            "basic_rates": basic_rates,
            "beacon_interval_tu": beacon_interval_tu,
            "loss_data": loss_data, "loss_ack": loss_ack, "snr_data": snr_data, "snr_ack": snr_ack,
            "ack_preamble_share": ack_preamble_share,
            "distance_m": distance_m,
        });
        if let (Some(c), Some(m)) = (config.as_object_mut(), more.as_object()) {
            c.extend(m.clone());
        }
    }

    let (result, error, progress) = py.detach(move || {
        let mut error: Option<PyErr> = None;
        let result = {
            {
                let mut last = std::time::Instant::now();
                let r = run(&mut iface, &params, |done, total| {
                    if last.elapsed() < Duration::from_millis(250) && done < total {
                        return true;
                    }
                    last = std::time::Instant::now();
                    Python::attach(|py| {
                        if let Err(e) = py.check_signals() {
                            error = Some(e);
                            return false;
                        }
                        if let Some(cb) = &progress {
                            if let Err(e) = cb.call1(py, (done, total)) {
                                error = Some(e);
                                return false;
                            }
                        }
                        true
                    })
                });
                drop(iface);
                r.map_err(|e| match e {
                    RunError::Api(a) => format!("api:{}", a),
                    other => other.to_string(),
                })
            }
        };
        (result, error, progress)
    });
    drop(progress);
    if let Some(e) = error {
        return Err(e);
    }
    let samples = result.map_err(PyValueError::new_err)?;
    let rep = report(&samples, config);
    let cols = PyDict::new(py);
    cols.set_item("id", PyList::new(py, samples.iter().map(|s| s.id))?)?;
    cols.set_item("set", PyList::new(py, samples.iter().map(|s| s.set))?)?;
    cols.set_item("status", PyList::new(py, samples.iter().map(|s| s.status.name()))?)?;
    cols.set_item("cause", PyList::new(py, samples.iter().map(|s| s.cause))?)?;
    cols.set_item("attempts", PyList::new(py, samples.iter().map(|s| s.attempts))?)?;
    for (k, name) in COMPONENT_NAMES.iter().enumerate() {
        cols.set_item(
            *name,
            PyList::new(py, samples.iter().map(|s| s.c.as_array()[k] as f64 / 1000.0))?,
        )?;
    }
    Ok((rep.to_string(), cols))
}
