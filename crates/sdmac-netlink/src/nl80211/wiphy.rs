//! `GET_WIPHY` requests and the wiphy descriptions (`NEW_WIPHY`) that answer them.
//!
//! With `SPLIT_WIPHY_DUMP` (what current kernels need to list every band and
//! channel) one wiphy comes as several messages, each with its index and name and a
//! part of the rest; a band may be spread over several messages, a few channels at a
//! time. [`WiphyInfo::merge`] puts the parts back together.

use super::consts::{
    attr, band_attr, band_attr_name, band_name, bitrate_attr, bitrate_attr_name, cmd, feature,
    flag_name, freq_attr, freq_attr_name, iftype, list_entry_name,
};
use super::{genl_of, missing, put_flag, put_u16, put_u32, put_u8, Enc, Nl80211Message};
use crate::attr::Attr;
use crate::nl::NlPacket;
use crate::Result;

/// A set of interface types (bit n = `NL80211_IFTYPE` n; types ≥ 32 are not kept).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct IftypeSet(pub u32);

impl IftypeSet {
    /// Does the set hold interface type `t`?
    pub fn contains(self, t: u32) -> bool {
        t < 32 && self.0 & (1 << t) != 0
    }

    /// Adds interface type `t` (ignored when ≥ 32).
    pub fn insert(&mut self, t: u32) {
        if t < 32 {
            self.0 |= 1 << t;
        }
    }

    /// The interface types in the set, in ascending order.
    pub fn iter(self) -> impl Iterator<Item = u32> {
        (0..32).filter(move |t| self.0 & (1 << t) != 0)
    }

    /// Nothing in the set?
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
}

pub(crate) fn parse_flag_set(a: &Attr<'_>) -> Result<u32> {
    let mut set = 0u32;
    for f in a.nested(flag_name) {
        let k = f?.kind();
        if k < 32 {
            set |= 1 << k;
        }
    }
    Ok(set)
}

pub(crate) fn write_flag_set(w: &mut dyn Enc, ty: u16, set: u32) -> Result<()> {
    let t = w.begin(ty)?;
    for k in 0..32u16 {
        if set & (1 << k) != 0 {
            put_flag(w, k)?;
        }
    }
    w.end(t)
}

/// A `GET_WIPHY` request. Send it with `DUMP` to list every wiphy (or the one named
/// by `wiphy` / `ifindex`, which filter the dump); `split` asks for the split format.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GetWiphy {
    /// Only this wiphy.
    pub wiphy: Option<u32>,
    /// Only the wiphy of this interface.
    pub ifindex: Option<u32>,
    /// `SPLIT_WIPHY_DUMP`: every band, channel and command, over several messages.
    pub split: bool,
}

impl GetWiphy {
    /// Parses a `GET_WIPHY` request.
    pub fn parse(packet: &NlPacket<'_>) -> Result<GetWiphy> {
        let m = genl_of(packet, &[cmd::GET_WIPHY], "genlmsghdr cmd of NL80211_CMD_GET_WIPHY")?;
        let mut r = GetWiphy::default();
        for a in m.attrs(super::consts::attr_name) {
            let a = a?;
            match a.kind() {
                attr::WIPHY => r.wiphy = Some(a.u32()?),
                attr::IFINDEX => r.ifindex = Some(a.u32()?),
                attr::SPLIT_WIPHY_DUMP => r.split = true,
                _ => {}
            }
        }
        Ok(r)
    }
}

impl Nl80211Message for GetWiphy {
    fn cmd(&self) -> u8 {
        cmd::GET_WIPHY
    }

    fn write_attrs(&self, w: &mut dyn Enc) -> Result<()> {
        if let Some(x) = self.wiphy {
            put_u32(w, attr::WIPHY, x)?;
        }
        if let Some(x) = self.ifindex {
            put_u32(w, attr::IFINDEX, x)?;
        }
        if self.split {
            put_flag(w, attr::SPLIT_WIPHY_DUMP)?;
        }
        Ok(())
    }
}

/// A channel of a band.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FreqInfo {
    /// Centre frequency in MHz.
    pub mhz: u32,
    /// Not usable here (regulatory domain or hardware).
    pub disabled: bool,
    /// No initiating radiation (passive only).
    pub no_ir: bool,
    /// Radar detection required.
    pub radar: bool,
    /// Highest TX power allowed, in mBm (dBm × 100).
    pub max_tx_power_mbm: Option<u32>,
}

/// A legacy bitrate of a band.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Bitrate {
    /// Rate in units of 100 kb/s (60 = 6 Mb/s).
    pub rate_100kbps: u32,
    /// Short preamble supported (2.4 GHz).
    pub short_preamble: bool,
}

/// A band of a wiphy: its channels, bitrates and HT/VHT capabilities.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BandInfo {
    /// The band ([`super::band`]).
    pub band: u16,
    /// Channels.
    pub freqs: Vec<FreqInfo>,
    /// Legacy bitrates.
    pub rates: Vec<Bitrate>,
    /// HT capability information (present when the band supports HT).
    pub ht_capa: Option<u16>,
    /// VHT capability information (present when the band supports VHT).
    pub vht_capa: Option<u32>,
}

impl BandInfo {
    fn parse(a: &Attr<'_>) -> Result<BandInfo> {
        let mut b = BandInfo { band: a.kind(), ..Default::default() };
        for x in a.nested(band_attr_name) {
            let x = x?;
            match x.kind() {
                band_attr::FREQS => {
                    for e in x.nested(list_entry_name) {
                        let e = e?;
                        let mut f = FreqInfo::default();
                        let mut mhz = None;
                        for y in e.nested(freq_attr_name) {
                            let y = y?;
                            match y.kind() {
                                freq_attr::FREQ => mhz = Some(y.u32()?),
                                freq_attr::DISABLED => f.disabled = true,
                                freq_attr::NO_IR => f.no_ir = true,
                                freq_attr::RADAR => f.radar = true,
                                freq_attr::MAX_TX_POWER => f.max_tx_power_mbm = Some(y.u32()?),
                                _ => {}
                            }
                        }
                        f.mhz = mhz
                            .ok_or_else(|| e.error("channel lacks NL80211_FREQUENCY_ATTR_FREQ"))?;
                        b.freqs.push(f);
                    }
                }
                band_attr::RATES => {
                    for e in x.nested(list_entry_name) {
                        let e = e?;
                        let mut r = Bitrate::default();
                        let mut rate = None;
                        for y in e.nested(bitrate_attr_name) {
                            let y = y?;
                            match y.kind() {
                                bitrate_attr::RATE => rate = Some(y.u32()?),
                                bitrate_attr::SHORT_PREAMBLE_2GHZ => r.short_preamble = true,
                                _ => {}
                            }
                        }
                        r.rate_100kbps =
                            rate.ok_or_else(|| e.error("bitrate lacks NL80211_BITRATE_ATTR_RATE"))?;
                        b.rates.push(r);
                    }
                }
                band_attr::HT_CAPA => b.ht_capa = Some(x.u16()?),
                band_attr::VHT_CAPA => b.vht_capa = Some(x.u32()?),
                _ => {}
            }
        }
        Ok(b)
    }

    fn write(&self, w: &mut dyn Enc) -> Result<()> {
        let t = w.begin(self.band)?;
        if !self.freqs.is_empty() {
            let l = w.begin(band_attr::FREQS)?;
            for (i, f) in self.freqs.iter().enumerate() {
                let e = w.begin(i as u16)?;
                put_u32(w, freq_attr::FREQ, f.mhz)?;
                for (on, ty) in [
                    (f.disabled, freq_attr::DISABLED),
                    (f.no_ir, freq_attr::NO_IR),
                    (f.radar, freq_attr::RADAR),
                ] {
                    if on {
                        put_flag(w, ty)?;
                    }
                }
                if let Some(p) = f.max_tx_power_mbm {
                    put_u32(w, freq_attr::MAX_TX_POWER, p)?;
                }
                w.end(e)?;
            }
            w.end(l)?;
        }
        if !self.rates.is_empty() {
            let l = w.begin(band_attr::RATES)?;
            for (i, r) in self.rates.iter().enumerate() {
                let e = w.begin(i as u16)?;
                put_u32(w, bitrate_attr::RATE, r.rate_100kbps)?;
                if r.short_preamble {
                    put_flag(w, bitrate_attr::SHORT_PREAMBLE_2GHZ)?;
                }
                w.end(e)?;
            }
            w.end(l)?;
        }
        if let Some(c) = self.ht_capa {
            put_u16(w, band_attr::HT_CAPA, c)?;
        }
        if let Some(c) = self.vht_capa {
            put_u32(w, band_attr::VHT_CAPA, c)?;
        }
        w.end(t)
    }

    /// The channel at `mhz`.
    pub fn freq(&self, mhz: u32) -> Option<&FreqInfo> {
        self.freqs.iter().find(|f| f.mhz == mhz)
    }

    /// Does the band have the legacy bitrate `rate_100kbps`?
    pub fn has_rate(&self, rate_100kbps: u32) -> bool {
        self.rates.iter().any(|r| r.rate_100kbps == rate_100kbps)
    }
}

/// A wiphy's description (`NEW_WIPHY`, the reply to `GET_WIPHY`), or one part of it
/// in a split dump. Absent attributes are `None` or empty.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WiphyInfo<'a> {
    /// Wiphy index (required).
    pub wiphy: u32,
    /// Wiphy name (`phy0`).
    pub name: Option<&'a str>,
    /// Configuration generation.
    pub generation: Option<u32>,
    /// Interface types that can be created.
    pub iftypes: IftypeSet,
    /// Interface types handled in software only (e.g. monitor on mac80211).
    pub software_iftypes: IftypeSet,
    /// `FEATURE_FLAGS` ([`super::feature`]).
    pub feature_flags: Option<u32>,
    /// `EXT_FEATURES`: bit n of the array is extended feature n.
    pub ext_features: Option<&'a [u8]>,
    /// Bands (in a split dump: parts of bands).
    pub bands: Vec<BandInfo>,
    /// Supported commands.
    pub commands: Vec<u32>,
    /// Coverage class (0: up to 450 m of air propagation time is assumed).
    pub coverage_class: Option<u8>,
    /// Short retry limit.
    pub retry_short: Option<u8>,
    /// Long retry limit.
    pub retry_long: Option<u8>,
    /// Fragmentation threshold (u32::MAX: off).
    pub frag_threshold: Option<u32>,
    /// RTS threshold (u32::MAX: off).
    pub rts_threshold: Option<u32>,
}

impl<'a> WiphyInfo<'a> {
    /// Parses a `NEW_WIPHY` message (`WIPHY` is required).
    pub fn parse(packet: &NlPacket<'a>) -> Result<WiphyInfo<'a>> {
        let m = genl_of(packet, &[cmd::NEW_WIPHY], "genlmsghdr cmd of NL80211_CMD_NEW_WIPHY")?;
        let mut r = WiphyInfo::default();
        let mut wiphy = None;
        for a in m.attrs(super::consts::attr_name) {
            let a = a?;
            match a.kind() {
                attr::WIPHY => wiphy = Some(a.u32()?),
                attr::WIPHY_NAME => r.name = Some(a.str()?),
                attr::GENERATION => r.generation = Some(a.u32()?),
                attr::SUPPORTED_IFTYPES => r.iftypes.0 |= parse_flag_set(&a)?,
                attr::SOFTWARE_IFTYPES => r.software_iftypes.0 |= parse_flag_set(&a)?,
                attr::FEATURE_FLAGS => r.feature_flags = Some(a.u32()?),
                attr::EXT_FEATURES => r.ext_features = Some(a.payload()),
                attr::WIPHY_BANDS => {
                    for b in a.nested(band_name) {
                        r.bands.push(BandInfo::parse(&b?)?);
                    }
                }
                attr::SUPPORTED_COMMANDS => {
                    for c in a.nested(list_entry_name) {
                        r.commands.push(c?.u32()?);
                    }
                }
                attr::WIPHY_COVERAGE_CLASS => r.coverage_class = Some(a.u8()?),
                attr::WIPHY_RETRY_SHORT => r.retry_short = Some(a.u8()?),
                attr::WIPHY_RETRY_LONG => r.retry_long = Some(a.u8()?),
                attr::WIPHY_FRAG_THRESHOLD => r.frag_threshold = Some(a.u32()?),
                attr::WIPHY_RTS_THRESHOLD => r.rts_threshold = Some(a.u32()?),
                _ => {}
            }
        }
        r.wiphy = wiphy.ok_or(missing("NL80211_CMD_NEW_WIPHY", attr::WIPHY))?;
        Ok(r)
    }

    /// Adds the next part of the same wiphy's split dump: values it carries replace
    /// these, interface types and commands add up, and a band already seen gets the
    /// part's channels and bitrates appended.
    pub fn merge(&mut self, part: WiphyInfo<'a>) {
        self.name = part.name.or(self.name);
        self.generation = part.generation.or(self.generation);
        self.iftypes.0 |= part.iftypes.0;
        self.software_iftypes.0 |= part.software_iftypes.0;
        self.feature_flags = part.feature_flags.or(self.feature_flags);
        self.ext_features = part.ext_features.or(self.ext_features);
        for b in part.bands {
            match self.bands.iter_mut().find(|x| x.band == b.band) {
                Some(x) => {
                    x.freqs.extend(b.freqs);
                    x.rates.extend(b.rates);
                    x.ht_capa = b.ht_capa.or(x.ht_capa);
                    x.vht_capa = b.vht_capa.or(x.vht_capa);
                }
                None => self.bands.push(b),
            }
        }
        self.commands.extend(part.commands);
        self.coverage_class = part.coverage_class.or(self.coverage_class);
        self.retry_short = part.retry_short.or(self.retry_short);
        self.retry_long = part.retry_long.or(self.retry_long);
        self.frag_threshold = part.frag_threshold.or(self.frag_threshold);
        self.rts_threshold = part.rts_threshold.or(self.rts_threshold);
    }

    /// Can a monitor interface be created?
    pub fn supports_monitor(&self) -> bool {
        self.iftypes.contains(iftype::MONITOR)
    }

    /// Does the driver support active monitor interfaces (`FEATURE_ACTIVE_MONITOR`)?
    pub fn supports_active_monitor(&self) -> bool {
        self.feature_flags.unwrap_or(0) & feature::ACTIVE_MONITOR != 0
    }

    /// Is feature flag `f` ([`super::feature`]) set?
    pub fn has_feature(&self, f: u32) -> bool {
        self.feature_flags.unwrap_or(0) & f == f
    }

    /// Is extended feature `n` ([`super::ext_feature`]) set?
    pub fn has_ext_feature(&self, n: u32) -> bool {
        let byte = (n / 8) as usize;
        self.ext_features.and_then(|e| e.get(byte)).is_some_and(|b| b & (1 << (n % 8)) != 0)
    }

    /// The band holding the channel at `mhz`.
    pub fn band_of(&self, mhz: u32) -> Option<&BandInfo> {
        self.bands.iter().find(|b| b.freq(mhz).is_some())
    }

    /// The band `band` ([`super::band`]).
    pub fn band(&self, band: u16) -> Option<&BandInfo> {
        self.bands.iter().find(|b| b.band == band)
    }

    /// Is command `c` ([`super::cmd`]) among the supported commands?
    pub fn supports_command(&self, c: u8) -> bool {
        self.commands.contains(&(c as u32))
    }
}

impl Nl80211Message for WiphyInfo<'_> {
    fn cmd(&self) -> u8 {
        cmd::NEW_WIPHY
    }

    fn write_attrs(&self, w: &mut dyn Enc) -> Result<()> {
        put_u32(w, attr::WIPHY, self.wiphy)?;
        if let Some(n) = self.name {
            w.put_str_nul(attr::WIPHY_NAME, n)?;
        }
        if let Some(g) = self.generation {
            put_u32(w, attr::GENERATION, g)?;
        }
        if !self.iftypes.is_empty() {
            write_flag_set(w, attr::SUPPORTED_IFTYPES, self.iftypes.0)?;
        }
        if !self.software_iftypes.is_empty() {
            write_flag_set(w, attr::SOFTWARE_IFTYPES, self.software_iftypes.0)?;
        }
        if !self.bands.is_empty() {
            let t = w.begin(attr::WIPHY_BANDS)?;
            for b in &self.bands {
                b.write(w)?;
            }
            w.end(t)?;
        }
        if !self.commands.is_empty() {
            let t = w.begin(attr::SUPPORTED_COMMANDS)?;
            for (i, c) in self.commands.iter().enumerate() {
                put_u32(w, (i + 1) as u16, *c)?;
            }
            w.end(t)?;
        }
        if let Some(f) = self.feature_flags {
            put_u32(w, attr::FEATURE_FLAGS, f)?;
        }
        if let Some(e) = self.ext_features {
            w.put(attr::EXT_FEATURES, e)?;
        }
        for (v, ty) in [
            (self.coverage_class, attr::WIPHY_COVERAGE_CLASS),
            (self.retry_short, attr::WIPHY_RETRY_SHORT),
            (self.retry_long, attr::WIPHY_RETRY_LONG),
        ] {
            if let Some(v) = v {
                put_u8(w, ty, v)?;
            }
        }
        if let Some(v) = self.frag_threshold {
            put_u32(w, attr::WIPHY_FRAG_THRESHOLD, v)?;
        }
        if let Some(v) = self.rts_threshold {
            put_u32(w, attr::WIPHY_RTS_THRESHOLD, v)?;
        }
        Ok(())
    }
}
