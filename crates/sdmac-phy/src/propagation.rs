//! Path-loss models: from a distance and a carrier frequency to a loss in dB.
//!
//! Every model returns a finite loss ≥ 0 dB for any input (never NaN): distances below
//! [`MIN_DISTANCE_M`] (and NaN) are clamped to it, frequencies below 1 MHz (and NaN)
//! to 1 MHz, and a result below 0 dB (possible only with negative system losses or a
//! strongly negative shadowing draw) to 0 dB. All models are non-decreasing in
//! distance. Randomness (shadowing) is an argument: the module draws nothing.
//!
//! | variant | formula (d in m, f in MHz, λ = c/f) | source |
//! |---|---|---|
//! | [`PathLoss::FreeSpace`] | 20·log10(4π·d/λ) + SL ≈ 20·log10(d) + 20·log10(f) − 27.55 + SL | Friis, Proc. IRE 1946 |
//! | [`PathLoss::LogDistance`] | FSPL(d₀) + 10·n·log10(d/d₀) + SL (free space below d₀) | Rappaport, *Wireless Communications*, §4.9.1 |
//! | [`PathLoss::LogNormalShadowing`] | log-distance + σ·X | Rappaport, §4.9.2 |
//! | [`PathLoss::TwoRayGround`] | free space below d_c = 4π·h_t·h_r/λ; 40·log10(d) − 20·log10(h_t·h_r) + SL above | Rappaport, §4.6 |
//! | [`PathLoss::Itu`] | 20·log10(f) + N·log10(d) + L_f(n) − 28 | ITU-R P.1238 (indoor), site-general model |
//!
//! The two-ray model is continuous at the crossover distance: at d_c both branches
//! equal 20·log10(4π·d_c/λ) = 20·log10(16π²·h_t·h_r/λ²).
//!
//! # wmediumd configurations
//!
//! How wmediumd (the Mininet-WiFi fork, `model.type = "path_loss"`) and yawmd name and
//! parameterize these models, and how they map onto the variants (facts read from
//! their `config.c`; yawmd's names are those of its `model_params` group):
//!
//! | wmediumd key (yawmd name) | meaning there | here |
//! |---|---|---|
//! | `model_name = "free_space"` | | [`PathLoss::FreeSpace`] |
//! | `sL` (`system_loss`), integer | linear factor L ≥ 1 multiplying (4πd/λ)² | `sl_db = 10·log10(sL)` |
//! | `model_name = "log_distance"` | FSPL(1 m) + 10·n·log10(d) + Xg | [`PathLoss::LogDistance`], `ref_distance_m = 1` |
//! | `path_loss_exp` (`path_loss_exponent`), float | n | `exponent` |
//! | `xg` (`xg`), float | constant offset, dB (not random despite its name) | `sl_db = xg` |
//! | `model_name = "log_normal_shadowing"` | FSPL(1 m) + 10·n·log10(d) − gRandom | [`PathLoss::LogNormalShadowing`], `ref_distance_m = 1`, `sigma_db = 1`, `sl_db = 0` |
//! | `path_loss_exp` (`path_loss_exponent`) | n | `exponent` |
//! | `sL` (`system_loss`) | required but not used | ignored |
//! | per-station gRandom (control message 21, default 1; yawmd: always 1) | shadowing in dB, *subtracted* | `shadowing_db = −gRandom` |
//! | `model_name = "two_ray_ground"` | | [`PathLoss::TwoRayGround`] |
//! | `sL` (`system_loss`) | required; yawmd uses it, the fork does not | `sl_db = 10·log10(sL)` |
//! | antenna heights (fork: fixed 1 m; yawmd: each station's z) | h_t, h_r | `tx_height_m`, `rx_height_m` |
//! | `model_name = "itu"` | | [`PathLoss::Itu`] |
//! | `nFLOORS` (`n_floors`), integer | floors between the stations | `n_floors` |
//! | `lF` (`floor_pen_factor`), integer | loss per floor, dB (L_f = lF·n) | `floor_loss_db` |
//! | `pL` (`power_loss_coefficient`), integer | N; 0 selects 28 up to 16 m, 38 beyond | `power_loss_coefficient` (≤ 0 selects the same) |
//!
//! Around them: `tx_powers` (dBm), antenna gains (fork: 5 dBi per station unless set
//! by control message 17; yawmd: `antenna_gain`) and the noise floor
//! (`noise_threshold`, yawmd `noise_level`, default −91 dBm). wmediumd computes
//! SNR = tx power + gain_tx + gain_rx − loss − noise with every term truncated to an
//! integer, with the frequency each station last transmitted on (MHz).
//!
//! What the forks compute wrongly, and what this module computes instead:
//! - **two_ray_ground**, Mininet-WiFi fork: it takes 20 MHz (a channel width) as the
//!   carrier frequency, ignores the heights (always 1 m) and divides λ by 1000, so the
//!   crossover is at ≈ 838 m whatever the band; below it, free space (with the real
//!   frequency); beyond it, P_t·G_t·G_r·h_t²·h_r²/d⁴ evaluated on the dBm/dBi numbers
//!   as if they were linear — a number near 0 returned as the loss in dB, so a station
//!   1 km away is heard at almost its transmit power. yawmd returns
//!   20·log10(h_t·h_r) − 40·log10(d) − 10·log10(L): the loss with its sign flipped, and
//!   no free-space region. Here: the textbook model with the carrier's λ, the
//!   configured heights, the crossover d_c = 4π·h_t·h_r/λ, and a positive loss.
//! - **itu**, both: the formula wants f in MHz and gets the station's frequency in MHz,
//!   but until a station has transmitted (e.g. when the configuration is loaded) its
//!   frequency is unknown and the code falls back to 2.412e9 — a value in Hz, so the
//!   loss is 60 dB too high. The other models work in Hz, where that fallback is right.
//!   Here: f is always the `freq_mhz` argument.
//! - **all models**: the result is truncated to whole dB and co-located stations
//!   (d = 0) give log10(0) = −∞ (`sL = 0` likewise); here losses are real numbers and
//!   distances are clamped.
//!
//! ITU-R P.1238 tabulates the floor penetration loss L_f(n) and the distance power loss
//! coefficient N per environment and band (e.g. N = 28 residential, 30 office, 22
//! commercial at 2.4 GHz; L_f(0) = 0), and is meant for d > 1 m; wmediumd's L_f = lF·n
//! and its 28/38 default are kept so configurations mean the same here. Distances
//! below 1 m are clamped to 1 m for this model.

use crate::units::SPEED_OF_LIGHT_M_S;

/// Smallest distance the models use, m (closer stations are treated as this far apart).
pub const MIN_DISTANCE_M: f64 = 0.1;

/// Smallest antenna height the two-ray model uses, m.
pub const MIN_HEIGHT_M: f64 = 0.01;

/// Smallest frequency the models use, MHz.
pub const MIN_FREQ_MHZ: f64 = 1.0;

/// Distance below which the ITU model is clamped (its validity limit), m.
pub const ITU_MIN_DISTANCE_M: f64 = 1.0;

/// A path-loss model. All losses in dB, distances in metres, frequencies in MHz.
#[derive(Clone, Debug, PartialEq)]
pub enum PathLoss {
    /// Friis free-space loss plus a system loss.
    FreeSpace {
        /// System loss, dB (wmediumd's linear `sL` → 10·log10(sL)).
        sl_db: f64,
    },
    /// Log-distance: free space up to the reference distance d₀, then
    /// 10·n·log10(d/d₀) more.
    LogDistance {
        /// Path-loss exponent n (2 = free space; negative values count as 0).
        exponent: f64,
        /// Reference distance d₀, m (at least [`MIN_DISTANCE_M`]).
        ref_distance_m: f64,
        /// Constant extra loss, dB (wmediumd's `xg`).
        sl_db: f64,
    },
    /// Log-distance plus log-normal shadowing σ·X, X = the caller's `shadowing_db`.
    LogNormalShadowing {
        /// Path-loss exponent n (negative values count as 0).
        exponent: f64,
        /// Reference distance d₀, m.
        ref_distance_m: f64,
        /// Standard deviation σ of the shadowing, dB.
        sigma_db: f64,
        /// Constant extra loss, dB.
        sl_db: f64,
    },
    /// Two-ray ground reflection: free space up to the crossover distance
    /// d_c = 4π·h_t·h_r/λ, then 40·log10(d) − 20·log10(h_t·h_r) (+ system loss on both).
    TwoRayGround {
        /// Transmit antenna height, m (at least [`MIN_HEIGHT_M`]).
        tx_height_m: f64,
        /// Receive antenna height, m (at least [`MIN_HEIGHT_M`]).
        rx_height_m: f64,
        /// System loss, dB.
        sl_db: f64,
    },
    /// ITU-R P.1238 indoor model: 20·log10(f) + N·log10(d) + n·L_f − 28.
    Itu {
        /// Floors between transmitter and receiver (wmediumd's `nFLOORS`).
        n_floors: u32,
        /// Penetration loss per floor, dB (wmediumd's `lF`).
        floor_loss_db: f64,
        /// Distance power loss coefficient N (wmediumd's `pL`); 0 or less selects
        /// wmediumd's default, N = 28 up to 16 m and 38 beyond.
        power_loss_coefficient: f64,
    },
}

impl PathLoss {
    /// Loss in dB at `distance_m` for a carrier at `freq_mhz`.
    ///
    /// `shadowing_db` is used only by [`PathLoss::LogNormalShadowing`], which adds
    /// `sigma_db · shadowing_db`: pass a standard normal draw (zero mean, unit
    /// variance), or a shadowing value already in dB with `sigma_db = 1`. The other
    /// models ignore it.
    pub fn loss_db(&self, distance_m: f64, freq_mhz: f64, shadowing_db: f64) -> f64 {
        let d = distance_m.max(MIN_DISTANCE_M);
        let f = freq_mhz.max(MIN_FREQ_MHZ);
        let loss = match *self {
            PathLoss::FreeSpace { sl_db } => free_space_loss_db(d, f) + sl_db,
            PathLoss::LogDistance { exponent, ref_distance_m, sl_db } => {
                log_distance(d, f, exponent, ref_distance_m) + sl_db
            }
            PathLoss::LogNormalShadowing { exponent, ref_distance_m, sigma_db, sl_db } => {
                let x = if shadowing_db.is_finite() { shadowing_db } else { 0.0 };
                log_distance(d, f, exponent, ref_distance_m) + sl_db + sigma_db * x
            }
            PathLoss::TwoRayGround { tx_height_m, rx_height_m, sl_db } => {
                let hh = tx_height_m.max(MIN_HEIGHT_M) * rx_height_m.max(MIN_HEIGHT_M);
                let dc = 4.0 * std::f64::consts::PI * hh / crate::units::wavelength_m(f);
                if d < dc {
                    free_space_loss_db(d, f) + sl_db
                } else {
                    40.0 * d.log10() - 20.0 * hh.log10() + sl_db
                }
            }
            PathLoss::Itu { n_floors, floor_loss_db, power_loss_coefficient } => {
                let d = d.max(ITU_MIN_DISTANCE_M);
                let n = if power_loss_coefficient > 0.0 {
                    power_loss_coefficient
                } else if d > 16.0 {
                    38.0
                } else {
                    28.0
                };
                20.0 * f.log10() + n * d.log10() + n_floors as f64 * floor_loss_db - 28.0
            }
        };
        // `max` also turns a NaN (from absurd parameters such as ∞ − ∞) into 0.
        loss.max(0.0)
    }

    /// The crossover distance of [`PathLoss::TwoRayGround`] at `freq_mhz`, m;
    /// `None` for the other models.
    pub fn crossover_distance_m(&self, freq_mhz: f64) -> Option<f64> {
        match *self {
            PathLoss::TwoRayGround { tx_height_m, rx_height_m, .. } => {
                let hh = tx_height_m.max(MIN_HEIGHT_M) * rx_height_m.max(MIN_HEIGHT_M);
                Some(
                    4.0 * std::f64::consts::PI * hh
                        / crate::units::wavelength_m(freq_mhz.max(MIN_FREQ_MHZ)),
                )
            }
            _ => None,
        }
    }

    /// wmediumd's `model_name` for this model.
    pub fn wmediumd_name(&self) -> &'static str {
        match self {
            PathLoss::FreeSpace { .. } => "free_space",
            PathLoss::LogDistance { .. } => "log_distance",
            PathLoss::LogNormalShadowing { .. } => "log_normal_shadowing",
            PathLoss::TwoRayGround { .. } => "two_ray_ground",
            PathLoss::Itu { .. } => "itu",
        }
    }
}

/// Log-distance loss without constant terms: free space below d₀, then the exponent.
fn log_distance(d: f64, f: f64, exponent: f64, ref_distance_m: f64) -> f64 {
    let d0 = if ref_distance_m.is_finite() { ref_distance_m.max(MIN_DISTANCE_M) } else { 1.0 };
    if d <= d0 {
        free_space_loss_db(d, f)
    } else {
        free_space_loss_db(d0, f) + 10.0 * exponent.max(0.0) * (d / d0).log10()
    }
}

/// Friis free-space path loss 20·log10(4π·d·f/c), dB (≈ 20·log10(d) + 20·log10(f) −
/// 27.55 with d in m and f in MHz). No clamping: may be negative for d ≪ λ.
pub fn free_space_loss_db(distance_m: f64, freq_mhz: f64) -> f64 {
    20.0 * (4.0 * std::f64::consts::PI * distance_m * freq_mhz * 1e6 / SPEED_OF_LIGHT_M_S).log10()
}

/// Received power, dBm: transmit power + transmit and receive antenna gains − loss.
pub fn received_power_dbm(
    tx_power_dbm: f64,
    tx_gain_dbi: f64,
    rx_gain_dbi: f64,
    loss_db: f64,
) -> f64 {
    tx_power_dbm + tx_gain_dbi + rx_gain_dbi - loss_db
}
