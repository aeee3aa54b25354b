//! `Medium::set_detached`: a station away from the medium (a radio tuned to another
//! channel) has no link either way; back, it has its links again.

use sdmac_medium::{
    Ac, Collect, Dest, Medium, MediumConfig, Outcome, RateSeries, StationConfig, TxRequest,
};
use sdmac_phy::{ErrorModel, Phy, Rate, Standard};

fn medium_of(n: usize) -> Medium {
    let phy = Phy::new(Standard::Dot11a);
    let mut cfg = MediumConfig::new(phy.clone());
    cfg.error_model = ErrorModel::NoErrors;
    let mut m = Medium::new(cfg);
    for i in 0..n {
        m.add_station(StationConfig::new(&phy, [2, 0, 0, 0, i as u8, 0], [i as f64, 0.0, 0.0]));
    }
    m
}

fn send(m: &mut Medium, at: u64, from: u32, to: Dest, handle: u64) {
    let req = TxRequest {
        handle,
        dst: to,
        len: 500,
        ac: Ac::Be,
        rates: Some(RateSeries::single(Rate::Ofdm6, 3)),
        no_ack: false,
    };
    m.enqueue(at, from, req).expect("queued");
}

#[test]
fn a_detached_station_neither_hears_nor_is_heard() {
    let mut m = medium_of(3);
    assert!(m.link_power_dbm(0, 2).is_some());
    m.set_detached(2, true);
    assert!(m.is_detached(2));
    assert_eq!(m.link_power_dbm(0, 2), None);
    assert_eq!(m.link_power_dbm(2, 0), None);
    assert!(m.link_power_dbm(0, 1).is_some(), "the others keep theirs");
    let mut sink = Collect::default();
    send(&mut m, 0, 0, Dest::Station(2), 1);
    send(&mut m, 0, 0, Dest::Broadcast, 2);
    m.advance(100_000_000, &mut sink);
    let outcome = |h: u64| sink.tx.iter().find(|r| r.handle == h).map(|r| r.outcome);
    assert_eq!(outcome(1), Some(Outcome::DataLost), "nobody acknowledges: {:?}", sink.tx);
    assert!(sink.rx.iter().all(|r| r.station != 2), "a detached station receives nothing");
    assert!(sink.rx.iter().any(|r| r.station == 1 && r.handle == 2), "the others do");

    // Back: its links are what they were.
    m.set_detached(2, false);
    assert!(m.link_power_dbm(0, 2).is_some() && m.link_power_dbm(2, 0).is_some());
    let mut sink = Collect::default();
    send(&mut m, 100_000_000, 0, Dest::Station(2), 3);
    m.advance(200_000_000, &mut sink);
    assert_eq!(sink.tx.iter().find(|r| r.handle == 3).map(|r| r.outcome), Some(Outcome::Acked));
}

#[test]
fn detaching_a_receiver_mid_frame_ends_its_reception() {
    let mut m = medium_of(2);
    let mut sink = Collect::default();
    send(&mut m, 0, 0, Dest::Station(1), 1);
    // The frame (500 bytes at 6 Mb/s, ~690 µs) is on air at 200 µs.
    m.advance(200_000, &mut sink);
    m.set_detached(1, true);
    m.advance(100_000_000, &mut sink);
    let r = sink.tx.iter().find(|r| r.handle == 1).expect("a report");
    assert_eq!(r.outcome, Outcome::DataLost, "{r:?}");
    assert!(sink.rx.is_empty(), "{:?}", sink.rx);
}
