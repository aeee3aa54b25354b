//! A radio (wiphy) found by interface or phy name, with what nl80211 says it can do.

use super::error::{ControlError, Result};
use super::netdev;
use super::nlsock::{Nl80211Socket, NlError};
use sdmac_netlink::nl80211::{
    BandInfo, GetInterface, GetWiphy, IftypeSet, InterfaceInfo, WiphyInfo,
};

/// A wiphy's capabilities (`GET_WIPHY`, split dump merged), owned.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Wiphy {
    /// Wiphy index.
    pub index: u32,
    /// Wiphy name (`phy0`).
    pub name: String,
    /// Interface types it can create.
    pub iftypes: IftypeSet,
    /// `FEATURE_FLAGS`.
    pub feature_flags: u32,
    /// `EXT_FEATURES` bytes.
    pub ext_features: Vec<u8>,
    /// Bands with channels, bitrates and HT/VHT capability presence.
    pub bands: Vec<BandInfo>,
    /// Supported commands.
    pub commands: Vec<u32>,
    /// Coverage class.
    pub coverage_class: Option<u8>,
    /// Short retry limit.
    pub retry_short: Option<u8>,
    /// Long retry limit.
    pub retry_long: Option<u8>,
}

impl Wiphy {
    /// From a (merged) wiphy description.
    pub fn from_info(w: &WiphyInfo<'_>) -> Wiphy {
        Wiphy {
            index: w.wiphy,
            name: w.name.map(str::to_owned).unwrap_or_else(|| format!("phy{}", w.wiphy)),
            iftypes: w.iftypes,
            feature_flags: w.feature_flags.unwrap_or(0),
            ext_features: w.ext_features.map(<[u8]>::to_vec).unwrap_or_default(),
            bands: w.bands.clone(),
            commands: w.commands.clone(),
            coverage_class: w.coverage_class,
            retry_short: w.retry_short,
            retry_long: w.retry_long,
        }
    }

    /// A borrowed description, for its query methods (`supports_monitor`, `band_of`, ...).
    pub fn info(&self) -> WiphyInfo<'_> {
        WiphyInfo {
            wiphy: self.index,
            name: Some(&self.name),
            iftypes: self.iftypes,
            feature_flags: Some(self.feature_flags),
            ext_features: Some(&self.ext_features),
            bands: self.bands.clone(),
            commands: self.commands.clone(),
            coverage_class: self.coverage_class,
            retry_short: self.retry_short,
            retry_long: self.retry_long,
            ..Default::default()
        }
    }

    /// The band holding channel `mhz`.
    pub fn band_of(&self, mhz: u32) -> Option<&BandInfo> {
        self.bands.iter().find(|b| b.freq(mhz).is_some())
    }
}

/// A network interface of a radio.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Iface {
    /// Interface index.
    pub ifindex: u32,
    /// Interface name.
    pub name: String,
    /// Interface type (`nl80211::iftype`).
    pub iftype: Option<u32>,
    /// MAC address.
    pub mac: Option<[u8; 6]>,
    /// Administratively up.
    pub up: bool,
}

/// A radio opened by name: its wiphy and interfaces. Opening needs no privilege;
/// creating its monitor interface does ([`super::MonitorInterface`]).
#[derive(Clone, Debug)]
pub struct Radio {
    /// The name it was opened by (an interface, or a phy).
    pub asked: String,
    /// The wiphy.
    pub wiphy: Wiphy,
    /// Its interfaces when it was opened.
    pub interfaces: Vec<Iface>,
    /// Its address: that of the interface it was opened by, else of its first interface.
    pub address: Option<[u8; 6]>,
}

const ENODEV: i32 = libc::ENODEV;

/// Every wiphy, merged from a split dump (`only`: just that one).
pub(crate) fn dump_wiphys(
    sock: &mut Nl80211Socket,
    only: Option<u32>,
) -> std::result::Result<Vec<Wiphy>, NlError> {
    let mut parts: Vec<Wiphy> = Vec::new();
    let req = GetWiphy { wiphy: only, ifindex: None, split: true };
    sock.dump(&req, |p| {
        let w = WiphyInfo::parse(p)?;
        // owned copies: the receive buffer is reused
        match parts.iter().position(|x| x.index == w.wiphy) {
            Some(i) => {
                let mut merged = parts[i].info();
                merged.merge(w);
                let m = Wiphy::from_info(&merged);
                parts[i] = m;
            }
            None => parts.push(Wiphy::from_info(&w)),
        }
        Ok(())
    })?;
    Ok(parts.into_iter().filter(|w| only.map_or(true, |o| o == w.index)).collect())
}

/// Every wireless interface (of wiphy `wiphy` when given).
pub(crate) fn dump_interfaces(
    sock: &mut Nl80211Socket,
    wiphy: Option<u32>,
) -> std::result::Result<Vec<Iface>, NlError> {
    let mut out = Vec::new();
    sock.dump(&GetInterface::default(), |p| {
        let i = InterfaceInfo::parse(p)?;
        if wiphy.map_or(true, |w| w == i.wiphy) {
            if let (Some(ifindex), Some(name)) = (i.ifindex, i.ifname) {
                out.push(Iface {
                    ifindex,
                    name: name.to_owned(),
                    iftype: i.iftype,
                    mac: i.mac,
                    up: netdev::is_up(name),
                });
            }
        }
        Ok(())
    })?;
    Ok(out)
}

/// One interface's description (`GET_INTERFACE` by index).
pub(crate) fn get_interface(
    sock: &mut Nl80211Socket,
    ifindex: u32,
) -> std::result::Result<Option<OwnedIfaceInfo>, NlError> {
    let mut found = None;
    sock.request(&GetInterface { ifindex: Some(ifindex), wiphy: None }, |p| {
        let i = InterfaceInfo::parse(p)?;
        found = Some(OwnedIfaceInfo {
            wiphy: i.wiphy,
            mac: i.mac,
            freq: i.freq,
            channel_width: i.channel_width,
            center_freq1: i.center_freq1,
            tx_power_mbm: i.tx_power_mbm,
        });
        Ok(())
    })?;
    Ok(found)
}

/// What `GET_INTERFACE` says about one interface, owned.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct OwnedIfaceInfo {
    pub wiphy: u32,
    pub mac: Option<[u8; 6]>,
    pub freq: Option<u32>,
    pub channel_width: Option<u32>,
    pub center_freq1: Option<u32>,
    pub tx_power_mbm: Option<i32>,
}

impl Radio {
    /// Opens the radio of interface `name` (`wlan1`) or the wiphy named `name`
    /// (`phy1`): its index, capabilities and interfaces.
    ///
    /// Errors: [`ControlError::UnknownInterface`] when neither exists,
    /// [`ControlError::NotWireless`] for an interface nl80211 does not know (`lo`, a
    /// veth).
    pub fn open(name: &str) -> Result<Radio> {
        let mut sock = match Nl80211Socket::open() {
            Ok(s) => s,
            // no nl80211 family (cfg80211 not loaded): no interface is wireless
            Err(NlError::Errno(e, _)) if e == libc::ENOENT => {
                return Err(match netdev::index_of(name) {
                    Some(_) => ControlError::NotWireless { name: name.into() },
                    None => ControlError::UnknownInterface { name: name.into() },
                })
            }
            Err(e) => return Err(e.context("resolving the nl80211 family", name)),
        };
        let mut own_mac = None;
        let index = match netdev::index_of(name) {
            Some(ifindex) => match get_interface(&mut sock, ifindex) {
                Ok(Some(i)) => {
                    own_mac = i.mac;
                    i.wiphy
                }
                Ok(None) => return Err(ControlError::NotWireless { name: name.into() }),
                Err(NlError::Errno(e, _))
                    if e == ENODEV || e == libc::EINVAL || e == libc::EOPNOTSUPP =>
                {
                    return Err(ControlError::NotWireless { name: name.into() })
                }
                Err(e) => return Err(e.context("NL80211_CMD_GET_INTERFACE", name)),
            },
            None => {
                let all = dump_wiphys(&mut sock, None)
                    .map_err(|e| e.context("NL80211_CMD_GET_WIPHY", name))?;
                match all.iter().find(|w| w.name == name) {
                    Some(w) => w.index,
                    None => return Err(ControlError::UnknownInterface { name: name.into() }),
                }
            }
        };
        let wiphy = dump_wiphys(&mut sock, Some(index))
            .map_err(|e| e.context("NL80211_CMD_GET_WIPHY", name))?
            .into_iter()
            .next()
            .ok_or_else(|| ControlError::UnknownInterface { name: name.into() })?;
        let interfaces = dump_interfaces(&mut sock, Some(index))
            .map_err(|e| e.context("NL80211_CMD_GET_INTERFACE", name))?;
        let address = own_mac.or_else(|| interfaces.iter().find_map(|i| i.mac));
        Ok(Radio { asked: name.into(), wiphy, interfaces, address })
    }

    /// The radio's interfaces that are up, by name.
    pub fn interfaces_up(&self) -> Vec<String> {
        self.interfaces.iter().filter(|i| netdev::is_up(&i.name)).map(|i| i.name.clone()).collect()
    }
}
