//! The daemon's medium runs ahead while every station is blocked
//! (`HwsimMedium::advance_quiet`): at a DATA frame's end the TX status due at the ACK's
//! end comes out with the delivery, and frames the kernel hands over meanwhile are
//! taken as at their own time.

mod common;

use common::*;
use sdmac_mediumd::hwsim_medium::{HwsimMedium, LinkModel, Output, Setup};
use sdmac_phy::Rate;
use sdmac_types::MacAddress;

const A: MacAddress = MacAddress([0x02, 0, 0, 0, 0, 0]);
const B: MacAddress = MacAddress([0x02, 0, 0, 0, 1, 0]);
const C: MacAddress = MacAddress([0x02, 0, 0, 0, 2, 0]);

fn medium() -> HwsimMedium {
    HwsimMedium::new(Setup {
        interfaces: vec![A, B, C],
        model: LinkModel::Snr { default_snr_db: 40.0, links: vec![] },
        ..Setup::default()
    })
}

fn due(o: &Output) -> u64 {
    match o {
        Output::TxStatus { due, .. } | Output::Deliver { due, .. } | Output::Resend { due, .. } => {
            *due
        }
        Output::Air { t_start, .. } => *t_start,
    }
}

#[test]
fn the_status_comes_out_with_its_delivery() {
    for late_us in [0, 10, 25] {
        let mut m = medium();
        let f = data(A, B, &[7u8; 1400]);
        assert!(send(&mut m, MS, A, &f, Rate::Ofdm54, 1, 1).is_empty());
        let data_end = m.next_output_time().unwrap();
        // The daemon wakes at the DATA frame's end, or up to 25 µs late.
        let t = data_end + late_us * US;
        let mut out = run(&mut m, t);
        assert_eq!(out.len(), 1, "the delivery: {out:?}");
        let quiet = m.advance_quiet(t, &mut out);
        assert_eq!(out.len(), 2, "and the status, ahead: {out:?}");
        assert_eq!(acked(&out, 1), Some(true));
        // SIFS (10 µs at 2.4 GHz) and the ACK at 24 Mb/s (28 µs, 6 µs signal extension).
        assert_eq!(due(&out[1]) - due(&out[0]), 44 * US, "{out:?}");
        // Every station is blocked until then: a frame that comes meanwhile may wait.
        assert_eq!(quiet, data_end + 44 * US);
        // Idle again: nothing may wait.
        assert_eq!(m.advance_quiet(quiet + US, &mut Vec::new()), quiet + US);
        // Nothing more until the next frame.
        assert_eq!(m.next_output_time(), None);
    }
}

/// Frames from A, B and C at staggered times (unicast both ways, broadcasts), handed
/// over as a daemon does: it wakes at each frame and at the medium's next output, runs
/// ahead if `ahead`. Returns each output with the wake-up it came out at, and the
/// number of wake-ups.
fn daemon_like(ahead: bool) -> (Vec<(u64, Output)>, usize) {
    let mut m = medium();
    let mut seen = Vec::new();
    let mut wakes = 0;
    let frames: Vec<(u64, MacAddress, MacAddress, usize)> = (0..400u64)
        .map(|k| {
            let (from, to) = [(A, B), (B, A), (C, MacAddress::BROADCAST), (A, C)][(k % 4) as usize];
            (MS + k * 97 * US, from, to, 100 + (k as usize * 131) % 1400)
        })
        .collect();
    let mut i = 0;
    loop {
        let next_frame = frames.get(i).map(|f| f.0);
        let next_out = m.next_output_time();
        let Some(t) = [next_frame, next_out].into_iter().flatten().min() else { break };
        wakes += 1;
        let mut out = Vec::new();
        while let Some(&(at, from, to, len)) = frames.get(i).filter(|f| f.0 <= t) {
            m.on_frame(
                at,
                kf(
                    from,
                    &data(from, to, &vec![1u8; len]),
                    2412,
                    vec![(Rate::Ofdm54, 2), (Rate::Ofdm6, 2)],
                    i as u64,
                ),
                &mut out,
            );
            i += 1;
        }
        m.advance(t, &mut out);
        if ahead {
            m.advance_quiet(t, &mut out);
        }
        seen.extend(out.into_iter().map(|o| (t, o)));
    }
    (seen, wakes)
}

#[test]
fn every_frame_is_answered_once_with_fewer_wake_ups() {
    let (plain, plain_wakes) = daemon_like(false);
    let (ahead, ahead_wakes) = daemon_like(true);
    for run in [&plain, &ahead] {
        let mut cookies: Vec<u64> = run
            .iter()
            .filter_map(
                |(_, o)| if let Output::TxStatus { cookie, .. } = o { Some(*cookie) } else { None },
            )
            .collect();
        cookies.sort();
        assert_eq!(cookies, (0..400).collect::<Vec<_>>());
    }
    // Without running ahead nothing comes out before it is due. Running ahead,
    // statuses (and deliveries, when a frame woke the daemon while a DATA frame was on
    // air) come out up to one exchange early — a 1,500 B frame at 6 Mb/s and its ACK,
    // 2.1 ms — for the kernel to send at their time.
    assert!(plain.iter().all(|(t, o)| due(o) <= *t));
    let early: Vec<&(u64, Output)> = ahead.iter().filter(|(t, o)| due(o) > *t).collect();
    assert!(early.iter().all(|(t, o)| due(o) - t <= 2_100 * US), "{early:?}");
    let statuses = early.iter().filter(|(_, o)| matches!(o, Output::TxStatus { .. })).count();
    assert!(statuses > 100, "{statuses} statuses ahead");
    assert!(
        ahead_wakes * 10 < plain_wakes * 8,
        "{ahead_wakes} wake-ups running ahead, {plain_wakes} without"
    );
}

#[test]
fn a_busy_channel_runs_ahead_while_another_channel_is_idle() {
    // A -> B on 2412 MHz; C on 5180 MHz sent earlier (to no one there), and is idle
    // by the time A's DATA ends.
    let mut m = medium();
    let mut out = Vec::new();
    let short = data(C, A, &[1u8; 40]);
    m.on_frame(MS / 2, kf(C, &short, 5180, vec![(Rate::Ofdm54, 1)], 9), &mut out);
    let f = data(A, B, &[7u8; 1400]);
    out.extend(send(&mut m, MS, A, &f, Rate::Ofdm54, 1, 1));
    out.extend(run(&mut m, MS + US));
    // The daemon wakes at the DATA's end, for the delivery to B.
    let t = m.next_output_time().unwrap();
    let before = out.len();
    out.extend(run(&mut m, t));
    assert!(
        matches!(&out[before..], [Output::Deliver { freq: 2412, .. }]),
        "{} outputs",
        out.len() - before
    );
    let before = out.len();
    let quiet = m.advance_quiet(t, &mut out);
    // 2412 MHz ran ahead to its ACK's end: A's status came out ahead of its time...
    assert_eq!(acked(&out[before..], 1), Some(true));
    assert!(out[before..].iter().all(|o| due(o) > t));
    // ...but C and A may act on 5180 MHz at any time: a frame must not wait.
    assert_eq!(quiet, t);
    assert!(acked(&out, 9).is_some(), "C's frame on 5180 MHz was answered");
}
