//! A TX status the kernel refused with EINVAL (it came before mac80211_hwsim queued
//! its frame) is sent again, as it was, a little later, and given up after the last
//! retry; errors for other messages are not retried. The kernel's answers are built
//! by hand, byte by byte, per the netlink format: `struct nlmsghdr` (type
//! NLMSG_ERROR), `struct nlmsgerr` (s32 error, then the original message whole).

use sdmac_mediumd::dispatch::Dispatcher;
use sdmac_mediumd::encode::{Datagrams, Encoder};
use sdmac_mediumd::hwsim_medium::{HwsimMedium, Output, Setup};
use sdmac_mediumd::kernel_msg::on_datagram;
use sdmac_mediumd::status_retry::DELAYS_NS;
use std::sync::{Arc, Mutex};

const FAMILY: u16 = 0x1d;
const PID: u32 = 0x1234;
const TX: [u8; 6] = [0x42, 0, 0, 0, 0, 0];
const EINVAL: i32 = -22;

fn u16b(v: u16) -> [u8; 2] {
    v.to_ne_bytes()
}

fn u32b(v: u32) -> [u8; 4] {
    v.to_ne_bytes()
}

/// A netlink attribute: len, type, value, padded to 4.
fn attr(ty: u16, value: &[u8]) -> Vec<u8> {
    let mut a = Vec::new();
    a.extend_from_slice(&u16b(4 + value.len() as u16));
    a.extend_from_slice(&u16b(ty));
    a.extend_from_slice(value);
    while !a.len().is_multiple_of(4) {
        a.push(0);
    }
    a
}

/// A generic netlink message of the hwsim family, as the daemon sends it.
fn genl(cmd: u8, attrs: &[Vec<u8>], seq: u32) -> Vec<u8> {
    let body: Vec<u8> = [cmd, 1, 0, 0].into_iter().chain(attrs.iter().flatten().copied()).collect();
    let mut m = Vec::new();
    m.extend_from_slice(&u32b(16 + body.len() as u32));
    m.extend_from_slice(&u16b(FAMILY));
    m.extend_from_slice(&u16b(1)); // NLM_F_REQUEST
    m.extend_from_slice(&u32b(seq));
    m.extend_from_slice(&u32b(PID));
    m.extend_from_slice(&body);
    m
}

/// HWSIM_CMD_TX_INFO_FRAME (3): transmitter (2), flags (4), cookie (8), signal (6),
/// tx_info (7: 4 × {s8 idx, u8 count}).
fn tx_info(cookie: u64, seq: u32) -> Vec<u8> {
    let rates = [0u8, 1, 0xff, 0, 0xff, 0, 0xff, 0];
    genl(
        3,
        &[
            attr(2, &TX),
            attr(4, &u32b(0x5)),
            attr(8, &cookie.to_ne_bytes()),
            attr(6, &(-50i32).to_ne_bytes()),
            attr(7, &rates),
        ],
        seq,
    )
}

/// HWSIM_CMD_FRAME (2) to the kernel: a delivery — receiver (1), frame (3),
/// rx rate (5), signal (6), freq (19).
fn delivery(seq: u32) -> Vec<u8> {
    let frame =
        [0x08u8, 0, 0, 0, 0x42, 0, 0, 0, 1, 0, 0x42, 0, 0, 0, 0, 0, 0x42, 0, 0, 0, 0, 0, 0, 0];
    genl(
        2,
        &[
            attr(1, &[0x42, 0, 0, 0, 1, 0]),
            attr(3, &frame),
            attr(5, &u32b(0)),
            attr(6, &(-50i32).to_ne_bytes()),
            attr(19, &u32b(2412)),
        ],
        seq,
    )
}

/// The kernel's NLMSG_ERROR (2) answering `original` with `error`; `capped` copies
/// only its header (NLM_F_CAPPED, 0x100).
fn error(error: i32, original: &[u8], capped: bool) -> Vec<u8> {
    let copied = if capped { &original[..16] } else { original };
    let mut m = Vec::new();
    m.extend_from_slice(&u32b(16 + 4 + copied.len() as u32));
    m.extend_from_slice(&u16b(2));
    m.extend_from_slice(&u16b(if capped { 0x100 } else { 0 }));
    m.extend_from_slice(&original[8..12]); // the request's seq
    m.extend_from_slice(&u32b(PID));
    m.extend_from_slice(&error.to_ne_bytes());
    m.extend_from_slice(copied);
    m
}

fn resent(out: &[Output]) -> Vec<Vec<u8>> {
    out.iter()
        .filter_map(|o| if let Output::Resend { msg, .. } = o { Some(msg.clone()) } else { None })
        .collect()
}

/// Encodes `out` as the daemon sends it; the datagrams.
fn encode(out: &mut Vec<Output>) -> Vec<Vec<u8>> {
    let mut sent = Vec::new();
    Encoder::new(FAMILY, PID, 3)
        .send(
            out,
            0,
            None,
            |d| {
                sent.push(d.to_vec());
                Ok(())
            },
            |_, _, _, _| Ok(()),
        )
        .unwrap();
    sent
}

#[test]
fn the_hand_built_messages_parse_as_the_netlink_format_says() {
    // The golden message parses as the daemon's own TX_INFO_FRAME would be: the
    // same transmitter, cookie, flags and signal (what the kernel checks).
    let m = tx_info(77, 9);
    let p = sdmac_netlink::nl::NlPacket::new_checked(&m).unwrap();
    match sdmac_netlink::HwsimMsg::parse(&p).unwrap() {
        sdmac_netlink::HwsimMsg::TxInfo(t) => {
            assert_eq!((t.transmitter, t.cookie, t.flags.bits(), t.signal), (TX, 77, 5, -50))
        }
        other => panic!("{other:?}"),
    }
    let e = error(EINVAL, &m, false);
    assert_eq!(e.len(), 16 + 4 + m.len());
    assert_eq!(&e[4..6], &u16b(2));
    assert_eq!(&e[16..20], &EINVAL.to_ne_bytes());
}

#[test]
fn a_status_refused_with_einval_is_sent_again_as_it_was_then_given_up() {
    let mut m = HwsimMedium::new(Setup::default());
    let status = tx_info(77, 9);
    let refused = error(EINVAL, &status, false);
    let mut t = 1_000_000;
    let mut out = Vec::new();
    for (k, delay) in DELAYS_NS.iter().enumerate() {
        on_datagram(&mut m, t, &refused, FAMILY, 0, &mut out);
        assert!(out.is_empty(), "not sent again at once");
        assert_eq!(m.next_output_time(), Some(t + delay), "the loop wakes for it");
        m.advance(t + delay - 1, &mut out);
        assert!(out.is_empty(), "not before its time");
        t += delay;
        m.advance(t, &mut out);
        assert_eq!(resent(&out), vec![status.clone()]);
        // On the wire: the same message, byte for byte.
        assert_eq!(encode(&mut out), vec![status.clone()]);
        let c = m.counters();
        assert_eq!((c.status_retries, c.statuses_refused), (k as u64 + 1, 0));
    }
    // The last retry refused too: given up and counted.
    on_datagram(&mut m, t, &refused, FAMILY, 0, &mut out);
    m.advance(t + 1_000_000_000, &mut out);
    assert!(out.is_empty() && m.next_output_time().is_none());
    let c = m.counters();
    assert_eq!((c.status_retries, c.statuses_refused), (DELAYS_NS.len() as u64, 1));
}

#[test]
fn a_refused_status_among_other_messages_is_found_and_goes_with_other_outputs() {
    // One datagram with an error for a delivery, then one for a status: only the
    // status is sent again, packed with the round's other messages.
    let mut m = HwsimMedium::new(Setup::default());
    let status = tx_info(78, 10);
    let mut d = error(EINVAL, &delivery(9), false);
    while !d.len().is_multiple_of(4) {
        d.push(0);
    }
    d.extend_from_slice(&error(EINVAL, &status, false));
    let mut out = Vec::new();
    on_datagram(&mut m, 0, &d, FAMILY, 0, &mut out);
    m.flush(&mut out);
    assert_eq!(resent(&out), vec![status.clone()]);
    assert_eq!(m.counters().status_retries, 1);
}

#[test]
fn other_errors_are_not_retried() {
    let mut m = HwsimMedium::new(Setup::default());
    let mut out = Vec::new();
    let cases = [
        ("a delivery refused", error(EINVAL, &delivery(9), false)),
        ("a status refused with another error", error(-2, &tx_info(77, 9), false)),
        ("an acknowledgement", error(0, &tx_info(77, 9), false)),
        ("a copy capped to its header", error(EINVAL, &tx_info(77, 9), true)),
        ("a truncated copy", error(EINVAL, &tx_info(77, 9), false)[..60].to_vec()),
    ];
    for (what, d) in cases {
        on_datagram(&mut m, 0, &d, FAMILY, 0, &mut out);
        m.advance(1_000_000_000, &mut out);
        assert!(out.is_empty() && m.next_output_time().is_none(), "{what}: {out:?}");
    }
    let c = m.counters();
    assert_eq!((c.status_retries, c.statuses_refused, c.frames_in), (0, 0, 0));
}

#[derive(Default)]
struct Recorder(Mutex<Vec<Vec<u8>>>);

impl Datagrams for Recorder {
    fn send(&self, d: &[u8]) -> std::io::Result<()> {
        self.0.lock().unwrap().push(d.to_vec());
        Ok(())
    }
    fn pid(&self) -> u32 {
        PID
    }
}

#[test]
fn with_threads_the_dispatcher_sends_it_again() {
    let rec = Arc::new(Recorder::default());
    let mut d = Dispatcher::new(Setup::default(), rec.clone(), FAMILY, None, false, 0, 0).unwrap();
    let status = tx_info(79, 11);
    d.on_datagram(&error(EINVAL, &status, false), 5_000);
    d.on_datagram(&error(EINVAL, &delivery(12), false), 5_000);
    assert_eq!(d.next_resend_time(), Some(5_000 + DELAYS_NS[0]));
    d.resend_due(5_000 + DELAYS_NS[0] - 1);
    d.wake_workers().unwrap();
    assert!(rec.0.lock().unwrap().is_empty(), "not before its time");
    d.resend_due(5_000 + DELAYS_NS[0]);
    d.wake_workers().unwrap();
    assert_eq!(*rec.0.lock().unwrap(), vec![status]);
    assert_eq!(d.next_resend_time(), None);
    let fin = d.stop().unwrap();
    assert_eq!((fin.counters.status_retries, fin.counters.statuses_refused), (1, 0));
}
