//! What each control request does to the medium, and the result it answers.

use crate::control::{Request, UpdateResult};
use crate::hwsim_medium::HwsimMedium;

/// The effect of one request.
#[derive(Clone, Debug, PartialEq)]
pub struct Applied {
    /// The result byte of the reply.
    pub result: UpdateResult,
    /// For `add`: the station's id (also for a duplicate: the existing id).
    pub id: i32,
    /// The daemon should stop.
    pub stop: bool,
    /// A note for the log (a request accepted but without effect on this medium).
    pub note: Option<&'static str>,
}

fn done(result: UpdateResult) -> Applied {
    Applied { result, id: 0, stop: false, note: None }
}

/// Applies a request to the medium.
pub fn apply(m: &mut HwsimMedium, r: &Request) -> Applied {
    use UpdateResult::*;
    let pair = |m: &HwsimMedium, a, b| Some((m.station_id(a)?, m.station_id(b)?));
    match r {
        Request::Shutdown => Applied { result: Success, id: 0, stop: true, note: None },
        Request::Snr { from, to, snr_db } => match pair(m, *from, *to) {
            // With positions, links follow the propagation model.
            Some((a, _)) if m.is_path_loss_at(a) => done(WrongMode),
            Some((a, b)) => {
                m.set_snr(a, b, *snr_db as f64);
                done(Success)
            }
            None => done(NotFound),
        },
        Request::ErrProb { from, to, prob } => match pair(m, *from, *to) {
            Some((a, b)) => {
                m.set_error_prob(a, b, *prob);
                done(Success)
            }
            None => done(NotFound),
        },
        Request::SpecProb { from, to, probs } => match pair(m, *from, *to) {
            Some((a, b)) => {
                // One probability per link here: the mean over sizes and rates.
                let mean = probs.iter().sum::<f64>() / probs.len() as f64;
                m.set_error_prob(a, b, mean);
                Applied {
                    note: Some("specific probabilities: the mean over sizes and rates is used"),
                    ..done(Success)
                }
            }
            None => done(NotFound),
        },
        Request::DelByMac(mac) => match m.station_id(*mac) {
            Some(id) if m.delete_station(id) => done(Success),
            _ => done(NotFound),
        },
        Request::DelById(id) => {
            if *id >= 0 && m.delete_station(*id as usize) {
                done(Success)
            } else {
                done(NotFound)
            }
        }
        Request::Add(mac) => match m.add_station(*mac) {
            Some(id) => Applied { id: id as i32, ..done(Success) },
            None => Applied { id: m.station_id(*mac).map_or(-1, |i| i as i32), ..done(Duplicate) },
        },
        Request::Position { mac, x, y, z } => match m.station_id(*mac) {
            None => done(NotFound),
            Some(id) if !m.is_path_loss_at(id) => done(WrongMode),
            Some(id) => {
                m.set_position(id, [*x as f64, *y as f64, *z as f64]);
                done(Success)
            }
        },
        Request::TxPower { mac, dbm } => match m.station_id(*mac) {
            None => done(NotFound),
            Some(id) if !m.is_path_loss_at(id) => done(WrongMode),
            Some(id) => {
                m.set_tx_power(id, *dbm as f64);
                done(Success)
            }
        },
        Request::Gain { mac, dbi } => match m.station_id(*mac) {
            None => done(NotFound),
            Some(id) if !m.is_path_loss_at(id) => done(WrongMode),
            Some(id) => {
                m.set_antenna_gain(id, *dbi as f64);
                done(Success)
            }
        },
        Request::Height { mac, m: h } => match m.station_id(*mac) {
            None => done(NotFound),
            Some(id) if !m.is_path_loss_at(id) => done(WrongMode),
            Some(id) => {
                // The antenna height is the station's z coordinate.
                let p = m.position(id).unwrap_or([0.0; 3]);
                m.set_position(id, [p[0], p[1], *h as f64]);
                done(Success)
            }
        },
        // The station's shadowing term, as the fork uses it: added to the signal of its
        // frames in the log-normal shadowing model, kept without effect in the others.
        Request::GaussianRandom { mac, value } => match m.station_id(*mac) {
            None => done(NotFound),
            Some(id) if m.set_gaussian_random(id, *value as f64) => done(Success),
            Some(_) => Applied {
                note: Some(
                    "Gaussian random term: kept; it applies only in the log-normal shadowing model",
                ),
                ..done(Success)
            },
        },
        Request::Medium { mac, id } => match m.station_id(*mac) {
            Some(s) if m.set_medium(s, *id) => done(Success),
            _ => done(NotFound),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hwsim_medium::{LinkModel, Mac, Setup};

    const A: Mac = Mac::new([2, 0, 0, 0, 0, 0]);
    const B: Mac = Mac::new([2, 0, 0, 0, 1, 0]);

    #[test]
    fn add_delete_and_not_found() {
        let mut m = HwsimMedium::new(Setup::default());
        let a = apply(&mut m, &Request::Add(A));
        assert_eq!((a.result, a.id), (UpdateResult::Success, 0));
        let b = apply(&mut m, &Request::Add(B));
        assert_eq!((b.result, b.id), (UpdateResult::Success, 1));
        assert_eq!(apply(&mut m, &Request::Add(A)).result, UpdateResult::Duplicate);
        assert_eq!(
            apply(&mut m, &Request::Snr { from: A, to: B, snr_db: 10 }).result,
            UpdateResult::Success
        );
        assert_eq!(apply(&mut m, &Request::DelById(1)).result, UpdateResult::Success);
        assert_eq!(apply(&mut m, &Request::DelById(1)).result, UpdateResult::NotFound);
        assert_eq!(apply(&mut m, &Request::DelById(-3)).result, UpdateResult::NotFound);
        assert_eq!(
            apply(&mut m, &Request::Snr { from: A, to: B, snr_db: 10 }).result,
            UpdateResult::NotFound
        );
        assert_eq!(apply(&mut m, &Request::DelByMac(A)).result, UpdateResult::Success);
        // Re-adding a deleted station works and keeps its id.
        assert_eq!(apply(&mut m, &Request::Add(B)).id, 1);
    }

    #[test]
    fn positions_need_the_path_loss_model() {
        let mut m = HwsimMedium::new(Setup::default());
        apply(&mut m, &Request::Add(A));
        let pos = Request::Position { mac: A, x: 1.0, y: 2.0, z: 0.0 };
        assert_eq!(apply(&mut m, &pos).result, UpdateResult::WrongMode);
        let setup = Setup {
            model: LinkModel::PathLoss {
                model: sdmac_phy::propagation::PathLoss::FreeSpace { sl_db: 0.0 },
                positions: vec![],
                tx_power_dbm: vec![],
            },
            ..Setup::default()
        };
        let mut m = HwsimMedium::new(setup);
        apply(&mut m, &Request::Add(A));
        assert_eq!(apply(&mut m, &pos).result, UpdateResult::Success);
        assert_eq!(m.position(0), Some([1.0, 2.0, 0.0]));
        assert_eq!(apply(&mut m, &Request::Height { mac: A, m: 3 }).result, UpdateResult::Success);
        assert_eq!(m.position(0), Some([1.0, 2.0, 3.0]));
        assert_eq!(
            apply(&mut m, &Request::TxPower { mac: B, dbm: 3 }).result,
            UpdateResult::NotFound
        );
        assert_eq!(apply(&mut m, &Request::Add(B)).result, UpdateResult::Success);
        assert_eq!(
            apply(&mut m, &Request::Snr { from: A, to: B, snr_db: 5 }).result,
            UpdateResult::WrongMode
        );
        assert!(apply(&mut m, &Request::Shutdown).stop);
    }

    #[test]
    fn medium_id_moves_the_station() {
        let mut m = HwsimMedium::new(Setup::default());
        assert_eq!(
            apply(&mut m, &Request::Medium { mac: A, id: 2 }).result,
            UpdateResult::NotFound
        );
        apply(&mut m, &Request::Add(A));
        assert_eq!(m.medium_of(0), Some(0));
        let a = apply(&mut m, &Request::Medium { mac: A, id: 2 });
        assert_eq!((a.result, a.note), (UpdateResult::Success, None));
        assert_eq!(m.medium_of(0), Some(2));
        assert_eq!(m.media(), vec![0, 2]);
    }

    #[test]
    fn gaussian_random_applies_in_log_normal_shadowing_only() {
        let mut m = HwsimMedium::new(Setup::default());
        assert_eq!(
            apply(&mut m, &Request::GaussianRandom { mac: A, value: 2.0 }).result,
            UpdateResult::NotFound
        );
        apply(&mut m, &Request::Add(A));
        let a = apply(&mut m, &Request::GaussianRandom { mac: A, value: 2.0 });
        assert_eq!(a.result, UpdateResult::Success);
        assert!(a.note.is_some(), "no effect in the snr model, and it says so");
        let lns = sdmac_phy::propagation::PathLoss::LogNormalShadowing {
            exponent: 3.0,
            ref_distance_m: 1.0,
            sigma_db: 1.0,
            sl_db: 0.0,
        };
        let mut m = HwsimMedium::new(Setup {
            model: LinkModel::PathLoss { model: lns, positions: vec![], tx_power_dbm: vec![] },
            ..Setup::default()
        });
        apply(&mut m, &Request::Add(A));
        assert_eq!(
            apply(&mut m, &Request::GaussianRandom { mac: A, value: 2.0 }),
            done(UpdateResult::Success)
        );
    }
}
