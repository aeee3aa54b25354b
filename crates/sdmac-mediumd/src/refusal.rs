//! Frames the medium does not carry, and rate entries of a frame it skips: why,
//! counted per cause, and each cause reported on stderr once (at log level 4 or
//! more; the default is 6).
//!
//! A frame is carried at the entries of its rate series the channel's PHY has; the
//! others are skipped (the kernel is told 0 attempts for them). Only a frame with no
//! usable entry is refused (answered as not acknowledged, nothing delivered).

use core::fmt;
use sdmac_phy::Rate;
use std::sync::atomic::{AtomicU8, Ordering};

/// Why a frame, or one rate entry of it, was not carried.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Cause {
    /// The frame is no 802.11 frame (shorter than its header).
    Malformed,
    /// None of the frame's rate entries is carried by the channel's PHY (or the
    /// series has no attempt at all).
    NoUsableRate,
    /// The engine refused the frame (e.g. a length it cannot carry).
    Engine,
    /// One rate entry was skipped; the frame went at the others.
    RateSkipped,
}

impl Cause {
    fn bit(self) -> u8 {
        match self {
            Cause::Malformed => 1,
            Cause::NoUsableRate => 2,
            Cause::Engine => 4,
            Cause::RateSkipped => 8,
        }
    }

    /// The counter's name in the statistics.
    pub fn name(self) -> &'static str {
        match self {
            Cause::Malformed => "malformed",
            Cause::NoUsableRate => "no_usable_rate",
            Cause::Engine => "engine",
            Cause::RateSkipped => "rates_skipped",
        }
    }
}

/// Refusals per cause, and rate entries skipped.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Refusals {
    /// Frames shorter than an 802.11 header.
    pub malformed: u64,
    /// Frames none of whose rate entries the channel carries.
    pub no_usable_rate: u64,
    /// Frames the engine refused.
    pub engine: u64,
    /// Rate entries skipped in frames that were carried at their other entries.
    pub rates_skipped: u64,
}

impl Refusals {
    /// Counts one refusal (or skipped entry) for `cause`.
    pub fn count(&mut self, cause: Cause) {
        match cause {
            Cause::Malformed => self.malformed += 1,
            Cause::NoUsableRate => self.no_usable_rate += 1,
            Cause::Engine => self.engine += 1,
            Cause::RateSkipped => self.rates_skipped += 1,
        }
    }

    /// Adds `o` to these counts.
    pub fn add(&mut self, o: Refusals) {
        self.malformed += o.malformed;
        self.no_usable_rate += o.no_usable_rate;
        self.engine += o.engine;
        self.rates_skipped += o.rates_skipped;
    }

    /// The counts as a JSON object.
    pub fn json(&self) -> String {
        format!(
            "{{\"malformed\": {}, \"no_usable_rate\": {}, \"engine\": {}, \"rates_skipped\": {}}}",
            self.malformed, self.no_usable_rate, self.engine, self.rates_skipped
        )
    }
}

static LOG_LEVEL: AtomicU8 = AtomicU8::new(6);
static REPORTED: AtomicU8 = AtomicU8::new(0);

/// Sets the log level refusals are reported at (`-l`).
pub fn set_log_level(level: u8) {
    LOG_LEVEL.store(level, Ordering::Relaxed);
}

/// Reports `cause` with `what` on stderr the first time it happens in this process
/// (at log level 4 or more); returns whether it did.
pub fn report_once(cause: Cause, what: impl FnOnce() -> String) -> bool {
    if LOG_LEVEL.load(Ordering::Relaxed) < 4
        || REPORTED.fetch_or(cause.bit(), Ordering::Relaxed) & cause.bit() != 0
    {
        return false;
    }
    eprintln!("sdmac-mediumd: {} (counted as {}; reported once)", what(), cause.name());
    true
}

/// A rate entry for a message: hwsim's undecodable entries are carried as a 0 kb/s
/// custom rate (see the `kernel_msg` module).
pub struct RateName(pub Rate);

impl fmt::Display for RateName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            UNDECODABLE => f.write_str("an entry hwsim's rate tables do not hold"),
            r => write!(f, "{r}"),
        }
    }
}

/// What a `TX_INFO` entry that does not decode becomes in a frame's rate series: an
/// invalid rate, never carried, keeping the entry's place so attempts are reported
/// against the kernel's own entries.
pub const UNDECODABLE: Rate = Rate::Custom { kbps: 0 };

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_add_up_and_print_as_json() {
        let mut a = Refusals::default();
        a.count(Cause::NoUsableRate);
        a.count(Cause::RateSkipped);
        a.count(Cause::RateSkipped);
        let mut b = Refusals { malformed: 1, ..Refusals::default() };
        b.add(a);
        assert_eq!(b, Refusals { malformed: 1, no_usable_rate: 1, engine: 0, rates_skipped: 2 });
        assert_eq!(
            b.json(),
            "{\"malformed\": 1, \"no_usable_rate\": 1, \"engine\": 0, \"rates_skipped\": 2}"
        );
        assert_eq!(RateName(UNDECODABLE).to_string(), "an entry hwsim's rate tables do not hold");
        assert_eq!(RateName(Rate::Ht { mcs: 7, bw40: true, sgi: false }).to_string(), "mcs7-40");
    }

    #[test]
    fn each_cause_is_reported_once() {
        // At the default level; the first call may come from another test of the
        // process, the second never reports.
        let first = report_once(Cause::Engine, || "a test refusal".into());
        assert!(!report_once(Cause::Engine, || unreachable!("formatted again after {first}")));
    }
}
