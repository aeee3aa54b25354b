//! From a wmediumd / yawmd configuration to the daemon's medium set-up.
//!
//! Media: yawmd's `medium` list gives one medium per element, with its id; the first
//! one is where radios the file does not list go. A wmediumd file has one model; the
//! Mininet-WiFi fork's `ifaces.medium_array` splits its interfaces into media 1, 2, …
//! and leaves the others in medium 0, which comes first (unlisted radios join it);
//! every one of those media has the file's model. Movement (`directions`, every
//! `move_interval`) and fading (`fading_coefficient`, as the standard deviation in dB
//! of a per-reception Gaussian term) belong to each medium.

use crate::hwsim_medium::{LinkModel, Mac, Setup};
use crate::media::MediumSetup;
use crate::movement::Movement;
use sdmac_wmconfig::wmediumd::{Config, Dialect, MediumSpec, Model};

/// The set-up a configuration describes, and notes on what it leaves out (printed as
/// warnings by the daemon).
pub fn setup_from(cfg: &Config, seed: u64) -> (Setup, Vec<String>) {
    let notes: Vec<String> = cfg.warnings.clone();
    let mut media: Vec<MediumSetup> = Vec::new();
    for spec in &cfg.media {
        match cfg.dialect {
            Dialect::Wmediumd => media.extend(split_by_medium_id(spec, medium_of(spec))),
            Dialect::Yawmd => media.push(medium_of(spec)),
        }
    }
    let mut setup = Setup { seed, ..Setup::default() };
    let mut media = media.into_iter();
    if let Some(first) = media.next() {
        setup.set_first_medium(first);
    }
    setup.more_media = media.collect();
    (setup, notes)
}

/// One configured medium as the daemon models it.
fn medium_of(spec: &MediumSpec) -> MediumSetup {
    let macs: Vec<Mac> = spec.interfaces.iter().map(|i| i.mac).collect();
    let pair = |from: usize, to: usize| {
        (from < macs.len() && to < macs.len()).then(|| (macs[from], macs[to]))
    };
    let (model, movement) = match &spec.model {
        Model::Snr(s) => {
            let links = s
                .links
                .iter()
                .filter_map(|l| pair(l.from, l.to).map(|(a, b)| (a, b, l.value as f64)))
                .collect();
            (LinkModel::Snr { default_snr_db: s.default_snr as f64, links }, None)
        }
        Model::Prob(p) => {
            let links = p
                .links
                .iter()
                .filter_map(|l| pair(l.from, l.to).map(|(a, b)| (a, b, l.value)))
                .collect();
            (LinkModel::Prob { default_prob: p.default_prob, links }, None)
        }
        Model::PathLoss(p) => {
            let model = LinkModel::PathLoss {
                model: p.path_loss.clone(),
                positions: macs.iter().copied().zip(p.positions.iter().copied()).collect(),
                tx_power_dbm: macs.iter().copied().zip(p.tx_powers_dbm.iter().copied()).collect(),
            };
            let movement = p.directions.as_ref().map(|d| Movement {
                interval_ns: (p.move_interval_s * 1e9).round() as u64,
                directions: macs.iter().copied().zip(d.iter().copied()).collect(),
            });
            (model, movement)
        }
    };
    MediumSetup {
        id: spec.id,
        interfaces: macs,
        model,
        noise_floor_dbm: spec.noise_dbm as f64,
        fading_db: spec.fading_coefficient as f64,
        movement,
    }
}

/// The fork's media of one wmediumd file: its interfaces grouped by `medium_id`,
/// medium 0 first (even with no interface: radios the file does not list join it),
/// then the others in increasing id; each with the file's model.
fn split_by_medium_id(spec: &MediumSpec, all: MediumSetup) -> Vec<MediumSetup> {
    let mut ids: Vec<i32> =
        spec.interfaces.iter().map(|i| i.medium_id).filter(|&id| id != 0).collect();
    ids.sort_unstable();
    ids.dedup();
    std::iter::once(0)
        .chain(ids)
        .map(|id| MediumSetup {
            interfaces: spec
                .interfaces
                .iter()
                .filter(|i| i.medium_id == id)
                .map(|i| i.mac)
                .collect(),
            ..MediumSetup::like(&all, id)
        })
        .collect()
}
