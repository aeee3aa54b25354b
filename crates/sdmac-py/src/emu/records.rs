//! What the primitives return to Python: confirmations, indications and beacons.

use super::ns;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use sdmac_api::{BeaconInd, Confirmation, FrameClass, Indication, Status, COMPONENT_NAMES};

/// The confirmation of one `data_req`.
#[pyclass(frozen, module = "sdmac._core", name = "Confirmation")]
pub struct PyConfirmation {
    pub(crate) c: Confirmation,
}

#[pymethods]
impl PyConfirmation {
    /// The caller's id.
    #[getter]
    pub(super) fn id(&self) -> u64 {
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
    pub(super) fn ac(&self) -> &'static str {
        self.c.ac.name()
    }
    /// Attempts made.
    #[getter]
    fn attempts(&self) -> u8 {
        self.c.attempts
    }
    /// [(rate, attempts)] actually used.
    #[getter]
    pub(super) fn rates(&self) -> Vec<(String, u8)> {
        self.c.rates_used().iter().map(|(r, n)| (r.to_string(), *n)).collect()
    }
    /// MPDU length on air (bytes, with FCS).
    #[getter]
    fn length(&self) -> u32 {
        self.c.len
    }
    /// The paper's outcome set from the truth on air: "A", "LD", "LA", "NOACK", "DROP".
    #[getter]
    pub(super) fn set(&self) -> &'static str {
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
    pub(super) fn timestamps<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
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
    pub(super) fn __repr__(&self) -> String {
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
    pub(super) i: Indication,
    pub(super) frame: Py<PyBytes>,
}

#[pymethods]
impl PyIndication {
    /// Unique on the receiver, increasing.
    #[getter]
    pub(super) fn id(&self) -> u64 {
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
    pub(super) fn dst(&self) -> String {
        self.i.dst.to_string()
    }
    /// Access category.
    #[getter]
    pub(super) fn ac(&self) -> &'static str {
        self.i.ac.name()
    }
    /// The whole frame (MAC header onwards, no FCS).
    #[getter]
    pub(super) fn frame(&self, py: Python<'_>) -> Py<PyBytes> {
        self.frame.clone_ref(py)
    }
    /// The payload (after the header and LLC/SNAP).
    #[getter]
    pub(super) fn payload<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
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
    pub(super) fn rate(&self) -> String {
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
    pub(super) fn __repr__(&self) -> String {
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
    pub(super) fn __repr__(&self) -> String {
        format!("Beacon(bssid={}, seq={}, t_end={})", self.bssid, self.seq, self.t_end)
    }
}
