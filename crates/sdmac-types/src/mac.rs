//! The 48-bit IEEE 802 MAC address.

use core::fmt;
use core::str::FromStr;

/// A 48-bit IEEE 802 MAC address, in transmission byte order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct MacAddress(pub [u8; 6]);

impl MacAddress {
    /// The broadcast address `ff:ff:ff:ff:ff:ff`.
    pub const BROADCAST: MacAddress = MacAddress([0xff; 6]);
    /// The all-zero address `00:00:00:00:00:00`.
    pub const ZERO: MacAddress = MacAddress([0; 6]);
    /// Length of an address on the wire, in bytes.
    pub const LEN: usize = 6;

    /// Makes an address from its six bytes.
    pub const fn new(bytes: [u8; 6]) -> Self {
        MacAddress(bytes)
    }

    /// Reads an address from the first six bytes of `bytes`, or `None` if there are fewer.
    pub fn from_bytes(bytes: &[u8]) -> Option<Self> {
        let b: [u8; 6] = bytes.get(..6)?.try_into().ok()?;
        Some(MacAddress(b))
    }

    /// The six bytes of the address.
    pub const fn as_bytes(&self) -> &[u8; 6] {
        &self.0
    }

    /// True for group addresses (the I/G bit, bit 0 of the first byte, is set);
    /// the broadcast address is multicast too.
    pub const fn is_multicast(&self) -> bool {
        self.0[0] & 0x01 != 0
    }

    /// True for `ff:ff:ff:ff:ff:ff`.
    pub fn is_broadcast(&self) -> bool {
        *self == Self::BROADCAST
    }

    /// True for individual (non-group) addresses.
    pub const fn is_unicast(&self) -> bool {
        !self.is_multicast()
    }

    /// True when the U/L bit (bit 1 of the first byte) marks a locally administered address.
    pub const fn is_local(&self) -> bool {
        self.0[0] & 0x02 != 0
    }
}

impl From<[u8; 6]> for MacAddress {
    fn from(b: [u8; 6]) -> Self {
        MacAddress(b)
    }
}

impl From<MacAddress> for [u8; 6] {
    fn from(a: MacAddress) -> Self {
        a.0
    }
}

impl fmt::Display for MacAddress {
    /// Formats as six lowercase hex pairs separated by colons: `02:00:00:00:01:00`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = &self.0;
        write!(f, "{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}", b[0], b[1], b[2], b[3], b[4], b[5])
    }
}

/// Why a text is not a MAC address: the character position of the problem and what
/// is wrong there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseMacError {
    /// Position (in bytes) of the problem in the text.
    pub offset: usize,
    /// What is wrong there.
    pub reason: &'static str,
}

impl fmt::Display for ParseMacError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad MAC address at character {}: {}", self.offset, self.reason)
    }
}

impl std::error::Error for ParseMacError {}

impl FromStr for MacAddress {
    type Err = ParseMacError;

    /// Parses six hex pairs separated by `:` or `-` (`aa:bb:cc:dd:ee:ff`), in either case.
    /// On error, `offset` is the character position of the problem.
    fn from_str(s: &str) -> Result<Self, ParseMacError> {
        let bytes = s.as_bytes();
        if bytes.len() != 17 {
            return Err(ParseMacError {
                offset: 0,
                reason: "expected 17 characters like aa:bb:cc:dd:ee:ff",
            });
        }
        let sep = bytes[2];
        if sep != b':' && sep != b'-' {
            return Err(ParseMacError { offset: 2, reason: "expected ':' or '-'" });
        }
        let mut out = [0u8; 6];
        for (i, byte) in out.iter_mut().enumerate() {
            let at = i * 3;
            if i > 0 && bytes[at - 1] != sep {
                return Err(ParseMacError {
                    offset: at - 1,
                    reason: "inconsistent or missing separator",
                });
            }
            let hi =
                hex(bytes[at]).ok_or(ParseMacError { offset: at, reason: "not a hex digit" })?;
            let lo = hex(bytes[at + 1])
                .ok_or(ParseMacError { offset: at + 1, reason: "not a hex digit" })?;
            *byte = hi << 4 | lo;
        }
        Ok(MacAddress(out))
    }
}

fn hex(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_and_parse() {
        let a = MacAddress([0x02, 0, 0, 0, 0x01, 0xab]);
        assert_eq!(a.to_string(), "02:00:00:00:01:ab");
        assert_eq!("02:00:00:00:01:AB".parse::<MacAddress>().unwrap(), a);
        assert_eq!("02-00-00-00-01-ab".parse::<MacAddress>().unwrap(), a);
        assert_eq!(MacAddress::BROADCAST.to_string(), "ff:ff:ff:ff:ff:ff");
    }

    #[test]
    fn parse_errors_name_position() {
        assert!(matches!(
            "02:00:00:00:01".parse::<MacAddress>(),
            Err(ParseMacError { offset: 0, .. })
        ));
        assert!(matches!(
            "02:00:0g:00:01:00".parse::<MacAddress>(),
            Err(ParseMacError { offset: 7, .. })
        ));
        assert!(matches!(
            "02:00-00:00:01:00".parse::<MacAddress>(),
            Err(ParseMacError { offset: 5, .. })
        ));
        // multi-byte UTF-8 of the right byte length must not panic
        assert!("é2:00:00:00:01:0".parse::<MacAddress>().is_err());
    }

    #[test]
    fn flags() {
        assert!(MacAddress::BROADCAST.is_multicast());
        assert!(MacAddress::BROADCAST.is_broadcast());
        assert!(MacAddress([0x01, 0x00, 0x5e, 0, 0, 1]).is_multicast());
        assert!(MacAddress([0x02, 0, 0, 0, 0, 0]).is_unicast());
        assert!(MacAddress([0x02, 0, 0, 0, 0, 0]).is_local());
        assert_eq!(MacAddress::from_bytes(&[1, 2, 3, 4, 5]), None);
        assert_eq!(
            MacAddress::from_bytes(&[1, 2, 3, 4, 5, 6, 7]),
            Some(MacAddress([1, 2, 3, 4, 5, 6]))
        );
    }
}
