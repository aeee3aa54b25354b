//! The device on the virtual clock: time moves only when every interface taking part
//! waits (see [`crate::clock`]).

use super::{Device, Step};
use crate::channel::RECHECK;
use crate::clock::{decode, WaitKind, V_DETACHED};
use crate::wait::DeviceWait;
use sdmac_rt::monotonic_ns;
use std::sync::atomic::Ordering;

impl Device {
    /// Runs on the virtual clock until the session closes.
    pub(super) fn run_virtual(mut self) -> Device {
        // Wall time of the last move of virtual time, for the watchdog.
        let mut moved_at = monotonic_ns();
        let mut reported = false;
        loop {
            let tick = self.session.vtick.load(Ordering::SeqCst);
            let (work, now) = self.pass();
            if self.session.closed.load(Ordering::Acquire) {
                self.close();
                return self;
            }
            if work {
                continue;
            }
            match self.virtual_step(now) {
                Step::Work => {}
                Step::Moved => {
                    moved_at = monotonic_ns();
                    reported = false;
                }
                Step::Blocked(busy) => {
                    let wall = monotonic_ns();
                    let still = wall.saturating_sub(moved_at);
                    if !reported && !busy.is_empty() && still >= self.watchdog_ns {
                        self.report_stall(now, &busy, still);
                        reported = true;
                    }
                    self.park_virtual(tick, wall);
                }
            }
        }
    }

    /// With nothing left to do at `now`: hands the staged requests over once every
    /// interface taking part waits, else moves time to the earliest of the medium's
    /// next event, the held requests and confirmations, and the waiters' deadlines,
    /// waking the waiters whose deadline that is.
    fn virtual_step(&mut self, now: u64) -> Step {
        let mut next = u64::MAX;
        let mut busy = Vec::new();
        let mut taking_part = false;
        for (i, d) in self.ifaces.iter_mut().enumerate() {
            let state = d.shared.vstate.load(Ordering::SeqCst);
            if state == V_DETACHED {
                continue;
            }
            taking_part = true;
            match decode(state) {
                None => busy.push(i),
                Some((kind, deadline)) => {
                    // Something it waits for is there: it is waking up.
                    let there = match kind {
                        WaitKind::Con => d.ends.con.slots() < d.ends.con.buffer().capacity(),
                        WaitKind::Ind => d.ends.ind.slots() < d.ends.ind.buffer().capacity(),
                        WaitKind::Beacon => {
                            d.ends.beacon.slots() < d.ends.beacon.buffer().capacity()
                        }
                    };
                    if there || deadline <= now {
                        busy.push(i);
                    } else {
                        next = next.min(deadline);
                    }
                }
            }
        }
        // A request sent before its interface waited is in its ring by now.
        if self.additions.is_pending() || self.ifaces.iter().any(|d| !d.ends.cmd.is_empty()) {
            return Step::Work;
        }
        if !taking_part || !busy.is_empty() {
            return Step::Blocked(busy);
        }
        if self.held_reqs.any_staged() {
            for (_, i, m) in self.held_reqs.take_staged() {
                self.data_command(i, m);
            }
            return Step::Work;
        }
        if let Some(t) = self.medium.next_event_time() {
            next = next.min(self.clock.monotonic_of(t));
        }
        if let Some(t) = self.held_reqs.next_time() {
            next = next.min(t);
        }
        if let Some(h) = self.held_cons.front() {
            next = next.min(h.0);
        }
        if next == u64::MAX {
            // Everyone waits for ever and nothing is to happen.
            return Step::Blocked(busy);
        }
        self.time.set(next);
        for d in &self.ifaces {
            let due = decode(d.shared.vstate.load(Ordering::SeqCst)).is_some_and(|w| w.1 <= next);
            if due {
                d.shared.signal();
            }
        }
        Step::Moved
    }

    /// Waits (wall time) for an interface's state to change, a request, a station to
    /// add or the session's end.
    fn park_virtual(&mut self, tick: u64, wall: u64) {
        match self.wait {
            DeviceWait::Spin => std::hint::spin_loop(),
            DeviceWait::Park { spin_ns } => {
                let ifaces = &self.ifaces;
                let session = &self.session;
                let additions = &self.additions;
                self.stats.parks += 1;
                let deadline = wall.saturating_add(RECHECK.as_nanos() as u64);
                session.device_wake.wait_until(deadline, spin_ns, || {
                    session.closed.load(Ordering::Acquire)
                        || session.vtick.load(Ordering::SeqCst) != tick
                        || additions.is_pending()
                        || ifaces.iter().any(|d| !d.ends.cmd.is_empty())
                });
            }
        }
    }

    /// The watchdog: says (stderr, and in the session's stall reports) which
    /// interfaces virtual time waits for.
    fn report_stall(&mut self, now: u64, busy: &[usize], still_ns: u64) {
        let names: Vec<&str> = busy.iter().map(|&i| self.ifaces[i].name.as_str()).collect();
        let msg = format!(
            "emu virtual clock: medium time {} ns has not moved for {:.1} s of wall time; \
             waiting for interface(s) {} to wait (data_con, data_ind or beacon_ind with a \
             timeout or for ever), or to be dropped",
            now.saturating_sub(self.clock.origin()),
            still_ns as f64 / 1e9,
            names.join(", ")
        );
        eprintln!("{msg}");
        self.session.stalls.lock().unwrap_or_else(|e| e.into_inner()).push(msg);
    }
}
