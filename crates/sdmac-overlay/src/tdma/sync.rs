//! TSF synchronisation from beacons.

use sdmac_api::{BeaconInd, FrameClass, Indication, Span, Time};

/// The largest drift (ppm) a fit takes: the TSF's ±100 ppm plus as much for the local
/// clock.
pub const MAX_DRIFT_PPM: f64 = 200.0;

/// TSF synchronisation from beacons.
///
/// Every beacon carries the AP's TSF (µs). For beacon `i`, let `l_i` be the local time
/// (`CLOCK_MONOTONIC`, ns) at which the backend saw it and `s_i = 1000 · tsf_i`. The
/// local clock and the TSF are modelled as `l = s + offset + drift · (s − s_0)`; the
/// offset and drift are fitted by least squares over the last `window` beacons. The
/// synchronisation error is the largest residual of the fit plus the TSF's resolution
/// (1 µs); with fewer than 3 beacons the drift is taken as 0. The drift is held within
/// [`MAX_DRIFT_PPM`]: 802.11 requires a TSF timer accurate to ±0.01 % (±100 ppm), and
/// the local clock is allowed as much again; a fit beyond that is the noise of the
/// beacons' times (a host that stamps late, a medium that delays a beacon), not a
/// clock, and extrapolating it would carry the noise far from the beacons.
///
/// The local time of a beacon is its start on air where the backend reports it (emu),
/// else its end on air (the linux and hwsim backends stamp the reception). The AP
/// stamps its TSF at a fixed point of the frame (802.11: the timestamp field's first
/// bit; emu: the frame's start; hwsim: its start plus the time the 24-byte header
/// takes), and a beacon's length and rate stay the same, so the delay from that point
/// to the local time is a constant common to every station that hears the AP: it
/// shifts every station's slots alike and does not separate them. What varies from
/// beacon to beacon (the medium's access delay, the host's stamping) shows in the
/// residuals, hence in the error.
///
/// The arithmetic is done relative to the first beacon of the window in integers, so
/// that a TSF near 2⁶⁴ ns (hwsim's counts from the Unix epoch) loses no precision.
#[derive(Clone, Debug, PartialEq)]
pub struct TsfSync {
    window: usize,
    samples: Vec<(u64, u64)>,
    /// (s_0, l_0, a, b): l − l_0 = (s − s_0) + a + b · (s − s_0).
    fit: Option<(u64, u64, f64, f64)>,
    error_ns: u64,
    observed: u64,
}

impl TsfSync {
    /// A synchroniser that fits over the last `window` beacons (at least 2).
    pub fn new(window: usize) -> TsfSync {
        TsfSync { window: window.max(2), samples: Vec::new(), fit: None, error_ns: 0, observed: 0 }
    }

    /// Adds a beacon whose TSF the backend reported (`tsf_us`), at its start on air, or
    /// at its end where the backend stamps only that; false if it had no TSF or no time.
    pub fn observe_beacon(&mut self, b: &BeaconInd) -> bool {
        let local = if b.t_start.is_zero() { b.t_end } else { b.t_start };
        match b.tsf_us {
            Some(tsf) if !local.is_zero() => {
                self.observe(tsf, local);
                true
            }
            _ => false,
        }
    }

    /// Adds a beacon received as a management frame (`rx_management` on): its TSF is
    /// read from the frame's timestamp field. False if the frame is not a beacon.
    pub fn observe_frame(&mut self, ind: &Indication, bytes: &[u8]) -> bool {
        if ind.class != FrameClass::Management || bytes.len() < 32 || bytes[0] != 0x80 {
            return false;
        }
        let local = if ind.rx.t_start.is_zero() { ind.rx.t_end } else { ind.rx.t_start };
        if local.is_zero() {
            return false;
        }
        let mut ts = [0u8; 8];
        ts.copy_from_slice(&bytes[24..32]);
        self.observe(u64::from_le_bytes(ts), local);
        true
    }

    /// Adds one (TSF µs, local time) pair.
    pub fn observe(&mut self, tsf_us: u64, local: Time) {
        self.samples.push((tsf_us.saturating_mul(1000), local.as_ns()));
        self.observed += 1;
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
        let (s0, l0) = self.samples[0];
        // x = s − s0, y = (l − l0) − (s − s0): small numbers, exact in f64.
        let pts: Vec<(f64, f64)> = self
            .samples
            .iter()
            .map(|&(s, l)| {
                let x = s as i128 - s0 as i128;
                let y = (l as i128 - l0 as i128) - x;
                (x as f64, y as f64)
            })
            .collect();
        let mx = pts.iter().map(|p| p.0).sum::<f64>() / n as f64;
        let my = pts.iter().map(|p| p.1).sum::<f64>() / n as f64;
        let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
        let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
        let max = MAX_DRIFT_PPM * 1e-6;
        let drift = if n >= 3 && sxx > 0.0 { (sxy / sxx).clamp(-max, max) } else { 0.0 };
        let a = my - drift * mx;
        let worst = pts.iter().map(|p| (p.1 - a - drift * p.0).abs()).fold(0.0, f64::max);
        self.fit = Some((s0, l0, a, drift));
        self.error_ns = worst.ceil() as u64 + 1000;
    }

    /// The TSF (ns) of every beacon in the window, oldest first.
    pub fn beacon_tsfs(&self) -> Vec<u64> {
        self.samples.iter().map(|&(s, _)| s).collect()
    }

    /// Beacons in the window.
    pub fn samples(&self) -> usize {
        self.samples.len()
    }

    /// Beacons observed since the start (the window keeps the last ones).
    pub fn observed(&self) -> u64 {
        self.observed
    }

    /// The synchronisation error (largest residual + 1 µs), once a beacon was seen.
    pub fn error(&self) -> Option<Span> {
        self.fit.map(|_| Span::from_ns(self.error_ns))
    }

    /// The fitted drift of the local clock against the TSF (ppm; positive: the local
    /// clock runs fast), once a beacon was seen.
    pub fn drift_ppm(&self) -> Option<f64> {
        self.fit.map(|(_, _, _, b)| b * 1e6)
    }

    /// The estimated local time − TSF (ns) at TSF `tsf_ns`.
    pub fn offset_at(&self, tsf_ns: u64) -> Option<f64> {
        let (s0, l0, a, b) = self.fit?;
        let x = tsf_ns as i128 - s0 as i128;
        Some((l0 as i128 - s0 as i128) as f64 + a + b * x as f64)
    }

    /// The local time of TSF instant `tsf_ns`.
    pub fn to_local(&self, tsf_ns: u64) -> Option<Time> {
        let (s0, l0, a, b) = self.fit?;
        let x = tsf_ns as i128 - s0 as i128;
        let l = l0 as i128 + x + (a + b * x as f64).round() as i128;
        Some(Time::from_ns(l.clamp(0, u64::MAX as i128) as u64))
    }

    /// The TSF instant (ns) of local time `local`: the inverse of [`TsfSync::to_local`].
    pub fn to_tsf(&self, local: Time) -> Option<u64> {
        let (s0, l0, a, b) = self.fit?;
        // l − l0 = x (1 + b) + a  ⇒  x = (l − l0 − a) / (1 + b).
        let d = local.as_ns() as i128 - l0 as i128;
        let x = d + ((d as f64 - a) / (1.0 + b) - d as f64).round() as i128;
        Some((s0 as i128 + x).clamp(0, u64::MAX as i128) as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tsf_counted_from_the_unix_epoch_keeps_its_nanoseconds() {
        // hwsim's TSF is CLOCK_REALTIME in µs plus an offset: ~1.8e18 ns, beyond f64's
        // exact integers. Local = TSF − 1.75e18 ns + 3 ns · (beacon number).
        let mut s = TsfSync::new(8);
        let base_us = 1_764_000_000_000_000u64;
        let off = 1_750_000_000_000_000_000u64;
        for i in 0..8u64 {
            let tsf = base_us + i * 102_400;
            s.observe(tsf, Time::from_ns(tsf * 1000 - off + 3 * i));
        }
        let t = (base_us + 20 * 102_400) * 1000;
        let want = t - off + 3 * 20;
        let got = s.to_local(t).unwrap().as_ns();
        assert!(got.abs_diff(want) <= 1, "{got} vs {want}");
        // The line fits exactly: the error is the TSF's resolution alone.
        assert_eq!(s.error(), Some(Span::from_ns(1000)));
        // The inverse gives the TSF back.
        assert!(s.to_tsf(Time::from_ns(got)).unwrap().abs_diff(t) <= 1);
        assert_eq!((s.observed(), s.samples()), (8, 8));
        assert_eq!(s.beacon_tsfs()[0], base_us * 1000);
    }

    #[test]
    fn a_beacon_without_a_start_time_counts_at_its_end() {
        let b = |t_start: u64, t_end: u64, tsf| BeaconInd {
            bssid: sdmac_api::MacAddress([2, 0, 0, 0, 0, 1]),
            seq: 1,
            t_start: Time::from_ns(t_start),
            t_end: Time::from_ns(t_end),
            t_published: Time::from_ns(t_end),
            signal_dbm: -40.0,
            tsf_us: tsf,
        };
        let mut s = TsfSync::new(4);
        assert!(!s.observe_beacon(&b(0, 5_000, None)));
        assert!(!s.observe_beacon(&b(0, 0, Some(7))));
        assert!(s.observe_beacon(&b(0, 5_000, Some(1))));
        assert_eq!(s.to_local(1000), Some(Time::from_ns(5_000)));
        assert!(s.observe_beacon(&b(9_000, 9_500, Some(4))));
        assert_eq!(s.observed(), 2);
    }
}

#[cfg(test)]
mod drift_tests {
    use super::*;

    #[test]
    fn noise_is_not_taken_for_a_drift_beyond_80211s_tolerance() {
        // Beacons every 102.4 ms stamped up to 14 ms late, the later ones later: a
        // straight fit would say about 10 % drift.
        let mut s = TsfSync::new(8);
        for i in 0..8u64 {
            let tsf = 1_000 + i * 102_400;
            s.observe(tsf, Time::from_ns(tsf * 1000 + 5_000_000_000 + i * 2_000_000));
        }
        assert!((s.drift_ppm().unwrap() - MAX_DRIFT_PPM).abs() < 1e-9, "{:?}", s.drift_ppm());
        // The error covers every beacon against the clamped line.
        let e = s.error().unwrap().as_ns();
        for i in 0..8u64 {
            let tsf_ns = (1_000 + i * 102_400) * 1000;
            let l = tsf_ns + 5_000_000_000 + i * 2_000_000;
            assert!(s.to_local(tsf_ns).unwrap().as_ns().abs_diff(l) <= e, "beacon {i}");
        }
    }
}
