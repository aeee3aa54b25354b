//! Why the daemon stopped.

use sdmac_netlink::hwsim::FAMILY_NAME;
use std::io;

/// Why the daemon stopped.
#[derive(Debug)]
pub enum DaemonError {
    /// A system call failed.
    Io(&'static str, io::Error),
    /// The hwsim family is not there (module not loaded).
    NoFamily,
    /// The kernel refused the registration.
    Register(i32),
    /// A reply could not be decoded.
    Protocol(String),
    /// The control socket cannot be set up (a path in use, or not a socket).
    ControlSocket(crate::control_socket::SocketError),
    /// The thread of an engine medium failed (`--threads`); the others were stopped.
    Worker(String),
}

impl std::fmt::Display for DaemonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DaemonError::Io(what, e) => write!(f, "{what}: {e}"),
            DaemonError::NoFamily => write!(
                f,
                "generic netlink family {FAMILY_NAME} not found: is mac80211_hwsim loaded?"
            ),
            DaemonError::Register(e) if *e == libc::EBUSY => write!(
                f,
                "REGISTER refused (EBUSY): another medium daemon (wmediumd?) is registered"
            ),
            DaemonError::Register(e) if *e == libc::EOPNOTSUPP => {
                write!(f, "REGISTER refused (EOPNOTSUPP): a radio has more than one channel (load mac80211_hwsim without multi-channel radios)")
            }
            DaemonError::Register(e) => write!(f, "REGISTER refused: errno {e}"),
            DaemonError::Protocol(m) => write!(f, "netlink: {m}"),
            DaemonError::Worker(m) => write!(f, "{m}"),
            DaemonError::ControlSocket(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for DaemonError {}

/// Wraps an I/O error with what was being done.
pub(crate) fn io_err(what: &'static str) -> impl FnOnce(io::Error) -> DaemonError {
    move |e| DaemonError::Io(what, e)
}

impl From<crate::control_socket::SocketError> for DaemonError {
    fn from(e: crate::control_socket::SocketError) -> DaemonError {
        DaemonError::ControlSocket(e)
    }
}
