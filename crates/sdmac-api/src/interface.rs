//! The application's handle on one interface.

use crate::attribute::{Scope, Value};
use crate::backend::{Backend, Wait};
use crate::confirmation::Confirmation;
use crate::error::ApiError;
use crate::indication::{BeaconInd, Indication};
use crate::request::{Body, TxAttrs};
use sdmac_types::{Ac, Time};
use std::os::fd::RawFd;

/// One interface of a backend: the SDMAC primitives. Takes the caller-side
/// timestamps t1 (just before the backend is called) and t9 (just before a
/// confirmation is returned).
#[derive(Debug)]
pub struct Interface<B: Backend> {
    backend: B,
}

impl<B: Backend> Interface<B> {
    /// Wraps a backend's interface.
    pub fn new(backend: B) -> Interface<B> {
        Interface { backend }
    }

    /// The backend.
    pub fn backend(&self) -> &B {
        &self.backend
    }

    /// The backend, mutably.
    pub fn backend_mut(&mut self) -> &mut B {
        &mut self.backend
    }

    /// `DATA_req`: queues one packet with caller-chosen `id`.
    #[inline]
    pub fn data_req(
        &mut self,
        id: u64,
        body: Body<'_>,
        ac: Ac,
        attrs: &TxAttrs,
    ) -> Result<(), ApiError> {
        let t1 = if attrs.timestamps { self.backend.now() } else { Time::ZERO };
        self.data_req_at(t1, id, body, ac, attrs)
    }

    /// `DATA_req` with t1 taken by the caller (e.g. in Python, before the binding).
    #[inline]
    pub fn data_req_at(
        &mut self,
        t1: Time,
        id: u64,
        body: Body<'_>,
        ac: Ac,
        attrs: &TxAttrs,
    ) -> Result<(), ApiError> {
        if attrs.is_timed() && !self.backend.timed_sends() {
            return Err(ApiError::Unsupported {
                what: "timed requests (not_before / not_after): this backend cannot hand a \
                       frame to channel access at a time of its clock"
                    .into(),
            });
        }
        self.backend.data_req(id, body, ac, attrs, if attrs.timestamps { t1 } else { Time::ZERO })
    }

    /// Whether the backend takes timed requests (`not_before` / `not_after`).
    pub fn timed_sends(&self) -> bool {
        self.backend.timed_sends()
    }

    /// `DATA_con`: the next confirmation, waiting as `wait` says.
    #[inline]
    pub fn data_con(&mut self, wait: Wait) -> Result<Option<Confirmation>, ApiError> {
        let mut c = self.backend.data_con(wait)?;
        if let Some(c) = c.as_mut() {
            if !c.ts.t1.is_zero() {
                c.ts.t9 = self.backend.now();
            }
        }
        Ok(c)
    }

    /// `DATA_ind`: the next received frame (its bytes into `buf`).
    pub fn data_ind(
        &mut self,
        buf: &mut Vec<u8>,
        wait: Wait,
    ) -> Result<Option<Indication>, ApiError> {
        let mut ind = self.backend.data_ind(buf, wait)?;
        if let Some(i) = ind.as_mut() {
            i.rx.t_returned = self.backend.now();
        }
        Ok(ind)
    }

    /// `beacon_ind`: the next beacon heard.
    pub fn beacon_ind(&mut self, wait: Wait) -> Result<Option<BeaconInd>, ApiError> {
        self.backend.beacon_ind(wait)
    }

    /// `DATA_set`.
    pub fn set(
        &mut self,
        name: &str,
        scope: Scope,
        value: impl Into<Value>,
    ) -> Result<(), ApiError> {
        self.backend.set(name, scope, &value.into())
    }

    /// `DATA_get`.
    pub fn get(&mut self, name: &str, scope: Scope) -> Result<Value, ApiError> {
        self.backend.get(name, scope)
    }

    /// Cancels a queued packet (true if it was still queued).
    pub fn cancel(&mut self, id: u64) -> Result<bool, ApiError> {
        self.backend.cancel(id)
    }

    /// Queue occupancy of `ac`.
    pub fn queue_len(&self, ac: Ac) -> usize {
        self.backend.queue_len(ac)
    }

    /// Requests whose confirmation has not been read.
    pub fn unconfirmed(&self) -> usize {
        self.backend.unconfirmed()
    }

    /// A descriptor for event loops.
    pub fn event_fd(&mut self) -> Option<RawFd> {
        self.backend.event_fd()
    }

    /// The backend's clock (`CLOCK_MONOTONIC`).
    pub fn now(&self) -> Time {
        self.backend.now()
    }
}

impl From<i64> for Value {
    fn from(v: i64) -> Value {
        Value::Int(v)
    }
}
impl From<f64> for Value {
    fn from(v: f64) -> Value {
        Value::Float(v)
    }
}
impl From<bool> for Value {
    fn from(v: bool) -> Value {
        Value::Bool(v)
    }
}
impl From<&str> for Value {
    fn from(v: &str) -> Value {
        Value::Text(v.to_string())
    }
}
impl From<sdmac_types::MacAddress> for Value {
    fn from(v: sdmac_types::MacAddress) -> Value {
        Value::Mac(v)
    }
}
impl From<sdmac_types::RateSeries> for Value {
    fn from(v: sdmac_types::RateSeries) -> Value {
        Value::Rates(v)
    }
}
