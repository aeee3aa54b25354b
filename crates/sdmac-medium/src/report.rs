//! What the engine tells the world: the outcome of every transmission (with the truth
//! on air), every received frame, and every frame on air.
//!
//! Times in these reports are `sdmac_types::Time` on the medium's clock (ns since the
//! medium started); counters ([`MediumStats`]) stay plain ns.

use crate::config::{Ac, Dest, StationId};
use crate::time::at;
use sdmac_phy::Rate;
use sdmac_types::Time;

pub use sdmac_types::{Cause, Outcome};

/// The outcome of one transmission request.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct TxReport {
    /// Sending station.
    pub station: StationId,
    /// The caller's handle.
    pub handle: u64,
    /// Destination.
    pub dst: Dest,
    /// Access category.
    pub ac: Ac,
    /// MPDU length in bytes.
    pub len: u32,
    /// The station's traffic flow that generated it (None for frames given by a caller).
    pub flow: Option<u16>,
    /// Outcome of the request.
    pub outcome: Outcome,
    /// Why the last attempt failed (None when acked).
    pub cause: Cause,
    /// Was the DATA frame received by its destination in any attempt (the truth, also
    /// for no-ack frames)?
    pub delivered: bool,
    /// Attempts made.
    pub attempts: u8,
    /// Attempts made at each rate, in order.
    pub rates: [(Rate, u8); 4],
    /// Number of valid entries in `rates`.
    pub n_rates: u8,
    /// Attempts that failed because of a collision.
    pub collisions: u8,
    /// When the frame entered the queue.
    pub t_queued: Time,
    /// Start on air of the first attempt (== t_done when never sent).
    pub t_first_start: Time,
    /// Start on air of the last attempt.
    pub t_last_start: Time,
    /// End on air of the last attempt's DATA frame.
    pub t_data_end: Time,
    /// When the sender knew the outcome (ACK end, ACKTimeout, or DATA end for no-ack).
    pub t_done: Time,
}

impl TxReport {
    /// The report of a request that never went on air (refused or cancelled at `t`).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn not_sent(
        station: StationId,
        handle: u64,
        dst: Dest,
        ac: Ac,
        len: u32,
        flow: Option<u16>,
        first_rate: Rate,
        cause: Cause,
        t_queued: u64,
        t: u64,
    ) -> TxReport {
        let (t_queued, t) = (at(t_queued), at(t));
        TxReport {
            station,
            handle,
            dst,
            ac,
            len,
            flow,
            outcome: Outcome::Dropped,
            cause,
            delivered: false,
            attempts: 0,
            rates: [(first_rate, 0); 4],
            n_rates: 0,
            collisions: 0,
            t_queued,
            t_first_start: t,
            t_last_start: t,
            t_data_end: t,
            t_done: t,
        }
    }
}

/// Kind of a received or transmitted frame.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum FrameKind {
    /// A data frame (or any frame submitted by a caller).
    Data,
    /// An acknowledgement.
    Ack,
    /// A beacon.
    Beacon,
}

/// A frame received by a station.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct RxIndication {
    /// Receiving station.
    pub station: StationId,
    /// Sending station.
    pub from: StationId,
    /// The sender's handle of the frame.
    pub handle: u64,
    /// Kind of frame.
    pub kind: FrameKind,
    /// Access category it was sent on.
    pub ac: Ac,
    /// MPDU length.
    pub len: u32,
    /// Rate.
    pub rate: Rate,
    /// Received power.
    pub signal_dbm: f64,
    /// Signal to noise ratio (without interference).
    pub snr_db: f64,
    /// Start on air.
    pub t_start: Time,
    /// End on air (the receiver has the frame now).
    pub t_end: Time,
    /// A retransmission of a frame this station already received.
    pub duplicate: bool,
    /// Was it sent to this station (else broadcast)?
    pub unicast: bool,
}

/// One frame on air, reported when it ends (for captures).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct AirRecord {
    /// Sending station.
    pub station: StationId,
    /// Kind of frame.
    pub kind: FrameKind,
    /// Destination (for an ACK, the station acknowledged).
    pub dst: Dest,
    /// The sender's handle (for an ACK, the handle acknowledged).
    pub handle: u64,
    /// MPDU length.
    pub len: u32,
    /// Rate.
    pub rate: Rate,
    /// Start on air.
    pub t_start: Time,
    /// End on air.
    pub t_end: Time,
    /// Duration/ID field (NAV) in µs.
    pub duration_us: u16,
    /// Sequence number.
    pub seq: u16,
    /// Retransmission flag.
    pub retry: bool,
    /// Access category.
    pub ac: Ac,
    /// Did the destination (or, for broadcast, any station) receive it?
    pub received: bool,
}

/// Receives what a medium reports while it runs.
pub trait Sink {
    /// A transmission request finished.
    fn tx_done(&mut self, report: &TxReport);
    /// A station received a frame.
    fn rx(&mut self, indication: &RxIndication);
    /// A frame ended on air (only called when `wants_air` says so); called before the
    /// outcome this frame decides (a no-ack frame's `tx_done`) is reported.
    fn air(&mut self, _record: &AirRecord) {}
    /// Should `air` be called? Checked once per frame.
    fn wants_air(&self) -> bool {
        false
    }
}

/// A sink that collects everything in vectors (for tests and small tools).
#[derive(Default, Debug)]
pub struct Collect {
    /// Finished transmissions.
    pub tx: Vec<TxReport>,
    /// Received frames.
    pub rx: Vec<RxIndication>,
    /// Frames on air.
    pub air: Vec<AirRecord>,
    /// Whether to record frames on air.
    pub record_air: bool,
}

impl Sink for Collect {
    fn tx_done(&mut self, report: &TxReport) {
        self.tx.push(*report);
    }
    fn rx(&mut self, indication: &RxIndication) {
        self.rx.push(*indication);
    }
    fn air(&mut self, record: &AirRecord) {
        self.air.push(*record);
    }
    fn wants_air(&self) -> bool {
        self.record_air
    }
}

/// Counters of one medium.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct MediumStats {
    /// The medium's time the counters are at (`Medium::now`; ahead of its driver's
    /// clock while it runs ahead).
    pub at_ns: u64,
    /// Events processed.
    pub events: u64,
    /// Time with at least one frame on air.
    pub busy_ns: u64,
    /// Time with at least one frame queued or in its exchange at some station: the
    /// medium had work. Saturated, it equals the elapsed time even though `busy_ns`
    /// cannot (AIFS, backoff and SIFS are idle air).
    pub backlog_ns: u64,
    /// Airtime of DATA + ACK frames per AC (overlaps counted per frame).
    pub airtime_ns: [u64; 4],
    /// Airtime of beacons.
    pub beacon_airtime_ns: u64,
    /// DATA attempts per AC.
    pub attempts: [u64; 4],
    /// Retransmissions per AC.
    pub retries: [u64; 4],
    /// Requests acked per AC.
    pub acked: [u64; 4],
    /// Requests that failed after their last attempt per AC.
    pub failed: [u64; 4],
    /// Requests dropped from (or refused by) a full queue per AC.
    pub dropped: [u64; 4],
    /// DATA attempts lost to collisions per AC.
    pub collisions: [u64; 4],
    /// Beacons sent.
    pub beacons: u64,
}

/// Counters of one station (see `Medium::station_stats`). Every [`TxReport`] of the
/// station counts in exactly one of `tx_acked`, `tx_failed`, `tx_no_ack` and
/// `tx_dropped`; beacons are not counted on the sending side.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct StationStats {
    /// Requests accepted into a queue (by `Medium::enqueue` or a traffic flow), plus flow
    /// frames refused by a full queue (they get a `Dropped` report). Requests refused
    /// with an error by `enqueue` are not counted.
    pub tx_requests: u64,
    /// DATA attempts put on air (first attempts and retries).
    pub tx_attempts: u64,
    /// Requests acknowledged (outcome A).
    pub tx_acked: u64,
    /// Requests that failed after their last attempt (outcomes LD and LA).
    pub tx_failed: u64,
    /// Requests sent without acknowledgement (broadcast or no-ack).
    pub tx_no_ack: u64,
    /// Requests that never went on air: refused by a full queue (flows) or cancelled.
    pub tx_dropped: u64,
    /// Retransmissions (attempts after the first of a request).
    pub tx_retries: u64,
    /// Data frames received (unicast to this station or broadcast), duplicates included.
    pub rx_frames: u64,
    /// Beacons received.
    pub rx_beacons: u64,
    /// Received unicast data frames that repeated the previous one from the same sender.
    pub rx_duplicates: u64,
}
