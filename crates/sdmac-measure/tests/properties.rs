//! Properties of `Summary` on random sample sets.

use proptest::prelude::*;
use sdmac_measure::{Samples, Summary};

/// Sample sets of latency-like values (µs), including repeated values.
fn latencies() -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(
        prop_oneof![
            4 => 0.0f64..10_000.0,
            1 => (0u32..20).prop_map(f64::from),
            1 => -1e6f64..1e6,
        ],
        1..400,
    )
}

/// Any finite values, extreme magnitudes included.
fn any_finite() -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(any::<f64>().prop_filter("finite", |x| x.is_finite()), 1..50)
}

fn check_order(s: &Summary) -> Result<(), TestCaseError> {
    prop_assert!(s.min <= s.p99, "{s:?}");
    prop_assert!(s.p99 <= s.p999, "{s:?}");
    prop_assert!(s.p999 <= s.p9999, "{s:?}");
    prop_assert!(s.p9999 <= s.max, "{s:?}");
    prop_assert!(s.min <= s.mean && s.mean <= s.max, "{s:?}");
    prop_assert!(s.sd >= 0.0, "{s:?}");
    Ok(())
}

/// The nearest-rank definition, by counting: the smallest sample x with at
/// least q·n samples <= x (q = num/den, compared exactly in integers).
fn by_counting(v: &[f64], num: u64, den: u64) -> f64 {
    let n = v.len() as u64;
    let mut best = f64::INFINITY;
    for &x in v {
        let at_most = v.iter().filter(|&&y| y <= x).count() as u64;
        if at_most * den >= num * n && x < best {
            best = x;
        }
    }
    best
}

proptest! {
    #[test]
    fn ordered_statistics(v in latencies()) {
        let s = Summary::of(&v).unwrap().unwrap();
        prop_assert_eq!(s.count, v.len() as u64);
        check_order(&s)?;
        if v.len() >= 2 {
            prop_assert!(s.ci95_lo <= s.mean && s.mean <= s.ci95_hi, "{:?}", s);
        } else {
            prop_assert!(s.ci95_lo.is_nan() && s.ci95_hi.is_nan());
        }
    }

    #[test]
    fn ordered_statistics_extreme(v in any_finite()) {
        let s = Summary::of(&v).unwrap().unwrap();
        check_order(&s)?;
        prop_assert!(!s.sd.is_nan() && !s.mean.is_nan());
    }

    #[test]
    fn permutation_invariance(
        (v, w) in latencies().prop_flat_map(|v| (Just(v.clone()), Just(v).prop_shuffle()))
    ) {
        let a = Summary::of(&v).unwrap().unwrap();
        let b = Summary::of(&w).unwrap().unwrap();
        prop_assert_eq!(a.to_json_object(), b.to_json_object());
    }

    #[test]
    fn percentiles_are_nearest_rank(v in latencies()) {
        let s = Summary::of(&v).unwrap().unwrap();
        prop_assert_eq!(s.p99, by_counting(&v, 99, 100));
        prop_assert_eq!(s.p999, by_counting(&v, 999, 1000));
        prop_assert_eq!(s.p9999, by_counting(&v, 9999, 10000));
        prop_assert_eq!(s.min, by_counting(&v, 0, 1));
        prop_assert_eq!(s.max, by_counting(&v, 1, 1));
    }

    #[test]
    fn mean_and_sd_match_naive(v in latencies()) {
        let s = Summary::of(&v).unwrap().unwrap();
        let n = v.len() as f64;
        let mean = v.iter().sum::<f64>() / n;
        prop_assert!((s.mean - mean).abs() <= 1e-9 * (1.0 + mean.abs()), "{} vs {}", s.mean, mean);
        if v.len() >= 2 {
            let var = v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0);
            prop_assert!((s.sd - var.sqrt()).abs() <= 1e-9 * (1.0 + var.sqrt()), "{} vs {}", s.sd, var.sqrt());
        } else {
            prop_assert_eq!(s.sd, 0.0);
        }
    }

    #[test]
    fn accumulator_matches_slice(v in latencies(), extra in 0usize..5) {
        let mut acc = Samples::with_capacity(v.len());
        for &x in &v {
            prop_assert!(acc.push(x).is_ok());
        }
        for _ in 0..extra {
            prop_assert!(acc.push(1.0).is_err());
        }
        prop_assert_eq!(acc.dropped(), extra as u64);
        prop_assert_eq!(acc.as_slice(), &v[..]);
        // Compared as JSON: a single sample has a NaN CI, and NaN != NaN.
        let json = |r: sdmac_measure::SummaryResult| r.unwrap().unwrap().to_json_object();
        let expected = json(Summary::of(&v));
        prop_assert_eq!(json(acc.summary()), expected.clone());
        prop_assert_eq!(json(acc.summarize_in_place()), expected);
    }
}
