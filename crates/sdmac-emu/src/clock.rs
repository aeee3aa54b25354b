//! The session's clock: the wall clock, or a virtual clock that moves only when every
//! application taking part is waiting.
//!
//! # Virtual time
//!
//! On [`EmuClock::Virtual`] the medium's time stands still while any interface taking
//! part is *busy* (its application is doing something other than waiting in a
//! receiving primitive), and jumps, when none is, straight to the earliest of the
//! medium's next event, the earliest waiter's deadline and the earliest held request
//! or confirmation. A run then depends only on the seed and what the applications do,
//! never on how the host schedules their threads.
//!
//! The rules at the edges:
//! - An interface *waits* while its application is blocked in `data_con`, `data_ind`
//!   or `beacon_ind` with `Wait::For(d)` (`d` on the medium's clock) or
//!   `Wait::Forever`, and nothing it waits for is there. `Wait::NoWait` never waits:
//!   an application that polls holds time still (the watchdog names it).
//! - An interface takes part from the moment it is taken from the session
//!   ([`crate::EmuSession::take`], or returned by `add_station`) until it is dropped
//!   or the application says it is done with it
//!   ([`crate::EmuSession::take_no_part`]). An interface never taken takes no part. Taking every interface before starting
//!   the threads that use them keeps the start deterministic: time stays at 0 until
//!   each of them has first waited, whatever order the threads start in. (Counting an
//!   interface only from its first wait would let time run ahead of a thread that
//!   starts late.)
//! - Requests are taken at the current virtual time. Those sent by several
//!   applications at one instant reach the medium in interface order (the order the
//!   session was given them), then in each one's order, once every application has
//!   waited again: the order in which the host ran the threads never shows.
//! - Control primitives (`set`, `get`, `cancel`) are answered at once, without time
//!   moving.
//! - `event_fd` is refused (`None`; the Python binding raises `Unsupported`): an event
//!   loop waiting on a descriptor is not a wait the device can see.
//! - A watchdog: when virtual time has not moved for [`EmuOptions::watchdog`] of wall
//!   time while some interface is busy, the device prints (stderr) which interfaces it
//!   waits for, and keeps the message ([`crate::EmuSession::stalls`]).
//!
//! Times on the virtual clock keep the API's time base: `CLOCK_MONOTONIC`-like
//! nanoseconds, medium time 0 being [`VIRTUAL_ORIGIN`], the same in every run.
//!
//! [`EmuOptions::watchdog`]: crate::EmuOptions::watchdog

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Which clock drives the medium of a session.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum EmuClock {
    /// Paced to `CLOCK_MONOTONIC`: medium time 0 is the session's start.
    #[default]
    Wall,
    /// As fast as possible: time moves only when every interface taking part waits
    /// (see the [module documentation](crate::clock)).
    Virtual,
}

impl std::str::FromStr for EmuClock {
    type Err = String;
    fn from_str(s: &str) -> Result<EmuClock, String> {
        match s {
            "wall" => Ok(EmuClock::Wall),
            "virtual" => Ok(EmuClock::Virtual),
            other => Err(format!("clock {other:?}: expected \"wall\" or \"virtual\"")),
        }
    }
}

/// The API time (ns) of medium time 0 on the virtual clock: one second, so that no
/// time the API reports is ever 0 ("not recorded").
pub const VIRTUAL_ORIGIN: u64 = 1_000_000_000;

/// An interface not taking part in virtual time (never taken, or dropped).
pub(crate) const V_DETACHED: u64 = 0;
/// An interface whose application is busy.
pub(crate) const V_BUSY: u64 = 1;
/// Bits of a waiting state that hold the deadline.
const DEADLINE_BITS: u32 = 62;
/// A deadline that never comes.
pub(crate) const V_FOREVER: u64 = (1 << DEADLINE_BITS) - 1;

/// What a waiting application waits for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum WaitKind {
    Con = 1,
    Ind = 2,
    Beacon = 3,
}

/// A waiting state: what and until when (virtual API time, [`V_FOREVER`] for never).
pub(crate) fn waiting(kind: WaitKind, deadline: u64) -> u64 {
    ((kind as u64) << DEADLINE_BITS) | deadline.min(V_FOREVER)
}

/// The kind and deadline of a waiting state (`None` for detached or busy).
pub(crate) fn decode(state: u64) -> Option<(WaitKind, u64)> {
    let kind = match state >> DEADLINE_BITS {
        1 => WaitKind::Con,
        2 => WaitKind::Ind,
        3 => WaitKind::Beacon,
        _ => return None,
    };
    Some((kind, state & V_FOREVER))
}

/// Where the time of the API comes from: `CLOCK_MONOTONIC`, or the session's virtual
/// time.
#[derive(Clone, Debug)]
pub(crate) struct TimeSource {
    virt: Option<Arc<AtomicU64>>,
}

impl TimeSource {
    /// The source of a session on `clock`, at virtual time `start` when virtual.
    pub fn new(clock: EmuClock, start: u64) -> TimeSource {
        match clock {
            EmuClock::Wall => TimeSource { virt: None },
            EmuClock::Virtual => TimeSource { virt: Some(Arc::new(AtomicU64::new(start))) },
        }
    }

    /// Whether time is virtual.
    #[inline]
    pub fn is_virtual(&self) -> bool {
        self.virt.is_some()
    }

    /// The time now (ns, API time base).
    #[inline]
    pub fn now(&self) -> u64 {
        match &self.virt {
            Some(v) => v.load(Ordering::SeqCst),
            None => sdmac_rt::monotonic_ns(),
        }
    }

    /// Moves virtual time on to `t` (the device only; never back).
    pub fn set(&self, t: u64) {
        if let Some(v) = &self.virt {
            v.fetch_max(t, Ordering::SeqCst);
        }
    }
}
