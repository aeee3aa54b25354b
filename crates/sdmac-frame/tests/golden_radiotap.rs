//! Golden-byte round trips for radiotap headers, written out by hand from the rules
//! at radiotap.org (little-endian, each field aligned to its natural alignment from
//! the start of the header).

use sdmac_frame::radiotap::{
    self, channel_flags, flags, tx_flags, Channel, Header, Mcs, McsBandwidth, Repr,
};

fn hex(s: &str) -> Vec<u8> {
    s.split_whitespace().map(|b| u8::from_str_radix(b, 16).unwrap()).collect()
}

/// `bytes` parses to `want`, and `want` emits exactly `bytes`.
fn round_trip(bytes: &[u8], want: &Repr) {
    let h = Header::new_checked(bytes).unwrap();
    assert_eq!(h.header_len(), bytes.len());
    assert_eq!(&Repr::parse(&h).unwrap(), want);
    assert_eq!(want.buffer_len(), bytes.len());
    let mut out = vec![0xEEu8; bytes.len()];
    assert_eq!(want.emit_into(&mut out).unwrap(), bytes.len());
    assert_eq!(out, bytes);
}

/// (a) TSFT + Flags + Rate + Channel + dBm antenna signal.
#[test]
fn rx_header_tsft_flags_rate_channel_signal() {
    #[rustfmt::skip]
    let bytes = hex(
        "00 00 17 00  2f 00 00 00 \
         88 77 66 55 44 33 22 11 \
         10 \
         0c \
         85 09 c0 00 \
         d6",
    );
    let want = Repr {
        tsft: Some(0x1122_3344_5566_7788),
        flags: Some(flags::FCS_AT_END),
        rate: Some(12),
        channel: Some(Channel::new(2437, channel_flags::GHZ2 | channel_flags::OFDM)),
        antenna_signal: Some(-42),
        ..Repr::default()
    };
    round_trip(&bytes, &want);
    let h = Header::new_checked(&bytes[..]).unwrap();
    let offsets: Vec<(u32, usize)> =
        h.fields().map(|f| f.map(|f| (f.bit, f.offset)).unwrap()).collect();
    assert_eq!(offsets, vec![(0, 8), (1, 16), (2, 17), (3, 18), (5, 22)]);
    assert!(want.fcs_at_end() && !want.bad_fcs());
}

/// (a') Flags + Channel + signal without TSFT: one pad byte before Channel.
#[test]
fn rx_header_channel_padding() {
    #[rustfmt::skip]
    let bytes = hex(
        "00 00 0f 00  2a 00 00 00 \
         50 \
         00 \
         3c 14 40 01 \
         b5",
    );
    let want = Repr {
        flags: Some(flags::FCS_AT_END | flags::BAD_FCS),
        channel: Some(Channel::new(5180, channel_flags::GHZ5 | channel_flags::OFDM)),
        antenna_signal: Some(-75),
        ..Repr::default()
    };
    round_trip(&bytes, &want);
    assert!(want.bad_fcs());
}

/// (b) TX flags + data retries + MCS (injection header).
#[test]
fn tx_header_flags_retries_mcs() {
    #[rustfmt::skip]
    let bytes = hex(
        "00 00 0e 00  00 80 0a 00 \
         18 00 \
         03 \
         7f 05 07",
    );
    let want = Repr {
        tx_flags: Some(tx_flags::NOACK | tx_flags::NOSEQNO),
        data_retries: Some(3),
        mcs: Some(Mcs::new(7, true, true)),
        ..Repr::default()
    };
    round_trip(&bytes, &want);
    let m = want.mcs.unwrap();
    assert_eq!(m.bandwidth(), Some(McsBandwidth::Bw40));
    assert_eq!(m.short_gi(), Some(true));
}

/// (b') Rate + TX flags + MCS + A-MPDU status + timestamp: padding before the u16,
/// the align-4 and the align-8 fields.
#[test]
fn tx_header_with_wide_alignments() {
    #[rustfmt::skip]
    let bytes = hex(
        "00 00 24 00  04 80 58 00 \
         02 \
         00 \
         01 00 \
         03 00 01 \
         00 \
         78 56 34 12  02 00  aa  00 \
         08 07 06 05 04 03 02 01  e8 03  12  11",
    );
    let want = Repr {
        rate: Some(2),
        tx_flags: Some(tx_flags::FAIL),
        mcs: Some(Mcs { known: 0x03, flags: 0x00, index: 1 }),
        ampdu: Some(radiotap::AmpduStatus {
            reference: 0x1234_5678,
            flags: 2,
            delimiter_crc: 0xaa,
            reserved: 0,
        }),
        timestamp: Some(radiotap::Timestamp {
            timestamp: 0x0102_0304_0506_0708,
            accuracy: 1000,
            unit_position: 0x12,
            flags: 0x11,
        }),
        ..Repr::default()
    };
    round_trip(&bytes, &want);
}

/// A header as Linux mac80211 writes it for a two-chain receiver: three presence
/// words (namespace switches), so TSFT is padded to offset 16, and per-chain signal
/// and antenna index in namespaces 1 and 2.
#[test]
fn linux_multi_namespace_header() {
    #[rustfmt::skip]
    let bytes = hex(
        "00 00 26 00  2f 40 00 a0  20 08 00 a0  20 08 00 00 \
         10 32 54 76 98 ba dc fe \
         00 \
         02 \
         6c 09 a0 00 \
         c5 \
         00 \
         00 00 \
         c4 00 \
         c6 01",
    );
    let h = Header::new_checked(&bytes[..]).unwrap();
    assert_eq!(h.present_count(), 3);
    assert_eq!(h.present_word(1), Some(0xa000_0820));
    let fields: Vec<(usize, u32, usize, Vec<u8>)> = h
        .fields()
        .map(|f| f.unwrap())
        .map(|f| (f.namespace, f.bit, f.offset, f.data.to_vec()))
        .collect();
    assert_eq!(
        fields,
        vec![
            (0, 0, 16, hex("10 32 54 76 98 ba dc fe")),
            (0, 1, 24, vec![0x00]),
            (0, 2, 25, vec![0x02]),
            (0, 3, 26, hex("6c 09 a0 00")),
            (0, 5, 30, vec![0xc5]),
            (0, 14, 32, vec![0, 0]),
            (1, 5, 34, vec![0xc4]),
            (1, 11, 35, vec![0x00]),
            (2, 5, 36, vec![0xc6]),
            (2, 11, 37, vec![0x01]),
        ]
    );
    let r = Repr::parse(&h).unwrap();
    assert_eq!(r.tsft, Some(0xfedc_ba98_7654_3210));
    assert_eq!(r.channel, Some(Channel::new(2412, channel_flags::GHZ2 | channel_flags::CCK)));
    assert_eq!(r.antenna_signal, Some(-59));
    assert_eq!(r.rx_flags, Some(0));
    assert_eq!(r.antenna, None, "antenna indices are per-chain namespaces, not namespace 0");
    assert_eq!(r.unknown_field, None);
}

/// VHT and HE fields (as in 802.11ac/ax captures) are skipped with their right size.
#[test]
fn vht_and_he_fields_parse() {
    // Flags (1), VHT (21, align 2, 12 bytes), HE (23, align 2, 12 bytes), then L-SIG (27).
    #[rustfmt::skip]
    let bytes = hex(
        "00 00 26 00  02 00 a0 08 \
         00 \
         00 \
         44 00 00 04 92 00 00 00 00 00 00 00 \
         01 02 03 04 05 06 07 08 09 0a 0b 0c \
         0b 00 0c 00",
    );
    let h = Header::new_checked(&bytes[..]).unwrap();
    let r = Repr::parse(&h).unwrap();
    let vht = r.vht.unwrap();
    assert_eq!((vht.known, vht.bandwidth, vht.mcs_nss[0]), (0x0044, 4, 0x92));
    assert_eq!(r.he, Some([0x0201, 0x0403, 0x0605, 0x0807, 0x0a09, 0x0c0b]));
    assert_eq!(r.lsig, Some([0x000b, 0x000c]));
    round_trip(&bytes, &r);
}

#[test]
fn payload_follows_header() {
    let mut buf = vec![0u8; 64];
    let r = Repr { rate: Some(12), ..Repr::default() };
    let n = r.emit_into(&mut buf).unwrap();
    assert_eq!(n, 9);
    buf[n..n + 2].copy_from_slice(&[0xd4, 0x00]);
    let h = Header::new_checked(&buf[..]).unwrap();
    assert_eq!(&h.payload()[..2], &[0xd4, 0x00]);
    assert!(matches!(
        r.emit_into(&mut [0u8; 8]),
        Err(sdmac_frame::Error::BufferTooSmall { need: 9, have: 8, .. })
    ));
}
