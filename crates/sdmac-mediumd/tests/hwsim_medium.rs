//! The daemon's medium without sockets: kernel frames in, statuses and deliveries out.

use sdmac_frame::ieee80211::{write_data_frame, DataParams};
use sdmac_frame::MacAddress;
use sdmac_mediumd::hwsim_medium::{
    hw_addr_of, HwsimMedium, KernelFrame, LinkModel, Output, Setup, StatusEcho, UNHEARD_SIGNAL_DBM,
};
use sdmac_phy::Rate;

const A: MacAddress = MacAddress([0x02, 0, 0, 0, 0, 0]);
const B: MacAddress = MacAddress([0x02, 0, 0, 0, 1, 0]);
const C: MacAddress = MacAddress([0x02, 0, 0, 0, 2, 0]);
const MS: u64 = 1_000_000;

fn data(from: MacAddress, to: MacAddress, payload: &[u8]) -> Vec<u8> {
    let mut buf = vec![0u8; 2400];
    let p = DataParams::new(to, from, from, 0x0800);
    let n = write_data_frame(&mut buf, &p, payload, false).unwrap();
    buf.truncate(n);
    buf
}

fn kf(
    from: MacAddress,
    frame: &[u8],
    freq: u32,
    rates: Vec<(Rate, u8)>,
    cookie: u64,
) -> KernelFrame<'_> {
    let echo = StatusEcho { rate_idx: [3, 2, -1, -1], flags: 1 };
    KernelFrame {
        transmitter: hw_addr_of(from),
        frame,
        no_ack: false,
        freq,
        rates: rates.into(),
        cookie,
        echo,
    }
}

fn run(m: &mut HwsimMedium, until: u64) -> Vec<Output> {
    let mut out = Vec::new();
    m.advance(until, &mut out);
    out
}

fn snr_setup() -> Setup {
    Setup {
        interfaces: vec![A, B, C],
        model: LinkModel::Snr { default_snr_db: 30.0, links: vec![] },
        ..Setup::default()
    }
}

#[test]
fn unicast_is_delivered_and_acked() {
    let mut m = HwsimMedium::new(snr_setup());
    let f = data(A, B, &[7u8; 100]);
    let mut out = Vec::new();
    m.on_frame(MS, kf(A, &f, 2412, vec![(Rate::Ofdm54, 3)], 42), &mut out);
    assert!(out.is_empty(), "nothing is due yet: {out:?}");
    let out = run(&mut m, 2 * MS);
    let deliveries: Vec<_> = out.iter().filter(|o| matches!(o, Output::Deliver { .. })).collect();
    assert_eq!(deliveries.len(), 1, "{out:?}");
    match deliveries[0] {
        Output::Deliver { receiver, frame, rate, freq, .. } => {
            assert_eq!(*receiver, hw_addr_of(B));
            assert_eq!(frame, &f);
            assert_eq!((*rate, *freq), (Rate::Ofdm54, 2412));
        }
        _ => unreachable!(),
    }
    let status = out.iter().find(|o| matches!(o, Output::TxStatus { .. })).expect("a status");
    let (delivered_at, signal) = match deliveries[0] {
        Output::Deliver { due, signal_dbm, .. } => (*due, *signal_dbm),
        _ => unreachable!(),
    };
    // The status is due at the ACK's end: SIFS 10 µs + ERP signal extension 6 µs +
    // a 14-byte ACK at 24 Mb/s (20 µs preamble and header, 2 symbols of 4 µs) after
    // the DATA frame's end, when the copy is delivered.
    let acked_at = delivered_at + 44_000;
    assert_eq!(
        status,
        &Output::TxStatus {
            transmitter: hw_addr_of(A),
            cookie: 42,
            acked: true,
            signal_dbm: signal,
            attempts: vec![1].into(),
            echo: StatusEcho { rate_idx: [3, 2, -1, -1], flags: 1 },
            due: acked_at
        }
    );
    assert!(delivered_at > MS && acked_at < 2 * MS, "{out:?}");
}

#[test]
fn lossy_link_uses_every_try_and_reports_no_ack() {
    let setup = Setup {
        interfaces: vec![A, B],
        model: LinkModel::Prob { default_prob: 0.0, links: vec![(A, B, 1.0)] },
        ..Setup::default()
    };
    let mut m = HwsimMedium::new(setup);
    let f = data(A, B, b"lost");
    let mut out = Vec::new();
    m.on_frame(MS, kf(A, &f, 2412, vec![(Rate::Ofdm54, 2), (Rate::Ofdm12, 2)], 7), &mut out);
    let out = run(&mut m, 50 * MS);
    assert!(!out.iter().any(|o| matches!(o, Output::Deliver { .. })), "{out:?}");
    match out.iter().find(|o| matches!(o, Output::TxStatus { .. })).unwrap() {
        Output::TxStatus { acked, attempts, cookie, .. } => {
            assert!(!acked);
            assert_eq!(attempts, &vec![2, 2]);
            assert_eq!(*cookie, 7);
        }
        _ => unreachable!(),
    }
    // The other direction is clean, so B's frame reaches A — but A's ACKs travel on
    // the lossy direction: every try is delivered and none is acknowledged.
    let g = data(B, A, b"back");
    let mut out = Vec::new();
    m.on_frame(60 * MS, kf(B, &g, 2412, vec![(Rate::Ofdm54, 4)], 8), &mut out);
    let out = run(&mut m, 70 * MS);
    assert!(
        out.iter()
            .any(|o| matches!(o, Output::Deliver { receiver, .. } if *receiver == hw_addr_of(A))),
        "{out:?}"
    );
    assert!(out.iter().any(|o| matches!(o, Output::TxStatus { acked: false, cookie: 8, attempts, .. } if attempts == &vec![4])), "{out:?}");
}

#[test]
fn broadcast_reaches_every_other_radio_and_counts_as_sent() {
    let mut m = HwsimMedium::new(snr_setup());
    let f = data(A, MacAddress::BROADCAST, b"hello all");
    let mut out = Vec::new();
    m.on_frame(MS, kf(A, &f, 2412, vec![(Rate::Ofdm6, 1)], 1), &mut out);
    let out = run(&mut m, 5 * MS);
    let mut receivers: Vec<MacAddress> = out
        .iter()
        .filter_map(
            |o| if let Output::Deliver { receiver, .. } = o { Some(*receiver) } else { None },
        )
        .collect();
    receivers.sort();
    assert_eq!(receivers, vec![hw_addr_of(B), hw_addr_of(C)]);
    assert!(out.iter().any(|o| matches!(o, Output::TxStatus { acked: true, .. })));
}

#[test]
fn channels_are_separate_media() {
    let mut m = HwsimMedium::new(snr_setup());
    let f1 = data(A, B, b"on 1");
    let f6 = data(C, B, b"on 6");
    let mut out = Vec::new();
    m.on_frame(MS, kf(A, &f1, 2412, vec![(Rate::Ofdm54, 1)], 1), &mut out);
    m.on_frame(MS, kf(C, &f6, 2437, vec![(Rate::Ofdm54, 1)], 2), &mut out);
    let out = run(&mut m, 5 * MS);
    assert_eq!(m.channels(), vec![2412, 2437]);
    for (cookie, freq) in [(1, 2412), (2, 2437)] {
        assert!(
            out.iter().any(
                |o| matches!(o, Output::TxStatus { acked: true, cookie: c, .. } if *c == cookie)
            ),
            "{out:?}"
        );
        assert!(out.iter().any(|o| matches!(o, Output::Deliver { freq: f, .. } if *f == freq)));
    }
}

#[test]
fn unknown_transmitters_and_garbage_are_answered() {
    let mut m = HwsimMedium::new(snr_setup());
    let stranger = MacAddress([0x02, 9, 9, 9, 9, 9]);
    let f = data(stranger, B, b"who am i");
    let mut out = Vec::new();
    m.on_frame(MS, kf(stranger, &f, 2412, vec![(Rate::Ofdm54, 1)], 5), &mut out);
    m.on_frame(MS, kf(stranger, &[0x08, 0x00, 1], 2412, vec![(Rate::Ofdm54, 1)], 6), &mut out);
    m.on_frame(MS, kf(stranger, &f, 2412, vec![], 9), &mut out);
    out.extend(run(&mut m, 5 * MS));
    for cookie in [5, 6, 9] {
        assert!(
            out.iter().any(|o| matches!(o, Output::TxStatus { cookie: c, .. } if *c == cookie)),
            "cookie {cookie}: {out:?}"
        );
    }
    assert_eq!(m.in_flight(), 0);
    assert_eq!(m.counters().refused, 2);
}

#[test]
fn flush_answers_everything_in_flight() {
    let mut m = HwsimMedium::new(snr_setup());
    let f = data(A, B, &[0u8; 1500]);
    let mut out = Vec::new();
    for k in 0..20 {
        m.on_frame(MS, kf(A, &f, 2412, vec![(Rate::Ofdm6, 4)], k), &mut out);
    }
    assert!(m.in_flight() > 0);
    m.flush(&mut out);
    let statuses = out.iter().filter(|o| matches!(o, Output::TxStatus { .. })).count();
    assert_eq!(statuses, 20);
    assert_eq!(m.in_flight(), 0);
}

#[test]
fn a_status_reports_the_signal_its_destination_received_even_in_a_later_round() {
    // Advanced in small steps (as the daemon does, waking at every output), the
    // delivery and the outcome come out of different calls; the status still carries
    // the destination's signal, not the noise floor.
    let mut m = HwsimMedium::new(snr_setup());
    let mut out = Vec::new();
    let frame = data(A, B, &[7u8; 1000]);
    m.on_frame(0, kf(A, &frame, 2412, vec![(Rate::Ofdm54, 3)], 9), &mut out);
    let mut t = 0;
    while let Some(w) = m.next_output_time() {
        t = w.max(t + 1);
        m.advance(t, &mut out);
        if out.iter().any(|o| matches!(o, Output::TxStatus { .. })) {
            break;
        }
    }
    let delivered = out.iter().find_map(|o| match o {
        Output::Deliver { signal_dbm, .. } => Some(*signal_dbm),
        _ => None,
    });
    let status = out.iter().find_map(|o| match o {
        Output::TxStatus { signal_dbm, acked: true, .. } => Some(*signal_dbm),
        _ => None,
    });
    assert!(
        delivered.is_some() && status == delivered,
        "delivery {delivered:?}, status {status:?}: {out:?}"
    );
    assert!(status.unwrap() > UNHEARD_SIGNAL_DBM);
}

#[test]
fn a_radio_that_sends_on_another_channel_gets_no_copies_from_this_one() {
    // All three are listed (stations of every channel's medium). C last sent on
    // 2437 MHz, so A's broadcast on 2412 MHz goes to B (never sent: could be anywhere,
    // e.g. scanning) but not to C, whose kernel would drop it. When C sends on 2412
    // MHz again, it hears 2412 MHz again.
    let mut m = HwsimMedium::new(snr_setup());
    let mut out = Vec::new();
    let fc = data(C, MacAddress::BROADCAST, &[1u8; 50]);
    m.on_frame(MS, kf(C, &fc, 2437, vec![(Rate::Ofdm6, 1)], 1), &mut out);
    out.extend(run(&mut m, 2 * MS));
    let receivers = |out: &[Output], freq: u32| -> Vec<MacAddress> {
        out.iter()
            .filter_map(|o| match o {
                Output::Deliver { receiver, freq: f, .. } if *f == freq => Some(*receiver),
                _ => None,
            })
            .collect()
    };
    assert_eq!(
        receivers(&out, 2437),
        vec![hw_addr_of(A), hw_addr_of(B)],
        "on 2437 MHz C reaches both"
    );
    let fa = data(A, MacAddress::BROADCAST, &[2u8; 50]);
    let mut out = Vec::new();
    m.on_frame(3 * MS, kf(A, &fa, 2412, vec![(Rate::Ofdm6, 1)], 2), &mut out);
    out.extend(run(&mut m, 4 * MS));
    assert_eq!(receivers(&out, 2412), vec![hw_addr_of(B)], "C is on 2437 MHz");
    m.on_frame(5 * MS, kf(C, &fc, 2412, vec![(Rate::Ofdm6, 1)], 3), &mut out);
    out.extend(run(&mut m, 6 * MS));
    let mut out = Vec::new();
    m.on_frame(7 * MS, kf(A, &fa, 2412, vec![(Rate::Ofdm6, 1)], 4), &mut out);
    out.extend(run(&mut m, 8 * MS));
    let mut got = receivers(&out, 2412);
    got.sort();
    assert_eq!(got, vec![hw_addr_of(B), hw_addr_of(C)], "C is back on 2412 MHz");
}

#[test]
fn a_radio_on_another_channel_does_not_acknowledge() {
    // C last sent on 2437 MHz: a unicast from A to C on 2412 MHz finds nobody to
    // acknowledge it (C's station on 2412 MHz is away: no link either way), so A uses
    // every try. Once C sends on 2412 MHz again, A's next frame to it is acknowledged.
    let mut m = HwsimMedium::new(snr_setup());
    let mut out = Vec::new();
    let fc = data(C, MacAddress::BROADCAST, &[1u8; 50]);
    m.on_frame(MS, kf(C, &fc, 2437, vec![(Rate::Ofdm6, 1)], 1), &mut out);
    out.extend(run(&mut m, 2 * MS));
    let to_c = data(A, C, &[3u8; 100]);
    let mut out = Vec::new();
    m.on_frame(3 * MS, kf(A, &to_c, 2412, vec![(Rate::Ofdm6, 3)], 2), &mut out);
    out.extend(run(&mut m, 10 * MS));
    let status = |out: &[Output], cookie: u64| {
        out.iter()
            .find_map(|o| match o {
                Output::TxStatus { cookie: c, acked, attempts, .. } if *c == cookie => {
                    Some((*acked, attempts.to_vec()))
                }
                _ => None,
            })
            .expect("a status")
    };
    assert_eq!(status(&out, 2), (false, vec![3]), "C is on 2437 MHz: {out:?}");
    assert!(!out.iter().any(|o| matches!(o, Output::Deliver { .. })), "{out:?}");
    let mut out = Vec::new();
    m.on_frame(11 * MS, kf(C, &fc, 2412, vec![(Rate::Ofdm6, 1)], 3), &mut out);
    m.on_frame(13 * MS, kf(A, &to_c, 2412, vec![(Rate::Ofdm6, 3)], 4), &mut out);
    out.extend(run(&mut m, 20 * MS));
    assert_eq!(status(&out, 4), (true, vec![1]), "C is back on 2412 MHz: {out:?}");
}
