//! Why a backend could not be opened: each error names the backend.

use sdmac_api::BackendNameError;
use std::fmt;
use std::path::PathBuf;

/// An error of [`crate::open`].
#[derive(Debug)]
pub enum OpenError {
    /// The name does not parse.
    Name(BackendNameError),
    /// The name is well formed, but this build has no such backend.
    NotAvailable {
        /// The backend name.
        name: String,
        /// Its kind (`hwsim`, `linux`).
        kind: &'static str,
    },
    /// The scenario file cannot be read or is not a valid scenario.
    Scenario {
        /// The backend name.
        name: String,
        /// The file.
        path: PathBuf,
        /// Why (for a bad scenario, `file:line: key: what is wrong`).
        reason: String,
    },
    /// The scenario has no station to open.
    NoStation {
        /// The backend name.
        name: String,
        /// The station asked for (`None`: the first that is not an AP).
        station: Option<String>,
        /// The stations it has.
        stations: Vec<String>,
    },
    /// The radio of a `linux` name cannot be opened: unknown interface, not a
    /// wireless interface, no monitor mode, a missing capability, or the kernel
    /// refused (the message is the control half's, naming the interface).
    Radio {
        /// The backend name.
        name: String,
        /// What went wrong (`UnknownInterface`, `NotWireless`, `NoMonitorMode`,
        /// `MissingCapability`, `Radio`, `Start`, `BadOption`).
        kind: &'static str,
        /// The control or data half's message.
        reason: String,
    },
    /// The backend could not start (e.g. the OS refused a thread).
    Start {
        /// The backend name.
        name: String,
        /// Why.
        reason: String,
    },
}

impl fmt::Display for OpenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpenError::Name(e) => write!(f, "{e}"),
            OpenError::NotAvailable { name, kind } => write!(
                f,
                "backend {name:?}: the {kind} backend is not available in this build (available: {}){}",
                crate::AVAILABLE.join(", "),
                if *kind == "hwsim" && crate::AVAILABLE.contains(&"linux") {
                    format!("; on a mac80211_hwsim radio, linux:{} works meanwhile (the in-kernel medium, or a medium daemon already running)", &name["hwsim:".len().min(name.len())..])
                } else {
                    String::new()
                }
            ),
            OpenError::Scenario { name, path, reason } => write!(f, "backend {name:?}: scenario {}: {reason}", path.display()),
            OpenError::NoStation { name, station: Some(s), stations } => {
                write!(f, "backend {name:?}: the scenario has no station {s:?} (stations: {})", stations.join(", "))
            }
            OpenError::NoStation { name, station: None, stations } => write!(
                f,
                "backend {name:?}: the scenario has no station that is not an AP on its first medium (stations: {}); name one with #STATION",
                stations.join(", ")
            ),
            OpenError::Start { name, reason } => write!(f, "backend {name:?}: cannot start: {reason}"),
            OpenError::Radio { name, reason, .. } => write!(f, "backend {name:?}: {reason}"),
        }
    }
}

impl std::error::Error for OpenError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            OpenError::Name(e) => Some(e),
            _ => None,
        }
    }
}

impl OpenError {
    /// A stable short name of the kind of error (for bindings).
    pub fn kind(&self) -> &'static str {
        match self {
            OpenError::Name(_) => "BadName",
            OpenError::NotAvailable { .. } => "NotAvailable",
            OpenError::Scenario { .. } => "Scenario",
            OpenError::NoStation { .. } => "NoStation",
            OpenError::Start { .. } => "Start",
            OpenError::Radio { kind, .. } => kind,
        }
    }
}
