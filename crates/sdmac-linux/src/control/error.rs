//! What can go wrong when a radio is opened or configured.

use std::fmt;
use std::io;

/// An error of the control half of the `linux` backend. Each names the interface
/// (or phy) and, where a right is missing, the capability and how to grant it.
#[derive(Debug)]
pub enum ControlError {
    /// No network interface and no wiphy has this name.
    UnknownInterface {
        /// The name asked for.
        name: String,
    },
    /// The interface exists but is not a wireless (nl80211) interface.
    NotWireless {
        /// The interface.
        name: String,
    },
    /// The radio's driver cannot create monitor interfaces.
    NoMonitorMode {
        /// The interface or phy asked for.
        name: String,
        /// Its wiphy.
        phy: String,
    },
    /// The process lacks capabilities the operation needs.
    MissingCapability {
        /// The interface or phy the operation was for.
        name: String,
        /// What the rights are needed for.
        what: &'static str,
        /// The capabilities missing (e.g. `CAP_NET_ADMIN`).
        caps: Vec<&'static str>,
        /// This program's path, for the `setcap` command.
        binary: String,
    },
    /// This backend or this adapter cannot do what was asked.
    NotSupported {
        /// What was asked (e.g. `"coverage class"`).
        what: &'static str,
        /// Why not.
        why: String,
    },
    /// A value the radio does not have (a channel, a bitrate, a width).
    InvalidValue {
        /// Which setting.
        what: &'static str,
        /// Why it is refused.
        why: String,
    },
    /// The kernel refused because of the radio's state (e.g. other interfaces up).
    Busy {
        /// Which setting.
        what: &'static str,
        /// What stands in the way.
        why: String,
    },
    /// The kernel answered an nl80211 request with an error.
    Kernel {
        /// The request (e.g. `"NL80211_CMD_NEW_INTERFACE"`).
        op: &'static str,
        /// The interface or phy it was for.
        name: String,
        /// The errno.
        errno: i32,
        /// The kernel's extended ACK message, if any.
        msg: Option<String>,
    },
    /// A system call failed.
    Io {
        /// What was being done.
        op: String,
        /// The error.
        err: io::Error,
    },
    /// The kernel's answer could not be decoded.
    Protocol {
        /// The request answered.
        op: &'static str,
        /// The decoding error.
        err: sdmac_netlink::Error,
    },
}

fn errno_text(errno: i32) -> String {
    io::Error::from_raw_os_error(errno).to_string()
}

impl fmt::Display for ControlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ControlError::UnknownInterface { name } => write!(
                f,
                "{name}: no network interface or wiphy has this name (see `ip link` and `iw dev`)"
            ),
            ControlError::NotWireless { name } => write!(
                f,
                "{name}: not a wireless interface (nl80211 does not know it; see `iw dev`)"
            ),
            ControlError::NoMonitorMode { name, phy } => write!(
                f,
                "{name} ({phy}): the driver does not support monitor mode (no monitor among its interface types), which the linux backend needs"
            ),
            ControlError::MissingCapability { name, what, caps, binary } => write!(
                f,
                "{name}: {what} needs {}, which this process lacks: run as root, or: sudo setcap cap_net_admin,cap_net_raw+ep {binary}",
                caps.join(" and ")
            ),
            ControlError::NotSupported { what, why } => write!(f, "{what}: not supported by this backend/adapter: {why}"),
            ControlError::InvalidValue { what, why } => write!(f, "{what}: {why}"),
            ControlError::Busy { what, why } => write!(f, "{what}: refused while {why}"),
            ControlError::Kernel { op, name, errno, msg } => {
                write!(f, "{name}: {op} failed: {} (errno {errno})", errno_text(*errno))?;
                if let Some(m) = msg {
                    write!(f, ": {m}")?;
                }
                Ok(())
            }
            ControlError::Io { op, err } => write!(f, "{op}: {err}"),
            ControlError::Protocol { op, err } => write!(f, "cannot decode the kernel's answer to {op}: {err}"),
        }
    }
}

impl std::error::Error for ControlError {}

/// Result type of the control half.
pub type Result<T> = std::result::Result<T, ControlError>;
