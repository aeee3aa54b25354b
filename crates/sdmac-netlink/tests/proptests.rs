//! Property tests: decoding never panics, and emit → parse is the identity.

use proptest::prelude::*;
use sdmac_netlink::attr::{RawAttr, NLA_F_NESTED, NLA_F_NET_BYTEORDER};
use sdmac_netlink::genl::ctrl::{FamilyInfo, GetFamily, McastGroup};
use sdmac_netlink::hwsim::{
    HwsimFlags, MacAddrEvent, RadioInfo, RateFlags, RxFrame, TxFrame, TxInfoFrame, TxRate,
    TxRateFlags,
};
use sdmac_netlink::nl::{self, ErrorMsg, NlHeader, NlPacket};
use sdmac_netlink::rate::{rx_rate_index, HwsimRate, Width};
use sdmac_netlink::{decode, Band, HwsimMsg};

const FAMILY: u16 = 0x1d;

/// Runs every decoder of the crate on one netlink message.
fn decode_all(p: &NlPacket<'_>) {
    let _ = decode(p, FAMILY);
    let _ = decode(p, p.header().ty);
    if let Ok(m) = HwsimMsg::parse(p) {
        if let HwsimMsg::Frame(f) = &m {
            for r in f.rate_series().flatten() {
                let _ = r.0.nearest_phy();
                let _ = r.0.to_phy();
                let _ = r.0.rx_rate_index(Band::Ghz5);
            }
        }
        // whatever decodes re-emits (unless emit refuses it) to the same message
        let h = p.header();
        if let Ok(bytes) = m.to_vec(&NlHeader::request(h.ty, h.flags, h.seq, h.pid)) {
            let again = HwsimMsg::parse(&NlPacket::new_checked(&bytes).unwrap()).unwrap();
            assert_eq!(again, m);
        }
    }
    let _ = ErrorMsg::parse(p);
    let _ = nl::parse_done(p);
    let _ = FamilyInfo::parse(p);
    let _ = GetFamily::parse(p);
}

/// A message with valid netlink and genl headers around arbitrary attribute bytes,
/// to get past the framing checks.
fn framed(cmd: u8, attrs: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(20 + attrs.len());
    v.extend_from_slice(&((20 + attrs.len()) as u32).to_ne_bytes());
    v.extend_from_slice(&FAMILY.to_ne_bytes());
    v.extend_from_slice(&[0; 10]);
    v.extend_from_slice(&[cmd, 1, 0, 0]);
    v.extend_from_slice(attrs);
    v
}

/// Attribute bytes built from arbitrary (type, payload) pairs, with lengths that are
/// sometimes lies.
fn attr_soup() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        (0u16..32, any::<u16>(), prop::collection::vec(any::<u8>(), 0..24), any::<bool>()),
        0..10,
    )
    .prop_map(|items| {
        let mut v = Vec::new();
        for (ty, lie, payload, honest) in items {
            let len = if honest { 4 + payload.len() as u16 } else { lie };
            v.extend_from_slice(&len.to_ne_bytes());
            v.extend_from_slice(&ty.to_ne_bytes());
            v.extend_from_slice(&payload);
            while v.len() % 4 != 0 {
                v.push(0);
            }
        }
        v
    })
}

/// Owned data from which a `HwsimMsg` borrows.
#[derive(Clone, Debug)]
enum Model {
    Register,
    Frame { f: TxFrame<'static>, frame: Vec<u8>, extra: Vec<(u16, Vec<u8>)> },
    Delivery { d: RxFrame<'static>, frame: Vec<u8> },
    TxInfo(TxInfoFrame),
    Radio { cmd: u8, r: RadioInfo<'static>, name: Option<String>, extra: Vec<(u16, Vec<u8>)> },
    MacAddr { add: bool, ev: MacAddrEvent },
    Unknown { cmd: u8, attrs: Vec<u8> },
}

fn raw(e: &[(u16, Vec<u8>)]) -> Vec<RawAttr<'_>> {
    e.iter().map(|(t, p)| RawAttr { raw_type: *t, payload: p }).collect()
}

impl Model {
    fn msg(&self) -> HwsimMsg<'_> {
        match self {
            Model::Register => HwsimMsg::Register,
            Model::Frame { f, frame, extra } => {
                HwsimMsg::Frame(TxFrame { frame, extra: raw(extra), ..f.clone() })
            }
            Model::Delivery { d, frame } => HwsimMsg::Delivery(RxFrame { frame, ..*d }),
            Model::TxInfo(t) => HwsimMsg::TxInfo(*t),
            Model::Radio { cmd, r, name, extra } => {
                let r = RadioInfo { name: name.as_deref(), extra: raw(extra), ..r.clone() };
                match cmd {
                    4 => HwsimMsg::NewRadio(r),
                    5 => HwsimMsg::DelRadio(r),
                    _ => HwsimMsg::GetRadio(r),
                }
            }
            Model::MacAddr { add: true, ev } => HwsimMsg::AddMacAddr(*ev),
            Model::MacAddr { add: false, ev } => HwsimMsg::DelMacAddr(*ev),
            Model::Unknown { cmd, attrs } => HwsimMsg::Unknown { cmd: *cmd, attrs },
        }
    }
}

fn tx_info() -> impl Strategy<Value = [TxRate; 4]> {
    prop::array::uniform4((any::<i8>(), any::<u8>()).prop_map(|(i, c)| TxRate::new(i, c)))
}

fn tx_info_flags() -> impl Strategy<Value = [TxRateFlags; 4]> {
    prop::array::uniform4(
        (any::<i8>(), any::<u16>()).prop_map(|(i, f)| TxRateFlags::new(i, RateFlags(f))),
    )
}

/// Attributes of types this crate does not decode into fields, flag bits included.
fn extras() -> impl Strategy<Value = Vec<(u16, Vec<u8>)>> {
    prop::collection::vec(
        (
            23u16..0x3fff,
            prop::sample::select(vec![0, NLA_F_NESTED, NLA_F_NET_BYTEORDER]),
            prop::collection::vec(any::<u8>(), 0..20),
        ),
        0..3,
    )
    .prop_map(|v| v.into_iter().map(|(t, f, p)| (t | f, p)).collect())
}

fn model() -> impl Strategy<Value = Model> {
    let mac = any::<[u8; 6]>;
    prop_oneof![
        Just(Model::Register),
        (
            mac(),
            prop::collection::vec(any::<u8>(), 0..300),
            any::<u32>(),
            any::<Option<u32>>(),
            tx_info(),
            prop::option::of(tx_info_flags()),
            any::<u64>(),
            extras()
        )
            .prop_map(
                |(transmitter, frame, flags, freq, tx_info, tx_info_flags, cookie, extra)| {
                    Model::Frame {
                        f: TxFrame {
                            transmitter,
                            frame: &[],
                            flags: HwsimFlags(flags),
                            freq,
                            tx_info,
                            tx_info_flags,
                            cookie,
                            extra: vec![],
                        },
                        frame,
                        extra,
                    }
                }
            ),
        (
            mac(),
            prop::collection::vec(any::<u8>(), 24..300),
            any::<u32>(),
            any::<i32>(),
            any::<u32>()
        )
            .prop_map(|(receiver, frame, rx_rate, signal, freq)| Model::Delivery {
                d: RxFrame { receiver, frame: &[], rx_rate, signal, freq },
                frame
            }),
        (mac(), any::<u32>(), any::<u64>(), any::<i32>(), tx_info()).prop_map(
            |(transmitter, flags, cookie, signal, tx_info)| {
                Model::TxInfo(TxInfoFrame {
                    transmitter,
                    flags: HwsimFlags(flags),
                    cookie,
                    signal,
                    tx_info,
                })
            }
        ),
        (
            4u8..=6,
            (
                any::<Option<u32>>(),
                prop::option::of("[a-z0-9_]{0,15}"),
                any::<Option<u32>>(),
                any::<Option<[u8; 6]>>()
            ),
            (prop::option::of(prop::array::uniform2(b'A'..=b'Z')), any::<Option<u32>>()),
            any::<[bool; 5]>(),
            extras()
        )
            .prop_map(
                |(
                    cmd,
                    (radio_id, name, channels, perm_addr),
                    (reg_alpha2, reg_custom_reg),
                    b,
                    extra,
                )| {
                    Model::Radio {
                        cmd,
                        r: RadioInfo {
                            radio_id,
                            name: None,
                            channels,
                            perm_addr,
                            reg_alpha2,
                            reg_custom_reg,
                            reg_strict: b[0],
                            p2p_device: b[1],
                            use_chanctx: b[2],
                            destroy_on_close: b[3],
                            no_vif: b[4],
                            extra: vec![],
                        },
                        name,
                        extra,
                    }
                }
            ),
        (any::<bool>(), mac(), mac()).prop_map(|(add, radio, addr)| Model::MacAddr {
            add,
            ev: MacAddrEvent { radio, addr }
        }),
        (prop_oneof![Just(0u8), 12u8..=255], prop::collection::vec(any::<u8>(), 0..64))
            .prop_map(|(cmd, attrs)| Model::Unknown { cmd, attrs }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 5000, ..ProptestConfig::default() })]

    #[test]
    fn parse_never_panics_on_random_datagrams(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        for p in nl::messages(&bytes).flatten() {
            decode_all(&p);
        }
        if let Ok(p) = NlPacket::new_checked(&bytes) {
            decode_all(&p);
        }
    }

    #[test]
    fn parse_never_panics_on_random_attributes(cmd in 0u8..14, attrs in prop::collection::vec(any::<u8>(), 0..256)) {
        let m = framed(cmd, &attrs);
        decode_all(&NlPacket::new_checked(&m).unwrap());
    }

    #[test]
    fn parse_never_panics_on_attribute_soup(cmd in 0u8..14, attrs in attr_soup()) {
        let m = framed(cmd, &attrs);
        decode_all(&NlPacket::new_checked(&m).unwrap());
    }

    #[test]
    fn parse_never_panics_on_mutated_messages(m in model(), flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6)) {
        let mut bytes = m.msg().to_vec(&NlHeader::request(FAMILY, 0, 1, 2)).unwrap();
        for (i, b) in flips {
            let i = i.index(bytes.len());
            bytes[i] = b;
        }
        for p in nl::messages(&bytes).flatten() {
            decode_all(&p);
        }
    }

    #[test]
    fn emit_then_parse_is_identity(m in model(), seq in any::<u32>(), pid in any::<u32>(), fl in any::<u16>()) {
        let msg = m.msg();
        let hdr = NlHeader::request(FAMILY, fl, seq, pid);
        let n = msg.buffer_len();
        let mut buf = vec![0u8; n + 8];
        prop_assert_eq!(msg.emit(&hdr, &mut buf).unwrap(), n);
        // one byte short is an error, not a panic
        prop_assert!(msg.emit(&hdr, &mut buf[..n - 1]).is_err());
        let p = NlPacket::new_checked(&buf[..n]).unwrap();
        prop_assert_eq!(p.header(), NlHeader { len: n as u32, ..hdr });
        let back = HwsimMsg::parse(&p).unwrap();
        prop_assert_eq!(&back, &msg);
        // and through the datagram iterator and the classifier
        let all: Vec<_> = nl::messages(&buf[..n]).collect();
        prop_assert_eq!(all.len(), 1);
        match decode(&p, FAMILY).unwrap() {
            sdmac_netlink::Incoming::Hwsim(_, m2) => prop_assert_eq!(m2, msg),
            other => prop_assert!(false, "{:?}", other),
        }
    }

    #[test]
    fn family_info_round_trip(
        id in 0x10u16..,
        name in "[A-Z0-9_]{1,15}",
        version in any::<u32>(),
        max_attr in any::<u32>(),
        groups in prop::collection::vec(("[a-z]{1,15}", any::<u32>()), 0..4),
    ) {
        let info = FamilyInfo {
            id,
            name: &name,
            version,
            hdr_size: 0,
            max_attr,
            mcast_groups: groups.iter().map(|(n, id)| McastGroup { name: n, id: *id }).collect(),
        };
        let mut buf = vec![0u8; info.buffer_len()];
        let n = info.emit(&NlHeader::default(), &mut buf).unwrap();
        prop_assert_eq!(n, buf.len());
        let back = FamilyInfo::parse(&NlPacket::new_checked(&buf).unwrap()).unwrap();
        prop_assert_eq!(back, info);
    }

    #[test]
    fn error_msg_round_trip(error in any::<i32>(), req in any::<Option<(u32, u16, u16, u32, u32)>>(), msg in prop::option::of("[ -~]{0,40}"), off in any::<Option<u32>>()) {
        let e = ErrorMsg {
            error,
            request: req.map(|(len, ty, flags, seq, pid)| NlHeader { len, ty, flags, seq, pid }).or(Some(NlHeader::default())),
            ext_msg: msg.as_deref(),
            ext_offset: off,
        };
        let mut buf = vec![0u8; e.buffer_len()];
        e.emit(&NlHeader::default(), &mut buf).unwrap();
        let back = ErrorMsg::parse(&NlPacket::new_checked(&buf).unwrap()).unwrap();
        prop_assert_eq!(back, e);
    }

    #[test]
    fn rate_encoding_round_trip(
        kind in 0u8..3, idx in 0u8..12, mcs in 0u8..=76, vmcs in 0u8..=9, nss in 1u8..=8,
        w in 0usize..4, sgi in any::<bool>(), sp in any::<bool>(), five in any::<bool>(),
    ) {
        let band = if five { Band::Ghz5 } else { Band::Ghz2_4 };
        let widths = [Width::Mhz20, Width::Mhz40, Width::Mhz80, Width::Mhz160];
        let r = match kind {
            0 => HwsimRate::Legacy { rate: band.legacy_rates()[idx as usize % band.legacy_rates().len()], short_preamble: sp },
            1 => HwsimRate::Ht { mcs, width40: w % 2 == 1, sgi },
            _ => HwsimRate::Vht { mcs: vmcs, nss, width: widths[w], sgi },
        };
        let (i, f) = r.to_tx(band).unwrap();
        prop_assert_eq!(HwsimRate::from_tx(i, f, band).unwrap(), r);
        prop_assert!((r.rx_rate_index(band) as usize) < band.legacy_rates().len());
        prop_assert!(r.nearest_phy().is_valid());
        if let Ok(p) = r.to_phy() {
            prop_assert_eq!(p, r.nearest_phy());
        }
    }

    #[test]
    fn any_tx_entry_decodes_or_errs(idx in any::<i8>(), flags in any::<u16>(), freq in any::<u32>()) {
        if let Ok(r) = sdmac_netlink::rate::tx_rate(idx, RateFlags(flags), freq) {
            let band = Band::from_freq(freq).unwrap();
            prop_assert!((rx_rate_index(r.nearest_phy(), band) as usize) < band.legacy_rates().len());
        }
    }
}
