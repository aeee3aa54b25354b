//! The beacon (and probe response) body: fixed fields followed by information elements.

use super::ie::{self, Elements};
use crate::{need, Result};

/// Capability Information bit: ESS (sent by access points).
pub const CAP_ESS: u16 = 0x0001;
/// Capability Information bit: IBSS (ad hoc).
pub const CAP_IBSS: u16 = 0x0002;
/// Capability Information bit: Privacy (protection required).
pub const CAP_PRIVACY: u16 = 0x0010;
/// Capability Information bit: Short Preamble.
pub const CAP_SHORT_PREAMBLE: u16 = 0x0020;
/// Capability Information bit: Short Slot Time.
pub const CAP_SHORT_SLOT_TIME: u16 = 0x0400;

/// Length of the fixed fields (timestamp, beacon interval, capability).
pub const FIXED_LEN: usize = 12;

/// One entry of a Supported Rates / Extended Supported Rates element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SupportedRate {
    /// Rate in units of 500 kb/s (2 = 1 Mb/s, 12 = 6 Mb/s, 108 = 54 Mb/s), 1..=127.
    pub rate_500kbps: u8,
    /// Member of the BSS basic rate set (bit 0x80 on the wire).
    pub basic: bool,
}

impl SupportedRate {
    /// A rate in 500 kb/s units, basic or not.
    pub const fn new(rate_500kbps: u8, basic: bool) -> Self {
        SupportedRate { rate_500kbps: rate_500kbps & 0x7F, basic }
    }

    /// Decodes a rate octet.
    pub const fn from_octet(b: u8) -> Self {
        SupportedRate { rate_500kbps: b & 0x7F, basic: b & 0x80 != 0 }
    }

    /// Encodes the rate octet.
    pub const fn octet(self) -> u8 {
        (self.rate_500kbps & 0x7F) | if self.basic { 0x80 } else { 0 }
    }
}

/// A parsed beacon or probe response body (the part after the MAC header, without FCS).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BeaconBody<'a> {
    /// TSF timestamp, microseconds.
    pub timestamp: u64,
    /// Beacon interval in time units (1 TU = 1024 µs).
    pub beacon_interval_tu: u16,
    /// Capability Information.
    pub capability: u16,
    /// The information elements, raw.
    pub elements: &'a [u8],
    /// Offset of `body` within the frame, used in error offsets.
    pub base: usize,
}

impl<'a> BeaconBody<'a> {
    /// Parses the fixed fields; `base` is the body's offset in the frame (the header length),
    /// used in error offsets.
    pub fn parse(body: &'a [u8], base: usize) -> Result<Self> {
        need("beacon fixed fields", body, 0, FIXED_LEN).map_err(|e| rebase(e, base))?;
        let mut ts = [0u8; 8];
        ts.copy_from_slice(&body[0..8]);
        Ok(BeaconBody {
            timestamp: u64::from_le_bytes(ts),
            beacon_interval_tu: u16::from_le_bytes([body[8], body[9]]),
            capability: u16::from_le_bytes([body[10], body[11]]),
            elements: &body[FIXED_LEN..],
            base,
        })
    }

    /// Iterates over the information elements.
    pub fn elements(&self) -> Elements<'a> {
        ie::elements(self.elements, self.base + FIXED_LEN)
    }

    /// The first element with this ID (`Ok(None)` if absent, `Err` if the element
    /// list is broken before it is found).
    pub fn find(&self, id: u8) -> Result<Option<&'a [u8]>> {
        for e in self.elements() {
            let e = e?;
            if e.id == id {
                return Ok(Some(e.data));
            }
        }
        Ok(None)
    }

    /// The SSID element's data.
    pub fn ssid(&self) -> Result<Option<&'a [u8]>> {
        self.find(ie::SSID)
    }

    /// The channel from the DSSS Parameter Set element.
    pub fn ds_channel(&self) -> Result<Option<u8>> {
        Ok(self.find(ie::DS_PARAMETER_SET)?.and_then(|d| d.first().copied()))
    }

    /// The supported rates: the Supported Rates element followed by the Extended
    /// Supported Rates element, in order.
    pub fn rates(&self) -> Result<impl Iterator<Item = SupportedRate> + 'a> {
        let a = self.find(ie::SUPPORTED_RATES)?.unwrap_or(&[]);
        let b = self.find(ie::EXTENDED_SUPPORTED_RATES)?.unwrap_or(&[]);
        Ok(a.iter().chain(b.iter()).map(|&o| SupportedRate::from_octet(o)))
    }
}

fn rebase(e: crate::Error, base: usize) -> crate::Error {
    match e {
        crate::Error::Truncated { what, offset, need, have } => crate::Error::Truncated {
            what,
            offset: offset + base,
            need: need + base,
            have: have + base,
        },
        e => e,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_octets() {
        assert_eq!(SupportedRate::new(2, true).octet(), 0x82);
        assert_eq!(SupportedRate::from_octet(0x8c), SupportedRate::new(12, true));
        assert_eq!(SupportedRate::from_octet(0x6c), SupportedRate::new(108, false));
    }

    #[test]
    fn short_body() {
        let e = BeaconBody::parse(&[0u8; 5], 24).unwrap_err();
        assert_eq!(
            e,
            crate::Error::Truncated { what: "beacon fixed fields", offset: 24, need: 36, have: 29 }
        );
    }
}
