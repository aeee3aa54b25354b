//! A truth record of the daemon's control socket, as the joiner takes it.

use super::join::{FrameKey, Record};
use sdmac_api::{Cause, MacAddress, Outcome, Time};
use sdmac_control::ext::{TruthCause, TruthOutcome, TruthRecord};

/// The record of a frame `me` sent (its TA), reduced for the joiner; None for
/// another transmitter's frame.
pub fn of_truth(r: &TruthRecord, me: MacAddress) -> Option<Record> {
    if r.ta != me {
        return None;
    }
    let outcome = outcome(r.outcome);
    Some(Record {
        key: FrameKey { ra: r.ra, seq_ctrl: r.seq_ctrl },
        outcome,
        cause: cause(r.cause),
        delivered: r.delivered,
        attempts: r.total_attempts(),
        t_start: if outcome == Outcome::Dropped {
            Time::ZERO
        } else {
            Time::from_ns(r.t_first_start_ns)
        },
        t_end: Time::from_ns(r.t_end_ns),
    })
}

/// The daemon's outcome as the API's.
pub fn outcome(o: TruthOutcome) -> Outcome {
    match o {
        TruthOutcome::Acked => Outcome::Acked,
        TruthOutcome::DataLost => Outcome::DataLost,
        TruthOutcome::AckLost => Outcome::AckLost,
        TruthOutcome::NoAck => Outcome::NoAck,
        TruthOutcome::Dropped => Outcome::Dropped,
    }
}

/// The daemon's cause as the API's. The daemon's own reasons for not carrying a
/// frame (malformed, no usable rate, refused by the engine) have no API cause: they
/// come with outcome `DROP` and cause `none`; a frame still in flight at the
/// daemon's shutdown is `cancelled`.
pub fn cause(c: TruthCause) -> Cause {
    match c {
        TruthCause::None => Cause::None,
        TruthCause::Collision => Cause::Collision,
        TruthCause::LowSinr => Cause::LowSinr,
        TruthCause::OutOfRange => Cause::OutOfRange,
        TruthCause::HalfDuplex => Cause::HalfDuplex,
        TruthCause::ReceiverBusy => Cause::ReceiverBusy,
        TruthCause::LinkErrorProb => Cause::LinkErrorProb,
        TruthCause::PreambleMissed => Cause::PreambleMissed,
        TruthCause::QueueFull => Cause::QueueFull,
        TruthCause::Cancelled | TruthCause::Shutdown => Cause::Cancelled,
        TruthCause::Malformed | TruthCause::NoUsableRate | TruthCause::EngineRefused => Cause::None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sdmac_control::ext::Attempts;

    fn truth(ta: MacAddress) -> TruthRecord {
        TruthRecord {
            lost: 0,
            transmitter: MacAddress([0x42, 0, 0, 0, 0, 0]),
            ta,
            ra: MacAddress([2, 0, 0, 0, 1, 0]),
            seq_ctrl: 0x120,
            cookie: 9,
            ac: 1,
            no_ack: false,
            delivered: false,
            outcome: TruthOutcome::DataLost,
            cause: TruthCause::LinkErrorProb,
            n_entries: 1,
            attempts: [
                Attempts { rate_idx: 7, count: 1, kbps: 54_000 },
                Attempts::default(),
                Attempts::default(),
                Attempts::default(),
            ],
            t_arrival_ns: 100,
            t_first_start_ns: 150,
            t_end_ns: 231,
            signal_dbm: -30,
        }
    }

    #[test]
    fn own_frames_only_with_their_key_and_times() {
        let me = MacAddress([2, 0, 0, 0, 0, 0]);
        let r = of_truth(&truth(me), me).expect("ours");
        assert_eq!(r.key, FrameKey { ra: MacAddress([2, 0, 0, 0, 1, 0]), seq_ctrl: 0x120 });
        assert_eq!((r.outcome, r.cause, r.attempts), (Outcome::DataLost, Cause::LinkErrorProb, 1));
        assert_eq!((r.t_start.as_ns(), r.t_end.as_ns()), (150, 231));
        assert!(of_truth(&truth(MacAddress([2, 0, 0, 0, 3, 0])), me).is_none());
    }
}
