//! Golden-byte round trips for 802.11 frames. The expected bytes are written out by
//! hand from IEEE 802.11-2020 clause 9; FCS values were computed independently
//! (zlib's CRC-32) and pasted in.

use sdmac_frame::fcs::check_fcs;
use sdmac_frame::ieee80211::beacon::{BeaconBody, CAP_ESS, CAP_SHORT_SLOT_TIME};
use sdmac_frame::ieee80211::*;
use sdmac_frame::MacAddress;

const AP: MacAddress = MacAddress([0x02, 0, 0, 0, 0x01, 0x00]);
const STA: MacAddress = MacAddress([0x02, 0, 0, 0, 0x00, 0x00]);
const X: MacAddress = MacAddress([0x02, 0, 0, 0, 0x02, 0x00]);

fn hex(s: &str) -> Vec<u8> {
    s.split_whitespace().map(|b| u8::from_str_radix(b, 16).unwrap()).collect()
}

/// Parses `bytes` as a header, checks it equals `want`, re-emits it and checks the
/// bytes are identical.
fn round_trip(bytes: &[u8], want: &Repr) {
    let f = Frame::new_checked(bytes).unwrap();
    let r = Repr::parse(&f).unwrap();
    assert_eq!(&r, want);
    assert_eq!(r.buffer_len(), f.header_len());
    let mut out = vec![0u8; r.buffer_len()];
    r.emit(&mut Frame::new_unchecked(&mut out[..])).unwrap();
    assert_eq!(&out[..], &bytes[..r.buffer_len()]);
}

#[test]
fn data_frame_with_llc_snap_and_fcs() {
    #[rustfmt::skip]
    let want = hex(
        "08 01 2c 00 \
         02 00 00 00 01 00  02 00 00 00 00 00  02 00 00 00 01 00 \
         50 00 \
         aa aa 03 00 00 00 88 b5 \
         68 69 \
         00 f3 c6 f1",
    );
    let p =
        DataParams { to_ds: true, duration: 44, seq: 5, ..DataParams::new(AP, STA, AP, 0x88b5) };
    assert_eq!(data_frame_len(&p, 2, true), 24 + 8 + 2 + 4);
    let mut buf = [0u8; 64];
    let n = write_data_frame(&mut buf, &p, b"hi", true).unwrap();
    assert_eq!(&buf[..n], &want[..]);
    assert!(check_fcs(&buf[..n]));

    let mut r = Repr::new(FrameKind::Data, AP);
    r.to_ds = true;
    r.duration = 44;
    r.addr2 = Some(STA);
    r.addr3 = Some(AP);
    r.seq = 5;
    round_trip(&want, &r);
    let f = Frame::new_checked(&want[..]).unwrap();
    assert_eq!(f.payload().len(), 8 + 2 + 4);
    assert_eq!(f.seq_number(), Some(5));
    assert_eq!(f.frag_number(), Some(0));
}

#[test]
fn data_frame_86_bytes_for_50_byte_payload() {
    let p = DataParams::new(AP, STA, AP, 0x0800);
    assert_eq!(data_frame_len(&p, 50, true), 86);
    let mut buf = [0u8; 86];
    assert_eq!(write_data_frame(&mut buf, &p, &[0x55; 50], true).unwrap(), 86);
    assert_eq!(&buf[24..32], &[0xaa, 0xaa, 0x03, 0, 0, 0, 0x08, 0x00]);
}

#[test]
fn qos_data_frame() {
    #[rustfmt::skip]
    let want = hex(
        "88 09 00 01 \
         02 00 00 00 01 00  02 00 00 00 00 00  02 00 00 00 01 00 \
         f1 ff \
         26 00 \
         aa aa 03 00 00 00 08 06 \
         01 02 03 \
         06 8f 4d d8",
    );
    let p = DataParams {
        to_ds: true,
        retry: true,
        duration: 256,
        seq: 4095,
        frag: 1,
        qos: Some(QosControl::new(6, AckPolicy::NoAck)),
        ..DataParams::new(AP, STA, AP, 0x0806)
    };
    let mut buf = [0u8; 64];
    let n = write_data_frame(&mut buf, &p, &[1, 2, 3], true).unwrap();
    assert_eq!(n, data_frame_len(&p, 3, true));
    assert_eq!(&buf[..n], &want[..]);
    assert!(check_fcs(&buf[..n]));
    round_trip(&want, &p.header());
    let f = Frame::new_checked(&want[..]).unwrap();
    let q = f.qos_control().unwrap();
    assert_eq!((q.tid, q.ack_policy), (6, AckPolicy::NoAck));
    assert_eq!(f.header_len(), 26);
}

#[test]
fn four_address_qos_data_with_ht_control() {
    #[rustfmt::skip]
    let want = hex(
        "88 83 00 00 \
         02 00 00 00 01 00  02 00 00 00 00 00  02 00 00 00 02 00 \
         10 00 \
         02 00 00 00 00 00 \
         03 00 \
         01 02 03 04 \
         ee",
    );
    let mut r = Repr::new(FrameKind::QosData, AP);
    r.to_ds = true;
    r.from_ds = true;
    r.order = true;
    r.fill_layout();
    r.addr2 = Some(STA);
    r.addr3 = Some(X);
    r.addr4 = Some(STA);
    r.seq = 1;
    r.qos = Some(QosControl::new(3, AckPolicy::Normal));
    r.ht_control = Some(0x0403_0201);
    assert_eq!(r.buffer_len(), 36);
    round_trip(&want, &r);
    assert_eq!(Frame::new_checked(&want[..]).unwrap().payload(), &[0xee]);
}

#[test]
fn four_address_data() {
    let want = hex(
        "08 03 00 00 02 00 00 00 01 00 02 00 00 00 00 00 02 00 00 00 02 00 00 00 02 00 00 00 00 00",
    );
    let p = DataParams { addr4: Some(STA), ..DataParams::new(AP, STA, X, 0x0800) };
    let h = p.header();
    assert_eq!(h.buffer_len(), 30);
    round_trip(&want, &h);
}

#[test]
fn null_and_qos_null() {
    // Null, To DS + power management (flags 0x11), duration 44, seq 7.
    let null = hex("48 11 2c 00 02 00 00 00 01 00 02 00 00 00 00 00 02 00 00 00 01 00 70 00");
    let mut r = Repr::new(FrameKind::Null, AP);
    r.to_ds = true;
    r.pwr_mgmt = true;
    r.duration = 44;
    r.addr2 = Some(STA);
    r.addr3 = Some(AP);
    r.seq = 7;
    round_trip(&null, &r);

    // QoS Null, To DS, TID 7 normal ack + EOSP.
    let qnull =
        hex("c8 01 2c 00 02 00 00 00 01 00 02 00 00 00 00 00 02 00 00 00 01 00 70 00 17 00");
    r.kind = FrameKind::QosNull;
    r.pwr_mgmt = false;
    r.qos = Some(QosControl { eosp: true, ..QosControl::new(7, AckPolicy::Normal) });
    round_trip(&qnull, &r);
}

#[test]
fn ack_frame_14_bytes_with_fcs() {
    let want = hex("d4 00 2c 00 02 00 00 00 00 00 57 91 61 56");
    assert_eq!(ack_frame_len(true), 14);
    let mut buf = [0u8; 14];
    assert_eq!(write_ack_frame(&mut buf, STA, 44, true).unwrap(), 14);
    assert_eq!(&buf[..], &want[..]);
    let mut r = Repr::new(FrameKind::Ack, STA);
    r.duration = 44;
    round_trip(&want, &r);
    let f = Frame::new_checked(&want[..]).unwrap();
    assert_eq!((f.addr2(), f.seq_ctrl(), f.header_len()), (None, None, 10));
}

#[test]
fn rts_and_cts() {
    let rts = hex("b4 00 f4 01 02 00 00 00 01 00 02 00 00 00 00 00");
    let mut buf = [0u8; 20];
    assert_eq!(write_rts_frame(&mut buf, AP, STA, 500, false).unwrap(), 16);
    assert_eq!(&buf[..16], &rts[..]);
    let mut r = Repr::new(FrameKind::Rts, AP);
    r.duration = 500;
    r.addr2 = Some(STA);
    round_trip(&rts, &r);
    assert_eq!(write_rts_frame(&mut buf, AP, STA, 500, true).unwrap(), rts_frame_len(true));

    let cts = hex("c4 00 e0 01 02 00 00 00 00 00");
    assert_eq!(write_cts_frame(&mut buf, STA, 480, false).unwrap(), 10);
    assert_eq!(&buf[..10], &cts[..]);
    let mut r = Repr::new(FrameKind::Cts, STA);
    r.duration = 480;
    round_trip(&cts, &r);
    assert_eq!(cts_frame_len(true), 14);
}

#[test]
fn beacon_frame() {
    #[rustfmt::skip]
    let want = hex(
        "80 00 00 00 \
         ff ff ff ff ff ff  02 00 00 00 01 00  02 00 00 00 01 00 \
         a0 00 \
         08 07 06 05 04 03 02 01 \
         64 00 \
         01 04 \
         00 06 73 64 6d 61 63 30 \
         01 08 82 84 8b 96 0c 12 18 24 \
         03 01 06 \
         32 04 30 48 60 6c \
         95 c0 30 1c",
    );
    let rates: Vec<SupportedRate> = [
        (2, true),
        (4, true),
        (11, true),
        (22, true),
        (12, false),
        (18, false),
        (24, false),
        (36, false),
        (48, false),
        (72, false),
        (96, false),
        (108, false),
    ]
    .iter()
    .map(|&(r, b)| SupportedRate::new(r, b))
    .collect();
    let p = BeaconParams {
        seq: 10,
        timestamp: 0x0102_0304_0506_0708,
        capability: CAP_ESS | CAP_SHORT_SLOT_TIME,
        ..BeaconParams::new(AP, b"sdmac0", &rates, 6)
    };
    assert_eq!(beacon_frame_len(&p, true), want.len());
    let mut buf = [0u8; 128];
    let n = write_beacon_frame(&mut buf, &p, true).unwrap();
    assert_eq!(&buf[..n], &want[..]);
    assert!(check_fcs(&buf[..n]));

    let f = Frame::new_checked(&want[..n - 4]).unwrap();
    let r = Repr::parse(&f).unwrap();
    assert_eq!(r, p.header());
    round_trip(&want, &r);
    let body = BeaconBody::parse(f.payload(), f.header_len()).unwrap();
    assert_eq!(body.timestamp, 0x0102_0304_0506_0708);
    assert_eq!(body.beacon_interval_tu, 100);
    assert_eq!(body.capability, 0x0401);
    assert_eq!(body.ssid().unwrap(), Some(&b"sdmac0"[..]));
    assert_eq!(body.ds_channel().unwrap(), Some(6));
    assert_eq!(body.rates().unwrap().collect::<Vec<_>>(), rates);
}

/// Management frames other than beacons: 24-byte header, hand-written, round-trip.
#[test]
fn management_headers() {
    let cases: &[(FrameKind, &str)] = &[
        (FrameKind::AssocReq, "00 00"),
        (FrameKind::AssocResp, "10 00"),
        (FrameKind::ProbeReq, "40 00"),
        (FrameKind::ProbeResp, "50 00"),
        (FrameKind::Disassoc, "a0 00"),
        (FrameKind::Auth, "b0 00"),
        (FrameKind::Deauth, "c0 00"),
        (FrameKind::Action, "d0 00"),
    ];
    for &(kind, fc) in cases {
        let bytes =
            hex(&format!("{fc} 3a 01 02 00 00 00 01 00 02 00 00 00 00 00 02 00 00 00 01 00 30 00"));
        let mut r = Repr::new(kind, AP);
        r.duration = 314;
        r.addr2 = Some(STA);
        r.addr3 = Some(AP);
        r.seq = 3;
        round_trip(&bytes, &r);
        assert_eq!(r.buffer_len(), 24, "{kind}");
    }
    // Action with +HTC: 28-byte header.
    let bytes =
        hex("d0 80 00 00 02 00 00 00 01 00 02 00 00 00 00 00 02 00 00 00 01 00 00 00 aa bb cc dd");
    let mut r = Repr::new(FrameKind::Action, AP);
    r.order = true;
    r.fill_layout();
    r.addr2 = Some(STA);
    r.addr3 = Some(AP);
    r.ht_control = Some(0xddcc_bbaa);
    round_trip(&bytes, &r);
}

#[test]
fn authentication_mpdu_via_write_mpdu() {
    let mut r = Repr::new(FrameKind::Auth, AP);
    r.addr2 = Some(STA);
    r.addr3 = Some(AP);
    // Open System, transaction 1, status 0.
    let body = [0, 0, 1, 0, 0, 0];
    let mut buf = [0u8; 64];
    let n = write_mpdu(&mut buf, &r, &body, true).unwrap();
    assert_eq!(n, mpdu_len(&r, body.len(), true));
    assert_eq!(n, 24 + 6 + 4);
    assert_eq!(&buf[..2], &[0xb0, 0x00]);
    assert_eq!(&buf[24..30], &body);
    assert!(check_fcs(&buf[..n]));
}

#[test]
fn other_kinds() {
    // BlockAck (type 1 subtype 9): RA, TA, then BA control + bitmap as body.
    let ba = hex("94 00 00 00 02 00 00 00 01 00 02 00 00 00 00 00 05 00");
    let f = Frame::new_checked(&ba[..]).unwrap();
    assert_eq!(f.kind(), FrameKind::Other { ftype: 1, subtype: 9 });
    assert_eq!(f.header_len(), 16);
    assert_eq!(f.payload(), &[5, 0]);
    let mut r = Repr::new(FrameKind::Other { ftype: 1, subtype: 9 }, AP);
    r.addr2 = Some(STA);
    round_trip(&ba, &r);
    // PS-Poll: AID in the duration field.
    let pspoll = hex("a4 10 01 c0 02 00 00 00 01 00 02 00 00 00 00 00");
    let mut r = Repr::new(FrameKind::from_type_subtype(1, 10), AP);
    r.pwr_mgmt = true;
    r.duration = 0xc001;
    r.addr2 = Some(STA);
    round_trip(&pspoll, &r);
    // Protected data frame.
    let prot = hex("08 42 00 00 02 00 00 00 00 00 02 00 00 00 01 00 02 00 00 00 01 00 00 00");
    let mut r = Repr::new(FrameKind::Data, STA);
    r.from_ds = true;
    r.protected = true;
    r.addr2 = Some(AP);
    r.addr3 = Some(AP);
    round_trip(&prot, &r);
}

#[test]
fn truncated_inputs_are_named() {
    let ack = hex("d4 00 2c 00 02 00 00 00 00");
    assert_eq!(
        Frame::new_checked(&ack[..]).unwrap_err().to_string(),
        "802.11 header addr1 truncated at offset 4: need 10 bytes, have 9"
    );
    let qos = hex("88 01 00 00 02 00 00 00 01 00 02 00 00 00 00 00 02 00 00 00 01 00 00 00 26");
    assert_eq!(
        Frame::new_checked(&qos[..]).unwrap_err(),
        sdmac_frame::Error::Truncated {
            what: "802.11 header QoS control",
            offset: 24,
            need: 26,
            have: 25
        }
    );
}
