//! What the daemon's loop ([`crate::daemon`]) drives on one thread: every engine
//! medium in one [`HwsimMedium`], its outputs encoded and handed to the kernel side
//! in the round they are due (or, run ahead, queued for the kernel to send at their
//! time), frames on air to the capture, truth records to their subscribers.

use crate::capture::Capture;
use crate::coalesce::{first_due, Coalesce};
use crate::control_clients::Clients;
use crate::encode::Encoder;
use crate::error::{io_err, DaemonError};
use crate::event_loop::{Driver, Stopped};
use crate::hwsim_medium::{HwsimMedium, Output, Setup};
use crate::kernel_msg::on_datagram;
use crate::kernel_side::KernelSide;
use crate::lateness::Lateness;
use crate::media::MediumId;
use crate::poller::Poller;
use crate::stats::DaemonCounters;
use crate::stopping::Stopping;
use crate::syscall_count;
use crate::timed::Later;
use sdmac_control::ext::TruthRecord;
use sdmac_medium::{MediumStats, Time};
use std::sync::atomic::AtomicBool;

/// The medium of the one-thread loop and what its outputs go through.
pub(crate) struct OneThread {
    medium: HwsimMedium,
    family: u16,
    log: u8,
    /// CLOCK_MONOTONIC of the daemon's time 0.
    origin: u64,
    enc: Encoder,
    /// Outputs of the round, not sent yet.
    out: Vec<Output>,
    /// Outputs run ahead, for the kernel to send at their time.
    later: Later,
    coalesce: Coalesce,
    late: Lateness,
    /// Run each channel ahead while its stations are blocked (`--no-run-ahead` off).
    run_ahead: bool,
    /// Outputs the kernel sent at their time.
    timed_outputs: u64,
    capture: Option<Capture>,
    /// Truth records of the round, for the subscribers.
    truth: Vec<TruthRecord>,
}

impl OneThread {
    /// The medium of `setup`; its messages carry `family` and port id `pid`; outputs
    /// wait up to `coalesce_ns` for the next ones; `run_ahead` where the kernel side
    /// can send at a set time.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        setup: Setup,
        family: u16,
        pid: u32,
        log: u8,
        origin: u64,
        coalesce_ns: u64,
        run_ahead: bool,
        capture: Option<Capture>,
    ) -> OneThread {
        OneThread {
            medium: HwsimMedium::new(setup),
            family,
            log,
            origin,
            enc: Encoder::new(family, pid, 3),
            out: Vec::new(),
            later: Later::new(),
            coalesce: Coalesce::new(coalesce_ns),
            late: Lateness::new(),
            run_ahead,
            timed_outputs: 0,
            capture,
            truth: Vec::new(),
        }
    }

    /// Sends the round's outputs: to the kernel (with io_uring: queued, sent with the
    /// next wait; with epoll: the round's datagrams in one sendmmsg); frames on air go
    /// to the capture, on CLOCK_MONOTONIC. What was encoded leaves even if a later
    /// output failed to encode (as in `Encoder::send_batched`).
    fn send_outputs(&mut self, now: Time, kernel: &mut dyn KernelSide) -> Result<(), DaemonError> {
        let (capture, origin) = (&mut self.capture, self.origin);
        let encoded = self.enc.send(
            &mut self.out,
            now,
            Some(&mut self.late),
            |d| kernel.queue(d),
            |t, freq, rate, frame| match capture.as_mut() {
                Some(c) => c.record(origin + t, freq, rate, frame),
                None => Ok(()),
            },
        );
        encoded.and(kernel.send_queued().map_err(io_err("netlink send")))
    }

    /// Queues the outputs run ahead for the kernel to send at their time.
    fn send_later(&mut self, kernel: &mut dyn KernelSide) -> Result<(), DaemonError> {
        let origin = self.origin;
        while let Some((due, group)) = self.later.next_group() {
            let mut n = 0u64;
            self.enc.send_each(
                group.inspect(|_| n += 1),
                due,
                None,
                |d| kernel.queue_at(d, origin + due),
                |_, _, _, _| Ok(()),
            )?;
            self.timed_outputs += n;
        }
        Ok(())
    }
}

impl Driver for OneThread {
    fn wake_at(&self) -> Option<Time> {
        self.coalesce.wake_at(self.medium.next_output_time())
    }

    fn has_capture(&self) -> bool {
        self.capture.is_some()
    }

    fn on_datagram(&mut self, d: &[u8], t: Time) {
        on_datagram(&mut self.medium, t, d, self.family, self.log, &mut self.out);
    }

    fn serve(
        &mut self,
        clients: &mut Clients,
        ready: &[u64],
        poller: &Poller,
        stop: &AtomicBool,
        now: Time,
    ) {
        if Clients::any_ready(ready) {
            // Whatever was due before the request happens first (a movement step, a
            // frame's end), so the request applies to the medium as it is now.
            self.medium.advance(now, &mut self.out);
        }
        clients.serve_with(ready, poller, stop, self.log, &mut self.medium);
        self.medium.set_truth(clients.wants_truth());
    }

    fn round(
        &mut self,
        t: Time,
        kernel: &mut dyn KernelSide,
        clients: &mut Clients,
        poller: &Poller,
    ) -> Result<(), DaemonError> {
        self.medium.advance(t, &mut self.out);
        if self.run_ahead {
            // Frames from the kernel may wait for the timed sends due before every
            // channel's stations may act again; after that, one wakes the daemon at
            // once, whatever the kernel still has to send.
            let quiet = self.medium.advance_quiet(t, &mut self.out);
            kernel.hold_until(self.origin + quiet);
        }
        if self.coalesce.send_now(t, first_due(&self.out), self.medium.next_output_time()) {
            self.later.take_from(&mut self.out, t);
            self.send_outputs(t, kernel)?;
            if kernel.queues_timed() {
                self.send_later(kernel)?;
            }
        }
        // The truth about the frames answered this round, to its subscribers.
        self.medium.take_truth(&mut self.truth);
        clients.publish(&mut self.truth, self.origin, poller);
        Ok(())
    }

    fn flush_capture(&mut self) -> Result<(), DaemonError> {
        self.flush_held_capture()
    }

    fn stop(
        &mut self,
        now: &dyn Fn() -> Time,
        kernel: &mut dyn KernelSide,
        clients: &mut Clients,
        poller: &Poller,
    ) -> Result<Stopped, DaemonError> {
        self.stop_and_flush(now, kernel, clients, poller)
    }

    fn stats(
        &mut self,
        rounds: u64,
        kernel: &dyn KernelSide,
    ) -> (Vec<(MediumId, u32, MediumStats)>, DaemonCounters) {
        let c = self.medium.counters();
        let counters = DaemonCounters {
            mono_ns: syscall_count::monotonic_ns(),
            frames: c.frames_in,
            deliveries: c.deliveries,
            statuses: c.statuses,
            syscalls: syscall_count::total(),
            rounds,
            late: self.late.take_interval(),
            timed: self.timed_outputs,
            timed_overdue: kernel.timed_overdue(),
            refused: c.refused,
            refusals: c.refusals,
            status_retries: c.status_retries,
            statuses_refused: c.statuses_refused,
        };
        (self.medium.medium_stats_by_medium(), counters)
    }

    fn report_end(&self, rounds: u64, kernel: &dyn KernelSide, clients: &Clients) {
        if self.log >= 5 {
            eprintln!(
                "sdmac-mediumd: stopping; {:?}; {} system calls in {rounds} rounds ({}); {}; {} sent by the kernel at their time ({} overdue)",
                self.medium.counters(),
                syscall_count::total(),
                kernel.name(),
                self.late.total(),
                self.timed_outputs,
                kernel.timed_overdue()
            );
        }
        if self.log >= 5 && clients.truth_lost() > 0 {
            eprintln!("sdmac-mediumd: {} truth records dropped for subscribers that did not read them in time", clients.truth_lost());
        }
    }
}

impl Stopping for OneThread {
    type Capture = Capture;

    fn held_capture(&mut self) -> Option<&mut Capture> {
        self.capture.as_mut()
    }

    fn finish(
        &mut self,
        now: &dyn Fn() -> Time,
        kernel: &mut dyn KernelSide,
        clients: &mut Clients,
        poller: &Poller,
    ) -> Result<Stopped, DaemonError> {
        // Frames the kernel sent that the daemon has not looked at yet are taken
        // too (a bounded number of rounds), so that every one is answered.
        let t = now();
        for _ in 0..16 {
            if kernel.receive_now(&mut |d| self.on_datagram(d, t))? == 0 {
                break;
            }
        }
        self.medium.flush(&mut self.out);
        // Subscribers get the records of the frames answered last (as far as their
        // sockets take them now).
        self.medium.take_truth(&mut self.truth);
        clients.publish(&mut self.truth, self.origin, poller);
        clients.drain(std::time::Duration::from_secs(1));
        // The capture is written out (by the caller) even if the last send fails.
        self.send_outputs(now(), kernel)?;
        kernel.flush().map_err(io_err("netlink send"))?;
        Ok(Stopped { failed: None })
    }
}
