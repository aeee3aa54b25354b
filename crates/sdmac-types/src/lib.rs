//! # sdmac-types
//!
//! The vocabulary every sdmac layer shares, below all of them: the API
//! (`sdmac-api`) and its backends, the medium engine (`sdmac-medium`), the medium
//! daemon (`sdmac-mediumd`), the frame codecs (`sdmac-frame`) and the configuration
//! readers (`sdmac-wmconfig`) name things with these types, so a backend for a real
//! adapter links no simulator.
//!
//! - [`MacAddress`]: the one 48-bit MAC address type, with its text form.
//!
//! It depends on `sdmac-phy` (rates and airtime formulas) and nothing else.

pub mod mac;

pub use mac::{MacAddress, ParseMacError};
