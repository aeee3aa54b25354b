//! The SDMAC paper's one-shot on emu: exact air times, the truth, and the components.

use sdmac_api::{Ac, Body, Span, Status, TxAttrs, Wait};
use sdmac_emu::setup::{paper_medium, Loss, PaperSetup, AP, AP_ADDR, STA};
use sdmac_emu::{DeviceWait, EmuOptions, EmuSession};
use sdmac_frame::MacAddress;
use sdmac_phy::Rate;
use std::time::Duration;

fn session(p: &PaperSetup, wait: DeviceWait) -> EmuSession {
    let (m, ap, sta) = paper_medium(p).unwrap();
    EmuSession::start(m, &[(AP, ap), (STA, sta)], EmuOptions { wait, ..EmuOptions::default() })
        .unwrap()
}

/// Sends `n` one-shots 300 µs apart; returns (set, Ttoa ns, Tca ns) of each.
fn one_shots(p: &PaperSetup, n: u64) -> Vec<(&'static str, i64, i64)> {
    let mut s = session(p, DeviceWait::Park { spin_ns: 200_000 });
    let mut sta = s.take(STA).unwrap();
    // Wait out the first beacon (at 1 ms, about 130 µs long; the next comes 51.2 ms
    // later), so that no one-shot meets it.
    std::thread::sleep(Duration::from_millis(3));
    let attrs = TxAttrs::one_shot(MacAddress(AP_ADDR), Rate::Ofdm54);
    let mut out = Vec::new();
    for id in 0..n {
        sta.data_req(id, Body::Payload(&[7u8; 50]), Ac::Be, &attrs).unwrap();
        let c = sta.data_con(Wait::For(Duration::from_secs(2))).unwrap().expect("a confirmation");
        assert_eq!(c.id, id);
        let k = c.ts.components().expect("timestamps recorded");
        assert_eq!(k.tsw_req + k.thw + k.tca + k.ttoa + k.tsw_con, k.tpath);
        out.push((c.set_name(), k.ttoa, k.tca));
        std::thread::sleep(Duration::from_micros(300));
    }
    out
}

#[test]
fn acked_one_shot_is_96_us_on_air() {
    let r = one_shots(&PaperSetup::default(), 20);
    for (set, ttoa, tca) in r {
        assert_eq!(set, "A");
        assert_eq!(ttoa, 96_000, "DATA 36 + SIFS 16 + ACK 44 µs");
        assert_eq!(tca, 0, "quiet channel: immediate access");
    }
}

#[test]
fn lost_data_waits_for_the_ack_timeout() {
    let p = PaperSetup { loss_data: Loss::Probability(1.0), ..PaperSetup::default() };
    for (set, ttoa, _) in one_shots(&p, 5) {
        assert_eq!((set, ttoa), ("LD", 81_000), "DATA 36 + ACKTimeout 45 µs");
    }
    let p = PaperSetup {
        loss_data: Loss::Probability(1.0),
        ack_timeout_ns: Some(25_000),
        ..PaperSetup::default()
    };
    for (set, ttoa, _) in one_shots(&p, 3) {
        assert_eq!((set, ttoa), ("LD", 61_000), "DATA 36 + ath9k's 25 µs");
    }
}

#[test]
fn lost_ack_is_bimodal() {
    // Preamble missed: the sender gives up at the ACKTimeout.
    let p = PaperSetup {
        loss_ack: Loss::Probability(1.0),
        ack_preamble_share: 1.0,
        ..PaperSetup::default()
    };
    for (set, ttoa, _) in one_shots(&p, 3) {
        assert_eq!((set, ttoa), ("LA", 81_000));
    }
    // Corrupted after its preamble: the sender waits for the ACK's end.
    let p = PaperSetup {
        loss_ack: Loss::Probability(1.0),
        ack_preamble_share: 0.0,
        ..PaperSetup::default()
    };
    for (set, ttoa, _) in one_shots(&p, 3) {
        assert_eq!((set, ttoa), ("LA", 96_000));
    }
}

#[test]
fn payload_arrives_and_beacons_are_heard() {
    let mut s = session(&PaperSetup::default(), DeviceWait::Park { spin_ns: 100_000 });
    let mut sta = s.take(STA).unwrap();
    let mut ap = s.take(AP).unwrap();
    let b1 = sta.beacon_ind(Wait::For(Duration::from_secs(1))).unwrap().expect("a beacon");
    let b2 = sta.beacon_ind(Wait::For(Duration::from_secs(1))).unwrap().expect("a second beacon");
    assert_eq!(b1.bssid, MacAddress(AP_ADDR));
    assert_eq!(b2.seq, b1.seq + 1);
    assert_eq!(
        b2.t_start - b1.t_start,
        Span::from_ns(51_200_000),
        "50 TU apart on the medium's clock"
    );
    // The TSF each beacon carries: µs of medium time at its start.
    let origin = s.origin();
    for b in [&b1, &b2] {
        assert_eq!(b.tsf_us, Some((b.t_start.as_ns() - origin) / 1000), "{b:?}");
    }
    let payload: Vec<u8> = (0..50).collect();
    sta.data_req(
        9,
        Body::Payload(&payload),
        Ac::Be,
        &TxAttrs::one_shot(MacAddress(AP_ADDR), Rate::Ofdm54),
    )
    .unwrap();
    let c = sta.data_con(Wait::For(Duration::from_secs(1))).unwrap().unwrap();
    assert_eq!(c.status, Status::Acked);
    let mut buf = Vec::new();
    let ind = ap
        .data_ind(&mut buf, Wait::For(Duration::from_secs(1)))
        .unwrap()
        .expect("the AP receives it");
    assert_eq!(&buf[ind.payload_offset..], &payload[..]);
    assert_eq!(ind.src, sta.backend().address());
    assert_eq!(ind.len, 86 - 4);
    assert!(ind.rx.t_end <= c.ts.t5);
}
