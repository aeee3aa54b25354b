//! # sdmac-c
//!
//! The C ABI of sdmac: `libsdmac.so` and `libsdmac.a`, declared by
//! `include/sdmac.h` (generated from this crate by cbindgen; the test `header`
//! fails when the checked-in header is stale and says how to regenerate it).
//!
//! A backend is opened by name with `sdmac_open`, exactly as `sdmac_open::open`
//! in Rust and `sdmac.open` in Python. Every function returns an [`sdmac_error`];
//! every pointer argument is checked (NULL gives `SDMAC_ERR_NULL`); no panic
//! crosses the boundary (it becomes `SDMAC_ERR_PANIC`). The threading rules are in
//! the header (see `cbindgen.toml`).

#![warn(missing_docs)]
#![allow(non_camel_case_types)]

mod boundary;
mod convert;
mod error;
mod ffi;
mod types;

pub use error::{sdmac_error, sdmac_last_error, sdmac_strerror};
pub use ffi::*;
pub use types::*;
