//! Changes to stations while the daemon runs (Mininet-WiFi's control requests): add
//! and delete, link SNR and error probability, position, power, gain, medium, and the
//! Gaussian random term. Stations are named by their id (the radio's index).

use crate::hwsim_medium::{hw_addr_of, HwsimMedium, Mac};
use crate::link_model::LinkKnob;
use crate::media::{MediumId, MediumSetup, MediumState};
use sdmac_medium::{LinkOverride, Medium, StationId};

impl HwsimMedium {
    /// Registers a station by interface address (Mininet-WiFi's "add"); returns its
    /// id, or None if it exists already.
    pub fn add_station(&mut self, addr: Mac) -> Option<usize> {
        if self.radio_named(addr).is_some_and(|r| !self.radios[r].deleted) {
            return None;
        }
        let r = self.radio_named(addr).unwrap_or_else(|| self.radio_for(hw_addr_of(addr)));
        if self.radios[r].listed.is_none() && !self.radios[r].confirmed {
            // A guess, until the kernel shows which radio has the address.
            self.radios[r].listed = Some(addr);
        }
        let was_deleted = self.radios[r].deleted;
        self.radios[r].deleted = false;
        self.give_addr(r, addr);
        if was_deleted {
            // Back from a delete: its links are what the model says again.
            self.refresh_links(r);
        }
        Some(r)
    }

    /// The id of the station with interface or hwsim address `addr`.
    pub fn station_id(&self, addr: Mac) -> Option<usize> {
        self.radio_named(addr).filter(|&r| !self.radios[r].deleted)
    }

    /// Deletes a station: it stops hearing and being heard (its frames are still
    /// answered, as not acknowledged). False if there is no such station.
    pub fn delete_station(&mut self, id: usize) -> bool {
        if id >= self.radios.len() || self.radios[id].deleted {
            return false;
        }
        self.radios[id].deleted = true;
        self.refresh_links(id);
        true
    }

    /// Sets every link to and from radio `r`, in every channel it has a station in, to
    /// what `pair_override` says now.
    pub(crate) fn refresh_links(&mut self, r: usize) {
        let stations: Vec<(usize, StationId)> =
            self.radios[r].station.iter().map(|(&c, &s)| (c, s)).collect();
        for (c, s) in stations {
            for (s2, r2) in self.stations_in(c) {
                if r2 == r {
                    continue;
                }
                let (fwd, back) = (
                    self.pair_override(c, r, r2).unwrap_or_default(),
                    self.pair_override(c, r2, r).unwrap_or_default(),
                );
                self.channels[c].engine.set_link(s, s2, fwd);
                self.channels[c].engine.set_link(s2, s, back);
            }
        }
    }

    /// Applies `f` to every (engine medium, station of radio `a`, station of radio `b`)
    /// of the medium both radios are in now.
    fn each_pair(
        &mut self,
        a: usize,
        b: usize,
        mut f: impl FnMut(&mut Medium, StationId, StationId),
    ) {
        let within = self.radios[a].medium;
        if self.radios[b].medium != within {
            return;
        }
        for (c, ch) in self.channels.iter_mut().enumerate() {
            if ch.within != within {
                continue;
            }
            let (Some(&sa), Some(&sb)) =
                (self.radios[a].station.get(&c), self.radios[b].station.get(&c))
            else {
                continue;
            };
            f(&mut ch.engine, sa, sb);
        }
    }

    /// Sets the SNR of the link between stations `a` and `b`, both directions.
    pub fn set_snr(&mut self, a: usize, b: usize, snr_db: f64) {
        self.remember_link(a, b, LinkKnob::Snr(snr_db));
        self.each_pair(a, b, |m, x, y| {
            m.set_link(x, y, LinkOverride { snr_db: Some(snr_db), ..LinkOverride::default() });
            m.set_link(y, x, LinkOverride { snr_db: Some(snr_db), ..LinkOverride::default() });
        });
    }

    /// Sets the error probability of the link from `a` to `b`.
    pub fn set_error_prob(&mut self, a: usize, b: usize, p: f64) {
        let p = p.clamp(0.0, 1.0);
        self.remember_link(a, b, LinkKnob::Prob(p));
        let (ra, rb) = (&self.radios[a], &self.radios[b]);
        let snr = self.media[ra.medium].setup.model.snr_db(|m| ra.is(m), |m| rb.is(m));
        self.each_pair(a, b, |m, x, y| {
            m.set_link(
                x,
                y,
                LinkOverride { snr_db: Some(snr), error_prob: Some(p), ..LinkOverride::default() },
            )
        });
    }

    /// Keeps a runtime link change in the model of the media the two radios are in, so
    /// channels created later (and links restored later) have it.
    fn remember_link(&mut self, a: usize, b: usize, knob: LinkKnob) {
        let name = |r: &crate::radio_table::Radio| r.listed.or_else(|| r.addrs.first().copied());
        let (Some(ma), Some(mb)) = (name(&self.radios[a]), name(&self.radios[b])) else { return };
        let (wa, wb) = (self.radios[a].medium, self.radios[b].medium);
        self.media[wa].setup.model.remember(ma, mb, knob);
        if wb != wa {
            self.media[wb].setup.model.remember(ma, mb, knob);
        }
    }

    /// Moves station `id` to `pos` (m); only its own links are recomputed. Its
    /// movement, if any, goes on from there.
    pub fn set_position(&mut self, id: usize, pos: [f64; 3]) {
        if id < self.radios.len() {
            self.place(id, pos);
        }
    }

    /// Sets station `id`'s transmit power (dBm).
    pub fn set_tx_power(&mut self, id: usize, dbm: f64) {
        if id < self.radios.len() {
            self.radios[id].power_dbm = Some(dbm);
            self.apply_tx_power(id);
        }
    }

    /// Gives every station of radio `r` its transmit power (with its Gaussian random
    /// term where that applies).
    pub(crate) fn apply_tx_power(&mut self, r: usize) {
        let stations: Vec<(usize, StationId)> =
            self.radios[r].station.iter().map(|(&c, &s)| (c, s)).collect();
        for (c, s) in stations {
            let within = self.channels[c].within;
            let dbm = self.tx_power_in(r, within, default_tx_power(&self.channels[c].engine));
            self.channels[c].engine.set_tx_power(s, dbm);
        }
    }

    /// Sets station `id`'s antenna gain (dBi).
    pub fn set_antenna_gain(&mut self, id: usize, dbi: f64) {
        if id >= self.radios.len() {
            return;
        }
        self.radios[id].gain_dbi = Some(dbi);
        for (&c, &s) in &self.radios[id].station {
            self.channels[c].engine.set_antenna_gain(s, dbi);
        }
    }

    /// Sets station `id`'s Gaussian random term (dB; Mininet-WiFi's request 21): in the
    /// log-normal shadowing model the signal of every frame it sends is that much
    /// stronger (wmediumd subtracts it from the path loss). True if its medium's model
    /// is log-normal shadowing (elsewhere the term is kept but has no effect).
    pub fn set_gaussian_random(&mut self, id: usize, db: f64) -> bool {
        if id >= self.radios.len() || !db.is_finite() {
            return false;
        }
        self.radios[id].g_random_db = db;
        self.apply_tx_power(id);
        self.media[self.radios[id].medium].setup.model.is_log_normal_shadowing()
    }

    /// The position of station `id` (m).
    pub fn position(&self, id: usize) -> Option<[f64; 3]> {
        self.radios.get(id).map(|r| r.pos)
    }

    /// The id of the medium station `id` is in.
    pub fn medium_of(&self, id: usize) -> Option<MediumId> {
        self.radios.get(id).map(|r| self.media[r.medium].setup.id)
    }

    /// Moves station `id` to medium `medium_id` (Mininet-WiFi's request 23): from now
    /// on it hears, is heard by and shares airtime with that medium's stations only;
    /// frames it sent before finish where they are. A medium the configuration does
    /// not have is created with the first medium's model, noise, fading and movement
    /// clock. The station keeps its position, power, gain and direction. False if
    /// there is no such station.
    pub fn set_medium(&mut self, id: usize, medium_id: MediumId) -> bool {
        if id >= self.radios.len() {
            return false;
        }
        let m = match self.media.iter().position(|m| m.setup.id == medium_id) {
            Some(m) => m,
            None => {
                let first = &self.media[0];
                let state = MediumState {
                    setup: MediumSetup::like(&first.setup, medium_id),
                    clock: first.clock.clone(),
                };
                self.media.push(state);
                self.media.len() - 1
            }
        };
        if self.radios[id].medium == m {
            return true;
        }
        self.radios[id].medium = m;
        self.radios[id].everywhere = true;
        self.refresh_links(id);
        self.apply_tx_power(id);
        // It joins every channel its new medium has.
        for c in 0..self.channels.len() {
            if self.channels[c].within == m {
                self.station_for(c, id);
            }
        }
        true
    }

    /// Is the link model of the first medium positions + propagation?
    pub fn is_path_loss(&self) -> bool {
        self.media[0].setup.model.is_path_loss()
    }

    /// Is station `id`'s medium's link model positions + propagation?
    pub fn is_path_loss_at(&self, id: usize) -> bool {
        self.radios.get(id).is_some_and(|r| self.media[r.medium].setup.model.is_path_loss())
    }
}

/// The transmit power a station of `engine` gets when none is set.
fn default_tx_power(engine: &Medium) -> f64 {
    sdmac_medium::StationConfig::new(engine.phy(), [0; 6], [0.0; 3]).tx_power_dbm
}
