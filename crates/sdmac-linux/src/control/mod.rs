//! The control half of the `linux` backend: a radio opened by interface or phy name
//! ([`Radio::open`]), its monitor interface ([`MonitorInterface`]: created active
//! where the driver supports it, removed on close, on drop and on every error path),
//! and its settings through nl80211 — channel, TX power, fixed legacy bitrates,
//! coverage class — each `get` answering what the kernel reports, or
//! [`ControlError::NotSupported`] where it cannot.
//!
//! Privileges ([`caps`]): opening a radio needs none; creating the monitor needs
//! `CAP_NET_ADMIN`, the data half's packet socket `CAP_NET_RAW`. Both are checked
//! before anything is tried ([`caps::require`]) and lowered after
//! ([`caps::drop_after_open`]).
//!
//! For the data half: bind the AF_PACKET socket to [`MonitorInterface::ifindex`]
//! (the interface is up when `create` returns); the radio's address (what its
//! frames are sent from and what an active monitor acknowledges) is
//! [`MonitorInterface::mac`].

pub mod caps;
mod decide;
mod error;
mod monitor;
mod netdev;
mod nlsock;
mod radio;

pub use decide::{
    band_of_freq, channel_def, legacy_mask, monitor_flags, width_of, Active, Channel, Width,
};
pub use error::{ControlError, Result};
pub use monitor::{ChannelState, MonitorInterface, MonitorOptions, TxPowerSetting};
pub use netdev::{index_of, is_up, name_of};
pub use radio::{Iface, Radio, Wiphy};
