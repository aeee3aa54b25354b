//! How a configured medium models its links (snr, prob or path loss), and what it
//! says about one radio or one pair. Radios are named by a predicate over addresses,
//! since a radio is known by its hwsim address and its interface addresses.

use crate::address::Mac;
use sdmac_medium::LinkOverride;
use sdmac_phy::propagation::PathLoss;

/// How links are modelled.
#[derive(Clone, Debug, PartialEq)]
pub enum LinkModel {
    /// Every pair at this SNR (dB), with per-pair overrides by interface address.
    Snr {
        /// Default SNR (dB).
        default_snr_db: f64,
        /// (from, to, SNR dB).
        links: Vec<(Mac, Mac, f64)>,
    },
    /// Every pair with this loss probability (strong signal), with per-pair overrides.
    Prob {
        /// Default probability.
        default_prob: f64,
        /// (from, to, probability).
        links: Vec<(Mac, Mac, f64)>,
    },
    /// Positions and a propagation model.
    PathLoss {
        /// The model.
        model: PathLoss,
        /// Position (m) per interface address.
        positions: Vec<(Mac, [f64; 3])>,
        /// Transmit power (dBm) per interface address.
        tx_power_dbm: Vec<(Mac, f64)>,
    },
}

/// A runtime link setting to remember.
#[derive(Copy, Clone, Debug)]
pub(crate) enum LinkKnob {
    /// SNR (dB), both directions.
    Snr(f64),
    /// Error probability, one direction.
    Prob(f64),
}

/// The SNR the prob model gives every link (strong, so only the probability loses).
const PROB_MODEL_SNR_DB: f64 = 30.0;

impl LinkModel {
    /// The engine override of the link from the radio `from` recognises to the one `to`
    /// recognises; None when the link follows positions (path loss).
    pub(crate) fn link_override(
        &self,
        from: impl Fn(&Mac) -> bool,
        to: impl Fn(&Mac) -> bool,
    ) -> Option<LinkOverride> {
        match self {
            LinkModel::Snr { default_snr_db, links } => {
                let snr = links
                    .iter()
                    .find(|(f, t, _)| from(f) && to(t))
                    .map_or(*default_snr_db, |l| l.2);
                Some(LinkOverride { snr_db: Some(snr), ..LinkOverride::default() })
            }
            LinkModel::Prob { default_prob, links } => {
                let p =
                    links.iter().find(|(f, t, _)| from(f) && to(t)).map_or(*default_prob, |l| l.2);
                Some(LinkOverride {
                    snr_db: Some(PROB_MODEL_SNR_DB),
                    error_prob: Some(p.clamp(0.0, 1.0)),
                    ..LinkOverride::default()
                })
            }
            LinkModel::PathLoss { .. } => None,
        }
    }

    /// The SNR (dB) of the link `from` → `to` in the snr model; the prob model's fixed
    /// SNR otherwise.
    pub(crate) fn snr_db(&self, from: impl Fn(&Mac) -> bool, to: impl Fn(&Mac) -> bool) -> f64 {
        match self {
            LinkModel::Snr { default_snr_db, links } => {
                links.iter().find(|(f, t, _)| from(f) && to(t)).map_or(*default_snr_db, |l| l.2)
            }
            _ => PROB_MODEL_SNR_DB,
        }
    }

    /// Keeps a runtime link change between interfaces `a` and `b`, so media created
    /// later (and links restored later) have it.
    pub(crate) fn remember(&mut self, a: Mac, b: Mac, knob: LinkKnob) {
        match (self, knob) {
            (LinkModel::Snr { links, .. }, LinkKnob::Snr(v)) => {
                links.retain(|l| !((l.0 == a && l.1 == b) || (l.0 == b && l.1 == a)));
                links.push((a, b, v));
                links.push((b, a, v));
            }
            (LinkModel::Prob { links, .. }, LinkKnob::Prob(v)) => {
                links.retain(|l| !(l.0 == a && l.1 == b));
                links.push((a, b, v));
            }
            _ => {}
        }
    }

    /// The configured position (origin if none) and transmit power of the radio `is`
    /// recognises.
    pub(crate) fn placement(&self, is: impl Fn(&Mac) -> bool) -> ([f64; 3], Option<f64>) {
        match self {
            LinkModel::PathLoss { positions, tx_power_dbm, .. } => {
                let pos = positions.iter().find(|(a, _)| is(a)).map_or([0.0; 3], |p| p.1);
                (pos, tx_power_dbm.iter().find(|(a, _)| is(a)).map(|p| p.1))
            }
            _ => ([0.0; 3], None),
        }
    }

    /// Positions and a propagation model?
    pub fn is_path_loss(&self) -> bool {
        matches!(self, LinkModel::PathLoss { .. })
    }

    /// The log-normal shadowing model, where Mininet-WiFi's Gaussian random term applies?
    pub fn is_log_normal_shadowing(&self) -> bool {
        matches!(self, LinkModel::PathLoss { model: PathLoss::LogNormalShadowing { .. }, .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: Mac = Mac::new([2, 0, 0, 0, 0, 0]);
    const B: Mac = Mac::new([2, 0, 0, 0, 1, 0]);

    #[test]
    fn snr_links_default_and_remembered() {
        let mut m = LinkModel::Snr { default_snr_db: 20.0, links: vec![(A, B, 5.0)] };
        assert_eq!(m.snr_db(|x| *x == A, |x| *x == B), 5.0);
        assert_eq!(m.snr_db(|x| *x == B, |x| *x == A), 20.0);
        m.remember(B, A, LinkKnob::Snr(9.0));
        assert_eq!(m.link_override(|x| *x == A, |x| *x == B).unwrap().snr_db, Some(9.0));
        assert_eq!(m.link_override(|x| *x == B, |x| *x == A).unwrap().snr_db, Some(9.0));
    }

    #[test]
    fn placement_needs_the_path_loss_model() {
        let pl = LinkModel::PathLoss {
            model: PathLoss::FreeSpace { sl_db: 0.0 },
            positions: vec![(A, [1.0, 2.0, 3.0])],
            tx_power_dbm: vec![(B, 7.0)],
        };
        assert_eq!(pl.placement(|x| *x == A), ([1.0, 2.0, 3.0], None));
        assert_eq!(pl.placement(|x| *x == B), ([0.0; 3], Some(7.0)));
        assert!(pl.link_override(|x| *x == A, |x| *x == B).is_none());
        assert!(!pl.is_log_normal_shadowing());
        let snr = LinkModel::Snr { default_snr_db: 20.0, links: vec![] };
        assert_eq!(snr.placement(|_| true), ([0.0; 3], None));
    }
}
