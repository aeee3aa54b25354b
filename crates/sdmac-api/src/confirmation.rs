//! What `data_con` returns.

use crate::timestamps::Timestamps;
use sdmac_phy::Rate;
use sdmac_types::{Ac, Cause, Outcome};

/// Why a request never went (completely) on air.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum DropReason {
    /// Cancelled by the caller while it was queued.
    Cancelled,
    /// Another packet with the same id was still queued.
    DuplicateId,
    /// The device refused it (e.g. a rate it cannot send).
    Refused,
    /// The session closed before it was sent.
    Closed,
    /// It could not be handed to channel access by its `not_after` time.
    Late,
}

impl DropReason {
    /// Short name.
    pub fn name(self) -> &'static str {
        match self {
            DropReason::Cancelled => "cancelled",
            DropReason::DuplicateId => "duplicate_id",
            DropReason::Refused => "refused",
            DropReason::Closed => "closed",
            DropReason::Late => "late",
        }
    }
}

/// The outcome a real adapter can report.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// An ACK was received.
    Acked,
    /// No ACK after the last attempt.
    AckTimeout,
    /// Sent without expecting an ACK.
    Sent,
    /// Handed to the adapter, but the adapter never reported its outcome within the
    /// backend's report timeout (linux: no TX-status echo came back). Whether it went
    /// on air, and whether it was acknowledged, is unknown.
    NoReport,
    /// Never sent, or not completely.
    Dropped(DropReason),
}

impl Status {
    /// Short name: `acked`, `ack_timeout`, `sent`, `no_report`, `dropped`.
    pub fn name(self) -> &'static str {
        match self {
            Status::Acked => "acked",
            Status::AckTimeout => "ack_timeout",
            Status::Sent => "sent",
            Status::NoReport => "no_report",
            Status::Dropped(_) => "dropped",
        }
    }
}

/// What really happened on air (known on emulated media only).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Truth {
    /// A (acked), LD (DATA lost), LA (ACK lost), NOACK or DROP.
    pub outcome: Outcome,
    /// Why the last attempt failed.
    pub cause: Cause,
    /// Did the destination receive the DATA frame in any attempt?
    pub delivered: bool,
    /// Attempts lost to collisions.
    pub collisions: u8,
}

/// The confirmation of one `data_req`.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Confirmation {
    /// The caller's id.
    pub id: u64,
    /// The outcome as the adapter knows it.
    pub status: Status,
    /// Access category it was sent on.
    pub ac: Ac,
    /// Attempts made.
    pub attempts: u8,
    /// Attempts made at each rate, in order (`n_rates` valid entries).
    pub rates: [(Rate, u8); 4],
    /// Valid entries in `rates`.
    pub n_rates: u8,
    /// MPDU length on air (bytes, with FCS).
    pub len: u32,
    /// The truth on air, when the backend knows it (emu).
    pub truth: Option<Truth>,
    /// Timestamps (all 0 when the request asked for none).
    pub ts: Timestamps,
}

impl Confirmation {
    /// The rate series actually used: (rate, attempts) entries.
    pub fn rates_used(&self) -> &[(Rate, u8)] {
        &self.rates[..self.n_rates as usize]
    }

    /// The paper's outcome set: "A", "LD", "LA" (or "NOACK" / "DROP"), from the truth
    /// when known, else from the status ("A" or "L"; "UNKNOWN" for `NoReport`).
    pub fn set_name(&self) -> &'static str {
        match (self.truth, self.status) {
            (Some(t), _) => t.outcome.name(),
            (None, Status::Acked) => "A",
            (None, Status::AckTimeout) => "L",
            (None, Status::Sent) => "NOACK",
            (None, Status::NoReport) => "UNKNOWN",
            (None, Status::Dropped(_)) => "DROP",
        }
    }
}
