//! Mininet-WiFi's control protocol on wmediumd's `-s` UNIX stream socket, and sdmac's
//! extension of it: the codec lives in the `sdmac-control` crate (shared with
//! clients); this module re-exports it under the daemon's old path.

pub use sdmac_control::ext;
pub use sdmac_control::mininet::*;
pub use sdmac_control::stream;
