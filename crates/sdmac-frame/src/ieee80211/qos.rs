//! The QoS Control field of QoS data frames.

/// The Ack Policy subfield of QoS Control (bits 5-6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum AckPolicy {
    /// Normal Ack or implicit block ack request (0).
    #[default]
    Normal,
    /// No Ack (1).
    NoAck,
    /// No explicit acknowledgment / PSMP Ack (2).
    NoExplicitAck,
    /// Block Ack (3).
    BlockAck,
}

impl AckPolicy {
    /// The policy from its 2-bit value (higher bits ignored).
    pub const fn from_bits(bits: u8) -> Self {
        match bits & 0x3 {
            0 => AckPolicy::Normal,
            1 => AckPolicy::NoAck,
            2 => AckPolicy::NoExplicitAck,
            _ => AckPolicy::BlockAck,
        }
    }

    /// The 2-bit value.
    pub const fn bits(self) -> u8 {
        match self {
            AckPolicy::Normal => 0,
            AckPolicy::NoAck => 1,
            AckPolicy::NoExplicitAck => 2,
            AckPolicy::BlockAck => 3,
        }
    }
}

/// The 16-bit QoS Control field, decoded.
///
/// Layout (little-endian u16): TID bits 0-3, EOSP bit 4, Ack Policy bits 5-6,
/// A-MSDU Present bit 7, bits 8-15 TXOP limit / TXOP duration requested / queue size /
/// mesh flags depending on the sender (kept raw in `high`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct QosControl {
    /// Traffic identifier, 0..=15 (user priorities are 0..=7).
    pub tid: u8,
    /// End Of Service Period.
    pub eosp: bool,
    /// Ack policy.
    pub ack_policy: AckPolicy,
    /// A-MSDU Present.
    pub amsdu_present: bool,
    /// Bits 8-15, raw (TXOP limit, queue size, ... depending on the frame's sender).
    pub high: u8,
}

impl QosControl {
    /// QoS control with a TID and ack policy, everything else zero.
    pub const fn new(tid: u8, ack_policy: AckPolicy) -> Self {
        QosControl { tid: tid & 0xF, eosp: false, ack_policy, amsdu_present: false, high: 0 }
    }

    /// Decodes the field value.
    pub const fn from_u16(v: u16) -> Self {
        QosControl {
            tid: (v & 0xF) as u8,
            eosp: v & 0x10 != 0,
            ack_policy: AckPolicy::from_bits((v >> 5) as u8),
            amsdu_present: v & 0x80 != 0,
            high: (v >> 8) as u8,
        }
    }

    /// Encodes the field value (`tid` is masked to 4 bits).
    pub const fn to_u16(self) -> u16 {
        (self.tid as u16 & 0xF)
            | (self.eosp as u16) << 4
            | (self.ack_policy.bits() as u16) << 5
            | (self.amsdu_present as u16) << 7
            | (self.high as u16) << 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits() {
        let q = QosControl {
            tid: 6,
            eosp: true,
            ack_policy: AckPolicy::NoAck,
            amsdu_present: true,
            high: 0x12,
        };
        assert_eq!(q.to_u16(), 0x12b6);
        assert_eq!(QosControl::from_u16(0x12b6), q);
        for v in 0..=u16::MAX {
            assert_eq!(QosControl::from_u16(v).to_u16(), v);
        }
    }
}
