//! Channel-access state, the way ns-3 separates its `Txop` (one per queue: the backoff
//! and contention window of one channel access function) from its
//! `ChannelAccessManager` (one per station: when the medium became idle or busy for
//! it, the NAV, EIFS). This module holds the state and the arithmetic on one part;
//! `channel_access` holds the rules that move it as the medium changes.

use crate::config::EdcaParams;
use crate::rng::SimRng;
use crate::time::{Time, NEVER};

/// The channel access of one queue: its backoff, counted lazily. `repr(C)`: the fields
/// read at every busy and idle transition come first.
#[derive(Clone, Debug)]
#[repr(C)]
pub(crate) struct QueueAccess {
    /// When this queue may transmit; NEVER if it has no frame or the station is busy
    /// (or blocked by an exchange of its own).
    pub expiry: Time,
    /// From when idle slots count: AIFS after the medium last became idle for the
    /// station (or the time a frame arrived, if later).
    pub anchor: Time,
    /// Backoff slots left, counted down from `anchor` while the station is idle.
    pub backoff: u32,
    /// The contention window the next backoff is drawn in (0..=cw slots).
    pub cw: u32,
    /// The backoff procedure is under way: drawn and not yet counted down to zero.
    pub backoff_running: bool,
    /// The queue's EDCA parameters (AIFSN, CWmin, CWmax, TXOP limit).
    pub params: EdcaParams,
}

impl QueueAccess {
    /// A queue with parameters `params`: contention window CWmin, no backoff drawn, no
    /// frame to send.
    pub fn new(params: EdcaParams) -> QueueAccess {
        QueueAccess {
            expiry: NEVER,
            anchor: 0,
            backoff: 0,
            cw: params.cw_min,
            backoff_running: true,
            params,
        }
    }

    /// Draws a new backoff in the current contention window and starts the procedure.
    pub fn draw_backoff(&mut self, rng: &mut SimRng) {
        self.backoff = rng.uniform_inclusive(self.cw);
        self.backoff_running = true;
    }

    /// Doubles the contention window (plus one), up to CWmax.
    pub fn grow_cw(&mut self) {
        self.cw = (2 * self.cw + 1).min(self.params.cw_max);
    }

    /// AIFS of this queue: SIFS + AIFSN slots, plus `extra` (EIFS − DIFS after a frame
    /// received in error, else 0).
    pub fn aifs(&self, sifs: Time, slot: Time, extra: Time) -> Time {
        sifs + self.params.aifsn as Time * slot + extra
    }

    /// When the backoff ends if the medium stays idle: `anchor` plus the slots left.
    pub fn backoff_end(&self, slot: Time) -> Time {
        self.anchor + self.backoff as Time * slot
    }
}

/// The channel-access bookkeeping of one station that all its queues count from:
/// when the medium became idle or busy for it (physical and virtual carrier sense).
#[derive(Clone, Debug)]
pub(crate) struct StationAccess {
    /// When the medium became idle for this station (physical and virtual carrier
    /// sense: the later of the last busy end and the NAV's end); None while busy.
    pub idle_since: Option<Time>,
    /// When the last busy period began: within aCCATime of it the station has not
    /// sensed it yet (`Medium::unsensed_access`).
    pub busy_from: Time,
    /// `idle_since` as it was when the last busy period began (None if the medium was
    /// already busy then).
    pub idle_before: Option<Time>,
    /// End of the NAV set by frames this station overheard (virtual carrier sense).
    pub nav_until: Time,
    /// The last frame was received with an error: wait EIFS instead of DIFS.
    pub eifs: bool,
}

impl StationAccess {
    /// A station that has sensed the medium idle since time 0, with no NAV.
    pub fn new() -> StationAccess {
        StationAccess {
            idle_since: Some(0),
            busy_from: 0,
            idle_before: None,
            nav_until: 0,
            eifs: false,
        }
    }

    /// The medium turns busy for the station at `t`: it remembers when, and since when
    /// it had been idle.
    pub fn busy_at(&mut self, t: Time) {
        self.busy_from = t;
        self.idle_before = self.idle_since.take();
    }
}
