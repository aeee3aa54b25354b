//! The wmediumd dialect: `ifaces`, `model` and the legacy `path_loss` group.

use super::dialect_common::{
    interfaces, model_type, prob_model, snr_model, warn_unknown, ModelKeys, ModelType,
};
use super::{
    build_path_loss, index, join, stations, Cx, MediumSpec, Model, Params, SnrModel,
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
const WM_MODEL_KEYS: ModelKeys = ModelKeys {
    common: WM_COMMON_MODEL_KEYS,
    snr: WM_SNR_KEYS,
    prob: WM_PROB_KEYS,
    path_loss: WM_PATH_LOSS_KEYS,
};
const WM_LEGACY_PATH_LOSS_KEYS: &[&str] = &[
    "positions",
    "directions",
    "tx_powers",
    "antenna_gain",
    "isnodeaps",
    "model_params",
    "move_interval",
];

pub(super) fn wmediumd(cx: &mut Cx<'_>, root: &Group) -> Result<MediumSpec, ConfigError> {
    warn_unknown(cx, root, "", &["ifaces", "model", "path_loss"]);
    let ifaces_s = root.get("ifaces").ok_or_else(|| cx.err(Pos::new(1, 1), "ifaces", "missing"))?;
    let ifaces = cx.group(&ifaces_s.value, "ifaces")?;
    warn_unknown(cx, ifaces, "ifaces", WM_IFACES_KEYS);
    let ids = ifaces.get("ids").ok_or_else(|| {
        cx.err(ifaces_s.pos, "ifaces.ids", "missing: the MAC address of every interface")
    })?;
    let mut interfaces = interfaces(cx, ids, "ifaces.ids")?;
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
    match model_type(cx, g, pos, "model", &WM_MODEL_KEYS)? {
        ModelType::Snr => snr_model(cx, g, "model", n, WMEDIUMD_DEFAULT_SNR, true),
        ModelType::Prob => {
            prob_model(cx, g, "model", n, ("default_prob", WMEDIUMD_DEFAULT_PROB), true)
        }
        ModelType::PathLoss => {
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
    warn_unknown(cx, g, "path_loss", WM_LEGACY_PATH_LOSS_KEYS);
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
