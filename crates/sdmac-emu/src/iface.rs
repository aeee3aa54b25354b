//! The application's side of one emu interface.

use crate::channel::{
    new_buf, AppEnds, Cmd, DataMsg, FrameBuf, IfaceShared, Reply, SessionShared, MAX_FRAME, RECHECK,
};
use crate::clock::{waiting, TimeSource, WaitKind, V_BUSY, V_DETACHED};
use crate::frame::{check_raw_frame, HeaderCache};
use sdmac_api::attribute::lookup;
use sdmac_api::{
    ApiError, Backend, BeaconInd, Body, Confirmation, Indication, Scope, Time, Timestamps, TxAttrs,
    Value, Wait, MAX_ID, MAX_PAYLOAD,
};
use sdmac_frame::MacAddress;
use sdmac_medium::{Ac, StationId, MAX_MPDU_LEN};
use sdmac_phy::Standard;
use sdmac_rt::{monotonic_ns, WaitOutcome};
use std::os::fd::{AsRawFd, RawFd};
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// One interface of an [`crate::EmuSession`]: a station of the emulated medium.
/// Implements [`Backend`]; wrap it in [`sdmac_api::Interface`] (the session does).
pub struct EmuIface {
    pub(crate) name: String,
    pub(crate) station: StationId,
    pub(crate) address: MacAddress,
    pub(crate) bssid: MacAddress,
    pub(crate) qos: bool,
    pub(crate) standard: Standard,
    pub(crate) queue_limit: usize,
    pub(crate) con_capacity: usize,
    pub(crate) spin_ns: u64,
    pub(crate) ends: AppEnds,
    pub(crate) shared: Arc<IfaceShared>,
    pub(crate) session: Arc<SessionShared>,
    pub(crate) submitted: [u64; 4],
    pub(crate) submitted_total: u64,
    pub(crate) confirmed_read: u64,
    /// Confirmations read, per queue index (never above `submitted`).
    pub(crate) confirmed_ac: [u64; 4],
    pub(crate) free: Vec<FrameBuf>,
    pub(crate) header: HeaderCache,
    /// The session's clock.
    pub(crate) time: TimeSource,
}

impl std::fmt::Debug for EmuIface {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmuIface")
            .field("name", &self.name)
            .field("station", &self.station)
            .field("address", &self.address)
            .finish()
    }
}

impl EmuIface {
    /// The interface's name (from the session set-up).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its MAC address.
    pub fn address(&self) -> MacAddress {
        self.address
    }

    /// Its station in the medium.
    pub fn station(&self) -> StationId {
        self.station
    }

    /// How long a blocking receive spins before parking (ns).
    pub fn set_spin_ns(&mut self, ns: u64) {
        self.spin_ns = ns;
    }

    fn queue_index(&self, ac: Ac) -> usize {
        if self.qos {
            ac as usize
        } else {
            Ac::Be as usize
        }
    }

    fn closed(&self) -> bool {
        self.session.closed.load(Ordering::Acquire)
    }

    /// Waits on the application wake-up until `ready` or the wall-clock deadline (for
    /// the device's replies, which come without time moving).
    fn wait(&self, wait: Wait, mut ready: impl FnMut() -> bool) -> WaitOutcome {
        let deadline = wait.deadline(Time::from_ns(monotonic_ns())).as_ns();
        let closed = &self.session.closed;
        self.shared
            .app_wake
            .wait_until(deadline, self.spin_ns, || ready() || closed.load(Ordering::Acquire))
    }

    /// A receiving primitive's wait for `kind` until `ready` or the deadline of `wait`
    /// on the session's clock. On the virtual clock the interface is announced as
    /// waiting for the while, so that time may move (see [`crate::clock`]).
    fn wait_recv(
        &self,
        kind: WaitKind,
        wait: Wait,
        mut ready: impl FnMut() -> bool,
    ) -> WaitOutcome {
        if !self.time.is_virtual() {
            return self.wait(wait, ready);
        }
        let deadline = wait.deadline(Time::from_ns(self.time.now())).as_ns();
        let vstate = &self.shared.vstate;
        let state = waiting(kind, deadline);
        // An interface that takes no part (any more) stays out.
        let taking_part = vstate
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |s| {
                (s != V_DETACHED).then_some(state)
            })
            .is_ok();
        if taking_part {
            self.session.vstate_changed();
        }
        let closed = &self.session.closed;
        let time = &self.time;
        let out = loop {
            // Woken by the device, or every RECHECK of wall time to look again.
            let recheck = monotonic_ns().saturating_add(RECHECK.as_nanos() as u64);
            self.shared.app_wake.wait_until(recheck, self.spin_ns, || {
                ready() || closed.load(Ordering::Acquire) || time.now() >= deadline
            });
            if ready() || closed.load(Ordering::Acquire) {
                break WaitOutcome::Ready;
            }
            if time.now() >= deadline {
                break WaitOutcome::TimedOut;
            }
        };
        if taking_part {
            // Busy again, unless it was made to take no part meanwhile.
            let _ = vstate.compare_exchange(state, V_BUSY, Ordering::SeqCst, Ordering::SeqCst);
        }
        out
    }

    /// Sends a control command and waits for its reply.
    fn control(&mut self, cmd: Cmd) -> Result<Reply, ApiError> {
        if self.closed() {
            return Err(ApiError::Closed);
        }
        if self.ends.cmd.push(cmd).is_err() {
            return Err(ApiError::QueueFull {
                ac: Ac::Be,
                limit: self.ends.cmd.buffer().capacity(),
            });
        }
        self.session.device_wake.notify();
        loop {
            if let Ok(r) = self.ends.reply.pop() {
                return Ok(r);
            }
            if self.closed() && self.ends.reply.is_empty() {
                return Err(ApiError::Closed);
            }
            if let Some(pass) = self.session.help.0.get() {
                // A caller-driven medium moves only when passed: pass it (a no-op while
                // the driving thread is in a pass of its own).
                pass();
                std::hint::spin_loop();
                continue;
            }
            // The device answers within microseconds; the wait is re-checked every
            // RECHECK anyway, so that no missed wake-up can ever leave a caller blocked.
            let reply = &self.ends.reply;
            self.wait(Wait::For(RECHECK), || !reply.is_empty());
        }
    }
}

impl Backend for EmuIface {
    #[inline]
    fn data_req(
        &mut self,
        id: u64,
        body: Body<'_>,
        ac: Ac,
        attrs: &TxAttrs,
        t1: Time,
    ) -> Result<(), ApiError> {
        let t2 = if !t1.is_zero() { Time::from_ns(self.time.now()) } else { Time::ZERO };
        if self.closed() {
            return Err(ApiError::Closed);
        }
        if id > MAX_ID {
            return Err(ApiError::InvalidId { id });
        }
        let qi = self.queue_index(ac);
        // Requests not yet read back bound the queue from above; only when that bound
        // reaches the limit is the device's counter (another core's cache line) read.
        if self.submitted[qi] - self.confirmed_ac[qi] >= self.queue_limit as u64 {
            let in_queue = self.submitted[qi] - self.shared.completed[qi].load(Ordering::Acquire);
            if in_queue >= self.queue_limit as u64 {
                return Err(ApiError::QueueFull { ac, limit: self.queue_limit });
            }
        }
        if self.submitted_total - self.confirmed_read >= self.con_capacity as u64 {
            return Err(ApiError::ConfirmationBacklog { limit: self.con_capacity });
        }
        if let (Some(a), Some(b)) = (attrs.not_before, attrs.not_after) {
            if a > b {
                return Err(ApiError::InvalidRequest {
                    what: "not_before",
                    reason: format!("{a} is after not_after {b}: the packet could never be sent"),
                });
            }
        }
        if let Some(r) = &attrs.rates {
            sdmac_api::check_tries(r)
                .map_err(|reason| ApiError::InvalidRequest { what: "rates", reason })?;
            if let Some((bad, _)) =
                r.entries().iter().find(|(r, _)| !self.standard.supports(*r) || !r.is_valid())
            {
                return Err(ApiError::InvalidRequest {
                    what: "rates",
                    reason: format!("rate {bad} is not supported by this PHY"),
                });
            }
        }
        let mut buf = self.free.pop().unwrap_or_else(new_buf);
        let built = match body {
            Body::Payload(p) => {
                if p.len() > MAX_PAYLOAD {
                    Err(ApiError::TooLong { len: p.len(), max: MAX_PAYLOAD })
                } else {
                    let dst = attrs.dst.unwrap_or(self.bssid);
                    self.header
                        .build(
                            &mut buf[..],
                            dst,
                            self.address,
                            self.bssid,
                            self.qos.then_some(ac),
                            attrs.no_ack,
                            p,
                        )
                        .map(|len| (len, dst))
                }
            }
            Body::Frame(f) => {
                check_raw_frame(f, MAX_FRAME.min(MAX_MPDU_LEN as usize - 4)).map(|addr1| {
                    buf[..f.len()].copy_from_slice(f);
                    (f.len(), attrs.dst.unwrap_or(addr1))
                })
            }
        };
        let (len, dst) = match built {
            Ok(v) => v,
            Err(e) => {
                self.free.push(buf);
                return Err(e);
            }
        };
        let msg = DataMsg {
            id,
            ac,
            dst,
            rates: attrs.rates,
            no_ack: attrs.no_ack,
            buf,
            len: len as u32,
            ts: Timestamps { t1, t2, ..Timestamps::default() },
            not_before: attrs.not_before.map_or(0, |t| t.as_ns()),
            not_after: attrs.not_after.map_or(u64::MAX, |t| t.as_ns()),
        };
        match self.ends.cmd.push(Cmd::Data(msg)) {
            Ok(()) => {}
            Err(rtrb::PushError::Full(Cmd::Data(m))) => {
                self.free.push(m.buf);
                return Err(ApiError::QueueFull { ac, limit: self.queue_limit });
            }
            Err(_) => return Err(ApiError::QueueFull { ac, limit: self.queue_limit }),
        }
        self.submitted[qi] += 1;
        self.submitted_total += 1;
        self.session.device_wake.notify();
        Ok(())
    }

    #[inline]
    fn data_con(&mut self, wait: Wait) -> Result<Option<Confirmation>, ApiError> {
        loop {
            if let Ok(m) = self.ends.con.pop() {
                self.confirmed_read += 1;
                let qi = self.queue_index(m.con.ac);
                self.confirmed_ac[qi] += 1;
                if let Some(b) = m.buf {
                    self.free.push(b);
                }
                return Ok(Some(m.con));
            }
            if self.closed() {
                return Err(ApiError::Closed);
            }
            if wait == Wait::NoWait {
                return Ok(None);
            }
            let con = &self.ends.con;
            if self.wait_recv(WaitKind::Con, wait, || !con.is_empty()) == WaitOutcome::TimedOut {
                return Ok(None);
            }
        }
    }

    fn data_ind(&mut self, buf: &mut Vec<u8>, wait: Wait) -> Result<Option<Indication>, ApiError> {
        loop {
            if let Ok(m) = self.ends.ind.pop() {
                buf.clear();
                buf.extend_from_slice(&m.bytes);
                // The free ring has room for every buffer (see `channel::rings`).
                let _ = self.ends.ind_free.push(m.bytes);
                return Ok(Some(m.ind));
            }
            if self.closed() {
                return Err(ApiError::Closed);
            }
            if wait == Wait::NoWait {
                return Ok(None);
            }
            let ind = &self.ends.ind;
            if self.wait_recv(WaitKind::Ind, wait, || !ind.is_empty()) == WaitOutcome::TimedOut {
                return Ok(None);
            }
        }
    }

    fn beacon_ind(&mut self, wait: Wait) -> Result<Option<BeaconInd>, ApiError> {
        loop {
            if let Ok(b) = self.ends.beacon.pop() {
                return Ok(Some(b));
            }
            if self.closed() {
                return Err(ApiError::Closed);
            }
            if wait == Wait::NoWait {
                return Ok(None);
            }
            let b = &self.ends.beacon;
            if self.wait_recv(WaitKind::Beacon, wait, || !b.is_empty()) == WaitOutcome::TimedOut {
                return Ok(None);
            }
        }
    }

    fn set(&mut self, name: &str, scope: Scope, value: &Value) -> Result<(), ApiError> {
        let spec = lookup(name, &scope, true)?;
        if let Scope::Packet(id) = scope {
            if id > MAX_ID {
                return Err(ApiError::InvalidId { id });
            }
        }
        match self.control(Cmd::Set(spec.name, scope, value.clone()))? {
            Reply::Set(Ok(())) => {
                if spec.name == "bssid" {
                    self.bssid = value.to_mac(name)?;
                }
                Ok(())
            }
            Reply::Set(Err(e)) => Err(e),
            other => unreachable!("reply {other:?} to set"),
        }
    }

    fn get(&mut self, name: &str, scope: Scope) -> Result<Value, ApiError> {
        let spec = lookup(name, &scope, false)?;
        if let Scope::Packet(id) = scope {
            if id > MAX_ID {
                return Err(ApiError::InvalidId { id });
            }
        }
        if spec.name == "queue_len" {
            if let Scope::Queue(ac) = scope {
                return Ok(Value::Int(self.queue_len(ac) as i64));
            }
        }
        match self.control(Cmd::Get(spec.name, scope))? {
            Reply::Get(r) => r,
            other => unreachable!("reply {other:?} to get"),
        }
    }

    fn cancel(&mut self, id: u64) -> Result<bool, ApiError> {
        if id > MAX_ID {
            return Err(ApiError::InvalidId { id });
        }
        match self.control(Cmd::Cancel(id))? {
            Reply::Cancel(b) => Ok(b),
            other => unreachable!("reply {other:?} to cancel"),
        }
    }

    fn queue_len(&self, ac: Ac) -> usize {
        let qi = self.queue_index(ac);
        (self.submitted[qi] - self.shared.completed[qi].load(Ordering::Acquire)) as usize
    }

    fn unconfirmed(&self) -> usize {
        (self.submitted_total - self.confirmed_read) as usize
    }

    /// `None` on the virtual clock: an event loop waiting on a descriptor is not a
    /// wait the device can see, so time could never move for it.
    fn event_fd(&mut self) -> Option<RawFd> {
        if self.time.is_virtual() {
            return None;
        }
        self.shared.efd_on.store(true, Ordering::SeqCst);
        Some(self.shared.efd.as_raw_fd())
    }

    /// The session's clock: `CLOCK_MONOTONIC`, or the virtual time of the medium.
    fn now(&self) -> Time {
        Time::from_ns(self.time.now())
    }

    fn timed_sends(&self) -> bool {
        // The device thread holds a timed request and hands it to the medium at the
        // medium time of `not_before`, however late it wakes.
        true
    }
}

impl Drop for EmuIface {
    /// A dropped interface takes no part in virtual time any more.
    fn drop(&mut self) {
        if self.time.is_virtual()
            && self.shared.vstate.swap(V_DETACHED, Ordering::SeqCst) != V_DETACHED
        {
            self.session.vstate_changed();
        }
    }
}
