//! The overlay's header: its layout, and encoding and decoding it.

use sdmac_api::MAX_PAYLOAD;

/// The first two bytes of the overlay's header.
pub const MAGIC: [u8; 2] = *b"WR";

/// Length of the overlay's header: [`MAGIC`] and a big-endian 64-bit sequence number.
pub const HEADER_LEN: usize = 10;

/// Largest application payload a redundant packet can carry.
pub const MAX_APP_PAYLOAD: usize = MAX_PAYLOAD - HEADER_LEN;

/// Writes the header for `seq` and `payload` into `out` (replacing its contents).
pub fn encode(seq: u64, payload: &[u8], out: &mut Vec<u8>) {
    out.clear();
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&seq.to_be_bytes());
    out.extend_from_slice(payload);
}

/// Splits a received payload into its sequence number and application payload, or
/// None when it does not carry the overlay's header.
pub fn decode(bytes: &[u8]) -> Option<(u64, &[u8])> {
    if bytes.len() < HEADER_LEN || bytes[..2] != MAGIC {
        return None;
    }
    let seq = u64::from_be_bytes(bytes[2..HEADER_LEN].try_into().ok()?);
    Some((seq, &bytes[HEADER_LEN..]))
}
