//! sdmac's extension of the control protocol: what stock mac80211 cannot set or tell,
//! through the medium daemon.
//!
//! Its messages use type bytes 0x80 to 0xFF, which Mininet-WiFi's protocol (types 0 to
//! 24) never uses, and the daemon sends an extension message only to a client that
//! sent one: a Mininet-WiFi client sees the daemon exactly as before.
//!
//! Every extension message is framed: its type byte, the length of its body (u16,
//! big-endian, at most [`MAX_BODY`]), then the body. All numbers are big-endian; MAC
//! addresses are 6 raw bytes. A request's body starts with a `tag` (u32) chosen by
//! the client, repeated in its reply; every reply's body is the tag, a result byte
//! ([`ExtResult`]), and what the reply carries.
//!
//! | type | message | body after the tag |
//! |------|---------|--------------------|
//! | 0x80 | subscribe to the truth stream | n (u8, ≤ 64; 0: every transmitter), n × address |
//! | 0x81 | its reply | result |
//! | 0x82 | unsubscribe | — |
//! | 0x83 | its reply | result |
//! | 0x84 | set EDCA | station, AC (u8), AIFSN (u8), CWmin (u16), CWmax (u16), TXOP limit (u16, µs) |
//! | 0x85 | its reply | result |
//! | 0x86 | get EDCA | station, AC (u8) |
//! | 0x87 | its reply | result, AC, AIFSN, CWmin, CWmax, TXOP limit (as 0x84) |
//! | 0x88 | set ACK timeout | station, timeout (u32, ns; 0: the PHY's) |
//! | 0x89 | its reply | result |
//! | 0x8A | get ACK timeout | station |
//! | 0x8B | its reply | result, timeout (u32, ns) in use |
//! | 0x8C | get link | from, to |
//! | 0x8D | its reply | result, SNR (f64, dB), error probability (f64) |
//! | 0x8F | truth record (daemon → subscriber) | no tag: see [`TruthRecord`] |
//! | 0xFF | a request refused whole (unknown type, wrong length) | result, the request's type (u8) |
//!
//! AC numbers are the engine's: 0 BK, 1 BE, 2 VI, 3 VO. A station is named by any of
//! its addresses (interface or hwsim), as in Mininet-WiFi's messages.

use crate::mininet::Mac;
use std::fmt;

/// Type bytes of the extension.
pub mod types {
    /// Subscribe to the truth stream.
    pub const SUBSCRIBE: u8 = 0x80;
    /// Reply to [`SUBSCRIBE`].
    pub const SUBSCRIBED: u8 = 0x81;
    /// Unsubscribe.
    pub const UNSUBSCRIBE: u8 = 0x82;
    /// Reply to [`UNSUBSCRIBE`].
    pub const UNSUBSCRIBED: u8 = 0x83;
    /// Set a station's EDCA parameters of one AC.
    pub const SET_EDCA: u8 = 0x84;
    /// Reply to [`SET_EDCA`].
    pub const EDCA_SET: u8 = 0x85;
    /// Get a station's EDCA parameters of one AC.
    pub const GET_EDCA: u8 = 0x86;
    /// Reply to [`GET_EDCA`].
    pub const EDCA: u8 = 0x87;
    /// Set a station's ACK timeout.
    pub const SET_ACK_TIMEOUT: u8 = 0x88;
    /// Reply to [`SET_ACK_TIMEOUT`].
    pub const ACK_TIMEOUT_SET: u8 = 0x89;
    /// Get a station's ACK timeout.
    pub const GET_ACK_TIMEOUT: u8 = 0x8A;
    /// Reply to [`GET_ACK_TIMEOUT`].
    pub const ACK_TIMEOUT: u8 = 0x8B;
    /// Get a link's SNR and error probability.
    pub const GET_LINK: u8 = 0x8C;
    /// Reply to [`GET_LINK`].
    pub const LINK: u8 = 0x8D;
    /// A truth record.
    pub const TRUTH: u8 = 0x8F;
    /// A request refused whole.
    pub const REFUSED: u8 = 0xFF;
}

/// The first type byte of the extension; every type from here up is framed.
pub const FIRST_TYPE: u8 = 0x80;
/// Type byte and body length.
pub const HEADER_LEN: usize = 3;
/// The longest body a message may have.
pub const MAX_BODY: usize = 1024;
/// Most transmitters one subscription may name.
pub const MAX_SUBSCRIBE: usize = 64;
/// Length of a truth record's body.
pub const TRUTH_BODY_LEN: usize = 86;

/// Is `t` a type byte of the extension?
pub fn is_ext(t: u8) -> bool {
    t >= FIRST_TYPE
}

/// Result byte of an extension reply.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum ExtResult {
    /// Done.
    Ok = 0,
    /// No station has this address.
    UnknownStation = 1,
    /// The AC byte is not 0 to 3.
    BadAc = 2,
    /// A value is out of its range (see the request).
    OutOfRange = 3,
    /// The request does not apply to the link model (links follow positions).
    WrongMode = 4,
    /// The station has not joined a channel yet and nothing was set: the value
    /// depends on the band it will use.
    NoChannel = 5,
    /// This daemon cannot do it (e.g. with `--threads`).
    NotSupported = 6,
    /// The body's length is not the type's.
    BadLength = 7,
    /// No extension message has this type.
    UnknownType = 8,
}

impl ExtResult {
    /// From the result byte (None: no such result).
    pub fn from_u8(b: u8) -> Option<ExtResult> {
        use ExtResult::*;
        [
            Ok,
            UnknownStation,
            BadAc,
            OutOfRange,
            WrongMode,
            NoChannel,
            NotSupported,
            BadLength,
            UnknownType,
        ]
        .into_iter()
        .find(|r| *r as u8 == b)
    }

    /// Short name.
    pub fn name(self) -> &'static str {
        match self {
            ExtResult::Ok => "ok",
            ExtResult::UnknownStation => "unknown station",
            ExtResult::BadAc => "bad access category",
            ExtResult::OutOfRange => "value out of range",
            ExtResult::WrongMode => "not in this link model",
            ExtResult::NoChannel => "station on no channel yet",
            ExtResult::NotSupported => "not supported by this daemon",
            ExtResult::BadLength => "wrong body length",
            ExtResult::UnknownType => "unknown message type",
        }
    }
}

impl fmt::Display for ExtResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// EDCA parameters of one queue, as they travel.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Edca {
    /// AIFSN (1 to 15).
    pub aifsn: u8,
    /// CWmin (2^k − 1, k in 0..=15).
    pub cw_min: u16,
    /// CWmax (2^k − 1, CWmin ≤ CWmax).
    pub cw_max: u16,
    /// TXOP limit (µs; at most 8160; 0: one exchange per access).
    pub txop_limit_us: u16,
}

/// A request of the extension.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExtRequest {
    /// Send this connection a truth record for every frame the daemon answers whose
    /// transmitter is one of `transmitters` (any of its addresses); all if empty.
    /// Replaces an earlier subscription of the connection.
    Subscribe {
        /// Echoed in the reply.
        tag: u32,
        /// Transmitters (at most [`MAX_SUBSCRIBE`]).
        transmitters: Vec<Mac>,
    },
    /// No more truth records.
    Unsubscribe {
        /// Echoed in the reply.
        tag: u32,
    },
    /// Set a station's EDCA parameters of one AC.
    SetEdca {
        /// Echoed in the reply.
        tag: u32,
        /// The station.
        station: Mac,
        /// The AC (0 BK, 1 BE, 2 VI, 3 VO).
        ac: u8,
        /// The parameters.
        params: Edca,
    },
    /// Get a station's EDCA parameters of one AC.
    GetEdca {
        /// Echoed in the reply.
        tag: u32,
        /// The station.
        station: Mac,
        /// The AC.
        ac: u8,
    },
    /// Set a station's ACK timeout.
    SetAckTimeout {
        /// Echoed in the reply.
        tag: u32,
        /// The station.
        station: Mac,
        /// ns (0: the PHY's).
        ns: u32,
    },
    /// Get a station's ACK timeout.
    GetAckTimeout {
        /// Echoed in the reply.
        tag: u32,
        /// The station.
        station: Mac,
    },
    /// Get the link `from` → `to`.
    GetLink {
        /// Echoed in the reply.
        tag: u32,
        /// Sender.
        from: Mac,
        /// Receiver.
        to: Mac,
    },
}

impl ExtRequest {
    /// The request's tag.
    pub fn tag(&self) -> u32 {
        match self {
            ExtRequest::Subscribe { tag, .. }
            | ExtRequest::Unsubscribe { tag }
            | ExtRequest::SetEdca { tag, .. }
            | ExtRequest::GetEdca { tag, .. }
            | ExtRequest::SetAckTimeout { tag, .. }
            | ExtRequest::GetAckTimeout { tag, .. }
            | ExtRequest::GetLink { tag, .. } => *tag,
        }
    }

    /// The request's type byte.
    pub fn type_byte(&self) -> u8 {
        match self {
            ExtRequest::Subscribe { .. } => types::SUBSCRIBE,
            ExtRequest::Unsubscribe { .. } => types::UNSUBSCRIBE,
            ExtRequest::SetEdca { .. } => types::SET_EDCA,
            ExtRequest::GetEdca { .. } => types::GET_EDCA,
            ExtRequest::SetAckTimeout { .. } => types::SET_ACK_TIMEOUT,
            ExtRequest::GetAckTimeout { .. } => types::GET_ACK_TIMEOUT,
            ExtRequest::GetLink { .. } => types::GET_LINK,
        }
    }
}

/// What a reply carries besides its tag and result.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum ReplyBody {
    /// Nothing (the reply to a set, a subscribe or an unsubscribe).
    None,
    /// EDCA parameters of an AC.
    Edca {
        /// The AC.
        ac: u8,
        /// The parameters (all 0 when the result is not ok).
        params: Edca,
    },
    /// An ACK timeout (ns; 0 when the result is not ok).
    AckTimeout(u32),
    /// A link (NaN when the result is not ok).
    Link {
        /// SNR (dB).
        snr_db: f64,
        /// Error probability.
        error_prob: f64,
    },
    /// The type of a request refused whole.
    Refused(u8),
}

/// A reply of the extension.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct ExtReply {
    /// Its type byte (the request's + 1, or [`types::REFUSED`]).
    pub kind: u8,
    /// The request's tag (0 for a request refused before its tag could be read).
    pub tag: u32,
    /// The result.
    pub result: ExtResult,
    /// What it carries.
    pub body: ReplyBody,
}

impl ExtReply {
    /// The reply to `req` with `result` and, for a get, an empty value of the shape
    /// its reply carries (EDCA all 0, ACK timeout 0, link NaN).
    pub fn done(req: &ExtRequest, result: ExtResult) -> ExtReply {
        let body = match req {
            ExtRequest::GetEdca { ac, .. } => ReplyBody::Edca { ac: *ac, params: Edca::default() },
            ExtRequest::GetAckTimeout { .. } => ReplyBody::AckTimeout(0),
            ExtRequest::GetLink { .. } => {
                ReplyBody::Link { snr_db: f64::NAN, error_prob: f64::NAN }
            }
            _ => ReplyBody::None,
        };
        ExtReply { kind: req.type_byte() + 1, tag: req.tag(), result, body }
    }
}

/// How a transmission ended, as the truth stream says it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum TruthOutcome {
    /// A: acknowledged.
    Acked = 0,
    /// LD: the last attempt's DATA frame did not reach its destination.
    DataLost = 1,
    /// LA: the last attempt's DATA frame arrived, its ACK was lost.
    AckLost = 2,
    /// Sent without acknowledgement (no-ack or group addressed).
    NoAck = 3,
    /// Never on air: refused by the daemon, or still queued at shutdown.
    Dropped = 4,
}

impl TruthOutcome {
    /// From its byte.
    pub fn from_u8(b: u8) -> Option<TruthOutcome> {
        use TruthOutcome::*;
        [Acked, DataLost, AckLost, NoAck, Dropped].into_iter().find(|o| *o as u8 == b)
    }

    /// `A`, `LD`, `LA`, `NOACK`, `DROP`.
    pub fn name(self) -> &'static str {
        match self {
            TruthOutcome::Acked => "A",
            TruthOutcome::DataLost => "LD",
            TruthOutcome::AckLost => "LA",
            TruthOutcome::NoAck => "NOACK",
            TruthOutcome::Dropped => "DROP",
        }
    }
}

/// Why the last attempt failed, as the truth stream says it. Codes 0 to 9 are the
/// engine's causes; 16 and up the daemon's reasons for not carrying a frame.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum TruthCause {
    /// Nothing went wrong.
    None = 0,
    /// Another transmission overlapped it at the receiver.
    Collision = 1,
    /// The error model rejected it at its SINR.
    LowSinr = 2,
    /// Below the receiver's sensitivity, or no receiver has the address.
    OutOfRange = 3,
    /// The receiver was transmitting.
    HalfDuplex = 4,
    /// The receiver was receiving another frame.
    ReceiverBusy = 5,
    /// The link's configured error probability dropped it.
    LinkErrorProb = 6,
    /// The link's configured preamble-miss probability dropped it.
    PreambleMissed = 7,
    /// The queue was full.
    QueueFull = 8,
    /// Cancelled.
    Cancelled = 9,
    /// Refused: no 802.11 frame.
    Malformed = 16,
    /// Refused: no rate entry the channel carries.
    NoUsableRate = 17,
    /// Refused by the engine.
    EngineRefused = 18,
    /// Still in flight when the daemon stopped.
    Shutdown = 19,
}

impl TruthCause {
    /// From its byte.
    pub fn from_u8(b: u8) -> Option<TruthCause> {
        use TruthCause::*;
        [
            None,
            Collision,
            LowSinr,
            OutOfRange,
            HalfDuplex,
            ReceiverBusy,
            LinkErrorProb,
            PreambleMissed,
            QueueFull,
            Cancelled,
            Malformed,
            NoUsableRate,
            EngineRefused,
            Shutdown,
        ]
        .into_iter()
        .find(|c| *c as u8 == b)
    }

    /// Short name.
    pub fn name(self) -> &'static str {
        match self {
            TruthCause::None => "none",
            TruthCause::Collision => "collision",
            TruthCause::LowSinr => "low_sinr",
            TruthCause::OutOfRange => "out_of_range",
            TruthCause::HalfDuplex => "half_duplex",
            TruthCause::ReceiverBusy => "receiver_busy",
            TruthCause::LinkErrorProb => "link_error_prob",
            TruthCause::PreambleMissed => "preamble_missed",
            TruthCause::QueueFull => "queue_full",
            TruthCause::Cancelled => "cancelled",
            TruthCause::Malformed => "malformed",
            TruthCause::NoUsableRate => "no_usable_rate",
            TruthCause::EngineRefused => "engine_refused",
            TruthCause::Shutdown => "shutdown",
        }
    }
}

/// One entry of a frame's rate series as its status told the kernel.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Attempts {
    /// The kernel's rate index of the entry.
    pub rate_idx: i8,
    /// Attempts made at it.
    pub count: u8,
    /// Its rate (kb/s; 0 when the channel does not carry it).
    pub kbps: u32,
}

/// The truth about one frame the daemon answered (one per TX status it sent).
///
/// Body layout (86 bytes): lost (u32), transmitter (hwsim address), TA (addr2; zero
/// if none), RA (addr1), sequence control (u16), cookie (u64), AC (u8), flags (u8:
/// bit 0 no-ack, bit 1 delivered), outcome (u8), cause (u8), number of rate entries
/// (u8, ≤ 4), 4 × (rate index i8, attempts u8, kb/s u32), the time the frame came from
/// the kernel, its first attempt's start on air and its end (u64 each, ns on
/// CLOCK_MONOTONIC), the signal reported to the kernel (i8, dBm).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct TruthRecord {
    /// Records this connection lost (its buffer was full) since the previous one
    /// it got.
    pub lost: u32,
    /// The transmitting radio (hwsim address).
    pub transmitter: Mac,
    /// The frame's transmitter address (addr2; zero if it has none).
    pub ta: Mac,
    /// The frame's receiver address (addr1; zero if unreadable).
    pub ra: Mac,
    /// Sequence control (0 if the frame has none).
    pub seq_ctrl: u16,
    /// The kernel's cookie.
    pub cookie: u64,
    /// Access category (0 BK, 1 BE, 2 VI, 3 VO).
    pub ac: u8,
    /// Sent without acknowledgement (asked for, or group addressed).
    pub no_ack: bool,
    /// The destination received the DATA frame in some attempt.
    pub delivered: bool,
    /// How it ended.
    pub outcome: TruthOutcome,
    /// Why its last attempt failed.
    pub cause: TruthCause,
    /// Valid entries of `attempts`.
    pub n_entries: u8,
    /// Attempts per rate entry, as the status told the kernel.
    pub attempts: [Attempts; 4],
    /// When the frame came from the kernel (ns, CLOCK_MONOTONIC).
    pub t_arrival_ns: u64,
    /// Start on air of its first attempt (== `t_end_ns` when never sent).
    pub t_first_start_ns: u64,
    /// When its outcome was known on the medium (ACK end, ACK timeout, DATA end).
    pub t_end_ns: u64,
    /// The signal its status reported (dBm).
    pub signal_dbm: i8,
}

impl TruthRecord {
    /// Attempts made, over all entries.
    pub fn total_attempts(&self) -> u32 {
        self.attempts[..self.n_entries.min(4) as usize].iter().map(|a| a.count as u32).sum()
    }
}

/// A message of the extension that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExtError {
    /// The body's length is not the type's.
    BadLength {
        /// The type.
        kind: u8,
        /// Its body's length.
        len: usize,
    },
    /// No extension message has this type.
    UnknownType(u8),
    /// A field has a value no message has (named).
    BadField {
        /// The type.
        kind: u8,
        /// The field.
        field: &'static str,
        /// Its value.
        value: u32,
    },
}

impl ExtError {
    /// The result a reply to such a request carries.
    pub fn result(&self) -> ExtResult {
        match self {
            ExtError::BadLength { .. } => ExtResult::BadLength,
            ExtError::UnknownType(_) => ExtResult::UnknownType,
            ExtError::BadField { .. } => ExtResult::OutOfRange,
        }
    }
}

impl fmt::Display for ExtError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExtError::BadLength { kind, len } => write!(f, "control socket: extension message type {kind:#04x} with a body of {len} bytes (not its length)"),
            ExtError::UnknownType(t) => write!(f, "control socket: unknown extension message type {t:#04x}"),
            ExtError::BadField { kind, field, value } => write!(f, "control socket: extension message type {kind:#04x}: {field} {value} is no valid value"),
        }
    }
}

impl std::error::Error for ExtError {}

fn be16(b: &[u8]) -> u16 {
    u16::from_be_bytes([b[0], b[1]])
}

fn be32(b: &[u8]) -> u32 {
    u32::from_be_bytes([b[0], b[1], b[2], b[3]])
}

fn be64(b: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[..8]);
    u64::from_be_bytes(w)
}

fn mac(b: &[u8]) -> Mac {
    let mut m = [0u8; 6];
    m.copy_from_slice(&b[..6]);
    Mac::new(m)
}

/// Frames a body: type, length, body.
fn framed(kind: u8, body: &[u8]) -> Vec<u8> {
    debug_assert!(body.len() <= MAX_BODY);
    let mut o = Vec::with_capacity(HEADER_LEN + body.len());
    o.push(kind);
    o.extend_from_slice(&(body.len() as u16).to_be_bytes());
    o.extend_from_slice(body);
    o
}

fn edca_bytes(o: &mut Vec<u8>, p: &Edca) {
    o.push(p.aifsn);
    o.extend_from_slice(&p.cw_min.to_be_bytes());
    o.extend_from_slice(&p.cw_max.to_be_bytes());
    o.extend_from_slice(&p.txop_limit_us.to_be_bytes());
}

fn edca_from(b: &[u8]) -> Edca {
    Edca { aifsn: b[0], cw_min: be16(&b[1..]), cw_max: be16(&b[3..]), txop_limit_us: be16(&b[5..]) }
}

/// Encodes a request (framed).
pub fn encode_ext_request(r: &ExtRequest) -> Vec<u8> {
    let mut b = r.tag().to_be_bytes().to_vec();
    match r {
        ExtRequest::Subscribe { transmitters, .. } => {
            let n = transmitters.len().min(MAX_SUBSCRIBE);
            b.push(n as u8);
            for m in &transmitters[..n] {
                b.extend_from_slice(m.as_bytes());
            }
        }
        ExtRequest::Unsubscribe { .. } => {}
        ExtRequest::SetEdca { station, ac, params, .. } => {
            b.extend_from_slice(station.as_bytes());
            b.push(*ac);
            edca_bytes(&mut b, params);
        }
        ExtRequest::GetEdca { station, ac, .. } => {
            b.extend_from_slice(station.as_bytes());
            b.push(*ac);
        }
        ExtRequest::SetAckTimeout { station, ns, .. } => {
            b.extend_from_slice(station.as_bytes());
            b.extend_from_slice(&ns.to_be_bytes());
        }
        ExtRequest::GetAckTimeout { station, .. } => b.extend_from_slice(station.as_bytes()),
        ExtRequest::GetLink { from, to, .. } => {
            b.extend_from_slice(from.as_bytes());
            b.extend_from_slice(to.as_bytes());
        }
    }
    framed(r.type_byte(), &b)
}

/// Decodes a request's body (`kind` is its type byte).
pub fn decode_ext_request(kind: u8, body: &[u8]) -> Result<ExtRequest, ExtError> {
    let want = |n: usize| {
        if body.len() == n {
            Ok(())
        } else {
            Err(ExtError::BadLength { kind, len: body.len() })
        }
    };
    let tag = if body.len() >= 4 { be32(body) } else { 0 };
    let b = body.get(4..).unwrap_or(&[]);
    Ok(match kind {
        types::SUBSCRIBE => {
            let n = *b.first().ok_or(ExtError::BadLength { kind, len: body.len() })? as usize;
            if n > MAX_SUBSCRIBE {
                return Err(ExtError::BadField {
                    kind,
                    field: "number of transmitters",
                    value: n as u32,
                });
            }
            want(5 + 6 * n)?;
            ExtRequest::Subscribe { tag, transmitters: b[1..].chunks(6).map(mac).collect() }
        }
        types::UNSUBSCRIBE => {
            want(4)?;
            ExtRequest::Unsubscribe { tag }
        }
        types::SET_EDCA => {
            want(4 + 6 + 1 + 7)?;
            ExtRequest::SetEdca { tag, station: mac(b), ac: b[6], params: edca_from(&b[7..]) }
        }
        types::GET_EDCA => {
            want(4 + 6 + 1)?;
            ExtRequest::GetEdca { tag, station: mac(b), ac: b[6] }
        }
        types::SET_ACK_TIMEOUT => {
            want(4 + 6 + 4)?;
            ExtRequest::SetAckTimeout { tag, station: mac(b), ns: be32(&b[6..]) }
        }
        types::GET_ACK_TIMEOUT => {
            want(4 + 6)?;
            ExtRequest::GetAckTimeout { tag, station: mac(b) }
        }
        types::GET_LINK => {
            want(4 + 12)?;
            ExtRequest::GetLink { tag, from: mac(b), to: mac(&b[6..]) }
        }
        t => return Err(ExtError::UnknownType(t)),
    })
}

/// The tag of a request body, if it has one (for the reply to a request refused whole).
pub fn tag_of(body: &[u8]) -> u32 {
    if body.len() >= 4 {
        be32(body)
    } else {
        0
    }
}

/// Encodes a reply (framed).
pub fn encode_ext_reply(r: &ExtReply) -> Vec<u8> {
    let mut b = r.tag.to_be_bytes().to_vec();
    b.push(r.result as u8);
    match r.body {
        ReplyBody::None => {}
        ReplyBody::Edca { ac, params } => {
            b.push(ac);
            edca_bytes(&mut b, &params);
        }
        ReplyBody::AckTimeout(ns) => b.extend_from_slice(&ns.to_be_bytes()),
        ReplyBody::Link { snr_db, error_prob } => {
            b.extend_from_slice(&snr_db.to_bits().to_be_bytes());
            b.extend_from_slice(&error_prob.to_bits().to_be_bytes());
        }
        ReplyBody::Refused(t) => b.push(t),
    }
    framed(r.kind, &b)
}

/// Decodes a reply's body (`kind` is its type byte).
pub fn decode_ext_reply(kind: u8, body: &[u8]) -> Result<ExtReply, ExtError> {
    let bad_len = ExtError::BadLength { kind, len: body.len() };
    if body.len() < 5 {
        return Err(bad_len);
    }
    let tag = be32(body);
    let result = ExtResult::from_u8(body[4]).ok_or(ExtError::BadField {
        kind,
        field: "result",
        value: body[4] as u32,
    })?;
    let b = &body[5..];
    let need = |n: usize| if b.len() == n { Ok(()) } else { Err(bad_len.clone()) };
    let rb = match kind {
        types::SUBSCRIBED | types::UNSUBSCRIBED | types::EDCA_SET | types::ACK_TIMEOUT_SET => {
            need(0)?;
            ReplyBody::None
        }
        types::EDCA => {
            need(8)?;
            ReplyBody::Edca { ac: b[0], params: edca_from(&b[1..]) }
        }
        types::ACK_TIMEOUT => {
            need(4)?;
            ReplyBody::AckTimeout(be32(b))
        }
        types::LINK => {
            need(16)?;
            ReplyBody::Link {
                snr_db: f64::from_bits(be64(b)),
                error_prob: f64::from_bits(be64(&b[8..])),
            }
        }
        types::REFUSED => {
            need(1)?;
            ReplyBody::Refused(b[0])
        }
        t => return Err(ExtError::UnknownType(t)),
    };
    Ok(ExtReply { kind, tag, result, body: rb })
}

/// Encodes a truth record (framed).
pub fn encode_truth(r: &TruthRecord) -> Vec<u8> {
    let mut b = Vec::with_capacity(TRUTH_BODY_LEN);
    b.extend_from_slice(&r.lost.to_be_bytes());
    b.extend_from_slice(r.transmitter.as_bytes());
    b.extend_from_slice(r.ta.as_bytes());
    b.extend_from_slice(r.ra.as_bytes());
    b.extend_from_slice(&r.seq_ctrl.to_be_bytes());
    b.extend_from_slice(&r.cookie.to_be_bytes());
    b.push(r.ac);
    b.push(r.no_ack as u8 | (r.delivered as u8) << 1);
    b.push(r.outcome as u8);
    b.push(r.cause as u8);
    b.push(r.n_entries.min(4));
    for a in &r.attempts {
        b.push(a.rate_idx as u8);
        b.push(a.count);
        b.extend_from_slice(&a.kbps.to_be_bytes());
    }
    for t in [r.t_arrival_ns, r.t_first_start_ns, r.t_end_ns] {
        b.extend_from_slice(&t.to_be_bytes());
    }
    b.push(r.signal_dbm as u8);
    debug_assert_eq!(b.len(), TRUTH_BODY_LEN);
    framed(types::TRUTH, &b)
}

/// Decodes a truth record's body.
pub fn decode_truth(body: &[u8]) -> Result<TruthRecord, ExtError> {
    let kind = types::TRUTH;
    if body.len() != TRUTH_BODY_LEN {
        return Err(ExtError::BadLength { kind, len: body.len() });
    }
    let field =
        |field: &'static str, value: u8| ExtError::BadField { kind, field, value: value as u32 };
    let outcome = TruthOutcome::from_u8(body[34]).ok_or(field("outcome", body[34]))?;
    let cause = TruthCause::from_u8(body[35]).ok_or(field("cause", body[35]))?;
    if body[36] > 4 {
        return Err(field("number of rate entries", body[36]));
    }
    if body[32] > 3 {
        return Err(field("access category", body[32]));
    }
    let mut attempts = [Attempts::default(); 4];
    for (k, a) in attempts.iter_mut().enumerate() {
        let e = &body[37 + 6 * k..];
        *a = Attempts { rate_idx: e[0] as i8, count: e[1], kbps: be32(&e[2..]) };
    }
    Ok(TruthRecord {
        lost: be32(body),
        transmitter: mac(&body[4..]),
        ta: mac(&body[10..]),
        ra: mac(&body[16..]),
        seq_ctrl: be16(&body[22..]),
        cookie: be64(&body[24..]),
        ac: body[32],
        no_ack: body[33] & 1 != 0,
        delivered: body[33] & 2 != 0,
        outcome,
        cause,
        n_entries: body[36],
        attempts,
        t_arrival_ns: be64(&body[61..]),
        t_first_start_ns: be64(&body[69..]),
        t_end_ns: be64(&body[77..]),
        signal_dbm: body[85] as i8,
    })
}
