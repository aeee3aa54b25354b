//! Configured media: sets of radios that hear each other, each with its own link
//! model, noise floor, fading and movement (yawmd's `medium = ( ... )`, the
//! Mininet-WiFi fork's `ifaces.medium_array`, and its "medium id" control request).
//!
//! Radios of different media never hear each other and never share airtime, even on
//! the same channel: each (medium, channel) pair is its own engine medium. Radios the
//! configuration does not list join the first medium.

use crate::address::Mac;
use crate::link_model::LinkModel;
use crate::movement::{Movement, StepClock};

/// A medium's id (yawmd `id`; the fork's medium id, 0 for interfaces it does not
/// place).
pub type MediumId = i32;

/// One configured medium.
#[derive(Clone, Debug, PartialEq)]
pub struct MediumSetup {
    /// Its id.
    pub id: MediumId,
    /// Interface addresses of the radios it lists.
    pub interfaces: Vec<Mac>,
    /// Link model.
    pub model: LinkModel,
    /// Noise floor (dBm).
    pub noise_floor_dbm: f64,
    /// Standard deviation (dB) of the fading drawn for every reception
    /// (`fading_coefficient`); 0: none.
    pub fading_db: f64,
    /// Movement of its stations (path-loss model with `directions`).
    pub movement: Option<Movement>,
}

impl MediumSetup {
    /// A medium `id` with no radio listed and `template`'s model, noise, fading and
    /// movement interval (a medium a control request names that the configuration
    /// does not have).
    pub fn like(template: &MediumSetup, id: MediumId) -> MediumSetup {
        MediumSetup { id, interfaces: Vec::new(), ..template.clone() }
    }
}

/// A medium while the daemon runs.
#[derive(Clone, Debug)]
pub(crate) struct MediumState {
    /// What it is (its model keeps runtime link changes).
    pub setup: MediumSetup,
    /// When its stations move next (None: they do not move).
    pub clock: Option<StepClock>,
}

impl MediumState {
    /// A medium as configured, its movement clock at 0.
    pub fn new(setup: MediumSetup) -> MediumState {
        let clock = setup.movement.as_ref().map(|m| StepClock::new(m.interval_ns));
        MediumState { setup, clock }
    }
}
