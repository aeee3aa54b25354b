//! The yawmd dialect: a list of `medium` groups, each with its own model.

use super::dialect_common::{
    interfaces, model_type, prob_model, snr_model, warn_unknown, ModelKeys, ModelType,
};
use super::{
    build_path_loss, index, join, stations, Cx, MacAddress, MediumSpec, Model, Params, SnrModel,
    DEFAULT_NOISE_DBM, YAWMD_DEFAULT_PROB, YAWMD_DEFAULT_SNR,
};
use crate::libconfig::{Group, Pos, ValueKind};
use crate::ConfigError;
use std::collections::HashMap;

const YA_MEDIUM_KEYS: &[&str] = &["id", "interfaces", "model"];
const YA_SNR_KEYS: &[&str] = &["default_snr", "links"];
const YA_PROB_KEYS: &[&str] = &["default_probability", "links"];
const YA_PATH_LOSS_KEYS: &[&str] = &[
    "simulate_interference",
    "noise_level",
    "fading_coefficient",
    "positions",
    "move_interval",
    "directions",
    "tx_powers",
    "antenna_gain",
    "isnodeaps",
    "model_name",
    "model_params",
];
const YA_MODEL_KEYS: ModelKeys = ModelKeys {
    common: &["type"],
    snr: YA_SNR_KEYS,
    prob: YA_PROB_KEYS,
    path_loss: YA_PATH_LOSS_KEYS,
};

pub(super) fn yawmd(cx: &mut Cx<'_>, root: &Group) -> Result<Vec<MediumSpec>, ConfigError> {
    warn_unknown(cx, root, "", &["medium"]);
    let Some(medium_s) = root.get("medium") else {
        return Err(cx.err(Pos::new(1, 1), "medium", "missing"));
    };
    let ValueKind::List(items) = &medium_s.value.kind else {
        return Err(cx.wrong_type(&medium_s.value, "medium", "a list ( { ... }, ... )"));
    };
    if items.is_empty() {
        return Err(cx.err(
            medium_s.value.pos,
            "medium",
            "is empty: at least one medium { id; interfaces; model } is needed",
        ));
    }
    let mut media: Vec<MediumSpec> = Vec::with_capacity(items.len());
    let mut ids: HashMap<i32, usize> = HashMap::new();
    let mut macs: HashMap<MacAddress, (usize, usize)> = HashMap::new();
    for (m, item) in items.iter().enumerate() {
        let prefix = index("medium", m);
        let g = cx.group(item, &prefix)?;
        let spec = yawmd_medium(cx, g, item.pos, &prefix)?;
        if let Some(other) = ids.insert(spec.id, m) {
            let id_pos = g.get("id").map_or(item.pos, |s| s.value.pos);
            return Err(cx.err(
                id_pos,
                &join(&prefix, "id"),
                format!("medium id {} is used twice (also medium[{other}])", spec.id),
            ));
        }
        for (i, iface) in spec.interfaces.iter().enumerate() {
            // Within a medium repeats were refused already; here, across media.
            if let Some((o, j)) = macs.insert(iface.mac, (m, i)) {
                return Err(cx.err(
                    iface.pos,
                    &index(&join(&prefix, "interfaces"), i),
                    format!("MAC address {} is already in medium[{o}].interfaces[{j}]", iface.mac),
                ));
            }
        }
        media.push(spec);
    }
    Ok(media)
}

fn yawmd_medium(
    cx: &mut Cx<'_>,
    g: &Group,
    pos: Pos,
    prefix: &str,
) -> Result<MediumSpec, ConfigError> {
    warn_unknown(cx, g, prefix, YA_MEDIUM_KEYS);
    let need = |cx: &Cx<'_>, name: &str, what: &str| {
        g.get(name).ok_or_else(|| {
            cx.err(pos, &join(prefix, name), format!("missing: every medium needs {what}"))
        })
    };
    let id_s = need(cx, "id", "an integer `id`")?;
    let id = cx.int32(&id_s.value, &join(prefix, "id"))?;
    let ifaces_s = need(cx, "interfaces", "`interfaces`, an array of MAC addresses")?;
    let ikey = join(prefix, "interfaces");
    let interfaces = interfaces(cx, ifaces_s, &ikey)?;
    let n = interfaces.len();
    let model_s = need(cx, "model", "a `model` group")?;
    let mprefix = join(prefix, "model");
    let mg = cx.group(&model_s.value, &mprefix)?;
    let ty = model_type(cx, mg, model_s.value.pos, &mprefix, &YA_MODEL_KEYS)?;
    let mut spec = MediumSpec {
        id,
        pos,
        interfaces,
        interference: false,
        noise_dbm: DEFAULT_NOISE_DBM,
        fading_coefficient: 0,
        medium_detection: None,
        model: Model::Snr(SnrModel { default_snr: YAWMD_DEFAULT_SNR, links: Vec::new() }),
    };
    spec.model = match ty {
        ModelType::Snr => snr_model(cx, mg, &mprefix, n, YAWMD_DEFAULT_SNR, false)?,
        ModelType::Prob => {
            prob_model(cx, mg, &mprefix, n, ("default_probability", YAWMD_DEFAULT_PROB), false)?
        }
        ModelType::PathLoss => {
            if let Some(s) = mg.get("simulate_interference") {
                spec.interference =
                    cx.boolean(&s.value, &join(&mprefix, "simulate_interference"))?;
            }
            if let Some(s) = mg.get("noise_level") {
                spec.noise_dbm = cx.int32(&s.value, &join(&mprefix, "noise_level"))?;
            }
            if let Some(s) = mg.get("fading_coefficient") {
                spec.fading_coefficient = cx.fading(s, &join(&mprefix, "fading_coefficient"))?;
            }
            let name_key = join(&mprefix, "model_name");
            let name_s = mg.get("model_name").ok_or_else(|| {
                cx.err(model_s.value.pos, &name_key, "missing: path_loss needs a model_name")
            })?;
            let name = cx.string(&name_s.value, &name_key)?;
            let pkey = join(&mprefix, "model_params");
            let params_s = mg.get("model_params").ok_or_else(|| {
                cx.err(model_s.value.pos, &pkey, "missing: path_loss needs a model_params group")
            })?;
            let pg = cx.group(&params_s.value, &pkey)?;
            let (path_loss, nakagami_m) = build_path_loss(
                cx,
                name,
                &name_s.value,
                &name_key,
                &Params::Group(pg, pkey.clone()),
                true,
            )?;
            Model::PathLoss(Box::new(stations(
                cx,
                mg,
                &mprefix,
                model_s.value.pos,
                n,
                true,
                path_loss,
                nakagami_m,
            )?))
        }
    };
    Ok(spec)
}
