//! Helpers of the medium tests: frames as the kernel hands them over, and runs that
//! note when each output came out.
#![allow(dead_code)]

use sdmac_frame::ieee80211::{write_data_frame, DataParams};
use sdmac_frame::MacAddress;
use sdmac_mediumd::hwsim_medium::{hw_addr_of, HwsimMedium, KernelFrame, Output, StatusEcho};
use sdmac_phy::Rate;

pub const MS: u64 = 1_000_000;
pub const US: u64 = 1_000;
pub const S: u64 = 1_000_000_000;

/// A data frame `from` → `to` (no FCS).
pub fn data(from: MacAddress, to: MacAddress, payload: &[u8]) -> Vec<u8> {
    let mut buf = vec![0u8; 2400];
    let p = DataParams::new(to, from, from, 0x0800);
    let n = write_data_frame(&mut buf, &p, payload, false).unwrap();
    buf.truncate(n);
    buf
}

/// The kernel's request to send `frame` from the radio of interface `from`.
pub fn kf(
    from: MacAddress,
    frame: &[u8],
    freq: u32,
    rates: Vec<(Rate, u8)>,
    cookie: u64,
) -> KernelFrame<'_> {
    let echo = StatusEcho { rate_idx: [0, -1, -1, -1], flags: 1 };
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

/// Sends `frame` from `from` at `at`.
pub fn send(
    m: &mut HwsimMedium,
    at: u64,
    from: MacAddress,
    frame: &[u8],
    rate: Rate,
    tries: u8,
    cookie: u64,
) -> Vec<Output> {
    let mut out = Vec::new();
    m.on_frame(at, kf(from, frame, 2412, vec![(rate, tries)], cookie), &mut out);
    out
}

/// Runs up to `until`.
pub fn run(m: &mut HwsimMedium, until: u64) -> Vec<Output> {
    let mut out = Vec::new();
    m.advance(until, &mut out);
    out
}

/// Runs from `from` to `until` in steps of `step`, noting the time each output came out.
pub fn run_timed(m: &mut HwsimMedium, from: u64, until: u64, step: u64) -> Vec<(u64, Output)> {
    let mut seen = Vec::new();
    let mut t = from;
    while t <= until {
        let mut out = Vec::new();
        m.advance(t, &mut out);
        seen.extend(out.into_iter().map(|o| (t, o)));
        t += step;
    }
    seen
}

/// The receivers (hwsim addresses) of the deliveries in `out`, sorted.
pub fn receivers(out: &[Output]) -> Vec<MacAddress> {
    let mut r: Vec<MacAddress> = out
        .iter()
        .filter_map(
            |o| if let Output::Deliver { receiver, .. } = o { Some(*receiver) } else { None },
        )
        .collect();
    r.sort();
    r
}

/// Whether the status of `cookie` in `out` says acknowledged (None: no status).
pub fn acked(out: &[Output], cookie: u64) -> Option<bool> {
    out.iter().find_map(|o| match o {
        Output::TxStatus { cookie: c, acked, .. } if *c == cookie => Some(*acked),
        _ => None,
    })
}
