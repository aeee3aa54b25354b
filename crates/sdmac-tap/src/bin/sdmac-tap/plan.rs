//! The run's plan: the stations of the scenario's first medium (and the reserved
//! pool), their namespaces and addresses, the BSS, and the radios of `--backend`.

use crate::*;
/// One station of the medium, as the run sets it up.
pub(crate) struct Station {
    pub(crate) name: String,
    pub(crate) id: StationId,
    pub(crate) address: MacAddress,
    pub(crate) netns: String,
    pub(crate) ipv4: Ipv4Addr,
    /// The scenario marks it an AP (`ap = true`).
    pub(crate) ap: bool,
    /// From the reserved pool (`--reserve`): up only once added at run time.
    pub(crate) reserved: bool,
    /// A QoS station (`qos = true`): frames go on the AC of their priority.
    pub(crate) qos: bool,
}

pub(crate) struct Plan {
    pub(crate) stations: Vec<Station>,
    /// The medium, until the session takes it.
    pub(crate) medium: Option<sdmac_medium::Medium>,
    pub(crate) bssid: MacAddress,
    /// Index of the AP in `stations`; `None`: an IBSS.
    pub(crate) ap: Option<usize>,
    /// The configuration stations added at run time copy: the first non-AP
    /// station's, without flows or beacons.
    pub(crate) model: StationConfig,
    /// How many stations the scenario has (the pool and added ones come after).
    pub(crate) scenario_stations: usize,
}

pub(crate) fn plan(a: &Args) -> Result<Plan, String> {
    let text = std::fs::read_to_string(&a.scenario)
        .map_err(|e| format!("cannot read {}: {e}", a.scenario))?;
    let sc = sdmac_sim::Scenario::parse(&text, &a.scenario).map_err(|e| e.to_string())?;
    let mut built = sdmac_sim::runner::build(&sc).map_err(|e| e.to_string())?;
    if built.is_empty() {
        return Err(format!("{}: the scenario has no medium", a.scenario));
    }
    let b = built.swap_remove(0);
    let mut stations = Vec::new();
    for (k, &si) in b.stations.iter().enumerate() {
        let spec = &sc.stations[si];
        let ipv4 = netns::host_address(a.subnet, k as u32 + 1).ok_or_else(|| {
            format!(
                "subnet {}/{} has no room for {} stations",
                a.subnet.0,
                a.subnet.1,
                b.stations.len()
            )
        })?;
        let netns = format!("{}{}", a.prefix, spec.name);
        if netns.contains('/') || netns.len() > 64 {
            return Err(format!("station {:?}: namespace name {netns:?} is not usable", spec.name));
        }
        stations.push(Station {
            name: spec.name.clone(),
            id: k as StationId,
            address: MacAddress(spec.address),
            netns,
            ipv4,
            ap: spec.raw.ap == Some(true),
            reserved: false,
            qos: b.medium.station(k as StationId).is_some_and(|c| c.qos),
        });
    }
    if stations.len() < 2 {
        return Err(format!(
            "{}: the first medium has {} station(s); traffic needs two",
            a.scenario,
            stations.len()
        ));
    }
    let aps: Vec<usize> = (0..stations.len()).filter(|&k| stations[k].ap).collect();
    if aps.len() > 1 {
        return Err(format!(
            "{}: the first medium has {} APs; sdmac tap runs one BSS per medium",
            a.scenario,
            aps.len()
        ));
    }
    if !a.backends.is_empty() {
        if a.backends.len() != stations.len() {
            return Err(format!(
                "--backend names {} radio(s) and {} has {} stations in its first medium: one radio per station",
                a.backends.len(),
                a.scenario,
                stations.len()
            ));
        }
        if let (Some(&k), None) = (aps.first(), a.freq_mhz) {
            return Err(format!(
                "{}: station {} is an AP, and on radios it sends its own beacons, which name their channel: give it with --freq",
                a.scenario, stations[k].name
            ));
        }
    }
    let bssid = match aps.first() {
        Some(&k) => stations[k].address,
        None => ibss_bssid(stations[0].address),
    };
    // The reserved pool: stations on the medium from the start (the emulated medium
    // cannot take a station once it runs), silent until added through the control
    // socket. Each is a copy of the first non-AP station (its PHY settings, rates
    // and queues), without flows, 1 m further along x per slot.
    let mut medium = b.medium;
    let model = (0..stations.len()).find(|&k| !stations[k].ap).unwrap_or(0);
    let mut base = medium.station(stations[model].id).expect("a station of the medium").clone();
    base.beacon = None;
    base.flows.clear();
    let first = stations.len();
    if first + a.reserve > a.max_stations {
        return Err(format!(
            "--max-stations {}: the scenario has {first} stations and --reserve {} more",
            a.max_stations, a.reserve
        ));
    }
    for r in 0..a.reserve {
        let name = format!("r{}", r + 1);
        if stations.iter().any(|s| s.name == name) {
            return Err(format!("--reserve: the scenario has a station named {name} already"));
        }
        let address = MacAddress([0x02, 0x5d, 0xac, 0xfe, 0x00, r as u8 + 1]);
        if stations.iter().any(|s| s.address == address) {
            return Err(format!("--reserve: the scenario uses address {address}, reserved"));
        }
        let k = first + r;
        let id = medium.add_station(extra_station(&base, address, k - first));
        let ipv4 = netns::host_address(a.subnet, k as u32 + 1).ok_or_else(|| {
            format!("subnet {}/{} has no room for {} stations", a.subnet.0, a.subnet.1, k + 1)
        })?;
        stations.push(Station {
            netns: format!("{}{name}", a.prefix),
            name,
            id,
            address,
            ipv4,
            ap: false,
            reserved: true,
            qos: base.qos,
        });
    }
    Ok(Plan {
        stations,
        medium: Some(medium),
        bssid,
        ap: aps.first().copied(),
        model: base,
        scenario_stations: first,
    })
}

/// The configuration of the `n`th station beyond the scenario's (0 first: the pool,
/// then those added at run time): `model`'s with address `address`, `n + 1` m
/// further along x.
pub(crate) fn extra_station(model: &StationConfig, address: MacAddress, n: usize) -> StationConfig {
    let mut cfg = model.clone();
    cfg.address = address.0;
    cfg.position = [model.position[0] + 1.0 + n as f64, model.position[1], model.position[2]];
    cfg
}

/// An IBSS's BSSID: locally administered, derived from the first station's address.
pub(crate) fn ibss_bssid(first: MacAddress) -> MacAddress {
    let mut b = first.0;
    b[0] = (b[0] | 0x02) & !0x01;
    b[5] ^= 0x80;
    MacAddress(b)
}

/// What a data frame adds to an Ethernet payload on air: a 3-address non-QoS header
/// (24 bytes) and LLC/SNAP (8).
pub(crate) const DATA_OVERHEAD: usize = 24 + 8;

/// Opens the radios of `--backend` (none: an empty list); each station takes its
/// radio's address, and the IBSS its BSSID from the first. The TAP devices' MTU is
/// lowered to what the radios carry in one frame, if that is less.
pub(crate) fn open_radios(
    a: &mut Args,
    p: &mut Plan,
) -> Result<Vec<Option<StationBackend>>, String> {
    let mut opts = sdmac_open::OpenOptions::default();
    opts.linux.freq_mhz = a.freq_mhz;
    let mut radios = Vec::new();
    for (s, name) in p.stations.iter_mut().zip(&a.backends) {
        let r = backend::open_radio(name, &opts, a.radio_rates.as_deref())
            .map_err(|e| format!("station {}: {e}", s.name))?;
        s.address = r.address;
        if let Some(max) = r.max_frame {
            // An Ethernet payload goes out behind a 3-address header and LLC/SNAP.
            let mtu = max.saturating_sub(DATA_OVERHEAD) as u32;
            if mtu < 68 {
                return Err(format!(
                    "station {}: {name} carries frames of {max} bytes at most: too short for IP",
                    s.name
                ));
            }
            if mtu < a.mtu {
                eprintln!("sdmac-tap: station {}: {name} carries frames of {max} bytes at most: MTU {mtu}, not {}", s.name, a.mtu);
                a.mtu = mtu;
            }
        }
        radios.push(Some(r.backend));
    }
    if !radios.is_empty() {
        p.bssid = match p.ap {
            Some(k) => p.stations[k].address,
            None => ibss_bssid(p.stations[0].address),
        };
    }
    Ok(radios)
}
