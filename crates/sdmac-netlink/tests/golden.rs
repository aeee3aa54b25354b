//! Golden bytes for every hwsim message kind, built by hand from the layouts in
//! FACTS §3 (netlink is host-endian: these byte strings are those of a little-endian
//! host, which is what the kernel produces on x86-64 and aarch64).
#![cfg(target_endian = "little")]

use sdmac_netlink::attr::RawAttr;
use sdmac_netlink::hwsim::{
    self, HwsimFlags, MacAddrEvent, RadioInfo, RateFlags, RxFrame, TxFrame, TxInfoFrame, TxRate,
    TxRateFlags,
};
use sdmac_netlink::nl::{self, flags, NlHeader, NlPacket};
use sdmac_netlink::{decode, Error, HwsimMsg, Incoming};

const FAMILY: u16 = 0x1d;
const RADIO0: [u8; 6] = [0x42, 0, 0, 0, 0, 0];
const RADIO1: [u8; 6] = [0x42, 0, 0, 0, 1, 0];

/// nlmsghdr (len patched at the end) + genlmsghdr, then the attribute bytes.
fn message(flags: u16, seq: u32, pid: u32, cmd: u8, attrs: &[&[u8]]) -> Vec<u8> {
    let mut v = Vec::new();
    v.extend_from_slice(&[0, 0, 0, 0]);
    v.extend_from_slice(&[FAMILY as u8, 0]);
    v.extend_from_slice(&flags.to_le_bytes());
    v.extend_from_slice(&seq.to_le_bytes());
    v.extend_from_slice(&pid.to_le_bytes());
    v.extend_from_slice(&[cmd, 1, 0, 0]);
    for a in attrs {
        v.extend_from_slice(a);
    }
    let len = v.len() as u32;
    v[..4].copy_from_slice(&len.to_le_bytes());
    v
}

/// Parses `bytes` and checks the result, then emits `expect` and checks the bytes.
fn check(bytes: &[u8], expect: &HwsimMsg<'_>) {
    let p = NlPacket::new_checked(bytes).unwrap();
    assert_eq!(p.header().len as usize, bytes.len());
    let got = HwsimMsg::parse(&p).unwrap();
    assert_eq!(&got, expect);
    let h = p.header();
    let out = expect.to_vec(&NlHeader::request(h.ty, h.flags, h.seq, h.pid)).unwrap();
    assert_eq!(out, bytes, "emit of {expect:?}");
    assert_eq!(expect.buffer_len(), bytes.len());
    match decode(&p, FAMILY).unwrap() {
        Incoming::Hwsim(hh, m) => assert_eq!((hh, &m), (h, expect)),
        other => panic!("{other:?}"),
    }
}

#[test]
fn register() {
    let bytes = message(flags::REQUEST, 1, 0, 1, &[]);
    assert_eq!(bytes, [20, 0, 0, 0, 0x1d, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0]);
    check(&bytes, &HwsimMsg::Register);
}

const FRAME26: [u8; 26] = [
    0x08, 0x02, 0x2c, 0x00, 0x42, 0, 0, 0, 1, 0, 0x42, 0, 0, 0, 0, 0, 0x42, 0, 0, 0, 0, 0, 0x10,
    0x00, 0xaa, 0xbb,
];

#[rustfmt::skip]
fn tx_frame_attrs() -> Vec<Vec<u8>> {
    vec![
        vec![10, 0, 2, 0,   0x42, 0, 0, 0, 0, 0,   0, 0],               // ADDR_TRANSMITTER
        [&[30u8, 0, 3, 0][..], &FRAME26, &[0, 0]].concat(),            // FRAME (26 B + 2 pad)
        vec![8, 0, 4, 0,   1, 0, 0, 0],                                // FLAGS = REQ_TX_STATUS
        vec![8, 0, 19, 0,   0x6c, 0x09, 0, 0],                         // FREQ = 2412
        vec![12, 0, 7, 0,   11, 1,  4, 2,  0xff, 0,  0xff, 0],         // TX_INFO 54M x1, 6M x2, end
        vec![16, 0, 21, 0,  11, 0x04, 0x00,  4, 0, 0,  0xff, 0, 0,  0xff, 0, 0], // TX_INFO_FLAGS
        vec![12, 0, 8, 0,   0x2a, 0, 0, 0, 0, 0, 0, 0x01],             // COOKIE
    ]
}

fn tx_frame() -> TxFrame<'static> {
    TxFrame {
        transmitter: RADIO0,
        frame: &FRAME26,
        flags: HwsimFlags::REQ_TX_STATUS,
        freq: Some(2412),
        tx_info: [TxRate::new(11, 1), TxRate::new(4, 2), TxRate::END, TxRate::END],
        tx_info_flags: Some([
            TxRateFlags::new(11, RateFlags::SHORT_PREAMBLE),
            TxRateFlags::new(4, RateFlags::empty()),
            TxRateFlags::END,
            TxRateFlags::END,
        ]),
        cookie: 0x0100_0000_0000_002a,
        extra: vec![],
    }
}

#[test]
fn frame_from_kernel() {
    let attrs = tx_frame_attrs();
    let refs: Vec<&[u8]> = attrs.iter().map(|a| a.as_slice()).collect();
    let bytes = message(0, 0, 0, 2, &refs);
    assert_eq!(bytes.len(), 20 + 12 + 32 + 8 + 8 + 12 + 16 + 12);
    let f = tx_frame();
    check(&bytes, &HwsimMsg::Frame(f.clone()));
    // decoding a kernel frame borrows the frame bytes and allocates nothing
    match HwsimMsg::parse(&NlPacket::new_checked(&bytes).unwrap()).unwrap() {
        HwsimMsg::Frame(g) => {
            assert_eq!(g.extra.capacity(), 0);
            assert!(std::ptr::eq(g.frame.as_ptr(), bytes[36..].as_ptr()));
        }
        m => panic!("{m:?}"),
    }

    // the attempts stop at idx -1 and carry their flags
    let a: Vec<_> = f.attempts().collect();
    assert_eq!(
        a,
        [(TxRate::new(11, 1), RateFlags::SHORT_PREAMBLE), (TxRate::new(4, 2), RateFlags::empty())]
    );
    let series: Vec<_> = f.rate_series().map(|r| r.unwrap()).collect();
    assert_eq!(series[0].0.nearest_phy(), sdmac_phy::Rate::Ofdm54);
    assert_eq!(
        series[1],
        (
            sdmac_netlink::HwsimRate::Legacy {
                rate: sdmac_phy::Rate::Ofdm6,
                short_preamble: false
            },
            2
        )
    );
    assert!(f.wants_ack());
}

#[test]
fn frame_from_kernel_with_pad_and_unknown_attributes() {
    let mut attrs = tx_frame_attrs();
    // PAD before COOKIE (as on architectures without fast unaligned access) and an
    // attribute from a newer kernel (type 99) at the end.
    attrs.insert(6, vec![4, 0, 20, 0]);
    attrs.push(vec![6, 0, 99, 0, 0xde, 0xad, 0, 0]);
    let refs: Vec<&[u8]> = attrs.iter().map(|a| a.as_slice()).collect();
    let bytes = message(0, 0, 0, 2, &refs);
    let got = HwsimMsg::parse(&NlPacket::new_checked(&bytes).unwrap()).unwrap();
    let mut f = tx_frame();
    f.extra = vec![RawAttr { raw_type: 99, payload: &[0xde, 0xad] }];
    assert_eq!(got, HwsimMsg::Frame(f));
}

#[test]
fn frame_without_optional_attributes() {
    // An older kernel: no FREQ, no TX_INFO_FLAGS.
    let attrs = tx_frame_attrs();
    let refs: Vec<&[u8]> = [0, 1, 2, 4, 6].iter().map(|&i| attrs[i].as_slice()).collect();
    let bytes = message(0, 0, 0, 2, &refs);
    let f = TxFrame { freq: None, tx_info_flags: None, ..tx_frame() };
    check(&bytes, &HwsimMsg::Frame(f.clone()));
    assert!(f.rate_series().all(|r| r.is_err()));
}

#[test]
fn frame_errors_name_the_attribute_and_offset() {
    let attrs = tx_frame_attrs();
    // no COOKIE
    let refs: Vec<&[u8]> = attrs[..6].iter().map(|a| a.as_slice()).collect();
    let bytes = message(0, 0, 0, 2, &refs);
    let e = HwsimMsg::parse(&NlPacket::new_checked(&bytes).unwrap()).unwrap_err();
    assert_eq!(
        e,
        Error::MissingAttribute { msg: "HWSIM_CMD_FRAME", attr: 8, name: "HWSIM_ATTR_COOKIE" }
    );
    // TX_INFO of 6 bytes (3 entries): at offset 20 + 12 + 32 + 8 + 8 = 80
    let mut bad = attrs.clone();
    bad[4] = vec![10, 0, 7, 0, 11, 1, 4, 2, 0xff, 0, 0, 0];
    let refs: Vec<&[u8]> = bad.iter().map(|a| a.as_slice()).collect();
    let bytes = message(0, 0, 0, 2, &refs);
    let e = HwsimMsg::parse(&NlPacket::new_checked(&bytes).unwrap()).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Attribute { attr: 7, name: "HWSIM_ATTR_TX_INFO", offset: 80, len: 6, .. }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("HWSIM_ATTR_TX_INFO (attribute type 7) at offset 80"), "{e}");
    // an ADDR_TRANSMITTER of 5 bytes
    let mut bad = attrs.clone();
    bad[0] = vec![9, 0, 2, 0, 0x42, 0, 0, 0, 0, 0, 0, 0];
    let refs: Vec<&[u8]> = bad.iter().map(|a| a.as_slice()).collect();
    let bytes = message(0, 0, 0, 2, &refs);
    let e = HwsimMsg::parse(&NlPacket::new_checked(&bytes).unwrap()).unwrap_err();
    assert!(matches!(e, Error::Attribute { attr: 2, offset: 20, len: 5, .. }), "{e}");
    // nla_len running past the message end
    let mut bytes = message(0, 0, 0, 2, &[&attrs[0]]);
    bytes[20] = 200;
    let e = HwsimMsg::parse(&NlPacket::new_checked(&bytes).unwrap()).unwrap_err();
    assert!(matches!(e, Error::Attribute { attr: 2, offset: 20, len: 200, .. }), "{e}");
    // no genl header
    let mut bytes = message(0, 0, 0, 2, &[]);
    bytes.truncate(18);
    bytes[0] = 18;
    let e = HwsimMsg::parse(&NlPacket::new_checked(&bytes).unwrap()).unwrap_err();
    assert!(
        matches!(e, Error::Truncated { what: "genlmsghdr", offset: 16, need: 20, have: 18 }),
        "{e}"
    );
}

#[test]
fn delivery_to_kernel() {
    let frame24 = &FRAME26[..24];
    #[rustfmt::skip]
    let bytes = message(flags::REQUEST, 5, 0, 2, &[
        &[10, 0, 1, 0,   0x42, 0, 0, 0, 1, 0,   0, 0],                 // ADDR_RECEIVER
        &[[28u8, 0, 3, 0].as_slice(), frame24].concat(),               // FRAME (24 B)
        &[8, 0, 5, 0,   7, 0, 0, 0],                                   // RX_RATE 7
        &[8, 0, 6, 0,   0xce, 0xff, 0xff, 0xff],                       // SIGNAL -50
        &[8, 0, 19, 0,  0x3c, 0x14, 0, 0],                             // FREQ 5180
    ]);
    assert_eq!(bytes.len(), 84);
    let d = RxFrame { receiver: RADIO1, frame: frame24, rx_rate: 7, signal: -50, freq: 5180 };
    check(&bytes, &HwsimMsg::Delivery(d));
    // a frame shorter than 24 bytes is refused before it reaches the kernel
    let short = HwsimMsg::Delivery(RxFrame { frame: &FRAME26[..23], ..d });
    assert!(matches!(
        short.emit(&NlHeader::default(), &mut [0u8; 128]),
        Err(Error::InvalidInput { .. })
    ));
    // a delivery lacking FREQ
    let bytes = message(flags::REQUEST, 5, 0, 2, &[&[10, 0, 1, 0, 0x42, 0, 0, 0, 1, 0, 0, 0]]);
    let e = HwsimMsg::parse(&NlPacket::new_checked(&bytes).unwrap()).unwrap_err();
    assert!(matches!(e, Error::MissingAttribute { attr: 3, .. }), "{e}");
}

#[test]
fn tx_info_frame_to_kernel() {
    #[rustfmt::skip]
    let bytes = message(flags::REQUEST, 6, 0, 3, &[
        &[10, 0, 2, 0,   0x42, 0, 0, 0, 0, 0,   0, 0],                 // ADDR_TRANSMITTER
        &[8, 0, 4, 0,    5, 0, 0, 0],                                  // FLAGS REQ_TX_STATUS|STAT_ACK
        &[12, 0, 8, 0,   0x2a, 0, 0, 0, 0, 0, 0, 0x01],                // COOKIE
        &[8, 0, 6, 0,    0xc4, 0xff, 0xff, 0xff],                      // SIGNAL -60
        &[12, 0, 7, 0,   11, 1,  4, 1,  0xff, 0,  0xff, 0],            // TX_INFO
    ]);
    assert_eq!(bytes.len(), 72);
    let t = TxInfoFrame {
        transmitter: RADIO0,
        flags: HwsimFlags::REQ_TX_STATUS | HwsimFlags::STAT_ACK,
        cookie: 0x0100_0000_0000_002a,
        signal: -60,
        tx_info: [TxRate::new(11, 1), TxRate::new(4, 1), TxRate::END, TxRate::END],
    };
    check(&bytes, &HwsimMsg::TxInfo(t));
    // built from the frame it answers
    assert_eq!(tx_frame().status(true, -60, t.tx_info), t);
    let nack = tx_frame().status(false, -60, t.tx_info);
    assert_eq!(nack.flags, HwsimFlags::REQ_TX_STATUS);
}

#[test]
fn add_and_del_mac_addr() {
    let vif = [0x02, 0, 0, 0, 1, 0];
    for (cmd, wrap) in
        [(7u8, HwsimMsg::AddMacAddr as fn(_) -> _), (8, HwsimMsg::DelMacAddr as fn(_) -> _)]
    {
        #[rustfmt::skip]
        let bytes = message(0, 0, 0, cmd, &[
            &[10, 0, 2, 0,   0x42, 0, 0, 0, 1, 0,   0, 0],             // ADDR_TRANSMITTER: the radio
            &[10, 0, 1, 0,   0x02, 0, 0, 0, 1, 0,   0, 0],             // ADDR_RECEIVER: the vif address
        ]);
        assert_eq!(bytes.len(), 44);
        check(&bytes, &wrap(MacAddrEvent { radio: RADIO1, addr: vif }));
    }
}

#[test]
fn radio_messages() {
    // NEW_RADIO as multicast to "config"
    #[rustfmt::skip]
    let bytes = message(0, 0, 0, 4, &[
        &[8, 0, 10, 0,   3, 0, 0, 0],                                  // RADIO_ID 3
        &[4, 0, 16, 0],                                                // DESTROY_RADIO_ON_CLOSE
        &[8, 0, 9, 0,    1, 0, 0, 0],                                  // CHANNELS 1
        &[8, 0, 17, 0,   b'p', b'h', b'y', b'3'],                      // RADIO_NAME "phy3"
        &[10, 0, 22, 0,  0x02, 0, 0, 0, 3, 0,   0, 0],                 // PERM_ADDR
    ]);
    let r = RadioInfo {
        radio_id: Some(3),
        name: Some("phy3"),
        channels: Some(1),
        perm_addr: Some([2, 0, 0, 0, 3, 0]),
        destroy_on_close: true,
        ..Default::default()
    };
    check(&bytes, &HwsimMsg::NewRadio(r.clone()));

    // a NUL-terminated name, a regulatory hint, and an attribute this crate does not know
    #[rustfmt::skip]
    let bytes = message(0, 0, 0, 6, &[
        &[8, 0, 10, 0,   3, 0, 0, 0],
        &[9, 0, 17, 0,   b'p', b'h', b'y', b'3', 0,   0, 0, 0],
        &[6, 0, 11, 0,   b'F', b'I',   0, 0],
        &[8, 0, 23, 0,   0xff, 0, 0, 0],                               // IFTYPE_SUPPORT
    ]);
    let got = HwsimMsg::parse(&NlPacket::new_checked(&bytes).unwrap()).unwrap();
    let want = RadioInfo {
        radio_id: Some(3),
        name: Some("phy3"),
        reg_alpha2: Some(*b"FI"),
        extra: vec![RawAttr { raw_type: 23, payload: &[0xff, 0, 0, 0] }],
        ..Default::default()
    };
    assert_eq!(got, HwsimMsg::GetRadio(want));

    // DEL_RADIO by name
    let bytes =
        message(0, 0, 0, 5, &[&[8, 0, 10, 0, 3, 0, 0, 0], &[8, 0, 17, 0, b'p', b'h', b'y', b'3']]);
    check(
        &bytes,
        &HwsimMsg::DelRadio(RadioInfo {
            radio_id: Some(3),
            name: Some("phy3"),
            ..Default::default()
        }),
    );

    // GET_RADIO request
    let bytes = message(flags::REQUEST | flags::ACK, 9, 0, 6, &[&[8, 0, 10, 0, 0, 0, 0, 0]]);
    check(&bytes, &HwsimMsg::GetRadio(RadioInfo { radio_id: Some(0), ..Default::default() }));
}

#[test]
fn unknown_commands_are_kept_raw() {
    let attrs: &[u8] = &[8, 0, 27, 0x80, 1, 2, 3, 4];
    let bytes = message(0, 0, 0, hwsim::cmd::REPORT_PMSR, &[attrs]);
    check(&bytes, &HwsimMsg::Unknown { cmd: 11, attrs });
}

#[test]
fn a_datagram_with_a_frame_an_ack_and_done() {
    let attrs = tx_frame_attrs();
    let refs: Vec<&[u8]> = attrs.iter().map(|a| a.as_slice()).collect();
    let mut dgram = message(0, 0, 0, 2, &refs);
    let req = NlHeader { len: 20, ty: FAMILY, flags: flags::REQUEST | flags::ACK, seq: 1, pid: 77 };
    #[rustfmt::skip]
    dgram.extend_from_slice(&[
        36, 0, 0, 0,  2, 0,  0, 1,  1, 0, 0, 0,  77, 0, 0, 0,          // NLMSG_ERROR, CAPPED
        0, 0, 0, 0,                                                    // error 0: ACK
        20, 0, 0, 0,  0x1d, 0,  5, 0,  1, 0, 0, 0,  77, 0, 0, 0,       // the request's header
    ]);
    #[rustfmt::skip]
    dgram.extend_from_slice(&[
        36, 0, 0, 0,  2, 0,  0, 1,  2, 0, 0, 0,  77, 0, 0, 0,
        0xf0, 0xff, 0xff, 0xff,                                        // -16 EBUSY
        20, 0, 0, 0,  0x1d, 0,  5, 0,  2, 0, 0, 0,  77, 0, 0, 0,
    ]);
    dgram.extend_from_slice(&[20, 0, 0, 0, 3, 0, 2, 0, 3, 0, 0, 0, 77, 0, 0, 0, 0, 0, 0, 0]);
    let got: Vec<_> = nl::messages(&dgram).map(|p| decode(&p.unwrap(), FAMILY).unwrap()).collect();
    assert_eq!(got.len(), 4);
    assert!(matches!(&got[0], Incoming::Hwsim(_, HwsimMsg::Frame(f)) if *f == tx_frame()));
    match &got[1] {
        Incoming::Error(_, e) => assert!(e.is_ack() && e.request == Some(req)),
        o => panic!("{o:?}"),
    }
    match &got[2] {
        Incoming::Error(_, e) => assert_eq!(e.errno(), Some(16)),
        o => panic!("{o:?}"),
    }
    assert!(matches!(got[3], Incoming::Done(_, 0)));
    // a message of another family is passed through
    let other = message(0, 0, 0, 1, &[]);
    let p = NlPacket::new_checked(&other).unwrap();
    assert!(matches!(decode(&p, 0x20).unwrap(), Incoming::Other(_)));
}

#[test]
fn tx_info_flags_are_packed_three_bytes_each() {
    let f = [
        TxRateFlags::new(7, RateFlags::MCS | RateFlags::WIDTH_40 | RateFlags::SHORT_GI),
        TxRateFlags::new(0x19, RateFlags::VHT_MCS | RateFlags::WIDTH_80),
        TxRateFlags::new(2, RateFlags::from_bits_retain(0x8004)),
        TxRateFlags::END,
    ];
    let b = hwsim::encode_tx_info_flags(&f);
    #[rustfmt::skip]
    assert_eq!(b, [
        7, 0xa8, 0x00,        // MCS|40|SGI = 0x00a8
        0x19, 0x00, 0x03,     // VHT|80 = 0x0300
        2, 0x04, 0x80,        // unknown bit 15 kept
        0xff, 0x00, 0x00,
    ]);
    let tx = hwsim::encode_tx_info(&[
        TxRate::new(7, 3),
        TxRate::new(-1, 9),
        TxRate::new(5, 1),
        TxRate::END,
    ]);
    assert_eq!(tx, [7, 3, 0xff, 9, 5, 1, 0xff, 0]);
    // the series ends at the first idx -1, even if entries follow
    let series = [TxRate::new(7, 3), TxRate::new(-1, 9), TxRate::new(5, 1), TxRate::END];
    assert_eq!(hwsim::attempts(&series).collect::<Vec<_>>(), [TxRate::new(7, 3)]);
    assert_eq!(hwsim::attempts(&[TxRate::END; 4]).count(), 0);
    let full = [TxRate::new(3, 1); 4];
    assert_eq!(hwsim::attempts(&full).count(), 4);
    // flags' Debug names every bit
    assert_eq!(format!("{:?}", f[0].flags), "RateFlags(MCS | WIDTH_40 | SHORT_GI)");
    assert_eq!(format!("{:?}", f[2].flags), "RateFlags(SHORT_PREAMBLE | 0x8000)");
    assert_eq!(format!("{:?}", HwsimFlags::empty()), "HwsimFlags(0x0)");
}
