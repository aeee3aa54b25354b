//! The monitor interface of a radio: created on its wiphy, configured, brought up,
//! and removed again on [`MonitorInterface::close`], on drop, and on every error
//! after its creation. It is also created with `NL80211_ATTR_SOCKET_OWNER`, so the
//! kernel removes it should the process die without closing it.

use super::caps::{self, AdminGuard, CAP_NET_ADMIN};
use super::decide::{self, Active, Channel};
use super::error::{ControlError, Result};
use super::netdev;
use super::nlsock::{Nl80211Socket, NlError};
use super::radio::{self, Radio, Wiphy};
use sdmac_netlink::nl80211::{
    feature, iftype, tx_power, DelInterface, InterfaceInfo, MntrFlags, NewInterface,
    SetTxBitrateMask, SetWiphy, TxPower,
};

/// The MTU a monitor interface is given: the largest MSDU, 2304 octets, which is
/// the most mac80211 allows.
pub const MONITOR_MTU: u32 = 2304;

/// How to create the monitor interface.
#[derive(Clone, Debug, Default)]
pub struct MonitorOptions {
    /// Its name; default the first free `sdmon<N>`.
    pub name: Option<String>,
    /// Active or not (default: where the driver supports it).
    pub active: Active,
    /// Its MAC address; default the radio's address when the monitor is active
    /// (so that frames to that address are acknowledged) and the driver takes an
    /// address on creation (`FEATURE_MAC_ON_CREATE`).
    pub mac: Option<[u8; 6]>,
    /// A TX power to set before the interface comes up (mac80211 without channel
    /// contexts applies a new level at its next reconfiguration: bringing the
    /// interface up is one).
    pub tx_power: Option<TxPowerSetting>,
    /// A channel to set as the interface comes up.
    pub channel: Option<Channel>,
    /// Fault injection for tests: fail right after the interface is created.
    #[doc(hidden)]
    pub fail_after_create: bool,
}

/// A TX power setting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TxPowerSetting {
    /// The driver decides.
    Auto,
    /// At most this many mBm (dBm × 100).
    Limited(i32),
    /// Exactly this many mBm.
    Fixed(i32),
}

/// The channel the kernel reports for the monitor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChannelState {
    /// Primary channel in MHz.
    pub freq_mhz: u32,
    /// Width, when the kernel reports one this crate knows.
    pub width: Option<super::decide::Width>,
    /// Width in MHz.
    pub width_mhz: u32,
    /// Centre frequency in MHz.
    pub center_freq1: Option<u32>,
}

/// A monitor interface on a radio (see the module documentation).
#[derive(Debug)]
pub struct MonitorInterface {
    sock: Nl80211Socket,
    ifindex: u32,
    name: String,
    radio: String,
    wiphy: Wiphy,
    flags: MntrFlags,
    mac: Option<[u8; 6]>,
    removed: bool,
}

fn first_free_name() -> String {
    (0..).map(|n| format!("sdmon{n}")).find(|n| netdev::index_of(n).is_none()).unwrap_or_default()
}

impl MonitorInterface {
    /// Creates the monitor interface of `radio` (needs `CAP_NET_ADMIN`: checked
    /// first), brings it up, sets its channel when asked (refused with
    /// [`ControlError::Busy`] while another interface of the radio is up).
    pub fn create(radio: &Radio, opts: &MonitorOptions) -> Result<MonitorInterface> {
        let rname = radio.asked.as_str();
        let flags = decide::monitor_flags(rname, &radio.wiphy, opts.active)?;
        let chandef = opts.channel.map(|c| decide::channel_def(&radio.wiphy, c)).transpose()?;
        let can_mac = radio.wiphy.feature_flags & feature::MAC_ON_CREATE != 0;
        let mac = match opts.mac {
            Some(m) if !can_mac => {
                let _ = m;
                return Err(ControlError::NotSupported {
                    what: "monitor MAC address",
                    why: format!("{}'s driver takes no address on interface creation (NL80211_FEATURE_MAC_ON_CREATE)", radio.wiphy.name),
                });
            }
            Some(m) => Some(m),
            None if can_mac && flags.contains(MntrFlags::ACTIVE) => radio.address,
            None => None,
        };
        caps::require(rname, "creating a monitor interface", &[CAP_NET_ADMIN])?;
        let name = opts.name.clone().unwrap_or_else(first_free_name);
        let mut sock =
            Nl80211Socket::open().map_err(|e| e.context("resolving the nl80211 family", rname))?;
        let req = NewInterface {
            wiphy: radio.wiphy.index,
            ifname: &name,
            iftype: iftype::MONITOR,
            mntr_flags: Some(flags),
            mac,
            socket_owner: true,
        };
        let mut ifindex = None;
        {
            let _admin = AdminGuard::raise();
            sock.request(&req, |p| {
                if let Ok(i) = InterfaceInfo::parse(p) {
                    ifindex = i.ifindex;
                }
                Ok(())
            })
            .map_err(|e| e.context("NL80211_CMD_NEW_INTERFACE", rname))?;
        }
        let ifindex = match ifindex.or_else(|| netdev::index_of(&name)) {
            Some(i) => i,
            None => {
                return Err(ControlError::Io {
                    op: format!("{rname}: creating {name}"),
                    err: std::io::Error::new(
                        std::io::ErrorKind::NotFound,
                        "the kernel created no interface of that name",
                    ),
                })
            }
        };
        // From here on the interface exists: every early return drops `mon`, which
        // deletes it.
        let mut mon = MonitorInterface {
            sock,
            ifindex,
            name,
            radio: rname.into(),
            wiphy: radio.wiphy.clone(),
            flags,
            mac,
            removed: false,
        };
        if opts.fail_after_create {
            return Err(ControlError::InvalidValue {
                what: "fault injection",
                why: format!("failing after {} was created, as asked", mon.name),
            });
        }
        if let Some(p) = opts.tx_power {
            mon.set_tx_power(p)?;
        }
        {
            let _admin = AdminGuard::raise();
            // A new interface gets an MTU of 1500, which would refuse 802.11 frames
            // longer than that (AF_PACKET checks the MTU); mac80211 allows up to the
            // largest MSDU, 2304 octets. A driver that refuses keeps its MTU, which
            // the backend reads and reports as its frame limit.
            let _ = netdev::set_mtu(&mon.name, MONITOR_MTU);
            netdev::set_up(&mon.name, true).map_err(|err| ControlError::Io {
                op: format!("{rname}: bringing {} up", mon.name),
                err,
            })?;
        }
        // cfg80211 sets a monitor's channel only while monitors are the radio's only
        // interfaces running, and at least one is: so after the monitor is up, before
        // any other interface of the radio comes up.
        if let Some(c) = chandef {
            mon.set_channel_def(c, radio)?;
        }
        if let Some(i) = radio::get_interface(&mut mon.sock, ifindex)
            .map_err(|e| e.context("NL80211_CMD_GET_INTERFACE", &mon.name))?
        {
            mon.mac = i.mac;
        }
        Ok(mon)
    }

    /// The monitor's interface index (what the data half binds its AF_PACKET socket to).
    pub fn ifindex(&self) -> u32 {
        self.ifindex
    }

    /// The monitor's interface name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its MAC address, as the kernel reports it.
    pub fn mac(&self) -> Option<[u8; 6]> {
        self.mac
    }

    /// Is it active (does it acknowledge unicast frames to its address)?
    pub fn is_active(&self) -> bool {
        self.flags.contains(MntrFlags::ACTIVE)
    }

    /// The monitor flags it was created with.
    pub fn flags(&self) -> MntrFlags {
        self.flags
    }

    /// The radio's wiphy.
    pub fn wiphy(&self) -> &Wiphy {
        &self.wiphy
    }

    fn set_channel_def(
        &mut self,
        c: sdmac_netlink::nl80211::ChannelDef,
        radio: &Radio,
    ) -> Result<()> {
        let req = SetWiphy { ifindex: Some(self.ifindex), channel: Some(c), ..Default::default() };
        let _admin = AdminGuard::raise();
        match self.sock.request(&req, |_| Ok(())) {
            Ok(()) => Ok(()),
            Err(NlError::Errno(e, _)) if e == libc::EBUSY => {
                let up: Vec<String> =
                    radio.interfaces_up().into_iter().filter(|n| *n != self.name).collect();
                Err(ControlError::Busy {
                    what: "channel",
                    why: format!(
                        "other interfaces of {} are up ({}): a monitor's channel can be set only while it is the radio's only interface up",
                        self.wiphy.name,
                        if up.is_empty() { "none found: is the monitor itself down?".into() } else { up.join(", ") }
                    ),
                })
            }
            Err(e) => Err(e.context("NL80211_CMD_SET_WIPHY (channel)", &self.name)),
        }
    }

    /// Sets the channel (frequency and width).
    pub fn set_channel(&mut self, ch: Channel) -> Result<()> {
        let c = decide::channel_def(&self.wiphy, ch)?;
        let radio = Radio::open(&self.name).unwrap_or_else(|_| Radio {
            asked: self.radio.clone(),
            wiphy: self.wiphy.clone(),
            interfaces: Vec::new(),
            address: None,
        });
        self.set_channel_def(c, &radio)
    }

    /// The channel the kernel reports for the monitor.
    pub fn channel(&mut self) -> Result<ChannelState> {
        let i = radio::get_interface(&mut self.sock, self.ifindex)
            .map_err(|e| e.context("NL80211_CMD_GET_INTERFACE", &self.name))?;
        match i.and_then(|i| i.freq.map(|f| (f, i))) {
            Some((f, i)) => Ok(ChannelState {
                freq_mhz: f,
                width: i.channel_width.and_then(|w| decide::width_of(f, w, i.center_freq1)),
                width_mhz: i.channel_width.map(sdmac_netlink::nl80211::chan_width::mhz).unwrap_or(20),
                center_freq1: i.center_freq1,
            }),
            None => Err(ControlError::NotSupported {
                what: "reading the channel",
                why: format!("the kernel reports no channel for {} (mac80211 knows a monitor's channel while monitors are the radio's only interfaces up)", self.name),
            }),
        }
    }

    /// Sets the TX power (the radio's: mac80211 takes no per-interface TX power on a
    /// monitor). mac80211 without channel contexts (hwsim with one channel) applies
    /// the new level at its next reconfiguration (channel change, an interface coming
    /// up), so [`MonitorInterface::tx_power_mbm`] may report the old level until then;
    /// [`MonitorOptions::tx_power`] sets it before the monitor comes up.
    pub fn set_tx_power(&mut self, p: TxPowerSetting) -> Result<()> {
        let tx = match p {
            TxPowerSetting::Auto => TxPower { setting: tx_power::AUTOMATIC, level_mbm: None },
            TxPowerSetting::Limited(l) => {
                TxPower { setting: tx_power::LIMITED, level_mbm: Some(l) }
            }
            TxPowerSetting::Fixed(l) => TxPower { setting: tx_power::FIXED, level_mbm: Some(l) },
        };
        let req =
            SetWiphy { wiphy: Some(self.wiphy.index), tx_power: Some(tx), ..Default::default() };
        self.set("TX power", "NL80211_CMD_SET_WIPHY (TX power)", &req)
    }

    /// The TX power the kernel reports for the monitor, in mBm.
    pub fn tx_power_mbm(&mut self) -> Result<i32> {
        let i = radio::get_interface(&mut self.sock, self.ifindex)
            .map_err(|e| e.context("NL80211_CMD_GET_INTERFACE", &self.name))?;
        i.and_then(|i| i.tx_power_mbm).ok_or_else(|| ControlError::NotSupported {
            what: "reading the TX power",
            why: format!("the driver reports no TX power for {}", self.name),
        })
    }

    /// Sets the coverage class (slot time and ACK timeout grow 3 µs per unit).
    pub fn set_coverage_class(&mut self, class: u8) -> Result<()> {
        let req = SetWiphy {
            wiphy: Some(self.wiphy.index),
            coverage_class: Some(class),
            ..Default::default()
        };
        self.set("coverage class", "NL80211_CMD_SET_WIPHY (coverage class)", &req)
    }

    /// The radio's coverage class.
    pub fn coverage_class(&mut self) -> Result<u8> {
        let w = radio::dump_wiphys(&mut self.sock, Some(self.wiphy.index))
            .map_err(|e| e.context("NL80211_CMD_GET_WIPHY", &self.name))?;
        w.first().and_then(|w| w.coverage_class).ok_or_else(|| ControlError::NotSupported {
            what: "reading the coverage class",
            why: format!("{} reports no coverage class", self.wiphy.name),
        })
    }

    /// Lets the monitor send at the legacy rates `rates_100kbps` (540 = 54 Mb/s) of the
    /// band of `freq_mhz` only (no HT or VHT rate). Frames injected with a radiotap
    /// rate are sent at that rate whatever the mask.
    pub fn set_fixed_bitrates(&mut self, freq_mhz: u32, rates_100kbps: &[u32]) -> Result<()> {
        let band = decide::band_of_freq(freq_mhz);
        let mask = decide::legacy_mask(&self.wiphy, band, rates_100kbps)?;
        let req = SetTxBitrateMask { ifindex: self.ifindex, bands: vec![mask] };
        match self.set("fixed bitrates", "NL80211_CMD_SET_TX_BITRATE_MASK", &req) {
            Err(ControlError::Kernel { errno, .. }) if errno == libc::EINVAL => {
                Err(ControlError::InvalidValue {
                    what: "fixed bitrates",
                    why: format!("the kernel refused this mask on {} (EINVAL)", self.name),
                })
            }
            r => r,
        }
    }

    /// Reading the bitrate mask back: not possible (nl80211 has no command that
    /// reports it), so always [`ControlError::NotSupported`].
    pub fn fixed_bitrates(&self) -> Result<Vec<u32>> {
        Err(ControlError::NotSupported {
            what: "reading the fixed bitrates",
            why: "nl80211 has no command that reports an interface's TX bitrate mask".into(),
        })
    }

    fn set(
        &mut self,
        what: &'static str,
        op: &'static str,
        req: &dyn sdmac_netlink::nl80211::Nl80211Message,
    ) -> Result<()> {
        let _admin = AdminGuard::raise();
        match self.sock.request(req, |_| Ok(())) {
            Ok(()) => Ok(()),
            Err(NlError::Errno(e, msg)) if e == libc::EOPNOTSUPP => {
                Err(ControlError::NotSupported {
                    what,
                    why: format!(
                        "{}'s driver refuses it (EOPNOTSUPP{})",
                        self.wiphy.name,
                        msg.map(|m| format!(": {m}")).unwrap_or_default()
                    ),
                })
            }
            Err(NlError::Errno(e, _)) if e == libc::EPERM => Err(ControlError::MissingCapability {
                name: self.name.clone(),
                what,
                caps: vec![caps::cap_name(CAP_NET_ADMIN)],
                binary: std::env::current_exe()
                    .map(|p| p.display().to_string())
                    .unwrap_or_else(|_| "BINARY".into()),
            }),
            Err(e) => Err(e.context(op, &self.name)),
        }
    }

    fn remove(&mut self) -> Result<()> {
        if self.removed {
            return Ok(());
        }
        self.removed = true;
        let _admin = AdminGuard::raise();
        match self.sock.request(&DelInterface { ifindex: self.ifindex }, |_| Ok(())) {
            Ok(()) => Ok(()),
            // already gone (deleted by someone else, or the module was removed)
            Err(NlError::Errno(e, _)) if e == libc::ENODEV => Ok(()),
            Err(e) => Err(e.context("NL80211_CMD_DEL_INTERFACE", &self.name)),
        }
    }

    /// Deletes the monitor interface, reporting a failure (drop deletes it too, but
    /// silently).
    pub fn close(mut self) -> Result<()> {
        self.remove()
    }
}

impl Drop for MonitorInterface {
    fn drop(&mut self) {
        let _ = self.remove();
    }
}
