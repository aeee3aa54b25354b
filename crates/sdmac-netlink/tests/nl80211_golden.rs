//! Golden bytes for the nl80211 messages, built by hand from `linux/nl80211.h`
//! (numbers) and the netlink attribute layout (little-endian host, as x86-64 and
//! aarch64), and the seeds of the `nl80211_msg` fuzz target.
#![cfg(target_endian = "little")]

use sdmac_netlink::nl::{flags, NlHeader, NlPacket};
use sdmac_netlink::nl80211::{
    band, chan_width, iftype, tx_power, BandInfo, BandRateMask, Bitrate, ChannelDef, DelInterface,
    FreqInfo, GetInterface, GetWiphy, IftypeSet, InterfaceInfo, MntrFlags, NewInterface,
    Nl80211Message, SetInterface, SetTxBitrateMask, SetWiphy, TxPower, WiphyInfo,
};
use sdmac_netlink::Error;

const FAMILY: u16 = 0x1c;

/// nlmsghdr (len patched) + genlmsghdr (version 0), then the attribute bytes.
fn message(flags: u16, cmd: u8, attrs: &[&[u8]]) -> Vec<u8> {
    let mut v = vec![0, 0, 0, 0, FAMILY as u8, 0];
    v.extend_from_slice(&flags.to_le_bytes());
    v.extend_from_slice(&7u32.to_le_bytes());
    v.extend_from_slice(&0u32.to_le_bytes());
    v.extend_from_slice(&[cmd, 0, 0, 0]);
    for a in attrs {
        v.extend_from_slice(a);
    }
    let len = v.len() as u32;
    v[..4].copy_from_slice(&len.to_le_bytes());
    v
}

/// An attribute: header, payload, zero padding.
fn a(ty: u16, payload: &[u8]) -> Vec<u8> {
    let mut v = ((4 + payload.len()) as u16).to_le_bytes().to_vec();
    v.extend_from_slice(&ty.to_le_bytes());
    v.extend_from_slice(payload);
    while v.len() % 4 != 0 {
        v.push(0);
    }
    v
}

fn u32a(ty: u16, x: u32) -> Vec<u8> {
    a(ty, &x.to_le_bytes())
}

fn nest(ty: u16, parts: &[Vec<u8>]) -> Vec<u8> {
    a(ty | 0x8000, &parts.concat())
}

fn emitted<M: Nl80211Message>(m: &M, flags: u16) -> Vec<u8> {
    let v = m.to_vec(&NlHeader::request(FAMILY, flags, 7, 0)).unwrap();
    assert_eq!(v.len(), m.buffer_len());
    v
}

fn packet(b: &[u8]) -> NlPacket<'_> {
    NlPacket::new_checked(b).unwrap()
}

fn new_monitor() -> (Vec<u8>, NewInterface<'static>) {
    let m = NewInterface {
        wiphy: 1,
        ifname: "sdmon1",
        iftype: iftype::MONITOR,
        mntr_flags: Some(MntrFlags::ACTIVE | MntrFlags::OTHER_BSS),
        mac: Some([2, 0, 0, 0, 1, 0]),
        socket_owner: true,
    };
    let bytes = message(
        flags::REQUEST | flags::ACK,
        7,
        &[
            &u32a(1, 1),
            &a(4, b"sdmon1\0"),
            &u32a(5, 6),
            &nest(23, &[a(4, &[]), a(6, &[])]),
            &a(6, &[2, 0, 0, 0, 1, 0]),
            &a(204, &[]),
        ],
    );
    (bytes, m)
}

#[test]
fn new_interface_monitor_with_flags() {
    let (bytes, m) = new_monitor();
    assert_eq!(emitted(&m, flags::REQUEST | flags::ACK), bytes);
    assert_eq!(NewInterface::parse(&packet(&bytes)).unwrap(), m);
    // the monitor flags are a nested run of flags: 4 (OTHER_BSS) and 6 (ACTIVE)
    assert_eq!(&bytes[48..60], &[12, 0, 23, 0x80, 4, 0, 4, 0, 4, 0, 6, 0]);
}

fn set_channel() -> (Vec<u8>, SetWiphy) {
    let m = SetWiphy {
        ifindex: Some(9),
        channel: Some(ChannelDef {
            freq: 5180,
            width: Some(chan_width::W40),
            center_freq1: Some(5190),
            ..Default::default()
        }),
        ..Default::default()
    };
    let bytes = message(
        flags::REQUEST | flags::ACK,
        2,
        &[&u32a(3, 9), &u32a(38, 5180), &u32a(159, 2), &u32a(160, 5190)],
    );
    (bytes, m)
}

#[test]
fn set_wiphy_channel_power_coverage() {
    let (bytes, m) = set_channel();
    assert_eq!(emitted(&m, flags::REQUEST | flags::ACK), bytes);
    assert_eq!(SetWiphy::parse(&packet(&bytes)).unwrap(), m);

    let m = SetWiphy {
        wiphy: Some(0),
        tx_power: Some(TxPower { setting: tx_power::FIXED, level_mbm: Some(1500) }),
        coverage_class: Some(3),
        ..Default::default()
    };
    let bytes = message(
        flags::REQUEST | flags::ACK,
        2,
        &[&u32a(1, 0), &u32a(97, 2), &u32a(98, 1500), &a(89, &[3])],
    );
    assert_eq!(emitted(&m, flags::REQUEST | flags::ACK), bytes);
    assert_eq!(SetWiphy::parse(&packet(&bytes)).unwrap(), m);

    // a width without a frequency, a level without a setting: named
    let bad = message(flags::REQUEST, 2, &[&u32a(159, 2)]);
    assert!(matches!(
        SetWiphy::parse(&packet(&bad)),
        Err(Error::MissingAttribute { attr: 38, .. })
    ));
    let bad = message(flags::REQUEST, 2, &[&u32a(98, 100)]);
    assert!(matches!(
        SetWiphy::parse(&packet(&bad)),
        Err(Error::MissingAttribute { attr: 97, .. })
    ));
}

fn bitrate_mask() -> (Vec<u8>, SetTxBitrateMask) {
    let m = SetTxBitrateMask {
        ifindex: 9,
        bands: vec![BandRateMask::legacy_only(band::GHZ2, vec![108])],
    };
    let bytes = message(
        flags::REQUEST | flags::ACK,
        57,
        &[&u32a(3, 9), &nest(90, &[nest(0, &[a(1, &[108]), a(2, &[]), a(3, &[0; 16])])])],
    );
    (bytes, m)
}

#[test]
fn tx_bitrate_mask_legacy_only() {
    let (bytes, m) = bitrate_mask();
    assert_eq!(emitted(&m, flags::REQUEST | flags::ACK), bytes);
    assert_eq!(SetTxBitrateMask::parse(&packet(&bytes)).unwrap(), m);
    // a VHT mask of the wrong size is named with its offset
    let bad = message(flags::REQUEST, 57, &[&u32a(3, 9), &nest(90, &[nest(1, &[a(3, &[0; 4])])])]);
    match SetTxBitrateMask::parse(&packet(&bad)) {
        Err(Error::Attribute { name, offset, .. }) => {
            assert_eq!((name, offset), ("NL80211_TXRATE_VHT", 36))
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn small_requests() {
    let m = GetWiphy { wiphy: None, ifindex: None, split: true };
    let bytes = message(flags::REQUEST | flags::DUMP, 1, &[&a(174, &[])]);
    assert_eq!(emitted(&m, flags::REQUEST | flags::DUMP), bytes);
    assert_eq!(GetWiphy::parse(&packet(&bytes)).unwrap(), m);

    let m = GetInterface { ifindex: Some(4), wiphy: None };
    let bytes = message(flags::REQUEST, 5, &[&u32a(3, 4)]);
    assert_eq!(emitted(&m, flags::REQUEST), bytes);
    assert_eq!(GetInterface::parse(&packet(&bytes)).unwrap(), m);

    let m = DelInterface { ifindex: 12 };
    let bytes = message(flags::REQUEST | flags::ACK, 8, &[&u32a(3, 12)]);
    assert_eq!(emitted(&m, flags::REQUEST | flags::ACK), bytes);
    assert_eq!(DelInterface::parse(&packet(&bytes)).unwrap(), m);
    let bad = message(flags::REQUEST, 8, &[]);
    assert_eq!(
        DelInterface::parse(&packet(&bad)).unwrap_err().to_string(),
        "NL80211_CMD_DEL_INTERFACE lacks NL80211_ATTR_IFINDEX (attribute type 3)"
    );

    let m = SetInterface { ifindex: 12, iftype: None, mntr_flags: Some(MntrFlags::ACTIVE) };
    let bytes = message(flags::REQUEST | flags::ACK, 6, &[&u32a(3, 12), &nest(23, &[a(6, &[])])]);
    assert_eq!(emitted(&m, flags::REQUEST | flags::ACK), bytes);
    assert_eq!(SetInterface::parse(&packet(&bytes)).unwrap(), m);

    // a request parsed as another command is refused, naming the command expected
    assert!(matches!(GetWiphy::parse(&packet(&bytes)), Err(Error::Malformed { offset: 16, .. })));
}

fn interface_reply() -> (Vec<u8>, InterfaceInfo<'static>) {
    let m = InterfaceInfo {
        cmd: 7,
        ifindex: Some(5),
        ifname: Some("sdmon0"),
        wiphy: 0,
        iftype: Some(iftype::MONITOR),
        mac: Some([2, 0, 0, 0, 0, 0]),
        wdev: Some(0x1_0000_0002),
        generation: Some(4),
        freq: Some(2437),
        channel_width: Some(chan_width::W20_NOHT),
        channel_type: Some(0),
        center_freq1: Some(2437),
        center_freq2: None,
        tx_power_mbm: Some(2000),
    };
    let bytes = message(
        0,
        7,
        &[
            &u32a(3, 5),
            &a(4, b"sdmon0\0"),
            &u32a(1, 0),
            &u32a(5, 6),
            &a(6, &[2, 0, 0, 0, 0, 0]),
            &a(153, &0x1_0000_0002u64.to_le_bytes()),
            &u32a(46, 4),
            &u32a(38, 2437),
            &u32a(159, 0),
            &u32a(39, 0),
            &u32a(160, 2437),
            &u32a(98, 2000),
        ],
    );
    (bytes, m)
}

#[test]
fn interface_description() {
    let (bytes, m) = interface_reply();
    assert_eq!(emitted(&m, 0), bytes);
    assert_eq!(InterfaceInfo::parse(&packet(&bytes)).unwrap(), m);
    let bad = message(0, 7, &[&u32a(3, 5), &a(6, &[1, 2, 3])]);
    assert_eq!(
        InterfaceInfo::parse(&packet(&bad)).unwrap_err().to_string(),
        "NL80211_ATTR_MAC (attribute type 6) at offset 28: expected a 6-byte MAC address (length 3)"
    );
}

/// Two parts of a split wiphy dump: the first with the interface types, the
/// features and the start of band 0, the second with the rest of band 0.
fn wiphy_parts() -> (Vec<u8>, Vec<u8>) {
    let freq = |i: u16, mhz: u32, extra: &[Vec<u8>]| {
        let mut p = vec![u32a(1, mhz)];
        p.extend_from_slice(extra);
        nest(i, &p)
    };
    let first = message(
        flags::MULTI,
        3,
        &[
            &u32a(1, 0),
            &a(2, b"phy0\0"),
            &u32a(46, 3),
            &nest(32, &[a(2, &[]), a(3, &[]), a(6, &[])]),
            &nest(
                22,
                &[nest(
                    0,
                    &[
                        nest(1, &[freq(0, 2412, &[u32a(6, 2000)])]),
                        nest(2, &[nest(0, &[u32a(1, 10)]), nest(1, &[u32a(1, 20), a(2, &[])])]),
                        a(4, &0x017eu16.to_le_bytes()),
                    ],
                )],
            ),
            &u32a(143, 1 << 17),
            &a(217, &[0, 0, 0, 8]),
            &a(89, &[0]),
            &a(61, &[7]),
            &a(62, &[4]),
        ],
    );
    let second = message(
        flags::MULTI,
        3,
        &[
            &u32a(1, 0),
            &a(2, b"phy0\0"),
            &nest(22, &[nest(0, &[nest(1, &[freq(0, 2484, &[a(2, &[]), a(3, &[])])])])]),
            &nest(50, &[u32a(1, 7), u32a(2, 57)]),
        ],
    );
    (first, second)
}

#[test]
fn split_wiphy_dump_merges() {
    let (first, second) = wiphy_parts();
    let mut w = WiphyInfo::parse(&packet(&first)).unwrap();
    assert_eq!(w.name, Some("phy0"));
    assert_eq!(w.iftypes, IftypeSet((1 << 2) | (1 << 3) | (1 << 6)));
    assert!(w.supports_monitor() && w.supports_active_monitor());
    assert!(w.has_ext_feature(27) && !w.has_ext_feature(26));
    let part = WiphyInfo::parse(&packet(&second)).unwrap();
    w.merge(part);
    let b = w.band(band::GHZ2).unwrap();
    assert_eq!(
        b.freqs,
        [
            FreqInfo { mhz: 2412, max_tx_power_mbm: Some(2000), ..Default::default() },
            FreqInfo { mhz: 2484, disabled: true, no_ir: true, ..Default::default() },
        ]
    );
    assert_eq!(
        b.rates,
        [
            Bitrate { rate_100kbps: 10, short_preamble: false },
            Bitrate { rate_100kbps: 20, short_preamble: true }
        ]
    );
    assert_eq!(b.ht_capa, Some(0x017e));
    assert_eq!(w.band_of(2484).map(|b| b.band), Some(band::GHZ2));
    assert!(w.supports_command(57) && w.supports_command(7) && !w.supports_command(2));
    assert_eq!((w.coverage_class, w.retry_short, w.retry_long), (Some(0), Some(7), Some(4)));
    // each part emits back to its own bytes
    let p1 = WiphyInfo::parse(&packet(&first)).unwrap();
    assert_eq!(emitted(&p1, flags::MULTI), first);
    let p2 = WiphyInfo::parse(&packet(&second)).unwrap();
    assert_eq!(emitted(&p2, flags::MULTI), second);
    // the merged wiphy round-trips as one message
    let whole = emitted(&w, flags::MULTI);
    assert_eq!(WiphyInfo::parse(&packet(&whole)).unwrap(), w);
}

#[test]
fn a_wiphy_without_monitor() {
    let bytes = message(0, 3, &[&u32a(1, 2), &nest(32, &[a(2, &[]), a(3, &[])])]);
    let w = WiphyInfo::parse(&packet(&bytes)).unwrap();
    assert!(!w.supports_monitor() && !w.supports_active_monitor());
    let band = BandInfo { band: 1, ..Default::default() };
    assert!(!band.has_rate(60));
    // a channel without its frequency is named
    let bad =
        message(0, 3, &[&u32a(1, 2), &nest(22, &[nest(0, &[nest(1, &[nest(0, &[a(2, &[])])])])])]);
    let e = WiphyInfo::parse(&packet(&bad)).unwrap_err().to_string();
    assert!(e.contains("channel lacks NL80211_FREQUENCY_ATTR_FREQ"), "{e}");
}

/// Writes the seeds of the `nl80211_msg` fuzz target (`fuzz/seeds/nl80211_msg/`):
/// `SDMAC_WRITE_SEEDS=1 cargo test -p sdmac-netlink --test nl80211_golden write_seeds`.
#[test]
fn write_seeds() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/seeds/nl80211_msg");
    let (first, second) = wiphy_parts();
    let seeds: Vec<(&str, Vec<u8>)> = vec![
        ("new_interface.bin", new_monitor().0),
        ("set_channel.bin", set_channel().0),
        ("bitrate_mask.bin", bitrate_mask().0),
        ("interface.bin", interface_reply().0),
        ("wiphy_split.bin", [first, second].concat()),
    ];
    for (name, bytes) in seeds {
        let path = dir.join(name);
        if std::env::var_os("SDMAC_WRITE_SEEDS").is_some() {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, &bytes).unwrap();
        } else {
            // the committed seeds are the bytes above
            assert_eq!(
                std::fs::read(&path).unwrap(),
                bytes,
                "{} is stale: SDMAC_WRITE_SEEDS=1 rewrites it",
                path.display()
            );
        }
    }
}
