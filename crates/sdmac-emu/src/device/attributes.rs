//! Attribute `get` and `set`, answered on the device thread: they read and change
//! the medium, which only this thread touches.

use super::Device;
use sdmac_api::{ApiError, RateSeries, Scope, Value};
use sdmac_frame::MacAddress;
use sdmac_medium::{Ac, EdcaParams};
use std::sync::atomic::Ordering;

fn queue_of(dev: &Device, i: usize, ac: Ac) -> Ac {
    if dev.ifaces[i].qos {
        ac
    } else {
        Ac::Be
    }
}

/// `get` on the device thread.
pub(super) fn get_attribute(
    dev: &mut Device,
    i: usize,
    name: &'static str,
    scope: Scope,
) -> Result<Value, ApiError> {
    let st = dev.ifaces[i].station;
    let cfg = dev.medium.station(st).expect("interface station exists").clone();
    Ok(match (name, scope) {
        ("address", _) => Value::Mac(MacAddress(cfg.address)),
        ("bssid", _) => Value::Mac(dev.ifaces[i].bssid),
        ("channel", _) => {
            Value::Int(sdmac_frame::channel::number(dev.medium.config().freq_mhz) as i64)
        }
        ("frequency", _) => Value::Int(dev.medium.config().freq_mhz as i64),
        ("tx_power", _) => Value::Float(cfg.tx_power_dbm),
        ("position", _) => Value::Text(sdmac_api::attribute::format_position(cfg.position)),
        ("ack_timeout", _) => Value::Float(
            cfg.ack_timeout_ns.unwrap_or_else(|| dev.medium.phy().ack_timeout_ns()) as f64 / 1000.0,
        ),
        ("retry_limit", _) => Value::Int(cfg.default_rates.total_tries() as i64),
        ("default_rates", _) => Value::Rates(cfg.default_rates),
        ("basic_rates", _) => Value::Text(
            dev.medium
                .phy()
                .basic_rates
                .iter()
                .map(|r| r.to_string())
                .collect::<Vec<_>>()
                .join(","),
        ),
        ("queue_limit", _) => Value::Int(cfg.queue_limit as i64),
        ("rx_management", _) => Value::Bool(dev.ifaces[i].rx_management),
        ("stats", _) => stats_value(dev, i),
        ("aifsn" | "cw_min" | "cw_max" | "txop_limit", Scope::Queue(ac)) => {
            let p = dev.medium.edca(st, queue_of(dev, i, ac)).expect("station exists");
            match name {
                "aifsn" => Value::Int(p.aifsn as i64),
                "cw_min" => Value::Int(p.cw_min as i64),
                "cw_max" => Value::Int(p.cw_max as i64),
                _ => Value::Float(p.txop_limit_ns as f64 / 1000.0),
            }
        }
        ("queue_len", Scope::Queue(ac)) => Value::Int(dev.medium.queue_len(st, ac) as i64),
        (_, Scope::Packet(id)) => {
            if let Some(m) = dev.held_reqs.find(i, id) {
                // Still in the device (its request latency): not on a queue yet.
                let rates = m.rates.unwrap_or(cfg.default_rates);
                return Ok(match name {
                    "rates" => Value::Rates(rates),
                    "tries" => Value::Int(rates.total_tries() as i64),
                    "attempts" => Value::Int(0),
                    "state" => Value::Text("held".into()),
                    _ => timestamps_value(&m.ts),
                });
            }
            let Some(p) = dev.ifaces[i].pending.get(&id) else {
                return Err(ApiError::NoSuchPacket { id });
            };
            let ts = p.ts;
            let q = dev.medium.queued(st, id).ok_or(ApiError::NoSuchPacket { id })?;
            match name {
                "rates" => Value::Rates(q.rates),
                "tries" => Value::Int(q.rates.total_tries() as i64),
                "attempts" => Value::Int(q.attempts as i64),
                "state" => Value::Text(
                    if q.on_air {
                        "on_air"
                    } else if q.attempts > 0 {
                        "retrying"
                    } else {
                        "queued"
                    }
                    .into(),
                ),
                _ => timestamps_value(&ts),
            }
        }
        _ => return Err(ApiError::UnknownAttribute { name: name.to_string() }),
    })
}

fn timestamps_value(ts: &sdmac_api::Timestamps) -> Value {
    Value::Map(vec![
        ("t1".into(), Value::Int(ts.t1.as_ns() as i64)),
        ("t2".into(), Value::Int(ts.t2.as_ns() as i64)),
        ("t3".into(), Value::Int(ts.t3.as_ns() as i64)),
        ("t4".into(), Value::Int(ts.t4.as_ns() as i64)),
    ])
}

fn stats_value(dev: &Device, i: usize) -> Value {
    let st = dev.ifaces[i].station;
    let s = dev.medium.station_stats(st).unwrap_or_default();
    let d = dev.stats;
    let sh = &dev.ifaces[i].shared;
    let int = |v: u64| Value::Int(v as i64);
    Value::Map(vec![
        ("tx_requests".into(), int(s.tx_requests)),
        ("tx_attempts".into(), int(s.tx_attempts)),
        ("tx_acked".into(), int(s.tx_acked)),
        ("tx_failed".into(), int(s.tx_failed)),
        ("tx_no_ack".into(), int(s.tx_no_ack)),
        ("tx_dropped".into(), int(s.tx_dropped)),
        ("tx_retries".into(), int(s.tx_retries)),
        ("rx_frames".into(), int(s.rx_frames)),
        ("rx_beacons".into(), int(s.rx_beacons)),
        ("rx_duplicates".into(), int(s.rx_duplicates)),
        ("rx_indications_lost".into(), int(sh.ind_overflow.load(Ordering::Relaxed))),
        ("beacons_lost".into(), int(sh.beacon_overflow.load(Ordering::Relaxed))),
        ("device_events".into(), int(d.events)),
        ("device_parks".into(), int(d.parks)),
        ("device_max_event_lateness_ns".into(), int(d.max_event_lateness_ns)),
        ("device_max_confirmation_lateness_ns".into(), int(d.max_con_lateness_ns)),
    ])
}

/// `set` on the device thread.
pub(super) fn set_attribute(
    dev: &mut Device,
    i: usize,
    name: &'static str,
    scope: Scope,
    v: &Value,
) -> Result<(), ApiError> {
    let st = dev.ifaces[i].station;
    match (name, scope) {
        ("bssid", _) => dev.ifaces[i].bssid = v.to_mac(name)?,
        ("tx_power", _) => {
            let dbm = v.to_float(name)?;
            if !(-50.0..=50.0).contains(&dbm) {
                return Err(v.invalid(name, "must be within -50..=50 dBm"));
            }
            dev.medium.set_tx_power(st, dbm);
        }
        ("position", _) => {
            let p = v.to_position(name)?;
            // The link budgets change from now on: frames already on air keep theirs.
            dev.catch_up(dev.now());
            dev.medium.set_position(st, p);
        }
        ("ack_timeout", _) => {
            let us = v.to_float(name)?;
            if !(1.0..=10_000.0).contains(&us) {
                return Err(v.invalid(name, "must be within 1..=10000 µs"));
            }
            dev.medium.set_ack_timeout(st, Some((us * 1000.0).round() as u64));
        }
        ("retry_limit", _) => {
            let n = v.to_int(name)?;
            if !(1..=15).contains(&n) {
                return Err(v.invalid(name, "must be within 1..=15"));
            }
            let cfg = dev.medium.station(st).expect("station");
            let first = cfg.default_rates.entries()[0].0;
            dev.medium
                .set_default_rates(st, RateSeries::single(first, n as u8))
                .map_err(|e| v.invalid(name, e.to_string()))?;
        }
        ("default_rates", _) => {
            let r = v.to_rates(name)?;
            dev.medium.set_default_rates(st, r).map_err(|e| v.invalid(name, e.to_string()))?;
        }
        ("rx_management", _) => dev.ifaces[i].rx_management = v.to_bool(name)?,
        ("aifsn" | "cw_min" | "cw_max" | "txop_limit", Scope::Queue(ac)) => {
            let q = queue_of(dev, i, ac);
            let mut p: EdcaParams = dev.medium.edca(st, q).expect("station exists");
            match name {
                "aifsn" => {
                    p.aifsn = u8::try_from(v.to_int(name)?)
                        .map_err(|_| v.invalid(name, "must be within 1..=15"))?
                }
                "cw_min" => {
                    p.cw_min = u32::try_from(v.to_int(name)?)
                        .map_err(|_| v.invalid(name, "must be 2^k - 1 in 0..=32767"))?
                }
                "cw_max" => {
                    p.cw_max = u32::try_from(v.to_int(name)?)
                        .map_err(|_| v.invalid(name, "must be 2^k - 1 in 0..=32767"))?
                }
                _ => {
                    let us = v.to_float(name)?;
                    if us < 0.0 {
                        return Err(v.invalid(name, "must not be negative"));
                    }
                    p.txop_limit_ns = (us * 1000.0).round() as u64;
                }
            }
            dev.medium.set_edca(st, q, p).map_err(|e| v.invalid(name, e.to_string()))?;
        }
        ("rates", Scope::Packet(id)) => {
            let r = v.to_rates(name)?;
            let standard = dev.medium.phy().standard;
            if let Some(h) = dev.held_reqs.find_mut(i, id) {
                if let Some((bad, _)) =
                    r.entries().iter().find(|(x, _)| !standard.supports(*x) || !x.is_valid())
                {
                    return Err(v.invalid(name, format!("rate {bad} is not supported by this PHY")));
                }
                h.rates = Some(r);
                return Ok(());
            }
            if !dev.ifaces[i].pending.contains_key(&id) {
                return Err(ApiError::NoSuchPacket { id });
            }
            dev.medium.set_queued_rates(st, id, r).map_err(|e| match e {
                sdmac_medium::QueuedError::NotQueued { .. } => ApiError::NoSuchPacket { id },
                sdmac_medium::QueuedError::AlreadyStarted { .. } => ApiError::PacketOnAir { id },
                other => v.invalid(name, other.to_string()),
            })?;
        }
        _ => return Err(ApiError::ReadOnly { name: name.to_string() }),
    }
    Ok(())
}
