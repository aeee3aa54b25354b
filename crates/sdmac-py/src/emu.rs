//! The SDMAC API in Python: `Session` (an emu medium on its device thread) and
//! `Interface` (the primitives), with typed exceptions.

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyTuple};
use std::sync::Mutex;
use std::time::Duration;

use sdmac_api::attribute::parse_mac;
use sdmac_api::{
    parse_rate_series, Ac, ApiError, BeaconInd, Body, Confirmation, FrameClass, Indication,
    Interface as ApiInterface, MacAddress, RateSeries, Scope, Status, Time, TxAttrs, Value, Wait,
    COMPONENT_NAMES,
};
use sdmac_emu::setup::{paper_medium, Loss, PaperSetup, AP, STA};
use sdmac_emu::{DeviceProfile, DeviceWait, EmuOptions, EmuSession, Latency};
use sdmac_open::{AnyBackend, AnyInterface, OpenError as RsOpenError};

create_exception!(
    sdmac._core,
    SdmacError,
    PyException,
    "Base class of the errors of the SDMAC primitives."
);
create_exception!(
    sdmac._core,
    QueueFull,
    SdmacError,
    "The AC queue is full; the packet was not queued."
);
create_exception!(
    sdmac._core,
    ConfirmationBacklog,
    SdmacError,
    "Too many confirmations are unread; call data_con first."
);
create_exception!(sdmac._core, TooLong, SdmacError, "The payload or frame is too long.");
create_exception!(
    sdmac._core,
    MalformedFrame,
    SdmacError,
    "A raw frame is not a valid 802.11 frame."
);
create_exception!(sdmac._core, InvalidId, SdmacError, "The id is out of range.");
create_exception!(sdmac._core, InvalidRequest, SdmacError, "A per-packet attribute is invalid.");
create_exception!(sdmac._core, UnknownAttribute, SdmacError, "No attribute has this name.");
create_exception!(
    sdmac._core,
    WrongScope,
    SdmacError,
    "The attribute belongs to another scope (adapter, queue, packet)."
);
create_exception!(sdmac._core, ReadOnly, SdmacError, "The attribute cannot be set.");
create_exception!(sdmac._core, InvalidValue, SdmacError, "The value does not fit the attribute.");
create_exception!(sdmac._core, NoSuchPacket, SdmacError, "No queued packet has this id.");
create_exception!(sdmac._core, PacketOnAir, SdmacError, "The packet is already on air.");
create_exception!(sdmac._core, Closed, SdmacError, "The session has ended.");
create_exception!(sdmac._core, Unsupported, SdmacError, "The backend does not offer this.");
create_exception!(
    sdmac._core,
    OpenError,
    SdmacError,
    "The backend cannot be opened (bad name, bad scenario, no such station)."
);
create_exception!(
    sdmac._core,
    BackendNotAvailable,
    OpenError,
    "The backend named is not available in this build."
);

/// The Python exception of an error of `open`.
pub(crate) fn open_err(e: RsOpenError) -> PyErr {
    match e {
        RsOpenError::NotAvailable { .. } => BackendNotAvailable::new_err(e.to_string()),
        _ => OpenError::new_err(e.to_string()),
    }
}

/// The Python exception of an API error.
pub(crate) fn api_err(e: ApiError) -> PyErr {
    let m = e.to_string();
    match e {
        ApiError::QueueFull { .. } => QueueFull::new_err(m),
        ApiError::ConfirmationBacklog { .. } => ConfirmationBacklog::new_err(m),
        ApiError::TooLong { .. } => TooLong::new_err(m),
        ApiError::MalformedFrame { .. } => MalformedFrame::new_err(m),
        ApiError::InvalidId { .. } => InvalidId::new_err(m),
        ApiError::InvalidRequest { .. } => InvalidRequest::new_err(m),
        ApiError::UnknownAttribute { .. } => UnknownAttribute::new_err(m),
        ApiError::WrongScope { .. } => WrongScope::new_err(m),
        ApiError::ReadOnly { .. } => ReadOnly::new_err(m),
        ApiError::InvalidValue { .. } => InvalidValue::new_err(m),
        ApiError::NoSuchPacket { .. } => NoSuchPacket::new_err(m),
        ApiError::PacketOnAir { .. } => PacketOnAir::new_err(m),
        ApiError::Closed => Closed::new_err(m),
        ApiError::Unsupported { .. } => Unsupported::new_err(m),
    }
}

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

fn wait_arg(timeout: Option<f64>) -> PyResult<Wait> {
    match timeout {
        None => Ok(Wait::Forever),
        Some(t) if t.is_finite() && t <= 0.0 => Ok(Wait::NoWait),
        Some(t) if t.is_finite() => Ok(Wait::For(Duration::from_secs_f64(t))),
        Some(t) => Err(PyValueError::new_err(format!(
            "timeout must be a number of seconds or None, not {t}"
        ))),
    }
}

fn scope_arg(ac: Option<&str>, id: Option<u64>) -> PyResult<Scope> {
    match (ac, id) {
        (Some(_), Some(_)) => Err(PyValueError::new_err("give ac= or id=, not both")),
        (Some(a), None) => Ok(Scope::Queue(parse_ac(a)?)),
        (None, Some(i)) => Ok(Scope::Packet(i)),
        (None, None) => Ok(Scope::Adapter),
    }
}

fn value_to_py(py: Python<'_>, v: &Value) -> PyResult<Py<PyAny>> {
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

fn value_from_py(v: &Bound<'_, PyAny>) -> PyResult<Value> {
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
fn ns(v: Time) -> Option<u64> {
    (!v.is_zero()).then_some(v.as_ns())
}

/// The confirmation of one `data_req`.
#[pyclass(frozen, module = "sdmac._core", name = "Confirmation")]
pub struct PyConfirmation {
    pub(crate) c: Confirmation,
}

#[pymethods]
impl PyConfirmation {
    /// The caller's id.
    #[getter]
    fn id(&self) -> u64 {
        self.c.id
    }
    /// "acked", "ack_timeout", "sent" or "dropped".
    #[getter]
    fn status(&self) -> &'static str {
        self.c.status.name()
    }
    /// Why it was dropped ("cancelled", "duplicate_id", "refused", "closed"), else None.
    #[getter]
    fn reason(&self) -> Option<&'static str> {
        match self.c.status {
            Status::Dropped(r) => Some(r.name()),
            _ => None,
        }
    }
    /// Access category ("BK", "BE", "VI", "VO").
    #[getter]
    fn ac(&self) -> &'static str {
        self.c.ac.name()
    }
    /// Attempts made.
    #[getter]
    fn attempts(&self) -> u8 {
        self.c.attempts
    }
    /// [(rate, attempts)] actually used.
    #[getter]
    fn rates(&self) -> Vec<(String, u8)> {
        self.c.rates_used().iter().map(|(r, n)| (r.to_string(), *n)).collect()
    }
    /// MPDU length on air (bytes, with FCS).
    #[getter]
    fn length(&self) -> u32 {
        self.c.len
    }
    /// The paper's outcome set from the truth on air: "A", "LD", "LA", "NOACK", "DROP".
    #[getter]
    fn set(&self) -> &'static str {
        self.c.set_name()
    }
    /// Why the last attempt failed (truth on air), e.g. "link_error_prob", "none".
    #[getter]
    fn cause(&self) -> Option<&'static str> {
        self.c.truth.map(|t| t.cause.name())
    }
    /// Did the destination receive the DATA frame (truth on air)?
    #[getter]
    fn delivered(&self) -> Option<bool> {
        self.c.truth.map(|t| t.delivered)
    }
    /// Timestamps (ns, CLOCK_MONOTONIC = time.monotonic_ns()); None when not recorded.
    #[getter]
    fn timestamps<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let t = &self.c.ts;
        let d = PyDict::new(py);
        for (k, v) in [
            ("t1", t.t1),
            ("t2", t.t2),
            ("t3", t.t3),
            ("t4", t.t4),
            ("t_start", t.t_start),
            ("t_last_start", t.t_last_start),
            ("t_data_end", t.t_data_end),
            ("t5", t.t5),
            ("t7", t.t7),
            ("t8", t.t8),
            ("t9", t.t9),
        ] {
            d.set_item(k, ns(v))?;
        }
        Ok(d)
    }
    /// Latency components (µs): Tsw_req, Thw, Tca, Ttoa, Tsw_con, TSDMAC, Tpath;
    /// None when timestamps were not recorded (or it never went on air).
    #[getter]
    fn components<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(c) = self.c.ts.components() else { return Ok(None) };
        let d = PyDict::new(py);
        for (k, v) in COMPONENT_NAMES.iter().zip(c.as_array()) {
            d.set_item(*k, v as f64 / 1000.0)?;
        }
        Ok(Some(d))
    }
    fn __repr__(&self) -> String {
        format!(
            "Confirmation(id={}, status={:?}, set={:?}, attempts={})",
            self.c.id,
            self.c.status.name(),
            self.c.set_name(),
            self.c.attempts
        )
    }
}

/// A received frame.
#[pyclass(frozen, module = "sdmac._core", name = "Indication")]
pub struct PyIndication {
    i: Indication,
    frame: Py<PyBytes>,
}

#[pymethods]
impl PyIndication {
    /// Unique on the receiver, increasing.
    #[getter]
    fn id(&self) -> u64 {
        self.i.id
    }
    /// "data" or "management".
    #[getter]
    fn kind(&self) -> &'static str {
        match self.i.class {
            FrameClass::Data => "data",
            FrameClass::Management => "management",
        }
    }
    /// Transmitter address.
    #[getter]
    fn src(&self) -> String {
        self.i.src.to_string()
    }
    /// Receiver address.
    #[getter]
    fn dst(&self) -> String {
        self.i.dst.to_string()
    }
    /// Access category.
    #[getter]
    fn ac(&self) -> &'static str {
        self.i.ac.name()
    }
    /// The whole frame (MAC header onwards, no FCS).
    #[getter]
    fn frame(&self, py: Python<'_>) -> Py<PyBytes> {
        self.frame.clone_ref(py)
    }
    /// The payload (after the header and LLC/SNAP).
    #[getter]
    fn payload<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        let b = self.frame.bind(py).as_bytes();
        PyBytes::new(py, &b[self.i.payload_offset.min(b.len())..])
    }
    /// Received power (dBm).
    #[getter]
    fn signal_dbm(&self) -> f64 {
        self.i.rx.signal_dbm
    }
    /// SNR (dB).
    #[getter]
    fn snr_db(&self) -> f64 {
        self.i.rx.snr_db
    }
    /// Rate it was sent at.
    #[getter]
    fn rate(&self) -> String {
        self.i.rx.rate.to_string()
    }
    /// Start on air (ns, CLOCK_MONOTONIC).
    #[getter]
    fn t_start(&self) -> u64 {
        self.i.rx.t_start.as_ns()
    }
    /// End on air (ns).
    #[getter]
    fn t_end(&self) -> u64 {
        self.i.rx.t_end.as_ns()
    }
    /// Published by the device (ns).
    #[getter]
    fn t_published(&self) -> u64 {
        self.i.rx.t_published.as_ns()
    }
    /// Returned by data_ind (ns).
    #[getter]
    fn t_returned(&self) -> u64 {
        self.i.rx.t_returned.as_ns()
    }
    fn __repr__(&self) -> String {
        format!(
            "Indication(id={}, kind={:?}, src={}, len={})",
            self.i.id,
            self.kind(),
            self.i.src,
            self.i.len
        )
    }
}

/// A beacon heard.
#[pyclass(frozen, module = "sdmac._core", name = "Beacon", get_all)]
pub struct PyBeacon {
    /// The beaconing BSS.
    bssid: String,
    /// Counts beacons heard on this interface, from 1.
    seq: u64,
    /// Start on air (ns, CLOCK_MONOTONIC).
    t_start: u64,
    /// End on air: received (ns).
    t_end: u64,
    /// Published by the device (ns).
    t_published: u64,
    /// Received power (dBm).
    signal_dbm: f64,
}

impl From<BeaconInd> for PyBeacon {
    fn from(b: BeaconInd) -> PyBeacon {
        PyBeacon {
            bssid: b.bssid.to_string(),
            seq: b.seq,
            t_start: b.t_start.as_ns(),
            t_end: b.t_end.as_ns(),
            t_published: b.t_published.as_ns(),
            signal_dbm: b.signal_dbm,
        }
    }
}

#[pymethods]
impl PyBeacon {
    fn __repr__(&self) -> String {
        format!("Beacon(bssid={}, seq={}, t_end={})", self.bssid, self.seq, self.t_end)
    }
}

/// One interface: the SDMAC primitives, on any backend (from `sdmac.open(name)` or
/// `Session.interface(name)`). Use it from one thread at a time.
#[pyclass(module = "sdmac._core", name = "Interface")]
pub struct PyInterface {
    inner: Mutex<AnyInterface>,
    name: String,
    address: String,
}

impl PyInterface {
    pub(crate) fn new(mut inner: AnyInterface, name: String) -> PyInterface {
        let address = match inner.get("address", Scope::Adapter) {
            Ok(Value::Mac(m)) => m.to_string(),
            _ => String::new(),
        };
        PyInterface { inner: Mutex::new(inner), name, address }
    }

    pub(crate) fn with<R>(&self, f: impl FnOnce(&mut AnyInterface) -> R) -> R {
        let mut g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut g)
    }
}

#[pymethods]
impl PyInterface {
    /// The interface's name (the station's in a Session; the backend name from open).
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// Its MAC address.
    #[getter]
    fn address(&self) -> &str {
        &self.address
    }

    /// DATA_req: queue one packet. Give `payload` (the backend builds the 802.11
    /// frame) or `frame` (a whole MPDU without FCS). `rates`: "54x1,24x2" or
    /// [("54", 1), ("24", 2)]; one entry with one try is a confirmed one-shot.
    /// `t1`: the caller's timestamp (time.monotonic_ns()); taken here when None.
    #[pyo3(signature = (id, payload = None, *, frame = None, ac = "BE", dst = None, rates = None, no_ack = false, timestamps = true, t1 = None))]
    #[allow(clippy::too_many_arguments)]
    fn data_req(
        &self,
        id: u64,
        payload: Option<&[u8]>,
        frame: Option<&[u8]>,
        ac: &str,
        dst: Option<&str>,
        rates: Option<&Bound<'_, PyAny>>,
        no_ack: bool,
        timestamps: bool,
        t1: Option<u64>,
    ) -> PyResult<()> {
        let t1 = t1.unwrap_or_else(sdmac_rt::monotonic_ns);
        let body = match (payload, frame) {
            (Some(p), None) => Body::Payload(p),
            (None, Some(f)) => Body::Frame(f),
            _ => {
                return Err(InvalidRequest::new_err(
                    "invalid body: give exactly one of payload or frame=",
                ))
            }
        };
        let attrs = TxAttrs {
            dst: dst.map(|d| mac_arg("dst", d)).transpose()?,
            rates: rates.map(rates_arg).transpose()?,
            no_ack,
            timestamps,
        };
        let ac = parse_ac(ac)?;
        self.with(|i| i.data_req_at(Time::from_ns(t1), id, body, ac, &attrs)).map_err(api_err)
    }

    /// DATA_con: the next confirmation. `timeout`: seconds (0 = do not wait), None =
    /// wait until one arrives. Returns None on timeout.
    #[pyo3(signature = (timeout = None))]
    fn data_con(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<Option<PyConfirmation>> {
        let wait = wait_arg(timeout)?;
        let r = if wait == Wait::NoWait {
            self.with(|i| i.data_con(wait))
        } else {
            py.detach(|| self.with(|i| i.data_con(wait)))
        };
        Ok(r.map_err(api_err)?.map(|c| PyConfirmation { c }))
    }

    /// DATA_ind: the next received frame, or None on timeout.
    #[pyo3(signature = (timeout = None))]
    fn data_ind(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<Option<PyIndication>> {
        let wait = wait_arg(timeout)?;
        let mut buf = Vec::new();
        let r = py.detach(|| self.with(|i| i.data_ind(&mut buf, wait))).map_err(api_err)?;
        Ok(r.map(|i| PyIndication { i, frame: PyBytes::new(py, &buf).unbind() }))
    }

    /// beacon_ind: the next beacon heard, or None on timeout.
    #[pyo3(signature = (timeout = None))]
    fn beacon_ind(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<Option<PyBeacon>> {
        let wait = wait_arg(timeout)?;
        let r = py.detach(|| self.with(|i| i.beacon_ind(wait))).map_err(api_err)?;
        Ok(r.map(PyBeacon::from))
    }

    /// DATA_set: an attribute of the adapter, of a queue (`ac=`) or of a packet (`id=`).
    #[pyo3(signature = (name, value, *, ac = None, id = None))]
    fn set(
        &self,
        py: Python<'_>,
        name: &str,
        value: &Bound<'_, PyAny>,
        ac: Option<&str>,
        id: Option<u64>,
    ) -> PyResult<()> {
        let scope = scope_arg(ac, id)?;
        sdmac_api::attribute::lookup(name, &scope, true).map_err(api_err)?;
        let v = value_from_py(value)?;
        py.detach(|| self.with(|i| i.set(name, scope, v))).map_err(api_err)
    }

    /// DATA_get: an attribute of the adapter, of a queue (`ac=`) or of a packet (`id=`).
    #[pyo3(signature = (name, *, ac = None, id = None))]
    fn get(
        &self,
        py: Python<'_>,
        name: &str,
        ac: Option<&str>,
        id: Option<u64>,
    ) -> PyResult<Py<PyAny>> {
        let scope = scope_arg(ac, id)?;
        let v = py.detach(|| self.with(|i| i.get(name, scope))).map_err(api_err)?;
        value_to_py(py, &v)
    }

    /// Cancels a packet still queued: True if it was (its confirmation then says
    /// dropped/cancelled), False if it is on air or done.
    fn cancel(&self, py: Python<'_>, id: u64) -> PyResult<bool> {
        py.detach(|| self.with(|i| i.cancel(id))).map_err(api_err)
    }

    /// Packets in the queue of `ac` (requested and not yet finished).
    #[pyo3(signature = (ac = "BE"))]
    fn queue_len(&self, ac: &str) -> PyResult<usize> {
        let ac = parse_ac(ac)?;
        Ok(self.with(|i| i.queue_len(ac)))
    }

    /// Requests whose confirmation has not been read yet.
    fn unconfirmed(&self) -> usize {
        self.with(|i| i.unconfirmed())
    }

    /// A file descriptor that becomes readable when a confirmation, indication or
    /// beacon arrives (for asyncio's add_reader). Read it with clear_event().
    fn fileno(&self) -> PyResult<i32> {
        self.with(|i| i.event_fd()).ok_or_else(|| Unsupported::new_err("no event descriptor"))
    }

    /// Clears the event descriptor (after it became readable).
    fn clear_event(&self) -> PyResult<()> {
        let fd = self.fileno()?;
        let mut v = 0u64;
        // SAFETY: reads 8 bytes from our own non-blocking eventfd into a valid u64.
        unsafe { libc_read(fd, &mut v) };
        Ok(())
    }

    fn __repr__(&self) -> String {
        format!("Interface(name={:?}, address={})", self.name, self.address)
    }
}

extern "C" {
    fn read(fd: i32, buf: *mut std::ffi::c_void, count: usize) -> isize;
}

/// # Safety
/// `fd` must be an open descriptor.
unsafe fn libc_read(fd: i32, v: &mut u64) {
    read(fd, v as *mut u64 as *mut std::ffi::c_void, 8);
}

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
    /// (ap -> sta) losses are set separately, by probability or SNR.
    #[staticmethod]
    #[pyo3(signature = (*, loss_data = None, loss_ack = None, snr_data = None, snr_ack = None, ack_preamble_share = 0.5, ack_timeout_us = None, basic_rates = vec![6.0], beacon_interval_tu = 50, distance_m = 10.0, seed = 1, device_wait = "park", device_req_us = "0", device_con_us = "0"))]
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
    /// run too, as background traffic.
    #[staticmethod]
    #[pyo3(signature = (text, interfaces, *, name = "scenario".to_string(), device_wait = "park", seed = 1))]
    fn from_scenario(
        text: &str,
        interfaces: Vec<String>,
        name: String,
        device_wait: &str,
        seed: u64,
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
        let opts =
            EmuOptions { wait: device_wait_arg(device_wait)?, seed, ..EmuOptions::default() };
        let s = EmuSession::start(b.medium, &ifs, opts)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(PySession { inner: Mutex::new(s) })
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
/// this build lacks).
#[pyfunction]
pub(crate) fn open(py: Python<'_>, name: &str) -> PyResult<PyInterface> {
    let i = py.detach(|| sdmac_open::open(name)).map_err(open_err)?;
    Ok(PyInterface::new(i, name.to_string()))
}

fn device_wait_arg(s: &str) -> PyResult<DeviceWait> {
    device_wait(s)
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
