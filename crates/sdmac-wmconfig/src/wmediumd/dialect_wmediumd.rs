//! The wmediumd dialect: `ifaces`, `model` and the legacy `path_loss` group.

use super::{
    build_path_loss, index, join, stations, Cx, MediumSpec, Model, Params, ProbModel, SnrModel,
    DEFAULT_NOISE_DBM, WMEDIUMD_DEFAULT_PROB, WMEDIUMD_DEFAULT_SNR,
};
use crate::libconfig::{Group, Pos, Setting};
use crate::ConfigError;

const WM_IFACES_KEYS: &[&str] =
    &["ids", "links", "enable_interference", "medium_array", "enable_medium_detection", "count"];
const WM_COMMON_MODEL_KEYS: &[&str] = &["type", "noise_threshold", "fading_coefficient"];
const WM_SNR_KEYS: &[&str] = &["default_snr", "links"];
const WM_PROB_KEYS: &[&str] = &["default_prob", "links"];
const WM_PATH_LOSS_KEYS: &[&str] = &[
    "positions",
    "directions",
    "tx_powers",
    "antenna_gain",
    "isnodeaps",
    "model_name",
    "move_interval",
    "path_loss_exp",
    "xg",
    "sL",
    "nFLOORS",
    "lF",
    "pL",
    "m",
];

pub(super) fn wmediumd(cx: &mut Cx<'_>, root: &Group) -> Result<MediumSpec, ConfigError> {
    for s in root {
        if !matches!(s.name.as_str(), "ifaces" | "model" | "path_loss") {
            cx.warn(s.pos, &s.name, "unknown setting, ignored");
        }
    }
    let ifaces_s = root.get("ifaces").ok_or_else(|| cx.err(Pos::new(1, 1), "ifaces", "missing"))?;
    let ifaces = cx.group(&ifaces_s.value, "ifaces")?;
    for s in ifaces {
        if !WM_IFACES_KEYS.contains(&s.name.as_str()) {
            cx.warn(s.pos, &join("ifaces", &s.name), "unknown setting, ignored");
        }
    }
    let ids = ifaces.get("ids").ok_or_else(|| {
        cx.err(ifaces_s.pos, "ifaces.ids", "missing: the MAC address of every interface")
    })?;
    let mut interfaces = cx.macs(ids, "ifaces.ids")?;
    cx.warn_multicast(&interfaces, "ifaces.ids");
    let n = interfaces.len();
    if let Some(count) = ifaces.get("count") {
        let c = cx.int(&count.value, "ifaces.count")?;
        if c != n as i64 {
            return Err(cx.err(
                count.value.pos,
                "ifaces.count",
                format!("is {c}, but `ids` lists {n} interfaces"),
            ));
        }
        cx.warn(
            count.pos,
            "ifaces.count",
            "recognised but not needed: the number of `ids` is used",
        );
    }
    let interference = match ifaces.get("enable_interference") {
        Some(s) => cx.boolean(&s.value, "ifaces.enable_interference")?,
        None => false,
    };
    let medium_detection = match ifaces.get("enable_medium_detection") {
        Some(s) => Some(cx.boolean(&s.value, "ifaces.enable_medium_detection")?),
        None => None,
    };
    if let Some(s) = ifaces.get("medium_array") {
        let key = "ifaces.medium_array";
        let media = cx.seq(&s.value, key)?;
        let mut seen: Vec<Option<usize>> = vec![None; n];
        for (m, medium) in media.iter().enumerate() {
            let km = index(key, m);
            for (j, v) in cx.seq(medium, &km)?.iter().enumerate() {
                let k = index(&km, j);
                let x = cx.int(v, &k)?;
                let i = usize::try_from(x).ok().filter(|&i| i < n).ok_or_else(|| {
                    cx.err(
                        v.pos,
                        &k,
                        format!("interface index {x} is out of range: there are {n} interfaces"),
                    )
                })?;
                if let Some(prev) = seen[i] {
                    return Err(cx.err(
                        v.pos,
                        &k,
                        format!("interface {i} is already in medium {prev} ({key}[{prev}])"),
                    ));
                }
                seen[i] = Some(m);
                interfaces[i].medium_id = i32::try_from(m + 1).unwrap_or(i32::MAX);
            }
        }
    }

    let mut noise_dbm = DEFAULT_NOISE_DBM;
    let mut fading = 0;
    let model_s = root.get("model");
    let model_g = match model_s {
        Some(s) => Some(cx.group(&s.value, "model")?),
        None => None,
    };
    if let Some(g) = model_g {
        if let Some(s) = g.get("noise_threshold") {
            let v = cx.int32(&s.value, "model.noise_threshold")?;
            if v < 0 {
                noise_dbm = v;
            } else {
                cx.warn(s.value.pos, "model.noise_threshold", format!("{v} is not below 0 and is ignored, as in wmediumd (noise floor {DEFAULT_NOISE_DBM} dBm)"));
            }
        }
        if let Some(s) = g.get("fading_coefficient") {
            fading = cx.fading(s, "model.fading_coefficient")?;
        }
    }

    let model = if let Some(links_s) = ifaces.get("links") {
        let links = cx.links(links_s, "ifaces.links", n, true, |cx, v, k| cx.int32(v, k))?;
        if let Some(g) = model_g {
            for s in g {
                if !matches!(s.name.as_str(), "noise_threshold" | "fading_coefficient") {
                    cx.warn(
                        s.pos,
                        &join("model", &s.name),
                        "ignored: `ifaces.links` is set, and wmediumd then uses those SNR links",
                    );
                }
            }
        }
        if let Some(p) = root.get("path_loss") {
            cx.warn(p.pos, "path_loss", "ignored: `ifaces.links` is set");
        }
        Model::Snr(SnrModel { default_snr: WMEDIUMD_DEFAULT_SNR, links })
    } else if let (Some(g), Some(ms)) = (model_g, model_s) {
        if let Some(p) = root.get("path_loss") {
            cx.warn(p.pos, "path_loss", "ignored: the `model` group is used");
        }
        wmediumd_model(cx, g, ms.pos, n)?
    } else if let Some(p) = root.get("path_loss") {
        legacy_path_loss(cx, p, n)?
    } else {
        Model::Snr(SnrModel { default_snr: WMEDIUMD_DEFAULT_SNR, links: Vec::new() })
    };

    Ok(MediumSpec {
        id: 0,
        pos: ifaces_s.pos,
        interfaces,
        interference,
        noise_dbm,
        fading_coefficient: fading,
        medium_detection,
        model,
    })
}

fn wmediumd_model(cx: &mut Cx<'_>, g: &Group, pos: Pos, n: usize) -> Result<Model, ConfigError> {
    let type_s = g
        .get("type")
        .ok_or_else(|| cx.err(pos, "model.type", "missing: \"snr\", \"prob\" or \"path_loss\""))?;
    let ty = cx.string(&type_s.value, "model.type")?;
    let own: &[&str] = match ty {
        "snr" => WM_SNR_KEYS,
        "prob" => WM_PROB_KEYS,
        "path_loss" => WM_PATH_LOSS_KEYS,
        _ => {
            return Err(cx.err(
                type_s.value.pos,
                "model.type",
                format!("unknown model type {ty:?}: expected \"snr\", \"prob\" or \"path_loss\""),
            ))
        }
    };
    for s in g {
        let name = s.name.as_str();
        let key = join("model", name);
        if WM_COMMON_MODEL_KEYS.contains(&name) || own.contains(&name) {
            continue;
        }
        let owner = if WM_SNR_KEYS.contains(&name) {
            Some("snr")
        } else if WM_PROB_KEYS.contains(&name) {
            Some("prob")
        } else if WM_PATH_LOSS_KEYS.contains(&name) {
            Some("path_loss")
        } else {
            None
        };
        match owner {
            Some(o) => cx.warn(s.pos, &key, format!("ignored: only used with type = \"{o}\"")),
            None => cx.warn(s.pos, &key, "unknown setting, ignored"),
        }
    }
    match ty {
        "snr" => {
            let default_snr = match g.get("default_snr") {
                Some(s) => cx.int32(&s.value, "model.default_snr")?,
                None => WMEDIUMD_DEFAULT_SNR,
            };
            let links = match g.get("links") {
                Some(s) => cx.links(s, "model.links", n, true, |cx, v, k| cx.int32(v, k))?,
                None => Vec::new(),
            };
            Ok(Model::Snr(SnrModel { default_snr, links }))
        }
        "prob" => {
            let default_prob = match g.get("default_prob") {
                Some(s) => cx.probability(&s.value, "model.default_prob")?,
                None => WMEDIUMD_DEFAULT_PROB,
            };
            let links = match g.get("links") {
                Some(s) => cx.links(s, "model.links", n, true, |cx, v, k| cx.probability(v, k))?,
                None => Vec::new(),
            };
            Ok(Model::Prob(ProbModel { default_prob, links }))
        }
        _ => {
            let name_s = g.get("model_name").ok_or_else(|| {
                cx.err(pos, "model.model_name", "missing: path_loss needs a model_name")
            })?;
            let name = cx.string(&name_s.value, "model.model_name")?;
            let (path_loss, nakagami_m) = build_path_loss(
                cx,
                name,
                &name_s.value,
                "model.model_name",
                &Params::Flat(g, "model".into()),
                false,
            )?;
            let pl = stations(cx, g, "model", pos, n, false, path_loss, nakagami_m)?;
            Ok(Model::PathLoss(Box::new(pl)))
        }
    }
}

/// The legacy layout: a top-level `path_loss` group with `model_params = (name, ...)`.
fn legacy_path_loss(cx: &mut Cx<'_>, p: &Setting, n: usize) -> Result<Model, ConfigError> {
    let g = cx.group(&p.value, "path_loss")?;
    for s in g {
        let known = [
            "positions",
            "directions",
            "tx_powers",
            "antenna_gain",
            "isnodeaps",
            "model_params",
            "move_interval",
        ];
        if !known.contains(&s.name.as_str()) {
            cx.warn(s.pos, &join("path_loss", &s.name), "unknown setting, ignored");
        }
    }
    let params_s = g.get("model_params").ok_or_else(|| {
        cx.err(p.pos, "path_loss.model_params", "missing: (model_name, parameters...)")
    })?;
    let key = "path_loss.model_params";
    let items = cx.seq(&params_s.value, key)?;
    let first = items.first().ok_or_else(|| {
        cx.err(params_s.value.pos, key, "empty: expected (model_name, parameters...)")
    })?;
    let name = cx.string(first, &index(key, 0))?;
    let params = Params::Positional(items, key.to_string(), params_s.value.pos);
    let (path_loss, nakagami_m) = build_path_loss(cx, name, first, &index(key, 0), &params, false)?;
    let pl = stations(cx, g, "path_loss", p.pos, n, false, path_loss, nakagami_m)?;
    Ok(Model::PathLoss(Box::new(pl)))
}
