//! Software retransmission on the emu backend (the SDMAC paper's Fig. 1): an
//! interferer hidden from the sender sends bursts of back-to-back frames that the
//! receiver hears; a policy that retries beyond the burst delivers more packets within
//! their deadline than the MAC's back-to-back retries.

use sdmac_api::{Ac, Body, Interface, MacAddress, Rate, RateSeries, Span, TxAttrs};
use sdmac_emu::{EmuIface, EmuOptions, EmuSession};
use sdmac_medium::{LinkOverride, Medium, MediumConfig, StationConfig};
use sdmac_overlay::exchange::wait_until;
use sdmac_overlay::retransmit::{
    BeyondBurst, DeadlineSpread, Fate, MacRetries, Policy, RetransmitError, Retransmitter,
};
use sdmac_phy::{Phy, Standard};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

const AP: [u8; 6] = [2, 0, 0, 0, 0, 1];
const STA: [u8; 6] = [2, 0, 0, 0, 0, 2];
const INT: [u8; 6] = [2, 0, 0, 0, 0, 3];
const BROADCAST: MacAddress = MacAddress([0xff; 6]);

/// Interference bursts: every `PERIOD`, `BURST_FRAMES` frames of 2000 B at 6 Mb/s
/// (2.7 ms each) back to back, about 33 ms in all.
const PERIOD: Span = Span::from_ms(90);
const BURST_FRAMES: usize = 12;
/// A set burst length a little longer than the bursts.
const BURST: Span = Span::from_ms(38);
/// Packets: one every 15 ms, each due 60 ms after it is handed over.
const PACKETS: u64 = 40;
const SPACING: Span = Span::from_ms(15);
const DEADLINE: Span = Span::from_ms(60);

fn link(dbm: f64) -> LinkOverride {
    LinkOverride { rx_power_dbm: Some(dbm), ..LinkOverride::default() }
}

/// AP, sender and interferer; the AP hears both (the interferer 10 dB louder), the
/// sender and the interferer cannot hear each other.
fn medium(seed: u64) -> (Medium, Phy) {
    let phy = Phy::new(Standard::Dot11a);
    let mut cfg = MediumConfig::new(phy.clone());
    cfg.seed = seed;
    let mut m = Medium::new(cfg);
    let ap = m.add_station(StationConfig::new(&phy, AP, [0.0, 0.0, 0.0]));
    let sta = m.add_station(StationConfig::new(&phy, STA, [10.0, 0.0, 0.0]));
    let int = m.add_station(StationConfig::new(&phy, INT, [-10.0, 0.0, 0.0]));
    for (a, b, p) in [(sta, ap, -65.0), (int, ap, -55.0), (sta, int, -130.0)] {
        m.set_link(a, b, link(p));
        m.set_link(b, a, link(p));
    }
    (m, phy)
}

/// Sends a burst every `PERIOD` until `stop`; returns the bursts sent.
fn interferer(mut i: Interface<EmuIface>, stop: Arc<AtomicBool>) -> u32 {
    let attrs = TxAttrs {
        dst: Some(BROADCAST),
        rates: Some(RateSeries::single(Rate::Ofdm6, 1)),
        no_ack: true,
        timestamps: true,
        not_before: None,
        not_after: None,
    };
    let frame = [0x55u8; 2000];
    let mut next = i.now();
    let mut bursts = 0;
    let mut id = 1 << 40;
    while !stop.load(Ordering::Acquire) {
        let _ = wait_until(&mut i, next).expect("interferer wait");
        for _ in 0..BURST_FRAMES {
            i.data_req(id, Body::Payload(&frame), Ac::Be, &attrs).expect("interferer data_req");
            id += 1;
        }
        for _ in 0..BURST_FRAMES {
            i.data_con(sdmac_api::Wait::For(std::time::Duration::from_secs(2)))
                .expect("interferer data_con")
                .expect("interferer confirmation");
        }
        bursts += 1;
        next += PERIOD;
    }
    bursts
}

/// Runs `PACKETS` packets under `policy` against the bursts; returns the fates.
fn run(policy: &mut dyn Policy, seed: u64) -> Vec<Fate> {
    let (m, phy) = medium(seed);
    let mut s = EmuSession::start(m, &[("sta", 1), ("int", 2)], EmuOptions::default()).unwrap();
    let mut sta = s.take("sta").unwrap();
    let int = s.take("int").unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let st = stop.clone();
    let h = std::thread::spawn(move || interferer(int, st));
    // Let the first burst begin.
    let t0 = sta.now() + Span::from_ms(5);
    let mut tx = Retransmitter::new(&mut sta, phy, MacAddress(AP), Ac::Be, 1);
    let mut fates = Vec::new();
    for k in 0..PACKETS {
        let at = t0 + SPACING.saturating_mul(k);
        wait_until(tx.iface(), at).unwrap();
        let deadline = tx.iface().now() + DEADLINE;
        let r = tx.send(&[k as u8; 200], deadline, policy).unwrap();
        if let Some(a) = r.acked_at {
            assert_eq!(r.fate == Fate::Delivered, a <= deadline, "{r:?}");
        }
        fates.push(r.fate);
    }
    stop.store(true, Ordering::Release);
    let bursts = h.join().unwrap();
    assert!(bursts >= 3, "only {bursts} bursts ran");
    s.close();
    fates
}

fn delivered(f: &[Fate]) -> usize {
    f.iter().filter(|f| **f == Fate::Delivered).count()
}

#[test]
fn retrying_beyond_the_burst_beats_back_to_back_retries() {
    let mut mac = MacRetries::new(RateSeries::single(Rate::Ofdm24, 7)).unwrap();
    let mut beyond = BeyondBurst::new(RateSeries::single(Rate::Ofdm24, 2), 3, BURST).unwrap();
    let mut spread = DeadlineSpread::new(RateSeries::single(Rate::Ofdm24, 2), 4).unwrap();
    let a = run(&mut mac, 7);
    let b = run(&mut beyond, 7);
    let c = run(&mut spread, 7);
    println!(
        "delivered within {DEADLINE} of {PACKETS}: {} {}, {} {}, {} {}",
        mac.name(),
        delivered(&a),
        beyond.name(),
        delivered(&b),
        spread.name(),
        delivered(&c)
    );
    assert!(delivered(&a) < PACKETS as usize, "the bursts never hit the MAC's retries: {a:?}");
    assert!(delivered(&b) > delivered(&a), "beyond the burst {b:?} vs back to back {a:?}");
}

#[test]
fn a_past_or_too_close_deadline_is_refused_before_sending() {
    let (m, phy) = medium(1);
    let mut s = EmuSession::start(m, &[("sta", 1)], EmuOptions::default()).unwrap();
    let mut sta = s.take("sta").unwrap();
    let mut tx = Retransmitter::new(&mut sta, phy, MacAddress(AP), Ac::Be, 1);
    let mut p = MacRetries::new(RateSeries::single(Rate::Ofdm6, 7)).unwrap();
    let now = tx.iface().now();
    let e = tx.send(&[0; 1500], now, &mut p).unwrap_err();
    assert!(matches!(e, RetransmitError::DeadlinePast { .. }), "{e}");
    // 7 tries of 1.5 kB at 6 Mb/s take more than 14 ms: 1 ms is too close.
    let soon = tx.iface().now() + Span::from_ms(1);
    let e = tx.send(&[0; 1500], soon, &mut p).unwrap_err();
    assert!(matches!(e, RetransmitError::DeadlineTooClose { .. }), "{e}");
    assert_eq!(tx.iface().unconfirmed(), 0, "nothing was sent");
}
