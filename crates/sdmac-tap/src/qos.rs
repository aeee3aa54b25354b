//! The user priority (and so the access category) of an Ethernet frame, from its
//! 802.1Q priority code point or, untagged, its IP header's DSCP.
//!
//! IEEE 802.11 maps a user priority (0–7, the 802.1D priority) to an access
//! category ([`Ac::from_tid`], Table 10-1) but leaves the user priority of an IP
//! packet to the sender. Here it is the PCP of a VLAN tag when there is one, else
//! the three class-selector bits of the DSCP (IPv4 TOS or IPv6 traffic class >> 5),
//! the common default: CS1 → 1 (background), 0 → 0 (best effort), AF4x/CS5/EF → 4–5
//! (video), CS6/CS7 → 6–7 (voice).

use sdmac_types::Ac;

const ETH_P_IP: u16 = 0x0800;
const ETH_P_IPV6: u16 = 0x86dd;
const ETH_P_8021Q: u16 = 0x8100;
const ETH_P_8021AD: u16 = 0x88a8;

/// The user priority (0–7) of the Ethernet frame `eth`; 0 when it says none.
pub fn user_priority(eth: &[u8]) -> u8 {
    if eth.len() < 16 {
        return 0;
    }
    match u16::from_be_bytes([eth[12], eth[13]]) {
        ETH_P_8021Q | ETH_P_8021AD => eth[14] >> 5,
        ETH_P_IP if eth[14] >> 4 == 4 => eth[15] >> 5,
        ETH_P_IPV6 if eth[14] >> 4 == 6 => {
            let tc = ((eth[14] & 0x0f) << 4) | (eth[15] >> 4);
            tc >> 5
        }
        _ => 0,
    }
}

/// The access category of the Ethernet frame `eth`, and its user priority (the TID
/// of its QoS data frame).
pub fn classify(eth: &[u8]) -> (Ac, u8) {
    let up = user_priority(eth);
    (Ac::from_tid(up), up)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ipv4(tos: u8) -> Vec<u8> {
        let mut f = vec![0u8; 34];
        f[12..14].copy_from_slice(&ETH_P_IP.to_be_bytes());
        f[14] = 0x45;
        f[15] = tos;
        f
    }

    #[test]
    fn dscp_class_selectors_give_the_access_category() {
        // (DSCP, user priority, access category)
        let cases = [
            (0, 0, Ac::Be),  // default
            (8, 1, Ac::Bk),  // CS1
            (10, 1, Ac::Bk), // AF11
            (16, 2, Ac::Bk), // CS2
            (24, 3, Ac::Be), // CS3
            (34, 4, Ac::Vi), // AF41
            (40, 5, Ac::Vi), // CS5
            (46, 5, Ac::Vi), // EF
            (48, 6, Ac::Vo), // CS6
            (56, 7, Ac::Vo), // CS7
        ];
        for (dscp, up, ac) in cases {
            let f = ipv4(dscp << 2 | 0b01); // ECN bits must not matter
            assert_eq!(classify(&f), (ac, up), "DSCP {dscp}");
        }
    }

    #[test]
    fn vlan_pcp_wins_and_ipv6_traffic_class_is_read() {
        let mut f = ipv4(0);
        f[12..14].copy_from_slice(&ETH_P_8021Q.to_be_bytes());
        f[14] = 6 << 5 | 0x01; // PCP 6, VLAN id 0x1xx
        assert_eq!(classify(&f), (Ac::Vo, 6));
        let mut g = vec![0u8; 54];
        g[12..14].copy_from_slice(&ETH_P_IPV6.to_be_bytes());
        // version 6, traffic class 0xb8 (EF) split over the two bytes
        g[14] = 0x60 | 0x0b;
        g[15] = 0x80;
        assert_eq!(classify(&g), (Ac::Vi, 5));
    }

    #[test]
    fn other_and_short_frames_are_best_effort() {
        let mut arp = vec![0u8; 42];
        arp[12..14].copy_from_slice(&0x0806u16.to_be_bytes());
        arp[15] = 0xff;
        assert_eq!(classify(&arp), (Ac::Be, 0));
        assert_eq!(classify(&[0u8; 10]), (Ac::Be, 0));
        let mut not_v4 = ipv4(0xe0);
        not_v4[14] = 0x65; // EtherType says IPv4, version field does not
        assert_eq!(classify(&not_v4), (Ac::Be, 0));
    }
}
