//! What sdmac's extension of the control socket sets and reads on a station, beyond
//! Mininet-WiFi's requests: EDCA parameters per AC, the ACK timeout, a link's SNR and
//! error probability as the medium has them now; and the truth stream's switch.
//!
//! A setting is kept with the radio and given to each of its stations, in every
//! channel it has joined and joins later; it applies from the radio's next frame
//! exchange (see `Medium::set_edca`, `Medium::set_ack_timeout`).

use crate::hwsim_medium::HwsimMedium;
use sdmac_control::ext::TruthRecord;
use sdmac_medium::{Ac, EdcaError, EdcaParams, LinkOverride, StationId, Time};

impl HwsimMedium {
    /// Turns the truth records on (kept until [`take_truth`](Self::take_truth)) or
    /// off (those not taken are dropped).
    pub fn set_truth(&mut self, on: bool) {
        match (on, self.truth.is_some()) {
            (true, false) => self.truth = Some(Vec::new()),
            (false, true) => self.truth = None,
            _ => {}
        }
    }

    /// Moves the truth records made so far to `into`.
    pub fn take_truth(&mut self, into: &mut Vec<TruthRecord>) {
        if let Some(t) = self.truth.as_mut() {
            into.append(t);
        }
    }

    /// Gives radio `r`'s station `s` of channel `c` the EDCA parameters and ACK
    /// timeout set for the radio.
    pub(crate) fn give_tuning(&mut self, c: usize, r: usize, s: StationId) {
        let (edca, ack) = (self.radios[r].edca, self.radios[r].ack_timeout_ns);
        let engine = &mut self.channels[c].engine;
        for (ac, p) in Ac::ALL.into_iter().zip(edca) {
            if let Some(p) = p {
                // Checked when set; every station here has a queue per AC.
                let _ = engine.set_edca(s, ac, p);
            }
        }
        if ack.is_some() {
            engine.set_ack_timeout(s, ack);
        }
    }

    /// Radio `id`'s stations, channel order.
    fn stations_of(&self, id: usize) -> Vec<(usize, StationId)> {
        let mut v: Vec<(usize, StationId)> =
            self.radios[id].station.iter().map(|(&c, &s)| (c, s)).collect();
        v.sort_unstable();
        v
    }

    /// Sets station `id`'s EDCA parameters of `ac` (checked with
    /// [`EdcaParams::validate`]); an unknown id is refused.
    pub fn set_edca(&mut self, id: usize, ac: Ac, p: EdcaParams) -> Result<(), EdcaError> {
        p.validate()?;
        if id >= self.radios.len() {
            return Err(EdcaError::UnknownStation(id as StationId));
        }
        self.radios[id].edca[ac as usize] = Some(p);
        for (c, s) in self.stations_of(id) {
            self.channels[c].engine.set_edca(s, ac, p)?;
        }
        Ok(())
    }

    /// Station `id`'s EDCA parameters of `ac`: those its first channel's station uses,
    /// else those set; None when it is on no channel and nothing was set (the
    /// defaults depend on the band).
    pub fn edca(&self, id: usize, ac: Ac) -> Option<EdcaParams> {
        let radio = self.radios.get(id)?;
        match self.stations_of(id).first() {
            Some(&(c, s)) => self.channels[c].engine.edca(s, ac),
            None => radio.edca[ac as usize],
        }
    }

    /// Sets station `id`'s ACK timeout (None: the PHY's).
    pub fn set_ack_timeout(&mut self, id: usize, ns: Option<Time>) {
        if id >= self.radios.len() {
            return;
        }
        self.radios[id].ack_timeout_ns = ns;
        for (c, s) in self.stations_of(id) {
            self.channels[c].engine.set_ack_timeout(s, ns);
        }
    }

    /// Station `id`'s ACK timeout in use (ns): its first channel's station's, else the
    /// one set; None when it is on no channel and none was set.
    pub fn ack_timeout(&self, id: usize) -> Option<Time> {
        let radio = self.radios.get(id)?;
        match self.stations_of(id).first() {
            Some(&(c, s)) => self.channels[c].engine.ack_timeout(s),
            None => radio.ack_timeout_ns,
        }
    }

    /// The link from station `a` to station `b` as the medium has it now: its
    /// override in the first channel both are in, else what their medium's model
    /// gives it. None when the link follows positions (path loss).
    pub fn link(&self, a: usize, b: usize) -> Option<LinkOverride> {
        let (ra, rb) = (self.radios.get(a)?, self.radios.get(b)?);
        for (c, sa) in self.stations_of(a) {
            if let Some(&sb) = rb.station.get(&c) {
                return self.channels[c].engine.link_override(sa, sb);
            }
        }
        self.pair_override_in(ra.medium, a, b)
    }

    /// What the model of medium `within` gives the link from radio `a` to radio `b`.
    fn pair_override_in(&self, within: usize, a: usize, b: usize) -> Option<LinkOverride> {
        let (ra, rb) = (&self.radios[a], &self.radios[b]);
        self.media[within].setup.model.link_override(|m| ra.is(m), |m| rb.is(m))
    }
}
