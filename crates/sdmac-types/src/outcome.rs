//! How a transmission ended ([`Outcome`]) and why a frame was not received ([`Cause`]):
//! the truth on air, as a medium reports it.

/// How a transmission request ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// A: acknowledged.
    Acked,
    /// LD: the last attempt's DATA frame was not received by its destination.
    DataLost,
    /// LA: the last attempt's DATA frame was received, but its ACK was lost.
    AckLost,
    /// Sent without acknowledgement (broadcast or no-ack); see `delivered` for the truth.
    NoAck,
    /// Never sent: the queue was full, or the request was cancelled.
    Dropped,
}

impl Outcome {
    /// Short name: `A`, `LD`, `LA`, `NOACK`, `DROP`.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Acked => "A",
            Outcome::DataLost => "LD",
            Outcome::AckLost => "LA",
            Outcome::NoAck => "NOACK",
            Outcome::Dropped => "DROP",
        }
    }
}

/// Why a frame was not received.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Cause {
    /// Nothing went wrong.
    None,
    /// Another transmission overlapped it at the receiver.
    Collision,
    /// The error model rejected it at its SINR without overlapping transmissions.
    LowSinr,
    /// Below the receiver's sensitivity, or no receiver had the address.
    OutOfRange,
    /// The receiver was transmitting.
    HalfDuplex,
    /// The receiver was already receiving another frame.
    ReceiverBusy,
    /// A configured per-link error probability dropped it (`LinkOverride::error_prob`:
    /// preamble detected, body corrupted).
    LinkErrorProb,
    /// The receiver missed the frame's preamble because of a configured per-link
    /// probability (`LinkOverride::preamble_error_prob`): it never locked onto it.
    PreambleMissed,
    /// The queue was full.
    QueueFull,
    /// Cancelled by the caller before it was sent.
    Cancelled,
}

impl Cause {
    /// Short name for reports.
    pub fn name(self) -> &'static str {
        match self {
            Cause::None => "none",
            Cause::Collision => "collision",
            Cause::LowSinr => "low_sinr",
            Cause::OutOfRange => "out_of_range",
            Cause::HalfDuplex => "half_duplex",
            Cause::ReceiverBusy => "receiver_busy",
            Cause::LinkErrorProb => "link_error_prob",
            Cause::PreambleMissed => "preamble_missed",
            Cause::QueueFull => "queue_full",
            Cause::Cancelled => "cancelled",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        let o: Vec<&str> =
            [Outcome::Acked, Outcome::DataLost, Outcome::AckLost, Outcome::NoAck, Outcome::Dropped]
                .map(Outcome::name)
                .to_vec();
        assert_eq!(o, ["A", "LD", "LA", "NOACK", "DROP"]);
        assert_eq!(Cause::LinkErrorProb.name(), "link_error_prob");
        assert_eq!(Cause::None.name(), "none");
    }
}
