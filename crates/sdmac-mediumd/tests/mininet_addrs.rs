//! Interfaces whose addresses are not their radios' permanent ones (Mininet-WiFi sets
//! `00:00:00:00:00:0N`): the configuration lists those addresses, the kernel names
//! radios by their hwsim address (`42:00:00:00:0N:00`). A listed address binds to the
//! radio the kernel shows has it (a frame sent from it, ADD_MAC_ADDR) and carries its
//! position, power and links there; deliveries name that radio.

mod common;

use common::{data, MS};
use sdmac_mediumd::hwsim_medium::{
    hw_addr_of, HwsimMedium, KernelFrame, LinkModel, Output, Setup, StatusEcho,
};
use sdmac_phy::propagation::PathLoss;
use sdmac_phy::Rate;
use sdmac_types::MacAddress;

/// Interface addresses Mininet-WiFi gives.
const STA1: MacAddress = MacAddress([0, 0, 0, 0, 0, 1]);
const STA2: MacAddress = MacAddress([0, 0, 0, 0, 0, 2]);
const AP: MacAddress = MacAddress([0, 0, 0, 0, 0, 3]);
/// The radios' hwsim (wire) addresses: radios 0, 1, 2 of mac80211_hwsim.
const HW0: MacAddress = MacAddress([0x42, 0, 0, 0, 0, 0]);
const HW1: MacAddress = MacAddress([0x42, 0, 0, 0, 1, 0]);
const HW2: MacAddress = MacAddress([0x42, 0, 0, 0, 2, 0]);

/// Radio `hw` sends `frame` (its second address is the interface's).
fn send(m: &mut HwsimMedium, at: u64, hw: MacAddress, frame: &[u8], cookie: u64) -> Vec<Output> {
    let echo = StatusEcho { rate_idx: [0, -1, -1, -1], flags: 1 };
    let mut out = Vec::new();
    m.on_frame(
        at,
        KernelFrame {
            transmitter: hw,
            frame,
            no_ack: false,
            freq: 2412,
            rates: vec![(Rate::Ofdm6, 4)].into(),
            cookie,
            echo,
        },
        &mut out,
    );
    m.advance(at + 5 * MS, &mut out);
    out
}

fn receivers(out: &[Output]) -> Vec<MacAddress> {
    out.iter()
        .filter_map(
            |o| if let Output::Deliver { receiver, .. } = o { Some(*receiver) } else { None },
        )
        .collect()
}

fn acked(out: &[Output], cookie: u64) -> Option<bool> {
    out.iter().find_map(|o| match o {
        Output::TxStatus { cookie: c, acked, .. } if *c == cookie => Some(*acked),
        _ => None,
    })
}

fn prob_setup() -> Setup {
    Setup {
        interfaces: vec![AP, STA1, STA2],
        model: LinkModel::Prob { default_prob: 0.0, links: vec![] },
        ..Setup::default()
    }
}

#[test]
fn frames_to_a_listed_address_reach_the_radio_that_sends_from_it() {
    let mut m = HwsimMedium::new(prob_setup());
    let ids = [m.station_id(AP), m.station_id(STA1), m.station_id(STA2)];
    // The AP's radio and sta1's radio send from their listed addresses.
    let out = send(&mut m, MS, HW0, &data(AP, MacAddress::BROADCAST, b"beacon"), 1);
    assert_eq!(acked(&out, 1), Some(true));
    let out = send(&mut m, 10 * MS, HW1, &data(STA1, AP, b"auth-1"), 2);
    assert_eq!(receivers(&out), vec![HW0], "sta1 -> AP goes to the AP's radio");
    assert_eq!(acked(&out, 2), Some(true));
    // The answer goes to sta1's radio (not to hw_addr_of(STA1) = 40:00:00:00:00:01).
    let out = send(&mut m, 20 * MS, HW0, &data(AP, STA1, b"auth-2"), 3);
    assert_eq!(receivers(&out), vec![HW1]);
    assert_eq!(acked(&out, 3), Some(true));
    // The listed radios kept their station ids (the configuration's order).
    assert_eq!([m.station_id(AP), m.station_id(STA1), m.station_id(STA2)], ids);
    assert_eq!(ids, [Some(0), Some(1), Some(2)]);
}

#[test]
fn no_delivery_ever_names_a_guessed_radio_once_every_radio_has_sent() {
    let mut m = HwsimMedium::new(prob_setup());
    for (k, (hw, a)) in [(HW0, AP), (HW1, STA1), (HW2, STA2)].into_iter().enumerate() {
        send(
            &mut m,
            (k as u64 + 1) * 10 * MS,
            hw,
            &data(a, MacAddress::BROADCAST, b"hello"),
            k as u64,
        );
    }
    let out = send(&mut m, 100 * MS, HW0, &data(AP, MacAddress::BROADCAST, b"beacon"), 9);
    let mut r = receivers(&out);
    r.sort();
    assert_eq!(r, vec![HW1, HW2], "a broadcast reaches the two real radios only");
}

/// Path loss: the listed positions decide who hears whom.
fn path_loss_setup() -> Setup {
    let model = PathLoss::LogDistance { exponent: 4.0, ref_distance_m: 1.0, sl_db: 0.0 };
    // STA2 far away (5 km): out of range of the others.
    let positions =
        vec![(AP, [0.0, 0.0, 0.0]), (STA1, [10.0, 0.0, 0.0]), (STA2, [5000.0, 0.0, 0.0])];
    Setup {
        interfaces: vec![AP, STA1, STA2],
        model: LinkModel::PathLoss { model, positions, tx_power_dbm: vec![] },
        ..Setup::default()
    }
}

#[test]
fn a_radio_known_by_its_permanent_address_takes_the_listing_of_the_address_it_gets() {
    let mut m = HwsimMedium::new(path_loss_setup());
    // Radio 2 is seen first with its permanent interface address (not listed: at the
    // origin, right next to the AP) ...
    send(&mut m, MS, HW0, &data(AP, MacAddress::BROADCAST, b"beacon"), 1);
    let out = send(&mut m, 10 * MS, HW2, &data(MacAddress([2, 0, 0, 0, 2, 0]), AP, b"hello"), 2);
    assert_eq!(acked(&out, 2), Some(true), "unlisted, it sits at the origin, in range");
    let unlisted = m.station_id(MacAddress([2, 0, 0, 0, 2, 0])).unwrap();
    // ... then its interface takes STA2's address (ADD_MAC_ADDR): it is now where
    // the configuration puts STA2, 5 km away, and the AP no longer hears it.
    m.add_address(HW2, STA2);
    assert_eq!(m.station_id(STA2), Some(unlisted));
    assert_eq!(m.position(unlisted), Some([5000.0, 0.0, 0.0]));
    let out = send(&mut m, 20 * MS, HW2, &data(STA2, AP, b"hello"), 3);
    assert_eq!(acked(&out, 3), Some(false));
    assert!(receivers(&out).is_empty(), "{out:?}");
    // The AP's frames to STA2 go to radio 2 (out of range: not received), never to
    // the guess 40:00:00:00:00:02.
    let out = send(&mut m, 40 * MS, HW0, &data(AP, STA2, b"x"), 4);
    assert!(!receivers(&out).contains(&hw_addr_of(STA2)));
    // The guessed radio is gone: a broadcast reaches sta1's guess (not yet seen) and
    // nothing named 40:00:00:00:00:02.
    let out = send(&mut m, 60 * MS, HW0, &data(AP, MacAddress::BROADCAST, b"beacon"), 5);
    assert_eq!(receivers(&out), vec![hw_addr_of(STA1)]);
}

#[test]
fn an_address_moves_from_one_radio_to_another() {
    let mut m = HwsimMedium::new(prob_setup());
    send(&mut m, MS, HW0, &data(AP, MacAddress::BROADCAST, b"beacon"), 1);
    m.add_address(HW1, STA1);
    let out = send(&mut m, 10 * MS, HW0, &data(AP, STA1, b"to sta1"), 2);
    assert_eq!(receivers(&out), vec![HW1]);
    // STA1's address comes up on radio 2 (ADD_MAC_ADDR).
    m.add_address(HW2, STA1);
    let out = send(&mut m, 20 * MS, HW0, &data(AP, STA1, b"to sta1"), 3);
    assert_eq!(receivers(&out), vec![HW2]);
    assert_eq!(acked(&out, 3), Some(true));
    // Without DEL_MAC_ADDR too: a frame sent from the address moves it back.
    send(&mut m, 30 * MS, HW1, &data(STA1, AP, b"from sta1"), 4);
    let out = send(&mut m, 40 * MS, HW0, &data(AP, STA1, b"to sta1"), 5);
    assert_eq!(receivers(&out), vec![HW1]);
}

#[test]
fn radios_with_their_permanent_addresses_listed_are_unchanged() {
    // The usual wmediumd configuration: the listed addresses are the permanent ones,
    // so the first guess is right from the start.
    let (a, b) = (MacAddress([2, 0, 0, 0, 0, 0]), MacAddress([2, 0, 0, 0, 1, 0]));
    let mut m = HwsimMedium::new(Setup {
        interfaces: vec![a, b],
        model: LinkModel::Prob { default_prob: 0.0, links: vec![] },
        ..Setup::default()
    });
    // Before b ever sends, a's frame to it reaches b's radio.
    let out = send(&mut m, MS, hw_addr_of(a), &data(a, b, b"x"), 1);
    assert_eq!(receivers(&out), vec![hw_addr_of(b)]);
    assert_eq!(acked(&out, 1), Some(true));
    assert_eq!((m.station_id(a), m.station_id(b)), (Some(0), Some(1)));
}

#[test]
fn the_dispatcher_s_replica_learns_what_a_channel_s_medium_learns() {
    // With --threads the dispatcher learns from frames (learn_from_frame) without
    // running a channel, and the thread that takes the frame learns in on_frame: the
    // two must end with the same station ids.
    let mut threaded = HwsimMedium::new(path_loss_setup());
    let mut single = HwsimMedium::new(path_loss_setup());
    let steps: Vec<(MacAddress, MacAddress)> = vec![
        (HW0, AP),
        (HW2, MacAddress([2, 0, 0, 0, 2, 0])),
        (HW2, STA2),
        (HW1, STA1),
        (HW1, STA2),
    ];
    for (k, (hw, a)) in steps.into_iter().enumerate() {
        let f = data(a, MacAddress::BROADCAST, b"x");
        let echo = StatusEcho { rate_idx: [0, -1, -1, -1], flags: 1 };
        let kf = KernelFrame {
            transmitter: hw,
            frame: &f,
            no_ack: false,
            freq: 2412,
            rates: vec![(Rate::Ofdm6, 1)].into(),
            cookie: k as u64,
            echo,
        };
        threaded.learn_from_frame(&kf).unwrap();
        let mut out = Vec::new();
        single.on_frame(k as u64 * 10 * MS, kf, &mut out);
    }
    for a in [AP, STA1, STA2, MacAddress([2, 0, 0, 0, 2, 0])] {
        assert_eq!(threaded.station_id(a), single.station_id(a), "{a:?}");
    }
    // Radio 1 sent from STA2's address last: both addresses are its now.
    assert_eq!(single.station_id(STA2), single.station_id(STA1));
}
