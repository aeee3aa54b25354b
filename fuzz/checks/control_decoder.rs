// What the `control_decoder` fuzz target runs on each input; included (`include!`) by
// the target and by `crates/sdmac-mediumd/tests/fuzz_corpus.rs`, which replays the
// corpus on stable Rust.
//
// Any byte stream from a control-socket client, fed in pieces whose sizes the input's
// first byte picks: the decoder gives whole requests, asks for more bytes, or names an
// unknown type — never panics, never loses or invents bytes. Every request has a reply
// (shutdown excepted) that echoes it, and re-encodes to bytes that decode to the same.
// The same stream read as the daemon reads it, with sdmac's extension messages
// (`check_messages`): framed extension messages are taken whole (or refused whole and
// skipped), re-encode to their own bytes, and only an unknown type below 0x80 or an
// over-long body stops the stream.

use sdmac_mediumd::control::ext::{encode_ext_request, HEADER_LEN, MAX_BODY};
use sdmac_mediumd::control::stream::{Message, StreamError};
use sdmac_mediumd::control::{encode_reply, encode_request, request_len, ControlError, Decoder, UpdateResult};

/// Decodes `data` as a client's stream; panics on any broken rule above.
pub fn check(data: &[u8]) {
    check_messages(data);
    let Some((&step, stream)) = data.split_first() else { return };
    let step = (step as usize % 64) + 1;
    let mut d = Decoder::new();
    let (mut consumed, mut pushed) = (0usize, 0usize);
    for chunk in stream.chunks(step) {
        d.push(chunk);
        pushed += chunk.len();
        loop {
            match d.next_request() {
                Ok(Some((req, raw))) => {
                    assert_eq!(Some(raw.len()), request_len(raw[0]));
                    assert_eq!(&raw[..], &stream[consumed..consumed + raw.len()], "the request's bytes are the stream's");
                    consumed += raw.len();
                    for result in [UpdateResult::Success, UpdateResult::NotFound] {
                        match encode_reply(&raw, result, 3) {
                            None => assert_eq!(raw, [0u8], "only shutdown has no reply"),
                            Some(r) => {
                                assert_eq!((r[0], *r.last().unwrap()), (raw[0] + 1, result as u8));
                            }
                        }
                    }
                    // Re-encoding normalises (a probability's two fixed-point forms);
                    // once normalised, bytes are stable.
                    let once = encode_request(&req);
                    let mut again = Decoder::new();
                    again.push(&once);
                    let (req2, raw2) = again.next_request().expect("re-encoded request decodes").expect("whole");
                    assert_eq!(raw2, once);
                    assert_eq!(encode_request(&req2), once);
                }
                Ok(None) => {
                    // What was not taken waits: part of one request of a known type.
                    let pending = d.pending();
                    assert_eq!(pending, pushed - consumed);
                    if pending > 0 {
                        assert!(pending < request_len(stream[consumed]).expect("a known type waits for more"));
                    }
                    break;
                }
                Err(e) => {
                    let ControlError::UnknownType(t) = &e;
                    let t = *t;
                    assert_eq!(Some(&t), stream.get(consumed), "the error names the offending byte");
                    assert!(request_len(t).is_none());
                    assert!(e.to_string().contains(&format!("unknown request type {t}")));
                    // The daemon closes such a client; the decoder stays in error.
                    assert_eq!(d.next_request(), Err(e));
                    return;
                }
            }
        }
    }
}

/// Decodes `data` as the daemon does (Mininet-WiFi and extension messages); panics on
/// any broken rule above.
pub fn check_messages(data: &[u8]) {
    let Some((&step, stream)) = data.split_first() else { return };
    let step = (step as usize % 64) + 1;
    let mut d = Decoder::new();
    let (mut consumed, mut pushed) = (0usize, 0usize);
    for chunk in stream.chunks(step) {
        d.push(chunk);
        pushed += chunk.len();
        loop {
            match d.next_message() {
                Ok(Some(Message::Mininet(_, raw))) => {
                    assert_eq!(&raw[..], &stream[consumed..consumed + raw.len()]);
                    consumed += raw.len();
                }
                Ok(Some(m)) => {
                    let t = stream[consumed];
                    assert!(t >= 0x80, "an extension message starts with a type from 0x80");
                    let len = u16::from_be_bytes([stream[consumed + 1], stream[consumed + 2]]) as usize;
                    assert!(len <= MAX_BODY);
                    let whole = &stream[consumed..consumed + HEADER_LEN + len];
                    match m {
                        Message::Ext(r) => assert_eq!(encode_ext_request(&r), whole, "an extension request re-encodes to its bytes"),
                        Message::BadExt { kind, error, .. } => {
                            assert_eq!(kind, t);
                            assert!(error.to_string().starts_with("control socket: "));
                        }
                        Message::Mininet(..) => unreachable!(),
                    }
                    consumed += whole.len();
                }
                Ok(None) => {
                    assert_eq!(d.pending(), pushed - consumed, "what was not taken waits");
                    break;
                }
                Err(StreamError::UnknownType(t)) => {
                    assert_eq!(Some(&t), stream.get(consumed));
                    assert!(t < 0x80 && request_len(t).is_none());
                    return;
                }
                Err(StreamError::TooLong { kind, len }) => {
                    assert_eq!(Some(&kind), stream.get(consumed));
                    assert!(kind >= 0x80 && len > MAX_BODY);
                    return;
                }
                Err(e) => panic!("a client stream gives no {e:?}"),
            }
        }
    }
}
