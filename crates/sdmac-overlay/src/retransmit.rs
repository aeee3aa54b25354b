//! Software retransmission policies (the SDMAC paper's Fig. 1): the overlay, not the
//! MAC, decides per packet how many attempts are made, how they are spaced and at
//! which rates, from the confirmation of each attempt.
//!
//! Each attempt is one `data_req` whose rate series (its tries, i.e. the MAC retry
//! limit of that request) the policy chooses, usually low; the overlay then reads
//! the confirmation and asks the [`Policy`] for the next [`Step`]. The driver,
//! [`Retransmitter`], never starts an attempt whose tries cannot all end before the
//! packet's deadline (the airtime of each try from the 802.11 formulas), so a packet
//! that can no longer make it is given up rather than sent late.
//!
//! Policies:
//! - [`MacRetries`]: one request with the MAC's own back-to-back retries (the
//!   baseline: the retry limit as given).
//! - [`FixedSpacing`]: a new request a fixed time after the previous one started.
//! - [`BeyondBurst`]: a new request once a gap at least as long as a set interference
//!   burst has passed since the previous one failed.
//! - [`DeadlineSpread`]: the requests left are spread evenly over the time left
//!   before the deadline.

use crate::exchange::{confirmation_of, mpdu_len, series_ns, wait_until};

/// How long the overlay waits for a request's confirmation before it reports the
/// backend as stuck.
pub const CONFIRMATION_LIMIT: Span = Span::from_secs(5);
use sdmac_api::{
    Ac, ApiError, Backend, Body, Confirmation, Interface, MacAddress, RateSeries, Span, Status,
    Time, TxAttrs, MAX_ID,
};
use sdmac_phy::Phy;
use std::fmt;

/// What a policy wants next.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Step {
    /// Request another attempt at `at` (now, if `at` has passed) with `rates`.
    Send {
        /// When to make the request (backend clock).
        at: Time,
        /// The request's rate series: its tries are the MAC retries of this request.
        rates: RateSeries,
    },
    /// Make no more attempts.
    GiveUp,
}

/// What a policy knows about the packet it is deciding for.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct PacketState {
    /// When the packet was handed to the overlay (backend clock).
    pub created: Time,
    /// Its absolute deadline.
    pub deadline: Time,
    /// Requests made so far.
    pub requests: u32,
    /// MAC attempts made so far, over all requests.
    pub attempts: u32,
}

/// A retransmission policy: decides the first request and, after each failed one,
/// the next.
pub trait Policy {
    /// The policy's name, for reports.
    fn name(&self) -> String;
    /// The first request.
    fn first(&mut self, p: &PacketState) -> Step;
    /// The request after `last` failed (it was not acked).
    fn next(&mut self, p: &PacketState, last: &Confirmation) -> Step;
}

/// Why a policy's parameters or a packet were refused.
#[derive(Clone, Debug, PartialEq)]
pub enum RetransmitError {
    /// A parameter is out of range.
    BadParameter {
        /// The policy.
        policy: &'static str,
        /// The parameter.
        what: &'static str,
        /// Why.
        reason: String,
    },
    /// The packet's deadline is not after now.
    DeadlinePast {
        /// The deadline given.
        deadline: Time,
        /// The backend's clock when it was given.
        now: Time,
    },
    /// Even the first request could not end before the deadline.
    DeadlineTooClose {
        /// Time left before the deadline.
        left: Span,
        /// The shortest time the first request takes on air.
        needed: Span,
    },
    /// The backend gave no confirmation for a request within [`CONFIRMATION_LIMIT`].
    NoConfirmation {
        /// The request.
        id: u64,
    },
    /// A primitive failed.
    Api(ApiError),
}

impl fmt::Display for RetransmitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RetransmitError::BadParameter { policy, what, reason } => {
                write!(f, "retransmission policy {policy}: {what} {reason}")
            }
            RetransmitError::DeadlinePast { deadline, now } => {
                write!(f, "the packet's deadline {deadline} is not after now ({now})")
            }
            RetransmitError::DeadlineTooClose { left, needed } => {
                write!(f, "the deadline is {left} away but the first request needs {needed} on air")
            }
            RetransmitError::NoConfirmation { id } => {
                write!(f, "no confirmation for request {id} within {CONFIRMATION_LIMIT}")
            }
            RetransmitError::Api(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for RetransmitError {}

impl From<ApiError> for RetransmitError {
    fn from(e: ApiError) -> Self {
        RetransmitError::Api(e)
    }
}

fn check_rates(policy: &'static str, rates: &RateSeries) -> Result<(), RetransmitError> {
    sdmac_api::check_tries(rates).map_err(|reason| RetransmitError::BadParameter {
        policy,
        what: "rates",
        reason,
    })
}

fn check_requests(policy: &'static str, requests: u32) -> Result<(), RetransmitError> {
    if requests == 0 {
        return Err(RetransmitError::BadParameter {
            policy,
            what: "requests",
            reason: "is 0 (at least one request is needed)".into(),
        });
    }
    Ok(())
}

fn check_span(policy: &'static str, what: &'static str, s: Span) -> Result<(), RetransmitError> {
    if s.is_zero() {
        return Err(RetransmitError::BadParameter {
            policy,
            what,
            reason: "is 0 (it must be positive)".into(),
        });
    }
    Ok(())
}

/// The moment a failed request's outcome was known (t5), or, where the backend did not
/// record it, the moment the confirmation was read.
fn failed_at(c: &Confirmation, now: Time) -> Time {
    if c.ts.t5.is_zero() {
        now
    } else {
        c.ts.t5
    }
}

/// The baseline: one request whose rate series carries the MAC's own back-to-back
/// retries (with its exponential backoff); no retransmission above the MAC.
#[derive(Clone, Debug, PartialEq)]
pub struct MacRetries {
    rates: RateSeries,
}

impl MacRetries {
    /// One request with `rates` (e.g. one rate with the retry limit as tries).
    pub fn new(rates: RateSeries) -> Result<MacRetries, RetransmitError> {
        check_rates("mac_retries", &rates)?;
        Ok(MacRetries { rates })
    }
}

impl Policy for MacRetries {
    fn name(&self) -> String {
        format!("mac_retries({})", sdmac_api::format_rate_series(&self.rates))
    }
    fn first(&mut self, p: &PacketState) -> Step {
        Step::Send { at: p.created, rates: self.rates }
    }
    fn next(&mut self, _: &PacketState, _: &Confirmation) -> Step {
        Step::GiveUp
    }
}

/// Up to `requests` requests, each starting `spacing` after the previous one started
/// on air.
#[derive(Clone, Debug, PartialEq)]
pub struct FixedSpacing {
    rates: RateSeries,
    requests: u32,
    spacing: Span,
}

impl FixedSpacing {
    /// `requests` requests of `rates`, `spacing` apart (first attempt to first attempt).
    pub fn new(
        rates: RateSeries,
        requests: u32,
        spacing: Span,
    ) -> Result<FixedSpacing, RetransmitError> {
        check_rates("fixed_spacing", &rates)?;
        check_requests("fixed_spacing", requests)?;
        check_span("fixed_spacing", "spacing", spacing)?;
        Ok(FixedSpacing { rates, requests, spacing })
    }
}

impl Policy for FixedSpacing {
    fn name(&self) -> String {
        format!("fixed_spacing({}x{})", self.requests, self.spacing)
    }
    fn first(&mut self, p: &PacketState) -> Step {
        Step::Send { at: p.created, rates: self.rates }
    }
    fn next(&mut self, p: &PacketState, last: &Confirmation) -> Step {
        if p.requests >= self.requests {
            return Step::GiveUp;
        }
        let started = if last.ts.t_start.is_zero() { last.ts.t1 } else { last.ts.t_start };
        Step::Send { at: started.saturating_add(self.spacing), rates: self.rates }
    }
}

/// Up to `requests` requests; after a failed one, the next waits until a gap of at
/// least `burst` has passed since the failure was known, so that a burst of
/// interference of that length which caused it is over.
#[derive(Clone, Debug, PartialEq)]
pub struct BeyondBurst {
    rates: RateSeries,
    requests: u32,
    burst: Span,
}

impl BeyondBurst {
    /// `requests` requests of `rates`, each retry at least `burst` after the failure.
    pub fn new(
        rates: RateSeries,
        requests: u32,
        burst: Span,
    ) -> Result<BeyondBurst, RetransmitError> {
        check_rates("beyond_burst", &rates)?;
        check_requests("beyond_burst", requests)?;
        check_span("beyond_burst", "burst", burst)?;
        Ok(BeyondBurst { rates, requests, burst })
    }
}

impl Policy for BeyondBurst {
    fn name(&self) -> String {
        format!("beyond_burst({}, burst {})", self.requests, self.burst)
    }
    fn first(&mut self, p: &PacketState) -> Step {
        Step::Send { at: p.created, rates: self.rates }
    }
    fn next(&mut self, p: &PacketState, last: &Confirmation) -> Step {
        if p.requests >= self.requests {
            return Step::GiveUp;
        }
        Step::Send { at: failed_at(last, p.created).saturating_add(self.burst), rates: self.rates }
    }
}

/// Up to `requests` requests spread over the time to the deadline: after a failure,
/// with `k` requests left, the next is made `(deadline − failure) / (k + 1)` later, so
/// the remaining requests are evenly spaced before the deadline whatever the length of
/// the burst that is hitting them.
#[derive(Clone, Debug, PartialEq)]
pub struct DeadlineSpread {
    rates: RateSeries,
    requests: u32,
}

impl DeadlineSpread {
    /// `requests` requests of `rates`, spread before the packet's deadline.
    pub fn new(rates: RateSeries, requests: u32) -> Result<DeadlineSpread, RetransmitError> {
        check_rates("deadline_spread", &rates)?;
        check_requests("deadline_spread", requests)?;
        Ok(DeadlineSpread { rates, requests })
    }
}

impl Policy for DeadlineSpread {
    fn name(&self) -> String {
        format!("deadline_spread({})", self.requests)
    }
    fn first(&mut self, p: &PacketState) -> Step {
        Step::Send { at: p.created, rates: self.rates }
    }
    fn next(&mut self, p: &PacketState, last: &Confirmation) -> Step {
        if p.requests >= self.requests {
            return Step::GiveUp;
        }
        let failed = failed_at(last, p.created);
        let left = u64::from(self.requests - p.requests);
        let gap = p.deadline.saturating_since(failed).as_ns() / (left + 1);
        Step::Send { at: failed.saturating_add(Span::from_ns(gap)), rates: self.rates }
    }
}

/// How a packet ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Fate {
    /// Acknowledged before its deadline.
    Delivered,
    /// Acknowledged, but after its deadline.
    Late,
    /// The policy gave up.
    GaveUp,
    /// The next attempt could not have ended before the deadline, so it was not made.
    DeadlineReached,
    /// The backend dropped a request (cancelled, refused, closed).
    Dropped,
}

/// The record of one packet.
#[derive(Clone, Debug, PartialEq)]
pub struct PacketReport {
    /// How it ended.
    pub fate: Fate,
    /// When it was handed to the overlay.
    pub created: Time,
    /// Its deadline.
    pub deadline: Time,
    /// When the ACK ended (t5 of the acked request), if it was acked.
    pub acked_at: Option<Time>,
    /// Requests made.
    pub requests: u32,
    /// MAC attempts made, over all requests.
    pub attempts: u32,
    /// The confirmation of every request, in order.
    pub confirmations: Vec<Confirmation>,
}

impl PacketReport {
    /// Acknowledged before the deadline.
    pub fn delivered(&self) -> bool {
        self.fate == Fate::Delivered
    }
}

/// Sends packets to one destination, each under a [`Policy`].
#[derive(Debug)]
pub struct Retransmitter<'a, B: Backend> {
    iface: &'a mut Interface<B>,
    phy: Phy,
    dst: MacAddress,
    ac: Ac,
    next_id: u64,
}

impl<'a, B: Backend> Retransmitter<'a, B> {
    /// Sends through `iface` (whose PHY is `phy`, for airtimes) to `dst` on `ac`; request
    /// ids start at `first_id`.
    pub fn new(
        iface: &'a mut Interface<B>,
        phy: Phy,
        dst: MacAddress,
        ac: Ac,
        first_id: u64,
    ) -> Retransmitter<'a, B> {
        Retransmitter { iface, phy, dst, ac, next_id: first_id }
    }

    /// The interface.
    pub fn iface(&mut self) -> &mut Interface<B> {
        self.iface
    }

    /// Sends `payload` under `policy` until it is acked, the policy gives up or the
    /// deadline leaves no room for another request; blocks until then. The deadline
    /// must be after now and leave room for the first request.
    pub fn send(
        &mut self,
        payload: &[u8],
        deadline: Time,
        policy: &mut dyn Policy,
    ) -> Result<PacketReport, RetransmitError> {
        let created = self.iface.now();
        if deadline <= created {
            return Err(RetransmitError::DeadlinePast { deadline, now: created });
        }
        let len = mpdu_len(payload.len());
        let mut st = PacketState { created, deadline, requests: 0, attempts: 0 };
        let mut report = PacketReport {
            fate: Fate::GaveUp,
            created,
            deadline,
            acked_at: None,
            requests: 0,
            attempts: 0,
            confirmations: Vec::new(),
        };
        let mut step = policy.first(&st);
        loop {
            let (at, rates) = match step {
                Step::GiveUp => break,
                Step::Send { at, rates } => (at, rates),
            };
            let needed = Span::from_ns(series_ns(&self.phy, len, &rates));
            let start = at.max(self.iface.now());
            if start.saturating_add(needed) > deadline {
                if st.requests == 0 {
                    return Err(RetransmitError::DeadlineTooClose {
                        left: deadline.saturating_since(start),
                        needed,
                    });
                }
                report.fate = Fate::DeadlineReached;
                break;
            }
            // Nothing of ours is outstanding, so a confirmation read meanwhile is not
            // this packet's.
            let _not_ours = wait_until(self.iface, at)?;
            let id = self.next_id;
            self.next_id = if self.next_id >= MAX_ID { 0 } else { self.next_id + 1 };
            let attrs = TxAttrs {
                dst: Some(self.dst),
                rates: Some(rates),
                no_ack: false,
                timestamps: true,
                not_before: None,
                not_after: None,
            };
            self.iface.data_req(id, Body::Payload(payload), self.ac, &attrs)?;
            let c = confirmation_of(self.iface, id, CONFIRMATION_LIMIT)?
                .ok_or(RetransmitError::NoConfirmation { id })?;
            st.requests += 1;
            st.attempts += u32::from(c.attempts);
            report.confirmations.push(c);
            match c.status {
                Status::Acked => {
                    let t = failed_at(&c, self.iface.now());
                    report.acked_at = Some(t);
                    report.fate = if t <= deadline { Fate::Delivered } else { Fate::Late };
                    break;
                }
                Status::Dropped(_) => {
                    report.fate = Fate::Dropped;
                    break;
                }
                _ => {}
            }
            step = policy.next(&st, &c);
        }
        report.requests = st.requests;
        report.attempts = st.attempts;
        Ok(report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sdmac_api::{Rate, Timestamps};

    fn r1() -> RateSeries {
        RateSeries::single(Rate::Ofdm54, 1)
    }

    #[test]
    fn bad_parameters_are_refused_naming_them() {
        let e = FixedSpacing::new(r1(), 0, Span::from_ms(1)).unwrap_err();
        assert!(e.to_string().contains("requests is 0"), "{e}");
        let e = FixedSpacing::new(r1(), 3, Span::ZERO).unwrap_err();
        assert!(e.to_string().contains("spacing is 0"), "{e}");
        let e = BeyondBurst::new(r1(), 3, Span::ZERO).unwrap_err();
        assert!(e.to_string().contains("burst is 0"), "{e}");
        let e = DeadlineSpread::new(r1(), 0).unwrap_err();
        assert!(e.to_string().contains("deadline_spread"), "{e}");
        let bad = RateSeries::single(Rate::Ofdm54, 16);
        let e = MacRetries::new(bad).unwrap_err();
        assert!(e.to_string().contains("16 tries"), "{e}");
    }

    fn failed(t_start: u64, t5: u64) -> Confirmation {
        Confirmation {
            id: 0,
            status: Status::AckTimeout,
            ac: Ac::Be,
            attempts: 1,
            rates: [(Rate::Ofdm54, 1); 4],
            n_rates: 1,
            len: 100,
            truth: None,
            ts: Timestamps {
                t1: Time::from_ns(t_start),
                t_start: Time::from_ns(t_start),
                t5: Time::from_ns(t5),
                ..Timestamps::default()
            },
        }
    }

    #[test]
    fn policies_space_their_requests_as_documented() {
        let p = PacketState {
            created: Time::from_ns(0),
            deadline: Time::from_ns(40_000_000),
            requests: 1,
            attempts: 1,
        };
        let c = failed(1_000_000, 1_100_000);
        let at = |s: Step| match s {
            Step::Send { at, .. } => at.as_ns(),
            Step::GiveUp => u64::MAX,
        };
        let mut f = FixedSpacing::new(r1(), 2, Span::from_ms(5)).unwrap();
        assert_eq!(at(f.next(&p, &c)), 6_000_000);
        assert_eq!(f.next(&PacketState { requests: 2, ..p }, &c), Step::GiveUp);
        let mut b = BeyondBurst::new(r1(), 3, Span::from_ms(20)).unwrap();
        assert_eq!(at(b.next(&p, &c)), 21_100_000);
        let mut d = DeadlineSpread::new(r1(), 4).unwrap();
        // 3 requests left over 38.9 ms: the next one a quarter of it later.
        assert_eq!(at(d.next(&p, &c)), 1_100_000 + 38_900_000 / 4);
        let mut m = MacRetries::new(RateSeries::single(Rate::Ofdm54, 7)).unwrap();
        assert_eq!(m.next(&p, &c), Step::GiveUp);
    }
}
