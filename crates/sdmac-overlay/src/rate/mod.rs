//! Rate adaptation in user space, Minstrel-like, driven by confirmations.
//!
//! [`Minstrel`] keeps, per destination, a table with one row per candidate rate: the
//! attempts and successes reported by confirmations ([`Minstrel::confirm`]) and, every
//! update interval of backend time, an exponentially weighted moving average (EWMA) of
//! the success probability. A rate's throughput estimate is its probability times the
//! bits of a frame over the time one attempt takes: DIFS, the mean backoff of CWmin,
//! the DATA frame, SIFS and the ACK, all from the IEEE 802.11 airtime formulas of
//! `sdmac-phy`. A rate never tried counts as certain (so the table starts from the top
//! and descends), and one below 10 % as carrying nothing.
//!
//! Each packet gets a rate series ([`Minstrel::series`]): best throughput, second best
//! throughput, best probability, lowest rate (a rate already in the series is not
//! repeated). A share of packets ([`MinstrelConfig::sample_share`]) instead probes a
//! rate drawn at random, with one try, ahead of the best; a rate whose throughput could
//! not beat the best's even if every attempt succeeded is not probed. The draws come
//! from a generator seeded by [`MinstrelConfig::seed`], so the same confirmations give
//! the same series.
//!
//! [`run`] drives one interface with a saturated queue for a time, under the adaptation
//! or a fixed series, optionally changing the transmit power (the `tx_power` attribute)
//! at set moments to move the link, and reports what was delivered per phase.

mod config;
mod error;
mod minstrel;
mod run;
#[cfg(test)]
mod tests;

pub use config::MinstrelConfig;
pub use error::RateError;
pub use minstrel::{Decision, Minstrel, RateStat};
pub use run::{run, Phase, Policy, RatePlan, RateRun};
