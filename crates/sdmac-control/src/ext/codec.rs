//! The extension's messages to bytes and back.

use super::{
    types, Attempts, Edca, ExtError, ExtReply, ExtRequest, ExtResult, ReplyBody, TruthCause,
    TruthOutcome, TruthRecord, HEADER_LEN, MAX_BODY, MAX_SUBSCRIBE, TRUTH_BODY_LEN,
};
use crate::mininet::Mac;

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
