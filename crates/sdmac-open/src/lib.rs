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
//! | `hwsim:IFACE`, `linux:IFACE` | not in this build yet: [`OpenError::NotAvailable`]. |
//!
//! The emulated medium runs on its own device thread for as long as the interface
//! lives; dropping the interface stops it.

mod any;
mod emu;
mod error;

pub use any::{AnyBackend, AnyInterface};
pub use error::OpenError;

use sdmac_api::{BackendName, Interface};
use sdmac_emu::setup::PaperSetup;
use sdmac_emu::EmuOptions;

/// The kinds of backend this build can open.
pub const AVAILABLE: &[&str] = &["emu"];

/// What `emu` builds and how emulated devices run.
#[derive(Clone, Debug, Default)]
pub struct OpenOptions {
    /// The testbed of plain `emu` (ignored by the other names).
    pub paper: PaperSetup,
    /// Device thread, latency profile and seed of both `emu` forms.
    pub emu: EmuOptions,
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
        BackendName::Emu { scenario: Some(path), station } => emu::open_scenario(name, path, station.as_deref(), opts.emu)?,
        // The seam for the radio backends: each becomes an arm that opens its crate's
        // backend and wraps it in an AnyBackend.
        BackendName::Hwsim { .. } | BackendName::Linux { .. } => {
            return Err(OpenError::NotAvailable { name: name.to_string(), kind: name.kind() })
        }
    };
    Ok(Interface::new(backend))
}
