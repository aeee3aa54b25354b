//! The 802.11 Frame Control field and the frame kinds it encodes.

use core::fmt;

/// The 2-bit Type subfield of Frame Control.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FrameType {
    /// Management frames (type 0).
    Management,
    /// Control frames (type 1).
    Control,
    /// Data frames (type 2).
    Data,
    /// Extension frames (type 3: DMG beacon, S1G beacon, ...).
    Extension,
}

impl FrameType {
    /// The type from the 2-bit value (higher bits are ignored).
    pub const fn from_bits(bits: u8) -> Self {
        match bits & 0x3 {
            0 => FrameType::Management,
            1 => FrameType::Control,
            2 => FrameType::Data,
            _ => FrameType::Extension,
        }
    }

    /// The 2-bit value.
    pub const fn bits(self) -> u8 {
        match self {
            FrameType::Management => 0,
            FrameType::Control => 1,
            FrameType::Data => 2,
            FrameType::Extension => 3,
        }
    }
}

/// What a frame is, from its type and subtype.
///
/// [`FrameKind::from_type_subtype`] is canonical: `Other` never holds a
/// type/subtype pair that has a named variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FrameKind {
    /// Data (type 2, subtype 0).
    Data,
    /// QoS Data (type 2, subtype 8).
    QosData,
    /// Null, no data (type 2, subtype 4).
    Null,
    /// QoS Null (type 2, subtype 12).
    QosNull,
    /// Ack (type 1, subtype 13).
    Ack,
    /// RTS (type 1, subtype 11).
    Rts,
    /// CTS (type 1, subtype 12).
    Cts,
    /// Beacon (type 0, subtype 8).
    Beacon,
    /// Probe Request (type 0, subtype 4).
    ProbeReq,
    /// Probe Response (type 0, subtype 5).
    ProbeResp,
    /// Association Request (type 0, subtype 0).
    AssocReq,
    /// Association Response (type 0, subtype 1).
    AssocResp,
    /// Authentication (type 0, subtype 11).
    Auth,
    /// Deauthentication (type 0, subtype 12).
    Deauth,
    /// Disassociation (type 0, subtype 10).
    Disassoc,
    /// Action (type 0, subtype 13).
    Action,
    /// Any other type/subtype pair.
    Other {
        /// The 2-bit type.
        ftype: u8,
        /// The 4-bit subtype.
        subtype: u8,
    },
}

impl FrameKind {
    /// The kind for a type (2 bits) and subtype (4 bits); higher bits are ignored.
    pub const fn from_type_subtype(ftype: u8, subtype: u8) -> Self {
        let (t, s) = (ftype & 0x3, subtype & 0xF);
        match (t, s) {
            (0, 0) => FrameKind::AssocReq,
            (0, 1) => FrameKind::AssocResp,
            (0, 4) => FrameKind::ProbeReq,
            (0, 5) => FrameKind::ProbeResp,
            (0, 8) => FrameKind::Beacon,
            (0, 10) => FrameKind::Disassoc,
            (0, 11) => FrameKind::Auth,
            (0, 12) => FrameKind::Deauth,
            (0, 13) => FrameKind::Action,
            (1, 11) => FrameKind::Rts,
            (1, 12) => FrameKind::Cts,
            (1, 13) => FrameKind::Ack,
            (2, 0) => FrameKind::Data,
            (2, 4) => FrameKind::Null,
            (2, 8) => FrameKind::QosData,
            (2, 12) => FrameKind::QosNull,
            _ => FrameKind::Other { ftype: t, subtype: s },
        }
    }

    /// The (type, subtype) pair, each masked to its width.
    pub const fn type_subtype(self) -> (u8, u8) {
        match self {
            FrameKind::AssocReq => (0, 0),
            FrameKind::AssocResp => (0, 1),
            FrameKind::ProbeReq => (0, 4),
            FrameKind::ProbeResp => (0, 5),
            FrameKind::Beacon => (0, 8),
            FrameKind::Disassoc => (0, 10),
            FrameKind::Auth => (0, 11),
            FrameKind::Deauth => (0, 12),
            FrameKind::Action => (0, 13),
            FrameKind::Rts => (1, 11),
            FrameKind::Cts => (1, 12),
            FrameKind::Ack => (1, 13),
            FrameKind::Data => (2, 0),
            FrameKind::Null => (2, 4),
            FrameKind::QosData => (2, 8),
            FrameKind::QosNull => (2, 12),
            FrameKind::Other { ftype, subtype } => (ftype & 0x3, subtype & 0xF),
        }
    }

    /// The frame type.
    pub const fn frame_type(self) -> FrameType {
        FrameType::from_bits(self.type_subtype().0)
    }

    /// The 4-bit subtype.
    pub const fn subtype(self) -> u8 {
        self.type_subtype().1
    }

    /// True for data subtypes that carry a QoS Control field (subtype bit 3 set).
    pub const fn is_qos_data(self) -> bool {
        let (t, s) = self.type_subtype();
        t == 2 && s & 0x8 != 0
    }
}

impl fmt::Display for FrameKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FrameKind::Other { ftype, subtype } => write!(f, "type {ftype} subtype {subtype}"),
            k => fmt::Debug::fmt(k, f),
        }
    }
}

/// The 16-bit Frame Control field, as a value (host order).
///
/// On the wire it is little-endian: byte 0 holds protocol version (bits 0-1), type
/// (bits 2-3) and subtype (bits 4-7); byte 1 holds the flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct FrameControl(pub u16);

macro_rules! flag {
    ($get:ident, $set:ident, $bit:expr, $doc:literal) => {
        #[doc = concat!("The ", $doc, " flag.")]
        pub const fn $get(self) -> bool {
            self.0 & $bit != 0
        }
        #[doc = concat!("Sets or clears the ", $doc, " flag.")]
        pub fn $set(&mut self, on: bool) {
            if on {
                self.0 |= $bit;
            } else {
                self.0 &= !$bit;
            }
        }
    };
}

impl FrameControl {
    /// To DS flag bit.
    pub const TO_DS: u16 = 0x0100;
    /// From DS flag bit.
    pub const FROM_DS: u16 = 0x0200;
    /// More Fragments flag bit.
    pub const MORE_FRAG: u16 = 0x0400;
    /// Retry flag bit.
    pub const RETRY: u16 = 0x0800;
    /// Power Management flag bit.
    pub const PWR_MGMT: u16 = 0x1000;
    /// More Data flag bit.
    pub const MORE_DATA: u16 = 0x2000;
    /// Protected Frame flag bit.
    pub const PROTECTED: u16 = 0x4000;
    /// +HTC/Order flag bit.
    pub const ORDER: u16 = 0x8000;

    /// Frame control for a kind, protocol version 0, no flags.
    pub const fn new(kind: FrameKind) -> Self {
        let (t, s) = kind.type_subtype();
        FrameControl(((t as u16) << 2) | ((s as u16) << 4))
    }

    /// Reads the field from its two wire bytes.
    pub const fn from_le_bytes(b: [u8; 2]) -> Self {
        FrameControl(u16::from_le_bytes(b))
    }

    /// The two wire bytes.
    pub const fn to_le_bytes(self) -> [u8; 2] {
        self.0.to_le_bytes()
    }

    /// Protocol version (2 bits; 0 for every frame this crate understands).
    pub const fn protocol_version(self) -> u8 {
        (self.0 & 0x3) as u8
    }

    /// The 2-bit type value.
    pub const fn type_bits(self) -> u8 {
        ((self.0 >> 2) & 0x3) as u8
    }

    /// The frame type.
    pub const fn frame_type(self) -> FrameType {
        FrameType::from_bits(self.type_bits())
    }

    /// The 4-bit subtype.
    pub const fn subtype(self) -> u8 {
        ((self.0 >> 4) & 0xF) as u8
    }

    /// The frame kind from type and subtype.
    pub const fn kind(self) -> FrameKind {
        FrameKind::from_type_subtype(self.type_bits(), self.subtype())
    }

    /// Sets type and subtype from a kind, keeping version and flags.
    pub fn set_kind(&mut self, kind: FrameKind) {
        let (t, s) = kind.type_subtype();
        self.0 = (self.0 & !0x00FC) | ((t as u16) << 2) | ((s as u16) << 4);
    }

    /// Sets the 2-bit protocol version.
    pub fn set_protocol_version(&mut self, v: u8) {
        self.0 = (self.0 & !0x3) | (v as u16 & 0x3);
    }

    flag!(to_ds, set_to_ds, Self::TO_DS, "To DS");
    flag!(from_ds, set_from_ds, Self::FROM_DS, "From DS");
    flag!(more_frag, set_more_frag, Self::MORE_FRAG, "More Fragments");
    flag!(retry, set_retry, Self::RETRY, "Retry");
    flag!(pwr_mgmt, set_pwr_mgmt, Self::PWR_MGMT, "Power Management");
    flag!(more_data, set_more_data, Self::MORE_DATA, "More Data");
    flag!(protected, set_protected, Self::PROTECTED, "Protected Frame");
    flag!(order, set_order, Self::ORDER, "+HTC/Order");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_round_trip_and_are_canonical() {
        for t in 0..4u8 {
            for s in 0..16u8 {
                let k = FrameKind::from_type_subtype(t, s);
                assert_eq!(k.type_subtype(), (t, s));
                let fc = FrameControl::new(k);
                assert_eq!(fc.kind(), k);
                assert_eq!(fc.protocol_version(), 0);
            }
        }
    }

    #[test]
    fn wire_bytes() {
        // QoS data, ToDS, retry: byte0 = subtype 8 << 4 | type 2 << 2 = 0x88.
        let mut fc = FrameControl::new(FrameKind::QosData);
        fc.set_to_ds(true);
        fc.set_retry(true);
        assert_eq!(fc.to_le_bytes(), [0x88, 0x09]);
        assert_eq!(FrameControl::new(FrameKind::Ack).to_le_bytes(), [0xd4, 0x00]);
        assert_eq!(FrameControl::new(FrameKind::Beacon).to_le_bytes(), [0x80, 0x00]);
        assert_eq!(FrameControl::new(FrameKind::Rts).to_le_bytes(), [0xb4, 0x00]);
        assert_eq!(FrameControl::new(FrameKind::Data).to_le_bytes(), [0x08, 0x00]);
        fc.set_retry(false);
        assert!(!fc.retry() && fc.to_ds());
        assert!(FrameKind::QosNull.is_qos_data() && !FrameKind::Null.is_qos_data());
    }
}
