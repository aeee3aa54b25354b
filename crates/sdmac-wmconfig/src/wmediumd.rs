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

mod dialect_common;
mod dialect_wmediumd;
mod dialect_yawmd;
mod path_loss;
#[cfg(test)]
mod tests;
mod typed;

use dialect_wmediumd::wmediumd;
use dialect_yawmd::yawmd;
use path_loss::{build_path_loss, stations, Params};
use typed::{index, join, Cx};

use std::path::Path;

use sdmac_phy::PathLoss;
pub use sdmac_types::MacAddress;

use crate::libconfig::{self, Group, Pos};
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
