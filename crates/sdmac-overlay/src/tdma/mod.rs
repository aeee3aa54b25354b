//! TDMA above DCF, in the manner of TBMAC: time is divided into rounds; a round is a
//! contention-free period of assigned slots, one station per slot, followed by a
//! contention period in which stations ask a coordinator for a slot. Requests and
//! grants are ordinary data frames.
//!
//! # Time base
//!
//! Slot start times are computed from a time base every station shares. On emu it is
//! the medium's clock, which is `CLOCK_MONOTONIC` on every interface of a session
//! ([`sdmac_api::Interface::now`]). Elsewhere it is the AP's TSF, carried by beacons;
//! [`TsfSync`] maps it onto the local clock (see there for the algorithm), and its
//! [`TsfSync::error`] is the synchronisation error that goes into the guard.
//! [`TsfClock`] puts an interface on that time base, beacons feeding its fit while the
//! overlay runs, so that the same coordinator and station code runs on either.
//!
//! # Guard interval
//!
//! Within its slot, a station starts an exchange only once the guard has passed since
//! the slot opened, and only if the exchange ends a guard before the slot closes. The
//! guard is the spread of the backend's request path (t_start − t1 over a probe burst,
//! [`measure_jitter`]) plus the synchronisation error; [`Guard`] keeps both, and a
//! [`TdmaPlan`] prints them.
//!
//! # Periodic stations
//!
//! [`run_periodic`] runs one station for a whole run on the backend's clock: frames
//! released periodically (or one per frame heard from a source, for replies) go in the
//! station's window ([`SlotTimes`], from a plan's slot or given directly), and every
//! frame's fate is recorded ([`FrameRecord`]). The station blocks in `data_con` until a
//! lead before its window and polls until the window opens, so the host's wake-up
//! latency is absorbed by the lead, not by the guard.
//!
//! # Refusals
//!
//! [`TdmaPlan::new`] refuses, before anything is sent: no slots, slots (and the
//! contention period) that do not fit the round, a guard that leaves nothing of a
//! slot, a frame whose exchange does not fit in a slot, and a contention period too
//! short for a request and its grant.

mod control;
mod coordinator;
mod error;
mod guard;
mod periodic;
mod plan;
mod station;
mod sync;
#[cfg(test)]
mod tests;
mod tsf_clock;

pub use coordinator::{Coordinator, CoordinatorReport};
pub use error::TdmaError;
pub use guard::{measure_jitter, Guard, JitterReport};
pub use periodic::{
    run_periodic, FrameRecord, PeriodicConfig, PeriodicFlow, PeriodicReport, Releases, SlotTimes,
};
pub use plan::{TdmaParams, TdmaPlan};
pub use station::{StationReport, TdmaStation};
pub use sync::{TsfSync, MAX_DRIFT_PPM};
pub use tsf_clock::TsfClock;
