//! TSF synchronisation from beacons.

use sdmac_api::{BeaconInd, FrameClass, Indication, Span, Time};

/// TSF synchronisation from beacons.
///
/// Every beacon carries the AP's TSF (µs). For beacon `i`, let `l_i` be the local time
/// (`CLOCK_MONOTONIC`, ns) at which its frame started on air, as the backend reports
/// it, and `s_i = 1000 · tsf_i`. The local clock and the TSF are modelled as
/// `l = s + offset + drift · (s − s_0)`; the offset and drift are fitted by least
/// squares over the last `window` beacons. The synchronisation error is the largest
/// residual of the fit plus the TSF's resolution (1 µs); with fewer than 3 beacons the
/// drift is taken as 0. A constant delay between the frame start and the moment the
/// AP stamped the TSF (802.11 stamps the timestamp field's first bit; emu stamps the
/// frame start) is the same for every station that hears the AP, so it shifts every
/// station's slots alike and does not separate them.
#[derive(Clone, Debug, PartialEq)]
pub struct TsfSync {
    window: usize,
    samples: Vec<(u64, u64)>,
    fit: Option<(f64, f64, f64)>,
    error_ns: u64,
}

impl TsfSync {
    /// A synchroniser that fits over the last `window` beacons (at least 2).
    pub fn new(window: usize) -> TsfSync {
        TsfSync { window: window.max(2), samples: Vec::new(), fit: None, error_ns: 0 }
    }

    /// Adds a beacon whose TSF the backend reported (`tsf_us`); false if it had none.
    pub fn observe_beacon(&mut self, b: &BeaconInd) -> bool {
        match b.tsf_us {
            Some(tsf) => {
                self.observe(tsf, b.t_start);
                true
            }
            None => false,
        }
    }

    /// Adds a beacon received as a management frame (`rx_management` on): its TSF is
    /// read from the frame's timestamp field. False if the frame is not a beacon.
    pub fn observe_frame(&mut self, ind: &Indication, bytes: &[u8]) -> bool {
        if ind.class != FrameClass::Management || bytes.len() < 32 || bytes[0] != 0x80 {
            return false;
        }
        let mut ts = [0u8; 8];
        ts.copy_from_slice(&bytes[24..32]);
        self.observe(u64::from_le_bytes(ts), ind.rx.t_start);
        true
    }

    /// Adds one (TSF µs, local frame start) pair.
    pub fn observe(&mut self, tsf_us: u64, local: Time) {
        self.samples.push((tsf_us * 1000, local.as_ns()));
        if self.samples.len() > self.window {
            self.samples.remove(0);
        }
        self.refit();
    }

    fn refit(&mut self) {
        let n = self.samples.len();
        if n == 0 {
            return;
        }
        let (s0, _) = self.samples[0];
        // Offsets l − s relative to the first sample's, as functions of s − s0.
        let pts: Vec<(f64, f64)> =
            self.samples.iter().map(|&(s, l)| ((s - s0) as f64, l as f64 - s as f64)).collect();
        let mx = pts.iter().map(|p| p.0).sum::<f64>() / n as f64;
        let my = pts.iter().map(|p| p.1).sum::<f64>() / n as f64;
        let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
        let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
        let drift = if n >= 3 && sxx > 0.0 { sxy / sxx } else { 0.0 };
        let offset = my - drift * mx;
        let worst = pts.iter().map(|p| (p.1 - offset - drift * p.0).abs()).fold(0.0, f64::max);
        self.fit = Some((s0 as f64, offset, drift));
        self.error_ns = worst.ceil() as u64 + 1000;
    }

    /// Beacons in the window.
    pub fn samples(&self) -> usize {
        self.samples.len()
    }

    /// The synchronisation error (largest residual + 1 µs), once a beacon was seen.
    pub fn error(&self) -> Option<Span> {
        self.fit.map(|_| Span::from_ns(self.error_ns))
    }

    /// The estimated local time − TSF (ns) at TSF `tsf_ns`.
    pub fn offset_at(&self, tsf_ns: u64) -> Option<f64> {
        let (s0, offset, drift) = self.fit?;
        Some(offset + drift * (tsf_ns as f64 - s0))
    }

    /// The local time of TSF instant `tsf_ns`.
    pub fn to_local(&self, tsf_ns: u64) -> Option<Time> {
        let o = self.offset_at(tsf_ns)?;
        Some(Time::from_ns((tsf_ns as f64 + o).round().max(0.0) as u64))
    }
}
