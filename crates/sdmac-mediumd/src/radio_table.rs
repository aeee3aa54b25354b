//! A hwsim radio as the daemon knows it: its addresses, the medium it is in, where it
//! is and how strongly it sends, and its station in each channel's engine medium.

use crate::address::{hw_addr_of, Mac};
use sdmac_medium::StationId;
use std::collections::HashMap;

/// A radio.
#[derive(Clone, Debug)]
pub(crate) struct Radio {
    /// Its hwsim (wire) address.
    pub hw: Mac,
    /// Deleted through the control socket.
    pub deleted: bool,
    /// The kernel has shown that a radio with this hwsim address exists (a frame from
    /// it, or an ADD_MAC_ADDR event). A radio the configuration or a control request
    /// names before that is a guess: its hwsim address is `hw_addr_of` its interface
    /// address, which holds only for radios whose interface keeps its permanent
    /// address (Mininet-WiFi gives interfaces other addresses).
    pub confirmed: bool,
    /// Replaced by the radio that turned out to have its listed address (see
    /// the `radio_binding` module): it has no address, no link and joins nothing.
    pub gone: bool,
    /// The interface address the configuration (or a control "add") lists it by: its
    /// position, power, medium and links are that address's. It moves with the address
    /// to whichever radio turns out to have it.
    pub listed: Option<Mac>,
    /// Interface addresses it has now.
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
    /// EDCA parameters set per AC through the control socket (sdmac's extension),
    /// given to every station it has and gets.
    pub edca: [Option<sdmac_medium::EdcaParams>; 4],
    /// ACK timeout (ns) set through the control socket; None: the PHY's.
    pub ack_timeout_ns: Option<u64>,
}

impl Radio {
    /// A radio with hwsim address `hw` in medium `medium`, at the origin.
    pub fn new(hw: Mac, medium: usize) -> Radio {
        Radio {
            hw,
            deleted: false,
            confirmed: false,
            gone: false,
            listed: None,
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
            edca: [None; 4],
            ack_timeout_ns: None,
        }
    }

    /// Is `a` one of its addresses (interface, listed or hwsim, or the interface
    /// address whose hwsim address is its own)?
    pub fn is(&self, a: &Mac) -> bool {
        !self.gone
            && (self.addrs.contains(a)
                || self.listed == Some(*a)
                || self.hw == *a
                || hw_addr_of(*a) == self.hw)
    }
}

/// Radios by address, for the per-frame lookups (a scan of 200 radios per frame costs
/// more than the medium's work under emulation). An interface address belongs to the
/// radio that last took it (ADD_MAC_ADDR, or a frame sent from it): an address moves
/// between radios when an interface's address is changed.
#[derive(Clone, Debug, Default)]
pub(crate) struct RadioIndex {
    by_hw: HashMap<Mac, usize>,
    /// Interface and hwsim addresses.
    by_addr: HashMap<Mac, usize>,
}

impl RadioIndex {
    /// Radio `r` has hwsim address `hw`.
    pub fn add_radio(&mut self, r: usize, hw: Mac) {
        self.by_hw.entry(hw).or_insert(r);
        self.by_addr.entry(hw).or_insert(r);
    }

    /// Radio `r` no longer has hwsim address `hw` (it was a guess, or the radio is gone).
    pub fn remove_radio(&mut self, r: usize, hw: Mac) {
        if self.by_hw.get(&hw) == Some(&r) {
            self.by_hw.remove(&hw);
        }
        self.remove_addr(r, hw);
    }

    /// Radio `r` has interface address `a` now (it leaves whichever radio had it).
    pub fn add_addr(&mut self, r: usize, a: Mac) {
        self.by_addr.insert(a, r);
    }

    /// Radio `r` no longer has interface address `a`.
    pub fn remove_addr(&mut self, r: usize, a: Mac) {
        if self.by_addr.get(&a) == Some(&r) {
            self.by_addr.remove(&a);
        }
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
    fn an_address_belongs_to_the_radio_that_took_it_last() {
        let mut ix = RadioIndex::default();
        let (a, b, moving) = (
            Mac::new([0x42, 0, 0, 0, 1, 0]),
            Mac::new([0x42, 0, 0, 0, 2, 0]),
            Mac::new([0, 0, 0, 0, 0, 1]),
        );
        ix.add_radio(0, a);
        ix.add_radio(1, b);
        ix.add_addr(1, moving);
        assert_eq!(ix.by_addr(moving), Some(1));
        ix.add_addr(0, moving);
        assert_eq!(ix.by_addr(moving), Some(0));
        // A radio that no longer has it cannot take it from the one that has it.
        ix.remove_addr(1, moving);
        assert_eq!(ix.by_addr(moving), Some(0));
        ix.remove_addr(0, moving);
        assert_eq!(ix.by_addr(moving), None);
        assert_eq!((ix.by_hw(a), ix.by_hw(b), ix.by_hw(moving)), (Some(0), Some(1), None));
        assert_eq!(ix.by_addr(b), Some(1));
        ix.remove_radio(1, b);
        assert_eq!((ix.by_hw(b), ix.by_addr(b)), (None, None));
    }
}
