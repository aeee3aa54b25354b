//! Exact airtime, interframe space, ACKTimeout and control-rate values from the
//! standard's formulas (IEEE 802.11-2016 §15.3.6, §16.3.4, §17.4.3, §18.5.2, §19.4.3).

use sdmac_phy::{Phy, Rate, RateSet, Standard, ACK_LEN, US};

fn us(phy: &Phy, len: u32, rate: Rate) -> f64 {
    phy.airtime_ns(len, rate) as f64 / US as f64
}

#[test]
fn ofdm_802_11a_airtimes() {
    let a = Phy::new(Standard::Dot11a);
    let rates = sdmac_phy::rate::OFDM_RATES;
    let ack: Vec<f64> = rates.iter().map(|r| us(&a, ACK_LEN, *r)).collect();
    assert_eq!(ack, [44., 36., 32., 28., 28., 24., 24., 24.]);
    // 50 B payload, non-QoS: 24 header + 8 LLC/SNAP + 50 + 4 FCS = 86 B.
    let small: Vec<f64> = rates.iter().map(|r| us(&a, 86, *r)).collect();
    assert_eq!(small, [140., 100., 80., 60., 52., 40., 36., 36.]);
    let big: Vec<f64> = rates.iter().map(|r| us(&a, 1536, *r)).collect();
    assert_eq!(big, [2072., 1388., 1048., 704., 536., 364., 280., 248.]);
}

#[test]
fn dsss_802_11b_airtimes_long_and_short_preamble() {
    let mut b = Phy::new(Standard::Dot11b);
    let rates = sdmac_phy::rate::DSSS_RATES;
    let ack: Vec<f64> = rates.iter().map(|r| us(&b, ACK_LEN, *r)).collect();
    assert_eq!(ack, [304., 248., 213., 203.]);
    let big: Vec<f64> = rates.iter().map(|r| us(&b, 1536, *r)).collect();
    assert_eq!(big, [12480., 6336., 2427., 1310.]);
    b.short_preamble = true;
    let short: Vec<f64> = rates.iter().map(|r| us(&b, ACK_LEN, *r)).collect();
    // 1 Mb/s always uses the long preamble.
    assert_eq!(short, [304., 152., 117., 107.]);
}

#[test]
fn erp_ofdm_802_11g_adds_signal_extension() {
    let g = Phy::new(Standard::Dot11g);
    assert_eq!(us(&g, ACK_LEN, Rate::Ofdm24), 34.);
    assert_eq!(us(&g, 1536, Rate::Ofdm54), 254.);
    assert_eq!(us(&g, 86, Rate::Ofdm54), 42.);
    // DSSS frames on an ERP PHY get no extension.
    assert_eq!(us(&g, ACK_LEN, Rate::Dsss1), 304.);
}

#[test]
fn ht_mixed_airtimes() {
    let n5 = Phy::new(Standard::Dot11n5);
    let ht = |mcs, bw40, sgi| Rate::Ht { mcs, bw40, sgi };
    // 1536 B, 20 MHz, long GI: 36 + 4*ceil((12288+22)/N_DBPS).
    let lgi: Vec<f64> = (0..8).map(|m| us(&n5, 1536, ht(m, false, false))).collect();
    assert_eq!(lgi, [1932., 984., 668., 512., 352., 276., 248., 228.]);
    // Short GI: 36 + 4*ceil(3.6*N_SYM/4); MCS7 N_SYM = 48 -> 172.8 -> 176.
    assert_eq!(us(&n5, 1536, ht(7, false, true)), 212.);
    // 40 MHz MCS7, long GI: N_SYM = ceil(12310/540) = 23 -> 36 + 92.
    assert_eq!(us(&n5, 1536, ht(7, true, false)), 128.);
    // 40 MHz MCS7, short GI: 4*ceil(0.9*23) = 4*21 = 84.
    assert_eq!(us(&n5, 1536, ht(7, true, true)), 120.);
    // At 2.4 GHz the 6 µs signal extension is added.
    let n24 = Phy::new(Standard::Dot11n2_4);
    assert_eq!(us(&n24, 1536, ht(7, false, false)), 234.);
}

#[test]
fn interframe_spaces_ack_timeout_and_eifs() {
    let a = Phy::new(Standard::Dot11a);
    assert_eq!((a.sifs_ns, a.slot_ns, a.difs_ns()), (16 * US, 9 * US, 34 * US));
    assert_eq!(a.ack_timeout_ns(), 45 * US);
    assert_eq!(a.eifs_ns(), 94 * US);
    assert_eq!(a.aifs_ns(7), 79 * US);
    assert_eq!((a.cw_min, a.cw_max), (15, 1023));

    let b = Phy::new(Standard::Dot11b);
    assert_eq!((b.sifs_ns, b.slot_ns, b.difs_ns()), (10 * US, 20 * US, 50 * US));
    assert_eq!(b.eifs_ns(), 364 * US);
    assert_eq!(b.ack_timeout_ns(), 222 * US);
    assert_eq!(b.cw_min, 31);

    let g = Phy::new(Standard::Dot11g);
    assert_eq!((g.sifs_ns, g.slot_ns, g.difs_ns()), (10 * US, 9 * US, 28 * US));
    assert_eq!(g.ack_timeout_ns(), 39 * US);
    let mut g_long = g.clone();
    g_long.slot_ns = 20 * US;
    assert_eq!(g_long.difs_ns(), 50 * US);

    let n5 = Phy::new(Standard::Dot11n5);
    assert_eq!(n5.ack_timeout_ns(), 45 * US);
}

#[test]
fn control_response_rate_follows_the_basic_rate_set() {
    let a = Phy::new(Standard::Dot11a); // basic {6, 12, 24}
    let acks: Vec<Rate> =
        sdmac_phy::rate::OFDM_RATES.iter().map(|r| a.control_response_rate(*r)).collect();
    use Rate::*;
    assert_eq!(acks, [Ofdm6, Ofdm6, Ofdm12, Ofdm12, Ofdm24, Ofdm24, Ofdm24, Ofdm24]);
    let ht: Vec<Rate> = (0..8)
        .map(|mcs| a.control_response_rate(Rate::Ht { mcs, bw40: false, sgi: false }))
        .collect();
    assert_eq!(ht, [Ofdm6, Ofdm12, Ofdm12, Ofdm24, Ofdm24, Ofdm24, Ofdm24, Ofdm24]);

    // The SDMAC paper's testbed: basic set {6} -> every ACK at 6 Mb/s, 96 µs on air.
    let mut paper = Phy::new(Standard::Dot11a);
    paper.basic_rates = RateSet::from_rates(&[Ofdm6]);
    assert_eq!(paper.control_response_rate(Ofdm54), Ofdm6);
    let exchange = paper.airtime_ns(86, Ofdm54) + paper.sifs_ns + paper.ack_airtime_ns(Ofdm54);
    assert_eq!(exchange, 96 * US);

    // No basic rate in the class: highest mandatory rate not above the data rate.
    let mut none = Phy::new(Standard::Dot11a);
    none.basic_rates = RateSet::default();
    assert_eq!(none.control_response_rate(Ofdm18), Ofdm12);
    assert_eq!(none.control_response_rate(Ofdm54), Ofdm24);

    // DSSS data is answered in the DSSS class even on an ERP PHY.
    let g = Phy::new(Standard::Dot11g);
    assert_eq!(g.control_response_rate(Cck11), Cck11);
    assert_eq!(g.control_response_rate(Ofdm54), Ofdm24);
    let b = Phy::new(Standard::Dot11b); // basic {1, 2}
    assert_eq!(b.control_response_rate(Cck11), Dsss2);
    assert_eq!(b.control_response_rate(Dsss1), Dsss1);
}

#[test]
fn textbook_phy_from_overrides() {
    // Bianchi's FHSS set: 1 Mb/s, 128 µs PHY header, 8184-bit payload + 272-bit MAC header.
    let mut c = Phy::new(Standard::Custom);
    c.phy_header_ns = Some(128 * US);
    c.control_rate = Some(Rate::Custom { kbps: 1000 });
    let r = Rate::Custom { kbps: 1000 };
    assert_eq!(c.airtime_ns((8184 + 272) / 8, r), (128 + 8184 + 272) * US);
    assert_eq!(c.airtime_ns(14, r), (128 + 112) * US); // ACK = 112 bits + PHY header
    assert_eq!(c.difs_ns(), 128 * US);
}
