//! The coordinator: grants slots in the contention period and counts what it receives.

use super::control::{control_frame, parse_control, KIND_GRANT, KIND_REQUEST};
use super::error::TdmaError;
use super::plan::TdmaPlan;
use sdmac_api::{
    Ac, Backend, Body, FrameClass, Interface, MacAddress, RateSeries, Status, Time, TxAttrs, Wait,
};

/// What the coordinator saw.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CoordinatorReport {
    /// The stations granted a slot, by slot.
    pub granted: Vec<MacAddress>,
    /// Requests refused because every slot was taken.
    pub refused: u32,
    /// Data frames received (not counting requests), per slot.
    pub received: Vec<u64>,
}

/// The coordinator: grants slots to stations that ask in a contention period, and
/// counts what it receives.
#[derive(Debug)]
pub struct Coordinator<'a, B: Backend> {
    iface: &'a mut Interface<B>,
    plan: TdmaPlan,
    report: CoordinatorReport,
    pending: Vec<(MacAddress, u32)>,
    /// The grant on its way: its id, station, slot, the latest time it may start
    /// (withdrawn if still queued then), and whether it was withdrawn.
    outstanding: Option<Outstanding>,
    next_id: u64,
}

/// A grant handed to the backend and not yet confirmed.
#[derive(Clone, Copy, Debug)]
struct Outstanding {
    id: u64,
    dst: MacAddress,
    slot: u32,
    latest: Time,
    cancelled: bool,
}

impl<'a, B: Backend> Coordinator<'a, B> {
    /// A coordinator on `iface` for `plan`.
    pub fn new(iface: &'a mut Interface<B>, plan: TdmaPlan) -> Coordinator<'a, B> {
        let n = plan.params().slots as usize;
        Coordinator {
            iface,
            plan,
            report: CoordinatorReport { received: vec![0; n], ..Default::default() },
            pending: Vec::new(),
            outstanding: None,
            next_id: 1,
        }
    }

    /// Serves requests and counts frames until `end` (backend clock). Grants are sent
    /// only inside a contention period, where they fit.
    pub fn run_until(&mut self, end: Time) -> Result<&CoordinatorReport, TdmaError> {
        let mut buf = Vec::with_capacity(2400);
        loop {
            let now = self.iface.now();
            if now >= end {
                break;
            }
            self.send_grants(now)?;
            self.follow_grant(now)?;
            let mut left: std::time::Duration = (end - now).into();
            if let Some(o) = self.outstanding.filter(|o| !o.cancelled) {
                left = left.min(o.latest.saturating_since(now).into());
            }
            let wait = left.min(std::time::Duration::from_micros(500));
            let Some(ind) = self.iface.data_ind(&mut buf, Wait::For(wait))? else { continue };
            if ind.class != FrameClass::Data || ind.duplicate {
                continue;
            }
            let payload = &buf[ind.payload_offset.min(buf.len())..];
            match parse_control(payload) {
                Some((KIND_REQUEST, _)) => self.request(ind.src),
                Some(_) => {}
                None => {
                    if let Some(s) = self.report.granted.iter().position(|a| *a == ind.src) {
                        self.report.received[s] += 1;
                    }
                }
            }
        }
        Ok(&self.report)
    }

    fn request(&mut self, src: MacAddress) {
        let slot = match self.report.granted.iter().position(|a| *a == src) {
            Some(s) => s as u32,
            None if self.report.granted.len() < self.plan.params().slots as usize => {
                self.report.granted.push(src);
                (self.report.granted.len() - 1) as u32
            }
            None => {
                self.report.refused += 1;
                return;
            }
        };
        if !self.pending.iter().any(|(a, _)| *a == src) {
            self.pending.push((src, slot));
        }
    }

    /// Sends the first pending grant, one at a time, in one attempt that can end
    /// inside the contention period under way (so that it never spills into the
    /// slots); one that fails goes back to the head of the queue for a later period.
    fn send_grants(&mut self, now: Time) -> Result<(), TdmaError> {
        if self.pending.is_empty() || self.outstanding.is_some() {
            return Ok(());
        }
        let k = self.plan.round_at(now);
        let (open, close) = self.plan.contention_window(k);
        if now < open || now + self.plan.control > close {
            return Ok(());
        }
        let latest = close.saturating_sub(self.plan.control);
        let (dst, slot) = self.pending.remove(0);
        let attrs = TxAttrs {
            dst: Some(dst),
            rates: Some(RateSeries::single(self.plan.params().rate, 1)),
            not_after: self.iface.timed_sends().then_some(latest),
            ..TxAttrs::default()
        };
        let id = self.next_id;
        self.next_id += 1;
        self.iface.data_req(id, Body::Payload(&control_frame(KIND_GRANT, slot)), Ac::Be, &attrs)?;
        self.outstanding = Some(Outstanding { id, dst, slot, latest, cancelled: false });
        Ok(())
    }

    /// Reads the grant's confirmation (a grant not acknowledged is queued again), and
    /// withdraws it if it is still queued at the latest time it may start.
    fn follow_grant(&mut self, now: Time) -> Result<(), TdmaError> {
        while let Some(c) = self.iface.data_con(Wait::NoWait)? {
            let Some(o) = self.outstanding.filter(|o| o.id == c.id) else { continue };
            self.outstanding = None;
            if c.status != Status::Acked && !self.pending.iter().any(|(a, _)| *a == o.dst) {
                self.pending.insert(0, (o.dst, o.slot));
            }
        }
        if let Some(o) = self.outstanding.as_mut() {
            if !o.cancelled && now >= o.latest {
                // Still queued: withdrawn (its confirmation then says so); already on
                // air: its one attempt ends in time.
                o.cancelled = true;
                self.iface.cancel(o.id)?;
            }
        }
        Ok(())
    }
}
