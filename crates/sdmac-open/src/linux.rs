//! Opening `linux:IFACE`: the radio of `IFACE`, a monitor interface on it (active
//! where the driver supports it), the data half on that monitor, and the API's
//! adapter attributes that nl80211 has routed to the monitor.

use crate::error::OpenError;
use crate::AnyBackend;
use sdmac_api::{ApiError, BackendName, MacAddress, Scope, Value};
use sdmac_linux::control::{caps, ControlError, MonitorInterface, MonitorOptions, Radio};
use sdmac_linux::{Control, LinuxBackend, LinuxConfig};

/// What `linux:IFACE` is opened with.
#[derive(Clone, Debug, Default)]
pub struct LinuxOpenOptions {
    /// The channel (MHz, 20 MHz without HT); default the channel the radio's new
    /// monitor reports.
    pub freq_mhz: Option<u32>,
    /// The BSSID (address 3 of payload frames, their receiver when a request names
    /// none, and the `bssid` attribute). None: the address in the environment
    /// variable `SDMAC_LINUX_BSSID` if it is set, else no BSSID (requests must name
    /// their destination).
    pub bssid: Option<MacAddress>,
    /// A TX power (dBm) set before the monitor comes up.
    pub tx_power_dbm: Option<f64>,
}

/// The environment variable the `linux` BSSID is read from when the options give none.
pub const BSSID_ENV: &str = "SDMAC_LINUX_BSSID";

fn control_err(name: &BackendName, kind: &'static str, e: ControlError) -> OpenError {
    OpenError::Radio { name: name.to_string(), kind, reason: e.to_string() }
}

/// `linux:IFACE`.
pub(crate) fn open(
    name: &BackendName,
    iface: &str,
    opts: &LinuxOpenOptions,
) -> Result<AnyBackend, OpenError> {
    Ok(AnyBackend::new(name.to_string(), open_backend(name, iface, opts)?))
}

/// The linux backend on `iface`'s radio, its nl80211 attributes routed to the
/// monitor (what `linux:IFACE` opens, and `hwsim:IFACE` builds on).
pub(crate) fn open_backend(
    name: &BackendName,
    iface: &str,
    opts: &LinuxOpenOptions,
) -> Result<LinuxBackend, OpenError> {
    let bssid = match opts.bssid {
        Some(b) => Some(b),
        None => match std::env::var(BSSID_ENV) {
            Ok(v) => Some(v.trim().parse::<MacAddress>().map_err(|e| OpenError::Radio {
                name: name.to_string(),
                kind: "BadOption",
                reason: format!("{BSSID_ENV}={v:?} is not a MAC address: {e}"),
            })?),
            Err(_) => None,
        },
    };
    let radio = Radio::open(iface).map_err(|e| control_err(name, kind_of(&e), e))?;
    caps::require(
        iface,
        "the linux backend (monitor interface, packet socket)",
        &[caps::CAP_NET_ADMIN, caps::CAP_NET_RAW],
    )
    .map_err(|e| control_err(name, kind_of(&e), e))?;
    let mopts = MonitorOptions {
        tx_power: opts
            .tx_power_dbm
            .map(|d| sdmac_linux::control::TxPowerSetting::Fixed((d * 100.0).round() as i32)),
        channel: opts.freq_mhz.map(|f| sdmac_linux::control::Channel {
            freq_mhz: f,
            width: sdmac_linux::control::Width::NoHt20,
        }),
        ..MonitorOptions::default()
    };
    let mut mon =
        MonitorInterface::create(&radio, &mopts).map_err(|e| control_err(name, kind_of(&e), e))?;
    let freq = match opts.freq_mhz {
        Some(f) => f,
        None => mon.channel().map_err(|e| control_err(name, kind_of(&e), e))?.freq_mhz,
    };
    let mut cfg = LinuxConfig::new(freq);
    cfg.bssid = bssid;
    let mut backend = LinuxBackend::open(mon.name(), cfg).map_err(|reason| OpenError::Radio {
        name: name.to_string(),
        kind: "Start",
        reason,
    })?;
    caps::drop_after_open().map_err(|e| OpenError::Radio {
        name: name.to_string(),
        kind: "Start",
        reason: format!("lowering capabilities: {e}"),
    })?;
    backend.set_control(Box::new(MonitorControl { mon, freq_mhz: freq, bssid }));
    Ok(backend)
}

fn kind_of(e: &ControlError) -> &'static str {
    match e {
        ControlError::UnknownInterface { .. } => "UnknownInterface",
        ControlError::NotWireless { .. } => "NotWireless",
        ControlError::NoMonitorMode { .. } => "NoMonitorMode",
        ControlError::MissingCapability { .. } => "MissingCapability",
        _ => "Radio",
    }
}

/// The adapter attributes of the API that nl80211 carries, on the monitor; the
/// backend owns it, so the monitor is removed when the backend is closed.
struct MonitorControl {
    mon: MonitorInterface,
    freq_mhz: u32,
    bssid: Option<MacAddress>,
}

fn api_err(name: &str, e: ControlError) -> ApiError {
    api_err_value(name, "", e)
}

fn api_err_value(name: &str, value: &str, e: ControlError) -> ApiError {
    match e {
        ControlError::NotSupported { what, why } => {
            ApiError::Unsupported { what: format!("{what}: {why}") }
        }
        ControlError::InvalidValue { why, .. } => {
            ApiError::InvalidValue { name: name.to_string(), value: value.to_string(), reason: why }
        }
        other => ApiError::Unsupported { what: format!("{name}: {other}") },
    }
}

fn unsupported(what: String) -> ApiError {
    ApiError::Unsupported { what }
}

/// Channel number of a frequency (2.4 and 5 GHz).
pub fn channel_of(freq_mhz: u32) -> Option<i64> {
    match freq_mhz {
        2484 => Some(14),
        2412..=2472 => Some(((freq_mhz - 2407) / 5) as i64),
        5000..=5895 => Some(((freq_mhz - 5000) / 5) as i64),
        _ => None,
    }
}

impl Control for MonitorControl {
    fn set(&mut self, name: &str, _scope: Scope, value: &Value) -> Result<(), ApiError> {
        match name {
            "tx_power" => {
                let dbm = value.to_float(name)?;
                if !(-100.0..=100.0).contains(&dbm) {
                    return Err(value.invalid(name, "not within -100..=100 dBm"));
                }
                self.mon
                    .set_tx_power(sdmac_linux::control::TxPowerSetting::Fixed((dbm * 100.0).round() as i32))
                    .map_err(|e| api_err_value(name, &value.to_string(), e))
            }
            "default_rates" => {
                let series = value.to_rates(name)?;
                let rates: Vec<u32> = series.entries().iter().map(|(r, _)| r.kbps() / 100).collect();
                self.mon.set_fixed_bitrates(self.freq_mhz, &rates).map_err(|e| api_err_value(name, &value.to_string(), e))
            }
            _ => Err(unsupported(format!("setting {name:?} (the linux backend sets tx_power and default_rates through nl80211)"))),
        }
    }

    fn get(&mut self, name: &str, _scope: Scope) -> Result<Value, ApiError> {
        match name {
            "address" => self.mon.mac().map(|m| Value::Mac(MacAddress(m))).ok_or_else(|| unsupported(format!("{}: the kernel reports no address", self.mon.name()))),
            "bssid" => self.bssid.map(Value::Mac).ok_or_else(|| {
                unsupported(format!("reading \"bssid\": the linux backend was opened without one (set {BSSID_ENV} or OpenOptions::linux.bssid)"))
            }),
            "frequency" => Ok(Value::Int(self.mon.channel().map_err(|e| api_err(name, e))?.freq_mhz as i64)),
            "channel" => {
                let f = self.mon.channel().map_err(|e| api_err(name, e))?.freq_mhz;
                channel_of(f).map(Value::Int).ok_or_else(|| unsupported(format!("the channel number of {f} MHz")))
            }
            "tx_power" => Ok(Value::Float(self.mon.tx_power_mbm().map_err(|e| api_err(name, e))? as f64 / 100.0)),
            _ => Err(unsupported(format!("reading {name:?} (the linux backend reads address, bssid, frequency, channel and tx_power)"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::channel_of;

    #[test]
    fn channel_numbers() {
        assert_eq!(channel_of(2412), Some(1));
        assert_eq!(channel_of(2472), Some(13));
        assert_eq!(channel_of(2484), Some(14));
        assert_eq!(channel_of(5180), Some(36));
        assert_eq!(channel_of(900), None);
    }
}
