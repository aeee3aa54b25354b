//! # sdmac-open
//!
//! One way to open any backend: [`open`] takes a backend name (see
//! [`sdmac_api::backend_name`]) and returns an [`AnyInterface`], the same type
//! whatever the backend, so application code runs on all of them unchanged.
//!
//! | name | what is opened |
//! |---|---|
//! | `emu` | the SDMAC paper's testbed on the emulated medium ([`sdmac_emu::setup::PaperSetup`]'s defaults, or [`OpenOptions::paper`]): an AP `02:00:00:00:00:01` beaconing every 50 TU on channel 36 (802.11a, basic rates {6 Mb/s}), and the station `sta` (`02:00:00:00:00:02`, 10 m away, lossless links), which is the interface returned. Its `bssid` attribute is the AP. |
//! | `emu:PATH[#STATION]` | the TOML scenario at `PATH` (the format `sdmac sim` reads); the interface is station `STATION`, or without it the first station of the first medium that is not an AP. The scenario's flows run as background traffic. |
//! | `linux:IFACE` | the mac80211 radio of interface (or phy) `IFACE`: a new monitor interface on it (active where the driver supports it, so frames to the radio's address are acknowledged; on the monitor's channel, or [`LinuxOpenOptions::freq_mhz`]), and [`sdmac_linux::LinuxBackend`] on that monitor. The adapter attributes nl80211 carries are routed to the monitor (`address`, `bssid`, `frequency`, `channel`, `tx_power` read; `tx_power`, `default_rates` (the bitrate mask) set); the others answer `Unsupported`. The monitor is removed when the interface is closed. Needs `CAP_NET_ADMIN` and `CAP_NET_RAW` (lowered after opening). The BSSID comes from [`LinuxOpenOptions::bssid`], else the environment variable `SDMAC_LINUX_BSSID`. |
//! | `hwsim:IFACE` | a `mac80211_hwsim` radio whose medium is `sdmac-mediumd`: the radio opened as `linux:IFACE` opens it, and the daemon's control socket ([`HwsimOpenOptions::socket`], else `SDMAC_MEDIUMD_SOCKET`, else [`DEFAULT_SOCKET`]). Confirmations are joined with the daemon's truth records ([`hwsim::join`]); per-queue EDCA and `ack_timeout` are set and read through the daemon; `stats` says whether truth is still available. No daemon: [`OpenError::Radio`] of kind `NoDaemon`, naming the socket and pointing to `linux:IFACE`. |
//!
//! The emulated medium runs on its own device thread for as long as the interface
//! lives; dropping the interface stops it.

#![warn(missing_docs)]

mod any;
mod emu;
mod error;
pub mod hwsim;
mod linux;

pub use any::{AnyBackend, AnyInterface};
pub use error::OpenError;
pub use hwsim::{HwsimOpenOptions, DEFAULT_SOCKET, SOCKET_ENV};
pub use linux::{channel_of, LinuxOpenOptions, BSSID_ENV};

use sdmac_api::{BackendName, Interface};
use sdmac_emu::setup::PaperSetup;
use sdmac_emu::EmuOptions;

/// The kinds of backend this build can open.
pub const AVAILABLE: &[&str] = &["emu", "hwsim", "linux"];

/// What `emu` builds and how emulated devices run.
#[derive(Clone, Debug, Default)]
pub struct OpenOptions {
    /// The testbed of plain `emu` (ignored by the other names).
    pub paper: PaperSetup,
    /// Device thread, latency profile and seed of both `emu` forms.
    pub emu: EmuOptions,
    /// Channel, BSSID and TX power of `linux:IFACE` (and of `hwsim:IFACE`).
    pub linux: LinuxOpenOptions,
    /// The medium daemon's control socket and the truth wait of `hwsim:IFACE`.
    pub hwsim: HwsimOpenOptions,
}

/// Opens the backend `name` with the default options.
pub fn open(name: &str) -> Result<AnyInterface, OpenError> {
    let parsed = BackendName::parse(name).map_err(OpenError::Name)?;
    open_with(&parsed, &OpenOptions::default())
}

/// Opens a parsed backend name.
pub fn open_with(name: &BackendName, opts: &OpenOptions) -> Result<AnyInterface, OpenError> {
    let backend = match name {
        BackendName::Emu { scenario: None, .. } => emu::open_paper(name, &opts.paper, opts.emu)?,
        BackendName::Emu { scenario: Some(path), station } => {
            emu::open_scenario(name, path, station.as_deref(), opts.emu)?
        }
        BackendName::Linux { iface } => linux::open(name, iface, &opts.linux)?,
        BackendName::Hwsim { iface } => hwsim::open(name, iface, &opts.linux, &opts.hwsim)?,
    };
    Ok(Interface::new(backend))
}
