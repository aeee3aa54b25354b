//! A hwsim radio as the daemon knows it: its addresses, the medium it is in, where it
//! is and how strongly it sends, and its station in each channel's engine medium.

use crate::hwsim_medium::{hw_addr_of, Mac};
use sdmac_medium::StationId;
use std::collections::HashMap;

/// A radio.
#[derive(Clone, Debug)]
pub(crate) struct Radio {
    /// Its hwsim (wire) address.
    pub hw: Mac,
    /// Deleted through the control socket.
    pub deleted: bool,
    /// Interface addresses.
    pub addrs: Vec<Mac>,
    /// Its station in each channel (index into the channel list) it joined.
    pub station: HashMap<usize, StationId>,
    /// The medium (index into the media) it is in now.
    pub medium: usize,
    /// Joins every channel of its medium at once (the configuration lists it, or a
    /// control request moved it), rather than when it first sends or is sent to there.
    pub everywhere: bool,
    /// Position (m).
    pub pos: [f64; 3],
    /// Transmit power (dBm), when set; else the engine's default.
    pub power_dbm: Option<f64>,
    /// Antenna gain (dBi), when set; else the engine's default.
    pub gain_dbi: Option<f64>,
    /// Displacement per movement step of its medium (m), when it moves.
    pub direction: Option<[f64; 3]>,
    /// Mininet-WiFi's Gaussian random term (dB): added to the signal of the frames it
    /// sends in the log-normal shadowing model.
    pub g_random_db: f64,
    /// The channel (MHz) it last sent on: a hwsim radio has one channel at a time,
    /// and the kernel drops what arrives for another, so frames on other channels are
    /// not delivered to it. None until it sends: then it gets every channel's frames
    /// (a radio scanning passively must hear beacons before it says anything).
    pub tuned: Option<u32>,
}

impl Radio {
    /// A radio with hwsim address `hw` in medium `medium`, at the origin.
    pub fn new(hw: Mac, medium: usize) -> Radio {
        Radio {
            hw,
            deleted: false,
            addrs: Vec::new(),
            station: HashMap::new(),
            medium,
            everywhere: false,
            pos: [0.0; 3],
            power_dbm: None,
            gain_dbi: None,
            direction: None,
            g_random_db: 0.0,
            tuned: None,
        }
    }

    /// Is `a` one of its addresses (interface or hwsim, or the interface address
    /// whose hwsim address is its own)?
    pub fn is(&self, a: &Mac) -> bool {
        self.addrs.contains(a) || self.hw == *a || hw_addr_of(*a) == self.hw
    }
}
