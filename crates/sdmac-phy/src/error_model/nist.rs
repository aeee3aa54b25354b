//! The "NIST" OFDM error model.
//!
//! The model ns-3 calls `NistErrorRateModel`, published by G. Pei and T. R. Henderson,
//! "Validation of OFDM error rate model in ns-3" (Boeing Research & Technology, 2010),
//! after the NIST (National Institute of Standards and Technology) comparison of
//! 802.11 error models. It has two steps:
//!
//! 1. The uncoded bit error probability p of the subcarrier modulation at the SNR
//!    (signal power over noise power in the channel bandwidth, i.e. per symbol):
//!    - BPSK: p = ½·erfc(√snr)
//!    - QPSK (Gray): p = ½·erfc(√(snr/2))
//!    - square M-QAM (Gray): p ≈ (4/log₂M)·(1 − 1/√M)·Q(√(3·snr/(M − 1)))
//!      (the nearest-neighbour approximation, e.g. Goldsmith, *Wireless
//!      Communications*, 2005, ch. 6; Proakis, *Digital Communications*), so
//!      16-QAM: ¾·Q(√(snr/5)), 64-QAM: (7/12)·Q(√(snr/21)), 256-QAM (VHT):
//!      (15/32)·Q(√(snr/85)).
//! 2. A union bound on the bit error probability after hard-decision Viterbi decoding
//!    of the convolutional code (Pursley & Taipale, "Error probabilities for
//!    spread-spectrum packet radio with convolutional codes and Viterbi decoding",
//!    IEEE Trans. Commun. 35(1), 1987, with the Bhattacharyya bound on the pairwise
//!    error probability): P_b ≤ (1/(2k))·Σ_d c_d·D^d, D = √(4p(1 − p)), summed over the
//!    first ten non-zero terms of the information-weight spectrum c_d of
//!    [`super::conv`] (k = 1, 2, 3, 5 information bits per puncturing period for rates
//!    1/2, 2/3, 3/4, 5/6).
//!
//! A chunk of n data bits is received correctly with probability (1 − min(P_b, 1))ⁿ.

use super::conv::{spectrum, DistanceSpectrum};
use super::math::{all_bits_correct, erfc, q};
use crate::rate::{CodeRate, Modulation, Rate};

/// Uncoded bit error probability of an OFDM subcarrier modulation at a linear SNR
/// (per symbol). `None` for modulations the model does not cover (DSSS/CCK, ideal).
pub fn uncoded_ber(modulation: Modulation, snr: f64) -> Option<f64> {
    let snr = snr.max(0.0); // NaN and negative ratios count as no signal
    Some(match modulation {
        Modulation::Bpsk => 0.5 * erfc(snr.sqrt()),
        Modulation::Qpsk => 0.5 * erfc((snr / 2.0).sqrt()),
        Modulation::Qam16 => qam_ber(16.0, snr),
        Modulation::Qam64 => qam_ber(64.0, snr),
        Modulation::Qam256 => qam_ber(256.0, snr),
        _ => return None,
    })
}

/// (4/log₂M)·(1 − 1/√M)·Q(√(3·snr/(M − 1))), capped at ½.
fn qam_ber(m: f64, snr: f64) -> f64 {
    let ber = 4.0 / m.log2() * (1.0 - 1.0 / m.sqrt()) * q((3.0 * snr / (m - 1.0)).sqrt());
    ber.min(0.5)
}

/// Union bound on the decoded bit error probability for uncoded bit error probability
/// `p` (clamped to [0, ½]): (1/(2k))·Σ c_d·D^d with D = √(4p(1 − p)), capped at 1.
/// For [`CodeRate::None`] it is `p` itself.
pub fn coded_ber(p: f64, code_rate: CodeRate) -> f64 {
    let p = if p.is_nan() { 0.5 } else { p.clamp(0.0, 0.5) };
    match spectrum(code_rate) {
        None => p,
        Some(s) => union_bound(s, (4.0 * p * (1.0 - p)).sqrt()),
    }
}

/// (1/(2k))·Σ_i c_i·D^(d_free + i), capped at 1.
fn union_bound(s: &DistanceSpectrum, d: f64) -> f64 {
    if d <= 0.0 {
        return 0.0;
    }
    let mut sum = 0.0;
    let mut dpow = d.powi(s.d_free as i32);
    for &c in s.c {
        sum += c as f64 * dpow;
        dpow *= d;
    }
    (sum / (2.0 * s.period as f64)).min(1.0)
}

/// Probability that `nbits` data bits sent at `rate` (an OFDM or HT rate) under a
/// constant linear SNR `sinr` are all correct; `None` if `rate` is not an OFDM/HT rate.
pub fn chunk_success(rate: Rate, sinr: f64, nbits: u64) -> Option<f64> {
    let p = uncoded_ber(rate.modulation(), sinr)?;
    Some(all_bits_correct(coded_ber(p, rate.code_rate()), nbits))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uncoded_ber_formulas() {
        // BPSK at 0 dB: ½·erfc(1).
        let b = uncoded_ber(Modulation::Bpsk, 1.0).unwrap();
        assert!((b - 0.078_649_603_525_142_56).abs() < 1e-15);
        // 16-QAM reduces to ¾·½·erfc(√(snr/10)).
        let s = 30.0;
        let v = uncoded_ber(Modulation::Qam16, s).unwrap();
        assert!((v - 0.75 * 0.5 * erfc((s / 10.0_f64).sqrt())).abs() < 1e-15);
        let v = uncoded_ber(Modulation::Qam64, s).unwrap();
        assert!((v - 7.0 / 12.0 * 0.5 * erfc((s / 42.0_f64).sqrt())).abs() < 1e-15);
        assert_eq!(uncoded_ber(Modulation::Dbpsk, 1.0), None);
    }

    #[test]
    fn coded_ber_edges() {
        assert_eq!(coded_ber(0.0, CodeRate::R1_2), 0.0);
        assert_eq!(coded_ber(0.5, CodeRate::R3_4), 1.0);
        assert_eq!(coded_ber(0.01, CodeRate::None), 0.01);
        // Leading term dominates at small p: ½·36·D^10.
        let p: f64 = 1e-6;
        let d = (4.0 * p * (1.0 - p)).sqrt();
        let lead = 0.5 * 36.0 * d.powi(10);
        assert!((coded_ber(p, CodeRate::R1_2) / lead - 1.0).abs() < 1e-3);
    }
}
