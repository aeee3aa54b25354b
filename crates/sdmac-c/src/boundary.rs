//! The FFI boundary: no panic crosses it, every error leaves its message.

use crate::error::{sdmac_error, set_last, Fail};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Runs `f`; its error, or a panic, becomes an error code and the thread's last
/// error message. (A success leaves the last message as it was, like `errno`.)
pub(crate) fn guard(f: impl FnOnce() -> Result<(), Fail>) -> sdmac_error {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => sdmac_error::SDMAC_OK,
        Ok(Err(Fail(code, msg))) => {
            set_last(&msg);
            code
        }
        Err(p) => {
            let what = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            set_last(&format!("internal error (a bug in sdmac): {what}"));
            sdmac_error::SDMAC_ERR_PANIC
        }
    }
}

/// A reference from a pointer the caller passed, or `SDMAC_ERR_NULL` naming it.
///
/// # Safety
/// A non-NULL `p` must point to a valid `T` for the duration of the call.
pub(crate) unsafe fn arg<'a, T>(p: *const T, what: &str) -> Result<&'a T, Fail> {
    p.as_ref().ok_or_else(|| Fail::null(what))
}

/// A mutable reference from an out-pointer, or `SDMAC_ERR_NULL` naming it.
///
/// # Safety
/// A non-NULL `p` must point to writable memory for a `T`, not aliased during the call.
pub(crate) unsafe fn out<'a, T>(p: *mut T, what: &str) -> Result<&'a mut T, Fail> {
    p.as_mut().ok_or_else(|| Fail::null(what))
}

/// A C string as UTF-8, or an error naming the argument.
///
/// # Safety
/// A non-NULL `p` must point to a NUL-terminated string.
pub(crate) unsafe fn text<'a>(p: *const std::ffi::c_char, what: &str) -> Result<&'a str, Fail> {
    if p.is_null() {
        return Err(Fail::null(what));
    }
    std::ffi::CStr::from_ptr(p).to_str().map_err(|_| Fail::arg(format!("{what} is not UTF-8")))
}
