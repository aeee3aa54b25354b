//! The functions of the ABI.

use crate::boundary::{arg, guard, out, text};
use crate::convert::*;
use crate::error::{sdmac_error, Fail};
use crate::types::*;
use sdmac_api::{
    parse_rate_series, BackendName, Body, Indication, MacAddress, Time, TxAttrs, Wait,
};
use sdmac_emu::EmuClock;
use sdmac_open::{AnyInterface, OpenError, OpenOptions};
use std::cell::UnsafeCell;
use std::ffi::c_char;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// An open interface of a backend (opaque). Used by one thread at a time.
pub struct sdmac_iface {
    busy: AtomicBool,
    inner: UnsafeCell<Inner>,
}

struct Inner {
    iface: AnyInterface,
    buf: Vec<u8>,
    /// An indication that did not fit the caller's buffer, kept for the next call.
    held: Option<(Indication, Vec<u8>)>,
}

/// Clears the busy flag when the call ends, panics included.
struct Busy<'a>(&'a AtomicBool);

impl Drop for Busy<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

/// Runs `f` on the handle, which must be non-NULL and not in use by another thread.
///
/// # Safety
/// A non-NULL `h` must come from sdmac_open and not be closed.
unsafe fn with<R>(
    h: *mut sdmac_iface,
    f: impl FnOnce(&mut Inner) -> Result<R, Fail>,
) -> Result<R, Fail> {
    let h = arg(h as *const sdmac_iface, "handle")?;
    if h.busy.compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed).is_err() {
        return Err(Fail::new(
            sdmac_error::SDMAC_ERR_BUSY,
            "the handle is in use by another thread (use one handle from one thread at a time)",
        ));
    }
    let _busy = Busy(&h.busy);
    // SAFETY: the busy flag gives this call the only access to `inner`.
    f(&mut *h.inner.get())
}

fn wait_of(timeout_ns: i64) -> Wait {
    match timeout_ns {
        t if t < 0 => Wait::Forever,
        0 => Wait::NoWait,
        t => Wait::For(Duration::from_nanos(t as u64)),
    }
}

fn timeout(what: &str, timeout_ns: i64) -> Fail {
    Fail::new(sdmac_error::SDMAC_ERR_TIMEOUT, format!("no {what} within {} ns", timeout_ns.max(0)))
}

/// Opens the backend named `backend` and stores its handle in `*out` (NULL on
/// error): "emu" (the SDMAC paper's testbed: the handle is its station
/// 02:00:00:00:00:02, whose bssid is the AP 02:00:00:00:00:01), "emu:SCENARIO.toml"
/// or "emu:SCENARIO.toml#STATION" (a TOML scenario as `sdmac sim` reads; the
/// station named, else the first that is not an AP), "hwsim:IFACE", "linux:IFACE".
/// The same as sdmac_open_with with the default options (the wall clock).
/// Errors: SDMAC_ERR_NULL, SDMAC_ERR_INVALID_ARGUMENT (not UTF-8),
/// SDMAC_ERR_BAD_NAME, SDMAC_ERR_NOT_AVAILABLE, SDMAC_ERR_OPEN_FAILED.
///
/// # Safety
/// `backend` is NULL or a NUL-terminated string; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn sdmac_open(
    backend: *const c_char,
    out_handle: *mut *mut sdmac_iface,
) -> sdmac_error {
    guard(|| open_handle(backend, &OpenOptions::default(), out_handle))
}

/// Fills `opts` with the defaults of sdmac_open: the wall clock. Errors:
/// SDMAC_ERR_NULL.
///
/// # Safety
/// `opts` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn sdmac_open_options_init(opts: *mut sdmac_open_options) -> sdmac_error {
    guard(|| {
        *out(opts, "opts")? = sdmac_open_options { clock: sdmac_clock::SDMAC_CLOCK_WALL as i32 };
        Ok(())
    })
}

/// Opens the backend named `backend` (the names of sdmac_open) with `opts` and
/// stores its handle in `*out` (NULL on error). `opts->clock` SDMAC_CLOCK_VIRTUAL
/// runs an emu medium on the virtual clock (docs/api.md, "The clock: wall or
/// virtual"). Errors: those of sdmac_open; SDMAC_ERR_NULL (`opts`);
/// SDMAC_ERR_INVALID_ARGUMENT (`opts->clock` is no sdmac_clock, or the virtual clock
/// with a backend other than emu).
///
/// # Safety
/// `backend` is NULL or a NUL-terminated string; `opts` is NULL or a valid
/// sdmac_open_options; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn sdmac_open_with(
    backend: *const c_char,
    opts: *const sdmac_open_options,
    out_handle: *mut *mut sdmac_iface,
) -> sdmac_error {
    guard(|| {
        if let Some(slot) = out_handle.as_mut() {
            *slot = std::ptr::null_mut();
        }
        let o = arg(opts, "opts")?;
        let clock = clock_from_c(o.clock, "opts->clock")?;
        let mut options = OpenOptions::default();
        options.emu.clock = clock;
        open_handle(backend, &options, out_handle)
    })
}

/// Opens `backend` with `opts` into `*out_handle`; the virtual clock only on emu.
///
/// # Safety
/// As for sdmac_open.
unsafe fn open_handle(
    backend: *const c_char,
    opts: &OpenOptions,
    out_handle: *mut *mut sdmac_iface,
) -> Result<(), Fail> {
    let slot = out(out_handle, "out")?;
    *slot = std::ptr::null_mut();
    let name = text(backend, "backend")?;
    let parsed = BackendName::parse(name).map_err(OpenError::Name)?;
    if opts.emu.clock == EmuClock::Virtual && !matches!(parsed, BackendName::Emu { .. }) {
        return Err(Fail::arg(format!(
            "opts->clock SDMAC_CLOCK_VIRTUAL: backend {name:?} runs on the wall clock \
             (the virtual clock is emu's only)"
        )));
    }
    let iface = sdmac_open::open_with(&parsed, opts)?;
    let h = sdmac_iface {
        busy: AtomicBool::new(false),
        inner: UnsafeCell::new(Inner { iface, buf: Vec::new(), held: None }),
    };
    *slot = Box::into_raw(Box::new(h));
    Ok(())
}

/// Closes a handle: requests still queued are confirmed as dropped and are lost
/// with it; the backend stops. The handle must not be used afterwards (closing it
/// twice is like freeing memory twice). Errors: SDMAC_ERR_NULL, SDMAC_ERR_BUSY
/// (another thread is using it: nothing is closed).
///
/// # Safety
/// `h` is NULL or a handle from sdmac_open not closed yet.
#[no_mangle]
pub unsafe extern "C" fn sdmac_close(h: *mut sdmac_iface) -> sdmac_error {
    guard(|| {
        let r = arg(h as *const sdmac_iface, "handle")?;
        if r.busy.compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed).is_err() {
            return Err(Fail::new(
                sdmac_error::SDMAC_ERR_BUSY,
                "the handle is in use by another thread; it was not closed",
            ));
        }
        drop(Box::from_raw(h));
        Ok(())
    })
}

/// Fills `attrs` with the defaults: best effort, to the BSSID, the adapter's rate
/// series, ACK expected, timestamps recorded, a payload. Errors: SDMAC_ERR_NULL.
///
/// # Safety
/// `attrs` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn sdmac_tx_attrs_init(attrs: *mut sdmac_tx_attrs) -> sdmac_error {
    guard(|| {
        *out(attrs, "attrs")? = sdmac_tx_attrs {
            ac: sdmac_ac::SDMAC_AC_BE as i32,
            has_dst: 0,
            dst: [0; 6],
            no_ack: 0,
            timestamps: 1,
            raw_frame: 0,
            rates: std::ptr::null(),
            not_before_ns: 0,
            not_after_ns: 0,
        };
        Ok(())
    })
}

/// DATA_req: queues one packet (`len` bytes at `body`; `body` may be NULL only when
/// `len` is 0) with the caller's `id` (0 ..= 2^62 - 1). Every accepted request gets
/// exactly one confirmation. t1 is taken here when attrs->timestamps is set.
/// Errors: SDMAC_ERR_NULL, SDMAC_ERR_BUSY, SDMAC_ERR_INVALID_ARGUMENT (ac, rates not
/// UTF-8), SDMAC_ERR_INVALID_REQUEST (rate series), SDMAC_ERR_QUEUE_FULL,
/// SDMAC_ERR_CONFIRMATION_BACKLOG, SDMAC_ERR_TOO_LONG, SDMAC_ERR_MALFORMED_FRAME,
/// SDMAC_ERR_INVALID_ID, SDMAC_ERR_CLOSED.
///
/// # Safety
/// `h` as for sdmac_close; `body` is NULL or `len` readable bytes; `attrs` is NULL
/// or a valid sdmac_tx_attrs whose `rates` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn sdmac_data_req(
    h: *mut sdmac_iface,
    id: u64,
    body: *const u8,
    len: usize,
    attrs: *const sdmac_tx_attrs,
) -> sdmac_error {
    guard(|| {
        let a = arg(attrs, "attrs")?;
        let bytes: &[u8] = match (body.is_null(), len) {
            (true, 0) => &[],
            (true, _) => return Err(Fail::null("body")),
            (false, n) => std::slice::from_raw_parts(body, n),
        };
        let ac = ac_from_c(a.ac as i64, "attrs->ac")?;
        let rates = if a.rates.is_null() {
            None
        } else {
            let t = text(a.rates, "attrs->rates")?;
            Some(parse_rate_series(t).map_err(|e| {
                Fail::new(sdmac_error::SDMAC_ERR_INVALID_REQUEST, format!("invalid rates: {e}"))
            })?)
        };
        let tx = TxAttrs {
            dst: (a.has_dst != 0).then_some(MacAddress(a.dst)),
            rates,
            no_ack: a.no_ack != 0,
            timestamps: a.timestamps != 0,
            not_before: (a.not_before_ns != 0).then(|| Time::from_ns(a.not_before_ns)),
            not_after: (a.not_after_ns != 0).then(|| Time::from_ns(a.not_after_ns)),
        };
        let body = if a.raw_frame != 0 { Body::Frame(bytes) } else { Body::Payload(bytes) };
        with(h, |i| i.iface.data_req(id, body, ac, &tx).map_err(Fail::from))
    })
}

/// DATA_con: the next confirmation into `*out`. `timeout_ns`: < 0 waits until one
/// comes, 0 does not wait, > 0 waits at most that long. Errors: SDMAC_ERR_NULL,
/// SDMAC_ERR_BUSY, SDMAC_ERR_TIMEOUT (none came), SDMAC_ERR_CLOSED.
///
/// # Safety
/// `h` as for sdmac_close; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn sdmac_data_con(
    h: *mut sdmac_iface,
    timeout_ns: i64,
    out_con: *mut sdmac_confirmation,
) -> sdmac_error {
    guard(|| {
        let o = out(out_con, "out")?;
        let c = with(h, |i| i.iface.data_con(wait_of(timeout_ns)).map_err(Fail::from))?;
        *o = confirmation_to_c(&c.ok_or_else(|| timeout("confirmation", timeout_ns))?);
        Ok(())
    })
}

/// DATA_ind: the next received frame: its description into `*out`, its bytes (the
/// MPDU without FCS) into `buf` (`cap` bytes). A frame longer than `cap` gives
/// SDMAC_ERR_BUFFER_TOO_SMALL with out->len set to its length, and is kept for the
/// next call. `timeout_ns` as for sdmac_data_con. Errors: SDMAC_ERR_NULL,
/// SDMAC_ERR_BUSY, SDMAC_ERR_TIMEOUT, SDMAC_ERR_BUFFER_TOO_SMALL, SDMAC_ERR_CLOSED.
///
/// # Safety
/// `h` as for sdmac_close; `out` is NULL or writable; `buf` is NULL or `cap`
/// writable bytes.
#[no_mangle]
pub unsafe extern "C" fn sdmac_data_ind(
    h: *mut sdmac_iface,
    timeout_ns: i64,
    out_ind: *mut sdmac_indication,
    buf: *mut u8,
    cap: usize,
) -> sdmac_error {
    guard(|| {
        let o = out(out_ind, "out")?;
        if buf.is_null() {
            return Err(Fail::null("buf"));
        }
        with(h, |i| {
            let (ind, bytes) = match i.held.take() {
                Some(held) => held,
                None => {
                    let ind = i
                        .iface
                        .data_ind(&mut i.buf, wait_of(timeout_ns))?
                        .ok_or_else(|| timeout("frame", timeout_ns))?;
                    (ind, std::mem::take(&mut i.buf))
                }
            };
            *o = indication_to_c(&ind);
            let n = ind.len.min(bytes.len());
            if n > cap {
                i.held = Some((ind, bytes));
                return Err(Fail::new(
                    sdmac_error::SDMAC_ERR_BUFFER_TOO_SMALL,
                    format!(
                        "the frame has {n} bytes, the buffer {cap}; it is kept for the next call"
                    ),
                ));
            }
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), buf, n);
            o.len = n;
            i.buf = bytes;
            Ok(())
        })
    })
}

/// beacon_ind: the next beacon heard, into `*out`. `timeout_ns` as for
/// sdmac_data_con. Errors: SDMAC_ERR_NULL, SDMAC_ERR_BUSY, SDMAC_ERR_TIMEOUT,
/// SDMAC_ERR_CLOSED.
///
/// # Safety
/// `h` as for sdmac_close; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn sdmac_beacon_ind(
    h: *mut sdmac_iface,
    timeout_ns: i64,
    out_beacon: *mut sdmac_beacon,
) -> sdmac_error {
    guard(|| {
        let o = out(out_beacon, "out")?;
        let b = with(h, |i| i.iface.beacon_ind(wait_of(timeout_ns)).map_err(Fail::from))?;
        *o = beacon_to_c(&b.ok_or_else(|| timeout("beacon", timeout_ns))?);
        Ok(())
    })
}

/// DATA_set: sets attribute `name` of the adapter, a queue or a packet (`scope` an
/// sdmac_scope; `which` the sdmac_ac of a queue or the id of a packet) to `value`,
/// given as text: "20", "12.5", "true", "02:00:00:00:00:01", "54x2,24x2". Errors:
/// SDMAC_ERR_NULL, SDMAC_ERR_BUSY, SDMAC_ERR_INVALID_ARGUMENT (scope),
/// SDMAC_ERR_UNKNOWN_ATTRIBUTE, SDMAC_ERR_WRONG_SCOPE, SDMAC_ERR_READ_ONLY,
/// SDMAC_ERR_INVALID_VALUE, SDMAC_ERR_NO_SUCH_PACKET, SDMAC_ERR_PACKET_ON_AIR,
/// SDMAC_ERR_UNSUPPORTED, SDMAC_ERR_CLOSED.
///
/// # Safety
/// `h` as for sdmac_close; `name` and `value` are NULL or NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn sdmac_set(
    h: *mut sdmac_iface,
    name: *const c_char,
    scope: i32,
    which: u64,
    value: *const c_char,
) -> sdmac_error {
    guard(|| {
        let name = text(name, "name")?;
        let value = text(value, "value")?;
        let scope = scope_from_c(scope, which)?;
        let v = value_from_text(name, &scope, value)?;
        with(h, |i| i.iface.set(name, scope, v).map_err(Fail::from))
    })
}

/// DATA_get: attribute `name` (scope and which as for sdmac_set) as NUL-terminated
/// text into `value` (`cap` bytes): numbers, "true"/"false", MAC addresses,
/// rate series "54x1", maps "{key: value, ...}". Errors: SDMAC_ERR_NULL,
/// SDMAC_ERR_BUSY, SDMAC_ERR_INVALID_ARGUMENT, SDMAC_ERR_UNKNOWN_ATTRIBUTE,
/// SDMAC_ERR_WRONG_SCOPE, SDMAC_ERR_NO_SUCH_PACKET, SDMAC_ERR_UNSUPPORTED,
/// SDMAC_ERR_BUFFER_TOO_SMALL (the message says the size needed), SDMAC_ERR_CLOSED.
///
/// # Safety
/// `h` as for sdmac_close; `name` is NULL or a NUL-terminated string; `value` is
/// NULL or `cap` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn sdmac_get(
    h: *mut sdmac_iface,
    name: *const c_char,
    scope: i32,
    which: u64,
    value: *mut c_char,
    cap: usize,
) -> sdmac_error {
    guard(|| {
        let name = text(name, "name")?;
        if value.is_null() {
            return Err(Fail::null("value"));
        }
        let scope = scope_from_c(scope, which)?;
        let v = with(h, |i| i.iface.get(name, scope).map_err(Fail::from))?;
        let t = value_to_text(&v);
        if t.len() + 1 > cap {
            return Err(Fail::new(
                sdmac_error::SDMAC_ERR_BUFFER_TOO_SMALL,
                format!("{name} needs {} bytes, the buffer has {cap}", t.len() + 1),
            ));
        }
        std::ptr::copy_nonoverlapping(t.as_ptr() as *const c_char, value, t.len());
        *value.add(t.len()) = 0;
        Ok(())
    })
}

/// Cancels a packet still queued: `*was_queued` = 1 if it was (its confirmation
/// then says dropped, SDMAC_DROP_CANCELLED), 0 if it is on air or done. Errors:
/// SDMAC_ERR_NULL, SDMAC_ERR_BUSY, SDMAC_ERR_CLOSED.
///
/// # Safety
/// `h` as for sdmac_close; `was_queued` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn sdmac_cancel(
    h: *mut sdmac_iface,
    id: u64,
    was_queued: *mut i32,
) -> sdmac_error {
    guard(|| {
        let o = out(was_queued, "was_queued")?;
        *o = with(h, |i| i.iface.cancel(id).map_err(Fail::from))? as i32;
        Ok(())
    })
}

/// Packets in the queue of access category `ac` (an sdmac_ac), requested and not
/// finished, into `*len`. Errors: SDMAC_ERR_NULL, SDMAC_ERR_BUSY,
/// SDMAC_ERR_INVALID_ARGUMENT.
///
/// # Safety
/// `h` as for sdmac_close; `len` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn sdmac_queue_len(
    h: *mut sdmac_iface,
    ac: i32,
    len: *mut usize,
) -> sdmac_error {
    guard(|| {
        let o = out(len, "len")?;
        let ac = ac_from_c(ac as i64, "ac")?;
        *o = with(h, |i| Ok(i.iface.queue_len(ac)))?;
        Ok(())
    })
}

/// The version of the library ("0.1.0"), static.
#[no_mangle]
pub extern "C" fn sdmac_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr() as *const c_char
}
