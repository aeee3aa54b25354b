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

mod codec;
mod codes;
mod messages;

pub use codec::{
    decode_ext_reply, decode_ext_request, decode_truth, encode_ext_reply, encode_ext_request,
    encode_truth, tag_of,
};
pub use codes::{ExtResult, TruthCause, TruthOutcome};
pub use messages::{Attempts, Edca, ExtError, ExtReply, ExtRequest, ReplyBody, TruthRecord};

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
