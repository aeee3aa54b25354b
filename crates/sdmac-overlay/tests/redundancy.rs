//! Seamless redundancy on the emu backend: two media, one per channel, with the sender
//! and the receiver each having one interface on each.

use sdmac_api::{Interface, MacAddress, Scope, Span};
use sdmac_emu::setup::{paper_medium, Loss, PaperSetup, AP, AP_ADDR, STA};
use sdmac_emu::{EmuIface, EmuOptions, EmuSession};
use sdmac_overlay::redundancy::{
    run, Mode, RedundancyError, RedundantReceiver, RedundantSender, RunPlan, RunReport,
    SenderConfig,
};
use sdmac_phy::{Phy, Standard};

type Iface = Interface<EmuIface>;

/// One channel: the paper's testbed at `freq_mhz`, losing DATA frames with `loss`.
fn channel(freq_mhz: u32, loss: f64, seed: u64) -> (EmuSession, Iface, Iface) {
    let p = PaperSetup {
        freq_mhz,
        loss_data: if loss > 0.0 { Loss::Probability(loss) } else { Loss::None },
        seed,
        ..PaperSetup::default()
    };
    let (m, ap, sta) = paper_medium(&p).unwrap();
    let mut s = EmuSession::start(m, &[(AP, ap), (STA, sta)], EmuOptions::default()).unwrap();
    let sta = s.take(STA).unwrap();
    let ap = s.take(AP).unwrap();
    (s, ap, sta)
}

fn config(mode: Mode) -> SenderConfig {
    SenderConfig {
        dst: vec![MacAddress(AP_ADDR); 2],
        rates: None,
        ac: sdmac_api::Ac::Be,
        mode,
        phy: Phy::new(Standard::Dot11a),
    }
}

/// Runs `plan` over channels 36 and 40 losing `loss[k]` of DATA frames, each sender
/// interface sending with the rate series `rates[k]` (its default series).
fn two_channels(mode: Mode, rates: [&str; 2], loss: [f64; 2], plan: &RunPlan) -> RunReport {
    let (_sa, ap_a, mut sta_a) = channel(5180, loss[0], 11);
    let (_sb, ap_b, mut sta_b) = channel(5200, loss[1], 22);
    sta_a.set("default_rates", Scope::Adapter, rates[0]).unwrap();
    sta_b.set("default_rates", Scope::Adapter, rates[1]).unwrap();
    let mut tx = RedundantSender::new(vec![sta_a, sta_b], config(mode)).unwrap();
    let mut rx = RedundantReceiver::new(vec![ap_a, ap_b]).unwrap();
    let r = run(&mut tx, &mut rx, plan).unwrap();
    assert_eq!(r.duplicates_delivered, 0, "{mode:?}: a duplicate reached the application");
    assert_eq!(r.delivered + r.lost, r.sent, "{r:?}");
    r
}

#[test]
fn two_channels_lose_less_than_one() {
    // One try per copy, so a channel's loss shows; packets spaced so queues stay short.
    let plan = RunPlan { packets: 300, spacing: Span::from_us(400), ..RunPlan::default() };
    let one = two_channels(Mode::OneChannel, ["24x1"; 2], [0.10, 0.20], &plan);
    let two = two_channels(Mode::TwoChannels, ["24x1"; 2], [0.10, 0.20], &plan);
    println!("one channel: {one:?}\ntwo channels: {two:?}");
    assert!(one.lost > 0, "the 10 % channel lost nothing: {one:?}");
    assert!(two.lost < one.lost, "two channels lost {} >= one channel's {}", two.lost, one.lost);
    // The baseline sends one copy per packet, the redundant run two.
    assert_eq!(one.sender.copies, one.sent);
    assert_eq!(two.sender.copies, 2 * two.sent);
    // Both copies of many packets arrive: the receiver dropped the second ones.
    assert!(two.duplicates_dropped > 0, "{two:?}");
}

#[test]
fn cancelling_puts_fewer_copies_on_air() {
    // A saturated sender with retries, the second channel's link only good for 6 Mb/s:
    // its queue builds behind the first channel's, and the copies of packets already
    // acknowledged there can be cancelled before they go on air.
    // Long frames, so that the backlog lasts far longer than it takes the host to react
    // to an acknowledgement.
    let plan = RunPlan { packets: 200, payload_len: 1400, window: 32, ..RunPlan::default() };
    let rates = ["24x4", "6x4"];
    let plain = two_channels(Mode::TwoChannels, rates, [0.10, 0.20], &plan);
    let cancel = two_channels(Mode::TwoChannelsCancel, rates, [0.10, 0.20], &plan);
    println!("without cancelling: {plain:?}\nwith cancelling: {cancel:?}");
    assert_eq!(plain.sender.copies_cancelled, 0);
    assert_eq!(plain.sender.copies_on_air, plain.sender.copies, "{plain:?}");
    assert!(cancel.sender.copies_cancelled > 0, "{cancel:?}");
    assert!(cancel.sender.copies_on_air < plain.sender.copies_on_air, "{cancel:?} vs {plain:?}");
    assert_eq!(
        cancel.sender.copies_on_air + cancel.sender.copies_cancelled,
        cancel.sender.copies,
        "every copy either went on air or was cancelled: {cancel:?}"
    );
    assert!(cancel.sender.airtime_saved_ns > 0);
    assert_eq!(cancel.lost, 0, "{cancel:?}");
}

#[test]
fn refuses_one_interface_and_one_channel_twice() {
    let (_sa, ap_a, sta_a) = channel(5180, 0.0, 1);
    let e = RedundantSender::new(vec![sta_a], config(Mode::TwoChannels)).unwrap_err();
    assert_eq!(e, RedundancyError::TooFewInterfaces { given: 1 });
    assert!(e.to_string().contains("at least two interfaces"), "{e}");
    let e = RedundantReceiver::new(vec![ap_a]).unwrap_err();
    assert_eq!(e, RedundancyError::TooFewInterfaces { given: 1 });

    let (_sb, ap_b, sta_b) = channel(5180, 0.0, 2);
    let (_sc, ap_c, sta_c) = channel(5180, 0.0, 3);
    let e = RedundantSender::new(vec![sta_b, sta_c], config(Mode::TwoChannels)).unwrap_err();
    assert_eq!(e, RedundancyError::SameChannel { channel: 36, first: 0, second: 1 });
    assert!(e.to_string().contains("channel 36"), "{e}");
    let e = RedundantReceiver::new(vec![ap_b, ap_c]).unwrap_err();
    assert!(matches!(e, RedundancyError::SameChannel { channel: 36, .. }), "{e}");
}

#[test]
fn refuses_a_destination_list_that_does_not_match() {
    let (_sa, _ap_a, sta_a) = channel(5180, 0.0, 1);
    let (_sb, _ap_b, sta_b) = channel(5200, 0.0, 2);
    let cfg = SenderConfig { dst: vec![MacAddress(AP_ADDR)], ..config(Mode::TwoChannels) };
    let e = RedundantSender::new(vec![sta_a, sta_b], cfg).unwrap_err();
    assert_eq!(e, RedundancyError::Destinations { given: 1, interfaces: 2 });
}
