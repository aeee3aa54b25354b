//! The rate series of a transmission: up to four (rate, tries) entries.

use sdmac_phy::Rate;

/// Up to four (rate, tries) entries: attempt k uses the entry it falls in. Two series
/// are equal when their entries are.
#[derive(Copy, Clone, Debug, Eq)]
pub struct RateSeries {
    entries: [(Rate, u8); 4],
    len: u8,
}

impl PartialEq for RateSeries {
    fn eq(&self, other: &RateSeries) -> bool {
        self.entries() == other.entries()
    }
}

impl RateSeries {
    /// One rate for up to `tries` attempts.
    pub fn single(rate: Rate, tries: u8) -> RateSeries {
        RateSeries { entries: [(rate, tries.max(1)); 4], len: 1 }
    }

    /// A series of up to four entries; entries with zero tries are skipped.
    /// Returns None when no entry has a try or more than four are given.
    pub fn new(entries: &[(Rate, u8)]) -> Option<RateSeries> {
        let mut s = RateSeries { entries: [(Rate::Ofdm6, 0); 4], len: 0 };
        for &(r, t) in entries {
            if t == 0 {
                continue;
            }
            if s.len == 4 {
                return None;
            }
            s.entries[s.len as usize] = (r, t);
            s.len += 1;
        }
        (s.len > 0).then_some(s)
    }

    /// The entries.
    pub fn entries(&self) -> &[(Rate, u8)] {
        &self.entries[..self.len as usize]
    }

    /// Total attempts allowed.
    pub fn total_tries(&self) -> u32 {
        self.entries().iter().map(|e| e.1 as u32).sum()
    }

    /// Rate of attempt `k` (0-based), None past the last try.
    pub fn rate_of_attempt(&self, k: u32) -> Option<Rate> {
        let mut left = k;
        for &(r, t) in self.entries() {
            if left < t as u32 {
                return Some(r);
            }
            left -= t as u32;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attempts_walk_the_entries() {
        let s = RateSeries::new(&[(Rate::Ofdm54, 2), (Rate::Ofdm24, 0), (Rate::Ofdm6, 1)]).unwrap();
        assert_eq!(s.entries(), &[(Rate::Ofdm54, 2), (Rate::Ofdm6, 1)]);
        assert_eq!(s.total_tries(), 3);
        let rates: Vec<Option<Rate>> = (0..4).map(|k| s.rate_of_attempt(k)).collect();
        assert_eq!(rates, [Some(Rate::Ofdm54), Some(Rate::Ofdm54), Some(Rate::Ofdm6), None]);
        assert_eq!(RateSeries::new(&[(Rate::Ofdm6, 0)]), None);
        assert_eq!(RateSeries::new(&[(Rate::Ofdm6, 1); 5]), None);
        assert_eq!(RateSeries::single(Rate::Ofdm6, 0).total_tries(), 1);
        // Equal when the entries are, whatever the unused slots hold.
        assert_eq!(
            RateSeries::single(Rate::Ofdm54, 1),
            RateSeries::new(&[(Rate::Ofdm54, 1)]).unwrap()
        );
    }
}
