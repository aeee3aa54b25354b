//! Link budgets: the received power of every pair from positions, powers, gains and
//! overrides, what it means for carrier sense and detection, and the calls that change
//! them. Only the links of the changed station are recomputed, and a transmitter's
//! list only once it has been built (see `LinkTable`).

use crate::config::{LinkOverride, StationId};
use crate::fading::Fading;
use crate::link::Link;
use crate::medium::Medium;
use crate::rng::SimRng;
use sdmac_phy::propagation::PathLoss;
use sdmac_phy::units::dbm_to_mw;

impl Medium {
    /// Sets a fixed SNR, received power, error probability or preamble-miss probability
    /// on the link `tx` -> `rx` (see [`LinkOverride`]), replacing its previous override.
    pub fn set_link(&mut self, tx: StationId, rx: StationId, o: LinkOverride) {
        self.links.set_override(tx, rx, o);
        self.record_receivers();
        let link = self.make_link(tx, rx);
        self.links.put(tx, link, rx);
    }

    /// The override set on the link `tx` -> `rx` ([`Medium::set_link`]), if any.
    pub fn link_override(&self, tx: StationId, rx: StationId) -> Option<LinkOverride> {
        self.links.override_for(tx, rx).copied()
    }

    /// Takes a station away from this medium (`true`) or back (`false`): while away it
    /// has no link in either direction — it neither hears nor is heard, senses no
    /// carrier and interferes with nothing (a radio tuned to another channel). Links
    /// that vanish while a frame is on air end as they do for a station moved out of
    /// range. Only its own links are recomputed.
    pub fn set_detached(&mut self, id: StationId, detached: bool) {
        match self.detached.get_mut(id as usize) {
            Some(d) if *d != detached => *d = detached,
            _ => return,
        }
        self.compute_links_of(id);
    }

    /// Whether a station is away from this medium ([`Medium::set_detached`]).
    pub fn is_detached(&self, id: StationId) -> bool {
        self.detached.get(id as usize).copied().unwrap_or(false)
    }

    /// Moves a station; only its own links are recomputed.
    pub fn set_position(&mut self, id: StationId, position: [f64; 3]) {
        if let Some(s) = self.stations.get_mut(id as usize) {
            s.cfg.position = position;
            self.compute_links_of(id);
        }
    }

    /// Turns fading on with standard deviation `sd_db` (dB), or off when `sd_db` is 0,
    /// negative or not finite. The fading stream restarts from the medium's seed.
    pub fn set_fading(&mut self, sd_db: f64) {
        self.links.fading = Fading::new(sd_db, self.cfg.seed);
        self.links.last_fade_db = 0.0;
    }

    /// Standard deviation of the fading (dB); 0 when off.
    pub fn fading_db(&self) -> f64 {
        self.links.fading.as_ref().map_or(0.0, |f| f.sd_db)
    }

    /// Changes a station's transmit power; only its own links are recomputed.
    pub fn set_tx_power(&mut self, id: StationId, dbm: f64) {
        if let Some(s) = self.stations.get_mut(id as usize) {
            s.cfg.tx_power_dbm = dbm;
            self.compute_links_of(id);
        }
    }

    /// Changes a station's antenna gain; only its own links are recomputed.
    pub fn set_antenna_gain(&mut self, id: StationId, dbi: f64) {
        if let Some(s) = self.stations.get_mut(id as usize) {
            s.cfg.antenna_gain_dbi = dbi;
            self.compute_links_of(id);
        }
    }

    /// Received power of `tx` at `rx` in dBm, None below the interference floor.
    pub fn link_power_dbm(&self, tx: StationId, rx: StationId) -> Option<f64> {
        let n = self.stations.len() as StationId;
        match self.links.from.get(tx as usize) {
            Some(Some(_)) => self.links.get(tx, rx).map(|l| l.power_dbm),
            Some(None) if rx < n && rx != tx => self.make_link(tx, rx).map(|l| l.power_dbm),
            _ => None,
        }
    }

    /// Recomputes every link to and from `id`: its own list if built (O(stations)),
    /// and its entry in every other built list.
    pub(crate) fn compute_links_of(&mut self, id: StationId) {
        self.record_receivers();
        if self.links.from[id as usize].is_some() {
            self.links.from[id as usize] = Some(self.build_links(id));
            self.links.gen += 1;
        }
        for k in 0..self.links.built.len() {
            let other = self.links.built[k];
            if other != id {
                let l = self.make_link(other, id);
                self.links.put(other, l, id);
            }
        }
    }

    /// Every link from `tx`, sorted by receiver.
    fn build_links(&self, tx: StationId) -> Vec<Link> {
        let n = self.stations.len() as StationId;
        let mut list: Vec<Link> =
            (0..n).filter(|&rx| rx != tx).filter_map(|rx| self.make_link(tx, rx)).collect();
        list.shrink_to_fit();
        list
    }

    /// Builds the links of `tx` if they are not yet (see `LinkTable`).
    pub(crate) fn ensure_links(&mut self, tx: StationId) {
        if self.links.from[tx as usize].is_none() {
            self.links.from[tx as usize] = Some(self.build_links(tx));
            self.links.built.push(tx);
        }
    }

    fn make_link(&self, tx: StationId, rx: StationId) -> Option<Link> {
        if self.detached[tx as usize] || self.detached[rx as usize] {
            return None;
        }
        let (a, b) = (&self.stations[tx as usize].cfg, &self.stations[rx as usize].cfg);
        let o = self.links.override_for(tx, rx).copied().unwrap_or_default();
        let power_dbm = if let Some(p) = o.rx_power_dbm {
            p
        } else if let Some(snr) = o.snr_db {
            b.noise_floor_dbm + snr
        } else {
            let d = ((a.position[0] - b.position[0]).powi(2)
                + (a.position[1] - b.position[1]).powi(2)
                + (a.position[2] - b.position[2]).powi(2))
            .sqrt();
            let shadow = if matches!(self.cfg.path_loss, PathLoss::LogNormalShadowing { .. }) {
                let (lo, hi) = if tx < rx { (tx, rx) } else { (rx, tx) };
                SimRng::new(self.cfg.seed, 1_000_003 + ((lo as u64) << 32 | hi as u64)).gaussian()
            } else {
                0.0
            };
            let loss = self.cfg.path_loss.loss_db(d, self.cfg.freq_mhz as f64, shadow);
            a.tx_power_dbm + a.antenna_gain_dbi + b.antenna_gain_dbi - loss
        };
        if power_dbm < self.cfg.interference_floor_dbm || !power_dbm.is_finite() {
            return None;
        }
        Some(Link {
            rx,
            power_dbm,
            power_mw: dbm_to_mw(power_dbm),
            cs: power_dbm >= b.cca_threshold_dbm,
            detect: power_dbm >= b.rx_sensitivity_dbm,
            fixed_probs: o.error_prob.is_some() || o.preamble_error_prob.is_some(),
            clean: 0,
            clean_p: 0.0,
        })
    }
}
