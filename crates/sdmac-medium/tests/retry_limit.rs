//! A frame whose rate series allows more than 255 tries (the daemon takes the kernel's
//! four entries of up to 255 each) gets 255 attempts, reported once, and the queue
//! moves on. Found by the `hwsim_msg` fuzz target: the attempt counters overflowed.

use sdmac_medium::*;
use sdmac_phy::{ErrorModel, Phy, Rate, RateSet, Standard};

#[test]
fn a_frame_gets_at_most_255_attempts() {
    let mut phy = Phy::new(Standard::Dot11a);
    phy.basic_rates = RateSet::from_rates(&[Rate::Ofdm6]);
    let mut cfg = MediumConfig::new(phy.clone());
    cfg.error_model = ErrorModel::NoErrors;
    let mut m = Medium::new(cfg);
    let ap = m.add_station(StationConfig::new(&phy, [2, 0, 0, 0, 0, 1], [0.0; 3]));
    let sta = m.add_station(StationConfig::new(&phy, [2, 0, 0, 0, 0, 2], [10.0, 0.0, 0.0]));
    // Every DATA is lost: each try is used.
    m.set_link(sta, ap, LinkOverride { error_prob: Some(1.0), ..Default::default() });
    let series =
        RateSeries::new(&[(Rate::Ofdm54, 255), (Rate::Ofdm54, 255), (Rate::Ofdm6, 3)]).unwrap();
    assert_eq!(series.total_tries(), 513);
    let req = |handle| TxRequest {
        handle,
        dst: Dest::Station(ap),
        len: 86,
        ac: Ac::Be,
        rates: Some(series),
        no_ack: false,
    };
    let mut c = Collect::default();
    m.enqueue(0, sta, req(1)).unwrap();
    m.enqueue(0, sta, req(2)).unwrap();
    // 255 attempts at 54 Mb/s with backoff up to CWmax take well under 10 s each.
    m.advance(20 * SECONDS, &mut c);
    let reports: Vec<_> = c.tx.iter().filter(|r| r.station == sta).collect();
    assert_eq!(reports.len(), 2, "both frames are reported, once each");
    for r in reports {
        assert_eq!((r.outcome, r.attempts), (Outcome::DataLost, 255));
        assert_eq!(&r.rates[..r.n_rates as usize], &[(Rate::Ofdm54, 255)]);
    }
}
