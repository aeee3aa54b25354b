//! A station of the TDMA schedule: asks for a slot, then sends in it.

use super::control::{control_frame, parse_control, KIND_GRANT, KIND_REQUEST};
use super::error::TdmaError;
use super::guard::read_con;
use super::plan::TdmaPlan;
use crate::exchange::{confirmation_of, wait_until};
use sdmac_api::{
    Ac, Backend, Body, DropReason, FrameClass, Interface, MacAddress, RateSeries, Scope, Span,
    Status, Time, TxAttrs, Value, Wait,
};

/// How long before its window a station hands its first frame to a backend with timed
/// sends.
const TIMED_LEAD: Span = Span::from_ms(1);

/// What a station saw in its slots.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StationReport {
    /// Its slot.
    pub slot: u32,
    /// Data frames sent in slots.
    pub sent: u64,
    /// Of them, acknowledged.
    pub acked: u64,
    /// Attempts lost to collisions (from the confirmations' truth, where the backend
    /// knows it).
    pub collisions: u64,
    /// Frames withdrawn (cancelled while still queued) because their exchange could no
    /// longer end inside the slot.
    pub withdrawn: u64,
    /// Frames whose exchange started before their slot's window opened or ended after
    /// it closed (from the confirmation timestamps).
    pub outside_window: u64,
}

/// A station of the TDMA schedule.
#[derive(Debug)]
pub struct TdmaStation<'a, B: Backend> {
    iface: &'a mut Interface<B>,
    plan: TdmaPlan,
    coordinator: MacAddress,
    slot: Option<u32>,
    next_id: u64,
}

impl<'a, B: Backend> TdmaStation<'a, B> {
    /// A station on `iface` for `plan`, asking `coordinator` for its slot.
    pub fn new(
        iface: &'a mut Interface<B>,
        plan: TdmaPlan,
        coordinator: MacAddress,
    ) -> TdmaStation<'a, B> {
        TdmaStation { iface, plan, coordinator, slot: None, next_id: 1 }
    }

    /// The slot granted, once it is.
    pub fn slot(&self) -> Option<u32> {
        self.slot
    }

    /// Asks for a slot in the next contention periods, at most `rounds` of them;
    /// returns the slot granted.
    pub fn join(&mut self, rounds: u32) -> Result<u32, TdmaError> {
        // On a monitor interface (hwsim, linux) every frame on the channel comes up,
        // including grants the coordinator sends to other stations: only a grant
        // addressed to this interface counts.
        let own = match self.iface.get("address", Scope::Adapter) {
            Ok(Value::Mac(m)) => Some(m),
            _ => None,
        };
        let now = self.iface.now();
        let mut buf = Vec::with_capacity(2400);
        let first = self.plan.round_at(now);
        // Stations draw their offsets from their own address (or, without one, from
        // when they started), so that two stations draw apart.
        let seed =
            own.map_or(now.as_ns(), |m| m.0.iter().fold(0u64, |w, b| w << 8 | u64::from(*b)));
        for k in first..first + u64::from(rounds) {
            let (open, close) = self.plan.contention_window(k);
            let now = self.iface.now();
            if now + self.plan.control > close {
                continue;
            }
            // One attempt, started early enough to end inside this contention period
            // (`control` is one attempt's exchange): a request that collides is asked
            // again in a later period rather than retried into the slots. A frame
            // handed to an idle medium goes without backoff, so stations that all ask
            // at the opening would collide in every period: each asks a random number
            // of slot times after it.
            let latest = close.saturating_sub(self.plan.control);
            let at = open.saturating_add(contention_offset(&self.plan, seed, k)).min(latest);
            let timed = self.iface.timed_sends();
            let _not_ours = wait_until(self.iface, if timed { open } else { at })?;
            let attrs = TxAttrs {
                dst: Some(self.coordinator),
                rates: Some(RateSeries::single(self.plan.params().rate, 1)),
                not_before: timed.then_some(at),
                not_after: timed.then_some(latest),
                ..TxAttrs::default()
            };
            let id = self.take_id();
            self.iface.data_req(
                id,
                Body::Payload(&control_frame(KIND_REQUEST, 0)),
                Ac::Be,
                &attrs,
            )?;
            if !contention_frame_acked(self.iface, id, latest)? {
                continue;
            }
            // The grant comes in this contention period or a later one: wait until the
            // next one closes.
            let until = self.plan.contention_window(k + 1).1;
            loop {
                let now = self.iface.now();
                if now >= until {
                    break;
                }
                let w: std::time::Duration = (until - now).into();
                let w = w.min(std::time::Duration::from_millis(1));
                let Some(ind) = self.iface.data_ind(&mut buf, Wait::For(w))? else { continue };
                if ind.class != FrameClass::Data
                    || ind.src != self.coordinator
                    || own.is_some_and(|m| ind.dst != m)
                {
                    continue;
                }
                if let Some((KIND_GRANT, s)) = parse_control(&buf[ind.payload_offset..]) {
                    while self.iface.data_con(Wait::NoWait)?.is_some() {}
                    self.slot = Some(s);
                    return Ok(s);
                }
            }
        }
        Err(TdmaError::NoGrant { rounds })
    }

    fn take_id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// Sends `payload` to the coordinator in its slot of every round from the next
    /// one until `end`, as many exchanges as fit (saturating load), one at a time.
    pub fn run_until(&mut self, payload: &[u8], end: Time) -> Result<StationReport, TdmaError> {
        let slot = self.slot.ok_or(TdmaError::NoGrant { rounds: 0 })?;
        let mut rep = StationReport { slot, ..Default::default() };
        let attrs = TxAttrs {
            dst: Some(self.coordinator),
            rates: Some(RateSeries::single(self.plan.params().rate, 1)),
            no_ack: false,
            timestamps: true,
            not_before: None,
            not_after: None,
        };
        let mut k = self.plan.round_at(self.iface.now()) + 1;
        // With timed sends the first frame of a slot is handed over this long before the
        // window opens, and the backend holds it until it does: the host's wake-up
        // latency no longer decides when the exchange starts.
        let timed = self.iface.timed_sends();
        let lead = if timed { TIMED_LEAD } else { Span::ZERO };
        loop {
            let (open, close) = self.plan.slot_window(k, slot);
            if close > end {
                break;
            }
            let _not_ours = wait_until(self.iface, open.saturating_sub(lead))?;
            // The latest moment an exchange can start and still end in the window.
            let latest = close.saturating_sub(self.plan.exchange);
            let mut withdrawn_here = false;
            loop {
                let now = self.iface.now();
                let at = if timed { now.max(open) } else { now };
                if at < open || at > latest || withdrawn_here {
                    break;
                }
                let id = self.take_id();
                let attrs = if timed {
                    TxAttrs { not_before: Some(open), not_after: Some(latest), ..attrs }
                } else {
                    attrs
                };
                self.iface.data_req(id, Body::Payload(payload), Ac::Be, &attrs)?;
                // Without timed sends, a frame not finished by `latest` is withdrawn if
                // it is still queued, so that a late request never spills into the next
                // slot. A timed frame is the backend's to keep in the window: wait for
                // its outcome, cancelling only if it never comes.
                let left = if timed {
                    close.saturating_since(self.iface.now()).saturating_add(Span::from_ms(200))
                } else {
                    latest.saturating_since(self.iface.now())
                };
                let c = match confirmation_of(self.iface, id, left)? {
                    Some(c) => c,
                    None => {
                        self.iface.cancel(id)?;
                        read_con(self.iface, id)?
                    }
                };
                if matches!(c.status, Status::Dropped(DropReason::Cancelled | DropReason::Late)) {
                    rep.withdrawn += 1;
                    withdrawn_here = timed;
                    continue;
                }
                rep.sent += 1;
                if c.status == Status::Acked {
                    rep.acked += 1;
                }
                if let Some(t) = c.truth {
                    rep.collisions += u64::from(t.collisions);
                }
                if c.ts.t_start < open || (!c.ts.t5.is_zero() && c.ts.t5 > close) {
                    rep.outside_window += 1;
                }
            }
            k = (self.plan.round_at(self.iface.now()) + 1).max(k + 1);
        }
        Ok(rep)
    }
}

/// Waits for the outcome of contention-period frame `id`, which must start by `latest`
/// to end inside its period: withdrawn (cancelled) if it is still queued then, so that
/// it never spills into the slots. True if it was acknowledged.
pub(super) fn contention_frame_acked<B: Backend>(
    iface: &mut Interface<B>,
    id: u64,
    latest: Time,
) -> Result<bool, TdmaError> {
    let c = match confirmation_of(iface, id, latest.saturating_since(iface.now()))? {
        Some(c) => c,
        None => {
            // Still queued: withdrawn; already on air: its one attempt ends in time.
            iface.cancel(id)?;
            read_con(iface, id)?
        }
    };
    Ok(c.status == Status::Acked)
}

/// How long after its contention period `k` opens a station with `seed` asks for a
/// slot: a whole number of slot times from 0 to CWmin, drawn afresh each period
/// (SplitMix64 of the seed and the period).
fn contention_offset(plan: &TdmaPlan, seed: u64, k: u64) -> Span {
    let mut z = seed ^ k.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    let phy = &plan.params().phy;
    Span::from_ns(z % (u64::from(phy.cw_min) + 1) * phy.slot_ns)
}
