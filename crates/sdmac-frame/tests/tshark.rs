//! Cross-check with Wireshark: write a pcapng of radiotap + 802.11 frames built by this
//! crate and have `tshark` decode it. Skipped (with a message) when tshark is absent.

use sdmac_frame::ieee80211::beacon::CAP_ESS;
use sdmac_frame::ieee80211::*;
use sdmac_frame::pcapng::{read_packets, PcapngWriter, LINKTYPE_IEEE802_11_RADIOTAP};
use sdmac_frame::radiotap::{self, channel_flags, flags, Channel};
use sdmac_frame::MacAddress;
use std::path::{Path, PathBuf};
use std::process::Command;

const AP: MacAddress = MacAddress([0x02, 0, 0, 0, 0x01, 0x00]);
const STA: MacAddress = MacAddress([0x02, 0, 0, 0, 0x00, 0x00]);

fn tshark() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join("tshark")).find(|p| p.is_file())
}

fn rx_radiotap(rate_500k: u8) -> radiotap::Repr {
    radiotap::Repr {
        tsft: Some(1_000_000),
        flags: Some(flags::FCS_AT_END),
        rate: Some(rate_500k),
        channel: Some(Channel::new(2437, channel_flags::GHZ2 | channel_flags::OFDM)),
        antenna_signal: Some(-40),
        ..radiotap::Repr::default()
    }
}

/// Radiotap header followed by the MPDU that `write` produces.
fn packet(rt: &radiotap::Repr, write: impl FnOnce(&mut [u8]) -> usize) -> Vec<u8> {
    let mut buf = vec![0u8; 512];
    let n = rt.emit_into(&mut buf).unwrap();
    let m = write(&mut buf[n..]);
    buf.truncate(n + m);
    buf
}

fn run(tshark: &Path, file: &Path, args: &[&str]) -> String {
    let out = Command::new(tshark)
        .arg("-n")
        .arg("-o")
        .arg("wlan.check_checksum:TRUE")
        .arg("-r")
        .arg(file)
        .args(args)
        .output()
        .expect("run tshark");
    assert!(out.status.success(), "tshark failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn tshark_decodes_our_frames() {
    let Some(tshark) = tshark() else {
        println!("SKIPPED: tshark not installed");
        return;
    };

    let data = packet(&rx_radiotap(12), |b| {
        let p = DataParams {
            to_ds: true,
            duration: 44,
            seq: 1,
            ..DataParams::new(AP, STA, AP, 0x88b5)
        };
        write_data_frame(b, &p, b"sdmac payload", true).unwrap()
    });
    let ack = packet(&rx_radiotap(12), |b| write_ack_frame(b, STA, 0, true).unwrap());
    let qos = packet(&rx_radiotap(108), |b| {
        let p = DataParams {
            from_ds: true,
            duration: 30,
            seq: 4095,
            qos: Some(QosControl::new(5, AckPolicy::NoAck)),
            ..DataParams::new(STA, AP, AP, 0x88b5)
        };
        write_data_frame(b, &p, &[0u8; 40], true).unwrap()
    });
    let rates =
        [SupportedRate::new(2, true), SupportedRate::new(4, true), SupportedRate::new(12, false)];
    let beacon = packet(&rx_radiotap(2), |b| {
        let p = BeaconParams {
            seq: 7,
            capability: CAP_ESS,
            ..BeaconParams::new(AP, b"sdmac", &rates, 6)
        };
        write_beacon_frame(b, &p, true).unwrap()
    });
    let tx_rt = radiotap::Repr {
        tx_flags: Some(radiotap::tx_flags::NOACK),
        data_retries: Some(0),
        mcs: Some(radiotap::Mcs::new(7, false, true)),
        ..radiotap::Repr::default()
    };
    let rts = packet(&tx_rt, |b| write_rts_frame(b, AP, STA, 300, false).unwrap());

    // A Linux mac80211-style RX header with per-chain namespaces (3 presence words,
    // TSFT padded to offset 16), written by hand, followed by an ACK without FCS.
    #[rustfmt::skip]
    let mut linux: Vec<u8> = vec![
        0x00, 0x00, 0x26, 0x00, 0x2f, 0x40, 0x00, 0xa0, 0x20, 0x08, 0x00, 0xa0, 0x20, 0x08, 0x00, 0x00,
        0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0x0e, // TSFT
        0x00, 0x02, // flags, rate 1 Mb/s
        0x6c, 0x09, 0xa0, 0x00, // 2412 MHz, 2 GHz + CCK
        0xc5, 0x00, 0x00, 0x00, // signal -59, pad, RX flags
        0xc4, 0x00, 0xc6, 0x01, // chain 0: -60 dBm antenna 0; chain 1: -58 dBm antenna 1
    ];
    let rt = radiotap::Header::new_checked(&linux[..]).unwrap();
    assert_eq!(radiotap::Repr::parse(&rt).unwrap().antenna_signal, Some(-59));
    let mut ack_nofcs = [0u8; 10];
    write_ack_frame(&mut ack_nofcs, AP, 0, false).unwrap();
    linux.extend_from_slice(&ack_nofcs);

    let packets = [data, ack, qos, beacon, rts, linux];
    let file = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("sdmac-frame-tshark-{}.pcapng", std::process::id()));
    let mut w = PcapngWriter::new(Vec::new(), LINKTYPE_IEEE802_11_RADIOTAP, "sdmac0").unwrap();
    for (i, p) in packets.iter().enumerate() {
        w.write_packet(1_700_000_000_000_000_000 + i as u64 * 1_000, p).unwrap();
    }
    let bytes = w.into_inner();
    // Our own reader agrees with our writer.
    let back = read_packets(&bytes).unwrap();
    assert_eq!(back.len(), packets.len());
    assert_eq!(back[1], (1_700_000_000_000_001_000, packets[1].clone()));
    std::fs::write(&file, &bytes).unwrap();

    let fields = run(
        &tshark,
        &file,
        &[
            "-T",
            "fields",
            "-E",
            "separator=|",
            "-e",
            "wlan.fc.type_subtype",
            "-e",
            "wlan.ra",
            "-e",
            "wlan.ta",
            "-e",
            "wlan.duration",
            "-e",
            "radiotap.datarate",
        ],
    );
    println!("{fields}");
    let lines: Vec<&str> = fields.lines().collect();
    assert_eq!(
        lines,
        vec![
            "0x0020|02:00:00:00:01:00|02:00:00:00:00:00|44|6",
            "0x001d|02:00:00:00:00:00||0|6",
            "0x0028|02:00:00:00:00:00|02:00:00:00:01:00|30|54",
            "0x0008|ff:ff:ff:ff:ff:ff|02:00:00:00:01:00|0|1",
            "0x001b|02:00:00:00:01:00|02:00:00:00:00:00|300|72.2222", // HT MCS 7, 20 MHz, short GI
            "0x001d|02:00:00:00:01:00||0|1",
        ]
    );

    let more = run(
        &tshark,
        &file,
        &[
            "-T",
            "fields",
            "-E",
            "separator=|",
            "-e",
            "wlan.seq",
            "-e",
            "wlan.qos.tid",
            "-e",
            "wlan.fcs.status",
            "-e",
            "wlan.ssid",
            "-e",
            "wlan.ds.current_channel",
            "-e",
            "llc.type",
            "-e",
            "radiotap.dbm_antsignal",
            "-e",
            "frame.time_epoch",
        ],
    );
    println!("{more}");
    let rows: Vec<Vec<&str>> = more.lines().map(|l| l.split('|').collect()).collect();
    assert_eq!(rows.len(), 6);
    // seq, tid, fcs status (1 = good), ssid, channel, ethertype, signal, time
    assert_eq!(&rows[0][..3], &["1", "", "1"]);
    assert_eq!(&rows[0][5..8], &["0x88b5", "-40", "1700000000.000000000"]);
    assert_eq!(&rows[1][2..3], &["1"]);
    assert_eq!(&rows[1][7..8], &["1700000000.000001000"]);
    assert_eq!(&rows[2][..3], &["4095", "5", "1"]);
    assert_eq!(&rows[3][..3], &["7", "", "1"]);
    // tshark 4.0 prints the SSID as hex bytes, later versions as text
    assert!(rows[3][3] == "73646d6163" || rows[3][3] == "sdmac", "{}", rows[3][3]);
    assert_eq!(rows[3][4], "6");
    // every chain's signal, in wire order
    assert_eq!(rows[5][6], "-59,-60,-58");

    // No expert warnings of the malformed / error kind anywhere.
    let verbose = run(&tshark, &file, &["-V"]);
    assert!(!verbose.contains("Malformed"), "tshark reports a malformed packet:\n{verbose}");
    let expert = run(
        &tshark,
        &file,
        &[
            "-T",
            "fields",
            "-e",
            "_ws.malformed",
            "-e",
            "_ws.expert.severity",
            "-e",
            "_ws.expert.message",
        ],
    );
    for line in expert.lines() {
        let cols: Vec<&str> = line.split('\t').collect();
        assert!(cols[0].is_empty(), "malformed packet: {line}");
        // Severities: 0x200000 chat, 0x400000 note, 0x600000 warning, 0x800000 error.
        for sev in cols.get(1).unwrap_or(&"").split(',').filter(|s| !s.is_empty()) {
            let sev: u32 = sev.parse().unwrap();
            assert!(sev < 0x60_0000, "tshark warning/error: {line}");
        }
    }
    if std::env::var_os("SDMAC_KEEP_PCAP").is_none() {
        let _ = std::fs::remove_file(&file);
    }
}
