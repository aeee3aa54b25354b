//! Unit tests of the TDMA plan, synchronisation and control frames.

use super::error::TdmaError;
use super::guard::Guard;
use super::plan::{TdmaParams, TdmaPlan};
use super::sync::TsfSync;
use sdmac_api::{Rate, Span, Time};
use sdmac_phy::{Phy, Standard};

fn params() -> TdmaParams {
    TdmaParams {
        phy: Phy::new(Standard::Dot11a),
        round: Span::from_ms(10),
        slots: 4,
        slot: Span::from_ms(2),
        contention: Span::from_ms(1),
        guard: Guard { jitter: Span::from_us(50), sync_error: Span::from_us(10) },
        payload: 200,
        rate: Rate::Ofdm24,
        epoch: Time::from_ns(1_000_000_000),
    }
}

#[test]
fn a_good_plan_is_accepted_and_printed() {
    let p = TdmaPlan::new(params()).unwrap();
    let s = p.to_string();
    assert!(
        s.contains("guard 60.0 µs = request-path jitter 50.0 µs + synchronisation error 10.0 µs"),
        "{s}"
    );
    assert!(p.frames_per_slot() >= 1);
    let (o, c) = p.slot_window(2, 1);
    assert_eq!(o.as_ns(), 1_000_000_000 + 20_000_000 + 2_000_000 + 60_000);
    assert_eq!(c.as_ns(), 1_000_000_000 + 20_000_000 + 4_000_000 - 60_000);
    assert_eq!(p.round_at(Time::from_ns(1_025_000_000)), 2);
}

#[test]
fn impossible_plans_are_refused() {
    let e = TdmaPlan::new(TdmaParams { slots: 0, ..params() }).unwrap_err();
    assert_eq!(e, TdmaError::NoSlots);
    let e = TdmaPlan::new(TdmaParams { slots: 5, ..params() }).unwrap_err();
    assert!(matches!(e, TdmaError::SlotsDoNotFit { .. }), "{e}");
    assert!(e.to_string().contains("do not fit a round"), "{e}");
    let g = Guard { jitter: Span::from_ms(1), sync_error: Span::from_us(10) };
    let e = TdmaPlan::new(TdmaParams { guard: g, ..params() }).unwrap_err();
    assert!(matches!(e, TdmaError::GuardLargerThanSlot { .. }), "{e}");
    let e = TdmaPlan::new(TdmaParams { payload: 2304, rate: Rate::Ofdm6, ..params() }).unwrap_err();
    assert!(matches!(e, TdmaError::FrameDoesNotFit { .. }), "{e}");
    assert!(e.to_string().contains("at 6"), "{e}");
    let e = TdmaPlan::new(TdmaParams { round: Span::from_us(8_010), ..params() }).unwrap_err();
    assert!(matches!(e, TdmaError::SlotsDoNotFit { .. }), "{e}");
    let e = TdmaPlan::new(TdmaParams {
        round: Span::from_us(8_100),
        contention: Span::from_us(50),
        ..params()
    })
    .unwrap_err();
    assert!(matches!(e, TdmaError::ContentionTooShort { .. }), "{e}");
    let e = TdmaPlan::new(TdmaParams { rate: Rate::Cck11, ..params() }).unwrap_err();
    assert_eq!(e, TdmaError::BadRate(Rate::Cck11));
}

#[test]
fn the_tsf_fit_recovers_offset_and_drift() {
    let mut s = TsfSync::new(8);
    // local = tsf + 5 s + 20 ppm · (tsf − first), with ±300 ns of noise.
    for (i, noise) in [0i64, 300, -300, 100, -200, 250, 0, -100].iter().enumerate() {
        let tsf_us = 1_000 + i as u64 * 102_400;
        let s_ns = tsf_us * 1000;
        let l = s_ns as f64 + 5e9 + 20e-6 * (s_ns - 1_000_000) as f64 + *noise as f64;
        s.observe(tsf_us, Time::from_ns(l as u64));
    }
    let t = 1_000_000 + 800 * 102_400_000 / 100;
    let want = t as f64 + 5e9 + 20e-6 * (t - 1_000_000) as f64;
    let got = s.to_local(t).unwrap().as_ns() as f64;
    let err = s.error().unwrap().as_ns() as f64;
    assert!((got - want).abs() <= err, "{got} vs {want}, error {err}");
    assert!(err < 2_000.0, "{err}");
}
