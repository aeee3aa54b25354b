//! Radio units: dBm ↔ mW, dB ↔ linear ratios, thermal noise, the speed of light.
//!
//! Conventions used throughout the crate: powers are dBm (or mW where a name says so),
//! gains and losses dB, ratios such as an SNR "linear" when not in dB, frequencies MHz
//! unless a name says Hz, distances metres.

/// Speed of light in vacuum, m/s (exact by the SI definition of the metre).
pub const SPEED_OF_LIGHT_M_S: f64 = 299_792_458.0;

/// Boltzmann constant, J/K (exact since the 2019 SI redefinition).
pub const BOLTZMANN_J_K: f64 = 1.380_649e-23;

/// Reference temperature of noise-figure definitions, 290 K (IEEE Std 100 / ITU-R
/// P.372): thermal noise density kT₀ = −173.98 dBm/Hz, the "−174 dBm/Hz" of link
/// budgets.
pub const T0_KELVIN: f64 = 290.0;

/// Thermal noise power density kT₀ in dBm/Hz (≈ −173.975).
pub fn thermal_noise_density_dbm_hz() -> f64 {
    mw_to_dbm(BOLTZMANN_J_K * T0_KELVIN * 1e3)
}

/// Converts a power in dBm to mW: `10^(dbm/10)`.
pub fn dbm_to_mw(dbm: f64) -> f64 {
    10f64.powf(dbm / 10.0)
}

/// Converts a power in mW to dBm: `10·log10(mw)`; 0 mW gives −∞, negative or NaN
/// input gives NaN.
pub fn mw_to_dbm(mw: f64) -> f64 {
    10.0 * mw.log10()
}

/// Converts dB to a linear power ratio: `10^(db/10)`.
pub fn db_to_ratio(db: f64) -> f64 {
    10f64.powf(db / 10.0)
}

/// Converts a linear power ratio to dB: `10·log10(ratio)`; 0 gives −∞.
pub fn ratio_to_db(ratio: f64) -> f64 {
    10.0 * ratio.log10()
}

/// Thermal noise floor of a receiver in dBm: kT₀B·F, i.e. −173.98 dBm/Hz
/// + 10·log10(B) + NF (kT₀ at T₀ = 290 K, see [`T0_KELVIN`]).
///
/// 20 MHz with a 7 dB noise figure gives ≈ −93.97 dBm (ns-3's default noise figure is
/// 7 dB); 22 MHz (DSSS) with 7 dB ≈ −93.55 dBm.
pub fn thermal_noise_dbm(bandwidth_hz: f64, noise_figure_db: f64) -> f64 {
    thermal_noise_density_dbm_hz() + 10.0 * bandwidth_hz.log10() + noise_figure_db
}

/// Wavelength in metres of a carrier at `freq_mhz`: c / f.
pub fn wavelength_m(freq_mhz: f64) -> f64 {
    SPEED_OF_LIGHT_M_S / (freq_mhz * 1e6)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_round_trip() {
        assert!((dbm_to_mw(20.0) - 100.0).abs() < 1e-12);
        assert!((mw_to_dbm(1.0)).abs() < 1e-15);
        assert!((ratio_to_db(db_to_ratio(13.7)) - 13.7).abs() < 1e-12);
        assert_eq!(mw_to_dbm(0.0), f64::NEG_INFINITY);
    }

    #[test]
    fn thermal_noise_20mhz_nf7() {
        assert!((thermal_noise_dbm(20e6, 7.0) + 93.97).abs() < 0.01);
        assert!((thermal_noise_density_dbm_hz() + 173.975).abs() < 0.001);
    }
}
