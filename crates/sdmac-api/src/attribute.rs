//! Attributes (`set` / `get`): of the adapter, of one AC queue, or of one buffered
//! packet. [`ATTRIBUTES`] is the one list: names, scopes, types, whether writable.

use crate::error::ApiError;
use crate::rates::{format_rate_series, parse_rate_series};
use sdmac_types::MacAddress;
use sdmac_types::{Ac, RateSeries};
use std::fmt;

/// What an attribute belongs to.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Scope {
    /// The adapter (interface).
    Adapter,
    /// One access-category queue.
    Queue(Ac),
    /// One packet still in the adapter (by the caller's id).
    Packet(u64),
}

impl Scope {
    /// "adapter", "queue" or "packet".
    pub fn kind(&self) -> &'static str {
        match self {
            Scope::Adapter => "adapter",
            Scope::Queue(_) => "queue",
            Scope::Packet(_) => "packet",
        }
    }
}

/// A value of an attribute.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// Integer.
    Int(i64),
    /// Real number.
    Float(f64),
    /// Flag.
    Bool(bool),
    /// MAC address.
    Mac(MacAddress),
    /// Rate series.
    Rates(RateSeries),
    /// Text.
    Text(String),
    /// Named values (statistics, timestamps).
    Map(Vec<(String, Value)>),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(v) => write!(f, "{v}"),
            Value::Float(v) => write!(f, "{v}"),
            Value::Bool(v) => write!(f, "{v}"),
            Value::Mac(m) => write!(f, "{m}"),
            Value::Rates(r) => write!(f, "{}", format_rate_series(r)),
            Value::Text(t) => write!(f, "{t:?}"),
            Value::Map(m) => {
                write!(f, "{{")?;
                for (i, (k, v)) in m.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{k}: {v}")?;
                }
                write!(f, "}}")
            }
        }
    }
}

/// Type of an attribute's values.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Integer.
    Int,
    /// Real number (integers accepted).
    Float,
    /// Flag.
    Bool,
    /// MAC address (or its text "aa:bb:cc:dd:ee:ff").
    Mac,
    /// Rate series (or its text, e.g. "54x1,24x2").
    Rates,
    /// Text.
    Text,
    /// Named values.
    Map,
}

/// One attribute.
#[derive(Copy, Clone, Debug)]
pub struct AttrSpec {
    /// Name.
    pub name: &'static str,
    /// "adapter", "queue" or "packet".
    pub scope: &'static str,
    /// Value type.
    pub kind: Kind,
    /// Can it be set?
    pub writable: bool,
    /// Unit and meaning.
    pub doc: &'static str,
}

const fn a(
    name: &'static str,
    scope: &'static str,
    kind: Kind,
    writable: bool,
    doc: &'static str,
) -> AttrSpec {
    AttrSpec { name, scope, kind, writable, doc }
}

/// Every attribute.
pub const ATTRIBUTES: &[AttrSpec] = &[
    a("address", "adapter", Kind::Mac, false, "the interface's MAC address"),
    a("bssid", "adapter", Kind::Mac, true, "BSSID written as address 3 of data frames built from a payload"),
    a("channel", "adapter", Kind::Int, false, "channel number"),
    a("frequency", "adapter", Kind::Int, false, "centre frequency (MHz)"),
    a("tx_power", "adapter", Kind::Float, true, "transmit power (dBm)"),
    a("position", "adapter", Kind::Text, true, "position on the emulated medium, \"x y z\" (m)"),
    a("ack_timeout", "adapter", Kind::Float, true, "ACKTimeout after the end of DATA (µs)"),
    a("retry_limit", "adapter", Kind::Int, true, "tries of the default rate series (1..=15)"),
    a("default_rates", "adapter", Kind::Rates, true, "rate series of requests that give none"),
    a("basic_rates", "adapter", Kind::Text, false, "BSS basic rate set (Mb/s), which sets the ACK rate"),
    a("queue_limit", "adapter", Kind::Int, false, "capacity of each AC queue (packets)"),
    a("rx_management", "adapter", Kind::Bool, true, "deliver management frames (beacons too) through data_ind"),
    a("stats", "adapter", Kind::Map, false, "counters of the adapter and of its device"),
    a("aifsn", "queue", Kind::Int, true, "AIFSN (1..=15)"),
    a("cw_min", "queue", Kind::Int, true, "CWmin (2^k - 1)"),
    a("cw_max", "queue", Kind::Int, true, "CWmax (2^k - 1, >= cw_min)"),
    a("txop_limit", "queue", Kind::Float, true, "TXOP limit (µs; 0 = one frame per access)"),
    a("queue_len", "queue", Kind::Int, false, "packets in the queue, including one on air"),
    a("rates", "packet", Kind::Rates, true, "the packet's rate series (settable until its first attempt)"),
    a("tries", "packet", Kind::Int, false, "total tries of the packet's rate series"),
    a("attempts", "packet", Kind::Int, false, "attempts made so far"),
    a("state", "packet", Kind::Text, false, "\"held\" (in the device, before its queue), \"queued\" (not attempted yet), \"on_air\", or \"retrying\" (between attempts)"),
    a("timestamps", "packet", Kind::Map, false, "timestamps recorded so far (t1, t2, t3, t4; ns)"),
];

/// Finds an attribute and checks its scope (and, for `set`, that it is writable).
pub fn lookup(name: &str, scope: &Scope, for_set: bool) -> Result<&'static AttrSpec, ApiError> {
    let spec = ATTRIBUTES
        .iter()
        .find(|s| s.name == name)
        .ok_or_else(|| ApiError::UnknownAttribute { name: name.to_string() })?;
    if spec.scope != scope.kind() {
        return Err(ApiError::WrongScope {
            name: name.to_string(),
            expected: spec.scope,
            given: scope.kind(),
        });
    }
    if for_set && !spec.writable {
        return Err(ApiError::ReadOnly { name: name.to_string() });
    }
    Ok(spec)
}

fn invalid(name: &str, v: &Value, reason: impl Into<String>) -> ApiError {
    ApiError::InvalidValue { name: name.to_string(), value: v.to_string(), reason: reason.into() }
}

impl Value {
    /// As an integer (for attribute `name`), else an error naming it.
    pub fn to_int(&self, name: &str) -> Result<i64, ApiError> {
        match self {
            Value::Int(v) => Ok(*v),
            Value::Float(f) if f.fract() == 0.0 && f.is_finite() => Ok(*f as i64),
            v => Err(invalid(name, v, "expected an integer")),
        }
    }

    /// As a finite real number.
    pub fn to_float(&self, name: &str) -> Result<f64, ApiError> {
        match self {
            Value::Int(v) => Ok(*v as f64),
            Value::Float(f) if f.is_finite() => Ok(*f),
            v => Err(invalid(name, v, "expected a finite number")),
        }
    }

    /// As a flag.
    pub fn to_bool(&self, name: &str) -> Result<bool, ApiError> {
        match self {
            Value::Bool(b) => Ok(*b),
            v => Err(invalid(name, v, "expected true or false")),
        }
    }

    /// As a MAC address (text "aa:bb:cc:dd:ee:ff" accepted).
    pub fn to_mac(&self, name: &str) -> Result<MacAddress, ApiError> {
        match self {
            Value::Mac(m) => Ok(*m),
            Value::Text(t) => parse_mac(t).ok_or_else(|| {
                invalid(name, self, "expected a MAC address like 02:00:00:00:00:01")
            }),
            v => Err(invalid(name, v, "expected a MAC address")),
        }
    }

    /// As a rate series (text "54x1,24x2" accepted).
    pub fn to_rates(&self, name: &str) -> Result<RateSeries, ApiError> {
        match self {
            Value::Rates(r) => {
                crate::rates::check_tries(r).map(|_| *r).map_err(|e| invalid(name, self, e))
            }
            Value::Text(t) => parse_rate_series(t).map_err(|e| invalid(name, self, e)),
            v => Err(invalid(name, v, "expected a rate series like \"54x1,24x2\"")),
        }
    }

    /// As a position: text of three finite numbers (metres) separated by spaces or
    /// commas, "x y z" or "x,y,z".
    pub fn to_position(&self, name: &str) -> Result<[f64; 3], ApiError> {
        let Value::Text(t) = self else {
            return Err(invalid(name, self, "expected text \"x y z\" (metres)"));
        };
        let parts: Vec<&str> =
            t.split(|c: char| c == ',' || c.is_whitespace()).filter(|s| !s.is_empty()).collect();
        if parts.len() != 3 {
            return Err(invalid(name, self, format!("expected 3 numbers, got {}", parts.len())));
        }
        let mut p = [0.0; 3];
        for (k, s) in parts.iter().enumerate() {
            p[k] = s
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| invalid(name, self, format!("{s:?} is not a finite number")))?;
        }
        Ok(p)
    }

    /// Builds the "invalid value" error for this value.
    pub fn invalid(&self, name: &str, reason: impl Into<String>) -> ApiError {
        invalid(name, self, reason)
    }
}

/// A position as the `position` attribute reads: "x y z" (metres).
pub fn format_position(p: [f64; 3]) -> String {
    format!("{} {} {}", p[0], p[1], p[2])
}

/// Parses "aa:bb:cc:dd:ee:ff" (or with '-').
pub fn parse_mac(s: &str) -> Option<MacAddress> {
    let mut b = [0u8; 6];
    let mut n = 0;
    for part in s.split([':', '-']) {
        if n == 6 || part.len() != 2 {
            return None;
        }
        b[n] = u8::from_str_radix(part, 16).ok()?;
        n += 1;
    }
    (n == 6).then_some(MacAddress(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_errors_name_the_attribute() {
        assert!(
            matches!(lookup("nope", &Scope::Adapter, false), Err(ApiError::UnknownAttribute { name }) if name == "nope")
        );
        let e = lookup("aifsn", &Scope::Adapter, false).unwrap_err();
        assert_eq!(e.to_string(), "attribute \"aifsn\" belongs to the queue, not to a adapter");
        assert!(matches!(lookup("address", &Scope::Adapter, true), Err(ApiError::ReadOnly { .. })));
        assert!(lookup("cw_min", &Scope::Queue(Ac::Vo), true).is_ok());
        assert!(lookup("rates", &Scope::Packet(3), true).is_ok());
    }

    #[test]
    fn names_are_unique() {
        for (i, s) in ATTRIBUTES.iter().enumerate() {
            assert!(ATTRIBUTES[i + 1..].iter().all(|t| t.name != s.name), "{}", s.name);
        }
    }

    #[test]
    fn conversions() {
        assert_eq!(
            Value::Text("02:00:00:00:00:0a".into()).to_mac("bssid").unwrap(),
            MacAddress([2, 0, 0, 0, 0, 10])
        );
        assert!(Value::Text("02:00:00".into()).to_mac("bssid").is_err());
        assert_eq!(Value::Int(3).to_float("tx_power").unwrap(), 3.0);
        let pos = |s: &str| Value::Text(s.into()).to_position("position");
        assert_eq!(pos("1 2.5 -3").unwrap(), [1.0, 2.5, -3.0]);
        assert_eq!(pos(" 1, 2,3 ").unwrap(), [1.0, 2.0, 3.0]);
        assert_eq!(pos(&format_position([0.5, -7.0, 1e3])).unwrap(), [0.5, -7.0, 1000.0]);
        for bad in ["1 2", "1 2 3 4", "1 x 3", "1 inf 3", "1 NaN 3", ""] {
            match pos(bad) {
                Err(ApiError::InvalidValue { name, .. }) => assert_eq!(name, "position"),
                other => panic!("{bad:?}: {other:?}"),
            }
        }
        assert!(Value::Float(1.0).to_position("position").is_err());
        assert!(Value::Float(f64::NAN).to_float("tx_power").is_err());
        let e = Value::Text("fast".into()).to_rates("rates").unwrap_err();
        assert!(e.to_string().contains("\"rates\""), "{e}");
    }
}
