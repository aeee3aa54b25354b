//! Link budgets: for every transmitter, the stations that receive it above the
//! interference floor, with the received power and what it means for them.

use crate::config::{LinkOverride, StationId};
use crate::fading::Fading;
use std::collections::HashMap;

/// How one station hears another: 32 bytes, since a large medium holds one for every
/// pair in range. Fixed error probabilities, rare, live in the link's override
/// ([`LinkTable::error_prob`]); the success probability of a clean frame is kept here
/// for the last (rate, length) asked, other answers in the reception memo.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Link {
    /// The receiver.
    pub rx: StationId,
    /// At or above the receiver's CCA threshold.
    pub cs: bool,
    /// At or above the receiver's sensitivity.
    pub detect: bool,
    /// The override of this link sets an error or preamble-miss probability.
    pub fixed_probs: bool,
    /// Which question `clean_p` answers: a tag of [`LinkTable::clean_tag`] (the rate
    /// and length of a frame received without interference or fading), 0 for none.
    /// The rest of the question is the link's: its power (a link whose power changes is
    /// replaced, answer and all) and its receiver's noise (fixed when the station is
    /// added).
    pub clean: u8,
    /// The error model's success probability for that frame on this link, exactly as
    /// it computed it.
    pub clean_p: f64,
    /// Mean received power, dBm.
    pub power_dbm: f64,
    /// The same in mW.
    pub power_mw: f64,
}

/// Links of every transmitter, each list sorted by receiver.
///
/// A transmitter's list is built when it is first needed (`Medium::ensure_links`: the
/// station starts a transmission or owes an ACK) and kept up to date from then on, so a
/// station that never sends costs no list. Building is a pure function of positions,
/// powers and overrides, so when it happens changes no result.
#[derive(Clone, Debug, Default)]
pub(crate) struct LinkTable {
    /// Per transmitter: its links, or None while not built.
    pub from: Vec<Option<Vec<Link>>>,
    /// The transmitters whose list is built, in the order they were built.
    pub built: Vec<StationId>,
    /// Explicit per-pair settings (a configuration may give one for every pair: adding
    /// the n-th station must not move the others').
    pub overrides: HashMap<(StationId, StationId), LinkOverride>,
    /// Fading of every reception (None: off).
    pub fading: Option<Fading>,
    /// The fading (dB) of the reception decided last; 0 when fading is off.
    pub last_fade_db: f64,
    /// The questions `Link::clean` tags: tag `i + 1` is entry `i`, (rate, length in
    /// bytes). At most [`CLEAN_TAGS`] entries.
    pub clean_keys: Vec<(sdmac_phy::Rate, u32)>,
    /// Bumped whenever a built list changes (a link replaced, added or removed, or a
    /// list rebuilt), so that sums over links can tell they are stale.
    pub gen: u64,
}

/// The most (rate, length) questions links keep answers for: a saturated
/// medium asks two (DATA and ACK); a medium with more keeps answers for the first ones
/// and asks the reception memo for the others.
pub(crate) const CLEAN_TAGS: usize = 8;

impl LinkTable {
    /// The tag of the clean-frame question (`rate`, `len`), made on first use; 0 when
    /// every tag is taken by another question.
    pub fn clean_tag(&mut self, rate: sdmac_phy::Rate, len: u32) -> u8 {
        let key = (rate, len);
        if let Some(i) = self.clean_keys.iter().position(|k| *k == key) {
            return i as u8 + 1;
        }
        if self.clean_keys.len() < CLEAN_TAGS {
            self.clean_keys.push(key);
            return self.clean_keys.len() as u8;
        }
        0
    }

    /// Remembers `p` as the clean-frame answer to question `tag` on link `li` of `tx`.
    pub fn keep_clean(&mut self, tx: StationId, li: usize, tag: u8, p: f64) {
        if let Some(l) = self.from[tx as usize].as_mut().and_then(|list| list.get_mut(li)) {
            l.clean = tag;
            l.clean_p = p;
        }
    }

    /// The link from `tx` to `rx`, if `rx` hears `tx` above the floor.
    /// The list of `tx` must be built.
    pub fn get(&self, tx: StationId, rx: StationId) -> Option<&Link> {
        let list = self.from.get(tx as usize)?.as_ref()?;
        // Where every other station is in range, `rx` sits at its own index (less one
        // past `tx`): try there before searching.
        let guess = rx as usize - usize::from(rx > tx);
        if let Some(l) = list.get(guess) {
            if l.rx == rx {
                return Some(l);
            }
        }
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

    /// The built links of `tx` (empty if not built).
    pub fn of(&self, tx: StationId) -> &[Link] {
        self.from[tx as usize].as_deref().unwrap_or(&[])
    }

    /// The fixed probability that a frame on `link` from `tx` is lost after its
    /// preamble (0 unless an override sets it).
    pub fn error_prob(&self, tx: StationId, link: &Link) -> f64 {
        if !link.fixed_probs {
            return 0.0;
        }
        let o = self.override_for(tx, link.rx);
        o.and_then(|o| o.error_prob).unwrap_or(0.0).clamp(0.0, 1.0)
    }

    /// The fixed probability that the receiver of `link` from `tx` misses the preamble
    /// (0 unless an override sets it).
    pub fn preamble_error_prob(&self, tx: StationId, link: &Link) -> f64 {
        if !link.fixed_probs {
            return 0.0;
        }
        let o = self.override_for(tx, link.rx);
        o.and_then(|o| o.preamble_error_prob).unwrap_or(0.0).clamp(0.0, 1.0)
    }

    /// Replaces (or inserts, or removes when None) the link tx -> rx, if the list of
    /// `tx` is built.
    pub fn put(&mut self, tx: StationId, link: Option<Link>, rx: StationId) {
        let Some(list) = self.from[tx as usize].as_mut() else { return };
        self.gen += 1;
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
