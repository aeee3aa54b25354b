//! The truth about each frame the daemon answers (sdmac's extension of the control
//! socket): built when the frame's status is, only while some client subscribes.
//! Times here are on the daemon's clock; the loop adds its origin (CLOCK_MONOTONIC)
//! before the records leave.

use crate::address::Mac;
use crate::medium_io::{ac_of, InFlight, StatusEcho, UNHEARD_SIGNAL_DBM};
use crate::refusal::Cause as Refusal;
use sdmac_control::ext::{Attempts, TruthCause, TruthOutcome, TruthRecord};
use sdmac_frame::ieee80211::Frame;
use sdmac_medium::{Cause, Outcome, Time, TxReport};
use sdmac_phy::Rate;

/// (TA, RA, sequence control) of a frame; zero where it has none.
fn addresses(frame: &[u8]) -> (Mac, Mac, u16) {
    match Frame::new_checked(frame) {
        Ok(f) => (f.addr2().unwrap_or(Mac::ZERO), f.addr1(), f.seq_ctrl().unwrap_or(0)),
        Err(_) => (Mac::ZERO, Mac::ZERO, 0),
    }
}

fn outcome(o: Outcome) -> TruthOutcome {
    match o {
        Outcome::Acked => TruthOutcome::Acked,
        Outcome::DataLost => TruthOutcome::DataLost,
        Outcome::AckLost => TruthOutcome::AckLost,
        Outcome::NoAck => TruthOutcome::NoAck,
        Outcome::Dropped => TruthOutcome::Dropped,
    }
}

fn cause(c: Cause) -> TruthCause {
    match c {
        Cause::None => TruthCause::None,
        Cause::Collision => TruthCause::Collision,
        Cause::LowSinr => TruthCause::LowSinr,
        Cause::OutOfRange => TruthCause::OutOfRange,
        Cause::HalfDuplex => TruthCause::HalfDuplex,
        Cause::ReceiverBusy => TruthCause::ReceiverBusy,
        Cause::LinkErrorProb => TruthCause::LinkErrorProb,
        Cause::PreambleMissed => TruthCause::PreambleMissed,
        Cause::QueueFull => TruthCause::QueueFull,
        Cause::Cancelled => TruthCause::Cancelled,
    }
}

/// The cause a refused frame's record gives.
pub(crate) fn refusal_cause(c: Refusal) -> TruthCause {
    match c {
        Refusal::Malformed => TruthCause::Malformed,
        Refusal::NoUsableRate | Refusal::RateSkipped => TruthCause::NoUsableRate,
        Refusal::Engine => TruthCause::EngineRefused,
    }
}

/// The rate entries as the status reports them: the kernel's index, the attempts
/// made at each (`attempts`), the rate.
fn entries(echo: &StatusEcho, kbps: &[u32; 4], attempts: &[u8]) -> (u8, [Attempts; 4]) {
    let mut out = [Attempts::default(); 4];
    let n = attempts.len().min(4);
    for (k, e) in out.iter_mut().enumerate().take(n) {
        *e = Attempts { rate_idx: echo.rate_idx[k], count: attempts[k], kbps: kbps[k] };
    }
    (n as u8, out)
}

/// The rate of each of the kernel's entries (kb/s; 0 where the channel does not
/// carry it).
pub(crate) fn kbps_of(
    rates: &[(Rate, u8)],
    carried: impl Fn(Rate) -> bool,
    sent_at: impl Fn(Rate) -> Rate,
) -> [u32; 4] {
    let mut k = [0u32; 4];
    for (slot, &(r, _)) in k.iter_mut().zip(rates) {
        if carried(r) {
            *slot = sent_at(r).kbps();
        }
    }
    k
}

/// The record of a frame the engine reported: `attempts` per kernel entry and
/// `signal_dbm` are what its status says.
pub(crate) fn of_report(
    f: &InFlight,
    r: &TxReport,
    attempts: &[u8],
    signal_dbm: i32,
) -> TruthRecord {
    let (ta, ra, seq_ctrl) = addresses(&f.bytes);
    let (n_entries, attempts) = entries(&f.echo, &f.kbps, attempts);
    TruthRecord {
        lost: 0,
        transmitter: f.transmitter,
        ta,
        ra,
        seq_ctrl,
        cookie: f.cookie,
        ac: r.ac as u8,
        no_ack: f.no_ack,
        delivered: r.delivered,
        outcome: outcome(r.outcome),
        cause: cause(r.cause),
        n_entries,
        attempts,
        t_arrival_ns: f.arrived,
        t_first_start_ns: r.t_first_start.as_ns(),
        t_end_ns: r.t_done.as_ns(),
        signal_dbm: signal_dbm.clamp(-128, 127) as i8,
    }
}

/// What a frame never carried (refused when it came, or in flight at shutdown) is
/// recorded as: dropped, no attempt.
#[allow(clippy::too_many_arguments)]
pub(crate) fn not_carried(
    transmitter: Mac,
    frame: &[u8],
    cookie: u64,
    no_ack: bool,
    echo: &StatusEcho,
    kbps: &[u32; 4],
    n_rates: usize,
    why: TruthCause,
    arrived: Time,
    t: Time,
) -> TruthRecord {
    let (ta, ra, seq_ctrl) = addresses(frame);
    let (n_entries, attempts) = entries(echo, kbps, &[0; 4][..n_rates.clamp(1, 4)]);
    TruthRecord {
        lost: 0,
        transmitter,
        ta,
        ra,
        seq_ctrl,
        cookie,
        ac: ac_of(frame) as u8,
        no_ack,
        delivered: false,
        outcome: TruthOutcome::Dropped,
        cause: why,
        n_entries,
        attempts,
        t_arrival_ns: arrived,
        t_first_start_ns: t,
        t_end_ns: t,
        signal_dbm: UNHEARD_SIGNAL_DBM as i8,
    }
}
