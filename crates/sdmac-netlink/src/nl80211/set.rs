//! Settings: `SET_WIPHY` (channel, TX power, coverage class, retry limits) and
//! `SET_TX_BITRATE_MASK` (which rates an interface may send at, per band).

use super::consts::{attr, cmd, list_entry_name, txrate, txrate_name};
use super::{genl_of, put_u32, put_u8, Enc, Nl80211Message};
use crate::nl::NlPacket;
use crate::{Error, Result};

/// A channel: primary frequency, width ([`super::chan_width`]) and centre
/// frequencies. With `ifindex` in [`SetWiphy`] it sets that interface's channel
/// (a monitor's), else the wiphy's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ChannelDef {
    /// Primary channel in MHz (`WIPHY_FREQ`).
    pub freq: u32,
    /// `CHANNEL_WIDTH`.
    pub width: Option<u32>,
    /// `CENTER_FREQ1` (required by the kernel for widths of 40 MHz and more).
    pub center_freq1: Option<u32>,
    /// `CENTER_FREQ2` (80+80 only).
    pub center_freq2: Option<u32>,
    /// `WIPHY_CHANNEL_TYPE`, the older way to say 20 MHz / HT20 / HT40±.
    pub channel_type: Option<u32>,
}

/// A TX power setting ([`super::tx_power`]) and level in mBm (dBm × 100; not sent
/// with `AUTOMATIC`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TxPower {
    /// `WIPHY_TX_POWER_SETTING`.
    pub setting: u32,
    /// `WIPHY_TX_POWER_LEVEL` in mBm.
    pub level_mbm: Option<i32>,
}

/// A `SET_WIPHY` request. Every setting is optional; the kernel applies those given.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SetWiphy {
    /// The wiphy (for wiphy-wide settings).
    pub wiphy: Option<u32>,
    /// An interface of it (for a channel: that interface's channel).
    pub ifindex: Option<u32>,
    /// Channel.
    pub channel: Option<ChannelDef>,
    /// TX power.
    pub tx_power: Option<TxPower>,
    /// Coverage class (slot time and ACK timeout grow by 3 µs per unit).
    pub coverage_class: Option<u8>,
    /// Short retry limit.
    pub retry_short: Option<u8>,
    /// Long retry limit.
    pub retry_long: Option<u8>,
}

impl SetWiphy {
    /// Parses a `SET_WIPHY` request.
    pub fn parse(packet: &NlPacket<'_>) -> Result<SetWiphy> {
        let m = genl_of(packet, &[cmd::SET_WIPHY], "genlmsghdr cmd of NL80211_CMD_SET_WIPHY")?;
        let mut r = SetWiphy::default();
        let mut ch = ChannelDef::default();
        let (mut freq, mut any_ch) = (None, false);
        let (mut setting, mut level) = (None, None);
        for a in m.attrs(super::consts::attr_name) {
            let a = a?;
            match a.kind() {
                attr::WIPHY => r.wiphy = Some(a.u32()?),
                attr::IFINDEX => r.ifindex = Some(a.u32()?),
                attr::WIPHY_FREQ => freq = Some(a.u32()?),
                attr::CHANNEL_WIDTH => (ch.width, any_ch) = (Some(a.u32()?), true),
                attr::CENTER_FREQ1 => (ch.center_freq1, any_ch) = (Some(a.u32()?), true),
                attr::CENTER_FREQ2 => (ch.center_freq2, any_ch) = (Some(a.u32()?), true),
                attr::WIPHY_CHANNEL_TYPE => (ch.channel_type, any_ch) = (Some(a.u32()?), true),
                attr::WIPHY_TX_POWER_SETTING => setting = Some(a.u32()?),
                attr::WIPHY_TX_POWER_LEVEL => level = Some(a.i32()?),
                attr::WIPHY_COVERAGE_CLASS => r.coverage_class = Some(a.u8()?),
                attr::WIPHY_RETRY_SHORT => r.retry_short = Some(a.u8()?),
                attr::WIPHY_RETRY_LONG => r.retry_long = Some(a.u8()?),
                _ => {}
            }
        }
        match freq {
            Some(f) => r.channel = Some(ChannelDef { freq: f, ..ch }),
            None if any_ch => {
                return Err(Error::MissingAttribute {
                    msg: "NL80211_CMD_SET_WIPHY with a channel width or type",
                    attr: attr::WIPHY_FREQ,
                    name: "NL80211_ATTR_WIPHY_FREQ",
                })
            }
            None => {}
        }
        match (setting, level) {
            (Some(setting), level_mbm) => r.tx_power = Some(TxPower { setting, level_mbm }),
            (None, Some(_)) => {
                return Err(Error::MissingAttribute {
                    msg: "NL80211_CMD_SET_WIPHY with a TX power level",
                    attr: attr::WIPHY_TX_POWER_SETTING,
                    name: "NL80211_ATTR_WIPHY_TX_POWER_SETTING",
                })
            }
            (None, None) => {}
        }
        Ok(r)
    }
}

impl Nl80211Message for SetWiphy {
    fn cmd(&self) -> u8 {
        cmd::SET_WIPHY
    }

    fn write_attrs(&self, w: &mut dyn Enc) -> Result<()> {
        if let Some(x) = self.wiphy {
            put_u32(w, attr::WIPHY, x)?;
        }
        if let Some(x) = self.ifindex {
            put_u32(w, attr::IFINDEX, x)?;
        }
        if let Some(c) = &self.channel {
            put_u32(w, attr::WIPHY_FREQ, c.freq)?;
            for (v, ty) in [
                (c.channel_type, attr::WIPHY_CHANNEL_TYPE),
                (c.width, attr::CHANNEL_WIDTH),
                (c.center_freq1, attr::CENTER_FREQ1),
                (c.center_freq2, attr::CENTER_FREQ2),
            ] {
                if let Some(v) = v {
                    put_u32(w, ty, v)?;
                }
            }
        }
        if let Some(p) = &self.tx_power {
            put_u32(w, attr::WIPHY_TX_POWER_SETTING, p.setting)?;
            if let Some(l) = p.level_mbm {
                put_u32(w, attr::WIPHY_TX_POWER_LEVEL, l as u32)?;
            }
        }
        for (v, ty) in [
            (self.retry_short, attr::WIPHY_RETRY_SHORT),
            (self.retry_long, attr::WIPHY_RETRY_LONG),
            (self.coverage_class, attr::WIPHY_COVERAGE_CLASS),
        ] {
            if let Some(v) = v {
                put_u8(w, ty, v)?;
            }
        }
        Ok(())
    }
}

/// The rates allowed in one band. A kind left `None` is not sent and the kernel
/// allows all of it; `Some(empty)` allows none of that kind.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct BandRateMask {
    /// The band ([`super::band`]).
    pub band: u16,
    /// Legacy rates in units of 500 kb/s (12 = 6 Mb/s, 108 = 54 Mb/s).
    pub legacy: Option<Vec<u8>>,
    /// HT MCS indices.
    pub ht: Option<Vec<u8>>,
    /// VHT MCS bitmaps, one per number of spatial streams (bit n: MCS n).
    pub vht: Option<[u16; 8]>,
    /// Guard interval (0 auto, 1 short, 2 long).
    pub gi: Option<u8>,
}

impl BandRateMask {
    /// Only the legacy rates `rates_500kbps` (HT and VHT sent empty, so that none of
    /// them remains allowed).
    pub fn legacy_only(band: u16, rates_500kbps: Vec<u8>) -> BandRateMask {
        BandRateMask {
            band,
            legacy: Some(rates_500kbps),
            ht: Some(Vec::new()),
            vht: Some([0; 8]),
            gi: None,
        }
    }
}

/// A `SET_TX_BITRATE_MASK` request.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SetTxBitrateMask {
    /// The interface.
    pub ifindex: u32,
    /// The bands it restricts (bands not listed allow every rate).
    pub bands: Vec<BandRateMask>,
}

impl SetTxBitrateMask {
    /// Parses a `SET_TX_BITRATE_MASK` request (`IFINDEX` required).
    pub fn parse(packet: &NlPacket<'_>) -> Result<SetTxBitrateMask> {
        let m = genl_of(
            packet,
            &[cmd::SET_TX_BITRATE_MASK],
            "genlmsghdr cmd of NL80211_CMD_SET_TX_BITRATE_MASK",
        )?;
        let mut r = SetTxBitrateMask::default();
        let mut ifindex = None;
        for a in m.attrs(super::consts::attr_name) {
            let a = a?;
            match a.kind() {
                attr::IFINDEX => ifindex = Some(a.u32()?),
                attr::TX_RATES => {
                    for b in a.nested(list_entry_name) {
                        let b = b?;
                        let mut mask = BandRateMask { band: b.kind(), ..Default::default() };
                        for x in b.nested(txrate_name) {
                            let x = x?;
                            match x.kind() {
                                txrate::LEGACY => mask.legacy = Some(x.payload().to_vec()),
                                txrate::HT => mask.ht = Some(x.payload().to_vec()),
                                txrate::VHT => {
                                    let p: [u8; 16] = x.payload().try_into().map_err(|_| {
                                        x.error("expected 8 u16 MCS bitmaps (16 bytes)")
                                    })?;
                                    mask.vht = Some(core::array::from_fn(|i| {
                                        u16::from_ne_bytes([p[2 * i], p[2 * i + 1]])
                                    }));
                                }
                                txrate::GI => mask.gi = Some(x.u8()?),
                                _ => {}
                            }
                        }
                        r.bands.push(mask);
                    }
                }
                _ => {}
            }
        }
        r.ifindex =
            ifindex.ok_or(super::missing("NL80211_CMD_SET_TX_BITRATE_MASK", attr::IFINDEX))?;
        Ok(r)
    }
}

impl Nl80211Message for SetTxBitrateMask {
    fn cmd(&self) -> u8 {
        cmd::SET_TX_BITRATE_MASK
    }

    fn write_attrs(&self, w: &mut dyn Enc) -> Result<()> {
        put_u32(w, attr::IFINDEX, self.ifindex)?;
        let t = w.begin(attr::TX_RATES)?;
        for b in &self.bands {
            let bt = w.begin(b.band)?;
            if let Some(l) = &b.legacy {
                w.put(txrate::LEGACY, l)?;
            }
            if let Some(h) = &b.ht {
                w.put(txrate::HT, h)?;
            }
            if let Some(v) = &b.vht {
                let mut p = [0u8; 16];
                for (o, x) in p.chunks_exact_mut(2).zip(v) {
                    o.copy_from_slice(&x.to_ne_bytes());
                }
                w.put(txrate::VHT, &p)?;
            }
            if let Some(g) = b.gi {
                put_u8(w, txrate::GI, g)?;
            }
            w.end(bt)?;
        }
        w.end(t)
    }
}
