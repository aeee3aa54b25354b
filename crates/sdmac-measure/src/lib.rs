//! Latency statistics of sdmac measurements.
//!
//! The SDMAC paper reports every latency component (µs) of confirmed one-shot
//! transmissions as mean, standard deviation, min, 99th, 99.9th and 99.99th
//! percentile and max, split by outcome ("Table V"). [`Summary`] computes exactly
//! those figures plus a 95 % confidence interval of the mean, [`Samples`] collects
//! the values of a benchmark without allocating after its start, and
//! [`Summary::to_json_object`] writes a summary as JSON without any dependency.
//!
//! # Definitions
//!
//! * **mean** — arithmetic mean (compensated summation, clamped into
//!   `[min, max]` so rounding never puts it outside the data).
//! * **sd** — *sample* standard deviation, divisor n − 1; 0 when n < 2.
//! * **percentiles** — *nearest rank*: the q-percentile is the smallest sample x
//!   such that at least q·n samples are ≤ x, i.e. `sorted[ceil(q·n) − 1]`
//!   (computed in integer arithmetic, so q·n never suffers from rounding). A
//!   percentile is always one of the samples, never an interpolation. As a
//!   consequence, with fewer than 1/(1 − q) samples, ceil(q·n) = n and the
//!   q-percentile **equals the max**: p99 needs n > 100, p99.9 needs n > 1 000 and
//!   p99.99 needs n > 10 000 to differ from the max.
//! * **ci95** — 95 % confidence interval of the mean,
//!   `mean ± t(0.975, n − 1) · sd / √n` with Student's t quantile ([`student`]).
//!   For n = 1 there are no degrees of freedom and the interval is undefined:
//!   both bounds are **NaN** (`null` in JSON). When sd = 0 (n ≥ 2) the interval
//!   is `(mean, mean)`.
//!
//! Non-finite samples (NaN, ±∞) are rejected with [`NonFiniteSample`], which
//! names the index of the first one.
//!
//! ```
//! use sdmac_measure::{Samples, Summary};
//!
//! let mut s = Samples::with_capacity(100);
//! for i in 1..=100 {
//!     s.push(f64::from(i)).unwrap();
//! }
//! let sum = s.summary().unwrap().unwrap();
//! assert_eq!((sum.mean, sum.min, sum.p99, sum.p999, sum.max), (50.5, 1.0, 99.0, 100.0, 100.0));
//! assert_eq!(Summary::of(&[]), Ok(None));
//! assert_eq!(Summary::of(&[1.0, f64::NAN]).unwrap_err().index, 1);
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

use std::fmt;

pub mod student;

pub use student::{t_975, Z_975};

/// Statistics of one set of samples (one latency component of one outcome set).
///
/// All fields but `count` are in the unit of the samples (µs in sdmac).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    /// Number of samples (≥ 1).
    pub count: u64,
    /// Arithmetic mean.
    pub mean: f64,
    /// Sample standard deviation (divisor n − 1); 0 when n < 2.
    pub sd: f64,
    /// Smallest sample.
    pub min: f64,
    /// 99th percentile (nearest rank).
    pub p99: f64,
    /// 99.9th percentile (nearest rank).
    pub p999: f64,
    /// 99.99th percentile (nearest rank).
    pub p9999: f64,
    /// Largest sample.
    pub max: f64,
    /// Lower bound of the 95 % confidence interval of the mean (NaN when n = 1).
    pub ci95_lo: f64,
    /// Upper bound of the 95 % confidence interval of the mean (NaN when n = 1).
    pub ci95_hi: f64,
}

/// A sample that is NaN or infinite, so that no statistics can be computed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NonFiniteSample {
    /// Index of the first non-finite sample.
    pub index: usize,
    /// Its value.
    pub value: f64,
}

impl fmt::Display for NonFiniteSample {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sample {} is not finite ({})", self.index, self.value)
    }
}

impl std::error::Error for NonFiniteSample {}

/// What [`Summary::of`] returns: `Ok(None)` for no samples, an error for a
/// non-finite sample.
pub type SummaryResult = Result<Option<Summary>, NonFiniteSample>;

impl Summary {
    /// The statistics of `samples`, in any order.
    ///
    /// `Ok(None)` when `samples` is empty; `Err` naming the first NaN or infinite
    /// sample. Sorts a copy of the samples (one allocation, O(n log n)); see
    /// [`Summary::of_in_place`] for a version that does not allocate. The result
    /// does not depend on the order of the samples.
    pub fn of(samples: &[f64]) -> SummaryResult {
        check_finite(samples)?;
        if samples.is_empty() {
            return Ok(None);
        }
        let mut sorted = samples.to_vec();
        Ok(Some(Self::of_finite_unsorted(&mut sorted)))
    }

    /// As [`Summary::of`], but sorts `samples` in place instead of a copy, so it
    /// does not allocate. On error `samples` is left untouched.
    pub fn of_in_place(samples: &mut [f64]) -> SummaryResult {
        check_finite(samples)?;
        if samples.is_empty() {
            return Ok(None);
        }
        Ok(Some(Self::of_finite_unsorted(samples)))
    }

    /// `samples`: non-empty, all finite.
    fn of_finite_unsorted(samples: &mut [f64]) -> Summary {
        samples.sort_unstable_by(f64::total_cmp);
        let sorted = &*samples;
        let n = sorted.len();
        let min = sorted[0];
        let max = sorted[n - 1];
        let mean = mean_of_sorted(sorted, min, max);
        let sd = sd_of(sorted, mean);
        let (ci95_lo, ci95_hi) = if n < 2 {
            (f64::NAN, f64::NAN)
        } else if sd == 0.0 {
            (mean, mean)
        } else {
            let half = t_975(n as u64 - 1) * sd / (n as f64).sqrt();
            (mean - half, mean + half)
        };
        Summary {
            count: n as u64,
            mean,
            sd,
            min,
            p99: sorted[rank_index(n, 99, 100)],
            p999: sorted[rank_index(n, 999, 1000)],
            p9999: sorted[rank_index(n, 9999, 10000)],
            max,
            ci95_lo,
            ci95_hi,
        }
    }

    /// The 95 % confidence interval of the mean, `(lo, hi)`.
    pub fn ci95(&self) -> (f64, f64) {
        (self.ci95_lo, self.ci95_hi)
    }

    /// The summary as one JSON object, keys in this order:
    ///
    /// `{"count": n, "mean": .., "sd": .., "min": .., "p99": .., "p99.9": ..,
    /// "p99.99": .., "max": .., "ci95": [lo, hi]}`
    ///
    /// Numbers are written so that they read back to the same `f64`; non-finite
    /// numbers (the CI of a single sample) are written as `null`.
    pub fn to_json_object(&self) -> String {
        format!(
            "{{\"count\": {}, \"mean\": {}, \"sd\": {}, \"min\": {}, \"p99\": {}, \"p99.9\": {}, \
             \"p99.99\": {}, \"max\": {}, \"ci95\": [{}, {}]}}",
            self.count,
            json_number(self.mean),
            json_number(self.sd),
            json_number(self.min),
            json_number(self.p99),
            json_number(self.p999),
            json_number(self.p9999),
            json_number(self.max),
            json_number(self.ci95_lo),
            json_number(self.ci95_hi),
        )
    }
}

/// The nearest-rank q-percentile of `sorted` (ascending), with q = `num / den`:
/// `sorted[ceil(q·n) − 1]`, computed exactly in integers. q = 0 gives the min.
///
/// `None` when `sorted` is empty.
///
/// # Panics
///
/// When `den` is 0 or `num > den`.
pub fn nearest_rank(sorted: &[f64], num: u64, den: u64) -> Option<f64> {
    assert!(den > 0 && num <= den, "percentile {num}/{den} is not in [0, 1]");
    if sorted.is_empty() {
        return None;
    }
    Some(sorted[rank_index(sorted.len(), num, den)])
}

/// Index (0-based) of the nearest-rank `num/den` percentile among `n > 0` sorted
/// samples: ceil(n·num/den) − 1, at least 0.
fn rank_index(n: usize, num: u64, den: u64) -> usize {
    let (n128, num, den) = (n as u128, u128::from(num), u128::from(den));
    let rank = (n128 * num).div_ceil(den);
    (rank.max(1) - 1) as usize
}

fn check_finite(samples: &[f64]) -> Result<(), NonFiniteSample> {
    match samples.iter().position(|x| !x.is_finite()) {
        None => Ok(()),
        Some(index) => Err(NonFiniteSample { index, value: samples[index] }),
    }
}

/// Compensated (Neumaier) sum.
fn neumaier(values: impl Iterator<Item = f64>) -> f64 {
    let (mut sum, mut comp) = (0.0f64, 0.0f64);
    for x in values {
        let t = sum + x;
        if !t.is_finite() {
            return t; // overflow: the caller rescales
        }
        if sum.abs() >= x.abs() {
            comp += (sum - t) + x;
        } else {
            comp += (x - t) + sum;
        }
        sum = t;
    }
    sum + comp
}

fn mean_of_sorted(sorted: &[f64], min: f64, max: f64) -> f64 {
    let n = sorted.len() as f64;
    let sum = neumaier(sorted.iter().copied());
    let mean = if sum.is_finite() {
        sum / n
    } else {
        // The sum overflowed: sum the values scaled by 2^-k with 2^k >= 2n (exact
        // scaling, and n values of at most f64::MAX / 2n cannot overflow).
        let k = (usize::BITS - sorted.len().leading_zeros()) as i32 + 1;
        let down = 2.0f64.powi(-k);
        neumaier(sorted.iter().map(|x| x * down)) / n / down
    };
    // Rounding may step just outside the data (or to ±inf next to f64::MAX).
    mean.clamp(min, max)
}

/// Sample standard deviation around `mean` (corrected two-pass algorithm), with
/// the deviations scaled by the largest one so that neither their squares nor
/// their sum overflows or underflows.
fn sd_of(sorted: &[f64], mean: f64) -> f64 {
    let n = sorted.len();
    if n < 2 {
        return 0.0;
    }
    let (min, max) = (sorted[0], sorted[n - 1]);
    // A spread beyond f64::MAX: work on halved values.
    let halve = !(max - mean).is_finite() || !(mean - min).is_finite();
    let dev = |x: f64| {
        if halve {
            x * 0.5 - mean * 0.5
        } else {
            x - mean
        }
    };
    let scale = dev(max).abs().max(dev(min).abs());
    if scale == 0.0 {
        return 0.0;
    }
    let sum_d = neumaier(sorted.iter().map(|&x| dev(x) / scale));
    let sum_d2 = neumaier(sorted.iter().map(|&x| {
        let d = dev(x) / scale;
        d * d
    }));
    let var = ((sum_d2 - sum_d * sum_d / n as f64) / (n - 1) as f64).max(0.0);
    let sd = scale * var.sqrt();
    if halve {
        sd * 2.0
    } else {
        sd
    }
}

fn json_number(x: f64) -> String {
    if x.is_finite() {
        // Debug formatting: shortest round-trip digits, always with a '.' or an
        // exponent ("2.0", "1e-7", "1e300"), all valid JSON numbers.
        format!("{x:?}")
    } else {
        "null".to_string()
    }
}

/// [`Samples::push`] on a full accumulator: the sample was not stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CapacityFull {
    /// The capacity given to [`Samples::with_capacity`].
    pub capacity: usize,
}

impl fmt::Display for CapacityFull {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sample buffer full ({} samples)", self.capacity)
    }
}

impl std::error::Error for CapacityFull {}

/// A preallocated buffer of samples: [`Samples::push`] never allocates, so a
/// benchmark loop stays allocation-free after [`Samples::with_capacity`].
///
/// A push beyond the capacity is refused (the buffer never grows) and counted in
/// [`Samples::dropped`]. Samples are stored as given, NaN included; the check for
/// non-finite values happens in [`Samples::summary`].
#[derive(Debug, Clone, Default)]
pub struct Samples {
    buf: Vec<f64>,
    capacity: usize,
    dropped: u64,
}

impl Samples {
    /// An empty buffer with room for `capacity` samples (allocated now).
    pub fn with_capacity(capacity: usize) -> Self {
        Samples { buf: Vec::with_capacity(capacity), capacity, dropped: 0 }
    }

    /// Stores `x`, or refuses it with [`CapacityFull`] when the buffer is full.
    #[inline]
    pub fn push(&mut self, x: f64) -> Result<(), CapacityFull> {
        if self.buf.len() < self.capacity {
            self.buf.push(x);
            Ok(())
        } else {
            self.dropped += 1;
            Err(CapacityFull { capacity: self.capacity })
        }
    }

    /// Number of stored samples.
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// Whether no sample is stored.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// The capacity given at construction.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Whether the next push would be refused.
    pub fn is_full(&self) -> bool {
        self.buf.len() >= self.capacity
    }

    /// Number of pushes refused because the buffer was full.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// The stored samples, in push order.
    pub fn as_slice(&self) -> &[f64] {
        &self.buf
    }

    /// Forgets the samples (and the dropped count), keeping the allocation.
    pub fn clear(&mut self) {
        self.buf.clear();
        self.dropped = 0;
    }

    /// [`Summary::of`] the stored samples (sorts a copy; push order is kept).
    pub fn summary(&self) -> SummaryResult {
        Summary::of(&self.buf)
    }

    /// [`Summary::of_in_place`] the stored samples: no allocation, but the
    /// samples are left sorted (push order is lost) unless there is an error.
    pub fn summarize_in_place(&mut self) -> SummaryResult {
        Summary::of_in_place(&mut self.buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs().max(1e-300)
    }

    fn one_to(n: u32) -> Vec<f64> {
        (1..=n).map(f64::from).collect()
    }

    #[test]
    fn one_to_hundred() {
        let s = Summary::of(&one_to(100)).unwrap().unwrap();
        assert_eq!(s.count, 100);
        assert_eq!(s.mean, 50.5);
        // sqrt(sum (i - 50.5)^2 / 99) = sqrt(83325 / 99)
        assert!(close(s.sd, (83325.0f64 / 99.0).sqrt(), 1e-14), "{}", s.sd);
        assert!(close(s.sd, 29.011_491_975_882_016, 1e-14));
        assert_eq!((s.min, s.p99, s.p999, s.p9999, s.max), (1.0, 99.0, 100.0, 100.0, 100.0));
        // t(0.975, 99) = 1.98421695158642; half width = t * sd / 10.
        let half = 1.984_216_951_586_42 * 29.011_491_975_882_016 / 10.0;
        assert!(close(s.ci95_lo, 50.5 - half, 1e-8), "{}", s.ci95_lo);
        assert!(close(s.ci95_hi, 50.5 + half, 1e-8), "{}", s.ci95_hi);
        assert_eq!(s.ci95(), (s.ci95_lo, s.ci95_hi));
    }

    #[test]
    fn percentiles_use_exact_ranks() {
        let s = Summary::of(&one_to(1000)).unwrap().unwrap();
        assert_eq!((s.p99, s.p999, s.p9999, s.max), (990.0, 999.0, 1000.0, 1000.0));
        let s = Summary::of(&one_to(10_000)).unwrap().unwrap();
        assert_eq!((s.p99, s.p999, s.p9999, s.max), (9900.0, 9990.0, 9999.0, 10_000.0));
        let s = Summary::of(&one_to(101)).unwrap().unwrap();
        // ceil(0.99 * 101) = 100
        assert_eq!((s.p99, s.p999, s.max), (100.0, 101.0, 101.0));
        let s = Summary::of(&one_to(99)).unwrap().unwrap();
        // n < 1/(1 - 0.99): p99 is the max
        assert_eq!(s.p99, 99.0);
    }

    #[test]
    fn nearest_rank_function() {
        let v = one_to(10);
        assert_eq!(nearest_rank(&v, 0, 1), Some(1.0));
        assert_eq!(nearest_rank(&v, 1, 2), Some(5.0));
        assert_eq!(nearest_rank(&v, 51, 100), Some(6.0));
        assert_eq!(nearest_rank(&v, 1, 1), Some(10.0));
        assert_eq!(nearest_rank(&[], 1, 2), None);
    }

    #[test]
    #[should_panic]
    fn nearest_rank_rejects_q_above_one() {
        nearest_rank(&[1.0], 3, 2);
    }

    #[test]
    fn unordered_input() {
        let v = [5.0, -1.0, 3.0, 2.0, 4.0];
        let s = Summary::of(&v).unwrap().unwrap();
        assert_eq!((s.min, s.mean, s.max, s.p99), (-1.0, 2.6, 5.0, 5.0));
        // deviations -3.6 2.4 0.4 -0.6 1.4: sum of squares 21.2, / 4 = 5.3
        assert!(close(s.sd, 5.3f64.sqrt(), 1e-14));
    }

    #[test]
    fn constant_set() {
        let s = Summary::of(&[0.1; 7]).unwrap().unwrap();
        assert_eq!((s.mean, s.sd, s.min, s.p9999, s.max), (0.1, 0.0, 0.1, 0.1, 0.1));
        assert_eq!(s.ci95(), (0.1, 0.1));
    }

    #[test]
    fn single_sample() {
        let s = Summary::of(&[3.5]).unwrap().unwrap();
        assert_eq!(s.count, 1);
        assert_eq!(
            (s.mean, s.sd, s.min, s.p99, s.p999, s.p9999, s.max),
            (3.5, 0.0, 3.5, 3.5, 3.5, 3.5, 3.5)
        );
        assert!(s.ci95_lo.is_nan() && s.ci95_hi.is_nan());
        assert_eq!(
            s.to_json_object(),
            r#"{"count": 1, "mean": 3.5, "sd": 0.0, "min": 3.5, "p99": 3.5, "p99.9": 3.5, "p99.99": 3.5, "max": 3.5, "ci95": [null, null]}"#
        );
    }

    #[test]
    fn two_samples() {
        let s = Summary::of(&[3.0, 1.0]).unwrap().unwrap();
        assert_eq!((s.mean, s.min, s.p99, s.max), (2.0, 1.0, 3.0, 3.0));
        assert_eq!(s.sd, std::f64::consts::SQRT_2);
        // t(0.975, 1) * sqrt(2) / sqrt(2)
        assert!(close(s.ci95_lo, 2.0 - 12.706_204_736_2, 1e-14));
        assert!(close(s.ci95_hi, 2.0 + 12.706_204_736_2, 1e-14));
        let json = s.to_json_object();
        let expected = format!(
            "{{\"count\": 2, \"mean\": 2.0, \"sd\": 1.4142135623730951, \"min\": 1.0, \"p99\": 3.0, \
             \"p99.9\": 3.0, \"p99.99\": 3.0, \"max\": 3.0, \"ci95\": [{:?}, {:?}]}}",
            s.ci95_lo, s.ci95_hi
        );
        assert_eq!(json, expected);
    }

    #[test]
    fn json_numbers() {
        assert_eq!(json_number(1e-7), "1e-7");
        assert_eq!(json_number(1e300), "1e300");
        assert_eq!(json_number(-0.0), "-0.0");
        assert_eq!(json_number(f64::NAN), "null");
        assert_eq!(json_number(f64::NEG_INFINITY), "null");
        for x in [0.1, 1.0 / 3.0, 123456.789, 5e-324, f64::MAX] {
            assert_eq!(json_number(x).parse::<f64>().unwrap(), x);
        }
    }

    #[test]
    fn empty_and_non_finite() {
        assert_eq!(Summary::of(&[]), Ok(None));
        let e = Summary::of(&[1.0, 2.0, f64::NAN, f64::INFINITY]).unwrap_err();
        assert_eq!(e.index, 2);
        assert!(e.value.is_nan());
        assert_eq!(e.to_string(), "sample 2 is not finite (NaN)");
        let e = Summary::of(&[f64::NEG_INFINITY]).unwrap_err();
        assert_eq!((e.index, e.value), (0, f64::NEG_INFINITY));
        let mut v = vec![3.0, f64::NAN, 1.0];
        assert_eq!(Summary::of_in_place(&mut v).unwrap_err().index, 1);
        assert_eq!(v[0], 3.0);
    }

    #[test]
    fn extreme_magnitudes() {
        let s = Summary::of(&[f64::MAX, f64::MAX, f64::MAX]).unwrap().unwrap();
        assert_eq!((s.mean, s.sd), (f64::MAX, 0.0));
        let s = Summary::of(&[f64::MAX, f64::MAX / 2.0]).unwrap().unwrap();
        assert!(close(s.mean, f64::MAX * 0.75, 1e-15));
        assert!(s.sd.is_finite());
        let s = Summary::of(&[-f64::MAX, f64::MAX]).unwrap().unwrap();
        assert_eq!(s.mean, 0.0);
        assert!(s.sd.is_infinite()); // sqrt(2) * MAX does not fit in an f64
        let s = Summary::of(&[5e-324, 1e-323]).unwrap().unwrap();
        assert!(s.sd > 0.0 && s.sd.is_finite());
    }

    #[test]
    fn samples_accumulator() {
        let mut s = Samples::with_capacity(3);
        assert!(s.is_empty());
        assert_eq!(s.summary(), Ok(None));
        let ptr = s.as_slice().as_ptr();
        for x in [2.0, 1.0, 3.0] {
            s.push(x).unwrap();
        }
        assert!(s.is_full());
        assert_eq!(s.push(4.0), Err(CapacityFull { capacity: 3 }));
        assert_eq!((s.len(), s.capacity(), s.dropped()), (3, 3, 1));
        assert_eq!(s.as_slice(), &[2.0, 1.0, 3.0]);
        assert_eq!(s.as_slice().as_ptr(), ptr, "the buffer moved");
        let a = s.summary().unwrap().unwrap();
        assert_eq!(s.as_slice(), &[2.0, 1.0, 3.0]);
        let b = s.summarize_in_place().unwrap().unwrap();
        assert_eq!(a, b);
        assert_eq!(s.as_slice(), &[1.0, 2.0, 3.0]);
        s.clear();
        assert_eq!((s.len(), s.dropped(), s.capacity()), (0, 0, 3));
        assert_eq!(s.as_slice().as_ptr(), ptr);
    }
}
