//! Distance spectra of the 802.11 convolutional code, for union bounds.
//!
//! The 802.11 OFDM/HT binary convolutional code (IEEE 802.11-2016 §17.3.5.6) is the
//! K = 7 rate-1/2 code with generators g₀ = 133₈, g₁ = 171₈; rates 2/3, 3/4 and 5/6 are
//! obtained by puncturing it with the patterns of §17.3.5.6 / §19.3.11.6 (A/B rows:
//! 2/3 = `11/10`, 3/4 = `110/101`, 5/6 = `11010/10101`).
//!
//! For each code the tables give, for the distances d = d_free, d_free + 1, …:
//! - `a[i]`: the number of error events (paths leaving the all-zero path and merging
//!   back) of output weight d, summed over the puncturing phases, and
//! - `c[i]`: the total information weight (number of wrong information bits) of those
//!   events — the "information-weight spectrum".
//!
//! A Viterbi decoder's bit error probability is then bounded by
//! P_b ≤ (1/k)·Σ_d c_d·P_d (k = information bits per puncturing period) and its first
//! event error probability by P_u ≤ Σ_d a_d·P_d, where P_d is the probability of
//! choosing a wrong path at distance d (see `nist` and `yans`).
//!
//! The values were computed for this crate by an exhaustive trellis search over the
//! 802.11 puncturing patterns (the test `distance_spectra_match_trellis_search` in
//! `tests/error_model.rs` repeats that search, so the tables cannot drift). They are
//! the well-known spectra of this code: the rate-1/2 values are the classic published
//! ones (e.g. Conan, IEEE Trans. Commun. 32(9), 1984), and the leading terms of the
//! punctured codes agree with the published tables of punctured K = 7 codes
//! (Haccoun & Bégin, IEEE Trans. Commun. 37(11), 1989) that ns-3's NIST model also
//! uses; a few of those tables' higher-order terms (weights ≥ d_free + 4) differ from
//! the search in the fourth significant digit. Such terms change no PER measurably.

use crate::rate::CodeRate;

/// The distance spectrum of one code rate of the 802.11 convolutional code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DistanceSpectrum {
    /// Free distance: the smallest output weight of an error event.
    pub d_free: u32,
    /// Information bits per puncturing period (1 for the unpunctured 1/2 code).
    pub period: u32,
    /// `a[i]`: number of error events of weight `d_free + i` (over all phases).
    pub a: &'static [u64],
    /// `c[i]`: total information weight of the events of weight `d_free + i`.
    pub c: &'static [u64],
}

/// Rate 1/2 (d_free 10; odd weights do not occur).
pub const SPECTRUM_1_2: DistanceSpectrum = DistanceSpectrum {
    d_free: 10,
    period: 1,
    a: &[
        11, 0, 38, 0, 193, 0, 1331, 0, 7275, 0, 40406, 0, 234969, 0, 1337714, 0, 7594819, 0,
        43375588,
    ],
    c: &[
        36, 0, 211, 0, 1404, 0, 11633, 0, 77433, 0, 502690, 0, 3322763, 0, 21292910, 0, 134365911,
        0, 843425871,
    ],
};

/// Rate 2/3, puncturing pattern A `11`, B `10` (d_free 6).
pub const SPECTRUM_2_3: DistanceSpectrum = DistanceSpectrum {
    d_free: 6,
    period: 2,
    a: &[1, 16, 48, 158, 642, 2435, 9174, 34701, 131533, 499312],
    c: &[3, 70, 285, 1276, 6160, 27128, 117019, 498835, 2103480, 8781268],
};

/// Rate 3/4, puncturing pattern A `110`, B `101` (d_free 5).
pub const SPECTRUM_3_4: DistanceSpectrum = DistanceSpectrum {
    d_free: 5,
    period: 3,
    a: &[8, 31, 160, 892, 4512, 23297, 120976, 624304, 3229885, 16721329],
    c: &[42, 201, 1492, 10469, 62935, 379546, 2252394, 13064540, 75080308, 427474864],
};

/// Rate 5/6, puncturing pattern A `11010`, B `10101` (d_free 4; HT MCS 7).
pub const SPECTRUM_5_6: DistanceSpectrum = DistanceSpectrum {
    d_free: 4,
    period: 5,
    a: &[14, 69, 654, 4996, 39677, 314973, 2503576, 19875546, 157824160, 1253169928],
    c: &[92, 528, 8694, 79453, 791795, 7369828, 67809347, 609896348, 5416272113, 47544404956],
};

/// The spectrum of a code rate; `None` for uncoded (DSSS/CCK) rates.
pub fn spectrum(code_rate: CodeRate) -> Option<&'static DistanceSpectrum> {
    match code_rate {
        CodeRate::R1_2 => Some(&SPECTRUM_1_2),
        CodeRate::R2_3 => Some(&SPECTRUM_2_3),
        CodeRate::R3_4 => Some(&SPECTRUM_3_4),
        CodeRate::R5_6 => Some(&SPECTRUM_5_6),
        CodeRate::None => None,
    }
}

/// The code rate as a fraction (1.0 for uncoded).
pub fn code_rate_value(code_rate: CodeRate) -> f64 {
    match code_rate {
        CodeRate::None => 1.0,
        CodeRate::R1_2 => 0.5,
        CodeRate::R2_3 => 2.0 / 3.0,
        CodeRate::R3_4 => 0.75,
        CodeRate::R5_6 => 5.0 / 6.0,
    }
}
