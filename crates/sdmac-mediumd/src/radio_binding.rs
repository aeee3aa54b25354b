//! Which radio has which interface address, as the kernel shows it.
//!
//! The kernel names a radio by its hwsim (wire) address only (`42:00:00:00:0N:00` for
//! radio N by default) and delivers a frame to the radio that address names. A
//! configuration (and Mininet-WiFi's control "add") names interface addresses, and
//! Mininet-WiFi gives interfaces addresses of their own (`00:00:00:00:00:01`, …), not
//! the radios' permanent ones. So a listed address is first given a radio under the
//! hwsim address an interface with that permanent address would have
//! (`hw_addr_of`, a guess: right for unchanged interfaces), and the binding is settled
//! when the kernel shows which radio has the address — an ADD_MAC_ADDR event or a
//! frame sent from it (its second address):
//! - a radio the kernel names for the first time, with an address a guessed radio
//!   holds, *is* that radio: the guess takes the real hwsim address (its station ids,
//!   stations, position and links stay);
//! - a radio already known that takes an address another radio holds takes the
//!   address's listing with it — medium, position, power, gain, direction, deleted
//!   state and links — and a guessed radio left with no address is gone (no address,
//!   no link, it joins nothing);
//! - an address moves the same way between two real radios (the last one to take it
//!   has it). DEL_MAC_ADDR is not acted on: mac80211_hwsim sends it at the end of
//!   every software scan for the address the scan used, the interface's own, which
//!   the interface keeps.

use crate::hwsim_medium::{HwsimMedium, Mac};
use sdmac_medium::StationId;

impl HwsimMedium {
    /// Learns radio `hw` (created if new) and, if given, its interface address `addr`,
    /// as a frame from it or an ADD_MAC_ADDR event teaches them. Returns the radio's
    /// index and whether the radio table changed.
    pub fn learn_radio(&mut self, hw: Mac, addr: Option<Mac>) -> (usize, bool) {
        let n = self.radios.len();
        let mut changed = false;
        let r = match self.index.by_hw(hw) {
            Some(r) => r,
            None => match addr.and_then(|a| self.guess_holding(a)) {
                Some(g) => {
                    self.rename(g, hw);
                    changed = true;
                    g
                }
                None => self.radio_for(hw),
            },
        };
        changed |= self.radios.len() != n;
        if !self.radios[r].confirmed {
            self.radios[r].confirmed = true;
            changed = true;
        }
        if let Some(a) = addr {
            changed |= self.give_addr(r, a);
        }
        (r, changed)
    }

    /// Radio `r` has interface address `a` now; it leaves the radio that had it, with
    /// its listing. True if that is news.
    pub(crate) fn give_addr(&mut self, r: usize, a: Mac) -> bool {
        let holder = self.index.by_addr(a);
        let has = self.radios[r].addrs.contains(&a);
        if holder == Some(r) && has {
            return false;
        }
        if !has {
            self.radios[r].addrs.push(a);
        }
        self.index.add_addr(r, a);
        if let Some(o) = holder.filter(|&o| o != r) {
            self.take_address(o, r, a);
        }
        true
    }

    /// The guessed (not yet confirmed) radio that holds interface address `a`.
    fn guess_holding(&self, a: Mac) -> Option<usize> {
        self.index.by_addr(a).filter(|&g| {
            let radio = &self.radios[g];
            !radio.confirmed && !radio.gone && radio.addrs.contains(&a)
        })
    }

    /// Guessed radio `g` is the kernel's radio `hw`.
    fn rename(&mut self, g: usize, hw: Mac) {
        let old = self.radios[g].hw;
        self.index.remove_radio(g, old);
        self.radios[g].hw = hw;
        self.index.add_radio(g, hw);
    }

    /// Address `a` moved from radio `from` to radio `to`.
    fn take_address(&mut self, from: usize, to: usize, a: Mac) {
        if !self.radios[from].addrs.contains(&a) && self.radios[from].listed != Some(a) {
            return;
        }
        self.radios[from].addrs.retain(|x| *x != a);
        if self.radios[from].listed == Some(a) {
            self.adopt(from, to, a);
        }
        let left = &self.radios[from];
        if !left.confirmed && left.addrs.is_empty() && left.listed.is_none() {
            self.retire(from);
        } else {
            self.refresh_links(from);
        }
    }

    /// Radio `to` takes listed address `a` from radio `from`: its medium, position,
    /// power, gain, direction, Gaussian term, deleted state, and so its links.
    fn adopt(&mut self, from: usize, to: usize, a: Mac) {
        let src = self.radios[from].clone();
        self.radios[from].listed = None;
        {
            let r = &mut self.radios[to];
            r.listed = Some(a);
            r.medium = src.medium;
            r.everywhere |= src.everywhere;
            r.power_dbm = src.power_dbm;
            r.gain_dbi = src.gain_dbi;
            r.direction = src.direction;
            r.g_random_db = src.g_random_db;
            r.deleted = src.deleted;
        }
        self.place(to, src.pos);
        self.apply_tx_power(to);
        if let Some(g) = src.gain_dbi {
            for (&c, &s) in &self.radios[to].station {
                self.channels[c].engine.set_antenna_gain(s, g);
            }
        }
        self.refresh_links(to);
        if self.radios[to].everywhere {
            for c in 0..self.channels.len() {
                if self.channels[c].within == src.medium {
                    self.station_for(c, to);
                }
            }
        }
    }

    /// Guessed radio `g` turned out not to exist: it has no address, no link, and
    /// joins nothing.
    fn retire(&mut self, g: usize) {
        let hw = self.radios[g].hw;
        self.index.remove_radio(g, hw);
        for a in std::mem::take(&mut self.radios[g].addrs) {
            self.index.remove_addr(g, a);
        }
        let radio = &mut self.radios[g];
        radio.gone = true;
        radio.deleted = true;
        radio.everywhere = false;
        radio.direction = None;
        let stations: Vec<(usize, StationId)> =
            radio.station.iter().map(|(&c, &s)| (c, s)).collect();
        for (c, s) in stations {
            self.channels[c].engine.set_detached(s, true);
        }
        self.refresh_links(g);
    }

    /// The radio whose interface address, or listed address, is `a` (for control
    /// requests).
    pub(crate) fn radio_named(&self, a: Mac) -> Option<usize> {
        self.radio_by_addr(a)
            .or_else(|| self.radios.iter().position(|r| !r.gone && r.listed == Some(a)))
    }
}
