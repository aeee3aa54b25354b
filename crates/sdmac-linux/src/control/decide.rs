//! Decisions made from a wiphy's capabilities alone, before the kernel is asked:
//! which monitor flags, whether a channel, width or bitrate exists. Pure functions,
//! tested on parsed wiphys.

use super::error::{ControlError, Result};
use super::radio::Wiphy;
use sdmac_netlink::nl80211::{
    band, chan_width, feature, iftype, BandRateMask, ChannelDef, MntrFlags,
};

/// Whether the monitor interface is to be active (acknowledge unicast frames to its
/// address).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Active {
    /// Active where the driver supports it.
    #[default]
    Auto,
    /// Active, or an error where the driver cannot.
    On,
    /// Never active.
    Off,
}

/// The monitor flags for a monitor interface on `w` (`name`: the interface or phy
/// the radio was opened by, for errors): `OTHER_BSS` and `CONTROL` (mac80211's
/// defaults) plus `ACTIVE` as `active` and the driver decide.
pub fn monitor_flags(name: &str, w: &Wiphy, active: Active) -> Result<MntrFlags> {
    if !w.iftypes.contains(iftype::MONITOR) {
        return Err(ControlError::NoMonitorMode { name: name.into(), phy: w.name.clone() });
    }
    let can = w.feature_flags & feature::ACTIVE_MONITOR != 0;
    let flags = MntrFlags::OTHER_BSS | MntrFlags::CONTROL;
    Ok(match (active, can) {
        (Active::Off, _) | (Active::Auto, false) => flags,
        (Active::On | Active::Auto, true) => flags | MntrFlags::ACTIVE,
        (Active::On, false) => {
            return Err(ControlError::NotSupported {
                what: "active monitor",
                why: format!(
                    "{}'s driver does not advertise NL80211_FEATURE_ACTIVE_MONITOR",
                    w.name
                ),
            })
        }
    })
}

/// A channel width.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Width {
    /// 20 MHz without HT.
    NoHt20,
    /// 20 MHz HT.
    Ht20,
    /// 40 MHz, secondary channel above.
    Ht40Plus,
    /// 40 MHz, secondary channel below.
    Ht40Minus,
    /// 80 MHz VHT.
    Vht80,
    /// 160 MHz VHT.
    Vht160,
}

impl Width {
    /// Width in MHz.
    pub fn mhz(self) -> u32 {
        match self {
            Width::NoHt20 | Width::Ht20 => 20,
            Width::Ht40Plus | Width::Ht40Minus => 40,
            Width::Vht80 => 80,
            Width::Vht160 => 160,
        }
    }

    /// The name used on the command line and in JSON (`20-noht`, `20`, `40+`, `40-`,
    /// `80`, `160`).
    pub fn name(self) -> &'static str {
        match self {
            Width::NoHt20 => "20-noht",
            Width::Ht20 => "20",
            Width::Ht40Plus => "40+",
            Width::Ht40Minus => "40-",
            Width::Vht80 => "80",
            Width::Vht160 => "160",
        }
    }

    /// Parses [`Width::name`].
    pub fn parse(s: &str) -> Option<Width> {
        Some(match s {
            "20-noht" | "noht" => Width::NoHt20,
            "20" => Width::Ht20,
            "40+" => Width::Ht40Plus,
            "40-" => Width::Ht40Minus,
            "80" => Width::Vht80,
            "160" => Width::Vht160,
            _ => return None,
        })
    }
}

/// A channel: primary frequency and width.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Channel {
    /// Primary channel in MHz.
    pub freq_mhz: u32,
    /// Width.
    pub width: Width,
}

const VHT80_CENTERS: [u32; 7] = [5210, 5290, 5530, 5610, 5690, 5775, 5855];
const VHT160_CENTERS: [u32; 3] = [5250, 5570, 5815];

fn channels_of(w: &Wiphy) -> String {
    let f: Vec<String> = w
        .bands
        .iter()
        .flat_map(|b| b.freqs.iter())
        .filter(|f| !f.disabled)
        .map(|f| f.mhz.to_string())
        .collect();
    f.join(", ")
}

/// The nl80211 channel definition of `ch` on `w`, or why it does not exist there.
pub fn channel_def(w: &Wiphy, ch: Channel) -> Result<ChannelDef> {
    let invalid = |why: String| ControlError::InvalidValue { what: "channel", why };
    let b = w.band_of(ch.freq_mhz).ok_or_else(|| {
        invalid(format!(
            "{} MHz is not a channel of {} (its channels: {} MHz)",
            ch.freq_mhz,
            w.name,
            channels_of(w)
        ))
    })?;
    if b.freq(ch.freq_mhz).is_some_and(|f| f.disabled) {
        return Err(invalid(format!(
            "{} MHz is disabled on {} (regulatory domain)",
            ch.freq_mhz, w.name
        )));
    }
    let need_ht = !matches!(ch.width, Width::NoHt20);
    let need_vht = matches!(ch.width, Width::Vht80 | Width::Vht160);
    if need_ht && b.ht_capa.is_none() {
        return Err(ControlError::NotSupported {
            what: "channel width",
            why: format!(
                "{} has no HT in the band of {} MHz, so only 20-noht",
                w.name, ch.freq_mhz
            ),
        });
    }
    if need_vht && b.vht_capa.is_none() {
        return Err(ControlError::NotSupported {
            what: "channel width",
            why: format!(
                "{} has no VHT in the band of {} MHz (80 and 160 MHz need it)",
                w.name, ch.freq_mhz
            ),
        });
    }
    let f = ch.freq_mhz;
    let has = |mhz: u32| b.freq(mhz).is_some_and(|x| !x.disabled);
    let centered = |centers: &[u32], half: u32| {
        centers.iter().copied().find(|&c| f + half > c && f < c + half)
    };
    let (width, center) = match ch.width {
        Width::NoHt20 => (chan_width::W20_NOHT, f),
        Width::Ht20 => (chan_width::W20, f),
        Width::Ht40Plus if has(f + 20) => (chan_width::W40, f + 10),
        Width::Ht40Minus if f > 20 && has(f - 20) => (chan_width::W40, f - 10),
        Width::Ht40Plus | Width::Ht40Minus => {
            return Err(invalid(format!(
                "{} MHz has no secondary channel {} on {}",
                f,
                ch.width.name(),
                w.name
            )))
        }
        Width::Vht80 => match centered(&VHT80_CENTERS, 40) {
            Some(c) => (chan_width::W80, c),
            None => return Err(invalid(format!("{f} MHz lies in no 80 MHz channel"))),
        },
        Width::Vht160 => match centered(&VHT160_CENTERS, 80) {
            Some(c) => (chan_width::W160, c),
            None => return Err(invalid(format!("{f} MHz lies in no 160 MHz channel"))),
        },
    };
    Ok(ChannelDef {
        freq: f,
        width: Some(width),
        center_freq1: Some(center),
        center_freq2: None,
        channel_type: None,
    })
}

/// The width the kernel reports (`CHANNEL_WIDTH`, `CENTER_FREQ1`) for primary `freq`.
pub fn width_of(freq: u32, width: u32, center_freq1: Option<u32>) -> Option<Width> {
    Some(match width {
        chan_width::W20_NOHT => Width::NoHt20,
        chan_width::W20 => Width::Ht20,
        chan_width::W40 => match center_freq1 {
            Some(c) if c > freq => Width::Ht40Plus,
            Some(_) => Width::Ht40Minus,
            None => return None,
        },
        chan_width::W80 => Width::Vht80,
        chan_width::W160 => Width::Vht160,
        _ => return None,
    })
}

/// The nl80211 band of a channel frequency (2.4, 5 or 6 GHz).
pub fn band_of_freq(mhz: u32) -> u16 {
    match mhz {
        0..=3000 => band::GHZ2,
        5925..=7125 => band::GHZ6,
        _ => band::GHZ5,
    }
}

/// A TX bitrate mask allowing only the legacy rates `rates_100kbps` (units of
/// 100 kb/s: 540 = 54 Mb/s) in band `band_id` of `w`, or why not.
pub fn legacy_mask(w: &Wiphy, band_id: u16, rates_100kbps: &[u32]) -> Result<BandRateMask> {
    let invalid = |why: String| ControlError::InvalidValue { what: "fixed bitrates", why };
    let b = w
        .bands
        .iter()
        .find(|b| b.band == band_id)
        .ok_or_else(|| invalid(format!("{} has no band {band_id}", w.name)))?;
    if rates_100kbps.is_empty() {
        return Err(invalid("no bitrate given".into()));
    }
    let mut out = Vec::new();
    for &r in rates_100kbps {
        if !b.has_rate(r) || r % 5 != 0 || r / 5 > u8::MAX as u32 {
            let have: Vec<String> = b.rates.iter().map(|x| mbps(x.rate_100kbps)).collect();
            return Err(invalid(format!(
                "{} Mb/s is not a bitrate of {}'s band {band_id} (it has {} Mb/s)",
                mbps(r),
                w.name,
                have.join(", ")
            )));
        }
        out.push((r / 5) as u8);
    }
    // HT and VHT are sent (empty) only where the band has them: nl80211 refuses a
    // VHT mask for a band without VHT with EINVAL.
    let mut m = BandRateMask::legacy_only(band_id, out);
    if b.ht_capa.is_none() {
        m.ht = None;
    }
    if b.vht_capa.is_none() {
        m.vht = None;
    }
    Ok(m)
}

fn mbps(r100k: u32) -> String {
    if r100k % 10 == 0 {
        (r100k / 10).to_string()
    } else {
        format!("{}.{}", r100k / 10, r100k % 10)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sdmac_netlink::nl80211::{BandInfo, Bitrate, FreqInfo, IftypeSet};

    fn wiphy(iftypes: u32, features: u32) -> Wiphy {
        let freqs = |l: &[u32]| {
            l.iter().map(|&mhz| FreqInfo { mhz, ..Default::default() }).collect::<Vec<_>>()
        };
        let rates = |l: &[u32]| {
            l.iter()
                .map(|&r| Bitrate { rate_100kbps: r, short_preamble: false })
                .collect::<Vec<_>>()
        };
        Wiphy {
            index: 3,
            name: "phy3".into(),
            iftypes: IftypeSet(iftypes),
            feature_flags: features,
            bands: vec![
                BandInfo {
                    band: 0,
                    freqs: freqs(&[
                        2412, 2417, 2422, 2427, 2432, 2437, 2442, 2447, 2452, 2457, 2462, 2484,
                    ]),
                    rates: rates(&[10, 20, 55, 110, 60, 540]),
                    ht_capa: Some(0x17e),
                    vht_capa: None,
                },
                BandInfo {
                    band: 1,
                    freqs: freqs(&[5180, 5200, 5220, 5240]),
                    rates: rates(&[60, 540]),
                    ht_capa: None,
                    vht_capa: None,
                },
            ],
            ..Default::default()
        }
    }

    #[test]
    fn a_driver_without_monitor_mode_is_refused_by_name() {
        let w = wiphy((1 << iftype::STATION) | (1 << iftype::AP), feature::ACTIVE_MONITOR);
        let e = monitor_flags("wlan3", &w, Active::Auto).unwrap_err();
        assert!(matches!(e, ControlError::NoMonitorMode { .. }));
        assert_eq!(
            e.to_string(),
            "wlan3 (phy3): the driver does not support monitor mode (no monitor among its interface types), which the linux backend needs"
        );
    }

    #[test]
    fn active_where_the_driver_advertises_it() {
        let mon = (1 << iftype::STATION) | (1 << iftype::MONITOR);
        let f = monitor_flags("wlan3", &wiphy(mon, feature::ACTIVE_MONITOR), Active::Auto).unwrap();
        assert!(f.contains(MntrFlags::ACTIVE | MntrFlags::OTHER_BSS | MntrFlags::CONTROL));
        let f = monitor_flags("wlan3", &wiphy(mon, 0), Active::Auto).unwrap();
        assert!(!f.contains(MntrFlags::ACTIVE));
        let f = monitor_flags("wlan3", &wiphy(mon, feature::ACTIVE_MONITOR), Active::Off).unwrap();
        assert!(!f.contains(MntrFlags::ACTIVE));
        assert!(matches!(
            monitor_flags("wlan3", &wiphy(mon, 0), Active::On),
            Err(ControlError::NotSupported { what: "active monitor", .. })
        ));
    }

    #[test]
    fn channels_and_widths() {
        let w = wiphy(1 << iftype::MONITOR, 0);
        let d = channel_def(&w, Channel { freq_mhz: 2437, width: Width::NoHt20 }).unwrap();
        assert_eq!(
            (d.freq, d.width, d.center_freq1),
            (2437, Some(chan_width::W20_NOHT), Some(2437))
        );
        let d = channel_def(&w, Channel { freq_mhz: 2437, width: Width::Ht40Plus }).unwrap();
        assert_eq!((d.width, d.center_freq1), (Some(chan_width::W40), Some(2447)));
        assert_eq!(width_of(2437, chan_width::W40, Some(2447)), Some(Width::Ht40Plus));
        assert_eq!(width_of(2437, chan_width::W40, Some(2427)), Some(Width::Ht40Minus));
        // no secondary channel below 2412
        assert!(matches!(
            channel_def(&w, Channel { freq_mhz: 2412, width: Width::Ht40Minus }),
            Err(ControlError::InvalidValue { .. })
        ));
        assert!(matches!(
            channel_def(&w, Channel { freq_mhz: 2462, width: Width::Ht40Plus }),
            Err(ControlError::InvalidValue { .. })
        ));
        // no HT on this 5 GHz band, no VHT anywhere
        assert!(matches!(
            channel_def(&w, Channel { freq_mhz: 5180, width: Width::Ht20 }),
            Err(ControlError::NotSupported { .. })
        ));
        assert!(matches!(
            channel_def(&w, Channel { freq_mhz: 2412, width: Width::Vht80 }),
            Err(ControlError::NotSupported { .. })
        ));
        let e = channel_def(&w, Channel { freq_mhz: 2400, width: Width::NoHt20 })
            .unwrap_err()
            .to_string();
        assert!(e.contains("2400 MHz is not a channel of phy3 (its channels: 2412, 2417"), "{e}");
        assert_eq!(Width::parse("40-"), Some(Width::Ht40Minus));
        assert_eq!(band_of_freq(5180), band::GHZ5);
    }

    #[test]
    fn legacy_rates_must_be_the_bands() {
        let w = wiphy(1 << iftype::MONITOR, 0);
        let m = legacy_mask(&w, 0, &[540, 55]).unwrap();
        assert_eq!(m.legacy, Some(vec![108, 11]));
        // band 0 has HT (sent empty: no HT rate allowed) but no VHT (not sent)
        assert_eq!((m.ht, m.vht), (Some(vec![]), None));
        let m = legacy_mask(&w, 1, &[60]).unwrap();
        assert_eq!((m.ht, m.vht), (None, None));
        let e = legacy_mask(&w, 1, &[10]).unwrap_err().to_string();
        assert_eq!(
            e,
            "fixed bitrates: 1 Mb/s is not a bitrate of phy3's band 1 (it has 6, 54 Mb/s)"
        );
        assert!(legacy_mask(&w, 2, &[60]).is_err());
        assert!(legacy_mask(&w, 0, &[]).is_err());
    }
}
