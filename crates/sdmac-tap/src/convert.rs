//! 802.3 ↔ 802.11 conversion in place.
//!
//! An Ethernet frame read from a TAP device sits in a buffer at offset
//! [`HEADROOM`]. Its destination and source addresses are replaced by the LLC/SNAP
//! header (IEEE 802.1H: RFC 1042 encapsulation, or the bridge-tunnel OUI for the
//! two EtherTypes that need it), and the 802.11 MAC header is written into the
//! headroom just in front. The EtherType is already in the right place: it is the
//! last field of both the Ethernet header and the SNAP header. On receive the
//! reverse happens inside the MPDU's own buffer: the MAC header and LLC/SNAP
//! (8 + 24..32 bytes) are replaced by the 14-byte Ethernet header, which fits
//! inside them. Nothing is copied but the headers, and nothing is allocated.

use sdmac_types::MacAddress;

/// Bytes kept free in front of an Ethernet frame for the 802.11 header (the
/// largest written, a QoS data header of 26 bytes, needs 20 beyond the 6 the
/// Ethernet addresses free).
pub const HEADROOM: usize = 32;

/// Largest MSDU (LLC/SNAP included) an 802.11 data frame carries (IEEE 802.11).
pub const MAX_MSDU: usize = 2304;

/// Largest Ethernet frame (header included) that fits in one MSDU once its
/// addresses give way to LLC/SNAP.
pub const MAX_ETH_FRAME: usize = 14 + MAX_MSDU - 8;

/// Smallest Ethernet frame: the two addresses and the EtherType or length.
pub const ETH_HEADER: usize = 14;

/// LLC (DSAP, SSAP, control) of a SNAP header.
const LLC_SNAP: [u8; 3] = [0xaa, 0xaa, 0x03];
/// OUI of RFC 1042 encapsulation.
const OUI_RFC1042: [u8; 3] = [0, 0, 0];
/// OUI of the 802.1H bridge tunnel.
const OUI_BRIDGE_TUNNEL: [u8; 3] = [0, 0, 0xf8];
/// EtherTypes 802.1H sends with the bridge-tunnel OUI: AppleTalk AARP and Novell IPX.
pub const BRIDGE_TUNNEL_ETHERTYPES: [u16; 2] = [0x80f3, 0x8137];

/// Why a frame was not converted. Each is counted and the frame dropped.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum DropReason {
    /// Shorter than the headers it claims.
    TooShort,
    /// An Ethernet frame whose MSDU would exceed [`MAX_MSDU`].
    Oversized,
    /// An 802.3 length field larger than the frame, or between 1500 and 0x0600.
    BadLength,
    /// An Ethernet source address that is not the station's own (no bridging; only
    /// an AP relays frames of others).
    ForeignSource,
    /// A unicast destination no station of the medium owns.
    UnknownDestination,
    /// Not a data frame.
    NotData,
    /// A data frame subtype without a body (null, CF-only).
    NoData,
    /// A protected (encrypted) frame: no keys here.
    Protected,
    /// A fragment: defragmentation is not implemented.
    Fragment,
    /// An A-MSDU: de-aggregation is not implemented.
    Amsdu,
    /// A body larger than 1500 bytes without LLC/SNAP (no Ethernet form exists).
    Unencapsulated,
    /// A frame addressed to another station.
    NotForUs,
    /// The frame's own MAC refused it (`data_req` error other than a full queue).
    Refused,
    /// The local queue of frames waiting for the MAC was full.
    QueueFull,
    /// Every TX id was in use.
    NoTxId,
    /// The TAP device refused the write.
    TapWrite,
    /// A retransmission of a frame already delivered.
    Duplicate,
    /// Data to or from a station not associated (AP role), or from a station
    /// before it has associated.
    NotAssociated,
}

impl DropReason {
    /// Every reason, in counter order.
    pub const ALL: [DropReason; 18] = [
        DropReason::TooShort,
        DropReason::Oversized,
        DropReason::BadLength,
        DropReason::ForeignSource,
        DropReason::UnknownDestination,
        DropReason::NotData,
        DropReason::NoData,
        DropReason::Protected,
        DropReason::Fragment,
        DropReason::Amsdu,
        DropReason::Unencapsulated,
        DropReason::NotForUs,
        DropReason::Refused,
        DropReason::QueueFull,
        DropReason::NoTxId,
        DropReason::TapWrite,
        DropReason::Duplicate,
        DropReason::NotAssociated,
    ];

    /// Short name, as in the statistics.
    pub fn name(self) -> &'static str {
        match self {
            DropReason::TooShort => "too_short",
            DropReason::Oversized => "oversized",
            DropReason::BadLength => "bad_length",
            DropReason::ForeignSource => "foreign_source",
            DropReason::UnknownDestination => "unknown_destination",
            DropReason::NotData => "not_data",
            DropReason::NoData => "no_data",
            DropReason::Protected => "protected",
            DropReason::Fragment => "fragment",
            DropReason::Amsdu => "amsdu",
            DropReason::Unencapsulated => "unencapsulated",
            DropReason::NotForUs => "not_for_us",
            DropReason::Refused => "refused",
            DropReason::QueueFull => "queue_full",
            DropReason::NoTxId => "no_tx_id",
            DropReason::TapWrite => "tap_write",
            DropReason::Duplicate => "duplicate",
            DropReason::NotAssociated => "not_associated",
        }
    }

    /// Index in [`DropReason::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }
}

/// How a station addresses its data frames (the To DS / From DS bits).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Ds {
    /// IBSS: address 1 the destination, 2 the source, 3 the BSSID.
    Ibss,
    /// A station to its AP (To DS): 1 the BSSID, 2 the source, 3 the destination.
    ToAp,
    /// An AP to a station (From DS): 1 the destination, 2 the BSSID, 3 the source.
    FromAp,
}

/// What the 802.11 header of a station's data frames says besides the addresses
/// taken from the Ethernet frame.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TxParams {
    /// The station's own address (the Ethernet source must be it).
    pub own: MacAddress,
    /// The BSSID.
    pub bssid: MacAddress,
    /// The addressing mode.
    pub ds: Ds,
    /// `Some(tid)`: QoS data frames with this TID; `None`: plain data frames.
    pub qos_tid: Option<u8>,
}

/// An 802.11 frame made from an Ethernet frame: where it is in the buffer.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Converted {
    /// Offset of the first byte.
    pub start: usize,
    /// Length in bytes.
    pub len: usize,
    /// Its address 1, the receiver.
    pub receiver: MacAddress,
    /// The destination named by the Ethernet frame.
    pub dst: MacAddress,
}

fn mac_at(buf: &[u8], at: usize) -> MacAddress {
    let mut a = [0u8; 6];
    a.copy_from_slice(&buf[at..at + 6]);
    MacAddress(a)
}

/// Turns the Ethernet frame at `buf[start..start + len]` into an 802.11 data
/// frame (no FCS) in place, using the bytes in front of `start` as headroom
/// (at least 20 for QoS, 18 otherwise; [`HEADROOM`] is enough).
pub fn eth_to_wlan(
    buf: &mut [u8],
    start: usize,
    len: usize,
    p: &TxParams,
) -> Result<Converted, DropReason> {
    if len < ETH_HEADER || start + len > buf.len() {
        return Err(DropReason::TooShort);
    }
    let da = mac_at(buf, start);
    let sa = mac_at(buf, start + 6);
    // Only an AP sends on behalf of others (the source is its address 3).
    if sa != p.own && p.ds != Ds::FromAp {
        return Err(DropReason::ForeignSource);
    }
    let et = u16::from_be_bytes([buf[start + 12], buf[start + 13]]);
    let (body, msdu) = if et >= 0x0600 {
        // LLC/SNAP takes the place of the two addresses; the EtherType stays.
        let oui =
            if BRIDGE_TUNNEL_ETHERTYPES.contains(&et) { OUI_BRIDGE_TUNNEL } else { OUI_RFC1042 };
        buf[start + 6..start + 9].copy_from_slice(&LLC_SNAP);
        buf[start + 9..start + 12].copy_from_slice(&oui);
        (start + 6, len - 6)
    } else if et as usize <= 1500 && et as usize <= len - ETH_HEADER {
        // An 802.3 length frame already carries its LLC: it is the MSDU, padding cut.
        (start + ETH_HEADER, et as usize)
    } else {
        return Err(DropReason::BadLength);
    };
    if msdu > MAX_MSDU {
        return Err(DropReason::Oversized);
    }
    let hlen = if p.qos_tid.is_some() { 26 } else { 24 };
    if body < hlen {
        return Err(DropReason::TooShort);
    }
    let h = body - hlen;
    let (a1, a2, a3, flags) = match p.ds {
        Ds::Ibss => (da, sa, p.bssid, 0u8),
        Ds::ToAp => (p.bssid, sa, da, 0x01),
        Ds::FromAp => (da, p.bssid, sa, 0x02),
    };
    // Frame control: type data (0b10), subtype data (0) or QoS data (8).
    buf[h] = if p.qos_tid.is_some() { 0x88 } else { 0x08 };
    buf[h + 1] = flags;
    buf[h + 2..h + 4].fill(0); // duration: the MAC sets it
    buf[h + 4..h + 10].copy_from_slice(&a1.0);
    buf[h + 10..h + 16].copy_from_slice(&a2.0);
    buf[h + 16..h + 22].copy_from_slice(&a3.0);
    buf[h + 22..h + 24].fill(0); // sequence control: the MAC numbers it
    if let Some(tid) = p.qos_tid {
        // Group-addressed QoS frames are never acknowledged (ack policy No Ack).
        let no_ack = if a1.is_multicast() { 0x20 } else { 0 };
        buf[h + 24] = (tid & 0x0f) | no_ack;
        buf[h + 25] = 0;
    }
    Ok(Converted { start: h, len: hlen + msdu, receiver: a1, dst: da })
}

/// An Ethernet frame made from a received 802.11 frame.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Received {
    /// Offset of the Ethernet frame in the buffer.
    pub start: usize,
    /// Its length.
    pub len: usize,
    /// Its destination.
    pub dst: MacAddress,
    /// Its source.
    pub src: MacAddress,
}

/// Turns the 802.11 data frame (no FCS) in `buf[..len]` into an Ethernet frame in
/// place. Frames are checked before anything is written: a frame refused is left
/// as it was.
pub fn wlan_to_eth(buf: &mut [u8], len: usize) -> Result<Received, DropReason> {
    if len < 24 || len > buf.len() {
        return Err(DropReason::TooShort);
    }
    let fc0 = buf[0];
    let fc1 = buf[1];
    if fc0 & 0x03 != 0 {
        // Protocol version other than 0.
        return Err(DropReason::NotData);
    }
    if (fc0 >> 2) & 0x03 != 2 {
        return Err(DropReason::NotData);
    }
    let subtype = fc0 >> 4;
    if subtype & 0x04 != 0 {
        return Err(DropReason::NoData);
    }
    if fc1 & 0x40 != 0 {
        return Err(DropReason::Protected);
    }
    let frag = u16::from_le_bytes([buf[22], buf[23]]) & 0x0f;
    if fc1 & 0x04 != 0 || frag != 0 {
        return Err(DropReason::Fragment);
    }
    let to_ds = fc1 & 0x01 != 0;
    let from_ds = fc1 & 0x02 != 0;
    let mut hlen = if to_ds && from_ds { 30 } else { 24 };
    let qos = subtype & 0x08 != 0;
    if qos {
        if len < hlen + 2 {
            return Err(DropReason::TooShort);
        }
        if buf[hlen] & 0x80 != 0 {
            return Err(DropReason::Amsdu);
        }
        hlen += 2;
        if fc1 & 0x80 != 0 {
            hlen += 4; // HT control
        }
    }
    if len < hlen {
        return Err(DropReason::TooShort);
    }
    let (da, sa) = match (to_ds, from_ds) {
        (false, false) => (mac_at(buf, 4), mac_at(buf, 10)),
        (true, false) => (mac_at(buf, 16), mac_at(buf, 10)),
        (false, true) => (mac_at(buf, 4), mac_at(buf, 16)),
        (true, true) => (mac_at(buf, 16), mac_at(buf, 24)),
    };
    let body = &buf[hlen..len];
    let snap = body.len() >= 8 && body[..3] == LLC_SNAP;
    let strip = snap && {
        let oui = [body[3], body[4], body[5]];
        let et = u16::from_be_bytes([body[6], body[7]]);
        (oui == OUI_RFC1042 && !BRIDGE_TUNNEL_ETHERTYPES.contains(&et)) || oui == OUI_BRIDGE_TUNNEL
    };
    let start = if strip {
        // The EtherType at the end of SNAP stays where it is.
        let s = hlen + 8 - ETH_HEADER;
        buf[s..s + 6].copy_from_slice(&da.0);
        buf[s + 6..s + 12].copy_from_slice(&sa.0);
        s
    } else {
        // No EtherType to recover: an 802.3 length frame around the LLC body.
        let n = len - hlen;
        if n > 1500 {
            return Err(DropReason::Unencapsulated);
        }
        if n == 0 {
            return Err(DropReason::TooShort);
        }
        let s = hlen - ETH_HEADER;
        buf[s..s + 6].copy_from_slice(&da.0);
        buf[s + 6..s + 12].copy_from_slice(&sa.0);
        buf[s + 12..s + 14].copy_from_slice(&(n as u16).to_be_bytes());
        s
    };
    Ok(Received { start, len: len - start, dst: da, src: sa })
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: MacAddress = MacAddress([0x02, 0, 0, 0, 0, 0x01]);
    const B: MacAddress = MacAddress([0x02, 0, 0, 0, 0, 0x02]);
    const BSS: MacAddress = MacAddress([0x02, 0xbb, 0, 0, 0, 0x01]);

    fn ibss(own: MacAddress) -> TxParams {
        TxParams { own, bssid: BSS, ds: Ds::Ibss, qos_tid: None }
    }

    /// A buffer with `eth` at HEADROOM.
    fn staged(eth: &[u8]) -> Vec<u8> {
        let mut b = vec![0xeeu8; HEADROOM + eth.len()];
        b[HEADROOM..].copy_from_slice(eth);
        b
    }

    /// An IPv4 frame B -> A, golden bytes both ways.
    #[test]
    fn ipv4_golden_bytes() {
        let eth: Vec<u8> =
            [&A.0[..], &B.0[..], &[0x08, 0x00], &[0x45, 0x00, 0x00, 0x14, 0xde, 0xad]].concat();
        let mut buf = staged(&eth);
        let c = eth_to_wlan(&mut buf, HEADROOM, eth.len(), &ibss(B)).unwrap();
        let golden: Vec<u8> = [
            &[0x08, 0x00, 0x00, 0x00][..],         // FC data, no DS bits; duration
            &A.0[..],                              // address 1: DA
            &B.0[..],                              // address 2: SA
            &BSS.0[..],                            // address 3: BSSID
            &[0x00, 0x00],                         // sequence control
            &[0xaa, 0xaa, 0x03, 0x00, 0x00, 0x00], // LLC/SNAP, RFC 1042
            &[0x08, 0x00],                         // EtherType
            &[0x45, 0x00, 0x00, 0x14, 0xde, 0xad],
        ]
        .concat();
        assert_eq!(&buf[c.start..c.start + c.len], &golden[..]);
        assert_eq!(c.start, HEADROOM + 6 - 24, "the header sits in the headroom");
        assert_eq!((c.receiver, c.dst), (A, A));
        // Receive: the MPDU from offset 0, as data_ind writes it.
        let mut rx = golden.clone();
        let r = wlan_to_eth(&mut rx, golden.len()).unwrap();
        assert_eq!(&rx[r.start..r.start + r.len], &eth[..]);
        assert_eq!((r.dst, r.src), (A, B));
    }

    #[test]
    fn bridge_tunnel_for_aarp_and_ipx() {
        for et in BRIDGE_TUNNEL_ETHERTYPES {
            let eth: Vec<u8> = [&A.0[..], &B.0[..], &et.to_be_bytes(), &[1, 2, 3]].concat();
            let mut buf = staged(&eth);
            let c = eth_to_wlan(&mut buf, HEADROOM, eth.len(), &ibss(B)).unwrap();
            let f = &buf[c.start..c.start + c.len];
            assert_eq!(&f[24..32], &[0xaa, 0xaa, 0x03, 0, 0, 0xf8, (et >> 8) as u8, et as u8]);
            let mut rx = f.to_vec();
            let r = wlan_to_eth(&mut rx, f.len()).unwrap();
            assert_eq!(&rx[r.start..r.start + r.len], &eth[..]);
        }
    }

    /// RFC 1042 around IPX is not stripped: the receiver keeps the SNAP header in an
    /// 802.3 length frame (802.1H selective translation).
    #[test]
    fn rfc1042_ipx_becomes_a_length_frame() {
        let mut f: Vec<u8> = [
            &[0x08, 0x00, 0, 0][..],
            &A.0[..],
            &B.0[..],
            &BSS.0[..],
            &[0, 0],
            &[0xaa, 0xaa, 0x03, 0, 0, 0, 0x81, 0x37, 9, 9],
        ]
        .concat();
        let n = f.len();
        let r = wlan_to_eth(&mut f, n).unwrap();
        let want: Vec<u8> =
            [&A.0[..], &B.0[..], &[0x00, 10], &[0xaa, 0xaa, 0x03, 0, 0, 0, 0x81, 0x37, 9, 9][..]]
                .concat();
        assert_eq!(&f[r.start..r.start + r.len], &want[..]);
    }

    #[test]
    fn qos_and_ds_addressing() {
        let eth: Vec<u8> = [&MacAddress::BROADCAST.0[..], &B.0[..], &[0x86, 0xdd], &[7]].concat();
        let mut buf = staged(&eth);
        let p = TxParams { own: B, bssid: BSS, ds: Ds::ToAp, qos_tid: Some(5) };
        let c = eth_to_wlan(&mut buf, HEADROOM, eth.len(), &p).unwrap();
        let f = buf[c.start..c.start + c.len].to_vec();
        assert_eq!(&f[..2], &[0x88, 0x01]);
        assert_eq!(&f[4..10], &BSS.0, "to DS: address 1 is the BSSID");
        assert_eq!(&f[16..22], &MacAddress::BROADCAST.0);
        assert_eq!(&f[24..26], &[0x05, 0], "TID 5, acknowledged: address 1 is the AP");
        assert_eq!(c.receiver, BSS);
        let mut rx = f.clone();
        let r = wlan_to_eth(&mut rx, f.len()).unwrap();
        assert_eq!(&rx[r.start..r.start + r.len], &eth[..]);
        let p = TxParams { own: B, bssid: BSS, ds: Ds::Ibss, qos_tid: Some(5) };
        let mut buf = staged(&eth);
        let c = eth_to_wlan(&mut buf, HEADROOM, eth.len(), &p).unwrap();
        assert_eq!(&buf[c.start + 24..c.start + 26], &[0x25, 0], "a group address: No Ack");
        let p = TxParams { own: B, bssid: BSS, ds: Ds::FromAp, qos_tid: None };
        let mut buf = staged(&eth);
        let c = eth_to_wlan(&mut buf, HEADROOM, eth.len(), &p).unwrap();
        let mut rx = buf[c.start..c.start + c.len].to_vec();
        let n = rx.len();
        let r = wlan_to_eth(&mut rx, n).unwrap();
        assert_eq!(&rx[r.start..r.start + r.len], &eth[..]);
    }

    #[test]
    fn bad_frames_are_refused_with_a_reason() {
        let mut buf = staged(&[0u8; 10]);
        assert_eq!(eth_to_wlan(&mut buf, HEADROOM, 10, &ibss(B)), Err(DropReason::TooShort));
        let eth: Vec<u8> = [&A.0[..], &A.0[..], &[0x08, 0x00]].concat();
        let mut buf = staged(&eth);
        assert_eq!(eth_to_wlan(&mut buf, HEADROOM, 14, &ibss(B)), Err(DropReason::ForeignSource));
        let big = [&A.0[..], &B.0[..], &[0x08, 0x00], &vec![0u8; MAX_MSDU][..]].concat();
        let mut buf = staged(&big);
        assert_eq!(
            eth_to_wlan(&mut buf, HEADROOM, big.len(), &ibss(B)),
            Err(DropReason::Oversized)
        );
        let fits = [&A.0[..], &B.0[..], &[0x08, 0x00], &vec![0u8; MAX_MSDU - 8][..]].concat();
        assert_eq!(fits.len(), MAX_ETH_FRAME);
        let mut buf = staged(&fits);
        assert!(eth_to_wlan(&mut buf, HEADROOM, fits.len(), &ibss(B)).is_ok());
        let badlen = [&A.0[..], &B.0[..], &[0x00, 0x40], &[0u8; 10][..]].concat();
        let mut buf = staged(&badlen);
        assert_eq!(eth_to_wlan(&mut buf, HEADROOM, 24, &ibss(B)), Err(DropReason::BadLength));

        let hdr = |fc0: u8, fc1: u8| -> Vec<u8> {
            [&[fc0, fc1, 0, 0][..], &A.0, &B.0, &BSS.0, &[0, 0], &[0xaa, 0xaa, 3, 0, 0, 0, 8, 0]]
                .concat()
        };
        for (f, why) in [
            (hdr(0x80, 0), DropReason::NotData), // beacon
            (hdr(0x48, 0), DropReason::NoData),  // null data
            (hdr(0x08, 0x40), DropReason::Protected),
            (hdr(0x08, 0x04), DropReason::Fragment),
            (vec![0x08; 20], DropReason::TooShort),
        ] {
            let mut g = f.clone();
            let n = g.len();
            assert_eq!(wlan_to_eth(&mut g, n), Err(why));
            assert_eq!(g, f, "a refused frame is left as it was");
        }
        let mut amsdu = [&hdr(0x88, 0)[..24], &[0x80, 0], &[0u8; 8]].concat();
        let n = amsdu.len();
        assert_eq!(wlan_to_eth(&mut amsdu, n), Err(DropReason::Amsdu));
        let mut raw = [&hdr(0x08, 0)[..24], &vec![0x42u8; 1501][..]].concat();
        let n = raw.len();
        assert_eq!(wlan_to_eth(&mut raw, n), Err(DropReason::Unencapsulated));
    }

    mod prop {
        use super::*;
        use proptest::prelude::*;

        fn ds() -> impl Strategy<Value = Ds> {
            prop_oneof![Just(Ds::Ibss), Just(Ds::ToAp), Just(Ds::FromAp)]
        }

        proptest! {
            /// Any Ethernet II frame that fits comes back unchanged through 802.11, in
            /// every addressing mode, with or without QoS.
            #[test]
            fn ethernet_ii_round_trips(
                da in any::<[u8; 6]>(),
                own in any::<[u8; 6]>(),
                et in 0x0600u16..=0xffff,
                payload in proptest::collection::vec(any::<u8>(), 0..(MAX_MSDU - 8)),
                ds in ds(),
                qos in proptest::option::of(0u8..8),
            ) {
                let own = MacAddress([own[0] & 0xfe, own[1], own[2], own[3], own[4], own[5]]);
                let eth = [&da[..], &own.0[..], &et.to_be_bytes(), &payload[..]].concat();
                let mut buf = staged(&eth);
                let p = TxParams { own, bssid: BSS, ds, qos_tid: qos };
                let c = eth_to_wlan(&mut buf, HEADROOM, eth.len(), &p).unwrap();
                prop_assert!(c.len <= MAX_MSDU + 26);
                let mut rx = buf[c.start..c.start + c.len].to_vec();
                let n = rx.len();
                let r = wlan_to_eth(&mut rx, n).unwrap();
                prop_assert_eq!(&rx[r.start..r.start + r.len], &eth[..]);
            }

            /// An 802.3 length frame (its body not starting with an RFC 1042 SNAP
            /// header, which 802.1H would read as Ethernet II) round-trips too, its
            /// padding cut.
            #[test]
            fn length_frames_round_trip(
                da in any::<[u8; 6]>(),
                body in proptest::collection::vec(any::<u8>(), 1..=1500usize),
                pad in 0usize..40,
            ) {
                prop_assume!(body.len() < 8 || body[..3] != LLC_SNAP);
                let eth = [&da[..], &B.0[..], &(body.len() as u16).to_be_bytes(), &body[..]].concat();
                let padded = [&eth[..], &vec![0u8; pad][..]].concat();
                let mut buf = staged(&padded);
                let c = eth_to_wlan(&mut buf, HEADROOM, padded.len(), &ibss(B)).unwrap();
                let mut rx = buf[c.start..c.start + c.len].to_vec();
                let n = rx.len();
                let r = wlan_to_eth(&mut rx, n).unwrap();
                prop_assert_eq!(&rx[r.start..r.start + r.len], &eth[..]);
            }

            /// Whatever arrives from the medium, conversion never panics, and what it
            /// produces lies within the frame.
            #[test]
            fn any_received_bytes_are_safe(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
                let mut b = bytes.clone();
                let n = b.len();
                if let Ok(r) = wlan_to_eth(&mut b, n) {
                    prop_assert!(r.start + r.len <= n && r.len >= ETH_HEADER);
                } else {
                    prop_assert_eq!(b, bytes);
                }
            }
        }
    }
}
