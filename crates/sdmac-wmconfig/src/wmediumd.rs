//! A parsed libconfig tree read as a wmediumd or yawmd configuration.
//!
//! # Dialects
//!
//! **wmediumd** (bcopeland/wmediumd and Mininet-WiFi's fork, ramonfontes/wmediumd):
//!
//! ```text
//! ifaces : { ids = ["02:00:00:00:00:00", ...];       # required
//!            links = ((i, j, snr), ...);             # SNR links; then `model` is not read
//!            enable_interference = true;
//!            medium_array = ((0, 1), (2, 3));        # fork: medium id i+1 for the listed ids
//!            enable_medium_detection = true;         # fork
//!            count = 2; }                            # old key, must equal the number of ids
//! model :  { type = "snr" | "prob" | "path_loss";
//!            default_snr = 30; links = ((i, j, snr), ...);          # snr
//!            default_prob = 0.0; links = ((i, j, prob), ...);       # prob
//!            positions = ((x, y[, z]), ...); directions = ((dx, dy[, dz]), ...);
//!            tx_powers = (dBm, ...); antenna_gain = (dBi, ...); isnodeaps = (1, 0, ...);
//!            model_name = "log_distance"; path_loss_exp = 3.5; xg = 0.0;   # path_loss
//!            sL = 1; nFLOORS = 0; lF = 0; pL = 0; m = 1.0; move_interval = 3.0;
//!            noise_threshold = -91; fading_coefficient = 0; }
//! path_loss : { positions, directions, tx_powers,    # legacy layout (ramonfontes tests):
//!               model_params = ("log_distance", 3.5, 0.0); }   # name, then parameters
//! ```
//!
//! Links given in one direction only are mirrored (the reverse link gets the same
//! value, [`Link::mirrored`] set), as wmediumd does; links given in both directions may
//! differ.
//!
//! **yawmd** (mjmoreira/yawmd): `medium = ( { id; interfaces = [...]; model = { type;
//! default_snr; default_probability; links; simulate_interference; noise_level;
//! fading_coefficient; positions; move_interval; directions; tx_powers; antenna_gain;
//! isnodeaps; model_name; model_params = { system_loss; path_loss_exponent; xg;
//! n_floors; floor_pen_factor; power_loss_coefficient } } }, ... )`. Links are not
//! mirrored (yawmd fills unlisted pairs with the default).
//!
//! A file with a top-level `medium` is read as yawmd, one with `ifaces` as wmediumd.
//!
//! # Path-loss models
//!
//! `model_name` maps onto [`sdmac_phy::PathLoss`] as the table in
//! [`sdmac_phy::propagation`] describes: `free_space` (sL), `log_distance`
//! (path_loss_exp, xg), `log_normal_shadowing` (path_loss_exp; sL is read but unused,
//! as in wmediumd), `two_ray_ground` (sL; yawmd takes each station's z as its antenna
//! height, see [`PathLossModel::heights_from_z`]), `itu` (nFLOORS, lF, pL) and the
//! fork's `nakagami` (log-distance with path_loss_exp default 2, xg default 0, plus
//! Nakagami-m fading, m default 1).
//!
//! # Validation
//!
//! Errors name file, line, column and key: an interface index out of range, a count
//! of positions / tx powers / ... different from the number of interfaces, a bad or
//! repeated MAC address, a value of the wrong type (an integer is accepted where a
//! float is expected, never the reverse), a probability outside [0, 1], a missing
//! required key. Keys that are recognised but have no effect, and unknown keys, give a
//! warning in [`Config::warnings`] (`file:line:column: key: message`); nothing is
//! dropped silently.
//!
//! Deliberate differences from the C daemons: wmediumd reads an integer where it
//! expects a float as 0.0 and a float where it expects an integer as 0 (libconfig
//! without auto-conversion); here integers become floats and floats where integers
//! belong are errors. yawmd demands floats for positions and probabilities and
//! `fading_coefficient >= 1`; here integers are accepted and 0 means no fading.
//! Unknown `type` / `model_name` values are errors (wmediumd matches `type` by prefix
//! and ignores what it does not know).

use std::collections::HashMap;
use std::path::Path;

use sdmac_phy::PathLoss;
pub use sdmac_types::MacAddress;

use crate::libconfig::{self, Group, Pos, Setting, Value, ValueKind};
use crate::ConfigError;

/// wmediumd's SNR for pairs without a link (`SNR_DEFAULT`), dB.
pub const WMEDIUMD_DEFAULT_SNR: i32 = 30;
/// wmediumd's error probability for pairs without a link in `prob` mode.
pub const WMEDIUMD_DEFAULT_PROB: f64 = 0.0;
/// wmediumd's antenna gain of every station (`GAIN_DEFAULT`), dBi.
pub const WMEDIUMD_ANTENNA_GAIN_DBI: f64 = 5.0;
/// wmediumd's fixed station movement interval (`MOVE_INTERVAL`), s.
pub const WMEDIUMD_MOVE_INTERVAL_S: f64 = 3.0;
/// yawmd's `default_snr`.
pub const YAWMD_DEFAULT_SNR: i32 = -100;
/// yawmd's `default_probability`.
pub const YAWMD_DEFAULT_PROB: f64 = 1.0;
/// yawmd's `antenna_gain`, dBi.
pub const YAWMD_ANTENNA_GAIN_DBI: f64 = 0.0;
/// yawmd's `move_interval`, s.
pub const YAWMD_MOVE_INTERVAL_S: f64 = 5.0;
/// The noise floor of both (`noise_threshold` / `noise_level`), dBm.
pub const DEFAULT_NOISE_DBM: i32 = -91;
/// Nakagami m when the fork's `nakagami` model does not set `m`.
pub const DEFAULT_NAKAGAMI_M: f64 = 1.0;

/// Which daemon's format the file is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// `ifaces` + `model` (wmediumd and Mininet-WiFi's fork).
    Wmediumd,
    /// `medium = ( ... )` (yawmd).
    Yawmd,
}

/// Reads a MAC address as wmediumd's configuration writes it: six hexadecimal bytes
/// of one or two digits separated by `:` (looser than [`MacAddress`]'s own text form,
/// which wants two digits each).
pub fn parse_mac(s: &str) -> Result<MacAddress, String> {
    let bad = || {
        format!("bad MAC address {s:?}: expected six hexadecimal bytes like \"02:00:00:00:01:00\"")
    };
    let mut out = [0u8; 6];
    let mut parts = s.split(':');
    for byte in &mut out {
        let part = parts.next().ok_or_else(bad)?;
        if part.is_empty() || part.len() > 2 || !part.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(bad());
        }
        *byte = u8::from_str_radix(part, 16).map_err(|_| bad())?;
    }
    if parts.next().is_some() {
        return Err(bad());
    }
    Ok(MacAddress(out))
}

/// A whole configuration: one or more media.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// The name the file was read under.
    pub file: String,
    /// Its format.
    pub dialect: Dialect,
    /// The media (wmediumd: exactly one).
    pub media: Vec<MediumSpec>,
    /// Keys that were recognised but have no effect, and unknown keys, as
    /// `file:line:column: key: message`.
    pub warnings: Vec<String>,
}

/// One medium: its interfaces and how frames between them fare.
#[derive(Clone, Debug, PartialEq)]
pub struct MediumSpec {
    /// yawmd's `id`; 0 for wmediumd.
    pub id: i32,
    /// Where the medium is defined (yawmd: its group; wmediumd: `ifaces`).
    pub pos: Pos,
    /// The interfaces; links and per-station lists index into this.
    pub interfaces: Vec<Interface>,
    /// wmediumd `ifaces.enable_interference` / yawmd `simulate_interference`.
    pub interference: bool,
    /// Noise floor, dBm (wmediumd `noise_threshold`, used only when < 0; yawmd
    /// `noise_level`).
    pub noise_dbm: i32,
    /// Amplitude of the random fading added to every SNR, dB (0 = none).
    pub fading_coefficient: u32,
    /// The fork's `ifaces.enable_medium_detection`, when set.
    pub medium_detection: Option<bool>,
    /// The link model.
    pub model: Model,
}

/// An interface of a medium.
#[derive(Clone, Debug, PartialEq)]
pub struct Interface {
    /// Its address.
    pub mac: MacAddress,
    /// The fork's sub-medium (`ifaces.medium_array`): interfaces listed in its i-th
    /// element get i + 1, the others 0; only interfaces with equal ids interfere.
    pub medium_id: i32,
    /// Where the address is written.
    pub pos: Pos,
}

/// How the SNR or error probability of each pair of interfaces is found.
#[derive(Clone, Debug, PartialEq)]
pub enum Model {
    /// Fixed SNR per link.
    Snr(SnrModel),
    /// Fixed error probability per link.
    Prob(ProbModel),
    /// SNR from positions, powers and a path-loss model.
    PathLoss(Box<PathLossModel>),
}

/// A directed link with its value, as written or mirrored.
#[derive(Clone, Debug, PartialEq)]
pub struct Link<T> {
    /// Transmitter index.
    pub from: usize,
    /// Receiver index.
    pub to: usize,
    /// SNR (dB) or error probability.
    pub value: T,
    /// Where the link is written (for a mirrored one: the link it mirrors).
    pub pos: Pos,
    /// Whether this is the mirror image of a link given in one direction only.
    pub mirrored: bool,
}

/// `type = "snr"`.
#[derive(Clone, Debug, PartialEq)]
pub struct SnrModel {
    /// SNR of pairs without a link, dB.
    pub default_snr: i32,
    /// The links, a later one for the same pair replacing an earlier one.
    pub links: Vec<Link<i32>>,
}

/// `type = "prob"`.
#[derive(Clone, Debug, PartialEq)]
pub struct ProbModel {
    /// Error probability of pairs without a link.
    pub default_prob: f64,
    /// The links, a later one for the same pair replacing an earlier one.
    pub links: Vec<Link<f64>>,
}

/// `type = "path_loss"`.
#[derive(Clone, Debug, PartialEq)]
pub struct PathLossModel {
    /// The propagation model.
    pub path_loss: PathLoss,
    /// Position of each interface, m (z = 0 when given as (x, y)).
    pub positions: Vec<[f64; 3]>,
    /// Movement per `move_interval_s` of each interface, m.
    pub directions: Option<Vec<[f64; 3]>>,
    /// How often the interfaces move, s.
    pub move_interval_s: f64,
    /// Transmit power of each interface, dBm.
    pub tx_powers_dbm: Vec<f64>,
    /// Antenna gain of each interface, dBi.
    pub antenna_gains_dbi: Vec<f64>,
    /// Whether each interface is an access point (the fork's `isnodeaps`).
    pub is_ap: Vec<bool>,
    /// For [`PathLoss::TwoRayGround`]: whether each interface's antenna height is its
    /// z coordinate (yawmd) rather than the heights in `path_loss` (the fork: 1 m).
    pub heights_from_z: bool,
    /// Nakagami-m fading on top of the path loss (the fork's `nakagami` model).
    pub nakagami_m: Option<f64>,
}

impl SnrModel {
    /// The n×n SNR matrix, row = transmitter; `n` is the number of interfaces.
    pub fn matrix(&self, n: usize) -> Vec<i32> {
        let mut m = vec![self.default_snr; n * n];
        for l in &self.links {
            if l.from < n && l.to < n {
                m[l.from * n + l.to] = l.value;
            }
        }
        m
    }
}

impl ProbModel {
    /// The n×n error-probability matrix, row = transmitter.
    pub fn matrix(&self, n: usize) -> Vec<f64> {
        let mut m = vec![self.default_prob; n * n];
        for l in &self.links {
            if l.from < n && l.to < n {
                m[l.from * n + l.to] = l.value;
            }
        }
        m
    }
}

// ------------------------------------------------------------------ entry points

/// Reads and interprets a configuration file. Bytes that are not UTF-8 are replaced
/// (with a warning); they can only matter inside comments or strings.
pub fn load_file(path: impl AsRef<Path>) -> Result<Config, ConfigError> {
    let path = path.as_ref();
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| ConfigError {
        file: name.clone(),
        line: 0,
        column: 0,
        key_path: None,
        message: format!("cannot read: {e}"),
    })?;
    match String::from_utf8(bytes) {
        Ok(text) => parse_config(&text, &name),
        Err(e) => {
            let valid = e.utf8_error().valid_up_to();
            let bytes = e.into_bytes();
            let line = 1 + bytes[..valid].iter().filter(|&&b| b == b'\n').count();
            let text = String::from_utf8_lossy(&bytes).into_owned();
            let mut config = parse_config(&text, &name)?;
            config.warnings.insert(
                0,
                format!("{name}:{line}: the file is not valid UTF-8; invalid bytes were replaced"),
            );
            Ok(config)
        }
    }
}

/// Parses libconfig text and interprets it; `file` is used in errors and warnings.
pub fn parse_config(text: &str, file: &str) -> Result<Config, ConfigError> {
    let root = libconfig::parse(text, file)?;
    from_tree(&root, file)
}

/// Interprets a parsed tree.
pub fn from_tree(root: &Group, file: &str) -> Result<Config, ConfigError> {
    let mut cx = Cx { file, warnings: Vec::new() };
    let (dialect, media) = if root.get("medium").is_some() {
        (Dialect::Yawmd, yawmd(&mut cx, root)?)
    } else if root.get("ifaces").is_some() {
        (Dialect::Wmediumd, vec![wmediumd(&mut cx, root)?])
    } else {
        return Err(cx.err(
            Pos::new(1, 1),
            "ifaces",
            "missing: a wmediumd configuration needs an `ifaces` group (a yawmd one a `medium` list)",
        ));
    };
    let mut warnings = cx.warnings;
    warnings.sort_by_key(|w| w.0);
    Ok(Config {
        file: file.to_string(),
        dialect,
        media,
        warnings: warnings.into_iter().map(|w| w.1).collect(),
    })
}

// ------------------------------------------------------------------ typed access

struct Cx<'f> {
    file: &'f str,
    /// (position, message), sorted by position at the end.
    warnings: Vec<(Pos, String)>,
}

fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_string()
    } else {
        format!("{prefix}.{name}")
    }
}

fn index(prefix: &str, i: usize) -> String {
    format!("{prefix}[{i}]")
}

impl Cx<'_> {
    fn err(&self, pos: Pos, key: &str, message: impl Into<String>) -> ConfigError {
        ConfigError::new(self.file, pos, Some(key.to_string()), message)
    }

    fn warn(&mut self, pos: Pos, key: &str, message: impl AsRef<str>) {
        let text =
            format!("{}:{}:{}: {}: {}", self.file, pos.line, pos.column, key, message.as_ref());
        self.warnings.push((pos, text));
    }

    fn wrong_type(&self, v: &Value, key: &str, expected: &str) -> ConfigError {
        self.err(
            v.pos,
            key,
            format!("expected {expected}, found {} ({})", v.type_name(), v.describe()),
        )
    }

    fn int(&self, v: &Value, key: &str) -> Result<i64, ConfigError> {
        v.as_i64().ok_or_else(|| self.wrong_type(v, key, "an integer"))
    }

    fn int32(&self, v: &Value, key: &str) -> Result<i32, ConfigError> {
        let i = self.int(v, key)?;
        i32::try_from(i)
            .map_err(|_| self.err(v.pos, key, format!("{i} is out of the 32-bit integer range")))
    }

    fn float(&self, v: &Value, key: &str) -> Result<f64, ConfigError> {
        v.as_f64().ok_or_else(|| self.wrong_type(v, key, "a number"))
    }

    fn boolean(&self, v: &Value, key: &str) -> Result<bool, ConfigError> {
        v.as_bool().ok_or_else(|| self.wrong_type(v, key, "a boolean (true or false)"))
    }

    fn string<'v>(&self, v: &'v Value, key: &str) -> Result<&'v str, ConfigError> {
        v.as_str().ok_or_else(|| self.wrong_type(v, key, "a string"))
    }

    fn group<'v>(&self, v: &'v Value, key: &str) -> Result<&'v Group, ConfigError> {
        v.as_group().ok_or_else(|| self.wrong_type(v, key, "a group { ... }"))
    }

    fn seq<'v>(&self, v: &'v Value, key: &str) -> Result<&'v [Value], ConfigError> {
        v.elements().ok_or_else(|| self.wrong_type(v, key, "a list ( ... ) or an array [ ... ]"))
    }

    /// A list/array with one entry per interface.
    fn per_iface<'v>(
        &self,
        s: &'v Setting,
        key: &str,
        n: usize,
    ) -> Result<&'v [Value], ConfigError> {
        let items = self.seq(&s.value, key)?;
        if items.len() != n {
            return Err(self.err(
                s.value.pos,
                key,
                format!(
                    "has {} entries, but there are {n} interfaces (one entry per interface)",
                    items.len()
                ),
            ));
        }
        Ok(items)
    }

    fn numbers(&self, s: &Setting, key: &str, n: usize) -> Result<Vec<f64>, ConfigError> {
        let items = self.per_iface(s, key, n)?;
        items.iter().enumerate().map(|(i, v)| self.float(v, &index(key, i))).collect()
    }

    /// Points (x, y) or (x, y, z), one per interface.
    fn points(&self, s: &Setting, key: &str, n: usize) -> Result<Vec<[f64; 3]>, ConfigError> {
        let items = self.per_iface(s, key, n)?;
        let mut out = Vec::with_capacity(n);
        for (i, item) in items.iter().enumerate() {
            let k = index(key, i);
            let coords = self.seq(item, &k)?;
            if coords.len() != 2 && coords.len() != 3 {
                return Err(self.err(
                    item.pos,
                    &k,
                    format!("expected (x, y) or (x, y, z), found {} numbers", coords.len()),
                ));
            }
            let mut p = [0.0; 3];
            for (j, c) in coords.iter().enumerate() {
                p[j] = self.float(c, &index(&k, j))?;
                if !p[j].is_finite() {
                    return Err(self.err(c.pos, &index(&k, j), "must be finite"));
                }
            }
            out.push(p);
        }
        Ok(out)
    }

    fn macs(&self, s: &Setting, key: &str) -> Result<Vec<Interface>, ConfigError> {
        let items = self.seq(&s.value, key)?;
        let mut out: Vec<Interface> = Vec::with_capacity(items.len());
        let mut seen: HashMap<MacAddress, usize> = HashMap::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let k = index(key, i);
            let text = self.string(item, &k)?;
            let mac = parse_mac(text).map_err(|m| self.err(item.pos, &k, m))?;
            if let Some(j) = seen.insert(mac, i) {
                return Err(self.err(
                    item.pos,
                    &k,
                    format!("MAC address {mac} is listed twice (also {key}[{j}])"),
                ));
            }
            out.push(Interface { mac, medium_id: 0, pos: item.pos });
        }
        Ok(out)
    }

    fn warn_multicast(&mut self, ifaces: &[Interface], key: &str) {
        for (i, iface) in ifaces.iter().enumerate() {
            if iface.mac.0[0] & 1 == 1 {
                self.warn(
                    iface.pos,
                    &index(key, i),
                    format!("{} is a multicast address; no radio has it", iface.mac),
                );
            }
        }
    }

    fn probability(&self, v: &Value, key: &str) -> Result<f64, ConfigError> {
        let p = self.float(v, key)?;
        if !(0.0..=1.0).contains(&p) {
            return Err(self.err(
                v.pos,
                key,
                format!("an error probability must be within [0, 1], found {}", v.describe()),
            ));
        }
        Ok(p)
    }

    /// `links = ((from, to, value), ...)`.
    fn links<T: Copy>(
        &mut self,
        s: &Setting,
        key: &str,
        n: usize,
        mirror: bool,
        read: impl Fn(&Self, &Value, &str) -> Result<T, ConfigError>,
    ) -> Result<Vec<Link<T>>, ConfigError> {
        let items = self.seq(&s.value, key)?;
        let mut links: Vec<Link<T>> = Vec::with_capacity(items.len());
        // (from, to) → index of the last link given for the pair.
        let mut last: HashMap<(usize, usize), usize> = HashMap::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let k = index(key, i);
            let parts = self.seq(item, &k)?;
            if parts.len() != 3 {
                return Err(self.err(
                    item.pos,
                    &k,
                    format!("expected (from, to, value), found {} elements", parts.len()),
                ));
            }
            let mut ends = [0usize; 2];
            for (e, end) in ends.iter_mut().enumerate() {
                let kk = index(&k, e);
                let x = self.int(&parts[e], &kk)?;
                *end = usize::try_from(x).ok().filter(|&x| x < n).ok_or_else(|| {
                    self.err(parts[e].pos, &kk, format!("interface index {x} is out of range: there are {n} interfaces (0..={})", n.saturating_sub(1)))
                })?;
            }
            let value = read(self, &parts[2], &index(&k, 2))?;
            if ends[0] == ends[1] {
                self.warn(item.pos, &k, "a link from an interface to itself has no effect");
            }
            if let Some(&prev) = last.get(&(ends[0], ends[1])) {
                let line = links[prev].pos.line;
                self.warn(
                    item.pos,
                    &k,
                    format!("replaces the link {} -> {} given at line {line}", ends[0], ends[1]),
                );
            }
            last.insert((ends[0], ends[1]), links.len());
            links.push(Link { from: ends[0], to: ends[1], value, pos: item.pos, mirrored: false });
        }
        if mirror {
            // Pairs given in one direction only: the last link given for the pair is
            // mirrored (it is the one in force, as in wmediumd).
            let mut mirrored = Vec::new();
            for (i, l) in links.iter().enumerate() {
                let is_last = last.get(&(l.from, l.to)) == Some(&i);
                if is_last && l.from != l.to && !last.contains_key(&(l.to, l.from)) {
                    mirrored.push(Link {
                        from: l.to,
                        to: l.from,
                        value: l.value,
                        pos: l.pos,
                        mirrored: true,
                    });
                }
            }
            links.extend(mirrored);
        }
        Ok(links)
    }

    fn fading(&self, s: &Setting, key: &str) -> Result<u32, ConfigError> {
        let f = self.int(&s.value, key)?;
        u32::try_from(f).map_err(|_| {
            self.err(s.value.pos, key, format!("must be 0 (no fading) or more, found {f}"))
        })
    }

    fn is_ap(&self, s: &Setting, key: &str, n: usize) -> Result<Vec<bool>, ConfigError> {
        let items = self.per_iface(s, key, n)?;
        let mut out = Vec::with_capacity(n);
        for (i, v) in items.iter().enumerate() {
            let k = index(key, i);
            out.push(match (&v.kind, v.as_i64()) {
                (ValueKind::Bool(b), _) => *b,
                (_, Some(1)) => true,
                (_, Some(0)) => false,
                _ => return Err(self.wrong_type(v, &k, "1, 0, true or false")),
            });
        }
        Ok(out)
    }
}

// ---------------------------------------------------------------- path-loss models

/// Where a model's parameters are read from.
enum Params<'a> {
    /// wmediumd: keys of the `model` group, wmediumd names.
    Flat(&'a Group, String),
    /// yawmd: the `model_params` group, yawmd names.
    Group(&'a Group, String),
    /// Legacy `path_loss.model_params = (name, p1, p2, ...)`.
    Positional(&'a [Value], String, Pos),
}

/// The parameters of each model: (wmediumd name, yawmd name, integer?, required?).
fn model_params(name: &str) -> Option<&'static [(&'static str, &'static str, bool, bool)]> {
    Some(match name {
        "free_space" => &[("sL", "system_loss", true, true)],
        "log_distance" => {
            &[("path_loss_exp", "path_loss_exponent", false, true), ("xg", "xg", false, true)]
        }
        "log_normal_shadowing" => &[
            ("path_loss_exp", "path_loss_exponent", false, true),
            ("sL", "system_loss", true, false),
        ],
        "two_ray_ground" => &[("sL", "system_loss", true, true)],
        "itu" => &[
            ("nFLOORS", "n_floors", true, true),
            ("lF", "floor_pen_factor", true, true),
            ("pL", "power_loss_coefficient", true, true),
        ],
        "nakagami" => &[
            ("path_loss_exp", "path_loss_exponent", false, false),
            ("xg", "xg", false, false),
            ("m", "m", false, false),
        ],
        _ => return None,
    })
}

/// Every parameter name of every model, per dialect.
const ALL_PARAMS_WMEDIUMD: &[&str] = &["path_loss_exp", "xg", "sL", "nFLOORS", "lF", "pL", "m"];
const ALL_PARAMS_YAWMD: &[&str] = &[
    "system_loss",
    "path_loss_exponent",
    "xg",
    "n_floors",
    "floor_pen_factor",
    "power_loss_coefficient",
];

fn system_loss_db(cx: &Cx<'_>, v: &Value, key: &str, sl: f64) -> Result<f64, ConfigError> {
    if sl < 1.0 {
        return Err(cx.err(
            v.pos,
            key,
            format!("the system loss is a linear factor and must be at least 1, found {sl}"),
        ));
    }
    Ok(10.0 * sl.log10())
}

/// Builds the [`PathLoss`] named `name` (a value at `name_v`, key `name_key`).
fn build_path_loss(
    cx: &mut Cx<'_>,
    name: &str,
    name_v: &Value,
    name_key: &str,
    params: &Params<'_>,
    yawmd: bool,
) -> Result<(PathLoss, Option<f64>), ConfigError> {
    let spec = match model_params(name) {
        Some(spec) if !(yawmd && name == "nakagami") => spec,
        _ => {
            let known = if yawmd {
                "free_space, log_distance, log_normal_shadowing, two_ray_ground or itu"
            } else {
                "free_space, log_distance, log_normal_shadowing, two_ray_ground, itu or nakagami"
            };
            return Err(cx.err(
                name_v.pos,
                name_key,
                format!("unknown path-loss model {name:?}: expected {known}"),
            ));
        }
    };
    // Look every parameter up: (value, key) or None.
    let mut found: Vec<Option<(&Value, String)>> = Vec::new();
    match params {
        Params::Flat(g, prefix) | Params::Group(g, prefix) => {
            let yawmd_names = matches!(params, Params::Group(..));
            for &(wm, ya, _, _) in spec {
                let n = if yawmd_names { ya } else { wm };
                found.push(g.get(n).map(|s| (&s.value, join(prefix, n))));
            }
            let all = if yawmd_names { ALL_PARAMS_YAWMD } else { ALL_PARAMS_WMEDIUMD };
            for s in *g {
                let used =
                    spec.iter().any(|&(wm, ya, _, _)| s.name == if yawmd_names { ya } else { wm });
                if !used && all.contains(&s.name.as_str()) {
                    cx.warn(
                        s.pos,
                        &join(prefix, &s.name),
                        format!("ignored: not a parameter of model_name {name:?}"),
                    );
                } else if !used && yawmd_names {
                    cx.warn(s.pos, &join(prefix, &s.name), "unknown setting, ignored");
                }
            }
        }
        Params::Positional(items, key, pos) => {
            let rest = &items[1..];
            if rest.len() != spec.len() {
                let names: Vec<&str> = spec.iter().map(|p| p.0).collect();
                return Err(cx.err(
                    *pos,
                    key,
                    format!(
                        "model {name:?} takes {} parameters after its name ({}), found {}",
                        spec.len(),
                        names.join(", "),
                        rest.len()
                    ),
                ));
            }
            if name != "log_distance" {
                let names: Vec<&str> = spec.iter().map(|p| p.0).collect();
                cx.warn(
                    *pos,
                    key,
                    format!(
                        "legacy positional parameters read in the order ({})",
                        names.join(", ")
                    ),
                );
            }
            for (i, v) in rest.iter().enumerate() {
                found.push(Some((v, index(key, i + 1))));
            }
        }
    }
    // Read them: integers or floats as declared.
    let mut vals: Vec<Option<(f64, &Value, String)>> = Vec::new();
    for (&(wm, ya, integer, required), f) in spec.iter().zip(found) {
        match f {
            Some((v, key)) => {
                let x = if integer { cx.int32(v, &key)? as f64 } else { cx.float(v, &key)? };
                if !x.is_finite() {
                    return Err(cx.err(v.pos, &key, "must be finite"));
                }
                vals.push(Some((x, v, key)));
            }
            None if required => {
                let (n, place) = match params {
                    Params::Group(_, p) => (ya, p.clone()),
                    Params::Flat(_, p) => (wm, p.clone()),
                    Params::Positional(_, p, _) => (wm, p.clone()),
                };
                return Err(cx.err(
                    name_v.pos,
                    name_key,
                    format!("model_name {name:?} needs `{n}` in `{place}`"),
                ));
            }
            None => vals.push(None),
        }
    }
    let get = |i: usize, default: f64| vals[i].as_ref().map_or(default, |v| v.0);
    let model = match name {
        "free_space" | "two_ray_ground" => {
            let (sl, v, key) = vals[0]
                .as_ref()
                .map(|(x, v, k)| (*x, *v, k.as_str()))
                .unwrap_or((1.0, name_v, name_key));
            let sl_db = system_loss_db(cx, v, key, sl)?;
            if name == "free_space" {
                PathLoss::FreeSpace { sl_db }
            } else {
                PathLoss::TwoRayGround { tx_height_m: 1.0, rx_height_m: 1.0, sl_db }
            }
        }
        "log_distance" | "nakagami" => {
            PathLoss::LogDistance { exponent: get(0, 2.0), ref_distance_m: 1.0, sl_db: get(1, 0.0) }
        }
        "log_normal_shadowing" => {
            if let Some((_, v, key)) = &vals[1] {
                cx.warn(v.pos, key, "read but not used by log_normal_shadowing (as in wmediumd)");
            }
            PathLoss::LogNormalShadowing {
                exponent: get(0, 2.0),
                ref_distance_m: 1.0,
                sigma_db: 1.0,
                sl_db: 0.0,
            }
        }
        _ => {
            // itu
            let n_floors = get(0, 0.0);
            if n_floors < 0.0 {
                let (_, v, key) = vals[0]
                    .as_ref()
                    .map(|(x, v, k)| (*x, *v, k.as_str()))
                    .unwrap_or((0.0, name_v, name_key));
                return Err(cx.err(
                    v.pos,
                    key,
                    format!("the number of floors must be 0 or more, found {n_floors}"),
                ));
            }
            PathLoss::Itu {
                n_floors: n_floors as u32,
                floor_loss_db: get(1, 0.0),
                power_loss_coefficient: get(2, 0.0),
            }
        }
    };
    let nakagami = if name == "nakagami" {
        let m = get(2, DEFAULT_NAKAGAMI_M);
        if m <= 0.0 {
            let (_, v, key) = vals[2]
                .as_ref()
                .map(|(x, v, k)| (*x, *v, k.as_str()))
                .unwrap_or((m, name_v, name_key));
            return Err(cx.err(v.pos, key, format!("Nakagami m must be > 0, found {m}")));
        }
        Some(m)
    } else {
        None
    };
    Ok((model, nakagami))
}

// ------------------------------------------------------------------------ wmediumd

const WM_IFACES_KEYS: &[&str] =
    &["ids", "links", "enable_interference", "medium_array", "enable_medium_detection", "count"];
const WM_COMMON_MODEL_KEYS: &[&str] = &["type", "noise_threshold", "fading_coefficient"];
const WM_SNR_KEYS: &[&str] = &["default_snr", "links"];
const WM_PROB_KEYS: &[&str] = &["default_prob", "links"];
const WM_PATH_LOSS_KEYS: &[&str] = &[
    "positions",
    "directions",
    "tx_powers",
    "antenna_gain",
    "isnodeaps",
    "model_name",
    "move_interval",
    "path_loss_exp",
    "xg",
    "sL",
    "nFLOORS",
    "lF",
    "pL",
    "m",
];

fn wmediumd(cx: &mut Cx<'_>, root: &Group) -> Result<MediumSpec, ConfigError> {
    for s in root {
        if !matches!(s.name.as_str(), "ifaces" | "model" | "path_loss") {
            cx.warn(s.pos, &s.name, "unknown setting, ignored");
        }
    }
    let ifaces_s = root.get("ifaces").ok_or_else(|| cx.err(Pos::new(1, 1), "ifaces", "missing"))?;
    let ifaces = cx.group(&ifaces_s.value, "ifaces")?;
    for s in ifaces {
        if !WM_IFACES_KEYS.contains(&s.name.as_str()) {
            cx.warn(s.pos, &join("ifaces", &s.name), "unknown setting, ignored");
        }
    }
    let ids = ifaces.get("ids").ok_or_else(|| {
        cx.err(ifaces_s.pos, "ifaces.ids", "missing: the MAC address of every interface")
    })?;
    let mut interfaces = cx.macs(ids, "ifaces.ids")?;
    cx.warn_multicast(&interfaces, "ifaces.ids");
    let n = interfaces.len();
    if let Some(count) = ifaces.get("count") {
        let c = cx.int(&count.value, "ifaces.count")?;
        if c != n as i64 {
            return Err(cx.err(
                count.value.pos,
                "ifaces.count",
                format!("is {c}, but `ids` lists {n} interfaces"),
            ));
        }
        cx.warn(
            count.pos,
            "ifaces.count",
            "recognised but not needed: the number of `ids` is used",
        );
    }
    let interference = match ifaces.get("enable_interference") {
        Some(s) => cx.boolean(&s.value, "ifaces.enable_interference")?,
        None => false,
    };
    let medium_detection = match ifaces.get("enable_medium_detection") {
        Some(s) => Some(cx.boolean(&s.value, "ifaces.enable_medium_detection")?),
        None => None,
    };
    if let Some(s) = ifaces.get("medium_array") {
        let key = "ifaces.medium_array";
        let media = cx.seq(&s.value, key)?;
        let mut seen: Vec<Option<usize>> = vec![None; n];
        for (m, medium) in media.iter().enumerate() {
            let km = index(key, m);
            for (j, v) in cx.seq(medium, &km)?.iter().enumerate() {
                let k = index(&km, j);
                let x = cx.int(v, &k)?;
                let i = usize::try_from(x).ok().filter(|&i| i < n).ok_or_else(|| {
                    cx.err(
                        v.pos,
                        &k,
                        format!("interface index {x} is out of range: there are {n} interfaces"),
                    )
                })?;
                if let Some(prev) = seen[i] {
                    return Err(cx.err(
                        v.pos,
                        &k,
                        format!("interface {i} is already in medium {prev} ({key}[{prev}])"),
                    ));
                }
                seen[i] = Some(m);
                interfaces[i].medium_id = i32::try_from(m + 1).unwrap_or(i32::MAX);
            }
        }
    }

    let mut noise_dbm = DEFAULT_NOISE_DBM;
    let mut fading = 0;
    let model_s = root.get("model");
    let model_g = match model_s {
        Some(s) => Some(cx.group(&s.value, "model")?),
        None => None,
    };
    if let Some(g) = model_g {
        if let Some(s) = g.get("noise_threshold") {
            let v = cx.int32(&s.value, "model.noise_threshold")?;
            if v < 0 {
                noise_dbm = v;
            } else {
                cx.warn(s.value.pos, "model.noise_threshold", format!("{v} is not below 0 and is ignored, as in wmediumd (noise floor {DEFAULT_NOISE_DBM} dBm)"));
            }
        }
        if let Some(s) = g.get("fading_coefficient") {
            fading = cx.fading(s, "model.fading_coefficient")?;
        }
    }

    let model = if let Some(links_s) = ifaces.get("links") {
        let links = cx.links(links_s, "ifaces.links", n, true, |cx, v, k| cx.int32(v, k))?;
        if let Some(g) = model_g {
            for s in g {
                if !matches!(s.name.as_str(), "noise_threshold" | "fading_coefficient") {
                    cx.warn(
                        s.pos,
                        &join("model", &s.name),
                        "ignored: `ifaces.links` is set, and wmediumd then uses those SNR links",
                    );
                }
            }
        }
        if let Some(p) = root.get("path_loss") {
            cx.warn(p.pos, "path_loss", "ignored: `ifaces.links` is set");
        }
        Model::Snr(SnrModel { default_snr: WMEDIUMD_DEFAULT_SNR, links })
    } else if let (Some(g), Some(ms)) = (model_g, model_s) {
        if let Some(p) = root.get("path_loss") {
            cx.warn(p.pos, "path_loss", "ignored: the `model` group is used");
        }
        wmediumd_model(cx, g, ms.pos, n)?
    } else if let Some(p) = root.get("path_loss") {
        legacy_path_loss(cx, p, n)?
    } else {
        Model::Snr(SnrModel { default_snr: WMEDIUMD_DEFAULT_SNR, links: Vec::new() })
    };

    Ok(MediumSpec {
        id: 0,
        pos: ifaces_s.pos,
        interfaces,
        interference,
        noise_dbm,
        fading_coefficient: fading,
        medium_detection,
        model,
    })
}

fn wmediumd_model(cx: &mut Cx<'_>, g: &Group, pos: Pos, n: usize) -> Result<Model, ConfigError> {
    let type_s = g
        .get("type")
        .ok_or_else(|| cx.err(pos, "model.type", "missing: \"snr\", \"prob\" or \"path_loss\""))?;
    let ty = cx.string(&type_s.value, "model.type")?;
    let own: &[&str] = match ty {
        "snr" => WM_SNR_KEYS,
        "prob" => WM_PROB_KEYS,
        "path_loss" => WM_PATH_LOSS_KEYS,
        _ => {
            return Err(cx.err(
                type_s.value.pos,
                "model.type",
                format!("unknown model type {ty:?}: expected \"snr\", \"prob\" or \"path_loss\""),
            ))
        }
    };
    for s in g {
        let name = s.name.as_str();
        let key = join("model", name);
        if WM_COMMON_MODEL_KEYS.contains(&name) || own.contains(&name) {
            continue;
        }
        let owner = if WM_SNR_KEYS.contains(&name) {
            Some("snr")
        } else if WM_PROB_KEYS.contains(&name) {
            Some("prob")
        } else if WM_PATH_LOSS_KEYS.contains(&name) {
            Some("path_loss")
        } else {
            None
        };
        match owner {
            Some(o) => cx.warn(s.pos, &key, format!("ignored: only used with type = \"{o}\"")),
            None => cx.warn(s.pos, &key, "unknown setting, ignored"),
        }
    }
    match ty {
        "snr" => {
            let default_snr = match g.get("default_snr") {
                Some(s) => cx.int32(&s.value, "model.default_snr")?,
                None => WMEDIUMD_DEFAULT_SNR,
            };
            let links = match g.get("links") {
                Some(s) => cx.links(s, "model.links", n, true, |cx, v, k| cx.int32(v, k))?,
                None => Vec::new(),
            };
            Ok(Model::Snr(SnrModel { default_snr, links }))
        }
        "prob" => {
            let default_prob = match g.get("default_prob") {
                Some(s) => cx.probability(&s.value, "model.default_prob")?,
                None => WMEDIUMD_DEFAULT_PROB,
            };
            let links = match g.get("links") {
                Some(s) => cx.links(s, "model.links", n, true, |cx, v, k| cx.probability(v, k))?,
                None => Vec::new(),
            };
            Ok(Model::Prob(ProbModel { default_prob, links }))
        }
        _ => {
            let name_s = g.get("model_name").ok_or_else(|| {
                cx.err(pos, "model.model_name", "missing: path_loss needs a model_name")
            })?;
            let name = cx.string(&name_s.value, "model.model_name")?;
            let (path_loss, nakagami_m) = build_path_loss(
                cx,
                name,
                &name_s.value,
                "model.model_name",
                &Params::Flat(g, "model".into()),
                false,
            )?;
            let pl = stations(cx, g, "model", pos, n, false, path_loss, nakagami_m)?;
            Ok(Model::PathLoss(Box::new(pl)))
        }
    }
}

/// The legacy layout: a top-level `path_loss` group with `model_params = (name, ...)`.
fn legacy_path_loss(cx: &mut Cx<'_>, p: &Setting, n: usize) -> Result<Model, ConfigError> {
    let g = cx.group(&p.value, "path_loss")?;
    for s in g {
        let known = [
            "positions",
            "directions",
            "tx_powers",
            "antenna_gain",
            "isnodeaps",
            "model_params",
            "move_interval",
        ];
        if !known.contains(&s.name.as_str()) {
            cx.warn(s.pos, &join("path_loss", &s.name), "unknown setting, ignored");
        }
    }
    let params_s = g.get("model_params").ok_or_else(|| {
        cx.err(p.pos, "path_loss.model_params", "missing: (model_name, parameters...)")
    })?;
    let key = "path_loss.model_params";
    let items = cx.seq(&params_s.value, key)?;
    let first = items.first().ok_or_else(|| {
        cx.err(params_s.value.pos, key, "empty: expected (model_name, parameters...)")
    })?;
    let name = cx.string(first, &index(key, 0))?;
    let params = Params::Positional(items, key.to_string(), params_s.value.pos);
    let (path_loss, nakagami_m) = build_path_loss(cx, name, first, &index(key, 0), &params, false)?;
    let pl = stations(cx, g, "path_loss", p.pos, n, false, path_loss, nakagami_m)?;
    Ok(Model::PathLoss(Box::new(pl)))
}

/// Positions, directions, powers, gains and AP flags of a path-loss model.
#[allow(clippy::too_many_arguments)]
fn stations(
    cx: &mut Cx<'_>,
    g: &Group,
    prefix: &str,
    pos: Pos,
    n: usize,
    yawmd: bool,
    path_loss: PathLoss,
    nakagami_m: Option<f64>,
) -> Result<PathLossModel, ConfigError> {
    let required = |cx: &Cx<'_>, name: &str, what: &str| {
        g.get(name).ok_or_else(|| {
            cx.err(pos, &join(prefix, name), format!("missing: path_loss needs {what}"))
        })
    };
    let positions_s = required(cx, "positions", "a position per interface")?;
    let positions = cx.points(positions_s, &join(prefix, "positions"), n)?;
    let directions = match g.get("directions") {
        Some(s) => Some(cx.points(s, &join(prefix, "directions"), n)?),
        None => None,
    };
    let tx_s = required(cx, "tx_powers", "a transmit power per interface")?;
    let tx_powers_dbm = cx.numbers(tx_s, &join(prefix, "tx_powers"), n)?;
    let antenna_gains_dbi = match g.get("antenna_gain") {
        Some(s) => cx.numbers(s, &join(prefix, "antenna_gain"), n)?,
        None => vec![if yawmd { YAWMD_ANTENNA_GAIN_DBI } else { WMEDIUMD_ANTENNA_GAIN_DBI }; n],
    };
    let is_ap = match g.get("isnodeaps") {
        Some(s) => cx.is_ap(s, &join(prefix, "isnodeaps"), n)?,
        None => vec![false; n],
    };
    let move_interval_s = match g.get("move_interval") {
        Some(s) => {
            let key = join(prefix, "move_interval");
            let x = cx.float(&s.value, &key)?;
            if !(x > 0.0 && x.is_finite()) {
                return Err(cx.err(
                    s.value.pos,
                    &key,
                    format!("must be a number of seconds > 0, found {}", s.value.describe()),
                ));
            }
            x
        }
        None if yawmd => YAWMD_MOVE_INTERVAL_S,
        None => WMEDIUMD_MOVE_INTERVAL_S,
    };
    for (i, p) in tx_powers_dbm.iter().chain(&antenna_gains_dbi).enumerate() {
        if !p.is_finite() {
            let (name, j) = if i < n { ("tx_powers", i) } else { ("antenna_gain", i - n) };
            return Err(cx.err(pos, &index(&join(prefix, name), j), "must be finite"));
        }
    }
    let heights_from_z = yawmd && matches!(path_loss, PathLoss::TwoRayGround { .. });
    Ok(PathLossModel {
        path_loss,
        positions,
        directions,
        move_interval_s,
        tx_powers_dbm,
        antenna_gains_dbi,
        is_ap,
        heights_from_z,
        nakagami_m,
    })
}

// --------------------------------------------------------------------------- yawmd

const YA_MEDIUM_KEYS: &[&str] = &["id", "interfaces", "model"];
const YA_SNR_KEYS: &[&str] = &["default_snr", "links"];
const YA_PROB_KEYS: &[&str] = &["default_probability", "links"];
const YA_PATH_LOSS_KEYS: &[&str] = &[
    "simulate_interference",
    "noise_level",
    "fading_coefficient",
    "positions",
    "move_interval",
    "directions",
    "tx_powers",
    "antenna_gain",
    "isnodeaps",
    "model_name",
    "model_params",
];

fn yawmd(cx: &mut Cx<'_>, root: &Group) -> Result<Vec<MediumSpec>, ConfigError> {
    for s in root {
        if s.name != "medium" {
            cx.warn(s.pos, &s.name, "unknown setting, ignored");
        }
    }
    let Some(medium_s) = root.get("medium") else {
        return Err(cx.err(Pos::new(1, 1), "medium", "missing"));
    };
    let ValueKind::List(items) = &medium_s.value.kind else {
        return Err(cx.wrong_type(&medium_s.value, "medium", "a list ( { ... }, ... )"));
    };
    if items.is_empty() {
        return Err(cx.err(
            medium_s.value.pos,
            "medium",
            "is empty: at least one medium { id; interfaces; model } is needed",
        ));
    }
    let mut media: Vec<MediumSpec> = Vec::with_capacity(items.len());
    let mut ids: HashMap<i32, usize> = HashMap::new();
    let mut macs: HashMap<MacAddress, (usize, usize)> = HashMap::new();
    for (m, item) in items.iter().enumerate() {
        let prefix = index("medium", m);
        let g = cx.group(item, &prefix)?;
        let spec = yawmd_medium(cx, g, item.pos, &prefix)?;
        if let Some(other) = ids.insert(spec.id, m) {
            let id_pos = g.get("id").map_or(item.pos, |s| s.value.pos);
            return Err(cx.err(
                id_pos,
                &join(&prefix, "id"),
                format!("medium id {} is used twice (also medium[{other}])", spec.id),
            ));
        }
        for (i, iface) in spec.interfaces.iter().enumerate() {
            // Within a medium repeats were refused already; here, across media.
            if let Some((o, j)) = macs.insert(iface.mac, (m, i)) {
                return Err(cx.err(
                    iface.pos,
                    &index(&join(&prefix, "interfaces"), i),
                    format!("MAC address {} is already in medium[{o}].interfaces[{j}]", iface.mac),
                ));
            }
        }
        media.push(spec);
    }
    Ok(media)
}

fn yawmd_medium(
    cx: &mut Cx<'_>,
    g: &Group,
    pos: Pos,
    prefix: &str,
) -> Result<MediumSpec, ConfigError> {
    for s in g {
        if !YA_MEDIUM_KEYS.contains(&s.name.as_str()) {
            cx.warn(s.pos, &join(prefix, &s.name), "unknown setting, ignored");
        }
    }
    let need = |cx: &Cx<'_>, name: &str, what: &str| {
        g.get(name).ok_or_else(|| {
            cx.err(pos, &join(prefix, name), format!("missing: every medium needs {what}"))
        })
    };
    let id_s = need(cx, "id", "an integer `id`")?;
    let id = cx.int32(&id_s.value, &join(prefix, "id"))?;
    let ifaces_s = need(cx, "interfaces", "`interfaces`, an array of MAC addresses")?;
    let ikey = join(prefix, "interfaces");
    let interfaces = cx.macs(ifaces_s, &ikey)?;
    cx.warn_multicast(&interfaces, &ikey);
    let n = interfaces.len();
    let model_s = need(cx, "model", "a `model` group")?;
    let mprefix = join(prefix, "model");
    let mg = cx.group(&model_s.value, &mprefix)?;
    let type_s = mg.get("type").ok_or_else(|| {
        cx.err(
            model_s.value.pos,
            &join(&mprefix, "type"),
            "missing: \"snr\", \"prob\" or \"path_loss\"",
        )
    })?;
    let tkey = join(&mprefix, "type");
    let ty = cx.string(&type_s.value, &tkey)?;
    let own: &[&str] = match ty {
        "snr" => YA_SNR_KEYS,
        "prob" => YA_PROB_KEYS,
        "path_loss" => YA_PATH_LOSS_KEYS,
        _ => {
            return Err(cx.err(
                type_s.value.pos,
                &tkey,
                format!("unknown model type {ty:?}: expected \"snr\", \"prob\" or \"path_loss\""),
            ))
        }
    };
    for s in mg {
        let name = s.name.as_str();
        if name == "type" || own.contains(&name) {
            continue;
        }
        let key = join(&mprefix, name);
        let owner = if YA_SNR_KEYS.contains(&name) {
            Some("snr")
        } else if YA_PROB_KEYS.contains(&name) {
            Some("prob")
        } else if YA_PATH_LOSS_KEYS.contains(&name) {
            Some("path_loss")
        } else {
            None
        };
        match owner {
            Some(o) => cx.warn(s.pos, &key, format!("ignored: only used with type = \"{o}\"")),
            None => cx.warn(s.pos, &key, "unknown setting, ignored"),
        }
    }
    let mut spec = MediumSpec {
        id,
        pos,
        interfaces,
        interference: false,
        noise_dbm: DEFAULT_NOISE_DBM,
        fading_coefficient: 0,
        medium_detection: None,
        model: Model::Snr(SnrModel { default_snr: YAWMD_DEFAULT_SNR, links: Vec::new() }),
    };
    let links_key = join(&mprefix, "links");
    spec.model = match ty {
        "snr" => {
            let default_snr = match mg.get("default_snr") {
                Some(s) => cx.int32(&s.value, &join(&mprefix, "default_snr"))?,
                None => YAWMD_DEFAULT_SNR,
            };
            let links = match mg.get("links") {
                Some(s) => cx.links(s, &links_key, n, false, |cx, v, k| cx.int32(v, k))?,
                None => Vec::new(),
            };
            Model::Snr(SnrModel { default_snr, links })
        }
        "prob" => {
            let default_prob = match mg.get("default_probability") {
                Some(s) => cx.probability(&s.value, &join(&mprefix, "default_probability"))?,
                None => YAWMD_DEFAULT_PROB,
            };
            let links = match mg.get("links") {
                Some(s) => cx.links(s, &links_key, n, false, |cx, v, k| cx.probability(v, k))?,
                None => Vec::new(),
            };
            Model::Prob(ProbModel { default_prob, links })
        }
        _ => {
            if let Some(s) = mg.get("simulate_interference") {
                spec.interference =
                    cx.boolean(&s.value, &join(&mprefix, "simulate_interference"))?;
            }
            if let Some(s) = mg.get("noise_level") {
                spec.noise_dbm = cx.int32(&s.value, &join(&mprefix, "noise_level"))?;
            }
            if let Some(s) = mg.get("fading_coefficient") {
                spec.fading_coefficient = cx.fading(s, &join(&mprefix, "fading_coefficient"))?;
            }
            let name_key = join(&mprefix, "model_name");
            let name_s = mg.get("model_name").ok_or_else(|| {
                cx.err(model_s.value.pos, &name_key, "missing: path_loss needs a model_name")
            })?;
            let name = cx.string(&name_s.value, &name_key)?;
            let pkey = join(&mprefix, "model_params");
            let params_s = mg.get("model_params").ok_or_else(|| {
                cx.err(model_s.value.pos, &pkey, "missing: path_loss needs a model_params group")
            })?;
            let pg = cx.group(&params_s.value, &pkey)?;
            let (path_loss, nakagami_m) = build_path_loss(
                cx,
                name,
                &name_s.value,
                &name_key,
                &Params::Group(pg, pkey.clone()),
                true,
            )?;
            Model::PathLoss(Box::new(stations(
                cx,
                mg,
                &mprefix,
                model_s.value.pos,
                n,
                true,
                path_loss,
                nakagami_m,
            )?))
        }
    };
    Ok(spec)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: &str) -> Config {
        parse_config(text, "t.cfg").unwrap_or_else(|e| panic!("{e}"))
    }

    fn bad(text: &str) -> ConfigError {
        match parse_config(text, "t.cfg") {
            Ok(c) => panic!("accepted: {c:?}"),
            Err(e) => e,
        }
    }

    const IDS: &str = "ifaces: { ids = [\"02:00:00:00:00:00\", \"02:00:00:00:01:00\", \"02:00:00:00:02:00\"]; };\n";

    #[test]
    fn mac_addresses() {
        assert_eq!(parse_mac("02:00:0a:FF:0:1"), Ok(MacAddress([2, 0, 10, 255, 0, 1])));
        assert_eq!(MacAddress([2, 0, 10, 255, 0, 1]).to_string(), "02:00:0a:ff:00:01");
        for s in [
            "00:00:00:00:01",
            "00:00:Z0:00:00:00",
            "00:00:00:00:00:00:00",
            "000:00:00:00:00:00",
            "",
            "0:0:0:0:0:",
        ] {
            assert!(parse_mac(s).is_err(), "{s}");
        }
    }

    #[test]
    fn snr_links_are_mirrored_in_wmediumd() {
        let c = ok(&format!("{IDS}model: {{ type = \"snr\"; default_snr = 7; links = ((0, 1, 10), (1, 2, 20), (2, 1, 25)); }};"));
        let Model::Snr(m) = &c.media[0].model else { panic!() };
        assert_eq!(m.matrix(3), vec![7, 10, 7, 10, 7, 20, 7, 25, 7]);
        assert_eq!(m.links.iter().filter(|l| l.mirrored).count(), 1);
        assert!(c.warnings.is_empty(), "{:?}", c.warnings);
        // A pair given twice: the last one is in force, and it is what gets mirrored.
        let c = ok(&format!(
            "{IDS}model: {{ type = \"snr\";\n links = ((0, 1, 10),\n (0, 1, 12)); }};"
        ));
        let Model::Snr(m) = &c.media[0].model else { panic!() };
        assert_eq!((m.matrix(3)[1], m.matrix(3)[3]), (12, 12));
        assert_eq!(
            c.warnings,
            vec!["t.cfg:4:2: model.links[1]: replaces the link 0 -> 1 given at line 3".to_string()]
        );
    }

    #[test]
    fn prob_defaults_and_range() {
        let c = ok(&format!("{IDS}model: {{ type = \"prob\"; links = ((0, 2, 0.5)); }};"));
        let Model::Prob(m) = &c.media[0].model else { panic!() };
        assert_eq!(m.matrix(3)[2], 0.5);
        assert_eq!(m.matrix(3)[6], 0.5);
        assert_eq!(m.matrix(3)[1], WMEDIUMD_DEFAULT_PROB);
        let e = bad(&format!("{IDS}model: {{ type = \"prob\";\n links = ((0, 2, 1.5)); }};"));
        assert_eq!((e.line, e.key_path.as_deref()), (3, Some("model.links[0][2]")));
    }

    #[test]
    fn errors_name_line_and_key() {
        let e = bad(&format!(
            "{IDS}model: {{\n type = \"snr\";\n links = (\n (0, 1, 10),\n (0, 3, 20)\n );\n}};"
        ));
        assert_eq!(e.to_string(), "t.cfg:6:6: model.links[1][1]: interface index 3 is out of range: there are 3 interfaces (0..=2)");
        let e = bad("ifaces: { ids = [\"02:00:00:00:00:00\", \"02:00:00:00:01\"]; };");
        assert_eq!((e.line, e.column, e.key_path.as_deref()), (1, 39, Some("ifaces.ids[1]")));
        let e = bad(&format!("{IDS}model: {{ type = \"path_loss\"; model_name = \"log_distance\"; path_loss_exp = 3.0; xg = 0.0;\n positions = ((0.0, 0.0), (1.0, 0.0)); tx_powers = (15, 15, 15); }};"));
        assert_eq!((e.line, e.key_path.as_deref()), (3, Some("model.positions")));
        assert!(e.message.contains("2 entries, but there are 3 interfaces"), "{e}");
        let e = bad(&format!("{IDS}model: {{ type = \"snr\"; links = ((0, 1, 1.5)); }};"));
        assert!(e.message.contains("expected an integer, found a float (1.5)"), "{e}");
        let e = bad(&format!("{IDS}model: {{ type = \"fancy\"; }};"));
        assert_eq!(e.key_path.as_deref(), Some("model.type"));
        let e = bad(&format!("{IDS}model: {{ links = (); }};"));
        assert_eq!(e.key_path.as_deref(), Some("model.type"));
        let e = bad("ifaces: { count = 3; ids = [\"02:00:00:00:00:00\"]; };");
        assert_eq!(e.key_path.as_deref(), Some("ifaces.count"));
        let e = bad("a = 1;");
        assert_eq!(e.to_string(), "t.cfg:1:1: ifaces: missing: a wmediumd configuration needs an `ifaces` group (a yawmd one a `medium` list)");
    }

    #[test]
    fn path_loss_models_map_onto_phy() {
        let base = format!("{IDS}model: {{ type = \"path_loss\"; positions = ((0.0, 0.0), (1.0, 0.0, 2.0), (0, 5)); tx_powers = (15, 15.5, 11); ");
        let model = |extra: &str| {
            let c = ok(&format!("{base}{extra} }};"));
            match &c.media[0].model {
                Model::PathLoss(p) => ((**p).clone(), c.warnings.clone()),
                m => panic!("{m:?}"),
            }
        };
        let (p, w) = model("model_name = \"log_distance\"; path_loss_exp = 3.5; xg = 1.0;");
        assert_eq!(
            p.path_loss,
            PathLoss::LogDistance { exponent: 3.5, ref_distance_m: 1.0, sl_db: 1.0 }
        );
        assert_eq!(p.positions[1], [1.0, 0.0, 2.0]);
        assert_eq!(p.tx_powers_dbm, vec![15.0, 15.5, 11.0]);
        assert_eq!(p.antenna_gains_dbi, vec![WMEDIUMD_ANTENNA_GAIN_DBI; 3]);
        assert!(w.is_empty(), "{w:?}");
        let (p, _) = model("model_name = \"free_space\"; sL = 10;");
        assert_eq!(p.path_loss, PathLoss::FreeSpace { sl_db: 10.0 });
        let (p, w) = model("model_name = \"log_normal_shadowing\"; path_loss_exp = 2.5; sL = 1;");
        assert_eq!(
            p.path_loss,
            PathLoss::LogNormalShadowing {
                exponent: 2.5,
                ref_distance_m: 1.0,
                sigma_db: 1.0,
                sl_db: 0.0
            }
        );
        assert_eq!(w.len(), 1, "{w:?}");
        let (p, _) = model("model_name = \"two_ray_ground\"; sL = 1;");
        assert_eq!(
            p.path_loss,
            PathLoss::TwoRayGround { tx_height_m: 1.0, rx_height_m: 1.0, sl_db: 0.0 }
        );
        assert!(!p.heights_from_z);
        let (p, _) = model("model_name = \"itu\"; nFLOORS = 2; lF = 15; pL = 30;");
        assert_eq!(
            p.path_loss,
            PathLoss::Itu { n_floors: 2, floor_loss_db: 15.0, power_loss_coefficient: 30.0 }
        );
        let (p, _) = model("model_name = \"nakagami\"; m = 2.0;");
        assert_eq!(p.nakagami_m, Some(2.0));
        assert_eq!(
            p.path_loss,
            PathLoss::LogDistance { exponent: 2.0, ref_distance_m: 1.0, sl_db: 0.0 }
        );
        let (_, w) =
            model("model_name = \"free_space\"; sL = 1; xg = 3.0; band = 2; default_prob = 1.0;");
        assert_eq!(w.len(), 3, "{w:?}");
        assert!(w[0].contains("2:144: model.xg: ignored: not a parameter"), "{w:?}");
        assert!(w[1].contains("model.band: unknown setting"), "{w:?}");
        let e = bad(&format!("{base} model_name = \"log_distance\"; path_loss_exp = 3.5; }};"));
        assert!(e.message.contains("needs `xg`"), "{e}");
        let e = bad(&format!("{base} model_name = \"free_space\"; sL = 0; }};"));
        assert_eq!(e.key_path.as_deref(), Some("model.sL"));
        let e = bad(&format!("{base} model_name = \"itu\"; nFLOORS = 1.5; lF = 1; pL = 1; }};"));
        assert_eq!(e.key_path.as_deref(), Some("model.nFLOORS"));
    }

    #[test]
    fn yawmd_media() {
        let c = ok(r#"medium = (
            { id = 1; interfaces = ["02:00:00:00:00:00", "02:00:00:00:01:00"];
              model = { type = "snr"; links = ((0, 1, 10)); }; },
            { id = 2; interfaces = ["02:00:00:00:02:00"];
              model = { type = "path_loss"; positions = ((0.0, 0.0, 3.0)); tx_powers = [20];
                        model_name = "two_ray_ground"; model_params = { system_loss = 1; }; simulate_interference = true; }; }
        );"#);
        assert_eq!(c.dialect, Dialect::Yawmd);
        assert_eq!(c.media.len(), 2);
        let Model::Snr(m) = &c.media[0].model else { panic!() };
        assert_eq!(m.matrix(2), vec![YAWMD_DEFAULT_SNR, 10, YAWMD_DEFAULT_SNR, YAWMD_DEFAULT_SNR]);
        let Model::PathLoss(p) = &c.media[1].model else { panic!() };
        assert!(p.heights_from_z);
        assert!(c.media[1].interference);
        let e = bad(
            r#"medium = ( { id = 1; interfaces = ["02:00:00:00:00:00"]; model = { type = "snr"; }; },
                                { id = 1; interfaces = ["02:00:00:00:01:00"]; model = { type = "snr"; }; } );"#,
        );
        assert_eq!((e.line, e.key_path.as_deref()), (2, Some("medium[1].id")));
        let e = bad(
            r#"medium = ( { id = 1; interfaces = ["02:00:00:00:00:00"]; model = { type = "snr"; }; },
                                { id = 2; interfaces = ["02:00:00:00:00:00"]; model = { type = "snr"; }; } );"#,
        );
        assert_eq!(e.key_path.as_deref(), Some("medium[1].interfaces[0]"));
    }

    #[test]
    fn legacy_path_loss_group() {
        let c = ok(&format!("{IDS}path_loss: {{ positions = ((0.0, 0.0), (1.0, 1.0), (2.0, 2.0)); tx_powers = (1.0, 2.0, 3.0);\n model_params = (\"log_distance\", 3.5, 0.5); }};"));
        let Model::PathLoss(p) = &c.media[0].model else { panic!() };
        assert_eq!(
            p.path_loss,
            PathLoss::LogDistance { exponent: 3.5, ref_distance_m: 1.0, sl_db: 0.5 }
        );
        let e = bad(&format!("{IDS}path_loss: {{ positions = ((0.0, 0.0), (1.0, 1.0), (2.0, 2.0)); tx_powers = (1.0, 2.0, 3.0);\n model_params = (\"log_distance\", 3.5); }};"));
        assert_eq!((e.line, e.key_path.as_deref()), (3, Some("path_loss.model_params")));
    }
}
