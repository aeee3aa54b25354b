//! What the wmediumd and yawmd dialects read alike: a medium's interfaces (`ifaces.ids`
//! in one, `medium[k].interfaces` in the other), settings a group does not know, a
//! model group's `type` and the settings that belong to other types, and the `snr` and
//! `prob` models (a default and `links`).

use super::{join, Cx, Interface, Model, ProbModel, SnrModel};
use crate::libconfig::{Group, Pos, Setting};
use crate::ConfigError;

/// The interfaces of a medium: the MAC addresses of `s` (an array, at `key`); multicast
/// ones are warned about.
pub(super) fn interfaces(
    cx: &mut Cx<'_>,
    s: &Setting,
    key: &str,
) -> Result<Vec<Interface>, ConfigError> {
    let interfaces = cx.macs(s, key)?;
    cx.warn_multicast(&interfaces, key);
    Ok(interfaces)
}

/// Warns about each setting of `g` (at `prefix`; "" at the top) that is not in `known`.
pub(super) fn warn_unknown(cx: &mut Cx<'_>, g: &Group, prefix: &str, known: &[&str]) {
    for s in g {
        if !known.contains(&s.name.as_str()) {
            cx.warn(s.pos, &join(prefix, &s.name), "unknown setting, ignored");
        }
    }
}

/// A model group's `type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ModelType {
    /// `"snr"`: an SNR per link.
    Snr,
    /// `"prob"`: an error probability per link.
    Prob,
    /// `"path_loss"`: positions and a propagation model.
    PathLoss,
}

/// The settings a dialect's model group reads, by type.
pub(super) struct ModelKeys {
    /// Read whatever the type (`type` among them).
    pub common: &'static [&'static str],
    /// Read with `type = "snr"`.
    pub snr: &'static [&'static str],
    /// Read with `type = "prob"`.
    pub prob: &'static [&'static str],
    /// Read with `type = "path_loss"`.
    pub path_loss: &'static [&'static str],
}

impl ModelKeys {
    fn of(&self, ty: ModelType) -> &'static [&'static str] {
        match ty {
            ModelType::Snr => self.snr,
            ModelType::Prob => self.prob,
            ModelType::PathLoss => self.path_loss,
        }
    }
}

/// The `type` of model group `g` (at `prefix`; a missing one is an error at `pos`);
/// settings that only another type reads, and unknown ones, are warned about.
pub(super) fn model_type(
    cx: &mut Cx<'_>,
    g: &Group,
    pos: Pos,
    prefix: &str,
    keys: &ModelKeys,
) -> Result<ModelType, ConfigError> {
    let tkey = join(prefix, "type");
    let type_s = g
        .get("type")
        .ok_or_else(|| cx.err(pos, &tkey, "missing: \"snr\", \"prob\" or \"path_loss\""))?;
    let name = cx.string(&type_s.value, &tkey)?;
    let ty = match name {
        "snr" => ModelType::Snr,
        "prob" => ModelType::Prob,
        "path_loss" => ModelType::PathLoss,
        _ => {
            return Err(cx.err(
                type_s.value.pos,
                &tkey,
                format!("unknown model type {name:?}: expected \"snr\", \"prob\" or \"path_loss\""),
            ))
        }
    };
    for s in g {
        let name = s.name.as_str();
        if keys.common.contains(&name) || keys.of(ty).contains(&name) {
            continue;
        }
        let key = join(prefix, name);
        let owner = [
            ("snr", ModelType::Snr),
            ("prob", ModelType::Prob),
            ("path_loss", ModelType::PathLoss),
        ]
        .into_iter()
        .find(|&(_, t)| keys.of(t).contains(&name));
        match owner {
            Some((o, _)) => cx.warn(s.pos, &key, format!("ignored: only used with type = \"{o}\"")),
            None => cx.warn(s.pos, &key, "unknown setting, ignored"),
        }
    }
    Ok(ty)
}

/// The `snr` model of group `g` (at `prefix`): `default_snr` (else `default`) and
/// `links` among `n` interfaces, each link mirrored when `mirror`.
pub(super) fn snr_model(
    cx: &mut Cx<'_>,
    g: &Group,
    prefix: &str,
    n: usize,
    default: i32,
    mirror: bool,
) -> Result<Model, ConfigError> {
    let default_snr = match g.get("default_snr") {
        Some(s) => cx.int32(&s.value, &join(prefix, "default_snr"))?,
        None => default,
    };
    let links = match g.get("links") {
        Some(s) => cx.links(s, &join(prefix, "links"), n, mirror, |cx, v, k| cx.int32(v, k))?,
        None => Vec::new(),
    };
    Ok(Model::Snr(SnrModel { default_snr, links }))
}

/// The `prob` model of group `g` (at `prefix`): the setting `default_key` (else
/// `default`) and `links` among `n` interfaces, each link mirrored when `mirror`.
pub(super) fn prob_model(
    cx: &mut Cx<'_>,
    g: &Group,
    prefix: &str,
    n: usize,
    (default_key, default): (&str, f64),
    mirror: bool,
) -> Result<Model, ConfigError> {
    let default_prob = match g.get(default_key) {
        Some(s) => cx.probability(&s.value, &join(prefix, default_key))?,
        None => default,
    };
    let links = match g.get("links") {
        Some(s) => {
            cx.links(s, &join(prefix, "links"), n, mirror, |cx, v, k| cx.probability(v, k))?
        }
        None => Vec::new(),
    };
    Ok(Model::Prob(ProbModel { default_prob, links }))
}
