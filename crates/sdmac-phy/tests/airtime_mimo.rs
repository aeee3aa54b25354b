//! Exact airtimes of multi-stream HT and of VHT PPDUs, worked out by hand from the
//! standard's formulas (IEEE 802.11-2016 §19.4.3 HT-mixed TXTIME, §21.4.3 VHT TXTIME),
//! and the ACK rate that answers them (§10.6.6.5).
//!
//! ```text
//! HT-mixed: TXTIME = 16 (L-STF + L-LTF) + 4 (L-SIG) + 8 (HT-SIG) + 4 (HT-STF)
//!   + 4·N_LTF + 4·N_SYM (long GI) or 4·ceil(0.9·N_SYM) (short GI);
//!   N_LTF = 1, 2, 4, 4 for 1–4 streams.
//! VHT: TXTIME = 16 + 4 (L-SIG) + 8 (VHT-SIG-A) + 4 (VHT-STF) + 4·N_VHTLTF
//!   + 4 (VHT-SIG-B) + data as above; N_VHTLTF = 1, 2, 4, 4, 6, 6, 8, 8.
//! N_SYM = ceil((8·PSDU + 16 + 6·N_ES) / N_DBPS); N_DBPS = N_SD·N_BPSCS·R·N_SS,
//! N_SD = 52, 108, 234, 468 at 20/40/80/160 MHz. A VHT PSDU is an A-MPDU: 4-byte
//! delimiter + the MPDU padded to 4 bytes.
//! ```

use sdmac_phy::{Phy, Rate, Standard, Width, US};

fn us(phy: &Phy, len: u32, rate: Rate) -> u64 {
    phy.airtime_ns(len, rate) / US
}

fn ht(mcs: u8, bw40: bool, sgi: bool) -> Rate {
    Rate::Ht { mcs, bw40, sgi }
}

fn vht(mcs: u8, nss: u8, width: Width, sgi: bool) -> Rate {
    Rate::Vht { mcs, nss, width, sgi }
}

#[test]
fn ht_two_three_and_four_streams() {
    let ac = Phy::new(Standard::Dot11ac);
    // MCS15 (2 streams, 64-QAM 5/6), 20 MHz, long GI, 1536 B:
    // N_DBPS = 52·6·2·5/6 = 520, N_ES = 1; N_SYM = ceil((12288+16+6)/520) = ceil(23.67) = 24;
    // preamble 32 + 4·2 = 40 -> 40 + 96 = 136 µs.
    assert_eq!(us(&ac, 1536, ht(15, false, false)), 136);
    // MCS15, 40 MHz, short GI: N_DBPS = 108·6·2·5/6 = 1080; N_SYM = ceil(12310/1080) = 12;
    // 4·ceil(0.9·12 = 10.8) = 44 -> 40 + 44 = 84 µs.
    assert_eq!(us(&ac, 1536, ht(15, true, true)), 84);
    // MCS23 (3 streams), 40 MHz, long GI: N_DBPS = 108·6·3·5/6 = 1620 > 1200 -> N_ES = 2;
    // N_SYM = ceil((12288+16+12)/1620) = ceil(7.6) = 8; N_LTF = 4: preamble 32 + 16 = 48
    // -> 48 + 32 = 80 µs.
    assert_eq!(us(&ac, 1536, ht(23, true, false)), 80);
    // MCS31 (4 streams), 40 MHz, short GI: N_DBPS = 2160, N_ES = 2;
    // N_SYM = ceil(12316/2160) = 6; 4·ceil(5.4) = 24 -> 48 + 24 = 72 µs.
    assert_eq!(us(&ac, 1536, ht(31, true, true)), 72);
    // MCS8 (2 streams BPSK 1/2), 20 MHz, ACK-sized 14 B: N_DBPS = 52; N_SYM = ceil(134/52) = 3
    // -> 40 + 12 = 52 µs.
    assert_eq!(us(&ac, 14, ht(8, false, false)), 52);
    // At 2.4 GHz the 6 µs signal extension is added: 136 + 6.
    assert_eq!(us(&Phy::new(Standard::Dot11n2_4), 1536, ht(15, false, false)), 142);
    // One stream is as before: MCS7 20 MHz long GI 1536 B = 228 µs.
    assert_eq!(us(&ac, 1536, ht(7, false, false)), 228);
}

#[test]
fn vht_airtimes() {
    let ac = Phy::new(Standard::Dot11ac);
    // MCS0, 1 stream, 20 MHz, long GI, 100 B MPDU: PSDU = 4 + 100 = 104 B;
    // N_DBPS = 52·1·1/2 = 26; N_SYM = ceil((832+16+6)/26) = ceil(32.85) = 33;
    // preamble 36 + 4·1 = 40 -> 40 + 132 = 172 µs.
    assert_eq!(us(&ac, 100, vht(0, 1, Width::Mhz20, false)), 172);
    // MCS9, 2 streams, 80 MHz, short GI, 1536 B: PSDU = 1540; N_DBPS = 234·8·2·5/6 = 3120,
    // N_ES = ceil(3120/2160) = 2; N_SYM = ceil((12320+16+12)/3120) = ceil(3.96) = 4;
    // 4·ceil(3.6) = 16; preamble 36 + 8 = 44 -> 60 µs.
    assert_eq!(us(&ac, 1536, vht(9, 2, Width::Mhz80, true)), 60);
    // MCS4, 3 streams, 40 MHz, long GI, 1000 B: PSDU = 1004; N_DBPS = 108·4·3·3/4 = 972,
    // N_ES = 1; N_SYM = ceil((8032+16+6)/972) = ceil(8.29) = 9; N_VHTLTF = 4:
    // preamble 36 + 16 = 52 -> 52 + 36 = 88 µs.
    assert_eq!(us(&ac, 1000, vht(4, 3, Width::Mhz40, false)), 88);
    // MCS9, 3 streams, 20 MHz (allowed for 3 streams), short GI, 200 B: PSDU = 204;
    // N_DBPS = 52·8·3·5/6 = 1040; N_SYM = ceil((1632+16+6)/1040) = 2; 4·ceil(1.8) = 8;
    // 52 + 8 = 60 µs.
    assert_eq!(us(&ac, 200, vht(9, 3, Width::Mhz20, true)), 60);
    // MCS3, 1 stream, 160 MHz, long GI, 1501 B: PSDU = 4 + 1504 = 1508;
    // N_DBPS = 468·4·1/2 = 936; N_SYM = ceil((12064+16+6)/936) = ceil(12.91) = 13;
    // 40 + 52 = 92 µs.
    assert_eq!(us(&ac, 1501, vht(3, 1, Width::Mhz160, false)), 92);
}

#[test]
fn vht_combinations_the_standard_excludes_are_invalid() {
    assert!(!vht(9, 1, Width::Mhz20, false).is_valid());
    assert!(!vht(9, 2, Width::Mhz20, false).is_valid());
    assert!(vht(9, 3, Width::Mhz20, false).is_valid());
    assert!(!vht(6, 3, Width::Mhz80, false).is_valid());
    assert!(!vht(9, 3, Width::Mhz160, false).is_valid());
    assert!(vht(9, 4, Width::Mhz80, true).is_valid());
    assert!(!vht(10, 1, Width::Mhz80, false).is_valid());
    assert!(!vht(0, 0, Width::Mhz20, false).is_valid());
    assert!(ht(31, true, true).is_valid());
    assert!(!ht(32, true, false).is_valid());
}

#[test]
fn rates_of_several_streams() {
    assert_eq!(ht(15, false, false).kbps(), 130_000);
    assert_eq!(ht(31, true, true).kbps(), 600_000);
    assert_eq!(vht(9, 2, Width::Mhz80, true).kbps(), 866_666);
    assert_eq!(vht(0, 1, Width::Mhz20, false).kbps(), 6_500);
    assert_eq!(vht(9, 1, Width::Mhz160, false).kbps(), 780_000);
}

#[test]
fn ack_rate_of_ht_and_vht_data() {
    use Rate::*;
    let ac = Phy::new(Standard::Dot11ac); // basic {6, 12, 24}
                                          // HT MCS 8–15: the per-stream modulation of MCS 0–7 -> 6, 12, 12, 24, 24, 24, 24, 24.
    let two: Vec<Rate> = (8..16).map(|m| ac.control_response_rate(ht(m, false, false))).collect();
    assert_eq!(two, [Ofdm6, Ofdm12, Ofdm12, Ofdm24, Ofdm24, Ofdm24, Ofdm24, Ofdm24]);
    // VHT: MCS 0 -> 6, MCS 1-2 -> 12, MCS 3-9 -> 24, whatever the streams and width.
    let v: Vec<Rate> =
        (0..10).map(|m| ac.control_response_rate(vht(m, 2, Width::Mhz80, false))).collect();
    assert_eq!(v, [Ofdm6, Ofdm12, Ofdm12, Ofdm24, Ofdm24, Ofdm24, Ofdm24, Ofdm24, Ofdm24, Ofdm24]);
    // The ACK's airtime is a legacy one: 24 Mb/s ACK = 28 µs.
    assert_eq!(ac.ack_airtime_ns(vht(9, 2, Width::Mhz80, true)), 28 * US);
}

#[test]
fn vht_rates_parse_and_print() {
    for s in ["vht9-2ss-80-sgi", "vht0-1ss-20", "vht7-4ss-160", "mcs15-40-sgi", "mcs31"] {
        let r: Rate = s.parse().unwrap();
        assert_eq!(r.to_string(), s);
    }
    assert!("vht9-1ss-20".parse::<Rate>().is_err());
    assert!("vht3-2ss-30".parse::<Rate>().is_err());
    assert!("802.11ac".parse::<Standard>().unwrap() == Standard::Dot11ac);
}
