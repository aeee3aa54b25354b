//! Path-loss models: each `model_name`'s parameters, read from either dialect's
//! layout, and the per-station positions, powers and gains a model needs.

use super::{
    index, join, Cx, PathLossModel, DEFAULT_NAKAGAMI_M, WMEDIUMD_ANTENNA_GAIN_DBI,
    WMEDIUMD_MOVE_INTERVAL_S, YAWMD_ANTENNA_GAIN_DBI, YAWMD_MOVE_INTERVAL_S,
};
use crate::libconfig::{Group, Pos, Value};
use crate::ConfigError;
use sdmac_phy::PathLoss;

/// Where a model's parameters are read from.
pub(super) enum Params<'a> {
    /// wmediumd: keys of the `model` group, wmediumd names.
    Flat(&'a Group, String),
    /// yawmd: the `model_params` group, yawmd names.
    Group(&'a Group, String),
    /// Legacy `path_loss.model_params = (name, p1, p2, ...)`.
    Positional(&'a [Value], String, Pos),
}

/// The parameters of each model: (wmediumd name, yawmd name, integer?, required?).
fn model_params(name: &str) -> Option<&'static [(&'static str, &'static str, bool, bool)]> {
    Some(match name {
        "free_space" => &[("sL", "system_loss", true, true)],
        "log_distance" => {
            &[("path_loss_exp", "path_loss_exponent", false, true), ("xg", "xg", false, true)]
        }
        "log_normal_shadowing" => &[
            ("path_loss_exp", "path_loss_exponent", false, true),
            ("sL", "system_loss", true, false),
        ],
        "two_ray_ground" => &[("sL", "system_loss", true, true)],
        "itu" => &[
            ("nFLOORS", "n_floors", true, true),
            ("lF", "floor_pen_factor", true, true),
            ("pL", "power_loss_coefficient", true, true),
        ],
        "nakagami" => &[
            ("path_loss_exp", "path_loss_exponent", false, false),
            ("xg", "xg", false, false),
            ("m", "m", false, false),
        ],
        _ => return None,
    })
}

/// Every parameter name of every model, per dialect.
const ALL_PARAMS_WMEDIUMD: &[&str] = &["path_loss_exp", "xg", "sL", "nFLOORS", "lF", "pL", "m"];
const ALL_PARAMS_YAWMD: &[&str] = &[
    "system_loss",
    "path_loss_exponent",
    "xg",
    "n_floors",
    "floor_pen_factor",
    "power_loss_coefficient",
];

fn system_loss_db(cx: &Cx<'_>, v: &Value, key: &str, sl: f64) -> Result<f64, ConfigError> {
    if sl < 1.0 {
        return Err(cx.err(
            v.pos,
            key,
            format!("the system loss is a linear factor and must be at least 1, found {sl}"),
        ));
    }
    Ok(10.0 * sl.log10())
}

/// Builds the [`PathLoss`] named `name` (a value at `name_v`, key `name_key`).
pub(super) fn build_path_loss(
    cx: &mut Cx<'_>,
    name: &str,
    name_v: &Value,
    name_key: &str,
    params: &Params<'_>,
    yawmd: bool,
) -> Result<(PathLoss, Option<f64>), ConfigError> {
    let spec = match model_params(name) {
        Some(spec) if !(yawmd && name == "nakagami") => spec,
        _ => {
            let known = if yawmd {
                "free_space, log_distance, log_normal_shadowing, two_ray_ground or itu"
            } else {
                "free_space, log_distance, log_normal_shadowing, two_ray_ground, itu or nakagami"
            };
            return Err(cx.err(
                name_v.pos,
                name_key,
                format!("unknown path-loss model {name:?}: expected {known}"),
            ));
        }
    };
    // Look every parameter up: (value, key) or None.
    let mut found: Vec<Option<(&Value, String)>> = Vec::new();
    match params {
        Params::Flat(g, prefix) | Params::Group(g, prefix) => {
            let yawmd_names = matches!(params, Params::Group(..));
            for &(wm, ya, _, _) in spec {
                let n = if yawmd_names { ya } else { wm };
                found.push(g.get(n).map(|s| (&s.value, join(prefix, n))));
            }
            let all = if yawmd_names { ALL_PARAMS_YAWMD } else { ALL_PARAMS_WMEDIUMD };
            for s in *g {
                let used =
                    spec.iter().any(|&(wm, ya, _, _)| s.name == if yawmd_names { ya } else { wm });
                if !used && all.contains(&s.name.as_str()) {
                    cx.warn(
                        s.pos,
                        &join(prefix, &s.name),
                        format!("ignored: not a parameter of model_name {name:?}"),
                    );
                } else if !used && yawmd_names {
                    cx.warn(s.pos, &join(prefix, &s.name), "unknown setting, ignored");
                }
            }
        }
        Params::Positional(items, key, pos) => {
            let rest = &items[1..];
            if rest.len() != spec.len() {
                let names: Vec<&str> = spec.iter().map(|p| p.0).collect();
                return Err(cx.err(
                    *pos,
                    key,
                    format!(
                        "model {name:?} takes {} parameters after its name ({}), found {}",
                        spec.len(),
                        names.join(", "),
                        rest.len()
                    ),
                ));
            }
            if name != "log_distance" {
                let names: Vec<&str> = spec.iter().map(|p| p.0).collect();
                cx.warn(
                    *pos,
                    key,
                    format!(
                        "legacy positional parameters read in the order ({})",
                        names.join(", ")
                    ),
                );
            }
            for (i, v) in rest.iter().enumerate() {
                found.push(Some((v, index(key, i + 1))));
            }
        }
    }
    // Read them: integers or floats as declared.
    let mut vals: Vec<Option<(f64, &Value, String)>> = Vec::new();
    for (&(wm, ya, integer, required), f) in spec.iter().zip(found) {
        match f {
            Some((v, key)) => {
                let x = if integer { cx.int32(v, &key)? as f64 } else { cx.float(v, &key)? };
                if !x.is_finite() {
                    return Err(cx.err(v.pos, &key, "must be finite"));
                }
                vals.push(Some((x, v, key)));
            }
            None if required => {
                let (n, place) = match params {
                    Params::Group(_, p) => (ya, p.clone()),
                    Params::Flat(_, p) => (wm, p.clone()),
                    Params::Positional(_, p, _) => (wm, p.clone()),
                };
                return Err(cx.err(
                    name_v.pos,
                    name_key,
                    format!("model_name {name:?} needs `{n}` in `{place}`"),
                ));
            }
            None => vals.push(None),
        }
    }
    let get = |i: usize, default: f64| vals[i].as_ref().map_or(default, |v| v.0);
    let model = match name {
        "free_space" | "two_ray_ground" => {
            let (sl, v, key) = vals[0]
                .as_ref()
                .map(|(x, v, k)| (*x, *v, k.as_str()))
                .unwrap_or((1.0, name_v, name_key));
            let sl_db = system_loss_db(cx, v, key, sl)?;
            if name == "free_space" {
                PathLoss::FreeSpace { sl_db }
            } else {
                PathLoss::TwoRayGround { tx_height_m: 1.0, rx_height_m: 1.0, sl_db }
            }
        }
        "log_distance" | "nakagami" => {
            PathLoss::LogDistance { exponent: get(0, 2.0), ref_distance_m: 1.0, sl_db: get(1, 0.0) }
        }
        "log_normal_shadowing" => {
            if let Some((_, v, key)) = &vals[1] {
                cx.warn(v.pos, key, "read but not used by log_normal_shadowing (as in wmediumd)");
            }
            PathLoss::LogNormalShadowing {
                exponent: get(0, 2.0),
                ref_distance_m: 1.0,
                sigma_db: 1.0,
                sl_db: 0.0,
            }
        }
        _ => {
            // itu
            let n_floors = get(0, 0.0);
            if n_floors < 0.0 {
                let (_, v, key) = vals[0]
                    .as_ref()
                    .map(|(x, v, k)| (*x, *v, k.as_str()))
                    .unwrap_or((0.0, name_v, name_key));
                return Err(cx.err(
                    v.pos,
                    key,
                    format!("the number of floors must be 0 or more, found {n_floors}"),
                ));
            }
            PathLoss::Itu {
                n_floors: n_floors as u32,
                floor_loss_db: get(1, 0.0),
                power_loss_coefficient: get(2, 0.0),
            }
        }
    };
    let nakagami = if name == "nakagami" {
        let m = get(2, DEFAULT_NAKAGAMI_M);
        if m <= 0.0 {
            let (_, v, key) = vals[2]
                .as_ref()
                .map(|(x, v, k)| (*x, *v, k.as_str()))
                .unwrap_or((m, name_v, name_key));
            return Err(cx.err(v.pos, key, format!("Nakagami m must be > 0, found {m}")));
        }
        Some(m)
    } else {
        None
    };
    Ok((model, nakagami))
}
/// Positions, directions, powers, gains and AP flags of a path-loss model.
#[allow(clippy::too_many_arguments)]
pub(super) fn stations(
    cx: &mut Cx<'_>,
    g: &Group,
    prefix: &str,
    pos: Pos,
    n: usize,
    yawmd: bool,
    path_loss: PathLoss,
    nakagami_m: Option<f64>,
) -> Result<PathLossModel, ConfigError> {
    let required = |cx: &Cx<'_>, name: &str, what: &str| {
        g.get(name).ok_or_else(|| {
            cx.err(pos, &join(prefix, name), format!("missing: path_loss needs {what}"))
        })
    };
    let positions_s = required(cx, "positions", "a position per interface")?;
    let positions = cx.points(positions_s, &join(prefix, "positions"), n)?;
    let directions = match g.get("directions") {
        Some(s) => Some(cx.points(s, &join(prefix, "directions"), n)?),
        None => None,
    };
    let tx_s = required(cx, "tx_powers", "a transmit power per interface")?;
    let tx_powers_dbm = cx.numbers(tx_s, &join(prefix, "tx_powers"), n)?;
    let antenna_gains_dbi = match g.get("antenna_gain") {
        Some(s) => cx.numbers(s, &join(prefix, "antenna_gain"), n)?,
        None => vec![if yawmd { YAWMD_ANTENNA_GAIN_DBI } else { WMEDIUMD_ANTENNA_GAIN_DBI }; n],
    };
    let is_ap = match g.get("isnodeaps") {
        Some(s) => cx.is_ap(s, &join(prefix, "isnodeaps"), n)?,
        None => vec![false; n],
    };
    let move_interval_s = match g.get("move_interval") {
        Some(s) => {
            let key = join(prefix, "move_interval");
            let x = cx.float(&s.value, &key)?;
            if !(x > 0.0 && x.is_finite()) {
                return Err(cx.err(
                    s.value.pos,
                    &key,
                    format!("must be a number of seconds > 0, found {}", s.value.describe()),
                ));
            }
            x
        }
        None if yawmd => YAWMD_MOVE_INTERVAL_S,
        None => WMEDIUMD_MOVE_INTERVAL_S,
    };
    for (i, p) in tx_powers_dbm.iter().chain(&antenna_gains_dbi).enumerate() {
        if !p.is_finite() {
            let (name, j) = if i < n { ("tx_powers", i) } else { ("antenna_gain", i - n) };
            return Err(cx.err(pos, &index(&join(prefix, name), j), "must be finite"));
        }
    }
    let heights_from_z = yawmd && matches!(path_loss, PathLoss::TwoRayGround { .. });
    Ok(PathLossModel {
        path_loss,
        positions,
        directions,
        move_interval_s,
        tx_powers_dbm,
        antenna_gains_dbi,
        is_ap,
        heights_from_z,
        nakagami_m,
    })
}
