//! Opening the emulated medium: the paper's testbed, or a TOML scenario.

use crate::any::AnyBackend;
use crate::error::OpenError;
use sdmac_api::{Backend, BackendName, Interface};
use sdmac_emu::setup::{paper_medium, PaperSetup, STA};
use sdmac_emu::{EmuIface, EmuOptions, EmuSession};
use sdmac_medium::{Medium, StationId};
use std::path::Path;

/// An emu interface together with its session, which it keeps running.
struct OwnedEmu {
    // Dropped first: the interface, then the session (which stops the device).
    iface: Interface<EmuIface>,
    _session: EmuSession,
}

impl Backend for OwnedEmu {
    // To the backend itself: the interface around this one takes the timestamps.
    sdmac_api::forward_backend!(|s| s.iface.backend_mut(), s.iface.backend());
}

fn start(
    name: &BackendName,
    medium: Medium,
    ifaces: &[(&str, StationId)],
    take: &str,
    opts: EmuOptions,
) -> Result<AnyBackend, OpenError> {
    let mut session = EmuSession::start(medium, ifaces, opts)
        .map_err(|e| OpenError::Start { name: name.to_string(), reason: e.to_string() })?;
    let iface = session.take(take).expect("the interface just set up");
    Ok(AnyBackend::new(name.to_string(), OwnedEmu { iface, _session: session }))
}

/// `emu`: the paper's testbed; the station is the interface.
pub(crate) fn open_paper(
    name: &BackendName,
    setup: &PaperSetup,
    opts: EmuOptions,
) -> Result<AnyBackend, OpenError> {
    let (m, _ap, sta) = paper_medium(setup)
        .map_err(|reason| OpenError::Start { name: name.to_string(), reason })?;
    start(name, m, &[(STA, sta)], STA, opts)
}

/// `emu:PATH[#STATION]`.
pub(crate) fn open_scenario(
    name: &BackendName,
    path: &Path,
    station: Option<&str>,
    opts: EmuOptions,
) -> Result<AnyBackend, OpenError> {
    let scenario_err = |reason: String| OpenError::Scenario {
        name: name.to_string(),
        path: path.to_path_buf(),
        reason,
    };
    let text = std::fs::read_to_string(path).map_err(|e| scenario_err(e.to_string()))?;
    let sc = sdmac_sim::Scenario::parse(&text, &path.display().to_string())
        .map_err(|e| scenario_err(e.to_string()))?;
    let built = sdmac_sim::runner::build(&sc).map_err(|e| scenario_err(e.to_string()))?;
    let names: Vec<String> = sc.stations.iter().map(|s| s.name.clone()).collect();
    let no_station = || OpenError::NoStation {
        name: name.to_string(),
        station: station.map(str::to_string),
        stations: names.clone(),
    };
    // (medium index, engine station) of the station to open.
    let found = match station {
        Some(want) => built.iter().enumerate().find_map(|(mi, b)| {
            b.stations.iter().position(|&si| names[si] == want).map(|st| (mi, st))
        }),
        None => built.first().and_then(|b| {
            b.stations
                .iter()
                .position(|&si| !sc.stations[si].raw.ap.unwrap_or(false))
                .map(|st| (0, st))
        }),
    };
    let (mi, st) = found.ok_or_else(no_station)?;
    let b = built.into_iter().nth(mi).expect("medium found above");
    let station_name = names[b.stations[st]].clone();
    start(name, b.medium, &[(station_name.as_str(), st as StationId)], &station_name, opts)
}
