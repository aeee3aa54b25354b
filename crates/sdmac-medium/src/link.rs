//! Link budgets: for every transmitter, the stations that receive it above the
//! interference floor, with the received power and what it means for them.

use crate::config::{LinkOverride, StationId};
use crate::fading::Fading;
use sdmac_phy::Rate;
use std::collections::HashMap;

/// How one station hears another.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Link {
    pub rx: StationId,
    pub power_dbm: f64,
    pub power_mw: f64,
    /// At or above the receiver's CCA threshold.
    pub cs: bool,
    /// At or above the receiver's sensitivity.
    pub detect: bool,
    /// Fixed loss probability on top of the error model (preamble seen, body corrupt).
    pub error_prob: f64,
    /// Fixed probability that the receiver misses the preamble (never locks on).
    pub preamble_error_prob: f64,
    /// Success probabilities of clean receptions (no interference, no fading).
    pub clean: CleanCache,
}

/// The success probabilities of the last two (rate, length) pairs received clean on a
/// link: a sender's data frames and its beacons or ACK-sized frames alternate, and a
/// single entry would miss at each switch.
#[derive(Copy, Clone, Debug, Default)]
pub(crate) struct CleanCache {
    /// Most recent first.
    entries: [Option<(Rate, u32, f64)>; 2],
}

impl CleanCache {
    /// The probability cached for (`rate`, `len`), if it is.
    pub fn get(&mut self, rate: Rate, len: u32) -> Option<f64> {
        match self.entries {
            [Some((r, l, p)), _] if r == rate && l == len => Some(p),
            [first, Some((r, l, p))] if r == rate && l == len => {
                self.entries = [Some((r, l, p)), first];
                Some(p)
            }
            _ => None,
        }
    }

    /// Remembers `p` for (`rate`, `len`), forgetting the older entry.
    pub fn put(&mut self, rate: Rate, len: u32, p: f64) {
        self.entries = [Some((rate, len, p)), self.entries[0]];
    }
}

/// Links of every transmitter, each list sorted by receiver.
#[derive(Clone, Debug, Default)]
pub(crate) struct LinkTable {
    pub from: Vec<Vec<Link>>,
    /// Explicit per-pair settings (a configuration may give one for every pair: adding
    /// the n-th station must not move the others').
    pub overrides: HashMap<(StationId, StationId), LinkOverride>,
    /// Fading of every reception (None: off).
    pub fading: Option<Fading>,
    /// The fading (dB) of the reception decided last; 0 when fading is off.
    pub last_fade_db: f64,
}

impl LinkTable {
    /// The link from `tx` to `rx`, if `rx` hears `tx` above the floor.
    pub fn get(&self, tx: StationId, rx: StationId) -> Option<&Link> {
        let list = self.from.get(tx as usize)?;
        list.binary_search_by_key(&rx, |l| l.rx).ok().map(|i| &list[i])
    }

    /// Received power in mW of `tx` at `rx` (0 when below the floor).
    pub fn power_mw(&self, tx: StationId, rx: StationId) -> f64 {
        self.get(tx, rx).map_or(0.0, |l| l.power_mw)
    }

    /// Draws the fading (dB) of a reception about to be decided; 0, without a draw,
    /// when fading is off.
    pub fn draw_fade_db(&mut self) -> f64 {
        self.last_fade_db = self.fading.as_mut().map_or(0.0, |f| f.draw_db());
        self.last_fade_db
    }

    /// The override for (tx, rx).
    pub fn override_for(&self, tx: StationId, rx: StationId) -> Option<&LinkOverride> {
        self.overrides.get(&(tx, rx))
    }

    /// Sets the override for (tx, rx).
    pub fn set_override(&mut self, tx: StationId, rx: StationId, o: LinkOverride) {
        self.overrides.insert((tx, rx), o);
    }

    /// Replaces (or inserts, or removes when None) the link tx -> rx.
    pub fn put(&mut self, tx: StationId, link: Option<Link>, rx: StationId) {
        let list = &mut self.from[tx as usize];
        match (list.binary_search_by_key(&rx, |l| l.rx), link) {
            (Ok(i), Some(l)) => list[i] = l,
            (Ok(i), None) => {
                list.remove(i);
            }
            (Err(i), Some(l)) => list.insert(i, l),
            (Err(_), None) => {}
        }
    }
}
