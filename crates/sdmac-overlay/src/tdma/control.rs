//! The request and grant frames: their payload layout and parsing.

/// Payload bytes of a request or grant frame.
pub(super) const CONTROL_PAYLOAD: usize = 16;
const MAGIC: &[u8; 4] = b"TBMA";
pub(super) const KIND_REQUEST: u8 = 1;
pub(super) const KIND_GRANT: u8 = 2;

pub(super) fn control_frame(kind: u8, slot: u32) -> [u8; CONTROL_PAYLOAD] {
    let mut b = [0u8; CONTROL_PAYLOAD];
    b[..4].copy_from_slice(MAGIC);
    b[4] = kind;
    b[5..9].copy_from_slice(&slot.to_le_bytes());
    b
}

pub(super) fn parse_control(payload: &[u8]) -> Option<(u8, u32)> {
    if payload.len() < 9 || &payload[..4] != MAGIC {
        return None;
    }
    Some((payload[4], u32::from_le_bytes(payload[5..9].try_into().ok()?)))
}
