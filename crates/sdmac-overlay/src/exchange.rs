//! The time one frame exchange takes on air, from the IEEE 802.11 TXTIME formulas
//! (`sdmac-phy`), and waiting for a moment on the backend's clock.

use sdmac_api::{Backend, Confirmation, Interface, RateSeries, Span, Time, Wait};
use sdmac_phy::{Phy, Rate};

/// Bytes a payload gains on air when the backend builds the frame: a QoS data header
/// (26), LLC/SNAP (8) and the FCS (4). A non-QoS header is 2 bytes shorter, so this
/// bounds both.
pub const PAYLOAD_OVERHEAD: u32 = 26 + 8 + 4;

/// Bytes on air (MPDU with FCS) of a payload of `payload` bytes, at most.
pub fn mpdu_len(payload: usize) -> u32 {
    payload as u32 + PAYLOAD_OVERHEAD
}

/// One try of a unicast exchange at `rate`, without channel access: the DATA frame,
/// then the longer of SIFS + ACK (acked) and the ACKTimeout (not acked).
pub fn try_ns(phy: &Phy, len: u32, rate: Rate) -> u64 {
    let data = phy.airtime_ns(len, rate);
    let acked = phy.sifs_ns + phy.ack_airtime_ns(rate);
    data + acked.max(phy.ack_timeout_ns())
}

/// Every try of `rates` back to back, each after DIFS and with no backoff: the
/// shortest time the whole series can take when every try fails.
pub fn series_ns(phy: &Phy, len: u32, rates: &RateSeries) -> u64 {
    rates.entries().iter().map(|&(r, t)| u64::from(t) * (phy.difs_ns() + try_ns(phy, len, r))).sum()
}

/// Blocks until `at` on the interface's clock, by waiting for confirmations. Returns
/// the confirmations that arrived meanwhile, so that the caller decides what they mean.
pub fn wait_until<B: Backend>(
    iface: &mut Interface<B>,
    at: Time,
) -> Result<Vec<Confirmation>, sdmac_api::ApiError> {
    let mut got = Vec::new();
    loop {
        let now = iface.now();
        if now >= at {
            return Ok(got);
        }
        if let Some(c) = iface.data_con(Wait::For((at - now).into()))? {
            got.push(c);
        }
    }
}

/// Reads confirmations until the one of request `id`, waiting at most `limit` in all.
/// Others read meanwhile are discarded. `None` if it did not come in time.
pub fn confirmation_of<B: Backend>(
    iface: &mut Interface<B>,
    id: u64,
    limit: Span,
) -> Result<Option<Confirmation>, sdmac_api::ApiError> {
    let end = iface.now().saturating_add(limit);
    loop {
        let now = iface.now();
        if now >= end {
            return Ok(None);
        }
        match iface.data_con(Wait::For((end - now).into()))? {
            Some(c) if c.id == id => return Ok(Some(c)),
            _ => continue,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sdmac_phy::Standard;

    #[test]
    fn one_try_follows_the_txtime_formulas() {
        // 802.11a, 100 B at 54 Mb/s: 20 µs preamble + ceil((16+800+6)/216)=4 symbols of
        // 4 µs = 36 µs; ACK at 24 Mb/s: 20 + ceil((16+112+6)/96)=2 symbols = 28 µs;
        // SIFS 16 µs, ACKTimeout 16 + 9 + 25 = 50 µs > 16 + 28.
        let phy = Phy::new(Standard::Dot11a);
        assert_eq!(phy.airtime_ns(100, Rate::Ofdm54), 36_000);
        let t = try_ns(&phy, 100, Rate::Ofdm54);
        assert_eq!(t, 36_000 + phy.ack_timeout_ns().max(16_000 + phy.ack_airtime_ns(Rate::Ofdm54)));
        let s = series_ns(&phy, 100, &RateSeries::single(Rate::Ofdm54, 3));
        assert_eq!(s, 3 * (phy.difs_ns() + t));
    }
}
