//! Device latency profiles: how long a modelled adapter takes to take a request from
//! the host to its AC queue, and to hand an outcome back. Zero by default (the emu
//! device is the medium itself); configured to model a given adapter.

use rand_core::RngCore;

/// A latency distribution (ns).
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Latency {
    /// Always this long.
    Fixed(u64),
    /// Uniform in [lo, hi].
    Uniform {
        /// Lower bound (ns).
        lo: u64,
        /// Upper bound (ns).
        hi: u64,
    },
}

impl Default for Latency {
    fn default() -> Self {
        Latency::Fixed(0)
    }
}

impl Latency {
    /// Draws one latency.
    pub fn sample(&self, rng: &mut impl RngCore) -> u64 {
        match *self {
            Latency::Fixed(v) => v,
            Latency::Uniform { lo, hi } if hi > lo => lo + rng.next_u64() % (hi - lo + 1),
            Latency::Uniform { lo, .. } => lo,
        }
    }

    /// Is it always zero?
    pub fn is_zero(&self) -> bool {
        matches!(*self, Latency::Fixed(0) | Latency::Uniform { lo: 0, hi: 0 })
    }

    /// Parses "0", "12.5" (µs), or "10-30" (uniform, µs).
    pub fn parse_us(s: &str) -> Result<Latency, String> {
        let us = |t: &str| -> Result<u64, String> {
            let v: f64 = t
                .trim()
                .parse()
                .map_err(|_| format!("latency {s:?}: {t:?} is not a number of microseconds"))?;
            if !(v >= 0.0 && v.is_finite() && v < 1e9) {
                return Err(format!("latency {s:?}: {v} µs is out of range"));
            }
            Ok((v * 1000.0).round() as u64)
        };
        match s.split_once('-') {
            Some((a, b)) => {
                let (lo, hi) = (us(a)?, us(b)?);
                if lo > hi {
                    return Err(format!("latency {s:?}: lower bound above upper bound"));
                }
                Ok(Latency::Uniform { lo, hi })
            }
            None => Ok(Latency::Fixed(us(s)?)),
        }
    }
}

/// The device's latencies on the request and confirmation paths.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct DeviceProfile {
    /// From the request reaching the device (t3) to the AC queue (t4).
    pub req: Latency,
    /// From the outcome at the MAC (t5) to the host (t7).
    pub con: Latency,
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_core::SeedableRng;

    #[test]
    fn parse_and_sample() {
        assert_eq!(Latency::parse_us("2.5").unwrap(), Latency::Fixed(2500));
        assert_eq!(
            Latency::parse_us("10-30").unwrap(),
            Latency::Uniform { lo: 10_000, hi: 30_000 }
        );
        assert!(Latency::parse_us("30-10").is_err());
        assert!(Latency::parse_us("-1").is_err());
        assert!(Latency::parse_us("fast").unwrap_err().contains("fast"));
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(1);
        let l = Latency::Uniform { lo: 10, hi: 20 };
        for _ in 0..1000 {
            let v = l.sample(&mut rng);
            assert!((10..=20).contains(&v));
        }
    }
}
