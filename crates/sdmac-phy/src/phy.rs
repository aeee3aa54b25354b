//! A configured PHY: airtime of a frame, interframe spaces, ACKTimeout, EIFS and the
//! control-response rate. All times are integer nanoseconds.

use crate::rate::{ModulationClass, Rate, DSSS_RATES, OFDM_RATES};
use crate::standard::{Standard, ACK_LEN, US};

/// A set of legacy (non-HT) rates: bit i is `LEGACY_RATES[i]`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct RateSet(pub u16);

/// The 12 legacy rates in the order hwsim and radiotap tables index them at 2.4 GHz.
pub const LEGACY_RATES: [Rate; 12] = [
    Rate::Dsss1,
    Rate::Dsss2,
    Rate::Cck5_5,
    Rate::Cck11,
    Rate::Ofdm6,
    Rate::Ofdm9,
    Rate::Ofdm12,
    Rate::Ofdm18,
    Rate::Ofdm24,
    Rate::Ofdm36,
    Rate::Ofdm48,
    Rate::Ofdm54,
];

impl RateSet {
    /// Builds a set from rates; HT and custom rates are ignored.
    pub fn from_rates(rates: &[Rate]) -> RateSet {
        let mut bits = 0u16;
        for r in rates {
            if let Some(i) = LEGACY_RATES.iter().position(|l| l == r) {
                bits |= 1 << i;
            }
        }
        RateSet(bits)
    }

    /// Is `rate` in the set?
    pub fn contains(self, rate: Rate) -> bool {
        LEGACY_RATES.iter().position(|l| *l == rate).is_some_and(|i| self.0 & (1 << i) != 0)
    }

    /// The rates in the set, slowest first within each class (DSSS first).
    pub fn iter(self) -> impl Iterator<Item = Rate> {
        LEGACY_RATES
            .into_iter()
            .enumerate()
            .filter(move |(i, _)| self.0 & (1 << i) != 0)
            .map(|(_, r)| r)
    }
}

/// PHY and MAC timing of one medium. Every field can be overridden so textbook
/// parameter sets can be simulated; `Phy::new` fills in the standard's values.
#[derive(Clone, Debug, PartialEq)]
pub struct Phy {
    /// The PHY standard.
    pub standard: Standard,
    /// aSIFSTime.
    pub sifs_ns: u64,
    /// aSlotTime.
    pub slot_ns: u64,
    /// aCWmin.
    pub cw_min: u32,
    /// aCWmax.
    pub cw_max: u32,
    /// DSSS short preamble (ignored at 1 Mb/s, which always uses the long one).
    pub short_preamble: bool,
    /// ERP/HT signal extension at 2.4 GHz (6 µs), added to every OFDM/HT PPDU.
    pub signal_extension_ns: u64,
    /// Override of the PHY preamble + header duration of every PPDU.
    pub phy_header_ns: Option<u64>,
    /// aRxPHYStartDelay: from the start of a PPDU to PHY-RXSTART.indication.
    pub rx_start_delay_ns: u64,
    /// aCCATime: from the start of a PPDU at a station to its CCA busy indication. A
    /// station whose access begins less than this after another transmission reached
    /// it has not sensed that transmission and sends too (0: sensed at once).
    pub cca_ns: u64,
    /// The BSS basic rate set, for the control-response rate.
    pub basic_rates: RateSet,
    /// Override of the rate of every control response (ACK).
    pub control_rate: Option<Rate>,
    /// Override of ACKTimeout.
    pub ack_timeout_ns: Option<u64>,
    /// Override of EIFS.
    pub eifs_ns: Option<u64>,
}

impl Phy {
    /// The standard's parameters for `standard`.
    pub fn new(standard: Standard) -> Phy {
        // aCCATime: at most 15 µs for DSSS/HR-DSSS (clauses 15, 16), under 4 µs for
        // OFDM, ERP-OFDM and HT (clauses 17-19); none for textbook parameter sets.
        let cca = match standard {
            Standard::Dot11b => 15,
            Standard::Custom => 0,
            _ => 4,
        };
        let (sifs, slot, cw_min, ext, rx_start, basic): (u64, u64, u32, u64, u64, &[Rate]) =
            match standard {
                Standard::Dot11b => (10, 20, 31, 0, 192, &[Rate::Dsss1, Rate::Dsss2]),
                Standard::Dot11a | Standard::Dot11n5 | Standard::Dot11ac => {
                    (16, 9, 15, 0, 20, &[Rate::Ofdm6, Rate::Ofdm12, Rate::Ofdm24])
                }
                Standard::Dot11g | Standard::Dot11n2_4 => (
                    10,
                    9,
                    15,
                    6,
                    20,
                    &[
                        Rate::Dsss1,
                        Rate::Dsss2,
                        Rate::Cck5_5,
                        Rate::Cck11,
                        Rate::Ofdm6,
                        Rate::Ofdm12,
                        Rate::Ofdm24,
                    ],
                ),
                // Bianchi's FHSS parameter set as a starting point for textbook PHYs.
                Standard::Custom => (28, 50, 31, 0, 128, &[]),
            };
        Phy {
            standard,
            sifs_ns: sifs * US,
            slot_ns: slot * US,
            cw_min,
            cw_max: 1023,
            short_preamble: false,
            signal_extension_ns: ext * US,
            phy_header_ns: None,
            rx_start_delay_ns: rx_start * US,
            cca_ns: cca * US,
            basic_rates: RateSet::from_rates(basic),
            control_rate: None,
            ack_timeout_ns: None,
            eifs_ns: None,
        }
    }

    /// DIFS = SIFS + 2 slots.
    pub fn difs_ns(&self) -> u64 {
        self.aifs_ns(2)
    }

    /// PIFS = SIFS + 1 slot.
    pub fn pifs_ns(&self) -> u64 {
        self.aifs_ns(1)
    }

    /// AIFS\[AC\] = SIFS + AIFSN slots.
    pub fn aifs_ns(&self, aifsn: u8) -> u64 {
        self.sifs_ns + aifsn as u64 * self.slot_ns
    }

    /// Duration of the PHY preamble and header of a PPDU sent at `rate`.
    pub fn preamble_ns(&self, rate: Rate) -> u64 {
        if let Some(h) = self.phy_header_ns {
            return h;
        }
        match rate.class() {
            ModulationClass::Dsss => {
                if self.short_preamble && rate != Rate::Dsss1 {
                    96 * US
                } else {
                    192 * US
                }
            }
            ModulationClass::Ofdm => 20 * US,
            // HT-mixed (IEEE 802.11-2016 §19.4.3): L-STF 8 + L-LTF 8 + L-SIG 4 + HT-SIG 8
            // + HT-STF 4 + N_LTF HT-LTFs of 4.
            ModulationClass::Ht => (32 + 4 * ht_ltfs(rate.streams())) * US,
            // VHT (§21.4.3): L-STF 8 + L-LTF 8 + L-SIG 4 + VHT-SIG-A 8 + VHT-STF 4
            // + N_VHTLTF VHT-LTFs of 4 + VHT-SIG-B 4.
            ModulationClass::Vht => (36 + 4 * vht_ltfs(rate.streams())) * US,
            ModulationClass::Custom => 0,
        }
    }

    /// The PSDU of a frame of `len` bytes sent at `rate`: the frame itself, except at a
    /// VHT rate, where every PPDU carries an A-MPDU (IEEE 802.11-2016 §10.13.1; a VHT
    /// single MPDU): a 4-byte MPDU delimiter and the MPDU padded to a multiple of 4.
    pub fn psdu_len(&self, len: u32, rate: Rate) -> u32 {
        match rate {
            Rate::Vht { .. } => 4 + len.div_ceil(4) * 4,
            _ => len,
        }
    }

    /// TXTIME of a PSDU of `len` bytes (MAC header + body + FCS) at `rate`.
    pub fn airtime_ns(&self, len: u32, rate: Rate) -> u64 {
        let bits = 8 * len as u64;
        let pre = self.preamble_ns(rate);
        match rate.class() {
            ModulationClass::Dsss => pre + ceil_div(bits * 1000, rate.kbps() as u64) * US,
            ModulationClass::Ofdm => {
                let nsym = ceil_div(16 + bits + 6, rate.n_dbps().unwrap() as u64);
                pre + 4 * nsym * US + self.signal_extension_ns
            }
            ModulationClass::Ht | ModulationClass::Vht => {
                let (Rate::Ht { sgi, .. } | Rate::Vht { sgi, .. }) = rate else { unreachable!() };
                let bits = 8 * self.psdu_len(len, rate) as u64;
                // N_SYM = ceil((8·L + 16 service + 6·N_ES tail) / N_DBPS) (BCC).
                let Some(n_dbps) = rate.n_dbps() else { return pre };
                let nsym = ceil_div(bits + 16 + 6 * rate.n_es() as u64, n_dbps as u64);
                // Short GI: 3.6 µs symbols, the total rounded up to a 4 µs boundary.
                let data_us = if sgi { 4 * ceil_div(9 * nsym, 10) } else { 4 * nsym };
                pre + data_us * US + self.signal_extension_ns
            }
            ModulationClass::Custom => pre + ceil_div(bits * 1_000_000, rate.kbps() as u64),
        }
    }

    /// The rate of the ACK that answers a frame sent at `data` (IEEE 802.11-2016
    /// §10.6.6.5): the highest basic rate not above it in the same modulation class,
    /// else the highest mandatory rate not above it; HT frames are answered at a
    /// non-HT rate chosen from the MCS's non-HT reference rate.
    pub fn control_response_rate(&self, data: Rate) -> Rate {
        if let Some(r) = self.control_rate {
            return r;
        }
        let reference = data.non_ht_reference();
        let (class_rates, mandatory): (&[Rate], &[Rate]) = match reference.class() {
            ModulationClass::Dsss => (&DSSS_RATES, &DSSS_RATES),
            ModulationClass::Ofdm | ModulationClass::Ht | ModulationClass::Vht => {
                (&OFDM_RATES, &[Rate::Ofdm6, Rate::Ofdm12, Rate::Ofdm24])
            }
            ModulationClass::Custom => return data,
        };
        let not_above = |r: &&Rate| r.kbps() <= reference.kbps();
        class_rates
            .iter()
            .filter(|r| self.basic_rates.contains(**r))
            .rfind(not_above)
            .or_else(|| mandatory.iter().rfind(not_above))
            .copied()
            .unwrap_or(mandatory[0])
    }

    /// Airtime of the ACK answering a frame sent at `data`.
    pub fn ack_airtime_ns(&self, data: Rate) -> u64 {
        self.airtime_ns(ACK_LEN, self.control_response_rate(data))
    }

    /// ACKTimeout = aSIFSTime + aSlotTime + aRxPHYStartDelay, counted from the end of
    /// the transmitted frame (PHY-TXEND.confirm).
    pub fn ack_timeout_ns(&self) -> u64 {
        self.ack_timeout_ns.unwrap_or(self.sifs_ns + self.slot_ns + self.rx_start_delay_ns)
    }

    /// The lowest mandatory rate of the PHY (what EIFS counts an ACK at).
    pub fn lowest_mandatory_rate(&self) -> Rate {
        match self.standard {
            Standard::Dot11b | Standard::Dot11g | Standard::Dot11n2_4 => Rate::Dsss1,
            Standard::Dot11a | Standard::Dot11n5 | Standard::Dot11ac => Rate::Ofdm6,
            Standard::Custom => self.control_rate.unwrap_or(Rate::Custom { kbps: 1000 }),
        }
    }

    /// EIFS = aSIFSTime + DIFS + ACKTxTime at the lowest mandatory rate.
    pub fn eifs_ns(&self) -> u64 {
        self.eifs_ns.unwrap_or_else(|| {
            self.sifs_ns + self.difs_ns() + self.airtime_ns(ACK_LEN, self.lowest_mandatory_rate())
        })
    }
}

/// N_LTF of an HT PPDU with `nss` streams and no STBC or extension streams
/// (IEEE 802.11-2016 Table 19-13): 1, 2, 4, 4.
fn ht_ltfs(nss: u8) -> u64 {
    match nss {
        1 => 1,
        2 => 2,
        _ => 4,
    }
}

/// N_VHTLTF for `nss` space-time streams (IEEE 802.11-2016 Table 21-13): 1, 2, 4, 4,
/// 6, 6, 8, 8.
fn vht_ltfs(nss: u8) -> u64 {
    match nss {
        0 | 1 => 1,
        2 => 2,
        3 | 4 => 4,
        5 | 6 => 6,
        _ => 8,
    }
}

fn ceil_div(a: u64, b: u64) -> u64 {
    a.div_ceil(b)
}
