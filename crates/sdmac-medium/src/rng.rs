//! Explicitly seeded random numbers. Every stream is derived from the scenario seed, so
//! the same seed gives the same results bit for bit on every platform.

use rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// A seeded random stream (xoshiro256++).
#[derive(Clone, Debug)]
pub struct SimRng(Xoshiro256PlusPlus);

impl SimRng {
    /// A stream for `seed`, separated from other streams of the same seed by `stream`.
    pub fn new(seed: u64, stream: u64) -> SimRng {
        // SplitMix-style mixing keeps neighbouring (seed, stream) pairs unrelated.
        let mut z = seed ^ stream.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        SimRng(Xoshiro256PlusPlus::seed_from_u64(z ^ (z >> 31)))
    }

    /// A uniform integer in `0..=max` (exact: Lemire's method with rejection).
    pub fn uniform_inclusive(&mut self, max: u32) -> u32 {
        let range = max as u64 + 1;
        let mut m = self.0.next_u32() as u64 * range;
        if (m & 0xFFFF_FFFF) < range {
            // Reject the few low products that would bias the result.
            let threshold = ((1u64 << 32) - range) % range;
            while (m & 0xFFFF_FFFF) < threshold {
                m = self.0.next_u32() as u64 * range;
            }
        }
        (m >> 32) as u32
    }

    /// A uniform float in [0, 1) with 53 random bits.
    pub fn unit(&mut self) -> f64 {
        (self.0.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// An exponentially distributed value with the given mean.
    pub fn exponential(&mut self, mean: f64) -> f64 {
        -mean * (1.0 - self.unit()).ln()
    }

    /// A standard normal value (Box–Muller; one of the pair is discarded to keep the
    /// stream stateless).
    pub fn gaussian(&mut self) -> f64 {
        let u1 = 1.0 - self.unit(); // (0, 1]
        let u2 = self.unit();
        (-2.0 * u1.ln()).sqrt() * (2.0 * core::f64::consts::PI * u2).cos()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream_different_seed_different_stream() {
        let a: Vec<u32> = {
            let mut r = SimRng::new(1, 0);
            (0..8).map(|_| r.uniform_inclusive(1023)).collect()
        };
        let b: Vec<u32> = {
            let mut r = SimRng::new(1, 0);
            (0..8).map(|_| r.uniform_inclusive(1023)).collect()
        };
        let c: Vec<u32> = {
            let mut r = SimRng::new(2, 0);
            (0..8).map(|_| r.uniform_inclusive(1023)).collect()
        };
        let d: Vec<u32> = {
            let mut r = SimRng::new(1, 1);
            (0..8).map(|_| r.uniform_inclusive(1023)).collect()
        };
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_ne!(a, d);
    }

    #[test]
    fn uniform_covers_the_range_evenly() {
        let mut r = SimRng::new(7, 0);
        let mut counts = [0u32; 16];
        for _ in 0..160_000 {
            counts[r.uniform_inclusive(15) as usize] += 1;
        }
        for c in counts {
            assert!((9_400..10_600).contains(&c), "{counts:?}");
        }
        assert_eq!(r.uniform_inclusive(0), 0);
    }

    #[test]
    fn unit_mean_and_gaussian_moments() {
        let mut r = SimRng::new(3, 9);
        let n = 200_000;
        let mean_u: f64 = (0..n).map(|_| r.unit()).sum::<f64>() / n as f64;
        assert!((mean_u - 0.5).abs() < 0.005);
        let g: Vec<f64> = (0..n).map(|_| r.gaussian()).collect();
        let m = g.iter().sum::<f64>() / n as f64;
        let v = g.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / n as f64;
        assert!(m.abs() < 0.01 && (v - 1.0).abs() < 0.02, "{m} {v}");
    }
}
