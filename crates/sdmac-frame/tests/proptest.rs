//! Property tests: no input makes a parser panic, and `Repr -> emit -> parse` is the
//! identity for random representations.

use proptest::prelude::*;
use sdmac_frame::fcs::check_fcs;
use sdmac_frame::ieee80211::{self as wlan, beacon::BeaconBody, Frame, FrameKind, QosControl};
use sdmac_frame::pcapng::{read_packets, PcapngWriter, LINKTYPE_IEEE802_11_RADIOTAP};
use sdmac_frame::radiotap::{self, Header};
use sdmac_frame::MacAddress;

fn mac() -> impl Strategy<Value = MacAddress> {
    any::<[u8; 6]>().prop_map(MacAddress)
}

fn qos() -> impl Strategy<Value = QosControl> {
    any::<u16>().prop_map(QosControl::from_u16)
}

/// Touches every accessor of a checked 802.11 view.
fn poke_frame(b: &[u8]) {
    if let Ok(f) = Frame::new_checked(b) {
        let _ = (
            f.frame_control(),
            f.kind(),
            f.layout(),
            f.duration(),
            f.addr1(),
            f.addr2(),
            f.addr3(),
        );
        let _ = (
            f.addr4(),
            f.seq_ctrl(),
            f.seq_number(),
            f.frag_number(),
            f.qos_control(),
            f.ht_control(),
        );
        let r = wlan::Repr::parse(&f).unwrap();
        assert_eq!(r.buffer_len(), f.header_len());
        assert!(f.header_len() + f.payload().len() == b.len());
        if r.kind == FrameKind::Beacon || r.kind == FrameKind::ProbeResp {
            if let Ok(body) = BeaconBody::parse(f.payload(), f.header_len()) {
                let _ = (body.ssid(), body.ds_channel(), body.rates().map(|r| r.count()));
                for e in body.elements() {
                    let _ = e;
                }
            }
        }
    }
    // parse() checks an unchecked view itself
    let _ = wlan::Repr::parse(&Frame::new_unchecked(b));
}

/// Touches every accessor of a checked radiotap view.
fn poke_radiotap(b: &[u8]) {
    if let Ok(h) = Header::new_checked(b) {
        let _ = (h.version(), h.pad(), h.header_len(), h.present(), h.present_count(), h.payload());
        for i in 0..h.present_count() + 1 {
            let _ = h.present_word(i);
        }
        for f in h.fields().flatten() {
            assert!(f.offset + f.data.len() <= h.header_len());
            let _ = (f.u8_at(0), f.u16_at(0), f.u32_at(0), f.u64_at(0));
        }
        let _ = radiotap::Repr::parse(&h);
    }
    let _ = radiotap::Repr::parse(&Header::new_unchecked(b));
}

prop_compose! {
    /// A random header `Repr` whose optional fields agree with its layout.
    fn wlan_repr()(
        t in 0u8..4, s in 0u8..16,
        fl in any::<[bool; 8]>(),
        duration in any::<u16>(),
        addrs in any::<[[u8; 6]; 4]>().prop_map(|a| a.map(MacAddress)),
        seq in 0u16..4096, frag in 0u8..16,
        q in qos(), htc in any::<u32>(),
    ) -> wlan::Repr {
        let mut r = wlan::Repr::new(FrameKind::from_type_subtype(t, s), addrs[0]);
        r.to_ds = fl[0]; r.from_ds = fl[1]; r.more_frag = fl[2]; r.retry = fl[3];
        r.pwr_mgmt = fl[4]; r.more_data = fl[5]; r.protected = fl[6]; r.order = fl[7];
        r.duration = duration;
        r.addr2 = Some(addrs[1]); r.addr3 = Some(addrs[2]); r.addr4 = Some(addrs[3]);
        r.seq = seq; r.frag = frag; r.qos = Some(q); r.ht_control = Some(htc);
        // Drop what the layout does not have.
        let l = r.layout();
        if l.addr2.is_none() { r.addr2 = None; }
        if l.addr3.is_none() { r.addr3 = None; }
        if l.addr4.is_none() { r.addr4 = None; }
        if l.qos.is_none() { r.qos = None; }
        if l.ht_control.is_none() { r.ht_control = None; }
        r.fill_layout();
        r
    }
}

fn radiotap_repr() -> impl Strategy<Value = radiotap::Repr> {
    let a = (
        proptest::option::of(any::<u64>()),
        proptest::option::of(any::<u8>()),
        proptest::option::of(any::<u8>()),
        proptest::option::of(any::<(u16, u16)>().prop_map(|(f, g)| radiotap::Channel::new(f, g))),
        proptest::option::of(any::<(u8, u8)>()),
        proptest::option::of(any::<i8>()),
        proptest::option::of(any::<i8>()),
        proptest::option::of(any::<u16>()),
        proptest::option::of(any::<u16>()),
        proptest::option::of(any::<u16>()),
    );
    let b = (
        proptest::option::of(any::<i8>()),
        proptest::option::of(any::<u8>()),
        proptest::option::of(any::<u8>()),
        proptest::option::of(any::<u8>()),
        proptest::option::of(any::<u16>()),
        proptest::option::of(any::<u16>()),
        proptest::option::of(any::<u8>()),
        proptest::option::of(any::<u8>()),
        proptest::option::of(any::<[u8; 3]>().prop_map(|m| radiotap::Mcs {
            known: m[0],
            flags: m[1],
            index: m[2],
        })),
    );
    let c = (
        proptest::option::of(any::<(u32, u16, u8, u8)>().prop_map(
            |(reference, flags, delimiter_crc, reserved)| radiotap::AmpduStatus {
                reference,
                flags,
                delimiter_crc,
                reserved,
            },
        )),
        proptest::option::of(any::<(u16, u8, u8, [u8; 4], u8, u8, u16)>().prop_map(
            |(known, flags, bandwidth, mcs_nss, coding, group_id, partial_aid)| radiotap::Vht {
                known,
                flags,
                bandwidth,
                mcs_nss,
                coding,
                group_id,
                partial_aid,
            },
        )),
        proptest::option::of(any::<(u64, u16, u8, u8)>().prop_map(
            |(timestamp, accuracy, unit_position, flags)| radiotap::Timestamp {
                timestamp,
                accuracy,
                unit_position,
                flags,
            },
        )),
        proptest::option::of(any::<[u16; 6]>()),
        proptest::option::of(any::<[u8; 12]>()),
        proptest::option::of(any::<[u8; 6]>()),
        proptest::option::of(any::<u8>()),
        proptest::option::of(any::<[u16; 2]>()),
    );
    (a, b, c).prop_map(|(a, b, c)| radiotap::Repr {
        tsft: a.0,
        flags: a.1,
        rate: a.2,
        channel: a.3,
        fhss: a.4,
        antenna_signal: a.5,
        antenna_noise: a.6,
        lock_quality: a.7,
        tx_attenuation: a.8,
        db_tx_attenuation: a.9,
        tx_power: b.0,
        antenna: b.1,
        db_antenna_signal: b.2,
        db_antenna_noise: b.3,
        rx_flags: b.4,
        tx_flags: b.5,
        rts_retries: b.6,
        data_retries: b.7,
        mcs: b.8,
        ampdu: c.0,
        vht: c.1,
        timestamp: c.2,
        he: c.3,
        he_mu: c.4,
        he_mu_other_user: c.5,
        zero_len_psdu: c.6,
        lsig: c.7,
        unknown_field: None,
    })
}

proptest! {
    // 2000 cases each by default; PROPTEST_CASES=N overrides (e.g. for a long soak).
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(2000)
    ))]

    #[test]
    fn ieee80211_never_panics(b in proptest::collection::vec(any::<u8>(), 0..64)) {
        poke_frame(&b);
    }

    #[test]
    fn ieee80211_never_panics_valid_fc(fc in any::<u16>(), rest in proptest::collection::vec(any::<u8>(), 0..80)) {
        let mut b = (fc & !0x3).to_le_bytes().to_vec();
        b.extend_from_slice(&rest);
        poke_frame(&b);
        // A beacon-shaped prefix reaches the element parser.
        let mut beacon = vec![0x80, 0x00];
        beacon.extend_from_slice(&[0u8; 22]);
        beacon.extend_from_slice(&rest);
        poke_frame(&beacon);
    }

    #[test]
    fn radiotap_never_panics(b in proptest::collection::vec(any::<u8>(), 0..96)) {
        poke_radiotap(&b);
    }

    #[test]
    fn radiotap_never_panics_plausible(
        words in proptest::collection::vec(any::<u32>(), 1..4),
        body in proptest::collection::vec(any::<u8>(), 0..80),
        extra in 0usize..8,
    ) {
        // Version 0, a chain of presence words with EXT bits consistent, and a length
        // field somewhere around the real data length.
        let mut b = vec![0u8, 0, 0, 0];
        let n = words.len();
        for (i, w) in words.iter().enumerate() {
            let w = if i + 1 < n { w | 1 << 31 } else { w & !(1 << 31) };
            b.extend_from_slice(&w.to_le_bytes());
        }
        b.extend_from_slice(&body);
        let len = (b.len().saturating_sub(extra)) as u16;
        b[2..4].copy_from_slice(&len.to_le_bytes());
        poke_radiotap(&b);
    }

    #[test]
    fn pcapng_reader_never_panics(b in proptest::collection::vec(any::<u8>(), 0..128)) {
        let _ = read_packets(&b);
    }

    #[test]
    fn pcapng_reader_never_panics_on_mutations(
        packets in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..20), 0..4),
        flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..4),
        cut in any::<usize>(),
    ) {
        let mut w = PcapngWriter::new(Vec::new(), LINKTYPE_IEEE802_11_RADIOTAP, "x").unwrap();
        for p in &packets { w.write_packet(1, p).unwrap(); }
        let mut b = w.into_inner();
        for (at, v) in flips { let i = at % b.len(); b[i] ^= v; }
        let cut = cut % (b.len() + 1);
        let _ = read_packets(&b[..cut]);
        let _ = read_packets(&b);
    }

    #[test]
    fn mac_address_from_str_never_panics(s in ".{0,20}") {
        let _ = s.parse::<MacAddress>();
    }

    #[test]
    fn mac_address_display_parse(a in mac()) {
        prop_assert_eq!(a.to_string().parse::<MacAddress>().unwrap(), a);
    }

    #[test]
    fn ieee80211_repr_round_trip(r in wlan_repr(), body in proptest::collection::vec(any::<u8>(), 0..16)) {
        let mut buf = [0u8; 64];
        let n = wlan::write_mpdu(&mut buf, &r, &body, true).unwrap();
        prop_assert_eq!(n, r.buffer_len() + body.len() + 4);
        prop_assert!(check_fcs(&buf[..n]));
        let f = Frame::new_checked(&buf[..n - 4]).unwrap();
        prop_assert_eq!(wlan::Repr::parse(&f).unwrap(), r);
        prop_assert_eq!(f.payload(), &body[..]);
    }

    #[test]
    fn data_builder_round_trip(
        a in any::<[[u8; 6]; 4]>().prop_map(|a| a.map(MacAddress)),
        four in any::<bool>(), to_ds in any::<bool>(), from_ds in any::<bool>(),
        duration in any::<u16>(), seq in 0u16..4096, frag in 0u8..16, retry in any::<bool>(),
        q in proptest::option::of(qos()), ethertype in any::<u16>(),
        payload in proptest::collection::vec(any::<u8>(), 0..64),
        with_fcs in any::<bool>(),
    ) {
        let p = wlan::DataParams {
            addr1: a[0], addr2: a[1], addr3: a[2],
            addr4: if four { Some(a[3]) } else { None },
            to_ds, from_ds, duration, seq, frag, retry, qos: q, ethertype,
        };
        let len = wlan::data_frame_len(&p, payload.len(), with_fcs);
        let mut buf = vec![0u8; len];
        if to_ds && from_ds && !four {
            // Both DS flags announce addr4, which was not given.
            let e = wlan::write_data_frame(&mut buf, &p, &payload, with_fcs).unwrap_err();
            let ok = matches!(e, sdmac_frame::Error::InvalidInput { what: "802.11 header addr4", .. });
            prop_assert!(ok, "{:?}", e);
            return Ok(());
        }
        prop_assert_eq!(wlan::write_data_frame(&mut buf, &p, &payload, with_fcs).unwrap(), len);
        let end = if with_fcs { prop_assert!(check_fcs(&buf)); len - 4 } else { len };
        let f = Frame::new_checked(&buf[..end]).unwrap();
        prop_assert_eq!(wlan::Repr::parse(&f).unwrap(), p.header());
        let body = f.payload();
        prop_assert_eq!(&body[..6], &wlan::LLC_SNAP_PREFIX);
        prop_assert_eq!(u16::from_be_bytes([body[6], body[7]]), ethertype);
        prop_assert_eq!(&body[8..], &payload[..]);
    }

    #[test]
    fn radiotap_repr_round_trip(r in radiotap_repr(), tail in proptest::collection::vec(any::<u8>(), 0..8)) {
        let mut buf = vec![0u8; r.buffer_len() + tail.len()];
        let n = r.emit_into(&mut buf).unwrap();
        buf[n..].copy_from_slice(&tail);
        let h = Header::new_checked(&buf[..]).unwrap();
        prop_assert_eq!(h.header_len(), n);
        prop_assert_eq!(radiotap::Repr::parse(&h).unwrap(), r);
        prop_assert_eq!(h.payload(), &tail[..]);
        // Every field is at an offset that is a multiple of its alignment.
        for f in h.fields() {
            let f = f.unwrap();
            let (align, _) = radiotap::field_layout(f.bit).unwrap();
            prop_assert_eq!(f.offset % align, 0);
        }
    }

    #[test]
    fn pcapng_round_trip(packets in proptest::collection::vec((any::<u64>(), proptest::collection::vec(any::<u8>(), 0..40)), 0..6)) {
        let mut w = PcapngWriter::new(Vec::new(), LINKTYPE_IEEE802_11_RADIOTAP, "sdmac0").unwrap();
        for (ts, p) in &packets { w.write_packet(*ts, p).unwrap(); }
        let b = w.into_inner();
        prop_assert_eq!(b.len() % 4, 0);
        prop_assert_eq!(read_packets(&b).unwrap(), packets);
    }
}
