//! # sdmac-types
//!
//! The vocabulary every sdmac layer shares, below all of them: the API
//! (`sdmac-api`) and its backends, the medium engine (`sdmac-medium`), the medium
//! daemon (`sdmac-mediumd`), the frame codecs (`sdmac-frame`) and the configuration
//! readers (`sdmac-wmconfig`) name things with these types, so a backend for a real
//! adapter links no simulator.
//!
//! - [`MacAddress`]: the one 48-bit MAC address type, with its text form.
//! - [`Time`] and [`Span`]: an instant and a length of time in integer nanoseconds.
//! - [`Ac`]: the EDCA access category.
//! - [`RateSeries`]: up to four (rate, tries) entries of one transmission.
//! - [`Outcome`] and [`Cause`]: how a transmission ended (A, LD, LA, ...) and why a
//!   frame was lost.
//! - [`wire::Error`]: the error of the wire-format codecs, the frame codecs'
//!   (`sdmac-frame`) and the netlink codecs' (`sdmac-netlink`) alike.
//!
//! It depends on `sdmac-phy` (rates and airtime formulas) and nothing else.

#![warn(missing_docs)]

pub mod ac;
pub mod mac;
pub mod outcome;
pub mod rate_series;
pub mod time;
pub mod wire;

pub use ac::Ac;
pub use mac::{MacAddress, ParseMacError};
pub use outcome::{Cause, Outcome};
pub use rate_series::RateSeries;
pub use time::{Span, Time};
