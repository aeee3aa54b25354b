//! The SDMAC paper's reference planes, mapped onto sdmac, and the latency
//! components derived from them.
//!
//! Every timestamp is a [`Time`] on `CLOCK_MONOTONIC` in nanoseconds (the same clock
//! as Python's `time.monotonic_ns()`); `Time::ZERO` means "not recorded".
//!
//! | plane | where it is taken |
//! |---|---|
//! | t1 | the application, just before `data_req` ([`crate::Interface`] takes it) |
//! | t2 | the first instruction of the backend's `data_req` |
//! | t3 | the request reaches the device (emu: the device thread takes it off its ring) |
//! | t4 | the frame is queued on the station's AC queue (t3 + the device's request latency) |
//! | t_start | the first attempt starts on air |
//! | t_last_start | the last attempt starts on air |
//! | t_data_end | the last attempt's DATA frame ends on air |
//! | t5 | the MAC knows the outcome: end of the ACK, end of the ACKTimeout, or end of a no-ack DATA |
//! | t7 | the outcome has crossed back to the host (t5 + the device's confirmation latency) |
//! | t8 | the confirmation is published on the interface's confirmation channel |
//! | t9 | `data_con` returns it to the application |
//!
//! Components (their sum is Tpath exactly):
//! - `Tsw_req` = t3 − t1: software on the request path (API, backend, hand-off).
//! - `Thw` = (t4 − t3) + (t7 − t5): the device's own latency — zero on emu unless a
//!   device-latency profile is configured.
//! - `Tca` = t_start − t4: channel access (AIFS and backoff when the medium was not idle
//!   long enough; zero on a quiet channel).
//! - `Ttoa` = t5 − t_start: time on air, from the first attempt's start to the outcome
//!   (DATA + SIFS + ACK when acked; DATA + ACKTimeout when the ACK never began).
//! - `Tsw_con` = t9 − t7: software on the confirmation path (publishing, waking the
//!   caller, `data_con`).
//! - `Tpath` = t9 − t1, and `TSDMAC` = Tpath − Ttoa (the paper's overhead of SDMAC).

use sdmac_types::Time;

/// Timestamps of one confirmed transmission (`CLOCK_MONOTONIC`; `Time::ZERO` = not
/// recorded).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Timestamps {
    /// Application, just before `data_req`.
    pub t1: Time,
    /// First instruction of the backend.
    pub t2: Time,
    /// The request reached the device.
    pub t3: Time,
    /// Queued on the station's AC queue.
    pub t4: Time,
    /// First attempt starts on air.
    pub t_start: Time,
    /// Last attempt starts on air.
    pub t_last_start: Time,
    /// Last DATA frame ends on air.
    pub t_data_end: Time,
    /// Outcome known at the MAC.
    pub t5: Time,
    /// Outcome back at the host.
    pub t7: Time,
    /// Confirmation published.
    pub t8: Time,
    /// `data_con` returned.
    pub t9: Time,
}

/// The names of the components, in report order.
pub const COMPONENT_NAMES: [&str; 7] =
    ["Tsw_req", "Thw", "Tca", "Ttoa", "Tsw_con", "TSDMAC", "Tpath"];

/// Latency components of one transmission (ns).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Components {
    /// t3 − t1.
    pub tsw_req: i64,
    /// (t4 − t3) + (t7 − t5).
    pub thw: i64,
    /// t_start − t4.
    pub tca: i64,
    /// t5 − t_start.
    pub ttoa: i64,
    /// t9 − t7.
    pub tsw_con: i64,
    /// Tpath − Ttoa.
    pub tsdmac: i64,
    /// t9 − t1.
    pub tpath: i64,
}

impl Components {
    /// The components in the order of [`COMPONENT_NAMES`].
    pub fn as_array(&self) -> [i64; 7] {
        [self.tsw_req, self.thw, self.tca, self.ttoa, self.tsw_con, self.tsdmac, self.tpath]
    }
}

impl Timestamps {
    /// The components, if every plane they need was recorded.
    pub fn components(&self) -> Option<Components> {
        let t = [self.t1, self.t3, self.t4, self.t_start, self.t5, self.t7, self.t9];
        if t.iter().any(|t| t.is_zero()) {
            return None;
        }
        let d = |a: Time, b: Time| b.signed_ns_since(a);
        let tpath = d(self.t1, self.t9);
        let ttoa = d(self.t_start, self.t5);
        Some(Components {
            tsw_req: d(self.t1, self.t3),
            thw: d(self.t3, self.t4) + d(self.t5, self.t7),
            tca: d(self.t4, self.t_start),
            ttoa,
            tsw_con: d(self.t7, self.t9),
            tsdmac: tpath - ttoa,
            tpath,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_add_up_to_tpath() {
        let t = Time::from_ns;
        let ts = Timestamps {
            t1: t(1_000),
            t2: t(1_100),
            t3: t(1_500),
            t4: t(2_500),
            t_start: t(2_500),
            t_last_start: t(2_500),
            t_data_end: t(38_500),
            t5: t(98_500),
            t7: t(99_000),
            t8: t(99_200),
            t9: t(100_000),
        };
        let c = ts.components().unwrap();
        assert_eq!(c.tsw_req, 500);
        assert_eq!(c.thw, 1_000 + 500);
        assert_eq!(c.tca, 0);
        assert_eq!(c.ttoa, 96_000);
        assert_eq!(c.tsw_con, 1_000);
        assert_eq!(c.tpath, 99_000);
        assert_eq!(c.tsdmac, 3_000);
        assert_eq!(c.tsw_req + c.thw + c.tca + c.ttoa + c.tsw_con, c.tpath);
        assert_eq!(Timestamps { t9: Time::ZERO, ..ts }.components(), None);
    }
}
