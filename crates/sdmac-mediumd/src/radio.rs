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

/// Radios by address, for the per-frame lookups (a scan of 200 radios per frame costs
/// more than the medium's work under emulation). Radios are never removed and an
/// address never leaves a radio, so entries only get added.
#[derive(Clone, Debug, Default)]
pub(crate) struct RadioIndex {
    by_hw: HashMap<Mac, usize>,
    /// Interface and hwsim addresses: the lowest radio that has it, as a scan finds.
    by_addr: HashMap<Mac, usize>,
}

impl RadioIndex {
    /// Radio `r` has hwsim address `hw`.
    pub fn add_radio(&mut self, r: usize, hw: Mac) {
        self.by_hw.entry(hw).or_insert(r);
        self.add_addr(r, hw);
    }

    /// Radio `r` has interface address `a`.
    pub fn add_addr(&mut self, r: usize, a: Mac) {
        let e = self.by_addr.entry(a).or_insert(r);
        *e = (*e).min(r);
    }

    /// The radio with hwsim address `hw`.
    pub fn by_hw(&self, hw: Mac) -> Option<usize> {
        self.by_hw.get(&hw).copied()
    }

    /// The first radio with hwsim or interface address `a`.
    pub fn by_addr(&self, a: Mac) -> Option<usize> {
        self.by_addr.get(&a).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_two_radios_have_finds_the_first_as_a_scan_would() {
        let mut ix = RadioIndex::default();
        let (a, b, shared) = ([2, 0, 0, 0, 1, 0], [2, 0, 0, 0, 2, 0], [0x42, 0, 0, 0, 9, 0]);
        ix.add_radio(0, a);
        ix.add_radio(1, b);
        ix.add_addr(1, shared);
        assert_eq!(ix.by_addr(shared), Some(1));
        ix.add_addr(0, shared);
        assert_eq!(ix.by_addr(shared), Some(0));
        ix.add_addr(1, shared);
        assert_eq!(ix.by_addr(shared), Some(0));
        assert_eq!((ix.by_hw(a), ix.by_hw(b), ix.by_hw(shared)), (Some(0), Some(1), None));
        assert_eq!(ix.by_addr(b), Some(1));
    }
}
