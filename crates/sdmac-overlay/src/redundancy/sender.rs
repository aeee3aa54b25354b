//! The sending side: one copy per interface, and cancelling the copies no longer needed.

use super::error::{api, check_channels, RedundancyError};
use super::header::{encode, MAX_APP_PAYLOAD};
use sdmac_api::{
    Ac, Backend, Body, Confirmation, DropReason, Interface, MacAddress, Rate, RateSeries, Scope,
    Status, Time, TxAttrs, Wait, MAX_ID, MAX_PAYLOAD,
};
use sdmac_phy::Phy;
use std::collections::{HashMap, VecDeque};
use std::time::Duration;

/// How copies are sent.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The baseline: one copy, on the first interface only.
    OneChannel,
    /// One copy on every interface, none cancelled.
    TwoChannels,
    /// One copy on every interface; once one is acknowledged, the others still queued
    /// are cancelled.
    TwoChannelsCancel,
}

impl Mode {
    /// Short name: `one`, `two`, `two_cancel`.
    pub fn name(self) -> &'static str {
        match self {
            Mode::OneChannel => "one",
            Mode::TwoChannels => "two",
            Mode::TwoChannelsCancel => "two_cancel",
        }
    }

    /// The mode of a short name.
    pub fn from_name(s: &str) -> Option<Mode> {
        match s {
            "one" => Some(Mode::OneChannel),
            "two" => Some(Mode::TwoChannels),
            "two_cancel" => Some(Mode::TwoChannelsCancel),
            _ => None,
        }
    }
}

/// What a redundant sender sends with.
#[derive(Clone, Debug, PartialEq)]
pub struct SenderConfig {
    /// The receiver's address on each interface (one per interface, in order).
    pub dst: Vec<MacAddress>,
    /// Rate series of every copy (None: each interface's default series).
    pub rates: Option<RateSeries>,
    /// Access category.
    pub ac: Ac,
    /// How copies are sent.
    pub mode: Mode,
    /// PHY timing, for the airtime of cancelled copies.
    pub phy: Phy,
}

/// Counters of a sender.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct SenderStats {
    /// Packets sent (each with one copy per interface used).
    pub packets: u64,
    /// Packets for which some copy was acknowledged.
    pub acked: u64,
    /// Packets whose every copy finished without an acknowledgement.
    pub unacked: u64,
    /// Copies requested.
    pub copies: u64,
    /// Copies that went on air (at least one attempt).
    pub copies_on_air: u64,
    /// Attempts on air, over all copies.
    pub attempts_on_air: u64,
    /// Copies cancelled before their first attempt.
    pub copies_cancelled: u64,
    /// Cancellations asked for that came too late (the copy was on air or done).
    pub cancel_too_late: u64,
    /// Airtime of the cancelled copies, one attempt each (ns).
    pub airtime_saved_ns: u64,
}

#[derive(Debug)]
struct Pending {
    t_req: Time,
    open: Vec<bool>,
    acked: bool,
}

/// The sending side of seamless redundancy.
#[derive(Debug)]
pub struct RedundantSender<B: Backend> {
    ifaces: Vec<Interface<B>>,
    pub(super) cfg: SenderConfig,
    first_rate: Vec<Rate>,
    next_seq: u64,
    pending: HashMap<u64, Pending>,
    acks: VecDeque<(u64, Time, Time)>,
    stats: SenderStats,
    buf: Vec<u8>,
    rr: usize,
}

impl<B: Backend> RedundantSender<B> {
    /// A sender over `ifaces`; refuses fewer than two interfaces, a channel used twice,
    /// or a destination list that does not match.
    pub fn new(
        mut ifaces: Vec<Interface<B>>,
        cfg: SenderConfig,
    ) -> Result<RedundantSender<B>, RedundancyError> {
        check_channels(&mut ifaces)?;
        if cfg.dst.len() != ifaces.len() {
            return Err(RedundancyError::Destinations {
                given: cfg.dst.len(),
                interfaces: ifaces.len(),
            });
        }
        let mut first_rate = Vec::with_capacity(ifaces.len());
        for (k, i) in ifaces.iter_mut().enumerate() {
            let series = match cfg.rates {
                Some(r) => r,
                None => i
                    .get("default_rates", Scope::Adapter)
                    .and_then(|v| v.to_rates("default_rates"))
                    .map_err(api(k, "reading its default rates"))?,
            };
            first_rate.push(series.entries()[0].0);
        }
        Ok(RedundantSender {
            ifaces,
            cfg,
            first_rate,
            next_seq: 0,
            pending: HashMap::new(),
            acks: VecDeque::new(),
            stats: SenderStats::default(),
            buf: Vec::with_capacity(MAX_PAYLOAD),
            rr: 0,
        })
    }

    fn used(&self) -> usize {
        match self.cfg.mode {
            Mode::OneChannel => 1,
            Mode::TwoChannels | Mode::TwoChannelsCancel => self.ifaces.len(),
        }
    }

    /// Sends `payload` on every interface the mode uses; returns its sequence number
    /// and the time it was requested. A request refused on one interface (e.g. a full
    /// queue) is an error; copies already queued on the others stay queued.
    pub fn send(&mut self, payload: &[u8]) -> Result<(u64, Time), RedundancyError> {
        if payload.len() > MAX_APP_PAYLOAD {
            return Err(RedundancyError::PayloadTooLong { len: payload.len() });
        }
        let seq = self.next_seq;
        if seq > MAX_ID {
            return Err(RedundancyError::Plan(format!(
                "sequence number {seq} is beyond the largest request id"
            )));
        }
        encode(seq, payload, &mut self.buf);
        let n = self.used();
        let t_req = self.ifaces[0].now();
        let mut p = Pending { t_req, open: vec![false; self.ifaces.len()], acked: false };
        for k in 0..n {
            let attrs =
                TxAttrs { dst: Some(self.cfg.dst[k]), rates: self.cfg.rates, ..TxAttrs::default() };
            let r = self.ifaces[k].data_req(seq, Body::Payload(&self.buf), self.cfg.ac, &attrs);
            if let Err(e) = r {
                if p.open.iter().any(|&o| o) {
                    self.next_seq += 1;
                    self.stats.packets += 1;
                    self.pending.insert(seq, p);
                }
                return Err(RedundancyError::Api { iface: k, what: "data_req", error: e });
            }
            p.open[k] = true;
            self.stats.copies += 1;
        }
        self.next_seq += 1;
        self.stats.packets += 1;
        self.pending.insert(seq, p);
        Ok((seq, t_req))
    }

    fn on_confirmation(&mut self, k: usize, c: &Confirmation) -> Result<(), RedundancyError> {
        let seq = c.id;
        let Some(p) = self.pending.get_mut(&seq) else { return Ok(()) };
        p.open[k] = false;
        if c.attempts > 0 {
            self.stats.copies_on_air += 1;
            self.stats.attempts_on_air += c.attempts as u64;
        }
        if c.status == Status::Dropped(DropReason::Cancelled) {
            let rate = self.first_rate[k];
            let phy = &self.cfg.phy;
            self.stats.airtime_saved_ns +=
                phy.airtime_ns(c.len, rate) + phy.sifs_ns + phy.ack_airtime_ns(rate);
        }
        if c.status == Status::Acked && !p.acked {
            p.acked = true;
            self.stats.acked += 1;
            let t = if c.ts.t5.is_zero() { self.ifaces[k].now() } else { c.ts.t5 };
            self.acks.push_back((seq, p.t_req, t));
            if self.cfg.mode == Mode::TwoChannelsCancel {
                let others: Vec<usize> = (0..p.open.len()).filter(|&j| p.open[j]).collect();
                for j in others {
                    if self.ifaces[j].cancel(seq).map_err(api(j, "cancel"))? {
                        self.stats.copies_cancelled += 1;
                    } else {
                        self.stats.cancel_too_late += 1;
                    }
                }
            }
        }
        let p = &self.pending[&seq];
        if !p.open.iter().any(|&o| o) {
            if !p.acked {
                self.stats.unacked += 1;
            }
            self.pending.remove(&seq);
        }
        Ok(())
    }

    /// Reads the confirmations that have come on every interface, waiting up to `wait`
    /// for the first; returns how many it read.
    pub fn poll(&mut self, wait: Wait) -> Result<usize, RedundancyError> {
        let deadline = wait.deadline(self.ifaces[0].now());
        let n = self.ifaces.len();
        loop {
            let mut got = 0;
            for k in 0..n {
                while let Some(c) =
                    self.ifaces[k].data_con(Wait::NoWait).map_err(api(k, "data_con"))?
                {
                    self.on_confirmation(k, &c)?;
                    got += 1;
                }
            }
            if got > 0 || self.ifaces[0].now() >= deadline {
                return Ok(got);
            }
            // Block briefly on one interface at a time, so that none is starved.
            self.rr = (self.rr + 1) % n;
            let k = self.rr;
            let left = deadline.saturating_since(self.ifaces[0].now());
            let step = Duration::from_nanos(left.as_ns().min(50_000));
            if let Some(c) = self.ifaces[k].data_con(Wait::For(step)).map_err(api(k, "data_con"))? {
                self.on_confirmation(k, &c)?;
                return Ok(1);
            }
        }
    }

    /// The next acknowledgement not yet taken: (sequence number, time it was
    /// requested, time the MAC knew of the first ACK).
    pub fn take_ack(&mut self) -> Option<(u64, Time, Time)> {
        self.acks.pop_front()
    }

    /// Packets with a copy not yet confirmed.
    pub fn in_flight(&self) -> usize {
        self.pending.len()
    }

    /// The counters so far.
    pub fn stats(&self) -> SenderStats {
        self.stats
    }

    /// The current time on the first interface's clock.
    pub fn now(&self) -> Time {
        self.ifaces[0].now()
    }

    /// The interfaces back.
    pub fn into_interfaces(self) -> Vec<Interface<B>> {
        self.ifaces
    }
}
