//! Mininet-WiFi's control protocol on wmediumd's `-s` UNIX stream socket, unchanged:
//! the daemon answers these messages byte for byte as wmediumd does.
//!
//! A request is one type byte followed by a packed, big-endian body of a size fixed by
//! the type; MAC addresses are 6 raw bytes. A reply is the reply type (request type +
//! 1), the whole request echoed (its type byte included), for an `add` the new
//! station's id (i32), and a result byte. The specific-probability reply is shorter:
//! reply type, the two addresses, result. Shutdown has no reply.
//!
//! Error probabilities travel as 32-bit fixed point with 31 fraction bits. Two
//! encodings are in use and both are read here: an unsigned value p·2^31 (wmediumd's C
//! helpers; 1.0 = 0x8000_0000), and what Mininet-WiFi's Python client sends for
//! 0 < p < 1, the signed value −p·2^31 (its "one" constant is the i32 −2^31). A
//! non-negative word is read the first way, a negative one the second; both agree on
//! 0 and 1.

use std::fmt;

/// A MAC address on the wire.
pub type Mac = sdmac_types::MacAddress;

/// Request type bytes.
pub mod types {
    /// Stop the daemon.
    pub const SHUTDOWN: u8 = 0;
    /// Set the SNR of a link (both directions).
    pub const SNR: u8 = 1;
    /// Delete a station by address.
    pub const DEL_BY_MAC: u8 = 3;
    /// Delete a station by id.
    pub const DEL_BY_ID: u8 = 5;
    /// Add a station.
    pub const ADD: u8 = 7;
    /// Set the error probability of a link.
    pub const ERRPROB: u8 = 9;
    /// Set a link's error probabilities per frame size and rate (12 × 12).
    pub const SPECPROB: u8 = 11;
    /// Move a station.
    pub const POSITION: u8 = 13;
    /// Set a station's transmit power.
    pub const TXPOWER: u8 = 15;
    /// Set a station's antenna gain.
    pub const GAIN: u8 = 17;
    /// Set a station's antenna height.
    pub const HEIGHT: u8 = 19;
    /// Set a station's Gaussian random (fading) term.
    pub const GAUSSIAN_RANDOM: u8 = 21;
    /// Move a station to another medium.
    pub const MEDIUM: u8 = 23;
}

/// Result byte of a reply.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum UpdateResult {
    /// Done.
    Success = 0,
    /// No station has this address or id.
    NotFound = 1,
    /// The station exists already.
    Duplicate = 2,
    /// The request does not apply to the configured model.
    WrongMode = 3,
}

/// A decoded request.
#[derive(Clone, Debug, PartialEq)]
pub enum Request {
    /// Stop the daemon (no reply).
    Shutdown,
    /// SNR of the link `from` ↔ `to` (dB).
    Snr {
        /// One end.
        from: Mac,
        /// The other end.
        to: Mac,
        /// SNR (dB).
        snr_db: i32,
    },
    /// Delete the station with this address.
    DelByMac(Mac),
    /// Delete the station with this id.
    DelById(i32),
    /// Add a station with this address.
    Add(Mac),
    /// Error probability of the link `from` → `to`.
    ErrProb {
        /// Sender.
        from: Mac,
        /// Receiver.
        to: Mac,
        /// Probability in [0, 1] (or above 1 if sent so: the caller clamps).
        prob: f64,
    },
    /// Error probabilities of the link `from` → `to` per frame-size index (rows) and
    /// rate index (columns), 12 × 12.
    SpecProb {
        /// Sender.
        from: Mac,
        /// Receiver.
        to: Mac,
        /// Probabilities, row-major.
        probs: Box<[f64; 144]>,
    },
    /// New position (m).
    Position {
        /// Station.
        mac: Mac,
        /// x.
        x: f32,
        /// y.
        y: f32,
        /// z.
        z: f32,
    },
    /// New transmit power (dBm).
    TxPower {
        /// Station.
        mac: Mac,
        /// Power.
        dbm: i32,
    },
    /// New antenna gain (dBi).
    Gain {
        /// Station.
        mac: Mac,
        /// Gain.
        dbi: i32,
    },
    /// New antenna height (m).
    Height {
        /// Station.
        mac: Mac,
        /// Height.
        m: i32,
    },
    /// New Gaussian random term.
    GaussianRandom {
        /// Station.
        mac: Mac,
        /// Value.
        value: f32,
    },
    /// Move to medium `id`.
    Medium {
        /// Station.
        mac: Mac,
        /// Medium id.
        id: i32,
    },
}

/// A byte stream that cannot be a control message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ControlError {
    /// The type byte is not one of the request types; the stream cannot be resynchronised.
    UnknownType(u8),
}

impl fmt::Display for ControlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ControlError::UnknownType(t) => write!(f, "control socket: unknown request type {t}"),
        }
    }
}

impl std::error::Error for ControlError {}

/// Total size of a request of type `t` (type byte included), if `t` is a request type.
pub fn request_len(t: u8) -> Option<usize> {
    Some(match t {
        types::SHUTDOWN => 1,
        types::SNR | types::ERRPROB => 1 + 6 + 6 + 4,
        types::DEL_BY_MAC | types::ADD => 1 + 6,
        types::DEL_BY_ID => 1 + 4,
        types::SPECPROB => 1 + 6 + 6 + 144 * 4,
        types::POSITION => 1 + 6 + 12,
        types::TXPOWER | types::GAIN | types::HEIGHT | types::GAUSSIAN_RANDOM | types::MEDIUM => {
            1 + 6 + 4
        }
        _ => return None,
    })
}

/// Total size of the reply to a request of type `t` (None: no reply, or no such type).
pub fn reply_len(t: u8) -> Option<usize> {
    match t {
        types::SHUTDOWN => None,
        types::SPECPROB => Some(1 + 12 + 1),
        types::ADD => Some(1 + request_len(t)? + 4 + 1),
        _ => Some(1 + request_len(t)? + 1),
    }
}

/// Reads a fixed-point probability (see the module documentation).
pub fn fixed_to_prob(word: u32) -> f64 {
    let s = word as i32;
    if s >= 0 {
        s as f64 / 2_147_483_648.0
    } else {
        -(s as f64) / 2_147_483_648.0
    }
}

/// Writes a probability in [0, 1] as the unsigned fixed point (p·2^31).
pub fn prob_to_fixed(p: f64) -> u32 {
    (p.clamp(0.0, 1.0) * 2_147_483_648.0).round() as u32
}

fn mac(b: &[u8]) -> Mac {
    let mut m = [0u8; 6];
    m.copy_from_slice(&b[..6]);
    Mac::new(m)
}

fn be32(b: &[u8]) -> u32 {
    u32::from_be_bytes([b[0], b[1], b[2], b[3]])
}

/// Decodes one whole request (`bytes.len() == request_len(bytes[0])`).
fn decode(bytes: &[u8]) -> Request {
    let b = &bytes[1..];
    match bytes[0] {
        types::SHUTDOWN => Request::Shutdown,
        types::SNR => {
            Request::Snr { from: mac(b), to: mac(&b[6..]), snr_db: be32(&b[12..]) as i32 }
        }
        types::DEL_BY_MAC => Request::DelByMac(mac(b)),
        types::DEL_BY_ID => Request::DelById(be32(b) as i32),
        types::ADD => Request::Add(mac(b)),
        types::ERRPROB => {
            Request::ErrProb { from: mac(b), to: mac(&b[6..]), prob: fixed_to_prob(be32(&b[12..])) }
        }
        types::SPECPROB => {
            let mut probs = Box::new([0.0; 144]);
            for (k, p) in probs.iter_mut().enumerate() {
                *p = fixed_to_prob(be32(&b[12 + 4 * k..]));
            }
            Request::SpecProb { from: mac(b), to: mac(&b[6..]), probs }
        }
        types::POSITION => Request::Position {
            mac: mac(b),
            x: f32::from_bits(be32(&b[6..])),
            y: f32::from_bits(be32(&b[10..])),
            z: f32::from_bits(be32(&b[14..])),
        },
        types::TXPOWER => Request::TxPower { mac: mac(b), dbm: be32(&b[6..]) as i32 },
        types::GAIN => Request::Gain { mac: mac(b), dbi: be32(&b[6..]) as i32 },
        types::HEIGHT => Request::Height { mac: mac(b), m: be32(&b[6..]) as i32 },
        types::GAUSSIAN_RANDOM => {
            Request::GaussianRandom { mac: mac(b), value: f32::from_bits(be32(&b[6..])) }
        }
        types::MEDIUM => Request::Medium { mac: mac(b), id: be32(&b[6..]) as i32 },
        t => unreachable!("request_len accepted type {t}"),
    }
}

/// Reassembles requests from a stream: push what the socket gave, then take requests
/// until `next_request` returns `Ok(None)` (need more bytes).
#[derive(Debug, Default)]
pub struct Decoder {
    pub(crate) buf: Vec<u8>,
}

impl Decoder {
    /// An empty decoder.
    pub fn new() -> Decoder {
        Decoder::default()
    }

    /// Appends bytes read from the socket.
    pub fn push(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// Bytes waiting for the rest of their request.
    pub fn pending(&self) -> usize {
        self.buf.len()
    }

    /// The next whole request and its raw bytes (for the echo in the reply).
    pub fn next_request(&mut self) -> Result<Option<(Request, Vec<u8>)>, ControlError> {
        let Some(&t) = self.buf.first() else { return Ok(None) };
        let n = request_len(t).ok_or(ControlError::UnknownType(t))?;
        if self.buf.len() < n {
            return Ok(None);
        }
        let raw: Vec<u8> = self.buf.drain(..n).collect();
        Ok(Some((decode(&raw), raw)))
    }
}

/// The reply to a request (`raw` as returned by [`Decoder::next_request`]); None for shutdown.
/// `added_id` is the new station's id for an `add` (ignored otherwise).
pub fn encode_reply(raw: &[u8], result: UpdateResult, added_id: i32) -> Option<Vec<u8>> {
    let t = *raw.first()?;
    let mut out = Vec::with_capacity(raw.len() + 6);
    match t {
        types::SHUTDOWN => return None,
        types::SPECPROB => {
            out.push(t + 1);
            out.extend_from_slice(&raw[1..13]);
        }
        _ => {
            out.push(t + 1);
            out.extend_from_slice(raw);
            if t == types::ADD {
                out.extend_from_slice(&added_id.to_be_bytes());
            }
        }
    }
    out.push(result as u8);
    Some(out)
}

/// Encodes a request (for tests and clients).
pub fn encode_request(r: &Request) -> Vec<u8> {
    let mut o = Vec::new();
    let word = |o: &mut Vec<u8>, w: u32| o.extend_from_slice(&w.to_be_bytes());
    match r {
        Request::Shutdown => o.push(types::SHUTDOWN),
        Request::Snr { from, to, snr_db } => {
            o.push(types::SNR);
            o.extend_from_slice(from.as_bytes());
            o.extend_from_slice(to.as_bytes());
            word(&mut o, *snr_db as u32);
        }
        Request::DelByMac(m) => {
            o.push(types::DEL_BY_MAC);
            o.extend_from_slice(m.as_bytes());
        }
        Request::DelById(id) => {
            o.push(types::DEL_BY_ID);
            word(&mut o, *id as u32);
        }
        Request::Add(m) => {
            o.push(types::ADD);
            o.extend_from_slice(m.as_bytes());
        }
        Request::ErrProb { from, to, prob } => {
            o.push(types::ERRPROB);
            o.extend_from_slice(from.as_bytes());
            o.extend_from_slice(to.as_bytes());
            word(&mut o, prob_to_fixed(*prob));
        }
        Request::SpecProb { from, to, probs } => {
            o.push(types::SPECPROB);
            o.extend_from_slice(from.as_bytes());
            o.extend_from_slice(to.as_bytes());
            for p in probs.iter() {
                word(&mut o, prob_to_fixed(*p));
            }
        }
        Request::Position { mac, x, y, z } => {
            o.push(types::POSITION);
            o.extend_from_slice(mac.as_bytes());
            for v in [x, y, z] {
                word(&mut o, v.to_bits());
            }
        }
        Request::TxPower { mac, dbm: v }
        | Request::Gain { mac, dbi: v }
        | Request::Height { mac, m: v }
        | Request::Medium { mac, id: v } => {
            o.push(match r {
                Request::TxPower { .. } => types::TXPOWER,
                Request::Gain { .. } => types::GAIN,
                Request::Height { .. } => types::HEIGHT,
                _ => types::MEDIUM,
            });
            o.extend_from_slice(mac.as_bytes());
            word(&mut o, *v as u32);
        }
        Request::GaussianRandom { mac, value } => {
            o.push(types::GAUSSIAN_RANDOM);
            o.extend_from_slice(mac.as_bytes());
            word(&mut o, value.to_bits());
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: Mac = Mac::new([0x02, 0, 0, 0, 0, 0x01]);
    const B: Mac = Mac::new([0x02, 0, 0, 0, 0, 0x02]);

    #[test]
    fn golden_snr_request_and_reply() {
        // type 1, from, to, SNR 20 (big-endian).
        let bytes = [1, 2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 0, 0, 0, 20];
        let mut d = Decoder::new();
        d.push(&bytes[..5]);
        assert_eq!(d.next_request(), Ok(None), "incomplete");
        d.push(&bytes[5..]);
        let (r, raw) = d.next_request().unwrap().unwrap();
        assert_eq!(r, Request::Snr { from: A, to: B, snr_db: 20 });
        let reply = encode_reply(&raw, UpdateResult::Success, 0).unwrap();
        // reply type 2, the request echoed with its type byte, result 0: 1 + 17 + 1 bytes.
        assert_eq!(reply.len(), 19);
        assert_eq!(reply[0], 2);
        assert_eq!(&reply[1..18], &bytes[..]);
        assert_eq!(reply[18], 0);
    }

    #[test]
    fn golden_add_reply_carries_the_id() {
        let raw = encode_request(&Request::Add(A));
        assert_eq!(raw, vec![7, 2, 0, 0, 0, 0, 1]);
        let reply = encode_reply(&raw, UpdateResult::Success, 5).unwrap();
        assert_eq!(reply, vec![8, 7, 2, 0, 0, 0, 0, 1, 0, 0, 0, 5, 0]);
    }

    #[test]
    fn specprob_reply_is_short_and_shutdown_has_none() {
        let probs = Box::new([0.25; 144]);
        let raw = encode_request(&Request::SpecProb { from: A, to: B, probs });
        assert_eq!(raw.len(), 1 + 12 + 576);
        let reply = encode_reply(&raw, UpdateResult::WrongMode, 0).unwrap();
        assert_eq!(reply.len(), 1 + 12 + 1);
        assert_eq!((reply[0], reply[13]), (12, 3));
        assert_eq!(encode_reply(&[0], UpdateResult::Success, 0), None);
    }

    #[test]
    fn both_fixed_point_encodings_are_read() {
        // wmediumd's unsigned p·2^31.
        assert_eq!(fixed_to_prob(0x4000_0000), 0.5);
        assert_eq!(fixed_to_prob(0x8000_0000), 1.0);
        assert_eq!(fixed_to_prob(0), 0.0);
        // Mininet-WiFi's Python client: 0.3 → int(0.3 · −2^31) = −644245094.
        let word = (-644_245_094i32) as u32;
        assert!((fixed_to_prob(word) - 0.3).abs() < 1e-9);
        for p in [0.0, 0.1, 0.3, 0.5, 0.999, 1.0] {
            assert!((fixed_to_prob(prob_to_fixed(p)) - p).abs() < 1e-9);
        }
    }

    #[test]
    fn every_request_round_trips() {
        let reqs = vec![
            Request::Shutdown,
            Request::Snr { from: A, to: B, snr_db: -7 },
            Request::DelByMac(B),
            Request::DelById(3),
            Request::Add(A),
            Request::ErrProb { from: A, to: B, prob: 0.5 },
            Request::Position { mac: A, x: 1.5, y: -2.0, z: 0.25 },
            Request::TxPower { mac: A, dbm: 14 },
            Request::Gain { mac: A, dbi: 3 },
            Request::Height { mac: A, m: 2 },
            Request::GaussianRandom { mac: A, value: 0.5 },
            Request::Medium { mac: B, id: 2 },
        ];
        let mut d = Decoder::new();
        for r in &reqs {
            d.push(&encode_request(r));
        }
        for r in &reqs {
            let (got, raw) = d.next_request().unwrap().unwrap();
            assert_eq!(&got, r);
            assert_eq!(raw.len(), request_len(raw[0]).unwrap());
        }
        assert_eq!(d.next_request(), Ok(None));
        assert_eq!(d.pending(), 0);
    }

    #[test]
    fn reply_len_is_what_encode_reply_writes() {
        for t in 0..=u8::MAX {
            let Some(n) = request_len(t) else {
                assert_eq!(reply_len(t), None);
                continue;
            };
            let raw = vec![t; n];
            assert_eq!(
                encode_reply(&raw, UpdateResult::Success, 1).map(|r| r.len()),
                reply_len(t),
                "type {t}"
            );
        }
    }

    #[test]
    fn golden_errprob_and_position_bytes() {
        // 0.5 as wmediumd's unsigned fixed point: 0x4000_0000.
        let e = encode_request(&Request::ErrProb { from: A, to: B, prob: 0.5 });
        assert_eq!(e, [9, 2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 0x40, 0, 0, 0]);
        // x = 1.0 (0x3f80_0000), y = -2.0 (0xc000_0000), z = 0.
        let p = encode_request(&Request::Position { mac: A, x: 1.0, y: -2.0, z: 0.0 });
        assert_eq!(p, [13, 2, 0, 0, 0, 0, 1, 0x3f, 0x80, 0, 0, 0xc0, 0, 0, 0, 0, 0, 0, 0]);
        let r = encode_reply(&encode_request(&Request::DelById(258)), UpdateResult::NotFound, 0)
            .unwrap();
        assert_eq!(r, [6, 5, 0, 0, 1, 2, 1]);
        assert_eq!(
            encode_request(&Request::Medium { mac: B, id: -1 }),
            [23, 2, 0, 0, 0, 0, 2, 0xff, 0xff, 0xff, 0xff]
        );
    }

    #[test]
    fn unknown_type_is_an_error_naming_it() {
        let mut d = Decoder::new();
        d.push(&[42, 1, 2]);
        let e = d.next_request().unwrap_err();
        assert_eq!(e.to_string(), "control socket: unknown request type 42");
    }
}
