//! sdmac's extension on the daemon's medium, without sockets: one truth record per
//! frame answered, agreeing with its status; EDCA, ACK timeout and link values set
//! and read back, applied to the live medium; bad values refused with their code.

mod common;

use common::*;
use sdmac_control::ext::{
    Edca, ExtRequest, ExtResult, ReplyBody, TruthCause, TruthOutcome, TruthRecord,
};
use sdmac_control::Request;
use sdmac_mediumd::ext_requests::apply_ext;
use sdmac_mediumd::hwsim_medium::{hw_addr_of, HwsimMedium, LinkModel, Output, Setup};
use sdmac_mediumd::mininet_requests::apply;
use sdmac_phy::Rate;
use sdmac_types::MacAddress;

const A: MacAddress = MacAddress([0x02, 0, 0, 0, 0, 0]);
const B: MacAddress = MacAddress([0x02, 0, 0, 0, 1, 0]);

fn prob_medium(p: f64) -> HwsimMedium {
    HwsimMedium::new(Setup {
        interfaces: vec![A, B],
        model: LinkModel::Prob { default_prob: 0.0, links: vec![(A, B, p)] },
        ..Setup::default()
    })
}

/// Sends `n` frames A → B one after the other (each after the previous one's
/// status), one try each; the statuses (cookie, acked, attempts) and the records.
/// A status: (cookie, acked, attempts per entry).
type Status = (u64, bool, Vec<u8>);

fn one_by_one(m: &mut HwsimMedium, n: u64, tries: u8) -> (Vec<Status>, Vec<TruthRecord>) {
    let mut statuses = Vec::new();
    let mut records = Vec::new();
    let mut t = MS;
    for cookie in 0..n {
        let f = data(A, B, &[cookie as u8; 200]);
        let mut out = send(m, t, A, &f, Rate::Ofdm54, tries, cookie);
        t += 5 * MS;
        m.advance(t, &mut out);
        for o in out {
            if let Output::TxStatus { cookie, acked, attempts, .. } = o {
                statuses.push((cookie, acked, attempts.to_vec()));
            }
        }
        m.take_truth(&mut records);
    }
    (statuses, records)
}

#[test]
fn one_record_per_status_and_the_ld_share_is_the_links() {
    let mut m = prob_medium(0.3);
    m.set_truth(true);
    let n = 2000;
    let (statuses, records) = one_by_one(&mut m, n, 1);
    assert_eq!(statuses.len() as u64, n);
    assert_eq!(records.len(), statuses.len(), "exactly one record per frame answered");
    let mut ld = 0;
    for ((cookie, acked, attempts), r) in statuses.iter().zip(&records) {
        assert_eq!(r.cookie, *cookie);
        assert_eq!((r.transmitter, r.ta, r.ra), (hw_addr_of(A), A, B));
        assert_eq!(*acked, r.outcome == TruthOutcome::Acked, "{r:?}");
        assert_eq!(
            r.attempts[..r.n_entries as usize].iter().map(|a| a.count).collect::<Vec<_>>(),
            *attempts
        );
        assert_eq!(r.attempts[0].kbps, 54_000);
        assert_eq!(r.ac, 1, "non-QoS data goes on BE");
        assert!(r.t_arrival_ns <= r.t_first_start_ns && r.t_first_start_ns < r.t_end_ns, "{r:?}");
        match r.outcome {
            TruthOutcome::Acked => assert!(r.delivered && r.cause == TruthCause::None),
            TruthOutcome::DataLost => {
                ld += 1;
                assert!(!r.delivered);
                assert_eq!(r.cause, TruthCause::LinkErrorProb);
            }
            o => panic!("only A and LD on a link lossy one way: {o:?}"),
        }
    }
    // 2000 Bernoulli(0.3) draws: 600 ± 4.4 σ (σ = 20.5).
    assert!((510..=690).contains(&ld), "LD {ld} of {n}");
}

#[test]
fn refused_broadcast_and_shutdown_frames_have_records_too() {
    let mut m = prob_medium(0.0);
    m.set_truth(true);
    let mut out = Vec::new();
    // Too short for an 802.11 header: refused.
    m.on_frame(MS, kf(A, &[8, 0, 0], 2412, vec![(Rate::Ofdm54, 1)], 1), &mut out);
    // A DSSS rate on 5 GHz: no usable rate.
    let f = data(A, B, b"x");
    m.on_frame(MS, kf(A, &f, 5180, vec![(Rate::Dsss1, 2)], 2), &mut out);
    // Broadcast: no ACK.
    let bc = data(A, MacAddress([0xff; 6]), b"hello");
    m.on_frame(MS, kf(A, &bc, 2412, vec![(Rate::Ofdm6, 1)], 3), &mut out);
    m.advance(10 * MS, &mut out);
    // One still in flight at shutdown.
    m.on_frame(20 * MS, kf(A, &f, 2412, vec![(Rate::Ofdm54, 1)], 4), &mut out);
    m.flush(&mut out);
    let mut records = Vec::new();
    m.take_truth(&mut records);
    let statuses = out.iter().filter(|o| matches!(o, Output::TxStatus { .. })).count();
    assert_eq!(records.len(), statuses);
    let by =
        |c: u64| records.iter().find(|r| r.cookie == c).unwrap_or_else(|| panic!("record of {c}"));
    assert_eq!((by(1).outcome, by(1).cause), (TruthOutcome::Dropped, TruthCause::Malformed));
    assert_eq!(
        (by(2).outcome, by(2).cause, by(2).attempts[0].kbps),
        (TruthOutcome::Dropped, TruthCause::NoUsableRate, 0)
    );
    assert_eq!((by(3).outcome, by(3).no_ack, by(3).delivered), (TruthOutcome::NoAck, true, true));
    assert_eq!((by(4).outcome, by(4).cause), (TruthOutcome::Dropped, TruthCause::Shutdown));
    // Off: nothing is kept.
    m.set_truth(false);
    m.on_frame(30 * MS, kf(A, &[8, 0, 0], 2412, vec![(Rate::Ofdm54, 1)], 5), &mut out);
    let mut none = Vec::new();
    m.take_truth(&mut none);
    assert!(none.is_empty());
}

fn edca(aifsn: u8, cw_min: u16, cw_max: u16, txop_limit_us: u16) -> Edca {
    Edca { aifsn, cw_min, cw_max, txop_limit_us }
}

#[test]
fn edca_is_set_before_and_after_a_station_joins_and_read_back() {
    let mut m = prob_medium(0.0);
    let p = edca(5, 31, 255, 0);
    // No channel yet and nothing set: the defaults depend on the band.
    let r = apply_ext(&mut m, &ExtRequest::GetEdca { tag: 1, station: A, ac: 1 });
    assert_eq!((r.tag, r.result), (1, ExtResult::NoChannel));
    let r = apply_ext(&mut m, &ExtRequest::SetEdca { tag: 2, station: A, ac: 1, params: p });
    assert_eq!((r.kind, r.tag, r.result), (0x85, 2, ExtResult::Ok));
    assert_eq!(
        apply_ext(&mut m, &ExtRequest::GetEdca { tag: 3, station: A, ac: 1 }).body,
        ReplyBody::Edca { ac: 1, params: p }
    );
    // The station joins a channel: it gets what was set, the other ACs their defaults.
    one_by_one(&mut m, 1, 1);
    assert_eq!(
        apply_ext(&mut m, &ExtRequest::GetEdca { tag: 4, station: A, ac: 1 }).body,
        ReplyBody::Edca { ac: 1, params: p }
    );
    let vo = apply_ext(&mut m, &ExtRequest::GetEdca { tag: 5, station: hw_addr_of(A), ac: 3 });
    assert_eq!(
        vo.body,
        ReplyBody::Edca { ac: 3, params: edca(2, 3, 7, 1504) },
        "802.11n at 2.4 GHz: VO's defaults"
    );
    // Set on the live medium.
    let vi = edca(3, 7, 15, 3008);
    assert_eq!(
        apply_ext(&mut m, &ExtRequest::SetEdca { tag: 6, station: A, ac: 2, params: vi }).result,
        ExtResult::Ok
    );
    assert_eq!(
        apply_ext(&mut m, &ExtRequest::GetEdca { tag: 7, station: A, ac: 2 }).body,
        ReplyBody::Edca { ac: 2, params: vi }
    );
}

#[test]
fn bad_edca_and_ack_timeout_requests_get_their_codes() {
    let mut m = prob_medium(0.0);
    let ok = edca(2, 15, 1023, 0);
    let set = |m: &mut HwsimMedium, station, ac, params| {
        apply_ext(m, &ExtRequest::SetEdca { tag: 9, station, ac, params }).result
    };
    assert_eq!(set(&mut m, MacAddress([2, 9, 9, 9, 9, 9]), 1, ok), ExtResult::UnknownStation);
    assert_eq!(set(&mut m, A, 4, ok), ExtResult::BadAc);
    assert_eq!(set(&mut m, A, 1, edca(0, 15, 1023, 0)), ExtResult::OutOfRange, "AIFSN 0");
    assert_eq!(set(&mut m, A, 1, edca(2, 16, 1023, 0)), ExtResult::OutOfRange, "CWmin not 2^k-1");
    assert_eq!(set(&mut m, A, 1, edca(2, 1023, 15, 0)), ExtResult::OutOfRange, "CWmin > CWmax");
    assert_eq!(
        set(&mut m, A, 1, edca(2, 15, 65535, 0)),
        ExtResult::OutOfRange,
        "CWmax above 32767"
    );
    assert_eq!(
        set(&mut m, A, 1, edca(2, 15, 1023, 8161)),
        ExtResult::OutOfRange,
        "TXOP limit above 8160 µs"
    );
    assert_eq!(
        apply_ext(&mut m, &ExtRequest::GetEdca { tag: 1, station: A, ac: 9 }).result,
        ExtResult::BadAc
    );
    let ack = |m: &mut HwsimMedium, station, ns| {
        apply_ext(m, &ExtRequest::SetAckTimeout { tag: 1, station, ns }).result
    };
    assert_eq!(ack(&mut m, A, 999), ExtResult::OutOfRange);
    assert_eq!(ack(&mut m, A, 10_000_001), ExtResult::OutOfRange);
    assert_eq!(ack(&mut m, MacAddress([2, 9, 9, 9, 9, 9]), 50_000), ExtResult::UnknownStation);
    assert_eq!(
        apply_ext(
            &mut m,
            &ExtRequest::GetAckTimeout { tag: 1, station: MacAddress([2, 9, 9, 9, 9, 9]) }
        )
        .result,
        ExtResult::UnknownStation
    );
    assert_eq!(
        apply_ext(
            &mut m,
            &ExtRequest::GetLink { tag: 1, from: A, to: MacAddress([2, 9, 9, 9, 9, 9]) }
        )
        .result,
        ExtResult::UnknownStation
    );
    // Nothing was changed by the refused requests.
    assert_eq!(
        apply_ext(&mut m, &ExtRequest::GetEdca { tag: 1, station: A, ac: 1 }).result,
        ExtResult::NoChannel
    );
}

#[test]
fn a_short_ack_timeout_applies_to_the_live_medium() {
    let mut m = prob_medium(0.0);
    m.set_truth(true);
    let (statuses, _) = one_by_one(&mut m, 5, 1);
    assert!(statuses.iter().all(|s| s.1), "acked with the PHY's ACK timeout");
    let r = apply_ext(&mut m, &ExtRequest::GetAckTimeout { tag: 1, station: A });
    let ReplyBody::AckTimeout(phy) = r.body else { panic!("{r:?}") };
    assert_eq!(r.result, ExtResult::Ok);
    assert!(phy > 10_000, "{phy}");
    // 1 µs: the ACK cannot start before the sender gives up.
    assert_eq!(
        apply_ext(&mut m, &ExtRequest::SetAckTimeout { tag: 2, station: A, ns: 1_000 }).result,
        ExtResult::Ok
    );
    assert_eq!(
        apply_ext(&mut m, &ExtRequest::GetAckTimeout { tag: 3, station: A }).body,
        ReplyBody::AckTimeout(1_000)
    );
    let (statuses, records) = one_by_one(&mut m, 5, 1);
    assert!(statuses.iter().all(|s| !s.1), "{statuses:?}");
    assert!(
        records.iter().all(|r| r.outcome == TruthOutcome::AckLost && r.delivered),
        "{records:?}"
    );
    // 0: the PHY's again.
    apply_ext(&mut m, &ExtRequest::SetAckTimeout { tag: 4, station: A, ns: 0 });
    assert_eq!(
        apply_ext(&mut m, &ExtRequest::GetAckTimeout { tag: 5, station: A }).body,
        ReplyBody::AckTimeout(phy)
    );
    let (statuses, _) = one_by_one(&mut m, 5, 1);
    assert!(statuses.iter().all(|s| s.1));
}

#[test]
fn link_values_set_through_mininet_requests_are_read_back() {
    let mut m = HwsimMedium::new(Setup {
        interfaces: vec![A, B],
        model: LinkModel::Snr { default_snr_db: 25.0, links: vec![] },
        ..Setup::default()
    });
    let get = |m: &mut HwsimMedium, from, to| match apply_ext(
        m,
        &ExtRequest::GetLink { tag: 1, from, to },
    )
    .body
    {
        ReplyBody::Link { snr_db, error_prob } => (snr_db, error_prob),
        b => panic!("{b:?}"),
    };
    assert_eq!(get(&mut m, A, B), (25.0, 0.0), "the model's, before any channel");
    apply(&mut m, &Request::Snr { from: A, to: B, snr_db: 12 });
    assert_eq!(get(&mut m, B, A), (12.0, 0.0));
    one_by_one(&mut m, 1, 1);
    apply(&mut m, &Request::ErrProb { from: A, to: B, prob: 0.3 });
    let (snr, p) = get(&mut m, A, B);
    assert_eq!(snr, 12.0);
    assert!((p - 0.3).abs() < 1e-9, "{p}");
    assert_eq!(get(&mut m, B, A), (12.0, 0.0), "one direction only");
    // Links that follow positions have no fixed value.
    let pl = LinkModel::PathLoss {
        model: sdmac_phy::propagation::PathLoss::FreeSpace { sl_db: 0.0 },
        positions: vec![],
        tx_power_dbm: vec![],
    };
    let mut m = HwsimMedium::new(Setup { interfaces: vec![A, B], model: pl, ..Setup::default() });
    assert_eq!(
        apply_ext(&mut m, &ExtRequest::GetLink { tag: 1, from: A, to: B }).result,
        ExtResult::WrongMode
    );
}
