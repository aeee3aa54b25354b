//! Unit tests of the header, the duplicate filter, the modes, the run plan and its percentiles.

use super::error::RedundancyError;
use super::header::{decode, encode, HEADER_LEN, MAX_APP_PAYLOAD};
use super::receiver::DuplicateFilter;
use super::run::{Percentiles, RunPlan};
use super::sender::Mode;

#[test]
fn header_round_trip() {
    let mut b = Vec::new();
    encode(0x0102_0304_0506_0708, b"hello", &mut b);
    assert_eq!(b.len(), HEADER_LEN + 5);
    assert_eq!(decode(&b), Some((0x0102_0304_0506_0708, &b"hello"[..])));
    assert_eq!(decode(b"WR"), None);
    assert_eq!(decode(b"XX\0\0\0\0\0\0\0\0abc"), None);
}

#[test]
fn filter_accepts_each_number_once() {
    let mut f = DuplicateFilter::new();
    assert!(f.accept(5));
    assert!(!f.accept(5));
    assert!(f.accept(3));
    assert!(!f.accept(3));
    assert!(f.accept(7));
    assert!(f.accept(6));
    assert!(!f.accept(6));
    // Far ahead: the window slides, old numbers are duplicates.
    assert!(f.accept(5000));
    assert!(!f.accept(7));
    assert!(f.accept(4999));
    assert!(!f.accept(4999));
    // A number whose slot was used by an older one is new again once it slides in.
    assert!(f.accept(5000 + DuplicateFilter::WINDOW - 1));
    assert!(f.accept(5000 + DuplicateFilter::WINDOW + 1));
    assert!(!f.accept(5000 + DuplicateFilter::WINDOW + 1));
}

#[test]
fn plan_refusals() {
    let ok = RunPlan::default();
    assert!(ok.check().is_ok());
    let e = RunPlan { packets: 0, ..ok }.check().unwrap_err();
    assert!(e.to_string().contains("packets = 0"), "{e}");
    let e = RunPlan { window: 0, ..ok }.check().unwrap_err();
    assert!(e.to_string().contains("window is 0"), "{e}");
    let e = RunPlan { payload_len: MAX_APP_PAYLOAD + 1, ..ok }.check().unwrap_err();
    assert!(matches!(e, RedundancyError::PayloadTooLong { .. }), "{e}");
    let e = RunPlan { stall_ms: 0, ..ok }.check().unwrap_err();
    assert!(e.to_string().contains("stall_ms"), "{e}");
}

#[test]
fn percentiles_by_nearest_rank() {
    let mut v: Vec<u64> = (1..=100).collect();
    let p = Percentiles::of(&mut v);
    assert_eq!((p.p50, p.p90, p.p95, p.p99, p.max), (50, 90, 95, 99, 100));
    assert_eq!(Percentiles::of(&mut []), Percentiles::default());
    // Nearest rank: of 20 samples the 95th percentile is the 19th, whatever their order.
    let mut v: Vec<u64> = (1..=20).rev().map(|k| 10 * k).collect();
    let p = Percentiles::of(&mut v);
    assert_eq!((p.p50, p.p90, p.p95, p.p99, p.max), (100, 180, 190, 200, 200));
    let mut one = [7];
    let p = Percentiles::of(&mut one);
    assert_eq!((p.p50, p.p95, p.max), (7, 7, 7));
}

#[test]
fn modes_by_name() {
    for m in [Mode::OneChannel, Mode::TwoChannels, Mode::TwoChannelsCancel] {
        assert_eq!(Mode::from_name(m.name()), Some(m));
    }
    assert_eq!(Mode::from_name("three"), None);
}
