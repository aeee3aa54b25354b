//! The TDMA plan: its parameters, its checks, and the slot times it gives.

use super::control::CONTROL_PAYLOAD;
use super::error::TdmaError;
use super::guard::Guard;
use super::sync::TsfSync;
use crate::exchange::{mpdu_len, try_ns};
use sdmac_api::{Rate, Span, Time};
use sdmac_phy::Phy;
use std::fmt;

/// What a plan is made of.
#[derive(Clone, Debug, PartialEq)]
pub struct TdmaParams {
    /// The PHY (for airtimes).
    pub phy: Phy,
    /// Length of a round.
    pub round: Span,
    /// Slots in the contention-free period.
    pub slots: u32,
    /// Length of each slot.
    pub slot: Span,
    /// Length of the contention period (at least; the rest of the round is added to it).
    pub contention: Span,
    /// The guard.
    pub guard: Guard,
    /// Payload bytes of the data frames sent in slots.
    pub payload: usize,
    /// Their rate.
    pub rate: Rate,
    /// Start of round 0 on the shared time base.
    pub epoch: Time,
}

/// A checked TDMA plan.
#[derive(Clone, Debug, PartialEq)]
pub struct TdmaPlan {
    pub(super) p: TdmaParams,
    pub(super) exchange: Span,
    pub(super) control: Span,
}

/// One exchange in a slot: DIFS, the longest first backoff (CWmin slots: the station
/// may be in post-backoff after its previous frame), then one try.
fn exchange_ns(phy: &Phy, len: u32, rate: Rate) -> u64 {
    phy.difs_ns() + u64::from(phy.cw_min) * phy.slot_ns + try_ns(phy, len, rate)
}

impl TdmaPlan {
    /// Checks `p` and makes the plan, or says what cannot work.
    pub fn new(p: TdmaParams) -> Result<TdmaPlan, TdmaError> {
        if p.slots == 0 {
            return Err(TdmaError::NoSlots);
        }
        if !p.phy.standard.supports(p.rate) {
            return Err(TdmaError::BadRate(p.rate));
        }
        let cfp = p.slot.saturating_mul(u64::from(p.slots));
        if cfp.saturating_add(p.contention) > p.round || p.slot.is_zero() {
            return Err(TdmaError::SlotsDoNotFit {
                slots: p.slots,
                slot: p.slot,
                contention: p.contention,
                round: p.round,
            });
        }
        let g = p.guard.total();
        if g.saturating_mul(2) >= p.slot {
            return Err(TdmaError::GuardLargerThanSlot { guard: g, slot: p.slot });
        }
        let len = mpdu_len(p.payload);
        let exchange = Span::from_ns(exchange_ns(&p.phy, len, p.rate));
        let usable = p.slot - g.saturating_mul(2);
        if exchange > usable {
            return Err(TdmaError::FrameDoesNotFit { len, rate: p.rate, exchange, usable });
        }
        let control = Span::from_ns(exchange_ns(&p.phy, mpdu_len(CONTROL_PAYLOAD), p.rate));
        let needed = control.saturating_mul(2) + g.saturating_mul(2);
        let contention = p.round - cfp;
        if contention < needed {
            return Err(TdmaError::ContentionTooShort { contention, needed });
        }
        Ok(TdmaPlan { p, exchange, control })
    }

    /// The time one data exchange of `payload` bytes at `rate` is given in a slot:
    /// DIFS, CWmin backoff slots (the station may be in post-backoff), DATA, and the
    /// longer of SIFS + ACK and the ACKTimeout.
    pub fn exchange_for(phy: &Phy, payload: usize, rate: Rate) -> Span {
        Span::from_ns(exchange_ns(phy, mpdu_len(payload), rate))
    }

    /// The same plan with round 0 starting at TSF instant `epoch_tsf_ns`, mapped onto
    /// the local clock by `sync` (for a station whose time base is the AP's TSF);
    /// `None` before `sync` has seen a beacon. Re-map after new beacons to follow the
    /// drift.
    pub fn on_tsf(&self, sync: &TsfSync, epoch_tsf_ns: u64) -> Option<TdmaPlan> {
        let epoch = sync.to_local(epoch_tsf_ns)?;
        Some(TdmaPlan { p: TdmaParams { epoch, ..self.p.clone() }, ..self.clone() })
    }

    /// The parameters.
    pub fn params(&self) -> &TdmaParams {
        &self.p
    }

    /// The time one data exchange is given in a slot.
    pub fn exchange(&self) -> Span {
        self.exchange
    }

    /// Exchanges that fit in one slot between its guards.
    pub fn frames_per_slot(&self) -> u64 {
        (self.p.slot - self.p.guard.total().saturating_mul(2)).as_ns() / self.exchange.as_ns()
    }

    /// Start of round `k`.
    pub fn round_start(&self, k: u64) -> Time {
        self.p.epoch.saturating_add(self.p.round.saturating_mul(k))
    }

    /// The round under way at `t` (0 before the epoch).
    pub fn round_at(&self, t: Time) -> u64 {
        t.saturating_since(self.p.epoch).as_ns() / self.p.round.as_ns()
    }

    /// Where slot `s` of round `k` may be used: from its start plus the guard to its
    /// end minus the guard.
    pub fn slot_window(&self, k: u64, s: u32) -> (Time, Time) {
        let start = self.round_start(k).saturating_add(self.p.slot.saturating_mul(u64::from(s)));
        let g = self.p.guard.total();
        (start + g, start + self.p.slot - g)
    }

    /// Where the contention period of round `k` may be used (guards inside it too).
    pub fn contention_window(&self, k: u64) -> (Time, Time) {
        let start =
            self.round_start(k).saturating_add(self.p.slot.saturating_mul(u64::from(self.p.slots)));
        let g = self.p.guard.total();
        (start + g, self.round_start(k + 1) - g)
    }
}

impl fmt::Display for TdmaPlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = &self.p;
        let cfp = p.slot.saturating_mul(u64::from(p.slots));
        writeln!(
            f,
            "TDMA round {:.1} µs: {} slots of {:.1} µs, contention period {:.1} µs",
            p.round.as_us_f64(),
            p.slots,
            p.slot.as_us_f64(),
            (p.round - cfp).as_us_f64()
        )?;
        writeln!(f, "guard {}", p.guard)?;
        write!(
            f,
            "frame {} B at {}: {:.1} µs per exchange (DIFS + CWmin backoff + DATA + ACK), {} per slot",
            mpdu_len(p.payload),
            p.rate,
            self.exchange.as_us_f64(),
            self.frames_per_slot()
        )
    }
}
