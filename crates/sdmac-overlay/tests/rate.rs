//! Rate adaptation on the emu backend: a station 40 m from its AP on 802.11a, whose
//! SNR (about 19 dB at 20 dBm) makes 48 and 54 Mb/s fail; lowering the station's
//! transmit power during a run (the `tx_power` attribute) moves the link as if the
//! station walked away.

use sdmac_api::{MacAddress, Rate, RateSeries, Span};
use sdmac_emu::setup::{paper_medium, PaperSetup, AP, AP_ADDR, STA};
use sdmac_emu::{EmuOptions, EmuSession};
use sdmac_overlay::rate::{run, Minstrel, MinstrelConfig, Policy, RatePlan, RateRun};
use sdmac_phy::{Phy, Standard};

const DST: MacAddress = MacAddress(AP_ADDR);

fn one_run(policy: &mut Policy, plan: &RatePlan) -> RateRun {
    let p = PaperSetup { distance_m: 40.0, seed: 7, ..PaperSetup::default() };
    let (m, ap, sta) = paper_medium(&p).unwrap();
    let mut s = EmuSession::start(m, &[(AP, ap), (STA, sta)], EmuOptions::default()).unwrap();
    let mut sta = s.take(STA).unwrap();
    // The AP's interface is not read: its indications pile up unread, as nobody asks.
    let r = run(&mut sta, DST, policy, plan).unwrap();
    assert_eq!(r.phases.len(), plan.steps.len() + 1);
    assert!(r.delivered <= r.sent);
    r
}

fn adaptive() -> Policy {
    let cfg = MinstrelConfig {
        update_interval: Span::from_ms(20),
        ..MinstrelConfig::new(Phy::new(Standard::Dot11a))
    };
    Policy::Adaptive(Box::new(Minstrel::new(cfg).unwrap()))
}

/// A fixed rate with as many tries as the adaptation's series has in all.
fn fixed(rate: Rate) -> Policy {
    Policy::Fixed(RateSeries::single(rate, 8))
}

#[test]
fn settles_above_the_lowest_and_below_the_failing_rates() {
    let plan = RatePlan { duration: Span::from_ms(400), payload_len: 2000, ..RatePlan::default() };
    let a = one_run(&mut adaptive(), &plan);
    let top = one_run(&mut fixed(Rate::Ofdm54), &plan);
    let low = one_run(&mut fixed(Rate::Ofdm6), &plan);
    println!("adaptive {a:?}\n54 Mb/s {top:?}\n6 Mb/s {low:?}");
    let best = a.phases[0].best.unwrap();
    assert!(best != Rate::Ofdm54 && best != Rate::Ofdm6, "settled on {best}");
    assert!(a.delivered > top.delivered, "{} <= {} at 54 Mb/s", a.delivered, top.delivered);
    assert!(a.delivered > low.delivered, "{} <= {} at 6 Mb/s", a.delivered, low.delivered);
}

#[test]
fn follows_a_station_moving_away() {
    // 20 dBm, then 14, then 10: each step costs the link the rates at the top.
    let steps = vec![(Span::from_ms(400), 14.0), (Span::from_ms(800), 10.0)];
    let plan =
        RatePlan { duration: Span::from_ms(1200), payload_len: 2000, steps, ..RatePlan::default() };
    let a = one_run(&mut adaptive(), &plan);
    println!("adaptive {a:?}");
    let best: Vec<Rate> = a.phases.iter().map(|p| p.best.unwrap()).collect();
    assert!(
        best.windows(2).all(|w| w[1].kbps() < w[0].kbps()),
        "the best rate did not come down at each step: {best:?}"
    );
    // Against the rate that was best at the start (it fails once the station has
    // moved) and the lowest rate (it works throughout, slowly). Whether the adaptation
    // beats every fixed rate is a throughput figure: bench/overlay_b.py prints it.
    for r in [best[0], Rate::Ofdm6] {
        let f = one_run(&mut fixed(r), &plan);
        let per_phase: Vec<u64> = f.phases.iter().map(|p| p.delivered).collect();
        println!("fixed {r}: {} delivered, per phase {per_phase:?}", f.delivered);
        assert!(
            a.delivered > f.delivered,
            "adaptive {} <= {} at fixed {r}",
            a.delivered,
            f.delivered
        );
    }
}
