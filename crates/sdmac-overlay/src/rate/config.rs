//! The adaptation's parameters and their checks.

use super::error::RateError;
use sdmac_api::{Rate, Span};
use sdmac_phy::{Phy, LEGACY_RATES};

/// Parameters of the adaptation.
#[derive(Clone, Debug, PartialEq)]
pub struct MinstrelConfig {
    /// PHY timing, for the airtime of each rate.
    pub phy: Phy,
    /// Candidate rates (empty: the standard's legacy rates).
    pub rates: Vec<Rate>,
    /// Share of packets that probe another rate (0..1; Minstrel uses 0.1).
    pub sample_share: f64,
    /// Weight of the newest interval in the EWMA of the success probability (0..=1;
    /// Minstrel uses 0.25).
    pub ewma_weight: f64,
    /// How often (backend time) the probabilities and the ranking are updated.
    pub update_interval: Span,
    /// Tries of the four entries: best throughput, second best, best probability,
    /// lowest.
    pub tries: [u8; 4],
    /// Seed of the sampling draws.
    pub seed: u64,
}

impl MinstrelConfig {
    /// Minstrel's usual parameters on `phy`: every legacy rate of its standard, 10 %
    /// sampling, EWMA weight 0.25, updates every 50 ms, two tries per entry.
    pub fn new(phy: Phy) -> MinstrelConfig {
        MinstrelConfig {
            phy,
            rates: Vec::new(),
            sample_share: 0.1,
            ewma_weight: 0.25,
            update_interval: Span::from_ms(50),
            tries: [2, 2, 2, 2],
            seed: 1,
        }
    }

    /// The candidate rates, lowest first, or why they cannot be used.
    pub(super) fn candidates(&self) -> Result<Vec<Rate>, RateError> {
        if !(0.0..1.0).contains(&self.sample_share) {
            return Err(RateError::SampleShare(self.sample_share));
        }
        if !(self.ewma_weight > 0.0 && self.ewma_weight <= 1.0) {
            return Err(RateError::EwmaWeight(self.ewma_weight));
        }
        if self.update_interval.is_zero() {
            return Err(RateError::ZeroInterval);
        }
        if let Some((entry, &tries)) =
            self.tries.iter().enumerate().find(|(_, &t)| t == 0 || t > sdmac_api::MAX_TRIES)
        {
            return Err(RateError::Tries { entry, tries });
        }
        let std = self.phy.standard;
        let mut rates: Vec<Rate> = if self.rates.is_empty() {
            LEGACY_RATES.iter().copied().filter(|r| std.supports(*r)).collect()
        } else {
            self.rates.clone()
        };
        if rates.is_empty() {
            return Err(RateError::NoRates);
        }
        if let Some(r) = rates.iter().find(|r| !std.supports(**r)) {
            return Err(RateError::UnsupportedRate { rate: *r, standard: std.name() });
        }
        for (k, r) in rates.iter().enumerate() {
            if rates[..k].contains(r) {
                return Err(RateError::DuplicateRate(*r));
            }
        }
        rates.sort_by_key(|r| r.kbps());
        Ok(rates)
    }
}
