//! Error models: from a signal-to-interference-plus-noise ratio to the probability that
//! a piece of a frame is received correctly.
//!
//! The medium engine cuts every frame into chunks during which the interference is
//! constant and multiplies the chunks' success probabilities
//! ([`ErrorModel::chunk_success`]); a frame's PER at a constant SNR is
//! [`ErrorModel::per`]. The models:
//!
//! | model | OFDM / HT rates | DSSS / CCK rates | custom rates |
//! |---|---|---|---|
//! | [`ErrorModel::Nist`] (the pinned default) | [`nist`]: Pei & Henderson 2010 | [`dsss`] | never fail |
//! | [`ErrorModel::Yans`] | [`yans`]: Lacage & Henderson 2006 | [`dsss`] | never fail |
//! | [`ErrorModel::Table`] | [`table`]: a wmediumd `-x` file | the table if it has the column, else [`dsss`] | never fail |
//! | [`ErrorModel::NoErrors`] | never fail | never fail | never fail |
//!
//! SNR for 10 % PER of a 1500-byte frame (the tests pin these, ±0.15 dB, against the
//! values ns-3.44's models give): NIST 3.96 dB at 6 Mb/s and 22.62 dB at 54 Mb/s;
//! YANS 0.75 and 19.25 dB.
//!
//! All models are pure functions of their inputs: no randomness, no clock. The
//! probabilities are exact for zero bits (1.0), non-increasing in the number of bits,
//! and (for the analytic models) non-decreasing in the SINR; at very high SINR they
//! reach exactly 1.0.

pub mod conv;
pub mod dsss;
pub mod math;
pub mod nist;
pub mod table;
pub mod yans;

pub use table::{PerTable, PerTableError, PerTableErrorKind, PerTableLayout, PerTableWarning};

use crate::rate::{Modulation, Rate};
use std::sync::Arc;

/// How the SINR of a chunk of a frame turns into a probability of success.
#[derive(Clone, Debug, Default)]
pub enum ErrorModel {
    /// The NIST OFDM model ([`nist`]) with the DSSS model ([`dsss`]) for 802.11b rates.
    #[default]
    Nist,
    /// The YANS OFDM model ([`yans`]) with the DSSS model ([`dsss`]) for 802.11b rates.
    Yans,
    /// A signal-to-PER table ([`table`]); rates it has no column for use the NIST/DSSS
    /// formulas.
    Table(Arc<PerTable>),
    /// Every bit is received: only collisions and range lose frames.
    NoErrors,
}

impl ErrorModel {
    /// Probability that `nbits` consecutive data bits sent at `rate` under a constant
    /// linear SINR `sinr` are all correct.
    ///
    /// Exactly 1.0 for `nbits == 0`, for [`Modulation::Ideal`] (custom) rates and for
    /// [`ErrorModel::NoErrors`]; non-increasing in `nbits`; non-decreasing in `sinr`
    /// (for tables: as far as the table's column is). A NaN or negative `sinr` counts as
    /// no signal at all.
    pub fn chunk_success(&self, rate: Rate, sinr: f64, nbits: u64) -> f64 {
        if nbits == 0 || rate.modulation() == Modulation::Ideal {
            return 1.0;
        }
        match self {
            ErrorModel::NoErrors => 1.0,
            ErrorModel::Nist => nist_or_dsss(rate, sinr, nbits),
            ErrorModel::Yans => yans::chunk_success(rate, sinr, nbits)
                .or_else(|| dsss::chunk_success(rate, sinr, nbits))
                .unwrap_or(1.0),
            ErrorModel::Table(t) => t
                .chunk_success(rate, sinr, nbits)
                .unwrap_or_else(|| nist_or_dsss(rate, sinr, nbits)),
        }
    }

    /// Packet error rate of a `len_bytes` frame (its PSDU, from the first MAC header
    /// byte to the FCS) sent at `rate` with a constant SNR of `snr_db` dB:
    /// 1 − chunk_success(rate, 10^(snr_db/10), 8·len_bytes).
    pub fn per(&self, rate: Rate, snr_db: f64, len_bytes: u32) -> f64 {
        let sinr = crate::units::db_to_ratio(snr_db);
        1.0 - self.chunk_success(rate, sinr, 8 * len_bytes as u64)
    }

    /// Short name: `nist`, `yans`, `table` or `none`.
    pub fn name(&self) -> &'static str {
        match self {
            ErrorModel::Nist => "nist",
            ErrorModel::Yans => "yans",
            ErrorModel::Table(_) => "table",
            ErrorModel::NoErrors => "none",
        }
    }
}

fn nist_or_dsss(rate: Rate, sinr: f64, nbits: u64) -> f64 {
    nist::chunk_success(rate, sinr, nbits)
        .or_else(|| dsss::chunk_success(rate, sinr, nbits))
        .unwrap_or(1.0)
}
