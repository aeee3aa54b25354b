//! HT and VHT frames through the daemon's medium, and what happens to rate entries a
//! channel cannot carry: skipped (0 attempts reported for them) while another entry
//! can be used, the frame refused (counted per cause) only when none can.

use sdmac_frame::ieee80211::{write_data_frame, DataParams};
use sdmac_frame::MacAddress;
use sdmac_mediumd::hwsim_medium::{
    hw_addr_of, HwsimMedium, KernelFrame, LinkModel, Output, Setup, StatusEcho,
};
use sdmac_mediumd::refusal::Refusals;
use sdmac_phy::{Rate, Width};

const A: MacAddress = MacAddress([0x02, 0, 0, 0, 0, 0]);
const B: MacAddress = MacAddress([0x02, 0, 0, 0, 1, 0]);
const MS: u64 = 1_000_000;

fn data(from: MacAddress, to: MacAddress, payload: &[u8]) -> Vec<u8> {
    let mut buf = vec![0u8; 2400];
    let p = DataParams::new(to, from, from, 0x0800);
    let n = write_data_frame(&mut buf, &p, payload, false).unwrap();
    buf.truncate(n);
    buf
}

fn medium() -> HwsimMedium {
    HwsimMedium::new(Setup {
        interfaces: vec![A, B],
        model: LinkModel::Snr { default_snr_db: 40.0, links: vec![] },
        ..Setup::default()
    })
}

/// Sends `f` from A with `rates` on `freq` and runs the medium for 10 ms: the outputs.
fn send(m: &mut HwsimMedium, freq: u32, f: &[u8], rates: Vec<(Rate, u8)>) -> Vec<Output> {
    let echo = StatusEcho { rate_idx: [7, 4, 0, -1], flags: 1 };
    let mut out = Vec::new();
    m.on_frame(
        MS,
        KernelFrame {
            transmitter: hw_addr_of(A),
            frame: f,
            no_ack: false,
            freq,
            rates: rates.into(),
            cookie: 1,
            echo,
        },
        &mut out,
    );
    m.advance(11 * MS, &mut out);
    out
}

fn status(out: &[Output]) -> (bool, Vec<u8>) {
    let s: Vec<_> = out
        .iter()
        .filter_map(|o| {
            if let Output::TxStatus { acked, attempts, .. } = o {
                Some((*acked, attempts.to_vec()))
            } else {
                None
            }
        })
        .collect();
    assert_eq!(s.len(), 1, "{out:?}");
    s[0].clone()
}

fn delivered_rates(out: &[Output]) -> Vec<Rate> {
    out.iter()
        .filter_map(|o| if let Output::Deliver { rate, .. } = o { Some(*rate) } else { None })
        .collect()
}

const MCS7: Rate = Rate::Ht { mcs: 7, bw40: false, sgi: false };
const MCS15_40: Rate = Rate::Ht { mcs: 15, bw40: true, sgi: true };
const VHT9_80: Rate = Rate::Vht { mcs: 9, nss: 2, width: Width::Mhz80, sgi: true };

#[test]
fn ht_frames_at_2_4_ghz_are_carried_at_their_first_rate() {
    let mut m = medium();
    let f = data(A, B, &[1u8; 500]);
    let out = send(&mut m, 2412, &f, vec![(MCS7, 2), (MCS15_40, 2), (Rate::Ofdm6, 1)]);
    assert_eq!(status(&out), (true, vec![1, 0, 0]));
    assert_eq!(delivered_rates(&out), vec![MCS7]);
    // The ACK of HT MCS 7 data is a legacy 24 Mb/s frame: the status is due SIFS 10 +
    // ACK 34 µs (20 preamble + 2 symbols + 6 signal extension) after the delivery.
    let deliver_at = out
        .iter()
        .find_map(|o| if let Output::Deliver { due, .. } = o { Some(*due) } else { None })
        .unwrap();
    let status_at = out
        .iter()
        .find_map(|o| if let Output::TxStatus { due, .. } = o { Some(*due) } else { None })
        .unwrap();
    assert_eq!(status_at - deliver_at, 44_000);
    let c = m.counters();
    assert_eq!((c.refused, c.refusals), (0, Refusals::default()));
}

#[test]
fn vht_frames_at_5_ghz_are_carried() {
    let mut m = medium();
    let f = data(A, B, &[2u8; 1500]);
    let out = send(&mut m, 5180, &f, vec![(VHT9_80, 1), (MCS7, 1)]);
    assert_eq!(status(&out), (true, vec![1, 0]));
    assert_eq!(delivered_rates(&out), vec![VHT9_80]);
    assert_eq!(m.counters().refused, 0);
}

#[test]
fn an_entry_the_channel_cannot_carry_is_skipped_and_reported_with_0_attempts() {
    let mut m = medium();
    let f = data(A, B, &[3u8; 200]);
    // VHT is not a 2.4 GHz PHY: its entry is skipped, the frame goes at MCS 7.
    let out = send(&mut m, 2412, &f, vec![(VHT9_80, 2), (MCS7, 2)]);
    assert_eq!(status(&out), (true, vec![0, 1]));
    assert_eq!(delivered_rates(&out), vec![MCS7]);
    let c = m.counters();
    assert_eq!(c.refused, 0);
    assert_eq!(c.refusals, Refusals { rates_skipped: 1, ..Refusals::default() });
}

#[test]
fn a_frame_with_no_usable_entry_is_refused_and_counted_by_cause() {
    let mut m = medium();
    let f = data(A, B, &[4u8; 200]);
    // Only VHT at 2.4 GHz, and an HT MCS that does not exist: nothing to send at.
    let out = send(
        &mut m,
        2412,
        &f,
        vec![(VHT9_80, 2), (Rate::Ht { mcs: 40, bw40: false, sgi: false }, 1)],
    );
    assert_eq!(status(&out), (false, vec![0, 0]));
    assert!(delivered_rates(&out).is_empty(), "{out:?}");
    let mut out = Vec::new();
    m.on_frame(
        MS,
        KernelFrame {
            transmitter: hw_addr_of(A),
            frame: &[0x08, 0],
            no_ack: false,
            freq: 2412,
            rates: vec![(MCS7, 1)].into(),
            cookie: 2,
            echo: StatusEcho::default(),
        },
        &mut out,
    );
    let c = m.counters();
    assert_eq!(c.refused, 2);
    assert_eq!(c.refusals, Refusals { no_usable_rate: 1, malformed: 1, ..Refusals::default() });
    assert_eq!(c.frames_in, c.statuses);
}

#[test]
fn airtime_on_the_medium_follows_the_streams_and_width() {
    // A 1500 B payload: 24 B header + 8 B LLC/SNAP + 1500 + 4 FCS = 1536 B, whose
    // airtimes at 5 GHz sdmac-phy's tests work out by hand: MCS 7 228 µs, MCS 15 at
    // 40 MHz short GI 84 µs, VHT MCS 9 on 2 streams at 80 MHz short GI 60 µs. The copy
    // is delivered at the frame's end: its start on air (the capture's record) + that.
    let airtime = |rate| {
        let mut m =
            HwsimMedium::new(Setup { interfaces: vec![A, B], capture: true, ..Setup::default() });
        let f = data(A, B, &[5u8; 1500]);
        assert_eq!(f.len() + 4, 1536);
        let out = send(&mut m, 5180, &f, vec![(rate, 1)]);
        let start = out
            .iter()
            .find_map(|o| {
                if let Output::Air { t_start, rate: r, .. } = o {
                    (*r == rate).then_some(*t_start)
                } else {
                    None
                }
            })
            .unwrap();
        let end = out
            .iter()
            .find_map(|o| if let Output::Deliver { due, .. } = o { Some(*due) } else { None })
            .unwrap();
        (end - start) / 1000
    };
    assert_eq!(airtime(MCS7), 228);
    assert_eq!(airtime(MCS15_40), 84);
    assert_eq!(airtime(VHT9_80), 60);
}
