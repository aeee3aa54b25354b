//! The coordinator: grants slots in the contention period and counts what it receives.

use super::control::{control_frame, parse_control, KIND_GRANT, KIND_REQUEST};
use super::error::TdmaError;
use super::plan::TdmaPlan;
use sdmac_api::{
    Ac, Backend, Body, FrameClass, Interface, MacAddress, RateSeries, Time, TxAttrs, Wait,
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
    next_id: u64,
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
            // Drain confirmations of grants.
            while self.iface.data_con(Wait::NoWait)?.is_some() {}
            let left: std::time::Duration = (end - now).into();
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

    fn send_grants(&mut self, now: Time) -> Result<(), TdmaError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let k = self.plan.round_at(now);
        let (open, close) = self.plan.contention_window(k);
        if now < open || now + self.plan.control > close {
            return Ok(());
        }
        let (dst, slot) = self.pending.remove(0);
        let attrs = TxAttrs {
            dst: Some(dst),
            rates: Some(RateSeries::single(self.plan.params().rate, 4)),
            ..TxAttrs::default()
        };
        let id = self.next_id;
        self.next_id += 1;
        self.iface.data_req(id, Body::Payload(&control_frame(KIND_GRANT, slot)), Ac::Be, &attrs)?;
        Ok(())
    }
}
