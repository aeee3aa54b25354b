//! Error models: reference SNRs (FACTS.md §2), monotonicity, edge values, the
//! convolutional code's distance spectra, erfc, and the wmediumd PER tables.

use proptest::prelude::*;
use sdmac_phy::error_model::{conv, dsss, math, PerTableErrorKind, PerTableLayout};
use sdmac_phy::{CodeRate, ErrorModel, PerTable, Rate, LEGACY_RATES};
use std::path::PathBuf;
use std::sync::Arc;

/// Every rate the models distinguish: the 12 legacy rates and HT MCS 0–7 at 20/40 MHz
/// with long/short GI.
fn all_rates() -> Vec<Rate> {
    let mut v = LEGACY_RATES.to_vec();
    for mcs in 0..8 {
        for bw40 in [false, true] {
            for sgi in [false, true] {
                v.push(Rate::Ht { mcs, bw40, sgi });
            }
        }
    }
    v
}

/// SNR (dB) at which a `len`-byte frame has `target` PER, by bisection.
fn snr_for_per(model: &ErrorModel, rate: Rate, len: u32, target: f64) -> f64 {
    let (mut lo, mut hi) = (-20.0, 60.0);
    assert!(model.per(rate, lo, len) > target && model.per(rate, hi, len) < target);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if model.per(rate, mid, len) > target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

#[test]
fn reference_snr_for_10_percent_per_of_1500_bytes() {
    // FACTS.md §2: ns-3.44's NIST 3.96 / 22.62 dB and YANS 0.75 / 19.25 dB at 6 / 54 Mb/s.
    let cases = [
        (ErrorModel::Nist, Rate::Ofdm6, 3.96),
        (ErrorModel::Nist, Rate::Ofdm54, 22.62),
        (ErrorModel::Yans, Rate::Ofdm6, 0.75),
        (ErrorModel::Yans, Rate::Ofdm54, 19.25),
    ];
    for (model, rate, want) in cases {
        let got = snr_for_per(&model, rate, 1500, 0.1);
        println!("{} {rate}: 10 % PER of 1500 B at {got:.3} dB (reference {want})", model.name());
        assert!(
            (got - want).abs() <= 0.15,
            "{} {rate}: {got:.3} dB, want {want} ± 0.15",
            model.name()
        );
    }
}

#[test]
fn ordering_of_rates_is_sane() {
    // Within each model, faster OFDM rates need more SNR (9 and 12 Mb/s may swap in
    // some models, so compare the 1/2-rate ladder and 54 vs 48).
    for model in [ErrorModel::Nist, ErrorModel::Yans] {
        let s: Vec<f64> = [Rate::Ofdm6, Rate::Ofdm12, Rate::Ofdm24, Rate::Ofdm48, Rate::Ofdm54]
            .iter()
            .map(|r| snr_for_per(&model, *r, 1500, 0.1))
            .collect();
        println!("{}: 6/12/24/48/54 Mb/s at {s:.2?} dB", model.name());
        assert!(s.windows(2).all(|w| w[0] < w[1]), "{}: {s:?}", model.name());
        let dsss: Vec<f64> = sdmac_phy::rate::DSSS_RATES
            .iter()
            .map(|r| snr_for_per(&model, *r, 1500, 0.1))
            .collect();
        println!("{}: 1/2/5.5/11 Mb/s at {dsss:.2?} dB", model.name());
        assert!(dsss.windows(2).all(|w| w[0] < w[1]), "{dsss:?}");
    }
}

#[test]
fn yans_bpsk_uses_one_term() {
    use sdmac_phy::error_model::yans;
    // 9 Mb/s (BPSK 3/4): ns-3's YANS uses only the d_free term for BPSK. Measure what
    // the second term would cost.
    let one = snr_for_per(&ErrorModel::Yans, Rate::Ofdm9, 1500, 0.1);
    let two = {
        let (mut lo, mut hi) = (-10.0f64, 30.0f64);
        for _ in 0..100 {
            let mid = 0.5 * (lo + hi);
            let e = yans::eb_n0(Rate::Ofdm9, 10f64.powf(mid / 10.0)).unwrap();
            let p = yans::uncoded_ber(sdmac_phy::Modulation::Bpsk, e).unwrap();
            let per =
                1.0 - math::all_bits_correct(yans::event_error(p, CodeRate::R3_4, false), 12000);
            if per > 0.1 {
                lo = mid
            } else {
                hi = mid
            }
        }
        lo
    };
    println!("yans 9 Mb/s, 10 % PER of 1500 B: {one:.3} dB (one term), {two:.3} dB (two terms)");
    assert!(two > one && two - one < 0.7, "{one} {two}");
}

#[test]
fn zero_bits_always_succeed() {
    let table = Arc::new(
        PerTable::parse("-95 0.5 0.5 0.5 0.5 0.5 0.5 0.5 0.5 0.5 0.5 0.5 1\n", "t").unwrap(),
    );
    let models =
        [ErrorModel::Nist, ErrorModel::Yans, ErrorModel::Table(table), ErrorModel::NoErrors];
    for model in &models {
        for rate in all_rates() {
            for sinr in [0.0, 1e-3, 1.0, 1e9, f64::NAN, -1.0] {
                assert_eq!(
                    model.chunk_success(rate, sinr, 0),
                    1.0,
                    "{} {rate} {sinr}",
                    model.name()
                );
            }
        }
    }
}

#[test]
fn per_is_exactly_zero_at_high_snr_and_one_at_low_snr() {
    for model in [ErrorModel::Nist, ErrorModel::Yans] {
        for rate in all_rates() {
            assert_eq!(model.per(rate, 60.0, 1500), 0.0, "{} {rate}", model.name());
            assert_eq!(model.per(rate, 200.0, 65535), 0.0, "{} {rate}", model.name());
            let low = model.per(rate, -10.0, 1500);
            assert!(low > 0.999_999, "{} {rate}: {low}", model.name());
            // No signal at all. (Not 0 for a few bits: the textbook QAM formulas give a
            // BER below ½ at zero SNR, e.g. YANS 16-QAM 0.234.)
            assert_eq!(model.chunk_success(rate, 0.0, 12000), 0.0, "{} {rate}", model.name());
            assert_eq!(model.chunk_success(rate, f64::NAN, 12000), 0.0, "{} {rate}", model.name());
        }
    }
}

#[test]
fn custom_rates_and_no_errors_never_fail() {
    for model in [ErrorModel::Nist, ErrorModel::Yans, ErrorModel::NoErrors] {
        assert_eq!(model.per(Rate::Custom { kbps: 1000 }, -30.0, 1500), 0.0);
    }
    for rate in all_rates() {
        assert_eq!(ErrorModel::NoErrors.per(rate, -30.0, 1500), 0.0);
    }
}

#[test]
fn chunks_multiply_to_the_whole_frame() {
    // The medium multiplies chunk probabilities: splitting must not change the result.
    for model in [ErrorModel::Nist, ErrorModel::Yans] {
        for rate in
            [Rate::Ofdm6, Rate::Ofdm54, Rate::Dsss2, Rate::Ht { mcs: 7, bw40: false, sgi: false }]
        {
            let snr = 10f64.powf(0.1 * snr_for_per(&model, rate, 1500, 0.5));
            let whole = model.chunk_success(rate, snr, 12000);
            let parts = model.chunk_success(rate, snr, 5000) * model.chunk_success(rate, snr, 7000);
            assert!((whole - parts).abs() < 1e-12, "{} {rate}: {whole} vs {parts}", model.name());
        }
    }
}

proptest! {
    #[test]
    fn per_monotone_in_snr(idx in 0usize..44, a in -15.0f64..50.0, b in -15.0f64..50.0, len in 1u32..4096, yans in any::<bool>()) {
        let rate = all_rates()[idx];
        let model = if yans { ErrorModel::Yans } else { ErrorModel::Nist };
        let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
        let (p_lo, p_hi) = (model.per(rate, lo, len), model.per(rate, hi, len));
        prop_assert!(p_lo >= p_hi, "{} {rate} len {len}: PER {p_lo} at {lo} dB < {p_hi} at {hi} dB", model.name());
        prop_assert!((0.0..=1.0).contains(&p_lo) && (0.0..=1.0).contains(&p_hi));
    }

    #[test]
    fn per_monotone_in_length(idx in 0usize..44, snr in -15.0f64..50.0, a in 0u32..8000, b in 0u32..8000, yans in any::<bool>()) {
        let rate = all_rates()[idx];
        let model = if yans { ErrorModel::Yans } else { ErrorModel::Nist };
        let (short, long) = if a <= b { (a, b) } else { (b, a) };
        let (p_s, p_l) = (model.per(rate, snr, short), model.per(rate, snr, long));
        prop_assert!(p_s <= p_l, "{} {rate} at {snr} dB: PER {p_s} for {short} B > {p_l} for {long} B", model.name());
    }

    #[test]
    fn chunk_success_monotone_in_sinr_near_the_waterfall(idx in 0usize..44, x in 0.0f64..1.0, dx in 1e-9f64..1e-3, yans in any::<bool>()) {
        // Close SNR pairs inside the region where the probability changes fast.
        let rate = all_rates()[idx];
        let model = if yans { ErrorModel::Yans } else { ErrorModel::Nist };
        let lo = snr_for_per(&model, rate, 1500, 0.999);
        let hi = snr_for_per(&model, rate, 1500, 0.001);
        let s = lo + x * (hi - lo);
        let (a, b) = (10f64.powf(s / 10.0), 10f64.powf((s + dx) / 10.0));
        prop_assert!(model.chunk_success(rate, a, 12000) <= model.chunk_success(rate, b, 12000));
    }
}

#[test]
fn erfc_matches_reference_values() {
    // Reference values: glibc erfc (correctly rounded to < 1 ulp).
    let refs = [
        (0.0, 1.0),
        (0.001, 0.998_871_621_209_030_7),
        (0.1, 0.887_537_083_981_715_2),
        (0.5, 0.479_500_122_186_953_5),
        (1.0, 0.157_299_207_050_285_13),
        (1.5, 0.033_894_853_524_689_274),
        (1.9999, 0.004_679_802_092_970_608),
        (2.0, 0.004_677_734_981_047_265),
        (2.5, 0.000_406_952_017_444_958_9),
        (3.0, 2.209_049_699_858_543_8e-5),
        (4.0, 1.541_725_790_028_002e-8),
        (5.0, 1.537_459_794_428_035_1e-12),
        (7.5, 2.776_649_386_030_569e-26),
        (10.0, 2.088_487_583_762_545e-45),
        (15.0, 7.212_994_172_451_206e-100),
        (20.0, 5.395_865_611_607_900_5e-176),
        (25.0, 8.300_172_571_196_522e-274),
        (26.0, 5.663_192_408_856_143e-296),
        (-0.5, 1.520_499_877_813_046_5),
        (-2.5, 1.999_593_047_982_555),
    ];
    for (x, want) in refs {
        let got = math::erfc(x);
        let rel = ((got - want) / want).abs();
        assert!(rel < 1e-12, "erfc({x}) = {got:e}, want {want:e} (relative error {rel:e})");
    }
    assert_eq!(math::erfc(30.0), 0.0);
    assert_eq!(math::erfc(f64::INFINITY), 0.0);
    assert_eq!(math::erfc(f64::NEG_INFINITY), 2.0);
    assert!(math::erfc(f64::NAN).is_nan());
    assert!((math::q(0.0) - 0.5).abs() < 1e-16);
}

/// Independent trellis search over the K = 7 (133, 171) code with the 802.11
/// puncturing patterns: number of error events and their information weight per
/// output weight, summed over the puncturing phases.
fn trellis_spectrum(pa: &[u8], pb: &[u8], d_max: usize) -> (Vec<u64>, Vec<u64>) {
    use std::collections::HashMap;
    const G: [u32; 2] = [0o133, 0o171];
    let out = |state: u32, u: u32| -> [u32; 2] {
        let reg = (u << 6) | state;
        [(reg & G[0]).count_ones() & 1, (reg & G[1]).count_ones() & 1]
    };
    let period = pa.len();
    let (mut a, mut c) = (vec![0u64; d_max + 1], vec![0u64; d_max + 1]);
    for phase in 0..period {
        // (state, phase) -> weight -> (paths, information weight)
        let mut frontier: HashMap<(u32, usize), HashMap<usize, (u64, u64)>> = HashMap::new();
        let o = out(0, 1);
        let w = (o[0] * pa[phase] as u32 + o[1] * pb[phase] as u32) as usize;
        frontier.entry((1 << 5, (phase + 1) % period)).or_default().insert(w, (1, 1));
        while !frontier.is_empty() {
            let mut next: HashMap<(u32, usize), HashMap<usize, (u64, u64)>> = HashMap::new();
            for ((s, ph), weights) in &frontier {
                for u in 0..2u32 {
                    let o = out(*s, u);
                    let dw = (o[0] * pa[*ph] as u32 + o[1] * pb[*ph] as u32) as usize;
                    let ns = (u << 5) | (s >> 1);
                    for (&w0, &(n, iw)) in weights {
                        let w1 = w0 + dw;
                        if w1 > d_max {
                            continue;
                        }
                        let iw1 = iw + n * u as u64;
                        if ns == 0 {
                            a[w1] += n;
                            c[w1] += iw1;
                        } else {
                            let e = next
                                .entry((ns, (ph + 1) % period))
                                .or_default()
                                .entry(w1)
                                .or_insert((0, 0));
                            e.0 += n;
                            e.1 += iw1;
                        }
                    }
                }
            }
            frontier = next;
        }
    }
    (a, c)
}

#[test]
fn distance_spectra_match_trellis_search() {
    let cases: [(CodeRate, &[u8], &[u8]); 4] = [
        (CodeRate::R1_2, &[1], &[1]),
        (CodeRate::R2_3, &[1, 1], &[1, 0]),
        (CodeRate::R3_4, &[1, 1, 0], &[1, 0, 1]),
        (CodeRate::R5_6, &[1, 1, 0, 1, 0], &[1, 0, 1, 0, 1]),
    ];
    for (rate, pa, pb) in cases {
        let s = conv::spectrum(rate).unwrap();
        assert_eq!(s.period as usize, pa.len());
        let d_max = s.d_free as usize + s.c.len() - 1;
        let (a, c) = trellis_spectrum(pa, pb, d_max);
        let first = a.iter().position(|&x| x > 0).unwrap();
        assert_eq!(first, s.d_free as usize, "{rate:?}: d_free");
        assert_eq!(&a[first..], s.a, "{rate:?}: event counts a_d");
        assert_eq!(&c[first..], s.c, "{rate:?}: information weights c_d");
    }
    assert!(conv::spectrum(CodeRate::None).is_none());
}

#[test]
fn dsss_values() {
    // DBPSK at SNR −10 dB: Eb/N0 = 0.1·22 = 2.2 → ½e^−2.2.
    let p = dsss::ber(Rate::Dsss1, 0.1).unwrap();
    assert!((p - 0.5 * (-2.2f64).exp()).abs() < 1e-15);
    // 1 Mb/s is the most robust rate of all.
    let one = snr_for_per(&ErrorModel::Nist, Rate::Dsss1, 1500, 0.1);
    let six = snr_for_per(&ErrorModel::Nist, Rate::Ofdm6, 1500, 0.1);
    assert!(one < six, "{one} {six}");
}

// ---------------------------------------------------------------------------------
// PER tables

fn per_table_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/per-tables");
    if dir.is_dir() {
        Some(dir)
    } else {
        panic!("the shared PER tables {} are missing", dir.display());
    }
}

#[test]
fn every_shipped_per_table_parses() {
    let Some(dir) = per_table_dir() else { return };
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.display().to_string();
        let t = PerTable::parse(&text, &name).unwrap_or_else(|e| panic!("{e}"));
        n += 1;
        println!(
            "{}: {} rows ({}..={} dBm) × {} columns {:?}, {} warnings",
            path.file_name().unwrap().to_string_lossy(),
            t.rows(),
            t.min_signal_dbm(),
            t.max_signal_dbm(),
            t.columns(),
            t.layout(),
            t.warnings().len()
        );
        for w in t.warnings() {
            println!("  warning: {w}");
        }
        assert_eq!((t.min_signal_dbm(), t.max_signal_dbm()), (-100, -60));
        assert_eq!(t.labels().len(), t.columns(), "labels from the `# bitrate` line");
        let fname = path.file_name().unwrap().to_string_lossy().to_string();
        if fname.ends_with("ax") {
            assert_eq!((t.columns(), t.layout()), (12, PerTableLayout::Legacy));
            assert!(t.warnings().is_empty());
            // Row −94 dBm: 1 Mb/s has 0.529.
            assert_eq!(t.per_at(-94.0, 0), 0.529);
            assert_eq!(t.per_at(-93.5, 0), 0.529); // nearest lower row
            assert_eq!(t.per_at(-93.0, 0), 0.0427);
        } else {
            assert_eq!((t.columns(), t.layout()), (16, PerTableLayout::Mcs));
            // The 11n files write 529 for 0.529 (and 24, 979, 379, 61 for 0.024, …):
            // clamped to 1 with a warning naming line and column.
            assert!(t.warnings().iter().any(|w| w.value == 529.0 && w.line == 10 && w.column == 1));
            assert!(t.warnings().iter().all(|w| w.value > 1.0));
            assert_eq!(t.per_at(-94.0, 0), 1.0);
        }
        // Beyond the table: 1.0 below, 0.0 above.
        assert_eq!(t.per_at(-100.5, 0), 1.0);
        assert_eq!(t.per_at(f64::NAN, 0), 1.0);
        assert_eq!(t.per_at(-59.0, 0), 0.0);
        assert_eq!(t.per_at(-60.0, 0), t.value(40, 0).unwrap());
    }
    assert!(n >= 1, "no tables in {}", dir.display());
}

const MINI: &str = "# tiny table\n# bitrate 1Mbps 2Mbps\n-92 1.0 1.0\n-91\t0.5\t\t1.0  # trailing comment\n\n-90 0.1 0.6\n-89 0 0.2\n";

#[test]
fn per_table_lookup_between_and_beyond_rows() {
    let t = PerTable::parse(MINI, "mini").unwrap();
    assert_eq!(t.labels(), ["1Mbps", "2Mbps"]);
    assert_eq!((t.rows(), t.columns(), t.layout()), (4, 2, PerTableLayout::Mcs));
    assert_eq!(t.per_at(-91.0, 0), 0.5);
    assert_eq!(t.per_at(-90.01, 0), 0.5); // nearest lower row
    assert_eq!(t.per_at(-90.0, 0), 0.1);
    assert_eq!(t.per_at(-92.01, 0), 1.0); // below the first row
    assert_eq!(t.per_at(-89.0, 1), 0.2);
    assert_eq!(t.per_at(-88.5, 1), 0.2); // within the last row's dB
    assert_eq!(t.per_at(-88.0, 1), 0.0); // beyond the table
    assert_eq!(t.per_at(-90.0, 7), 0.6); // rate index clamped to the last column
}

#[test]
fn per_table_as_error_model() {
    let text = "-93 1 1 1 1 1 1 1 1 1 1 1 1\n-92 0.5 1 1 1 0.4 1 1 1 1 1 1 1\n-91 0 1 1 1 0 1 1 1 1 1 1 1\n";
    let t = Arc::new(PerTable::parse(text, "legacy").unwrap());
    assert_eq!(t.layout(), PerTableLayout::Legacy);
    let m = ErrorModel::Table(t.clone());
    // SNR 0 dB → signal −91 dBm with the default −91 dBm noise.
    assert_eq!(m.per(Rate::Dsss1, 0.0, 1500), 0.0);
    assert!((m.per(Rate::Dsss1, -1.0, 1500) - 0.5).abs() < 1e-12);
    assert!((m.per(Rate::Ofdm6, -1.0, 1500) - 0.4).abs() < 1e-12);
    // Shorter frames fare better, longer worse, as (1 − PER)^(len / 1500).
    let short = m.per(Rate::Dsss1, -1.0, 750);
    assert!((short - (1.0 - 0.5f64.sqrt())).abs() < 1e-12);
    assert!(m.per(Rate::Dsss1, -1.0, 3000) > 0.5);
    // HT rates use the legacy column with the same modulation and coding.
    assert!((m.per(Rate::Ht { mcs: 0, bw40: false, sgi: false }, -1.0, 1500) - 0.4).abs() < 1e-12);
    assert_eq!(m.per(Rate::Dsss2, -2.0, 1500), 1.0);
}

#[test]
fn malformed_per_tables_name_file_line_and_problem() {
    let cases: [(&str, usize, &str); 8] = [
        ("-92 0.1 0.2\n-91 0.1 x\n", 2, "\"x\""),
        ("-92 0.1 0.2\n-91 0.1\n", 2, "1 PER values, but the first row (line 1) has 2"),
        ("# c\n-92 0.1\n-90 0.1\n", 3, "-90 dBm does not follow -92 dBm"),
        ("-92 0.1\n-93 0.1\n", 2, "does not follow"),
        ("-92.5 0.1\n", 1, "\"-92.5\" is not an integer"),
        ("-92 -0.1\n", 1, "below 0"),
        ("-92 inf\n", 1, "not a finite number"),
        ("\n\n-92\n", 3, "no PER values"),
    ];
    for (text, line, needle) in cases {
        let e = PerTable::parse(text, "bad.tbl").unwrap_err();
        let msg = e.to_string();
        assert_eq!(e.line, line, "{msg}");
        assert_eq!(e.file, "bad.tbl");
        assert!(msg.starts_with(&format!("bad.tbl:{line}: ")), "{msg}");
        assert!(msg.contains(needle), "{msg:?} should contain {needle:?}");
    }
    let e = PerTable::parse("# only comments\n\n", "empty.tbl").unwrap_err();
    assert_eq!(e.kind, PerTableErrorKind::NoRows);
    assert!(e.to_string().starts_with("empty.tbl: no data rows"), "{e}");
}
