//! Backend names: the one string that says which backend to open, the same in Rust,
//! Python and C.
//!
//! | name | backend |
//! |---|---|
//! | `emu` | the emulated medium with the SDMAC paper's testbed (an AP beaconing on channel 36 and the station that is opened) |
//! | `emu:PATH` | the emulated medium described by the TOML scenario at `PATH`; the interface is its first station that is not an AP |
//! | `emu:PATH#STATION` | the same, on the station named `STATION` |
//! | `hwsim:IFACE` | a `mac80211_hwsim` radio (interface or phy name) with `sdmac-mediumd` as the medium |
//! | `linux:IFACE` | any mac80211 radio (interface or phy name) |
//!
//! Parsing checks the form only (a kind this grammar knows, a well-formed interface
//! name, a non-empty path); whether the backend is built in, the file exists or the
//! interface is there is the opener's business.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

/// Longest Linux interface name (`IFNAMSIZ` − 1).
pub const MAX_IFACE_NAME: usize = 15;

/// A parsed backend name.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum BackendName {
    /// `emu`, `emu:PATH` or `emu:PATH#STATION`.
    Emu {
        /// The TOML scenario; `None` is the paper's testbed.
        scenario: Option<PathBuf>,
        /// The scenario's station to open; `None` is its first station that is not an AP.
        station: Option<String>,
    },
    /// `hwsim:IFACE`.
    Hwsim {
        /// Interface or phy name.
        iface: String,
    },
    /// `linux:IFACE`.
    Linux {
        /// Interface or phy name.
        iface: String,
    },
}

/// The kinds of backend a name can start with.
pub const BACKEND_KINDS: [&str; 3] = ["emu", "hwsim", "linux"];

/// What the accepted forms are, for messages.
pub const BACKEND_FORMS: &str = "emu, emu:SCENARIO.toml[#STATION], hwsim:IFACE or linux:IFACE";

/// What is wrong with a backend name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NameProblem {
    /// The string is empty.
    Empty,
    /// The part before ':' is no kind of backend.
    UnknownKind(String),
    /// `hwsim` or `linux` without `:IFACE`.
    MissingInterface(&'static str),
    /// The interface name is not one Linux accepts.
    BadInterface {
        /// The name given.
        iface: String,
        /// Why.
        reason: &'static str,
    },
    /// `emu:` with nothing after it.
    EmptyPath,
    /// `emu:PATH#` with no station after '#'.
    EmptyStation,
}

/// A backend name that cannot be parsed: the string and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BackendNameError {
    /// The string given.
    pub name: String,
    /// What is wrong.
    pub problem: NameProblem,
}

impl fmt::Display for BackendNameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "backend name {:?}: ", self.name)?;
        match &self.problem {
            NameProblem::Empty => write!(f, "empty (expected {BACKEND_FORMS})"),
            NameProblem::UnknownKind(k) => write!(f, "unknown kind of backend {k:?} (expected {BACKEND_FORMS})"),
            NameProblem::MissingInterface(k) => write!(f, "missing interface: write {k}:IFACE, e.g. {k}:wlan0"),
            NameProblem::BadInterface { iface, reason } => write!(f, "interface name {iface:?} {reason}"),
            NameProblem::EmptyPath => write!(f, "empty scenario path: write emu:SCENARIO.toml, or emu alone for the paper's testbed"),
            NameProblem::EmptyStation => write!(f, "empty station name after '#': write emu:SCENARIO.toml#STATION"),
        }
    }
}

impl std::error::Error for BackendNameError {}

/// Checks an interface name the way Linux does (`dev_valid_name`).
fn check_iface(iface: &str) -> Result<(), &'static str> {
    if iface.is_empty() {
        return Err("is empty");
    }
    if iface.len() > MAX_IFACE_NAME {
        return Err("is longer than 15 bytes (IFNAMSIZ)");
    }
    if iface == "." || iface == ".." {
        return Err("is not a name");
    }
    if iface.chars().any(|c| c == '/' || c == ':' || c.is_whitespace() || c.is_control()) {
        return Err("contains '/', ':', a space or a control character");
    }
    Ok(())
}

impl BackendName {
    /// Parses a name; the error names the string and what is wrong.
    pub fn parse(s: &str) -> Result<BackendName, BackendNameError> {
        let err = |problem| BackendNameError { name: s.to_string(), problem };
        if s.is_empty() {
            return Err(err(NameProblem::Empty));
        }
        let (kind, arg) = match s.split_once(':') {
            Some((k, a)) => (k, Some(a)),
            None => (s, None),
        };
        match kind {
            "emu" => match arg {
                None => Ok(BackendName::Emu { scenario: None, station: None }),
                Some(a) => {
                    let (path, station) = match a.rsplit_once('#') {
                        Some((p, st)) => (p, Some(st)),
                        None => (a, None),
                    };
                    if path.is_empty() {
                        return Err(err(NameProblem::EmptyPath));
                    }
                    if station == Some("") {
                        return Err(err(NameProblem::EmptyStation));
                    }
                    Ok(BackendName::Emu {
                        scenario: Some(PathBuf::from(path)),
                        station: station.map(str::to_string),
                    })
                }
            },
            "hwsim" | "linux" => {
                let k = if kind == "hwsim" { "hwsim" } else { "linux" };
                let iface = match arg {
                    None | Some("") => return Err(err(NameProblem::MissingInterface(k))),
                    Some(i) => i,
                };
                check_iface(iface).map_err(|reason| {
                    err(NameProblem::BadInterface { iface: iface.to_string(), reason })
                })?;
                let iface = iface.to_string();
                Ok(if k == "hwsim" {
                    BackendName::Hwsim { iface }
                } else {
                    BackendName::Linux { iface }
                })
            }
            other => Err(err(NameProblem::UnknownKind(other.to_string()))),
        }
    }

    /// `emu`, `hwsim` or `linux`.
    pub fn kind(&self) -> &'static str {
        match self {
            BackendName::Emu { .. } => "emu",
            BackendName::Hwsim { .. } => "hwsim",
            BackendName::Linux { .. } => "linux",
        }
    }
}

impl FromStr for BackendName {
    type Err = BackendNameError;
    fn from_str(s: &str) -> Result<BackendName, BackendNameError> {
        BackendName::parse(s)
    }
}

/// Writes the name back in the form [`BackendName::parse`] reads (a scenario path
/// that is not UTF-8 is written lossily).
impl fmt::Display for BackendName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BackendName::Emu { scenario: None, .. } => write!(f, "emu"),
            BackendName::Emu { scenario: Some(p), station } => {
                write!(f, "emu:{}", p.to_string_lossy())?;
                match station {
                    Some(st) => write!(f, "#{st}"),
                    None => Ok(()),
                }
            }
            BackendName::Hwsim { iface } => write!(f, "hwsim:{iface}"),
            BackendName::Linux { iface } => write!(f, "linux:{iface}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(s: &str) -> NameProblem {
        BackendName::parse(s).unwrap_err().problem
    }

    #[test]
    fn the_four_forms() {
        assert_eq!(
            BackendName::parse("emu").unwrap(),
            BackendName::Emu { scenario: None, station: None }
        );
        assert_eq!(
            BackendName::parse("emu:examples/scenarios/two.toml").unwrap(),
            BackendName::Emu {
                scenario: Some("examples/scenarios/two.toml".into()),
                station: None
            }
        );
        assert_eq!(
            BackendName::parse("emu:/tmp/a#b.toml#sta1").unwrap(),
            BackendName::Emu {
                scenario: Some("/tmp/a#b.toml".into()),
                station: Some("sta1".into())
            }
        );
        assert_eq!(
            BackendName::parse("hwsim:wlan1").unwrap(),
            BackendName::Hwsim { iface: "wlan1".into() }
        );
        assert_eq!(
            BackendName::parse("linux:phy0").unwrap(),
            BackendName::Linux { iface: "phy0".into() }
        );
        assert_eq!("linux:wlan0".parse::<BackendName>().unwrap().kind(), "linux");
    }

    #[test]
    fn errors_say_what_is_wrong() {
        assert_eq!(problem(""), NameProblem::Empty);
        assert_eq!(problem("qemu:x"), NameProblem::UnknownKind("qemu".into()));
        assert_eq!(problem("Emu"), NameProblem::UnknownKind("Emu".into()));
        assert_eq!(problem("hwsim"), NameProblem::MissingInterface("hwsim"));
        assert_eq!(problem("linux:"), NameProblem::MissingInterface("linux"));
        assert_eq!(problem("emu:"), NameProblem::EmptyPath);
        assert_eq!(problem("emu:#sta"), NameProblem::EmptyPath);
        assert_eq!(problem("emu:a.toml#"), NameProblem::EmptyStation);
        assert!(matches!(problem("linux:wlan0:1"), NameProblem::BadInterface { .. }));
        assert!(matches!(problem("hwsim:a234567890123456"), NameProblem::BadInterface { .. }));
        assert!(matches!(problem("hwsim:wl an"), NameProblem::BadInterface { .. }));
        assert!(matches!(problem("hwsim:.."), NameProblem::BadInterface { .. }));
        let e = BackendName::parse("wifi:wlan0").unwrap_err().to_string();
        assert_eq!(e, format!("backend name \"wifi:wlan0\": unknown kind of backend \"wifi\" (expected {BACKEND_FORMS})"));
        let e = BackendName::parse("hwsim").unwrap_err().to_string();
        assert!(e.contains("\"hwsim\"") && e.contains("missing interface"), "{e}");
    }

    #[test]
    fn display_round_trips() {
        for s in ["emu", "emu:a.toml", "emu:dir/a#1.toml#ap", "hwsim:wlan1", "linux:wlp3s0"] {
            let n = BackendName::parse(s).unwrap();
            assert_eq!(n.to_string(), s);
            assert_eq!(BackendName::parse(&n.to_string()).unwrap(), n);
        }
    }
}
