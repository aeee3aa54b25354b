//! Reception: whether a frame survives, decided when it ends, from its SINR over its
//! whole duration. Every transmission that overlapped it at the receiver counts as
//! interference; the frame is cut into pieces of constant interference and the error
//! model gives the probability that each piece's bits are all correct. With fading on
//! (see `fading`), the signal is the link's mean power scaled by a fresh draw.

use crate::config::StationId;
use crate::medium::Medium;
use crate::memo::{Memo, Question};
use crate::report::Cause;
use crate::time::Time;
use sdmac_phy::error_model::ErrorModel;
use sdmac_phy::Rate;

/// Interference weaker than this fraction of the noise does not make a failure count
/// as a collision.
const COLLISION_FRACTION_OF_NOISE: f64 = 0.1;

impl Medium {
    /// Decides the reception of transmission `slot` (sent by `src`) by the receiver of
    /// link `li` of `src`; `clean_tag` is the frame's tag from `LinkTable::clean_tag`. Draws random numbers only for probabilities strictly
    /// between 0 and 1, and one fading draw (from the fading stream) when fading is on
    /// and the reception gets that far; `links.last_fade_db` tells the draw (0 if none).
    pub(crate) fn decide_reception(
        &mut self,
        slot: u32,
        src: StationId,
        li: usize,
        clean_tag: u8,
    ) -> (bool, Cause) {
        let tx = self.air.txs[slot as usize];
        let link = self.links.of(src)[li];
        let j = link.rx;
        self.links.last_fade_db = 0.0;
        let error_prob = self.links.error_prob(src, &link);
        if error_prob > 0.0 && (error_prob >= 1.0 || self.mac_rng.unit() < error_prob) {
            return (false, Cause::LinkErrorProb);
        }
        // Interferers at j during [start, end).
        let mut pieces = std::mem::take(&mut self.scratch);
        pieces.clear();
        let mut interfered = false;
        for &o in &self.air.on_air {
            if o == slot {
                continue;
            }
            let y = &self.air.txs[o as usize];
            if y.start >= tx.end || y.end <= tx.start {
                continue;
            }
            if y.src == j {
                self.scratch = pieces;
                return (false, Cause::HalfDuplex);
            }
            let p = self.links.power_mw(y.src, j);
            if p > 0.0 {
                pieces.push((y.start.max(tx.start), y.end.min(tx.end), p));
            }
        }
        let noise = self.stations[j as usize].noise_mw;
        let faded = self.links.fading.is_some();
        let signal_mw = if faded {
            link.power_mw * 10f64.powf(self.links.draw_fade_db() / 10.0)
        } else {
            link.power_mw
        };
        let model = &self.cfg.error_model;
        let memo = &mut self.memo;
        let p_success = if pieces.is_empty() && !faded {
            // The link keeps the answer to the last clean question it was asked; its
            // power and its receiver's noise are the link's, the rest is the tag.
            let tag = clean_tag;
            let key = [tx.len as u64, link.power_mw.to_bits(), noise.to_bits()];
            let known = if tag != 0 && link.clean == tag {
                Some(link.clean_p)
            } else {
                memo.get(Question::Clean, tx.rate, key)
            };
            let p = match known {
                Some(p) => p,
                None => {
                    let (rate, power) = (tx.rate, link.power_mw);
                    let p = success_probability(
                        model,
                        rate,
                        power,
                        noise,
                        &[],
                        tx.start,
                        tx.end,
                        tx.len,
                        memo,
                    );
                    memo.put(Question::Clean, rate, key, p);
                    p
                }
            };
            if tag != 0 && link.clean != tag {
                self.links.keep_clean(src, li, tag, p);
            }
            p
        } else {
            interfered = pieces.iter().any(|p| p.2 > COLLISION_FRACTION_OF_NOISE * noise);
            success_probability(
                model, tx.rate, signal_mw, noise, &pieces, tx.start, tx.end, tx.len, memo,
            )
        };
        self.scratch = pieces;
        let ok = p_success >= 1.0 || (p_success > 0.0 && self.mac_rng.unit() < p_success);
        let cause = match (ok, interfered) {
            (true, _) => Cause::None,
            (false, true) => Cause::Collision,
            (false, false) => Cause::LowSinr,
        };
        (ok, cause)
    }
}

/// Probability that a frame of `len` bytes at `rate`, received at `signal_mw` over
/// `noise_mw`, survives the interference `pieces` (start, end, power) during
/// [start, end). Chunk results come from `memo` when it holds them.
#[allow(clippy::too_many_arguments)]
pub(crate) fn success_probability(
    model: &ErrorModel,
    rate: Rate,
    signal_mw: f64,
    noise_mw: f64,
    pieces: &[(Time, Time, f64)],
    start: Time,
    end: Time,
    len: u32,
    memo: &mut Memo,
) -> f64 {
    let total_bits = 8 * len as u64;
    if let ErrorModel::Table(table) = model {
        // A PER table is indexed by received signal: count interference as lowering the
        // signal by the worst SINR degradation over the frame. A rate the table has no
        // column for falls through to the chunk model below (NIST, as `ErrorModel` does).
        if let Some(column) = table.column_for(rate) {
            let mut worst = 0.0f64;
            for_each_piece(pieces, start, end, &mut memo.points, |_, i| worst = worst.max(i));
            let eff_dbm =
                sdmac_phy::units::mw_to_dbm(signal_mw) - 10.0 * (1.0 + worst / noise_mw).log10();
            return 1.0 - table.per_at(eff_dbm, column);
        }
    }
    let duration = (end - start).max(1) as f64;
    let mut p = 1.0;
    let mut points = std::mem::take(&mut memo.points);
    for_each_piece(pieces, start, end, &mut points, |span, interference| {
        let bits = (total_bits as f64 * span as f64 / duration).round() as u64;
        let sinr = signal_mw / (noise_mw + interference);
        p *= memo.get_or(Question::Chunk, rate, [sinr.to_bits(), bits, 0], || {
            model.chunk_success(rate, sinr, bits)
        });
    });
    memo.points = points;
    p
}

/// Calls `f(duration, interference power)` for each piece of [start, end) with
/// constant interference; `points` is scratch.
fn for_each_piece(
    pieces: &[(Time, Time, f64)],
    start: Time,
    end: Time,
    points: &mut Vec<Time>,
    mut f: impl FnMut(Time, f64),
) {
    if pieces.is_empty() {
        f(end - start, 0.0);
        return;
    }
    points.clear();
    points.push(start);
    points.push(end);
    for &(a, b, _) in pieces {
        points.push(a.clamp(start, end));
        points.push(b.clamp(start, end));
    }
    points.sort_unstable();
    points.dedup();
    for w in points.windows(2) {
        let (a, b) = (w[0], w[1]);
        if b <= a {
            continue;
        }
        let i: f64 = pieces.iter().filter(|p| p.0 <= a && p.1 >= b).map(|p| p.2).sum();
        f(b - a, i);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_cover_the_frame_with_the_right_interference() {
        let mut seen = Vec::new();
        for_each_piece(&[(10, 30, 1.0), (20, 50, 2.0)], 0, 40, &mut Vec::new(), |d, i| {
            seen.push((d, i))
        });
        assert_eq!(seen, vec![(10, 0.0), (10, 1.0), (10, 3.0), (10, 2.0)]);
    }

    #[test]
    fn a_per_table_is_read_in_the_column_of_the_rate() {
        // Columns: 1, 2, 5.5, 11, 6, 9, 12, 18, 24, 36, 48, 54 Mb/s, each a distinct PER.
        let row = |sig: i32| {
            format!("{sig} 0.01 0.02 0.03 0.04 0.05 0.06 0.07 0.08 0.09 0.10 0.11 0.12\n")
        };
        let table = sdmac_phy::PerTable::parse(&(row(-80) + &row(-79)), "t").unwrap();
        let model = ErrorModel::Table(std::sync::Arc::new(table));
        let signal = sdmac_phy::units::dbm_to_mw(-80.0);
        let p = |rate| {
            success_probability(
                &model,
                rate,
                signal,
                1e-12,
                &[],
                0,
                1000,
                100,
                &mut Memo::default(),
            )
        };
        assert!((p(Rate::Ofdm54) - 0.88).abs() < 1e-12);
        assert!((p(Rate::Dsss2) - 0.98).abs() < 1e-12);
        // HT MCS 7 is read as its non-HT reference rate (54 Mb/s), not as column 7.
        assert!((p(Rate::Ht { mcs: 7, bw40: false, sgi: false }) - 0.88).abs() < 1e-12);
    }

    #[test]
    fn clean_frame_is_one_piece() {
        let mut seen = Vec::new();
        for_each_piece(&[], 5, 45, &mut Vec::new(), |d, i| seen.push((d, i)));
        assert_eq!(seen, vec![(40, 0.0)]);
    }
}
