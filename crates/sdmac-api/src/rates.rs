//! Rate series as text: `RATE[xTRIES][,RATE[xTRIES]]...`, e.g. `54x1`,
//! `54x2,24x2,6x4` or `mcs7-40-sgix1`. Tries default to 1.

use sdmac_phy::Rate;
use sdmac_types::RateSeries;

/// Parses a rate series; the error names the entry that is wrong.
pub fn parse_rate_series(s: &str) -> Result<RateSeries, String> {
    let mut entries: Vec<(Rate, u8)> = Vec::new();
    for (i, part) in s.split(',').enumerate() {
        let part = part.trim();
        if part.is_empty() {
            return Err(format!("rate series {s:?}: entry {} is empty", i + 1));
        }
        let (rate_s, tries) = match part.rfind(['x', 'X']) {
            Some(k) if part[k + 1..].chars().all(|c| c.is_ascii_digit()) && k + 1 < part.len() => {
                let t: u32 = part[k + 1..]
                    .parse()
                    .map_err(|_| format!("rate series {s:?}: bad tries in {part:?}"))?;
                (&part[..k], t)
            }
            _ => (part, 1),
        };
        if !(1..=15).contains(&tries) {
            return Err(format!(
                "rate series {s:?}: entry {part:?} has {tries} tries (must be 1..=15)"
            ));
        }
        let rate: Rate =
            rate_s.trim().parse().map_err(|e| format!("rate series {s:?}: entry {part:?}: {e}"))?;
        entries.push((rate, tries as u8));
    }
    if entries.len() > 4 {
        return Err(format!("rate series {s:?} has {} entries (at most 4)", entries.len()));
    }
    RateSeries::new(&entries).ok_or_else(|| format!("rate series {s:?} is not valid"))
}

/// Most tries of one entry of a rate series (the 802.11 retry counters are 4 bits).
pub const MAX_TRIES: u8 = 15;

/// Checks that every entry of a rate series has 1..=15 tries.
pub fn check_tries(r: &RateSeries) -> Result<(), String> {
    match r.entries().iter().find(|(_, t)| *t == 0 || *t > MAX_TRIES) {
        Some((rate, t)) => Err(format!("entry {rate}x{t} has {t} tries (must be 1..={MAX_TRIES})")),
        None => Ok(()),
    }
}

/// Formats a rate series in the syntax `parse_rate_series` reads.
pub fn format_rate_series(r: &RateSeries) -> String {
    r.entries().iter().map(|(rate, t)| format!("{rate}x{t}")).collect::<Vec<_>>().join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        for s in ["54x1", "54x2,24x2,6x4", "6x1", "mcs7-40-sgix3"] {
            let r = parse_rate_series(s).unwrap();
            assert_eq!(parse_rate_series(&format_rate_series(&r)).unwrap(), r, "{s}");
        }
        assert_eq!(parse_rate_series("54").unwrap(), RateSeries::single(Rate::Ofdm54, 1));
    }

    #[test]
    fn errors_name_the_entry() {
        let e = parse_rate_series("54x1,7x1").unwrap_err();
        assert!(e.contains("\"7x1\""), "{e}");
        let e = parse_rate_series("54x0").unwrap_err();
        assert!(e.contains("0 tries"), "{e}");
        let e = parse_rate_series("54,48,36,24,18").unwrap_err();
        assert!(e.contains("5 entries"), "{e}");
        assert!(parse_rate_series("").is_err());
    }
}
