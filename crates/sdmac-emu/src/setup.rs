//! Media set up in a few lines: the SDMAC paper's testbed (an AP beaconing on a quiet
//! 5 GHz channel and one station), with DATA and ACK losses set separately.

use sdmac_medium::{
    BeaconConfig, LinkOverride, Medium, MediumConfig, StationConfig, StationId, TU,
};
use sdmac_phy::error_model::ErrorModel;
use sdmac_phy::{Phy, Rate, RateSet, Standard};

/// Losses on one direction of a link.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Loss {
    /// None: every frame gets through.
    None,
    /// Each frame is lost with this probability.
    Probability(f64),
    /// The link has this SNR (dB); the error model decides (NIST), and below the
    /// preamble detection threshold (4 dB) the receiver misses frames entirely.
    SnrDb(f64),
}

/// The testbed.
#[derive(Clone, Debug, PartialEq)]
pub struct PaperSetup {
    /// PHY standard (802.11a).
    pub standard: Standard,
    /// Centre frequency (5180 MHz, channel 36).
    pub freq_mhz: u32,
    /// BSS basic rate set, which sets the ACK rate ({6 Mb/s}).
    pub basic_rates: Vec<Rate>,
    /// Beacon interval (50 TU = 51.2 ms).
    pub beacon_interval_ns: u64,
    /// Distance between AP and station (m).
    pub distance_m: f64,
    /// ACK timeout of the station (None: the standard's, 45 µs for 802.11a).
    pub ack_timeout_ns: Option<u64>,
    /// Losses of DATA frames (station → AP).
    pub loss_data: Loss,
    /// Losses of ACK frames (AP → station).
    pub loss_ack: Loss,
    /// With probabilistic ACK loss: the share of lost ACKs whose preamble is missed
    /// (the sender gives up at the ACKTimeout); the rest are corrupted after their
    /// preamble (the sender waits for the ACK's end).
    pub ack_preamble_share: f64,
    /// Seed of the medium.
    pub seed: u64,
}

impl Default for PaperSetup {
    fn default() -> Self {
        PaperSetup {
            standard: Standard::Dot11a,
            freq_mhz: 5180,
            basic_rates: vec![Rate::Ofdm6],
            beacon_interval_ns: 50 * TU,
            distance_m: 10.0,
            ack_timeout_ns: None,
            loss_data: Loss::None,
            loss_ack: Loss::None,
            ack_preamble_share: 0.5,
            seed: 1,
        }
    }
}

/// Names of the two stations.
pub const AP: &str = "ap";
/// The station that sends.
pub const STA: &str = "sta";

/// MAC address of the AP.
pub const AP_ADDR: [u8; 6] = [0x02, 0x00, 0x00, 0x00, 0x00, 0x01];
/// MAC address of the station.
pub const STA_ADDR: [u8; 6] = [0x02, 0x00, 0x00, 0x00, 0x00, 0x02];

fn link(loss: Loss, preamble_share: f64) -> Result<LinkOverride, String> {
    let mut o = LinkOverride::default();
    match loss {
        Loss::None => {}
        Loss::Probability(p) => {
            if !(0.0..=1.0).contains(&p) {
                return Err(format!("loss probability {p} is not within 0..=1"));
            }
            let pre = p * preamble_share;
            o.preamble_error_prob = Some(pre);
            o.error_prob = Some(if pre < 1.0 { (p - pre) / (1.0 - pre) } else { 0.0 });
        }
        Loss::SnrDb(s) => {
            if !s.is_finite() {
                return Err(format!("SNR {s} dB is not a number"));
            }
            o.snr_db = Some(s);
        }
    }
    Ok(o)
}

/// Builds the testbed: returns the medium and the (AP, station) ids.
pub fn paper_medium(p: &PaperSetup) -> Result<(Medium, StationId, StationId), String> {
    if !(0.0..=1.0).contains(&p.ack_preamble_share) {
        return Err(format!("ACK preamble share {} is not within 0..=1", p.ack_preamble_share));
    }
    let mut phy = Phy::new(p.standard);
    if !p.basic_rates.is_empty() {
        if let Some(r) = p.basic_rates.iter().find(|r| !p.standard.supports(**r)) {
            return Err(format!("basic rate {r} is not a rate of this PHY"));
        }
        phy.basic_rates = RateSet::from_rates(&p.basic_rates);
    }
    let mut cfg = MediumConfig::new(phy.clone());
    cfg.freq_mhz = p.freq_mhz;
    cfg.seed = p.seed;
    cfg.error_model = ErrorModel::Nist;
    let mut m = Medium::new(cfg);
    let mut ap = StationConfig::new(&phy, AP_ADDR, [0.0, 0.0, 0.0]);
    ap.beacon = Some(BeaconConfig {
        interval_ns: p.beacon_interval_ns,
        offset_ns: 1_000_000,
        ..BeaconConfig::default()
    });
    let mut sta = StationConfig::new(&phy, STA_ADDR, [p.distance_m, 0.0, 0.0]);
    sta.ack_timeout_ns = p.ack_timeout_ns;
    let ap_id = m.add_station(ap);
    let sta_id = m.add_station(sta);
    m.set_link(sta_id, ap_id, link(p.loss_data, 0.0)?);
    m.set_link(ap_id, sta_id, link(p.loss_ack, p.ack_preamble_share)?);
    Ok((m, ap_id, sta_id))
}
