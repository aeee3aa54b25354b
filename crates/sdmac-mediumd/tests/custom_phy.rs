//! `--phy FILE`: a scenario's `[phy]` table times every frame instead of the band's
//! standard PHY; a bad table stops the daemon with the key and the file named.

use sdmac_frame::ieee80211::{write_data_frame, DataParams};
use sdmac_frame::MacAddress;
use sdmac_mediumd::custom_phy::CustomPhy;
use sdmac_mediumd::hwsim_medium::{
    hw_addr_of, HwsimMedium, KernelFrame, LinkModel, Output, Setup, StatusEcho,
};
use sdmac_phy::Rate;
use std::process::Command;

const A: MacAddress = MacAddress([0x02, 0, 0, 0, 0, 0]);
const B: MacAddress = MacAddress([0x02, 0, 0, 0, 1, 0]);
const MS: u64 = 1_000_000;
const DAEMON: &str = env!("CARGO_BIN_EXE_sdmac-mediumd");

/// The scenario `sdmac bench tap` runs both paths on when the air must not bind
/// (python/sdmac/bench_tap.py reads the same file).
const UNBOUND_SCENARIO: &str = include_str!("../../../examples/scenarios/unbound_phy.toml");

/// The PHY table of [`UNBOUND_SCENARIO`] alone (its header to the first station), as
/// `sdmac bench tap` hands it to `sdmac-mediumd --phy`.
fn unbound() -> String {
    let start = UNBOUND_SCENARIO.find("[phy]").expect("unbound_phy.toml has a [phy] table");
    let end = UNBOUND_SCENARIO.find("[[station]]").expect("unbound_phy.toml has stations");
    format!("{}\n", UNBOUND_SCENARIO[start..end].trim_end())
}

fn data(from: MacAddress, to: MacAddress, payload: &[u8]) -> Vec<u8> {
    let mut buf = vec![0u8; 2400];
    let p = DataParams::new(to, from, from, 0x0800);
    let n = write_data_frame(&mut buf, &p, payload, false).unwrap();
    buf.truncate(n);
    buf
}

fn kf(from: MacAddress, frame: &[u8], rates: Vec<(Rate, u8)>, cookie: u64) -> KernelFrame<'_> {
    KernelFrame {
        transmitter: hw_addr_of(from),
        frame,
        no_ack: false,
        freq: 2412,
        rates: rates.into(),
        cookie,
        echo: StatusEcho { rate_idx: [11, 4, -1, -1], flags: 1 },
    }
}

fn medium(model: LinkModel) -> HwsimMedium {
    HwsimMedium::new(Setup {
        interfaces: vec![A, B],
        model,
        capture: true,
        custom_phy: Some(CustomPhy::parse(&unbound(), "unbound.toml").unwrap()),
        ..Setup::default()
    })
}

/// Airtime of `bytes` (FCS included) on the unbound PHY: 1 µs of PHY header, then
/// the bits at 500 Mb/s, rounded up to the nanosecond.
fn airtime_ns(bytes: u64) -> u64 {
    1_000 + (bytes * 8 * 1_000_000).div_ceil(500_000)
}

#[test]
fn a_frame_exchange_follows_the_custom_timings() {
    let mut m = medium(LinkModel::Snr { default_snr_db: 30.0, links: vec![] });
    let f = data(A, B, &[7u8; 60]);
    let mut out = Vec::new();
    // The kernel's entries are legacy rates of the band; both go at the table's rate.
    m.on_frame(MS, kf(A, &f, vec![(Rate::Ofdm54, 3), (Rate::Ofdm6, 2)], 42), &mut out);
    m.advance(2 * MS, &mut out);
    let custom = Rate::Custom { kbps: 500_000 };
    let air: Vec<_> = out
        .iter()
        .filter_map(|o| match o {
            Output::Air { t_start, rate, frame, .. } => Some((*t_start, *rate, frame.len())),
            _ => None,
        })
        .collect();
    // The DATA frame and its ACK, both at 500 Mb/s.
    assert_eq!(air.len(), 2, "{out:?}");
    assert!(air.iter().all(|a| a.1 == custom), "{air:?}");
    let (data_start, _, data_len) = air[0];
    assert_eq!(data_len, f.len());
    // Channel access on a medium idle since the frame came: DIFS (SIFS + 2 slots =
    // 3 µs), then a backoff of 0 or 1 slot (CW 1).
    let wait = data_start - MS;
    assert!(wait == 3_000 || wait == 4_000, "DATA started {wait} ns after it came");
    let (delivered, rate) = out
        .iter()
        .find_map(|o| match o {
            Output::Deliver { due, rate, .. } => Some((*due, *rate)),
            _ => None,
        })
        .expect("a delivery");
    assert_eq!(rate, custom);
    // 60 B of payload: a 24-byte header, 8 of LLC/SNAP, 60, and the FCS: 96 bytes,
    // 1 µs + 768 bits at 500 Mb/s = 2,536 ns.
    assert_eq!(f.len() + 4, 96);
    assert_eq!(delivered - data_start, airtime_ns(96));
    assert_eq!(airtime_ns(96), 2_536);
    // The ACK starts SIFS (1 µs) after the DATA end and lasts 1 µs + 112 bits at
    // 500 Mb/s; the status is due at its end.
    assert_eq!(air[1].0, delivered + 1_000);
    let status = out
        .iter()
        .find_map(|o| match o {
            Output::TxStatus { due, acked, attempts, cookie, .. } => {
                Some((*due, *acked, attempts.to_vec(), *cookie))
            }
            _ => None,
        })
        .expect("a status");
    assert_eq!(status, (delivered + 1_000 + airtime_ns(14), true, vec![1, 0], 42));
    assert_eq!(airtime_ns(14), 1_224);
}

#[test]
fn every_entry_keeps_its_tries_at_the_custom_rate_and_times_out_at_the_custom_ack_timeout() {
    let mut m = medium(LinkModel::Prob { default_prob: 0.0, links: vec![(A, B, 1.0)] });
    let f = data(A, B, b"lost");
    let mut out = Vec::new();
    m.on_frame(MS, kf(A, &f, vec![(Rate::Ofdm54, 2), (Rate::Ofdm12, 2)], 7), &mut out);
    m.advance(5 * MS, &mut out);
    let starts: Vec<u64> = out
        .iter()
        .filter_map(|o| match o {
            Output::Air { t_start, rate, .. } => {
                assert_eq!(*rate, Rate::Custom { kbps: 500_000 });
                Some(*t_start)
            }
            _ => None,
        })
        .collect();
    assert_eq!(starts.len(), 4, "two tries at each entry: {out:?}");
    let status = out
        .iter()
        .find_map(|o| match o {
            Output::TxStatus { due, acked, attempts, .. } => {
                Some((*due, *acked, attempts.to_vec()))
            }
            _ => None,
        })
        .expect("a status");
    assert_eq!((status.1, status.2.clone()), (false, vec![2, 2]));
    // The last try ends, and the ACK timeout (20 µs) runs out without an ACK.
    let data_ns = airtime_ns(f.len() as u64 + 4);
    assert_eq!(status.0, starts[3] + data_ns + 20_000);
    // Between tries: the ACK timeout, then EIFS is not due (nothing was received
    // in error), so DIFS plus a backoff of at most CW (1 slot) after it.
    for w in starts.windows(2) {
        let gap = w[1] - (w[0] + data_ns + 20_000);
        assert!(gap <= 4_000, "retry {gap} ns after the timeout");
    }
}

#[test]
fn without_the_option_the_band_standard_phy_times_the_frame() {
    let mut m = HwsimMedium::new(Setup {
        interfaces: vec![A, B],
        model: LinkModel::Snr { default_snr_db: 30.0, links: vec![] },
        capture: true,
        ..Setup::default()
    });
    let f = data(A, B, &[7u8; 60]);
    let mut out = Vec::new();
    m.on_frame(MS, kf(A, &f, vec![(Rate::Ofdm54, 3)], 1), &mut out);
    m.advance(2 * MS, &mut out);
    let air: Vec<_> = out
        .iter()
        .filter_map(|o| match o {
            Output::Air { t_start, rate, .. } => Some((*t_start, *rate)),
            _ => None,
        })
        .collect();
    // DATA at 54 Mb/s, ACK at 24 Mb/s (802.11n at 2.4 GHz; ERP basic rates).
    assert_eq!(air.iter().map(|a| a.1).collect::<Vec<_>>(), vec![Rate::Ofdm54, Rate::Ofdm24]);
    let delivered = out
        .iter()
        .find_map(|o| match o {
            Output::Deliver { due, .. } => Some(*due),
            _ => None,
        })
        .unwrap();
    // 96 bytes at 54 Mb/s: 20 µs preamble and header, ceil((16 + 768 + 6) / 216) =
    // 4 symbols of 4 µs, and the 6 µs signal extension: 42 µs.
    assert_eq!(delivered - air[0].0, 42_000);
    // The ACK starts SIFS (10 µs) after the DATA's end (its signal extension
    // included).
    assert_eq!(air[1].0 - delivered, 10_000);
}

fn daemon_error(table: &str, name: &str) -> String {
    let path =
        std::env::temp_dir().join(format!("sdmac-custom-phy-{name}-{}.toml", std::process::id()));
    std::fs::write(&path, table).unwrap();
    let out = Command::new(DAEMON).arg("--phy").arg(&path).output().unwrap();
    let _ = std::fs::remove_file(&path);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(err.contains(&path.display().to_string()), "the file is named: {err}");
    err
}

#[test]
fn a_bad_table_stops_the_daemon_naming_the_key() {
    let unbound = unbound();
    let err = daemon_error(&unbound.replace("\nrate = \"custom500000k\"\n", "\n"), "norate");
    assert!(err.contains("phy.rate is missing"), "{err}");
    let err = daemon_error(&unbound.replace("difs_us = 3", "difs_us = 2.5"), "difs");
    assert!(err.contains("phy.difs_us") && err.contains("SIFS + n slots"), "{err}");
    let err = daemon_error(&unbound.replace("cw_min = 1", "cw_min = 2"), "cw");
    assert!(err.contains("cw_min"), "{err}");
    let err = daemon_error(&format!("{unbound}noise_floor_dbm = -90\n"), "noise");
    assert!(err.contains("phy.noise_floor_dbm is not applied"), "{err}");
    let err = daemon_error(&format!("{unbound}colour = 1\n"), "unknown");
    assert!(err.contains("colour"), "{err}");
    let err = daemon_error(&unbound.replace("[phy]", "[station]"), "notable");
    assert!(err.contains("station"), "{err}");
    let err = daemon_error(&unbound.replace("slot_us = 1", "slot_us = -1"), "slot");
    assert!(err.contains("slot_us"), "{err}");
    let err = daemon_error(&unbound.replace("\nrate = \"custom500000k\"", "\nrate = 54"), "std");
    assert!(err.contains("phy.rate") && err.contains("not supported by custom"), "{err}");
}

#[test]
fn a_missing_file_is_named() {
    let out = Command::new(DAEMON).args(["--phy", "/nonexistent/phy.toml"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--phy: cannot read /nonexistent/phy.toml"), "{err}");
}

#[test]
fn the_unbound_file_is_a_whole_scenario_too() {
    let file = "examples/scenarios/unbound_phy.toml";
    let s = sdmac_sim::scenario::Scenario::parse(UNBOUND_SCENARIO, file).unwrap();
    assert_eq!(s.name, "tap bench pair, air not binding");
    assert!(unbound().starts_with("[phy]\n") && unbound().ends_with("cw_max = 1\n"));
}
