//! What `hwsim:IFACE` sets and reads through the medium daemon rather than
//! nl80211: per-queue EDCA (`aifsn`, `cw_min`, `cw_max`, `txop_limit`) and the ACK
//! timeout, which stock mac80211 cannot change on a monitor interface.

use sdmac_api::{Ac, ApiError, MacAddress, Scope, Value};
use sdmac_control::client::{Client, ClientError};
use sdmac_control::ext::{Edca, ExtResult};
use std::path::PathBuf;

/// Is `name` (in `scope`) an attribute the daemon carries?
pub fn through_daemon(name: &str, scope: &Scope) -> bool {
    matches!(
        (name, scope),
        ("aifsn" | "cw_min" | "cw_max" | "txop_limit", Scope::Queue(_))
            | ("ack_timeout", Scope::Adapter)
    )
}

/// A connection to the daemon's control socket for set and get (not subscribed).
pub struct DaemonControl {
    client: Option<Client>,
    path: PathBuf,
    station: MacAddress,
}

impl DaemonControl {
    /// Set and get for station `station` (the monitor's address) on `client`.
    pub fn new(client: Client, path: PathBuf, station: MacAddress) -> DaemonControl {
        DaemonControl { client: Some(client), path, station }
    }

    fn client(&mut self) -> Result<&mut Client, ApiError> {
        let path = self.path.display().to_string();
        self.client.as_mut().ok_or_else(|| ApiError::Unsupported {
            what: format!(
                "the medium daemon's control socket {path} is closed (the daemon is gone)"
            ),
        })
    }

    fn err(&mut self, name: &str, value: Option<&Value>, e: ClientError) -> ApiError {
        let path = self.path.display().to_string();
        match e {
            ClientError::Refused(ExtResult::OutOfRange) => ApiError::InvalidValue {
                name: name.to_string(),
                value: value.map_or_else(String::new, |v| v.to_string()),
                reason: "out of the range the medium daemon accepts".into(),
            },
            ClientError::Refused(r) => ApiError::Unsupported {
                what: format!("{name} through the medium daemon ({path}): {r}"),
            },
            ClientError::Io(_) | ClientError::Stream(_) => {
                self.client = None;
                ApiError::Unsupported { what: format!("{name}: the medium daemon's control socket {path} failed ({e}); the daemon is gone") }
            }
            other => ApiError::Unsupported {
                what: format!("{name} through the medium daemon ({path}): {other}"),
            },
        }
    }

    /// Sets an attribute [`through_daemon`] names.
    pub fn set(&mut self, name: &str, scope: Scope, value: &Value) -> Result<(), ApiError> {
        let station = self.station;
        match scope {
            Scope::Queue(ac) => {
                let mut e = self.get_edca(name, ac)?;
                match name {
                    "aifsn" => e.aifsn = narrow(name, value, value.to_int(name)?, 1, 15)? as u8,
                    "cw_min" => {
                        e.cw_min = narrow(name, value, value.to_int(name)?, 0, 32767)? as u16
                    }
                    "cw_max" => {
                        e.cw_max = narrow(name, value, value.to_int(name)?, 0, 32767)? as u16
                    }
                    _ => {
                        let us = value.to_float(name)?;
                        e.txop_limit_us = narrow(name, value, us.round() as i64, 0, 8160)? as u16;
                    }
                }
                let r = self.client()?.set_edca(station, ac as u8, e);
                r.map_err(|err| self.err(name, Some(value), err))
            }
            _ => {
                let us = value.to_float(name)?;
                let ns =
                    narrow(name, value, (us * 1000.0).round() as i64, 0, u32::MAX as i64)? as u32;
                let r = self.client()?.set_ack_timeout(station, ns);
                r.map_err(|err| self.err(name, Some(value), err))
            }
        }
    }

    fn get_edca(&mut self, name: &str, ac: Ac) -> Result<Edca, ApiError> {
        let station = self.station;
        let r = self.client()?.get_edca(station, ac as u8);
        r.map_err(|e| self.err(name, None, e))
    }

    /// Reads an attribute [`through_daemon`] names.
    pub fn get(&mut self, name: &str, scope: Scope) -> Result<Value, ApiError> {
        match scope {
            Scope::Queue(ac) => {
                let e = self.get_edca(name, ac)?;
                Ok(match name {
                    "aifsn" => Value::Int(e.aifsn as i64),
                    "cw_min" => Value::Int(e.cw_min as i64),
                    "cw_max" => Value::Int(e.cw_max as i64),
                    _ => Value::Float(e.txop_limit_us as f64),
                })
            }
            _ => {
                let station = self.station;
                let r = self.client()?.get_ack_timeout(station);
                r.map(|ns| Value::Float(ns as f64 / 1000.0)).map_err(|e| self.err(name, None, e))
            }
        }
    }
}

fn narrow(name: &str, value: &Value, v: i64, lo: i64, hi: i64) -> Result<i64, ApiError> {
    if (lo..=hi).contains(&v) {
        Ok(v)
    } else {
        Err(value.invalid(name, format!("not within {lo}..={hi}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn which_attributes_go_to_the_daemon() {
        assert!(through_daemon("aifsn", &Scope::Queue(Ac::Vo)));
        assert!(through_daemon("txop_limit", &Scope::Queue(Ac::Be)));
        assert!(through_daemon("ack_timeout", &Scope::Adapter));
        assert!(!through_daemon("tx_power", &Scope::Adapter));
        assert!(!through_daemon("queue_len", &Scope::Queue(Ac::Be)));
    }
}
