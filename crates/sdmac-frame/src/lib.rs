//! # sdmac-frame
//!
//! Wire formats for sdmac, in the style of smoltcp: every wire type has a zero-copy
//! *view* over a byte buffer (`new_checked` validates the length once; getters read
//! fields in place; setters write them when the buffer is mutable) and a parsed
//! *representation* (`Repr`) with `parse`, `emit` and `buffer_len`.
//!
//! - [`ieee80211`]: the 802.11 MAC header (frame control, duration, addresses,
//!   sequence control, QoS control, HT control), frame kinds, information elements
//!   and builders that write whole MPDUs (data, QoS data, ACK, RTS, CTS, beacon).
//! - [`radiotap`]: the radiotap capture/injection header.
//! - [`pcapng`]: a pcapng writer and a minimal reader.
//! - [`fcs`]: the 802.11 frame check sequence (CRC-32).
//! - [`mac_addr`]: the 48-bit MAC address (the one of `sdmac-types`, re-exported).
//!
//! No input makes this crate panic: every parse failure is an [`Error`] that names
//! what was being read and where.
//!
//! ```
//! use sdmac_frame::ieee80211::{self, DataParams, Frame, FrameKind};
//! use sdmac_frame::{fcs, radiotap, MacAddress};
//!
//! let ap: MacAddress = "02:00:00:00:01:00".parse()?;
//! let sta: MacAddress = "02:00:00:00:00:00".parse()?;
//!
//! // A data frame with 50 payload bytes and FCS: 24 + 8 (LLC/SNAP) + 50 + 4 bytes.
//! let p = DataParams { to_ds: true, duration: 44, ..DataParams::new(ap, sta, ap, 0x0800) };
//! let mut buf = [0u8; 128];
//! let n = ieee80211::write_data_frame(&mut buf, &p, &[0u8; 50], true)?;
//! assert_eq!(n, ieee80211::data_frame_len(&p, 50, true));
//! assert_eq!(n, 86);
//! assert!(fcs::check_fcs(&buf[..n]));
//!
//! // Parse it back (without the FCS).
//! let frame = Frame::new_checked(&buf[..n - 4])?;
//! let hdr = ieee80211::Repr::parse(&frame)?;
//! assert_eq!((hdr.kind, hdr.addr1, hdr.addr2, hdr.duration), (FrameKind::Data, ap, Some(sta), 44));
//!
//! // A radiotap header for injection: no ACK expected, keep our sequence number.
//! let rt = radiotap::Repr {
//!     tx_flags: Some(radiotap::tx_flags::NOACK | radiotap::tx_flags::NOSEQNO),
//!     rate: Some(12), // 6 Mb/s
//!     ..Default::default()
//! };
//! let mut out = [0u8; 32];
//! let h = rt.emit_into(&mut out)?;
//! assert_eq!(&out[..h], &[0, 0, 12, 0, 0x04, 0x80, 0, 0, 12, 0, 0x18, 0]);
//! # Ok::<(), sdmac_frame::Error>(())
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod channel;
pub mod fcs;
pub mod ieee80211;
/// The 48-bit MAC address: `sdmac-types`' [`MacAddress`], re-exported so frame code
/// and its users keep one type.
pub mod mac_addr {
    pub use sdmac_types::mac::{MacAddress, ParseMacError};
}
pub mod pcapng;
pub mod radiotap;

pub use fcs::check_fcs;
pub use mac_addr::MacAddress;

/// An error from parsing or emitting a wire format, and the result type of this crate:
/// the one error type of sdmac's wire codecs, shared with `sdmac-netlink`.
pub use sdmac_types::wire::{Error, Result};

/// Returns `Err(Truncated)` unless `buf` holds `len` bytes starting at `offset`.
pub(crate) fn need(what: &'static str, buf: &[u8], offset: usize, len: usize) -> Result<()> {
    let need = offset.saturating_add(len);
    if buf.len() < need {
        Err(Error::Truncated { what, offset, need, have: buf.len() })
    } else {
        Ok(())
    }
}

/// Returns `Err(BufferTooSmall)` unless `have >= need`.
pub(crate) fn room(what: &'static str, need: usize, have: usize) -> Result<()> {
    if have < need {
        Err(Error::BufferTooSmall { what, need, have })
    } else {
        Ok(())
    }
}
