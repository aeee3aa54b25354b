//! Path-loss models against values computed by hand, clamps, and monotonicity.

use proptest::prelude::*;
use sdmac_phy::propagation::{free_space_loss_db, MIN_DISTANCE_M};
use sdmac_phy::units::{dbm_to_mw, mw_to_dbm, thermal_noise_dbm, wavelength_m};
use sdmac_phy::{received_power_dbm, PathLoss};

const FS: PathLoss = PathLoss::FreeSpace { sl_db: 0.0 };

fn close(got: f64, want: f64, tol: f64) {
    assert!((got - want).abs() <= tol, "got {got}, want {want} ± {tol}");
}

#[test]
fn free_space_by_hand() {
    // FSPL = 20·log10(d) + 20·log10(f_MHz) − 27.55 (the exact constant is −27.5522).
    let by_hand = |d: f64, f: f64| 20.0 * d.log10() + 20.0 * f.log10() - 27.55;
    for (d, f, exact) in [
        (1.0, 2412.0, 40.095_329),
        (100.0, 2412.0, 80.095_329),
        (1.0, 5180.0, 46.734_378),
        (100.0, 5180.0, 86.734_378),
    ] {
        let l = FS.loss_db(d, f, 0.0);
        close(l, exact, 1e-5);
        close(l, by_hand(d, f), 0.003);
        close(free_space_loss_db(d, f), exact, 1e-5);
    }
    // System loss adds.
    close(PathLoss::FreeSpace { sl_db: 3.0 }.loss_db(100.0, 2412.0, 0.0), 83.095_329, 1e-5);
    // Shadowing is ignored by every model but the shadowing one.
    assert_eq!(FS.loss_db(10.0, 2412.0, 5.0), FS.loss_db(10.0, 2412.0, 0.0));
}

#[test]
fn log_distance_exponent_3_5_at_10_m() {
    let m = PathLoss::LogDistance { exponent: 3.5, ref_distance_m: 1.0, sl_db: 0.0 };
    // FSPL(1 m, 2412 MHz) + 35·log10(10).
    close(m.loss_db(10.0, 2412.0, 0.0), 40.095_329 + 35.0, 1e-5);
    // wmediumd's xg maps to a constant offset.
    let xg = PathLoss::LogDistance { exponent: 3.5, ref_distance_m: 1.0, sl_db: 2.5 };
    close(xg.loss_db(10.0, 2412.0, 0.0), 40.095_329 + 37.5, 1e-5);
    // Below d0: free space, continuous at d0.
    close(m.loss_db(0.5, 2412.0, 0.0), free_space_loss_db(0.5, 2412.0), 1e-9);
    close(m.loss_db(1.0, 2412.0, 0.0), 40.095_329, 1e-5);
    // A 10 m reference distance.
    let m10 = PathLoss::LogDistance { exponent: 3.0, ref_distance_m: 10.0, sl_db: 0.0 };
    close(m10.loss_db(100.0, 5180.0, 0.0), 46.734_378 + 20.0 + 30.0, 1e-5);
}

#[test]
fn log_normal_shadowing_adds_sigma_times_draw() {
    let m = PathLoss::LogNormalShadowing {
        exponent: 3.0,
        ref_distance_m: 1.0,
        sigma_db: 4.0,
        sl_db: 0.0,
    };
    let base = 40.095_329 + 30.0;
    close(m.loss_db(10.0, 2412.0, 0.0), base, 1e-5);
    close(m.loss_db(10.0, 2412.0, 1.5), base + 6.0, 1e-5);
    close(m.loss_db(10.0, 2412.0, -1.0), base - 4.0, 1e-5);
    // Never negative, never NaN.
    assert_eq!(m.loss_db(0.2, 2412.0, -1000.0), 0.0);
    close(m.loss_db(10.0, 2412.0, f64::NAN), base, 1e-5);
}

#[test]
fn two_ray_ground_by_hand() {
    let m = PathLoss::TwoRayGround { tx_height_m: 1.5, rx_height_m: 1.5, sl_db: 0.0 };
    // d_c = 4π·h_t·h_r/λ = 227.48 m at 2412 MHz.
    let dc = m.crossover_distance_m(2412.0).unwrap();
    close(dc, 4.0 * std::f64::consts::PI * 2.25 / wavelength_m(2412.0), 1e-9);
    close(dc, 227.483, 1e-3);
    // Above: 40·log10(1000) − 20·log10(2.25).
    close(m.loss_db(1000.0, 2412.0, 0.0), 112.956_350, 1e-5);
    // Below: free space.
    close(m.loss_db(100.0, 2412.0, 0.0), 80.095_329, 1e-5);
    // Continuous at the crossover (both branches 87.2343 dB).
    close(m.loss_db(dc * (1.0 - 1e-12), 2412.0, 0.0), 87.234_309, 1e-5);
    close(m.loss_db(dc * (1.0 + 1e-12), 2412.0, 0.0), 87.234_309, 1e-5);
    // System loss on both branches.
    let sl = PathLoss::TwoRayGround { tx_height_m: 1.5, rx_height_m: 1.5, sl_db: 2.0 };
    close(sl.loss_db(1000.0, 2412.0, 0.0), 114.956_350, 1e-5);
    assert_eq!(FS.crossover_distance_m(2412.0), None);
}

#[test]
fn itu_p1238_by_hand() {
    // 20·log10(2412) + 30·log10(20) + 2·15 − 28.
    let m = PathLoss::Itu { n_floors: 2, floor_loss_db: 15.0, power_loss_coefficient: 30.0 };
    close(m.loss_db(20.0, 2412.0, 0.0), 108.678_446, 1e-5);
    // wmediumd's pL = 0: N = 28 up to 16 m, 38 beyond.
    let auto = PathLoss::Itu { n_floors: 0, floor_loss_db: 0.0, power_loss_coefficient: 0.0 };
    close(auto.loss_db(10.0, 2412.0, 0.0), 20.0 * 2412f64.log10() + 28.0 - 28.0, 1e-9);
    close(auto.loss_db(20.0, 2412.0, 0.0), 89.086_686, 1e-5);
    // Clamped to 1 m (the model's validity limit).
    assert_eq!(m.loss_db(0.3, 2412.0, 0.0), m.loss_db(1.0, 2412.0, 0.0));
}

#[test]
fn clamps_never_give_negative_or_nan() {
    let models = all_models();
    for m in &models {
        for d in [0.0, -5.0, f64::NAN, 1e-9, MIN_DISTANCE_M] {
            for f in [2412.0, 0.0, -1.0, f64::NAN] {
                let l = m.loss_db(d, f, 0.0);
                assert!(l.is_finite() && l >= 0.0, "{m:?} d={d} f={f}: {l}");
            }
        }
        assert_eq!(m.loss_db(0.0, 2412.0, 0.0), m.loss_db(MIN_DISTANCE_M, 2412.0, 0.0), "{m:?}");
    }
}

#[test]
fn received_power_and_units() {
    close(received_power_dbm(20.0, 2.0, 3.0, 80.0), -55.0, 1e-12);
    close(mw_to_dbm(dbm_to_mw(-55.0)), -55.0, 1e-12);
    close(thermal_noise_dbm(20e6, 7.0), -93.97, 0.01);
}

#[test]
fn wmediumd_names() {
    let names: Vec<&str> = all_models().iter().map(|m| m.wmediumd_name()).collect();
    assert_eq!(
        names,
        ["free_space", "log_distance", "log_normal_shadowing", "two_ray_ground", "itu"]
    );
}

fn all_models() -> Vec<PathLoss> {
    vec![
        PathLoss::FreeSpace { sl_db: 0.0 },
        PathLoss::LogDistance { exponent: 3.5, ref_distance_m: 1.0, sl_db: 0.0 },
        PathLoss::LogNormalShadowing {
            exponent: 3.0,
            ref_distance_m: 1.0,
            sigma_db: 4.0,
            sl_db: 0.0,
        },
        PathLoss::TwoRayGround { tx_height_m: 1.0, rx_height_m: 2.0, sl_db: 0.0 },
        PathLoss::Itu { n_floors: 1, floor_loss_db: 10.0, power_loss_coefficient: 0.0 },
    ]
}

fn model_strategy() -> impl Strategy<Value = PathLoss> {
    prop_oneof![
        (-3.0f64..10.0).prop_map(|sl_db| PathLoss::FreeSpace { sl_db }),
        (0.0f64..6.0, 0.1f64..20.0, -3.0f64..10.0).prop_map(|(exponent, ref_distance_m, sl_db)| {
            PathLoss::LogDistance { exponent, ref_distance_m, sl_db }
        }),
        (0.0f64..6.0, 0.1f64..20.0, 0.0f64..12.0, -3.0f64..10.0).prop_map(
            |(exponent, ref_distance_m, sigma_db, sl_db)| PathLoss::LogNormalShadowing {
                exponent,
                ref_distance_m,
                sigma_db,
                sl_db
            }
        ),
        (0.0f64..30.0, 0.0f64..30.0, -3.0f64..10.0).prop_map(
            |(tx_height_m, rx_height_m, sl_db)| {
                PathLoss::TwoRayGround { tx_height_m, rx_height_m, sl_db }
            }
        ),
        (0u32..5, 0.0f64..25.0, 0.0f64..45.0).prop_map(
            |(n_floors, floor_loss_db, power_loss_coefficient)| {
                PathLoss::Itu { n_floors, floor_loss_db, power_loss_coefficient }
            }
        ),
    ]
}

proptest! {
    #[test]
    fn loss_non_decreasing_in_distance(
        m in model_strategy(),
        a in 0.0f64..5000.0,
        b in 0.0f64..5000.0,
        f in prop_oneof![Just(2412.0f64), Just(5180.0f64), 100.0f64..6000.0],
        x in -3.0f64..3.0,
    ) {
        let (near, far) = if a <= b { (a, b) } else { (b, a) };
        let (l_near, l_far) = (m.loss_db(near, f, x), m.loss_db(far, f, x));
        prop_assert!(l_near.is_finite() && l_near >= 0.0);
        prop_assert!(l_near <= l_far, "{m:?} at {f} MHz: {l_near} dB at {near} m > {l_far} dB at {far} m");
    }
}
