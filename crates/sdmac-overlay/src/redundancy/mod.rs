//! Seamless redundancy (Wi-Red): every packet goes on two (or more) interfaces, each on
//! its own channel, so that one channel's loss is covered by the other's.
//!
//! The sender ([`RedundantSender`]) prefixes each payload with a small header (magic
//! `WR` and a 64-bit sequence number, [`HEADER_LEN`] bytes) and queues one copy per
//! interface, with the sequence number as the request id on each. When one copy is
//! acknowledged, the copies still queued on the other interfaces are cancelled
//! ([`sdmac_api::Interface::cancel`]); a copy already on air cannot be, and goes out.
//! The airtime saved is counted from the IEEE 802.11 airtime of each cancelled copy
//! (one attempt: DATA at the copy's first rate, SIFS and the ACK).
//!
//! The receiver ([`RedundantReceiver`]) reads every interface and passes each sequence
//! number up once ([`DuplicateFilter`]): the application never sees a duplicate.
//!
//! [`run`] drives a sender and a receiver through a plan of packets and returns a
//! [`RunReport`]: delivered, lost, latency percentiles, copies on air, copies
//! cancelled and airtime saved. [`Mode::OneChannel`] is the baseline on the first
//! interface only; [`Mode::TwoChannels`] sends every copy; [`Mode::TwoChannelsCancel`]
//! cancels the copies no longer needed.

mod error;
mod header;
mod receiver;
mod run;
mod sender;
#[cfg(test)]
mod tests;

pub use error::RedundancyError;
pub use header::{decode, encode, HEADER_LEN, MAGIC, MAX_APP_PAYLOAD};
pub use receiver::{Delivered, DuplicateFilter, ReceiverStats, RedundantReceiver};
pub use run::{run, Percentiles, RunPlan, RunReport};
pub use sender::{Mode, RedundantSender, SenderConfig, SenderStats};
