//! The SDMAC API in Python: `Session` (an emu medium on its device thread) and
//! `Interface` (the primitives), with typed exceptions.

mod convert;
mod errors;
mod interface;
mod records;

pub(crate) use convert::parse_ac;
pub(crate) use convert::{mac_arg, rates_arg, span_arg, TimeUnit};
use convert::{ns, scope_arg, value_from_py, value_to_py, wait_arg};
pub(crate) use errors::{api_err, open_err};
pub use errors::{
    BackendNotAvailable, Closed, ConfirmationBacklog, InvalidId, InvalidRequest, InvalidValue,
    MalformedFrame, NoSuchPacket, OpenError, PacketOnAir, QueueFull, ReadOnly, SdmacError, TooLong,
    UnknownAttribute, Unsupported, WrongScope,
};
pub use interface::PyInterface;
pub use records::{PyBeacon, PyConfirmation, PyIndication};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::sync::Mutex;

use sdmac_api::Interface as ApiInterface;
use sdmac_emu::setup::{paper_medium, Loss, PaperSetup, AP, STA};
use sdmac_emu::{DeviceProfile, DeviceWait, EmuClock, EmuOptions, EmuSession, Latency};
use sdmac_open::AnyBackend;

/// An emulated medium running on the wall clock, with interfaces.
#[pyclass(module = "sdmac._core", name = "Session")]
pub struct PySession {
    inner: Mutex<EmuSession>,
}

pub(crate) fn device_wait(s: &str) -> PyResult<DeviceWait> {
    match s {
        "spin" => Ok(DeviceWait::Spin),
        "park" => Ok(DeviceWait::Park { spin_ns: 200_000 }),
        _ => Err(PyValueError::new_err(format!(
            "device_wait must be \"spin\" or \"park\", not {s:?}"
        ))),
    }
}

pub(crate) fn latency(what: &str, s: &str) -> PyResult<Latency> {
    Latency::parse_us(s).map_err(|e| PyValueError::new_err(format!("{what}: {e}")))
}

pub(crate) fn loss(what: &str, p: Option<f64>, snr: Option<f64>) -> PyResult<Loss> {
    match (p, snr) {
        (Some(_), Some(_)) => {
            Err(PyValueError::new_err(format!("{what}: give a probability or an SNR, not both")))
        }
        (Some(p), None) if (0.0..=1.0).contains(&p) => {
            Ok(if p == 0.0 { Loss::None } else { Loss::Probability(p) })
        }
        (Some(p), None) => {
            Err(PyValueError::new_err(format!("{what}: probability {p} is not within 0..=1")))
        }
        (None, Some(s)) if s.is_finite() => Ok(Loss::SnrDb(s)),
        (None, Some(s)) => Err(PyValueError::new_err(format!("{what}: SNR {s} is not a number"))),
        (None, None) => Ok(Loss::None),
    }
}

#[pymethods]
impl PySession {
    /// The SDMAC paper's testbed: an AP ("ap", 02:00:00:00:00:01) beaconing every
    /// `beacon_interval_tu` TU on channel 36 (802.11a, basic rates {6 Mb/s}) and a
    /// station ("sta", 02:00:00:00:00:02) `distance_m` away. DATA (sta -> ap) and ACK
    /// (ap -> sta) losses are set separately, by probability or SNR. `clock` "virtual"
    /// runs the medium on a virtual clock: time moves only when every interface taken
    /// waits in data_con/data_ind/beacon_ind (take them all before any waits).
    #[staticmethod]
    #[pyo3(signature = (*, loss_data = None, loss_ack = None, snr_data = None, snr_ack = None, ack_preamble_share = 0.5, ack_timeout_us = None, basic_rates = vec![6.0], beacon_interval_tu = 50, distance_m = 10.0, seed = 1, device_wait = "park", device_req_us = "0", device_con_us = "0", clock = "wall"))]
    #[allow(clippy::too_many_arguments)]
    fn paper(
        loss_data: Option<f64>,
        loss_ack: Option<f64>,
        snr_data: Option<f64>,
        snr_ack: Option<f64>,
        ack_preamble_share: f64,
        ack_timeout_us: Option<f64>,
        basic_rates: Vec<f64>,
        beacon_interval_tu: u32,
        distance_m: f64,
        seed: u64,
        device_wait: &str,
        device_req_us: &str,
        device_con_us: &str,
        clock: &str,
    ) -> PyResult<PySession> {
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
        let opts = EmuOptions {
            wait: device_wait_arg(device_wait)?,
            profile: DeviceProfile {
                req: latency("device_req_us", device_req_us)?,
                con: latency("device_con_us", device_con_us)?,
            },
            seed,
            clock: clock_arg(clock)?,
            ..EmuOptions::default()
        };
        let (m, ap, sta) = paper_medium(&setup).map_err(PyValueError::new_err)?;
        let s = EmuSession::start(m, &[(AP, ap), (STA, sta)], opts)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(PySession { inner: Mutex::new(s) })
    }

    /// A session on a TOML scenario (as `sdmac sim` reads; its first medium), with one
    /// interface per station named in `interfaces` (station names of the scenario;
    /// a station with `count` > 1 is named NAME0, NAME1, ...). Flows in the scenario
    /// run too, as background traffic. `clock` is "wall" or "virtual" (as `paper`).
    #[staticmethod]
    #[pyo3(signature = (text, interfaces, *, name = "scenario".to_string(), device_wait = "park", seed = 1, clock = "wall"))]
    fn from_scenario(
        text: &str,
        interfaces: Vec<String>,
        name: String,
        device_wait: &str,
        seed: u64,
        clock: &str,
    ) -> PyResult<PySession> {
        let sc = sdmac_sim::Scenario::parse(text, &name)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        let mut built =
            sdmac_sim::runner::build(&sc).map_err(|e| PyValueError::new_err(e.to_string()))?;
        if built.is_empty() {
            return Err(PyValueError::new_err(format!("{name}: the scenario has no medium")));
        }
        let b = built.swap_remove(0);
        let names: Vec<String> = sc.stations.iter().map(|s| s.name.clone()).collect();
        let mut ifs = Vec::new();
        for want in &interfaces {
            let pos = b.stations.iter().position(|&si| names.get(si).is_some_and(|n| n == want));
            match pos {
                Some(st) => ifs.push((want.as_str(), st as sdmac_medium::StationId)),
                None => {
                    return Err(PyValueError::new_err(format!(
                        "{name}: no station {want:?} on the first medium (stations: {})",
                        names.join(", ")
                    )))
                }
            }
        }
        let opts = EmuOptions {
            wait: device_wait_arg(device_wait)?,
            seed,
            clock: clock_arg(clock)?,
            ..EmuOptions::default()
        };
        let s = EmuSession::start(b.medium, &ifs, opts)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(PySession { inner: Mutex::new(s) })
    }

    /// The clock driving the medium: "wall" or "virtual".
    #[getter]
    fn clock(&self) -> &'static str {
        match self.inner.lock().unwrap_or_else(|e| e.into_inner()).clock() {
            EmuClock::Wall => "wall",
            EmuClock::Virtual => "virtual",
        }
    }

    /// The time now on the session's clock (ns; CLOCK_MONOTONIC, or virtual time).
    fn now(&self) -> u64 {
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).now().as_ns()
    }

    /// On the virtual clock: the interface `name` takes no part in time from now on
    /// (time no longer waits for it), for an application done with it. ValueError for
    /// an unknown name.
    fn take_no_part(&self, name: &str) -> PyResult<()> {
        let s = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if s.take_no_part(name) {
            Ok(())
        } else {
            Err(PyValueError::new_err(format!(
                "no interface {name:?} (interfaces: {})",
                s.names().join(", ")
            )))
        }
    }

    /// The watchdog's reports of virtual time standing still while an interface was
    /// busy (which ones).
    fn stalls(&self) -> Vec<String> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).stalls()
    }

    /// Names of the interfaces.
    fn names(&self) -> Vec<String> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).names().to_vec()
    }

    /// Takes the interface `name` (each can be taken once).
    fn interface(&self, name: &str) -> PyResult<PyInterface> {
        let mut s = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let known = s.names().to_vec();
        let i = s.take(name).ok_or_else(|| {
            if known.iter().any(|n| n == name) {
                PyValueError::new_err(format!("interface {name:?} was already taken"))
            } else {
                PyValueError::new_err(format!(
                    "no interface {name:?} (interfaces: {})",
                    known.join(", ")
                ))
            }
        })?;
        Ok(PyInterface::new(
            ApiInterface::new(AnyBackend::from_interface(name, i)),
            name.to_string(),
        ))
    }

    /// Stops the device: requests still queued are confirmed as dropped ("closed").
    fn close(&self, py: Python<'_>) {
        py.detach(|| self.inner.lock().unwrap_or_else(|e| e.into_inner()).close());
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __exit__(&self, py: Python<'_>, _a: Py<PyAny>, _b: Py<PyAny>, _c: Py<PyAny>) -> bool {
        self.close(py);
        false
    }
}

/// Opens a backend by name: "emu" (the SDMAC paper's testbed; the interface is its
/// station "sta", the AP is its bssid), "emu:SCENARIO.toml" or
/// "emu:SCENARIO.toml#STATION" (a TOML scenario as `sdmac sim` reads; the interface is
/// the station named, else the first that is not an AP), "hwsim:IFACE" or
/// "linux:IFACE". Returns the same Interface on every backend; the backend runs until
/// the interface is dropped. Raises OpenError (BackendNotAvailable for a backend
/// this build lacks). `clock` "virtual" runs an emu medium on the virtual clock (as
/// `Session.paper(clock=...)`); other backends refuse it with ValueError.
#[pyfunction]
#[pyo3(signature = (name, *, clock = "wall"))]
pub(crate) fn open(py: Python<'_>, name: &str, clock: &str) -> PyResult<PyInterface> {
    let clock = clock_arg(clock)?;
    let parsed = sdmac_api::BackendName::parse(name)
        .map_err(|e| open_err(sdmac_open::OpenError::Name(e)))?;
    if clock == EmuClock::Virtual && !matches!(parsed, sdmac_api::BackendName::Emu { .. }) {
        return Err(PyValueError::new_err(format!(
            "clock \"virtual\": backend {name:?} runs on the wall clock (the virtual clock is emu's only)"
        )));
    }
    let opts = sdmac_open::OpenOptions {
        emu: EmuOptions { clock, ..EmuOptions::default() },
        ..sdmac_open::OpenOptions::default()
    };
    let i = py.detach(|| sdmac_open::open_with(&parsed, &opts)).map_err(open_err)?;
    Ok(PyInterface::new(i, name.to_string()))
}

fn device_wait_arg(s: &str) -> PyResult<DeviceWait> {
    device_wait(s)
}

fn clock_arg(s: &str) -> PyResult<EmuClock> {
    s.parse().map_err(PyValueError::new_err)
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn paper_setup(
    loss_data: Option<f64>,
    loss_ack: Option<f64>,
    snr_data: Option<f64>,
    snr_ack: Option<f64>,
    ack_preamble_share: f64,
    ack_timeout_us: Option<f64>,
    basic_rates: &[f64],
    beacon_interval_tu: u32,
    distance_m: f64,
    seed: u64,
) -> PyResult<PaperSetup> {
    let mut basic = Vec::new();
    for r in basic_rates {
        let name = if r.fract() == 0.0 { format!("{}", *r as u64) } else { format!("{r}") };
        basic.push(name.parse::<sdmac_phy::Rate>().map_err(|_| {
            PyValueError::new_err(format!("basic rate {r} Mb/s is not an 802.11a rate"))
        })?);
    }
    if !(1..=65535).contains(&beacon_interval_tu) {
        return Err(PyValueError::new_err(format!(
            "beacon interval {beacon_interval_tu} TU is not within 1..=65535"
        )));
    }
    if !(distance_m.is_finite() && distance_m > 0.0) {
        return Err(PyValueError::new_err(format!("distance {distance_m} m must be positive")));
    }
    let ack_timeout_ns = match ack_timeout_us {
        Some(us) if us.is_finite() && (1.0..=10_000.0).contains(&us) => {
            Some((us * 1000.0).round() as u64)
        }
        Some(us) => {
            return Err(PyValueError::new_err(format!(
                "ACK timeout {us} µs is not within 1..=10000"
            )))
        }
        None => None,
    };
    Ok(PaperSetup {
        basic_rates: basic,
        beacon_interval_ns: beacon_interval_tu as u64 * 1_024_000,
        distance_m,
        ack_timeout_ns,
        loss_data: loss("loss_data", loss_data, snr_data)?,
        loss_ack: loss("loss_ack", loss_ack, snr_ack)?,
        ack_preamble_share,
        seed,
        ..PaperSetup::default()
    })
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PySession>()?;
    m.add_function(wrap_pyfunction!(open, m)?)?;
    m.add_class::<PyInterface>()?;
    m.add_class::<PyConfirmation>()?;
    m.add_class::<PyIndication>()?;
    m.add_class::<PyBeacon>()?;
    let py = m.py();
    for (n, e) in [
        ("SdmacError", py.get_type::<SdmacError>()),
        ("QueueFull", py.get_type::<QueueFull>()),
        ("ConfirmationBacklog", py.get_type::<ConfirmationBacklog>()),
        ("TooLong", py.get_type::<TooLong>()),
        ("MalformedFrame", py.get_type::<MalformedFrame>()),
        ("InvalidId", py.get_type::<InvalidId>()),
        ("InvalidRequest", py.get_type::<InvalidRequest>()),
        ("UnknownAttribute", py.get_type::<UnknownAttribute>()),
        ("WrongScope", py.get_type::<WrongScope>()),
        ("ReadOnly", py.get_type::<ReadOnly>()),
        ("InvalidValue", py.get_type::<InvalidValue>()),
        ("NoSuchPacket", py.get_type::<NoSuchPacket>()),
        ("PacketOnAir", py.get_type::<PacketOnAir>()),
        ("Closed", py.get_type::<Closed>()),
        ("Unsupported", py.get_type::<Unsupported>()),
        ("OpenError", py.get_type::<OpenError>()),
        ("BackendNotAvailable", py.get_type::<BackendNotAvailable>()),
    ] {
        m.add(n, e)?;
    }
    Ok(())
}
