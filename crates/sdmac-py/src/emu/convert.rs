//! Arguments from Python (AC, MAC, rates, waits, spans of time, scopes, attribute
//! values) and values back to Python.

use super::{InvalidRequest, InvalidValue};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use sdmac_api::attribute::parse_mac;
use sdmac_api::{parse_rate_series, Ac, MacAddress, RateSeries, Scope, Span, Time, Value, Wait};
use std::time::Duration;

pub(crate) fn parse_ac(s: &str) -> PyResult<Ac> {
    Ac::parse(s).ok_or_else(|| {
        InvalidRequest::new_err(format!(
            "invalid ac: unknown access category {s:?} (BK, BE, VI or VO)"
        ))
    })
}

pub(crate) fn mac_arg(what: &str, s: &str) -> PyResult<MacAddress> {
    parse_mac(s).ok_or_else(|| {
        InvalidRequest::new_err(format!(
            "invalid {what}: {s:?} is not a MAC address like 02:00:00:00:00:01"
        ))
    })
}

/// A rate series from "54x1,24x2" or [("54", 1), ("24", 2)].
pub(crate) fn rates_arg(v: &Bound<'_, PyAny>) -> PyResult<RateSeries> {
    if let Ok(s) = v.extract::<String>() {
        return parse_rate_series(&s)
            .map_err(|e| InvalidRequest::new_err(format!("invalid rates: {e}")));
    }
    let mut parts = Vec::new();
    for item in v.try_iter().map_err(|_| {
        InvalidRequest::new_err("invalid rates: expected \"54x1,24x2\" or [(\"54\", 1), ...]")
    })? {
        let item = item?;
        let (r, t): (Bound<'_, PyAny>, u32) = item.extract().map_err(|_| {
            InvalidRequest::new_err("invalid rates: each entry must be a (rate, tries) pair")
        })?;
        let r = r.str()?.to_string();
        parts.push(format!("{r}x{t}"));
    }
    parse_rate_series(&parts.join(","))
        .map_err(|e| InvalidRequest::new_err(format!("invalid rates: {e}")))
}

/// The unit a span of time is given in from Python (the suffix of its argument's name).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TimeUnit {
    /// Microseconds (`_us`).
    Us,
    /// Milliseconds (`_ms`).
    Ms,
}

impl TimeUnit {
    /// Nanoseconds in one of the unit.
    fn ns(self) -> f64 {
        match self {
            TimeUnit::Us => 1e3,
            TimeUnit::Ms => 1e6,
        }
    }

    /// The unit's name in an error message.
    fn name(self) -> &'static str {
        match self {
            TimeUnit::Us => "microseconds",
            TimeUnit::Ms => "milliseconds",
        }
    }
}

/// The argument `what`, `v` of `unit`, as a span (rounded to the nanosecond); a
/// ValueError naming `what` and the unit when `v` is negative, not finite, or longer
/// than a span can hold.
pub(crate) fn span_arg(what: &str, v: f64, unit: TimeUnit) -> PyResult<Span> {
    let ns = (v * unit.ns()).round();
    if !(v.is_finite() && v >= 0.0 && ns < u64::MAX as f64) {
        return Err(PyValueError::new_err(format!(
            "{what} must be a non-negative number of {}, not {v}",
            unit.name()
        )));
    }
    Ok(Span::from_ns(ns as u64))
}

pub(super) fn wait_arg(timeout: Option<f64>) -> PyResult<Wait> {
    match timeout {
        None => Ok(Wait::Forever),
        Some(t) if t.is_finite() && t <= 0.0 => Ok(Wait::NoWait),
        Some(t) if t.is_finite() => Ok(Wait::For(Duration::from_secs_f64(t))),
        Some(t) => Err(PyValueError::new_err(format!(
            "timeout must be a number of seconds or None, not {t}"
        ))),
    }
}

pub(super) fn scope_arg(ac: Option<&str>, id: Option<u64>) -> PyResult<Scope> {
    match (ac, id) {
        (Some(_), Some(_)) => Err(PyValueError::new_err("give ac= or id=, not both")),
        (Some(a), None) => Ok(Scope::Queue(parse_ac(a)?)),
        (None, Some(i)) => Ok(Scope::Packet(i)),
        (None, None) => Ok(Scope::Adapter),
    }
}

pub(super) fn value_to_py(py: Python<'_>, v: &Value) -> PyResult<Py<PyAny>> {
    Ok(match v {
        Value::Int(i) => i.into_pyobject(py)?.into_any().unbind(),
        Value::Float(f) => f.into_pyobject(py)?.into_any().unbind(),
        Value::Bool(b) => b.into_pyobject(py)?.to_owned().into_any().unbind(),
        Value::Mac(m) => m.to_string().into_pyobject(py)?.into_any().unbind(),
        Value::Rates(r) => sdmac_api::format_rate_series(r).into_pyobject(py)?.into_any().unbind(),
        Value::Text(t) => t.into_pyobject(py)?.into_any().unbind(),
        Value::Map(m) => {
            let d = PyDict::new(py);
            for (k, v) in m {
                d.set_item(k, value_to_py(py, v)?)?;
            }
            d.into_any().unbind()
        }
    })
}

pub(super) fn value_from_py(v: &Bound<'_, PyAny>) -> PyResult<Value> {
    if let Ok(b) = v.extract::<bool>() {
        if v.is_instance_of::<pyo3::types::PyBool>() {
            return Ok(Value::Bool(b));
        }
    }
    if let Ok(i) = v.extract::<i64>() {
        return Ok(Value::Int(i));
    }
    if let Ok(f) = v.extract::<f64>() {
        return Ok(Value::Float(f));
    }
    if let Ok(s) = v.extract::<String>() {
        return Ok(Value::Text(s));
    }
    if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        return Ok(Value::Rates(rates_arg(v)?));
    }
    Err(InvalidValue::new_err(format!(
        "cannot use a {} as an attribute value",
        v.get_type().name()?
    )))
}

/// A timestamp as Python sees it: ns on `CLOCK_MONOTONIC`, None when not recorded.
pub(super) fn ns(v: Time) -> Option<u64> {
    (!v.is_zero()).then_some(v.as_ns())
}
