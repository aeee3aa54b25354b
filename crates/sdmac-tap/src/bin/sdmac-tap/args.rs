//! The command line of `sdmac-tap`: its options, their defaults and their checks.

use crate::*;

pub(crate) const USAGE: &str = "usage: sdmac-tap SCENARIO.toml [--subnet A.B.C.D/LEN] [--prefix NAME] \
[--ifname NAME] [--mtu BYTES] [--duration SECONDS] [--busy-poll] [--tap-io uring|syscalls] [--seed N] \
[--one-thread] [--realtime PRIO] [--json FILE] [--ready-file FILE] [--pcap FILE] [--control SOCKET] [--reserve N] [--max-stations N] \
[--backend NAME,NAME,...] [--radio-rates SERIES] [--freq MHZ]";

/// The station table's size without `--max-stations`.
pub(crate) const DEFAULT_MAX_STATIONS: usize = 64;
/// The largest association id (IEEE 802.11: 1..=2007), which bounds `--max-stations`.
pub(crate) const MAX_AID: u16 = 2007;

pub(crate) struct Args {
    pub(crate) scenario: String,
    pub(crate) subnet: (Ipv4Addr, u8),
    pub(crate) prefix: String,
    pub(crate) ifname: String,
    pub(crate) mtu: u32,
    pub(crate) duration: Option<f64>,
    pub(crate) busy_poll: bool,
    /// Serve the TAP devices with io_uring (`--tap-io uring`, the default).
    pub(crate) uring: bool,
    /// `--tap-io` was given.
    pub(crate) tap_io_given: bool,
    /// `--one-thread`: every data path and the emulated medium on one thread.
    pub(crate) one_thread: bool,
    /// `--realtime PRIO`: the data-path threads under SCHED_FIFO at this priority.
    pub(crate) realtime: Option<i32>,
    pub(crate) seed: u64,
    pub(crate) json: Option<String>,
    pub(crate) ready_file: Option<String>,
    pub(crate) pcap: Option<String>,
    /// `--control PATH`: the control socket.
    pub(crate) control: Option<String>,
    /// `--reserve N`: stations on the medium from the start, brought up at run time.
    pub(crate) reserve: usize,
    /// `--max-stations N`: the station table's size (scenario, pool and added).
    pub(crate) max_stations: usize,
    /// `--backend`: one radio per station, in order; empty: the emulated medium.
    pub(crate) backends: Vec<BackendName>,
    /// `--radio-rates`: the radios' `default_rates`.
    pub(crate) radio_rates: Option<String>,
    /// `--freq`: the radios' channel (MHz).
    pub(crate) freq_mhz: Option<u32>,
}

pub(crate) fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        scenario: String::new(),
        subnet: (Ipv4Addr::new(10, 0, 0, 0), 24),
        prefix: "sdmac-".into(),
        ifname: "sdmac0".into(),
        mtu: 1500,
        duration: None,
        busy_poll: false,
        uring: true,
        tap_io_given: false,
        one_thread: false,
        realtime: None,
        seed: 1,
        json: None,
        ready_file: None,
        pcap: None,
        control: None,
        reserve: 0,
        max_stations: DEFAULT_MAX_STATIONS,
        backends: Vec::new(),
        radio_rates: None,
        freq_mhz: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut val = |name: &str| it.next().ok_or_else(|| format!("{name} needs a value"));
        match arg.as_str() {
            "-h" | "--help" => return Err(String::new()),
            "--subnet" => a.subnet = netns::parse_cidr(&val("--subnet")?)?,
            "--prefix" => a.prefix = val("--prefix")?,
            "--ifname" => a.ifname = val("--ifname")?,
            "--mtu" => {
                let v = val("--mtu")?;
                a.mtu = v.parse().map_err(|_| format!("--mtu {v:?}: not a number"))?;
                let max = (sdmac_tap::convert::MAX_ETH_FRAME - 14) as u32;
                if !(68..=max).contains(&a.mtu) {
                    return Err(format!("--mtu {}: must be within 68..={max}", a.mtu));
                }
            }
            "--duration" => {
                let v = val("--duration")?;
                let d: f64 = v.parse().map_err(|_| format!("--duration {v:?}: not a number"))?;
                if !(d > 0.0 && d.is_finite()) {
                    return Err(format!("--duration {v}: must be a positive number of seconds"));
                }
                a.duration = Some(d);
            }
            "--busy-poll" => a.busy_poll = true,
            "--one-thread" => a.one_thread = true,
            "--realtime" => {
                let v = val("--realtime")?;
                let p: i32 = v.parse().map_err(|_| format!("--realtime {v:?}: not a number"))?;
                if !(1..=99).contains(&p) {
                    return Err(format!("--realtime {p}: a SCHED_FIFO priority is within 1..=99"));
                }
                a.realtime = Some(p);
            }
            "--tap-io" => {
                a.tap_io_given = true;
                a.uring = match val("--tap-io")?.as_str() {
                    "uring" => true,
                    "syscalls" => false,
                    v => return Err(format!("--tap-io {v:?}: must be uring or syscalls")),
                }
            }
            "--seed" => {
                let v = val("--seed")?;
                a.seed = v.parse().map_err(|_| format!("--seed {v:?}: not a number"))?;
            }
            "--json" => a.json = Some(val("--json")?),
            "--ready-file" => a.ready_file = Some(val("--ready-file")?),
            "--pcap" => a.pcap = Some(val("--pcap")?),
            "--backend" => a.backends = backend::parse_list(&val("--backend")?)?,
            "--radio-rates" => a.radio_rates = Some(val("--radio-rates")?),
            "--freq" => {
                let v = val("--freq")?;
                let f: u32 = v.parse().map_err(|_| format!("--freq {v:?}: not a number of MHz"))?;
                if !(2400..=7200).contains(&f) {
                    return Err(format!("--freq {f}: not a 2.4, 5 or 6 GHz channel (MHz)"));
                }
                a.freq_mhz = Some(f);
            }
            "--control" => a.control = Some(val("--control")?),
            "--reserve" => {
                let v = val("--reserve")?;
                a.reserve = v.parse().map_err(|_| format!("--reserve {v:?}: not a number"))?;
                if a.reserve > 64 {
                    return Err(format!("--reserve {}: at most 64", a.reserve));
                }
            }
            "--max-stations" => {
                let v = val("--max-stations")?;
                a.max_stations =
                    v.parse().map_err(|_| format!("--max-stations {v:?}: not a number"))?;
                if !(2..=MAX_AID as usize).contains(&a.max_stations) {
                    return Err(format!(
                        "--max-stations {}: must be within 2..={MAX_AID} (an AP's association ids)",
                        a.max_stations
                    ));
                }
            }
            s if s.starts_with('-') => return Err(format!("unknown option {s}")),
            s => {
                if !a.scenario.is_empty() {
                    return Err(format!("one scenario only (got {:?} and {s:?})", a.scenario));
                }
                a.scenario = s.to_string();
            }
        }
    }
    if a.scenario.is_empty() {
        return Err("no scenario given".into());
    }
    if a.reserve > 0 && a.control.is_none() {
        return Err("--reserve needs --control (stations are added through it)".into());
    }
    if a.backends.is_empty() && (a.radio_rates.is_some() || a.freq_mhz.is_some()) {
        return Err("--radio-rates and --freq apply to radios, and --backend names none".into());
    }
    if a.one_thread {
        if a.uring && a.tap_io_given {
            return Err("--one-thread serves every TAP device from one poll, with one read or write per frame; --tap-io uring needs a thread per station".into());
        }
        a.uring = false;
    }
    if !a.backends.is_empty() && a.reserve > 0 {
        return Err("--reserve applies to the emulated medium, and --backend names radios".into());
    }
    Ok(a)
}
