//! Fading: a random variation of the received signal, drawn anew for every reception.
//!
//! When on, the signal a receiver decodes a frame with is its link's mean received
//! power times a log-normal factor: F dB added to the power in dBm, with F zero-mean
//! Gaussian of standard deviation `sd_db`. F is drawn once per reception (every
//! attempt, every receiver, ACKs included) when the reception is decided, from a
//! stream of its own (stream 3 of the medium's seed: same seed, same draws). Off,
//! nothing is drawn and the engine's results are bit for bit those without fading.
//!
//! F changes what the receiver decodes with (the SINR of the frame's pieces, or the
//! signal a PER table is read at) and the signal reported for the reception. Carrier
//! sense, preamble detection and the interference a frame causes to others use the
//! link's mean power.
//!
//! This is wmediumd's `fading_coefficient` c with `sd_db = c`: wmediumd adds
//! c × (sum of 12 uniform draws − 6), cut to an integer, to a frame's SNR once per
//! frame — the same zero mean and standard deviation c, with integer steps and a
//! ±6c bound this continuous Gaussian does not have.

use crate::rng::SimRng;

/// Stream of the medium seed the fading draws come from.
const FADING_STREAM: u64 = 3;

/// Fading state of a medium.
#[derive(Clone, Debug)]
pub(crate) struct Fading {
    /// Standard deviation of F, dB (> 0).
    pub sd_db: f64,
    rng: SimRng,
}

impl Fading {
    /// Fading of standard deviation `sd_db` (dB), or None (off) when `sd_db` is 0,
    /// negative or not finite; its draws come from its own stream of `seed`.
    pub fn new(sd_db: f64, seed: u64) -> Option<Fading> {
        (sd_db.is_finite() && sd_db > 0.0)
            .then(|| Fading { sd_db, rng: SimRng::new(seed, FADING_STREAM) })
    }

    /// Draws F (dB) for one reception.
    pub fn draw_db(&mut self) -> f64 {
        self.sd_db * self.rng.gaussian()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_are_zero_mean_with_the_given_spread() {
        let mut f = Fading { sd_db: 4.0, rng: SimRng::new(11, FADING_STREAM) };
        let n = 100_000;
        let x: Vec<f64> = (0..n).map(|_| f.draw_db()).collect();
        let mean = x.iter().sum::<f64>() / n as f64;
        let sd = (x.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n as f64).sqrt();
        assert!(mean.abs() < 0.05, "{mean}");
        assert!((sd - 4.0).abs() < 0.05, "{sd}");
        // About 68 % within one standard deviation, as a Gaussian.
        let within = x.iter().filter(|v| v.abs() < 4.0).count() as f64 / n as f64;
        assert!((within - 0.6827).abs() < 0.01, "{within}");
    }
}
