//! Opening `hwsim:IFACE`: the radio exactly as `linux:IFACE` opens it, plus two
//! connections to `sdmac-mediumd`'s control socket, one subscribed to the truth
//! stream of the monitor's frames (joined with its confirmations), one for the
//! attributes the daemon sets and reads.

mod backend;
mod control;
pub mod join;
mod record;
mod truth_thread;

pub use backend::HwsimBackend;

use crate::error::OpenError;
use crate::linux::{open_backend, LinuxOpenOptions};
use crate::AnyBackend;
use sdmac_api::BackendName;
use sdmac_control::client::Client;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The control socket `sdmac-mediumd -s` makes when given no path (Mininet-WiFi's).
pub const DEFAULT_SOCKET: &str = "/var/run/wmediumd.sock";
/// The environment variable the control socket's path is read from when the
/// options give none.
pub const SOCKET_ENV: &str = "SDMAC_MEDIUMD_SOCKET";
/// How long a confirmation waits for its truth record by default.
pub const DEFAULT_TRUTH_WAIT: Duration = Duration::from_millis(500);

/// What `hwsim:IFACE` is opened with (besides [`LinuxOpenOptions`], which apply too).
#[derive(Clone, Debug, Default)]
pub struct HwsimOpenOptions {
    /// The daemon's control socket. None: the environment variable
    /// `SDMAC_MEDIUMD_SOCKET` if set, else [`DEFAULT_SOCKET`].
    pub socket: Option<PathBuf>,
    /// How long a confirmation waits for the daemon's record of its frame before it
    /// goes out without truth (counted). None: [`DEFAULT_TRUTH_WAIT`].
    pub truth_wait: Option<Duration>,
}

impl HwsimOpenOptions {
    /// The control socket's path these options name.
    pub fn socket_path(&self) -> PathBuf {
        match &self.socket {
            Some(p) => p.clone(),
            None => std::env::var_os(SOCKET_ENV)
                .map_or_else(|| PathBuf::from(DEFAULT_SOCKET), PathBuf::from),
        }
    }
}

fn no_daemon(
    name: &BackendName,
    iface: &str,
    path: &Path,
    why: impl std::fmt::Display,
) -> OpenError {
    OpenError::Radio {
        name: name.to_string(),
        kind: "NoDaemon",
        reason: format!(
            "no medium daemon answers on the control socket {} ({why}): start sdmac-mediumd with -s {} (or name another socket in {SOCKET_ENV}); without the daemon's truth, linux:{iface} opens the same radio",
            path.display(),
            path.display()
        ),
    }
}

/// `hwsim:IFACE`.
pub(crate) fn open(
    name: &BackendName,
    iface: &str,
    linux: &LinuxOpenOptions,
    opts: &HwsimOpenOptions,
) -> Result<AnyBackend, OpenError> {
    let path = opts.socket_path();
    // The daemon first: without it nothing of the radio is touched.
    let mut subscriber = Client::connect(&path).map_err(|e| no_daemon(name, iface, &path, e))?;
    let mut control = Client::connect(&path).map_err(|e| no_daemon(name, iface, &path, e))?;
    subscriber.reply_timeout = Duration::from_secs(5);
    control.reply_timeout = Duration::from_secs(5);
    let inner = open_backend(name, iface, linux)?;
    let me = inner.address();
    subscriber.subscribe(&[me]).map_err(|e| OpenError::Radio {
        name: name.to_string(),
        kind: "NoDaemon",
        reason: format!(
            "the medium daemon on {} did not take the truth subscription for {me} ({e}; sdmac-mediumd takes it without --threads); without the daemon's truth, linux:{iface} opens the same radio",
            path.display()
        ),
    })?;
    let wait = opts.truth_wait.unwrap_or(DEFAULT_TRUTH_WAIT);
    let shared =
        truth_thread::Shared::new(join::Joiner::new(wait.as_nanos().min(u64::MAX as u128) as u64))
            .map_err(|e| OpenError::Start {
                name: name.to_string(),
                reason: format!("eventfd: {e}"),
            })?;
    let daemon = control::DaemonControl::new(control, path, me);
    let b = HwsimBackend::start(inner, shared, subscriber, daemon)
        .map_err(|reason| OpenError::Start { name: name.to_string(), reason })?;
    Ok(AnyBackend::new(name.to_string(), b))
}
