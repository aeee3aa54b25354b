//! Byte streams on the control socket, both ways: what a client sends (Mininet-WiFi
//! requests and extension requests, mixed) and what the daemon sends back (Mininet-WiFi
//! replies, extension replies and truth records).
//!
//! A Mininet-WiFi request has a size fixed by its type; an extension message carries
//! its length, so an extension request of an unknown type or a wrong length is
//! refused alone and the stream goes on. A type byte below 0x80 that is no
//! Mininet-WiFi request, or an extension body longer than [`MAX_BODY`], cannot be
//! skipped: the stream is lost (the daemon closes that client).

use crate::ext::{self, is_ext, ExtError, ExtReply, ExtRequest, TruthRecord, HEADER_LEN, MAX_BODY};
use crate::mininet::{reply_len, request_len, Decoder, Request};
use std::fmt;

/// A whole message from a client.
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    /// A Mininet-WiFi request, with its raw bytes (for the echo in the reply).
    Mininet(Request, Vec<u8>),
    /// An extension request.
    Ext(ExtRequest),
    /// An extension message that cannot be taken (unknown type, wrong length, bad
    /// field): refused with a reply, the stream goes on.
    BadExt {
        /// Its type.
        kind: u8,
        /// Its tag (0 if it has none).
        tag: u32,
        /// What is wrong.
        error: ExtError,
    },
}

/// A stream that cannot go on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StreamError {
    /// A type byte below 0x80 that is no Mininet-WiFi request.
    UnknownType(u8),
    /// An extension message whose body is longer than [`MAX_BODY`].
    TooLong {
        /// Its type.
        kind: u8,
        /// The length it gave.
        len: usize,
    },
    /// A reply from the daemon that is none (client side).
    BadReply(ExtError),
}

impl fmt::Display for StreamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StreamError::UnknownType(t) => write!(f, "control socket: unknown request type {t}"),
            StreamError::TooLong { kind, len } => write!(f, "control socket: extension message type {kind:#04x} gives a body of {len} bytes (at most {MAX_BODY})"),
            StreamError::BadReply(e) => write!(f, "{e} (from the daemon)"),
        }
    }
}

impl std::error::Error for StreamError {}

/// The length (header included) of the framed message at the start of `buf`, once
/// its header is there.
fn framed_len(buf: &[u8]) -> Result<Option<usize>, StreamError> {
    if buf.len() < HEADER_LEN {
        return Ok(None);
    }
    let len = u16::from_be_bytes([buf[1], buf[2]]) as usize;
    if len > MAX_BODY {
        return Err(StreamError::TooLong { kind: buf[0], len });
    }
    Ok((buf.len() >= HEADER_LEN + len).then_some(HEADER_LEN + len))
}

impl Decoder {
    /// The next whole message of either protocol (the daemon's reading of a client).
    /// `Ok(None)`: more bytes are needed.
    pub fn next_message(&mut self) -> Result<Option<Message>, StreamError> {
        let Some(&t) = self.buf.first() else { return Ok(None) };
        if !is_ext(t) {
            request_len(t).ok_or(StreamError::UnknownType(t))?;
            // A known type: next_request can only ask for more bytes or give it.
            return Ok(self.next_request().ok().flatten().map(|(r, raw)| Message::Mininet(r, raw)));
        }
        let Some(n) = framed_len(&self.buf)? else { return Ok(None) };
        let raw: Vec<u8> = self.buf.drain(..n).collect();
        let body = &raw[HEADER_LEN..];
        Ok(Some(match ext::decode_ext_request(t, body) {
            Ok(r) => Message::Ext(r),
            Err(error) => Message::BadExt { kind: t, tag: ext::tag_of(body), error },
        }))
    }
}

/// A whole message from the daemon.
#[derive(Clone, Debug, PartialEq)]
pub enum Incoming {
    /// A Mininet-WiFi reply (raw: reply type, echo, result).
    Mininet(Vec<u8>),
    /// An extension reply.
    Reply(ExtReply),
    /// A truth record.
    Truth(TruthRecord),
}

/// Reassembles what the daemon sends (the client's reading of the daemon).
#[derive(Debug, Default)]
pub struct IncomingDecoder {
    buf: Vec<u8>,
}

impl IncomingDecoder {
    /// An empty decoder.
    pub fn new() -> IncomingDecoder {
        IncomingDecoder::default()
    }

    /// Appends bytes read from the socket.
    pub fn push(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// Bytes waiting for the rest of their message.
    pub fn pending(&self) -> usize {
        self.buf.len()
    }

    /// The next whole message; `Ok(None)`: more bytes are needed.
    pub fn next_message(&mut self) -> Result<Option<Incoming>, StreamError> {
        let Some(&t) = self.buf.first() else { return Ok(None) };
        if !is_ext(t) {
            // A reply's type is its request's + 1.
            let n = t
                .checked_sub(1)
                .and_then(reply_len)
                .filter(|_| t % 2 == 0)
                .ok_or(StreamError::UnknownType(t))?;
            if self.buf.len() < n {
                return Ok(None);
            }
            return Ok(Some(Incoming::Mininet(self.buf.drain(..n).collect())));
        }
        let Some(n) = framed_len(&self.buf)? else { return Ok(None) };
        let raw: Vec<u8> = self.buf.drain(..n).collect();
        let body = &raw[HEADER_LEN..];
        let m = if t == ext::types::TRUTH {
            ext::decode_truth(body).map(Incoming::Truth)
        } else {
            ext::decode_ext_reply(t, body).map(Incoming::Reply)
        };
        m.map(Some).map_err(StreamError::BadReply)
    }
}
