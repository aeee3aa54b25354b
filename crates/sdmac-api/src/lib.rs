//! # sdmac-api
//!
//! The SDMAC primitives, as an application sees them on every backend:
//!
//! | primitive | here |
//! |---|---|
//! | `DATA_req` | [`Interface::data_req`] — one packet, with per-packet [`TxAttrs`] |
//! | `DATA_con` | [`Interface::data_con`] — its [`Confirmation`]: outcome, attempts, rates, [`Timestamps`] |
//! | `DATA_ind` | [`Interface::data_ind`] — a received frame ([`Indication`]) |
//! | `beacon_ind` | [`Interface::beacon_ind`] — the next beacon heard ([`BeaconInd`]) |
//! | `DATA_set` / `DATA_get` | [`Interface::set`] / [`Interface::get`] — [`attribute`]s of the adapter, a queue or a packet |
//! | cancel, occupancy | [`Interface::cancel`], [`Interface::queue_len`] |
//!
//! A backend (emu, hwsim, linux) implements [`Backend`]; [`Interface`] wraps it and
//! takes the caller-side timestamps t1 and t9. [`timestamps`] maps the SDMAC paper's
//! reference planes onto this implementation and derives the latency components;
//! [`oneshot`] is the paper's measurement task, written on the API only so it runs
//! on every backend. A type that wraps a backend and changes a few of its methods
//! writes only those: [`forward_backend!`] ([`forward`]) writes the rest.
//!
//! The types it shares with the layers below ([`MacAddress`], [`Time`] and [`Span`],
//! [`Ac`], [`RateSeries`], [`Outcome`], [`Cause`]) come from `sdmac-types` and are
//! re-exported here. The API depends on no simulator (`tests/layering.rs` checks it),
//! so a backend for a real adapter links none.

#![warn(missing_docs)]

pub mod attribute;
pub mod backend;
pub mod backend_name;
pub mod confirmation;
pub mod error;
pub mod forward;
pub mod indication;
pub mod interface;
pub mod oneshot;
pub mod rates;
pub mod request;
pub mod timestamps;

pub use attribute::{AttrSpec, Scope, Value, ATTRIBUTES};
pub use backend::{Backend, Wait};
pub use backend_name::{BackendName, BackendNameError, NameProblem};
pub use confirmation::{Confirmation, DropReason, Status, Truth};
pub use error::ApiError;
pub use indication::{BeaconInd, FrameClass, Indication, RxInfo};
pub use interface::Interface;
pub use rates::{check_tries, format_rate_series, parse_rate_series, MAX_TRIES};
pub use request::{Body, TxAttrs, MAX_ID, MAX_PAYLOAD};
pub use timestamps::{Components, Timestamps, COMPONENT_NAMES};

pub use sdmac_phy::Rate;
pub use sdmac_types::{Ac, Cause, MacAddress, Outcome, RateSeries, Span, Time};
