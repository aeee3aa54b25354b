//! Changes while a frame is on air — a station joining, a link appearing, vanishing
//! or crossing the carrier-sense threshold — must not leave any station's carrier
//! sense counting a frame that has ended (it would think the medium busy for ever and
//! never send again).

use sdmac_medium::*;
use sdmac_phy::{ErrorModel, Phy, Rate, Standard};

const US: u64 = 1_000;
const MS: u64 = 1_000_000;

fn medium() -> (Medium, Phy) {
    let phy = Phy::new(Standard::Dot11a);
    let mut cfg = MediumConfig::new(phy.clone());
    cfg.error_model = ErrorModel::NoErrors;
    (Medium::new(cfg), phy)
}

fn sta(phy: &Phy, i: u8) -> StationConfig {
    StationConfig::new(phy, [2, 0, 0, 0, 0, i], [i as f64, 0.0, 0.0])
}

/// A 1500-byte frame at 6 Mb/s: about 2 ms on air.
fn long(handle: u64, dst: Dest) -> TxRequest {
    TxRequest {
        handle,
        dst,
        len: 1536,
        ac: Ac::Be,
        rates: Some(RateSeries::single(Rate::Ofdm6, 1)),
        no_ack: false,
    }
}

/// Every station sends one more frame afterwards and every one gets its report.
fn all_still_send(m: &mut Medium, n: u32, at: u64) {
    for s in 0..n {
        let dst = Dest::Station((s + 1) % n);
        m.enqueue(at, s, long(100 + s as u64, dst)).unwrap();
    }
    let mut c = Collect::default();
    m.advance(at + 200 * MS, &mut c);
    for s in 0..n {
        assert!(
            c.tx.iter().any(|r| r.handle == 100 + s as u64),
            "station {s} never sent again: {:?}",
            c.tx
        );
    }
    assert_eq!(m.next_event_time(), None, "nothing left pending");
}

#[test]
fn a_station_joining_mid_frame() {
    let (mut m, phy) = medium();
    m.add_station(sta(&phy, 0));
    m.add_station(sta(&phy, 1));
    m.enqueue(0, 0, long(1, Dest::Station(1))).unwrap();
    let mut c = Collect::default();
    m.advance(500 * US, &mut c); // the frame is on air
    let late = m.add_station(sta(&phy, 2));
    assert_eq!(late, 2);
    m.advance(10 * MS, &mut c);
    assert!(c.tx.iter().any(|r| r.handle == 1 && r.outcome == Outcome::Acked));
    all_still_send(&mut m, 3, 20 * MS);
}

#[test]
fn links_changing_mid_frame() {
    for change in 0..4 {
        let (mut m, phy) = medium();
        for i in 0..3 {
            m.add_station(sta(&phy, i));
        }
        // Station 2 starts out of carrier-sense range of 0 (or in it, for the reverse).
        let far = LinkOverride { rx_power_dbm: Some(-95.0), ..LinkOverride::default() };
        let near = LinkOverride { rx_power_dbm: Some(-40.0), ..LinkOverride::default() };
        let gone = LinkOverride { rx_power_dbm: Some(-200.0), ..LinkOverride::default() };
        let before = [far, near, near, gone][change];
        let during = [near, far, gone, near][change];
        m.set_link(0, 2, before);
        m.enqueue(0, 0, long(1, Dest::Station(1))).unwrap();
        let mut c = Collect::default();
        m.advance(500 * US, &mut c);
        m.set_link(0, 2, during);
        m.set_position(1, [1.5, 0.0, 0.0]); // recomputes station 1's links mid-frame too
        m.advance(10 * MS, &mut c);
        assert!(c.tx.iter().any(|r| r.handle == 1), "change {change}: the first frame ended");
        all_still_send(&mut m, 3, 20 * MS);
    }
}

#[test]
fn backlog_counts_the_time_with_work_and_busy_only_the_air() {
    // Two stations, each with 20 long frames queued at 0: the medium has work from 0
    // to the last ACK's end, while air is idle during every AIFS, backoff and SIFS.
    let (mut m, phy) = medium();
    m.add_station(sta(&phy, 0));
    m.add_station(sta(&phy, 1));
    for h in 0..20 {
        m.enqueue(0, 0, long(h, Dest::Station(1))).unwrap();
        m.enqueue(0, 1, long(100 + h, Dest::Station(0))).unwrap();
    }
    let mut c = Collect::default();
    m.advance(10_000 * MS, &mut c);
    assert_eq!(c.tx.len(), 40);
    let end = c.tx.iter().map(|r| r.t_done.as_ns()).max().unwrap();
    let s = m.stats();
    assert_eq!(s.backlog_ns, end, "work from 0 to the last outcome");
    // At least DIFS (34 µs) and SIFS (16 µs) of idle air per exchange.
    assert!(s.backlog_ns - s.busy_ns >= 40 * 50 * US, "busy {} of {}", s.busy_ns, s.backlog_ns);
    // Mid-run, the current backlog period counts up to now.
    let (mut m, phy) = medium();
    m.add_station(sta(&phy, 0));
    m.add_station(sta(&phy, 1));
    m.enqueue(MS, 0, long(1, Dest::Station(1))).unwrap();
    m.advance(2 * MS, &mut Collect::default());
    assert_eq!(m.stats().backlog_ns, MS);
}
