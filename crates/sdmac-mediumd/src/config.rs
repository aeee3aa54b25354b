//! From a wmediumd / yawmd configuration to the daemon's medium set-up.

use crate::hwsim_medium::{LinkModel, Setup};
use sdmac_wmconfig::wmediumd::{Config, Model};

/// The set-up a configuration describes, and notes on what it leaves out (printed as
/// warnings by the daemon).
pub fn setup_from(cfg: &Config, seed: u64) -> (Setup, Vec<String>) {
    let mut notes: Vec<String> = cfg.warnings.clone();
    let Some(m) = cfg.media.first() else {
        return (Setup { seed, ..Setup::default() }, notes);
    };
    if cfg.media.len() > 1 {
        notes.push(format!(
            "{}: {} media configured; this version puts every configured interface on the first one's model (media here follow the channel)",
            cfg.file,
            cfg.media.len()
        ));
    }
    let macs: Vec<[u8; 6]> = m.interfaces.iter().map(|i| i.mac.0).collect();
    let model = match &m.model {
        Model::Snr(s) => LinkModel::Snr {
            default_snr_db: s.default_snr as f64,
            links: s.links.iter().filter(|l| l.from < macs.len() && l.to < macs.len()).map(|l| (macs[l.from], macs[l.to], l.value as f64)).collect(),
        },
        Model::Prob(p) => LinkModel::Prob {
            default_prob: p.default_prob,
            links: p.links.iter().filter(|l| l.from < macs.len() && l.to < macs.len()).map(|l| (macs[l.from], macs[l.to], l.value)).collect(),
        },
        Model::PathLoss(p) => {
            if p.directions.is_some() {
                notes.push(format!("{}: directions (movement) are not applied yet; stations stay where they are", cfg.file));
            }
            LinkModel::PathLoss {
                model: p.path_loss.clone(),
                positions: macs.iter().copied().zip(p.positions.iter().copied()).collect(),
                tx_power_dbm: macs.iter().copied().zip(p.tx_powers_dbm.iter().copied()).collect(),
            }
        }
    };
    if m.fading_coefficient > 0 {
        notes.push(format!("{}: fading_coefficient {} is not modelled (no fading)", cfg.file, m.fading_coefficient));
    }
    (Setup { interfaces: macs, model, noise_floor_dbm: m.noise_dbm as f64, seed, ..Setup::default() }, notes)
}
