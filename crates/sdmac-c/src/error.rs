//! Error codes, their descriptions, and the last error message of each thread.

use sdmac_api::ApiError;
use sdmac_open::OpenError;
use std::cell::RefCell;
use std::ffi::{c_char, CString};

/// What a function returns: `SDMAC_OK` (0) or what went wrong. The message of the
/// last error on the calling thread is `sdmac_last_error()`.
#[repr(C)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum sdmac_error {
    /// Success.
    SDMAC_OK = 0,
    /// A required pointer argument is NULL.
    SDMAC_ERR_NULL = 1,
    /// An argument is invalid (not UTF-8, unknown access category or scope, ...).
    SDMAC_ERR_INVALID_ARGUMENT = 2,
    /// The backend name does not parse.
    SDMAC_ERR_BAD_NAME = 3,
    /// The backend named is not available in this build.
    SDMAC_ERR_NOT_AVAILABLE = 4,
    /// The backend could not be opened (scenario file, station, start).
    SDMAC_ERR_OPEN_FAILED = 5,
    /// Nothing arrived within the timeout (sdmac_data_con, sdmac_data_ind, sdmac_beacon_ind).
    SDMAC_ERR_TIMEOUT = 6,
    /// The access category's queue is full; nothing was queued.
    SDMAC_ERR_QUEUE_FULL = 7,
    /// Too many confirmations are unread; call sdmac_data_con first.
    SDMAC_ERR_CONFIRMATION_BACKLOG = 8,
    /// The payload or frame is too long.
    SDMAC_ERR_TOO_LONG = 9,
    /// A raw frame is not a valid 802.11 frame.
    SDMAC_ERR_MALFORMED_FRAME = 10,
    /// The request id is out of range.
    SDMAC_ERR_INVALID_ID = 11,
    /// A per-packet attribute of a request is invalid (e.g. its rate series).
    SDMAC_ERR_INVALID_REQUEST = 12,
    /// No attribute has this name.
    SDMAC_ERR_UNKNOWN_ATTRIBUTE = 13,
    /// The attribute belongs to another scope.
    SDMAC_ERR_WRONG_SCOPE = 14,
    /// The attribute cannot be set.
    SDMAC_ERR_READ_ONLY = 15,
    /// The value does not fit the attribute.
    SDMAC_ERR_INVALID_VALUE = 16,
    /// No queued packet has this id.
    SDMAC_ERR_NO_SUCH_PACKET = 17,
    /// The packet has been attempted already.
    SDMAC_ERR_PACKET_ON_AIR = 18,
    /// The session behind the handle has ended.
    SDMAC_ERR_CLOSED = 19,
    /// The backend does not offer this.
    SDMAC_ERR_UNSUPPORTED = 20,
    /// The caller's buffer is too small (the size needed is reported; nothing is lost).
    SDMAC_ERR_BUFFER_TOO_SMALL = 21,
    /// The handle is in use by another thread right now (see the threading rules).
    SDMAC_ERR_BUSY = 22,
    /// An internal error was caught at the boundary (a bug: please report the message).
    SDMAC_ERR_PANIC = 23,
}

use sdmac_error::*;

const DESCRIPTIONS: [&std::ffi::CStr; 24] = [
    c"success",
    c"a required pointer argument is NULL",
    c"invalid argument",
    c"the backend name does not parse",
    c"the backend is not available in this build",
    c"the backend could not be opened",
    c"nothing arrived within the timeout",
    c"the access category's queue is full",
    c"too many confirmations are unread",
    c"the payload or frame is too long",
    c"malformed 802.11 frame",
    c"the request id is out of range",
    c"invalid per-packet attribute",
    c"unknown attribute",
    c"the attribute belongs to another scope",
    c"the attribute is read-only",
    c"invalid attribute value",
    c"no queued packet has this id",
    c"the packet is already on air",
    c"the session has ended",
    c"not supported by this backend",
    c"the buffer is too small",
    c"the handle is in use by another thread",
    c"internal error",
];

/// A static description of an error code (never NULL; "unknown error code" for a
/// value that is no sdmac_error). Safe from any thread.
#[no_mangle]
pub extern "C" fn sdmac_strerror(code: i32) -> *const c_char {
    match usize::try_from(code).ok().and_then(|i| DESCRIPTIONS.get(i)) {
        Some(d) => d.as_ptr(),
        None => c"unknown error code".as_ptr(),
    }
}

thread_local! {
    static LAST: RefCell<CString> = RefCell::new(CString::default());
}

/// Records `msg` as the calling thread's last error message.
pub(crate) fn set_last(msg: &str) {
    let c = CString::new(msg.replace('\0', "\\0")).unwrap_or_default();
    LAST.with(|l| *l.borrow_mut() = c);
}

/// The message of the last error on the calling thread ("" when none yet): what was
/// wrong and where, e.g. `backend "linux:wlan9": no network interface or wiphy has
/// this name`. Valid until the next sdmac call on this thread; never NULL.
#[no_mangle]
pub extern "C" fn sdmac_last_error() -> *const c_char {
    LAST.with(|l| l.borrow().as_ptr())
}

/// An error code with its message.
pub(crate) struct Fail(pub sdmac_error, pub String);

impl Fail {
    pub(crate) fn new(code: sdmac_error, msg: impl Into<String>) -> Fail {
        Fail(code, msg.into())
    }
    pub(crate) fn null(what: &str) -> Fail {
        Fail(SDMAC_ERR_NULL, format!("{what} is NULL"))
    }
    pub(crate) fn arg(msg: impl Into<String>) -> Fail {
        Fail(SDMAC_ERR_INVALID_ARGUMENT, msg.into())
    }
}

impl From<ApiError> for Fail {
    fn from(e: ApiError) -> Fail {
        let code = match e {
            ApiError::QueueFull { .. } => SDMAC_ERR_QUEUE_FULL,
            ApiError::ConfirmationBacklog { .. } => SDMAC_ERR_CONFIRMATION_BACKLOG,
            ApiError::TooLong { .. } => SDMAC_ERR_TOO_LONG,
            ApiError::MalformedFrame { .. } => SDMAC_ERR_MALFORMED_FRAME,
            ApiError::InvalidId { .. } => SDMAC_ERR_INVALID_ID,
            ApiError::InvalidRequest { .. } => SDMAC_ERR_INVALID_REQUEST,
            ApiError::UnknownAttribute { .. } => SDMAC_ERR_UNKNOWN_ATTRIBUTE,
            ApiError::WrongScope { .. } => SDMAC_ERR_WRONG_SCOPE,
            ApiError::ReadOnly { .. } => SDMAC_ERR_READ_ONLY,
            ApiError::InvalidValue { .. } => SDMAC_ERR_INVALID_VALUE,
            ApiError::NoSuchPacket { .. } => SDMAC_ERR_NO_SUCH_PACKET,
            ApiError::PacketOnAir { .. } => SDMAC_ERR_PACKET_ON_AIR,
            ApiError::Closed => SDMAC_ERR_CLOSED,
            ApiError::Unsupported { .. } => SDMAC_ERR_UNSUPPORTED,
        };
        Fail(code, e.to_string())
    }
}

impl From<OpenError> for Fail {
    fn from(e: OpenError) -> Fail {
        let code = match e {
            OpenError::Name(_) => SDMAC_ERR_BAD_NAME,
            OpenError::NotAvailable { .. } => SDMAC_ERR_NOT_AVAILABLE,
            _ => SDMAC_ERR_OPEN_FAILED,
        };
        Fail(code, e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_has_its_description() {
        assert_eq!(DESCRIPTIONS.len(), SDMAC_ERR_PANIC as usize + 1);
        let s = |c: i32| unsafe { std::ffi::CStr::from_ptr(sdmac_strerror(c)) }.to_str().unwrap();
        assert_eq!(s(SDMAC_OK as i32), "success");
        assert_eq!(s(SDMAC_ERR_BUSY as i32), "the handle is in use by another thread");
        assert_eq!(s(-1), "unknown error code");
        assert_eq!(s(1000), "unknown error code");
    }
}
