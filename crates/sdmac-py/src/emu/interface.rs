//! `Interface`: the SDMAC primitives of one interface, on any backend.

use super::{
    api_err, mac_arg, parse_ac, rates_arg, scope_arg, value_from_py, value_to_py, wait_arg,
    InvalidRequest, PyBeacon, PyConfirmation, PyIndication, Unsupported,
};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use sdmac_api::{Body, Scope, Time, TxAttrs, Value, Wait};
use sdmac_open::AnyInterface;
use std::sync::Mutex;

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

    /// Locks the interface for a caller that drives it from Rust (the overlays).
    pub(crate) fn lock(&self) -> std::sync::MutexGuard<'_, AnyInterface> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
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
    pub(super) fn name(&self) -> &str {
        &self.name
    }

    /// Its MAC address.
    #[getter]
    pub(super) fn address(&self) -> &str {
        &self.address
    }

    /// The time now on the backend's clock (ns): CLOCK_MONOTONIC, or an emu session's
    /// virtual time.
    fn now(&self) -> u64 {
        self.with(|i| i.now().as_ns())
    }

    /// DATA_req: queue one packet. Give `payload` (the backend builds the 802.11
    /// frame) or `frame` (a whole MPDU without FCS). `rates`: "54x1,24x2" or
    /// [("54", 1), ("24", 2)]; one entry with one try is a confirmed one-shot.
    /// `t1`: the caller's timestamp (ns on the backend's clock, as `now()`: CLOCK_MONOTONIC,
    /// or an emu session's virtual time); taken here when None.
    /// `not_before` / `not_after`: times on time.monotonic_ns()'s clock (ns) before
    /// which the packet is not handed to channel access / after which it is dropped
    /// unsent as late (backends whose `timed_sends` is True).
    #[pyo3(signature = (id, payload = None, *, frame = None, ac = "BE", dst = None, rates = None, no_ack = false, timestamps = true, t1 = None, not_before = None, not_after = None))]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn data_req(
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
        not_before: Option<u64>,
        not_after: Option<u64>,
    ) -> PyResult<()> {
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
            not_before: not_before.map(Time::from_ns),
            not_after: not_after.map(Time::from_ns),
        };
        let ac = parse_ac(ac)?;
        self.with(|i| {
            // On the virtual clock, CLOCK_MONOTONIC is not the confirmation's clock.
            let t1 = t1.map_or_else(|| i.now(), Time::from_ns);
            i.data_req_at(t1, id, body, ac, &attrs)
        })
        .map_err(api_err)
    }

    /// DATA_con: the next confirmation. `timeout`: seconds (0 = do not wait), None =
    /// wait until one arrives. Returns None on timeout.
    #[pyo3(signature = (timeout = None))]
    pub(super) fn data_con(
        &self,
        py: Python<'_>,
        timeout: Option<f64>,
    ) -> PyResult<Option<PyConfirmation>> {
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
    pub(super) fn data_ind(
        &self,
        py: Python<'_>,
        timeout: Option<f64>,
    ) -> PyResult<Option<PyIndication>> {
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
    pub(super) fn set(
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
    pub(super) fn get(
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

    /// Whether the backend takes timed requests (data_req's not_before / not_after).
    #[getter]
    fn timed_sends(&self) -> bool {
        self.with(|i| i.timed_sends())
    }

    /// Requests whose confirmation has not been read yet.
    fn unconfirmed(&self) -> usize {
        self.with(|i| i.unconfirmed())
    }

    /// A file descriptor that becomes readable when a confirmation, indication or
    /// beacon arrives (for asyncio's add_reader). Read it with clear_event().
    fn fileno(&self) -> PyResult<i32> {
        self.with(|i| i.event_fd()).ok_or_else(|| {
            Unsupported::new_err(
                "no event descriptor: this backend has none (an emu session on the virtual clock \
             has none: an event loop's wait is not one its clock can see)",
            )
        })
    }

    /// Clears the event descriptor (after it became readable).
    fn clear_event(&self) -> PyResult<()> {
        let fd = self.fileno()?;
        let mut v = 0u64;
        // SAFETY: reads 8 bytes from our own non-blocking eventfd into a valid u64.
        unsafe { libc_read(fd, &mut v) };
        Ok(())
    }

    pub(super) fn __repr__(&self) -> String {
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
