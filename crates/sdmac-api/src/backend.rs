//! The contract every backend (emu, hwsim, linux) fulfils.

use crate::attribute::{Scope, Value};
use crate::confirmation::Confirmation;
use crate::error::ApiError;
use crate::indication::{BeaconInd, Indication};
use crate::request::{Body, TxAttrs};
use sdmac_types::{Ac, Span, Time};
use std::os::fd::RawFd;
use std::time::Duration;

/// How long a receiving primitive may block.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Wait {
    /// Return at once (`None` when nothing is there).
    NoWait,
    /// Block at most this long.
    For(Duration),
    /// Block until something arrives (or the session ends).
    Forever,
}

impl Wait {
    /// The deadline on `CLOCK_MONOTONIC` for a wait starting at `now`; `Time::MAX`
    /// for none.
    pub fn deadline(self, now: Time) -> Time {
        match self {
            Wait::NoWait => now,
            Wait::For(d) => now.saturating_add(Span::from(d)),
            Wait::Forever => Time::MAX,
        }
    }
}

/// A backend's side of one interface. [`crate::Interface`] wraps it; applications
/// use that.
///
/// A type that wraps another backend defines only the methods it changes;
/// [`forward_backend!`](crate::forward_backend) writes the rest ([`crate::forward`]).
pub trait Backend {
    /// Queues one packet. `t1` is the caller's timestamp (`Time::ZERO`: record none). A full
    /// queue is an error here, never a silent drop; every accepted request gets
    /// exactly one confirmation.
    fn data_req(
        &mut self,
        id: u64,
        body: Body<'_>,
        ac: Ac,
        attrs: &TxAttrs,
        t1: Time,
    ) -> Result<(), ApiError>;
    /// The next confirmation (t9 not yet set).
    fn data_con(&mut self, wait: Wait) -> Result<Option<Confirmation>, ApiError>;
    /// The next received frame; its bytes replace the contents of `buf`.
    fn data_ind(&mut self, buf: &mut Vec<u8>, wait: Wait) -> Result<Option<Indication>, ApiError>;
    /// The next beacon heard.
    fn beacon_ind(&mut self, wait: Wait) -> Result<Option<BeaconInd>, ApiError>;
    /// Sets an attribute.
    fn set(&mut self, name: &str, scope: Scope, value: &Value) -> Result<(), ApiError>;
    /// Reads an attribute.
    fn get(&mut self, name: &str, scope: Scope) -> Result<Value, ApiError>;
    /// Cancels a packet still queued: true if it was (its confirmation then says
    /// `Dropped(Cancelled)`), false if it is already on air or done.
    fn cancel(&mut self, id: u64) -> Result<bool, ApiError>;
    /// Packets in the queue of `ac` (requested and not yet finished).
    fn queue_len(&self, ac: Ac) -> usize;
    /// Requests whose confirmation has not been read yet.
    fn unconfirmed(&self) -> usize;
    /// A descriptor that becomes readable when a confirmation, indication or beacon
    /// arrives (for event loops), if the backend has one. Asking for it turns the
    /// signalling on.
    fn event_fd(&mut self) -> Option<RawFd>;
    /// Whether the backend takes timed requests ([`TxAttrs::not_before`],
    /// [`TxAttrs::not_after`]) and keeps them exactly on its own clock.
    fn timed_sends(&self) -> bool;
    /// The current time on the backend's clock (`CLOCK_MONOTONIC`).
    fn now(&self) -> Time {
        Time::from_ns(sdmac_rt::monotonic_ns())
    }
}
