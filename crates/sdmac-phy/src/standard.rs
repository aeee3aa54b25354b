//! PHY standards and their timing parameters (IEEE 802.11-2016 clauses 15–19).

use crate::rate::{Rate, DSSS_RATES, OFDM_RATES};
use core::fmt;
use core::str::FromStr;

/// Nanoseconds in a microsecond.
pub const US: u64 = 1_000;

/// Length of an ACK frame in bytes (frame control, duration, RA, FCS).
pub const ACK_LEN: u32 = 14;

/// The PHY a medium uses.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Standard {
    /// 802.11b DSSS/HR-DSSS at 2.4 GHz (Clauses 15, 16).
    Dot11b,
    /// 802.11a OFDM at 5 GHz (Clause 17).
    Dot11a,
    /// 802.11g ERP-OFDM at 2.4 GHz (Clause 18), short slot.
    Dot11g,
    /// 802.11n HT-mixed at 2.4 GHz (Clause 19), short slot.
    Dot11n2_4,
    /// 802.11n HT-mixed at 5 GHz (Clause 19).
    Dot11n5,
    /// 802.11ac VHT at 5 GHz (Clause 21), with the HT and OFDM rates as well.
    Dot11ac,
    /// A textbook PHY: all timing comes from overrides, rates are `Rate::Custom`.
    Custom,
}

impl Standard {
    /// Does the PHY operate in the 2.4 GHz band?
    pub fn is_2_4ghz(self) -> bool {
        matches!(self, Standard::Dot11b | Standard::Dot11g | Standard::Dot11n2_4)
    }

    /// Default channel centre frequency in MHz (channel 1 or 36).
    pub fn default_freq_mhz(self) -> u32 {
        if self.is_2_4ghz() {
            2412
        } else {
            5180
        }
    }

    /// Can this PHY send `rate`?
    pub fn supports(self, rate: Rate) -> bool {
        match self {
            Standard::Dot11b => DSSS_RATES.contains(&rate),
            Standard::Dot11a => OFDM_RATES.contains(&rate),
            Standard::Dot11g => DSSS_RATES.contains(&rate) || OFDM_RATES.contains(&rate),
            Standard::Dot11n2_4 => {
                DSSS_RATES.contains(&rate)
                    || OFDM_RATES.contains(&rate)
                    || matches!(rate, Rate::Ht { .. })
            }
            Standard::Dot11n5 => OFDM_RATES.contains(&rate) || matches!(rate, Rate::Ht { .. }),
            Standard::Dot11ac => {
                OFDM_RATES.contains(&rate) || matches!(rate, Rate::Ht { .. } | Rate::Vht { .. })
            }
            Standard::Custom => matches!(rate, Rate::Custom { .. }),
        }
    }

    /// Name as used in scenario files.
    pub fn name(self) -> &'static str {
        match self {
            Standard::Dot11b => "802.11b",
            Standard::Dot11a => "802.11a",
            Standard::Dot11g => "802.11g",
            Standard::Dot11n2_4 => "802.11n-2.4",
            Standard::Dot11n5 => "802.11n-5",
            Standard::Dot11ac => "802.11ac",
            Standard::Custom => "custom",
        }
    }
}

impl fmt::Display for Standard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Standard {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Ok(match s.trim().to_ascii_lowercase().as_str() {
            "802.11b" | "11b" | "b" => Standard::Dot11b,
            "802.11a" | "11a" | "a" => Standard::Dot11a,
            "802.11g" | "11g" | "g" => Standard::Dot11g,
            "802.11n-2.4" | "802.11n-2.4ghz" | "11n-2.4" | "802.11n" | "n" => Standard::Dot11n2_4,
            "802.11n-5" | "802.11n-5ghz" | "11n-5" => Standard::Dot11n5,
            "802.11ac" | "11ac" | "ac" => Standard::Dot11ac,
            "custom" => Standard::Custom,
            _ => {
                return Err(format!(
                    "unknown standard {s:?}: expected 802.11a, 802.11b, 802.11g, 802.11n-2.4, 802.11n-5, 802.11ac or custom"
                ))
            }
        })
    }
}
