//! Which backend a station's data path runs on: the scenario's emulated medium
//! (the default), or a radio opened by name through `sdmac-open` (`hwsim:IFACE`, a
//! `mac80211_hwsim` radio whose medium is `sdmac-mediumd`; `linux:IFACE`, any
//! mac80211 radio). On a radio the data path sends and receives whole 802.11 frames
//! through a monitor interface: user-space 802.11 beside the kernel's mac80211 path
//! on the same radios, and the station's address is the radio's.

use sdmac_api::{ApiError, Backend, BackendName, Body, Interface, Scope, TxAttrs, Value};
use sdmac_emu::EmuIface;
use sdmac_open::{AnyInterface, OpenOptions};
use sdmac_types::{Ac, MacAddress};

/// The backend of one station: its interface on the emulated medium, or a radio.
// One per station thread, made once and never moved on the hot path: the emulated
// interface stays inline rather than behind one more pointer per primitive.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum StationBackend {
    /// A station of the scenario's emulated medium.
    Emu(Interface<EmuIface>),
    /// A radio opened by name (`hwsim:IFACE` or `linux:IFACE`).
    Radio(AnyInterface),
}

impl Backend for StationBackend {
    // To the backend inside either kind of station's interface.
    sdmac_api::forward_backend!(
        match { StationBackend::Emu(i), StationBackend::Radio(i) } => i.backend_mut(), i.backend()
    );
}

/// Longer than any 802.11 MPDU: a frame no backend can send, offered only to learn
/// a radio's limit.
const PROBE_LEN: usize = 16384;

/// The longest frame (MPDU, bytes without FCS) a radio takes, as its backend says
/// when offered one longer than any 802.11 MPDU (`TooLong`, nothing sent; a
/// monitor interface limits frames to its MTU). `None`: it named no limit.
fn max_frame_len(iface: &mut AnyInterface) -> Option<usize> {
    let probe = vec![0u8; PROBE_LEN];
    match iface.data_req(0, Body::Frame(&probe), Ac::Be, &TxAttrs::default()) {
        Err(ApiError::TooLong { max, .. }) if max < PROBE_LEN => Some(max),
        _ => None,
    }
}

/// A radio opened for a station.
#[derive(Debug)]
pub struct Radio {
    /// Its interface.
    pub backend: StationBackend,
    /// Its address, which the station takes.
    pub address: MacAddress,
    /// The longest frame (MPDU, no FCS) it takes, if it named a limit.
    pub max_frame: Option<usize>,
}

/// Parses `--backend`'s list: one backend name per station of the scenario's first
/// medium, in order. All `emu` (or an empty list) is the emulated medium of the
/// scenario, as without the option; otherwise every name must be a radio
/// (`hwsim:IFACE` or `linux:IFACE`), each named once, since a station on the
/// emulated medium cannot hear one on a radio.
pub fn parse_list(list: &str) -> Result<Vec<BackendName>, String> {
    let mut names = Vec::new();
    for (k, part) in list.split(',').enumerate() {
        let part = part.trim();
        let n = BackendName::parse(part)
            .map_err(|e| format!("--backend: entry {} ({part:?}): {e}", k + 1))?;
        if let BackendName::Emu { scenario: Some(_), .. } = n {
            return Err(format!(
                "--backend: entry {} ({part:?}): a station's emulated medium is the scenario's; write plain emu",
                k + 1
            ));
        }
        names.push(n);
    }
    let radios = names.iter().filter(|n| !matches!(n, BackendName::Emu { .. })).count();
    if radios == 0 {
        return Ok(Vec::new());
    }
    if radios != names.len() {
        return Err(format!(
            "--backend {list:?}: mixes emu with radios; a station on the emulated medium cannot hear one on a radio, so name a radio for every station (or none)"
        ));
    }
    for (k, n) in names.iter().enumerate() {
        if names[..k].contains(n) {
            return Err(format!(
                "--backend: {n} is named twice; each station needs a radio of its own"
            ));
        }
    }
    Ok(names)
}

/// Opens the radio `name` for a station and reads its address. It is opened on a
/// thread of its own because opening lowers the opening thread's capabilities
/// (`sdmac-linux` keeps none it no longer needs), while the caller still needs
/// them to create and remove namespaces and TAP devices. `rates`, when given, is
/// set as the radio's `default_rates` (e.g. `"54x1"`: every frame at 54 Mb/s).
pub fn open_radio(
    name: &BackendName,
    opts: &OpenOptions,
    rates: Option<&str>,
) -> Result<Radio, String> {
    let (name, opts, rates) = (name.clone(), opts.clone(), rates.map(str::to_string));
    let label = name.to_string();
    std::thread::Builder::new()
        .name("sdmac-tap-open".into())
        .spawn(move || {
            let mut iface =
                sdmac_open::open_with(&name, &opts).map_err(|e| format!("{name}: {e}"))?;
            let address = match iface.get("address", Scope::Adapter) {
                Ok(Value::Mac(m)) => m,
                Ok(v) => return Err(format!("{name}: its address reads {v}, not a MAC address")),
                Err(e) => return Err(format!("{name}: cannot read its address: {e}")),
            };
            if let Some(r) = rates {
                iface
                    .set("default_rates", Scope::Adapter, Value::Text(r.clone()))
                    .map_err(|e| format!("{name}: default_rates {r:?}: {e}"))?;
            }
            let max_frame = max_frame_len(&mut iface);
            Ok(Radio { backend: StationBackend::Radio(iface), address, max_frame })
        })
        .map_err(|e| format!("{label}: cannot start a thread to open it: {e}"))?
        .join()
        .map_err(|_| format!("{label}: the thread opening it panicked"))?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_emu_or_nothing_is_the_emulated_medium() {
        assert!(parse_list("emu").unwrap().is_empty());
        assert!(parse_list("emu,emu").unwrap().is_empty());
    }

    #[test]
    fn radios_in_station_order() {
        let v = parse_list("hwsim:wlan0, hwsim:wlan1").unwrap();
        assert_eq!(v.len(), 2);
        assert_eq!(v[0], BackendName::Hwsim { iface: "wlan0".into() });
        assert_eq!(v[1], BackendName::Hwsim { iface: "wlan1".into() });
        assert_eq!(
            parse_list("linux:phy3").unwrap()[0],
            BackendName::Linux { iface: "phy3".into() }
        );
    }

    #[test]
    fn bad_lists_name_the_entry_and_why() {
        let e = parse_list("hwsim:wlan0,emu").unwrap_err();
        assert!(e.contains("mixes emu with radios"), "{e}");
        let e = parse_list("hwsim:wlan0,hwsim:wlan0").unwrap_err();
        assert!(e.contains("named twice"), "{e}");
        let e = parse_list("hwsim:wlan0,radio:x").unwrap_err();
        assert!(e.contains("entry 2") && e.contains("radio:x"), "{e}");
        let e = parse_list("emu:x.toml").unwrap_err();
        assert!(e.contains("plain emu"), "{e}");
    }
}
