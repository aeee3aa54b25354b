//! Between the API's Rust types and the ABI's C structs.

use crate::error::Fail;
use crate::types::*;
use sdmac_api::attribute::{lookup, Kind};
use sdmac_api::{
    Ac, BeaconInd, Confirmation, DropReason, FrameClass, Indication, Rate, Scope, Status, Value,
};
use sdmac_emu::EmuClock;
use std::ffi::c_char;

/// Copies `s` into a fixed C array, truncated, always NUL-terminated.
pub(crate) fn fill<const N: usize>(dst: &mut [c_char; N], s: &str) {
    let n = s.len().min(N - 1);
    for (d, b) in dst.iter_mut().zip(s.as_bytes()[..n].iter()) {
        *d = *b as c_char;
    }
    dst[n..].iter_mut().for_each(|d| *d = 0);
}

/// The C number of an access category is 802.11's ACI.
pub(crate) fn ac_to_c(ac: Ac) -> sdmac_ac {
    match ac {
        Ac::Be => sdmac_ac::SDMAC_AC_BE,
        Ac::Bk => sdmac_ac::SDMAC_AC_BK,
        Ac::Vi => sdmac_ac::SDMAC_AC_VI,
        Ac::Vo => sdmac_ac::SDMAC_AC_VO,
    }
}

pub(crate) fn ac_from_c(v: i64, what: &str) -> Result<Ac, Fail> {
    match v {
        0 => Ok(Ac::Be),
        1 => Ok(Ac::Bk),
        2 => Ok(Ac::Vi),
        3 => Ok(Ac::Vo),
        _ => Err(Fail::arg(format!(
            "{what} {v} is no access category (SDMAC_AC_BE 0, BK 1, VI 2, VO 3)"
        ))),
    }
}

pub(crate) fn clock_from_c(v: i32, what: &str) -> Result<EmuClock, Fail> {
    match v {
        0 => Ok(EmuClock::Wall),
        1 => Ok(EmuClock::Virtual),
        _ => Err(Fail::arg(format!(
            "{what} {v} is no clock (SDMAC_CLOCK_WALL 0, SDMAC_CLOCK_VIRTUAL 1)"
        ))),
    }
}

pub(crate) fn scope_from_c(scope: i32, which: u64) -> Result<Scope, Fail> {
    match scope {
        0 => Ok(Scope::Adapter),
        1 => Ok(Scope::Queue(ac_from_c(which.min(i64::MAX as u64) as i64, "queue")?)),
        2 => Ok(Scope::Packet(which)),
        _ => Err(Fail::arg(format!(
            "scope {scope} is none of SDMAC_SCOPE_ADAPTER 0, QUEUE 1, PACKET 2"
        ))),
    }
}

fn rate_to_c(r: Rate, attempts: u8) -> sdmac_rate {
    let mut c = sdmac_rate { kbps: r.kbps(), attempts, name: [0; SDMAC_RATE_NAME_LEN] };
    fill(&mut c.name, &r.to_string());
    c
}

pub(crate) fn confirmation_to_c(c: &Confirmation) -> sdmac_confirmation {
    let (status, drop_reason) = match c.status {
        Status::Acked => (sdmac_status::SDMAC_STATUS_ACKED, sdmac_drop_reason::SDMAC_DROP_NONE),
        Status::AckTimeout => {
            (sdmac_status::SDMAC_STATUS_ACK_TIMEOUT, sdmac_drop_reason::SDMAC_DROP_NONE)
        }
        Status::Sent => (sdmac_status::SDMAC_STATUS_SENT, sdmac_drop_reason::SDMAC_DROP_NONE),
        Status::NoReport => {
            (sdmac_status::SDMAC_STATUS_NO_REPORT, sdmac_drop_reason::SDMAC_DROP_NONE)
        }
        Status::Dropped(r) => (
            sdmac_status::SDMAC_STATUS_DROPPED,
            match r {
                DropReason::Cancelled => sdmac_drop_reason::SDMAC_DROP_CANCELLED,
                DropReason::DuplicateId => sdmac_drop_reason::SDMAC_DROP_DUPLICATE_ID,
                DropReason::Refused => sdmac_drop_reason::SDMAC_DROP_REFUSED,
                DropReason::Closed => sdmac_drop_reason::SDMAC_DROP_CLOSED,
                DropReason::Late => sdmac_drop_reason::SDMAC_DROP_LATE,
            },
        ),
    };
    let empty = rate_to_c(Rate::Ofdm6, 0);
    let mut rates = [sdmac_rate { kbps: 0, name: [0; SDMAC_RATE_NAME_LEN], ..empty }; 4];
    for (slot, (r, n)) in rates.iter_mut().zip(c.rates_used()) {
        *slot = rate_to_c(*r, *n);
    }
    let t = &c.ts;
    let mut out = sdmac_confirmation {
        id: c.id,
        status,
        drop_reason,
        ac: ac_to_c(c.ac),
        attempts: c.attempts,
        n_rates: c.rates_used().len() as u8,
        rates,
        len: c.len,
        has_truth: c.truth.is_some() as u8,
        delivered: c.truth.is_some_and(|t| t.delivered) as u8,
        collisions: c.truth.map_or(0, |t| t.collisions),
        set: [0; 8],
        cause: [0; 32],
        ts: sdmac_timestamps {
            t1: t.t1.as_ns(),
            t2: t.t2.as_ns(),
            t3: t.t3.as_ns(),
            t4: t.t4.as_ns(),
            t_start: t.t_start.as_ns(),
            t_last_start: t.t_last_start.as_ns(),
            t_data_end: t.t_data_end.as_ns(),
            t5: t.t5.as_ns(),
            t7: t.t7.as_ns(),
            t8: t.t8.as_ns(),
            t9: t.t9.as_ns(),
        },
    };
    fill(&mut out.set, c.set_name());
    fill(&mut out.cause, c.truth.map_or("none", |t| t.cause.name()));
    out
}

pub(crate) fn indication_to_c(i: &Indication) -> sdmac_indication {
    sdmac_indication {
        id: i.id,
        kind: match i.class {
            FrameClass::Data => sdmac_frame_kind::SDMAC_FRAME_DATA,
            FrameClass::Management => sdmac_frame_kind::SDMAC_FRAME_MANAGEMENT,
        },
        src: i.src.0,
        dst: i.dst.0,
        ac: ac_to_c(i.ac),
        len: i.len,
        payload_offset: i.payload_offset,
        duplicate: i.duplicate as u8,
        signal_dbm: i.rx.signal_dbm,
        snr_db: i.rx.snr_db,
        rate: rate_to_c(i.rx.rate, 0),
        t_start: i.rx.t_start.as_ns(),
        t_end: i.rx.t_end.as_ns(),
        t_published: i.rx.t_published.as_ns(),
        t_returned: i.rx.t_returned.as_ns(),
    }
}

pub(crate) fn beacon_to_c(b: &BeaconInd) -> sdmac_beacon {
    sdmac_beacon {
        bssid: b.bssid.0,
        seq: b.seq,
        t_start: b.t_start.as_ns(),
        t_end: b.t_end.as_ns(),
        t_published: b.t_published.as_ns(),
        signal_dbm: b.signal_dbm,
    }
}

/// A value given as text, typed by the attribute it is for. Text that does not
/// parse as that type is passed on as text, so that the backend refuses it with
/// an error naming the attribute and the value.
pub(crate) fn value_from_text(
    name: &str,
    scope: &Scope,
    text: &str,
) -> Result<Value, sdmac_api::ApiError> {
    let spec = lookup(name, scope, true)?;
    let t = text.trim();
    let typed = match spec.kind {
        Kind::Int => t.parse().ok().map(Value::Int),
        Kind::Float => t.parse().ok().map(Value::Float),
        Kind::Bool => match t {
            "true" | "1" => Some(Value::Bool(true)),
            "false" | "0" => Some(Value::Bool(false)),
            _ => None,
        },
        Kind::Mac | Kind::Rates | Kind::Text | Kind::Map => None,
    };
    Ok(typed.unwrap_or_else(|| Value::Text(text.to_string())))
}

/// A value as text: what value_from_text reads back (text values without quotes).
pub(crate) fn value_to_text(v: &Value) -> String {
    match v {
        Value::Text(t) => t.clone(),
        other => other.to_string(),
    }
}
