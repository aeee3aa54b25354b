//! Which rates a channel carries: the PHY of a channel by its frequency, and what it
//! does with a frame's rate entries (those it cannot carry are skipped). With a
//! custom PHY (`--phy`) every channel is that PHY and carries every entry at its one
//! rate ([`crate::custom_phy`]).

use crate::custom_phy::CustomPhy;
use sdmac_medium::RateSeries;
use sdmac_phy::{Phy, Rate, Standard};

/// The PHY of a channel: at 5 GHz and above 802.11ac (OFDM, HT and VHT rates), below
/// it 802.11n at 2.4 GHz (DSSS/CCK, ERP-OFDM and HT rates) — what hwsim radios send.
pub(crate) fn standard_for(freq: u32) -> Standard {
    if freq >= 4900 {
        Standard::Dot11ac
    } else {
        Standard::Dot11n2_4
    }
}

/// The PHY of channel `freq`, with carrier sense taken as instantaneous (`cca_ns` 0):
/// the daemon learns of a frame when the kernel hands it over, read in batches, so
/// its frames' instants are not the radios'. With the aCCATime window, frames that
/// merely arrived in one batch would collide.
pub(crate) fn phy_for(freq: u32, custom: Option<&CustomPhy>) -> Phy {
    if let Some(c) = custom {
        return c.phy.clone();
    }
    let mut phy = Phy::new(standard_for(freq));
    phy.cca_ns = 0;
    phy
}

/// Does channel `freq` carry `rate`? (A custom PHY carries every entry, at its rate.)
pub(crate) fn carries(freq: u32, rate: Rate, custom: Option<&CustomPhy>) -> bool {
    custom.is_some() || (rate.is_valid() && standard_for(freq).supports(rate))
}

/// The rate channel `freq` sends an entry of `rate` at: the custom PHY's rate, or
/// `rate` itself.
pub(crate) fn sent_at(rate: Rate, custom: Option<&CustomPhy>) -> Rate {
    custom.map_or(rate, |c| c.rate)
}

/// What channel `freq` does with a frame's rate entries (no allocation: at most 4).
pub(crate) struct Usable {
    /// The entries it carries, in order (the first `n`).
    entries: [(Rate, u8); 4],
    n: usize,
    /// Tries allowed at each of the kernel's entries: its count, 0 where skipped.
    pub tries: [u8; 4],
    /// Entries with tries that it skips, and the first of them.
    pub skipped: u64,
    pub first_skipped: Option<Rate>,
}

/// What channel `freq` does with the rate entries `rates`.
pub(crate) fn usable_rates(freq: u32, rates: &[(Rate, u8)], custom: Option<&CustomPhy>) -> Usable {
    let mut u = Usable {
        entries: [(Rate::Ofdm6, 0); 4],
        n: 0,
        tries: [0; 4],
        skipped: 0,
        first_skipped: None,
    };
    for (k, &(r, n)) in rates.iter().enumerate().take(4) {
        if n == 0 {
            continue;
        }
        if carries(freq, r, custom) {
            u.entries[u.n] = (sent_at(r, custom), n);
            u.n += 1;
            u.tries[k] = n;
        } else {
            u.skipped += 1;
            u.first_skipped.get_or_insert(r);
        }
    }
    u
}

impl Usable {
    /// The entries it carries as the engine's rate series; None when there are none.
    pub fn series(&self) -> Option<RateSeries> {
        RateSeries::new(&self.entries[..self.n])
    }
}
