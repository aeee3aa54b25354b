//! The set-up of the daemon's medium: every configured medium (the first inline, so
//! that a one-medium set-up reads as before), the seed, the error model, capture.

use crate::address::Mac;
use crate::link_model::LinkModel;
use crate::media::{MediumId, MediumSetup};
use crate::movement::Movement;

/// Set-up of the medium: the first configured medium (inline, so that a one-medium
/// set-up reads as before), further configured media, and what holds for all.
///
/// Radios the configuration does not list join the first medium: for a wmediumd
/// configuration the fork's medium 0 (the interfaces `medium_array` does not place),
/// for yawmd the first medium of the list. A "medium id" control request naming an id
/// no medium has creates that medium with the first one's model.
#[derive(Clone, Debug)]
pub struct Setup {
    /// Interface addresses of the radios the first medium lists, in order.
    pub interfaces: Vec<Mac>,
    /// Link model of the first medium.
    pub model: LinkModel,
    /// Noise floor of the first medium (dBm).
    pub noise_floor_dbm: f64,
    /// Id of the first medium.
    pub medium_id: MediumId,
    /// Fading of the first medium: standard deviation (dB) of the zero-mean Gaussian
    /// term added to the signal of every reception; 0: none.
    pub fading_db: f64,
    /// Movement of the first medium's stations.
    pub movement: Option<Movement>,
    /// Further configured media.
    pub more_media: Vec<MediumSetup>,
    /// Seed.
    pub seed: u64,
    /// Error model: a wmediumd PER table (`-x`) instead of the NIST model.
    pub per_table: Option<std::sync::Arc<sdmac_phy::error_model::PerTable>>,
    /// Report every frame on air (`Output::Air`), for a capture.
    pub capture: bool,
    /// A PHY of the operator's own (`--phy`) on every channel instead of the band's
    /// standard PHY.
    pub custom_phy: Option<crate::custom_phy::CustomPhy>,
}

impl Default for Setup {
    fn default() -> Self {
        Setup {
            interfaces: Vec::new(),
            model: LinkModel::Snr { default_snr_db: 30.0, links: Vec::new() },
            noise_floor_dbm: -91.0,
            medium_id: 0,
            fading_db: 0.0,
            movement: None,
            more_media: Vec::new(),
            seed: 1,
            per_table: None,
            capture: false,
            custom_phy: None,
        }
    }
}

impl Setup {
    /// The first medium.
    pub fn first_medium(&self) -> MediumSetup {
        MediumSetup {
            id: self.medium_id,
            interfaces: self.interfaces.clone(),
            model: self.model.clone(),
            noise_floor_dbm: self.noise_floor_dbm,
            fading_db: self.fading_db,
            movement: self.movement.clone(),
        }
    }

    /// Makes `m` the first medium.
    pub fn set_first_medium(&mut self, m: MediumSetup) {
        self.interfaces = m.interfaces;
        self.model = m.model;
        self.noise_floor_dbm = m.noise_floor_dbm;
        self.medium_id = m.id;
        self.fading_db = m.fading_db;
        self.movement = m.movement;
    }

    /// Every configured medium, the first one first.
    pub fn media(&self) -> Vec<MediumSetup> {
        std::iter::once(self.first_medium()).chain(self.more_media.iter().cloned()).collect()
    }
}
