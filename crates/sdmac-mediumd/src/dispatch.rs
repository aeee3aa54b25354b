//! The dispatcher of `--threads`: hands each frame from the kernel to the thread of
//! its engine medium — (configured medium id, channel) — creating that thread when
//! the engine medium first appears, and keeps every thread's radio table the same.
//!
//! The dispatcher keeps a replica of the medium without channels: radios, addresses,
//! media and control-socket state. Every event that changes it goes to every worker,
//! in the dispatcher's order:
//! - a frame from a radio or address not seen before: the radio (and address) is
//!   learnt here first, announced to every other worker, then the frame goes to its
//!   worker (whose `on_frame` learns the same);
//! - ADD_MAC_ADDR: to every worker;
//! - a control request: applied here and answered from here, then applied on every
//!   worker at the same time (the request's time; a worker whose clock is past it
//!   applies it at once). The answer depends only on the radio table and the media,
//!   which are the same everywhere, so answering from the replica is answering for
//!   every worker; each worker checks that its own result is the same.
//!
//! A new worker starts from a copy of the replica, so it has every radio with the
//! index it has everywhere. Frames malformed enough for `on_frame` to refuse them are
//! answered here (as not acknowledged). The kernel checks only the sending socket's
//! port id, so workers send their outputs themselves on the shared socket.

use crate::control::Request;
use crate::encode::{Batch, Datagrams, Encoder};
use crate::error::DaemonError;
use crate::frame_pool::FramePool;
use crate::hwsim_medium::{Counters, HwsimMedium, KernelFrame, Mac, Output, Setup};
use crate::kernel_msg::{each_message, report_refused_status, KernelMsg};
use crate::lateness::{Lateness, LatenessSummary};
use crate::media::MediumId;
use crate::mininet_requests::{apply, Applied};
use crate::syscall_count;
use crate::worker::{Exit, Failure, FrameMsg, Msg, Published, Shared, Worker};
use sdmac_medium::MediumStats;
use sdmac_rt::EventFd;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// Messages a worker's ring holds; when it is full the dispatcher waits for room.
const RING: usize = 4096;

/// The dispatcher's end of a worker.
struct Handle {
    key: (MediumId, u32),
    tx: rtrb::Producer<Msg>,
    wake: Arc<EventFd>,
    thread: JoinHandle<Exit>,
    published: Arc<Mutex<Published>>,
    /// Messages pushed since the last wake-up.
    pending: bool,
}

/// How the workers ended.
pub struct Finished {
    /// Every worker's medium, in the order the workers were created.
    pub media: Vec<HwsimMedium>,
    /// Each worker's (medium id, channel).
    pub keys: Vec<(MediumId, u32)>,
    /// The dispatcher's replica.
    pub replica: HwsimMedium,
    /// Counters of every thread together.
    pub counters: Counters,
    /// Engine statistics of every worker.
    pub stats: Vec<(MediumId, u32, MediumStats)>,
    /// Wake-ups of every worker.
    pub rounds: u64,
    /// Control requests a worker answered differently from the replica (0 unless
    /// something is wrong).
    pub diverged: u64,
    /// What failed, if a worker did.
    pub failed: Option<String>,
    /// How late outputs left since the last statistics, and since the start.
    pub late: (LatenessSummary, LatenessSummary),
}

/// Adds `b` to `a`.
pub fn add_counters(a: &mut Counters, b: Counters) {
    a.frames_in += b.frames_in;
    a.statuses += b.statuses;
    a.acked += b.acked;
    a.deliveries += b.deliveries;
    a.refused += b.refused;
    a.refusals.add(b.refusals);
    a.status_retries += b.status_retries;
    a.statuses_refused += b.statuses_refused;
}

/// Hands frames and events to the workers.
pub struct Dispatcher {
    replica: HwsimMedium,
    workers: Vec<Handle>,
    shared: Shared,
    enc: Encoder,
    /// The round's datagrams, sent together.
    batch: Batch,
    /// The dispatcher's own answers (refusals).
    out: Vec<Output>,
    /// Frames the dispatcher answered because their worker was gone.
    own: Counters,
    /// How late every thread's outputs left, gathered at each statistics line.
    late: Lateness,
    /// The buffers frames are handed to the workers in (taken again once the
    /// worker is done with them: no allocation per frame).
    frames: FramePool,
}

impl Dispatcher {
    /// A dispatcher of medium `setup` with no worker yet. Workers send on `sink`
    /// (hwsim family `family`), record frames on air in `capture`, publish their
    /// statistics when `stats`; `origin` is CLOCK_MONOTONIC at the daemon's time 0.
    pub fn new(
        setup: Setup,
        sink: Arc<dyn Datagrams>,
        family: u16,
        capture: Option<Arc<Mutex<crate::capture::Capture>>>,
        stats: bool,
        origin: u64,
        log: u8,
    ) -> std::io::Result<Dispatcher> {
        let failure = Arc::new(Failure::new()?);
        let enc = Encoder::new(family, sink.pid(), 3);
        let shared = Shared { sink, family, capture, stats, origin, coalesce_ns: 0, log, failure };
        Ok(Dispatcher {
            replica: HwsimMedium::new(setup),
            workers: Vec::new(),
            shared,
            enc,
            batch: Batch::default(),
            out: Vec::new(),
            own: Counters::default(),
            late: Lateness::new(),
            frames: FramePool::new(),
        })
    }

    /// Workers send outputs up to `ns` after their time ([`crate::coalesce`]); set
    /// before the first worker starts.
    pub fn coalesce(mut self, ns: u64) -> Dispatcher {
        self.shared.coalesce_ns = ns;
        self
    }

    /// The descriptor that becomes readable when a worker fails.
    pub fn failure_fd(&self) -> std::os::fd::RawFd {
        use std::os::fd::AsRawFd;
        self.shared.failure.wake.as_raw_fd()
    }

    /// What failed, if a worker did.
    pub fn failure(&self) -> Option<String> {
        self.shared.failure.get()
    }

    /// The (medium id, channel) of every worker, in the order they were created.
    pub fn workers(&self) -> Vec<(MediumId, u32)> {
        self.workers.iter().map(|w| w.key).collect()
    }

    /// Hands every message of a datagram from the kernel, received at `t`, on.
    pub fn on_datagram(&mut self, d: &[u8], t: u64) {
        let log = self.shared.log;
        let family = self.shared.family;
        each_message(d, family, log, |m| match m {
            KernelMsg::Frame(f) => self.on_frame(t, f),
            KernelMsg::AddMacAddr(radio, addr) => self.add_address(radio, addr),
            // Sent again from here (`resend_due`): workers share the socket.
            KernelMsg::StatusRefused { transmitter, cookie, msg } => report_refused_status(
                &self.replica.status_refused(t, transmitter, cookie, msg),
                log,
            ),
        });
    }

    /// When the next refused TX status is due to be sent again.
    pub fn next_resend_time(&self) -> Option<u64> {
        self.replica.next_resend_time()
    }

    /// Queues the refused TX statuses due by `now` to be sent again with the
    /// dispatcher's own answers (at the next [`Dispatcher::wake_workers`]).
    pub fn resend_due(&mut self, now: u64) {
        self.replica.take_resends(Some(now), &mut self.out);
    }

    /// Hands a frame from the kernel, received at `t`, to its worker.
    pub fn on_frame(&mut self, t: u64, f: KernelFrame<'_>) {
        let Some(learned) = self.replica.learn_from_frame(&f) else {
            // Refused: answered at once, as on one thread.
            self.replica.on_frame(t, f, &mut self.out);
            return;
        };
        let key = (learned.medium, f.freq);
        let w = self.worker_for(t, key).map_err(|e| {
            // No thread for it: its frames are answered here, and the daemon stops.
            self.shared
                .failure
                .report(format!("medium {} on {} MHz: cannot start its thread: {e}", key.0, key.1));
        });
        if learned.changed {
            self.broadcast_except(*w.as_ref().unwrap_or(&usize::MAX), || {
                Msg::Learn(f.transmitter, learned.addr)
            });
        }
        if learned.retuned {
            let freq = f.freq;
            self.broadcast_except(*w.as_ref().unwrap_or(&usize::MAX), || {
                Msg::Tuned(f.transmitter, freq)
            });
        }
        match w {
            Ok(w) => {
                let m = FrameMsg::copy_of(f, &mut self.frames);
                self.push(w, Msg::Frame(t, m))
            }
            Err(()) => {
                let m = FrameMsg::copy_of(f, &mut self.frames);
                self.answer_here(t, &m)
            }
        }
    }

    /// ADD_MAC_ADDR: radio `hw` has interface address `addr`.
    pub fn add_address(&mut self, hw: Mac, addr: Mac) {
        self.replica.learn_radio(hw, Some(addr));
        self.broadcast_except(usize::MAX, || Msg::Learn(hw, Some(addr)));
    }

    /// Applies a control request at `t` here and on every worker; the answer.
    pub fn control(&mut self, t: u64, req: &Request) -> Applied {
        let mut scratch = Vec::new();
        self.replica.advance(t, &mut scratch);
        // Refused statuses the replica found due are sent; nothing else it reports.
        self.out.extend(scratch.into_iter().filter(|o| matches!(o, Output::Resend { .. })));
        let a = apply(&mut self.replica, req);
        if !matches!(req, Request::Shutdown) {
            let expect = (a.result, a.id);
            self.broadcast_except(usize::MAX, || Msg::Control { t, req: req.clone(), expect });
        }
        a
    }

    /// Wakes every worker that was handed something since the last call, and sends
    /// the dispatcher's own answers. Once per batch from the kernel.
    pub fn wake_workers(&mut self) -> Result<(), DaemonError> {
        for w in self.workers.iter_mut().filter(|w| w.pending) {
            w.pending = false;
            syscall_count::add(1);
            w.wake.signal();
        }
        self.send_own()
    }

    fn send_own(&mut self) -> Result<(), DaemonError> {
        if self.out.is_empty() {
            return Ok(());
        }
        let sink = &self.shared.sink;
        let now = crate::syscall_count::monotonic_ns() - self.shared.origin;
        self.enc.send_batched(
            &mut self.out,
            now,
            &mut self.late,
            &mut self.batch,
            sink.as_ref(),
            |_, _, _, _| Ok(()),
        )
    }

    /// Per-second statistics: every worker's engine statistics, the counters and
    /// wake-ups of every thread (`rounds` of the dispatcher added), and how late
    /// every thread's outputs left since the last call.
    pub fn stats(
        &mut self,
        rounds: u64,
    ) -> (Vec<(MediumId, u32, MediumStats)>, Counters, u64, LatenessSummary) {
        let mut stats = Vec::new();
        let mut c = self.replica.counters();
        add_counters(&mut c, self.own);
        let mut n = rounds;
        for w in &self.workers {
            let mut p = w.published.lock().unwrap_or_else(|e| e.into_inner());
            stats.extend_from_slice(&p.stats);
            add_counters(&mut c, p.counters);
            n += p.rounds;
            self.late.take_from(&mut p.late);
        }
        (stats, c, n, self.late.take_interval())
    }

    /// Stops every worker — each answers every frame still in flight — and waits for
    /// them. Frames a failed worker did not take are answered here.
    pub fn stop(mut self) -> Result<Finished, DaemonError> {
        self.replica.take_resends(None, &mut self.out);
        self.broadcast_except(usize::MAX, || Msg::Stop);
        for w in self.workers.iter_mut() {
            w.pending = false;
            w.wake.signal();
        }
        let (mut media, mut keys, mut stats) = (Vec::new(), Vec::new(), Vec::new());
        let (mut counters, mut rounds, mut diverged) = (Counters::default(), 0, 0);
        let mut lost = Vec::new();
        for w in std::mem::take(&mut self.workers) {
            let Ok(mut exit) = w.thread.join() else {
                lost.push(format!(
                    "medium {} on {} MHz: its thread could not be joined",
                    w.key.0, w.key.1
                ));
                continue;
            };
            while let Ok(m) = exit.left.pop() {
                if let Msg::Frame(t, f) = m {
                    self.answer_here(t, &f);
                }
            }
            self.late.take_from(&mut w.published.lock().unwrap_or_else(|e| e.into_inner()).late);
            add_counters(&mut counters, exit.medium.counters());
            stats.extend(exit.medium.medium_stats_by_medium());
            rounds += exit.rounds;
            diverged += exit.diverged;
            keys.push(w.key);
            media.push(exit.medium);
        }
        self.send_own()?;
        add_counters(&mut counters, self.replica.counters());
        add_counters(&mut counters, self.own);
        let failed = match (self.shared.failure.get(), lost.is_empty()) {
            (f, true) => f,
            (None, false) => Some(lost.join("; ")),
            (Some(f), false) => Some(format!("{f}; {}", lost.join("; "))),
        };
        let late = (self.late.take_interval(), self.late.total());
        Ok(Finished {
            media,
            keys,
            replica: self.replica,
            counters,
            stats,
            rounds,
            diverged,
            failed,
            late,
        })
    }

    /// The worker of `key`, created (from a copy of the replica as it is at `t`) if
    /// new.
    fn worker_for(&mut self, t: u64, key: (MediumId, u32)) -> std::io::Result<usize> {
        if let Some(w) = self.workers.iter().position(|w| w.key == key) {
            return Ok(w);
        }
        // Movement steps due by `t` are taken in the copy too.
        let mut scratch = Vec::new();
        self.replica.advance(t, &mut scratch);
        let (tx, rx) = rtrb::RingBuffer::new(RING);
        let wake = Arc::new(EventFd::new()?);
        let published = Arc::new(Mutex::new(Published::default()));
        let name = format!("medium {} on {} MHz", key.0, key.1);
        let seq = (self.workers.len() as u32 + 1) << 24;
        let worker = Worker::new(
            name,
            self.replica.replica(),
            rx,
            wake.clone(),
            self.shared.clone(),
            published.clone(),
            seq,
        );
        let thread = std::thread::Builder::new()
            .name(format!("medium {}/{}", key.0, key.1))
            .spawn(move || worker.run())?;
        self.workers.push(Handle { key, tx, wake, thread, published, pending: false });
        Ok(self.workers.len() - 1)
    }

    /// Hands `make()` to every worker but `except`.
    fn broadcast_except(&mut self, except: usize, make: impl Fn() -> Msg) {
        for w in 0..self.workers.len() {
            if w != except {
                self.push(w, make());
            }
        }
    }

    /// Hands `m` to worker `w`, waiting for room if its ring is full. A worker that
    /// is gone cannot take it: its frame is answered here.
    fn push(&mut self, w: usize, m: Msg) {
        let h = &mut self.workers[w];
        let mut m = m;
        loop {
            if h.tx.is_abandoned() || h.thread.is_finished() {
                if let Msg::Frame(t, f) = m {
                    self.answer_here(t, &f);
                }
                return;
            }
            match h.tx.push(m) {
                Ok(()) => {
                    h.pending = true;
                    return;
                }
                Err(rtrb::PushError::Full(back)) => {
                    m = back;
                    syscall_count::add(1);
                    h.wake.signal();
                    std::thread::sleep(std::time::Duration::from_micros(50));
                }
            }
        }
    }

    /// Answers a frame no worker will carry (it came at `t`): not acknowledged.
    fn answer_here(&mut self, t: u64, f: &FrameMsg) {
        self.own.frames_in += 1;
        self.own.refused += 1;
        self.own.statuses += 1;
        self.out.push(f.refusal(t));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hwsim_medium::{hw_addr_of, StatusEcho};
    use sdmac_frame::ieee80211::{write_data_frame, DataParams};
    use sdmac_netlink::hwsim::HwsimMsg;
    use sdmac_netlink::nl;
    use sdmac_phy::Rate;
    use std::time::{Duration, Instant};

    #[derive(Default)]
    struct Recorder(Mutex<Vec<Vec<u8>>>);

    impl Datagrams for Recorder {
        fn send(&self, d: &[u8]) -> std::io::Result<()> {
            self.0.lock().unwrap().push(d.to_vec());
            Ok(())
        }
        fn pid(&self) -> u32 {
            1
        }
    }

    /// (transmitter, cookie) of every status sent.
    fn answered(r: &Recorder) -> Vec<(Mac, u64)> {
        let mut v = Vec::new();
        for d in r.0.lock().unwrap().iter() {
            for m in nl::messages(d) {
                if let Ok(HwsimMsg::TxInfo(t)) = HwsimMsg::parse(&m.unwrap()) {
                    v.push((Mac::from(t.transmitter), t.cookie));
                }
            }
        }
        v.sort();
        v
    }

    const A: Mac = Mac::new([2, 0, 0, 0, 0, 0]);
    const B: Mac = Mac::new([2, 0, 0, 0, 1, 0]);
    const C: Mac = Mac::new([2, 0, 0, 0, 2, 0]);
    const D: Mac = Mac::new([2, 0, 0, 0, 3, 0]);

    fn send(d: &mut Dispatcher, from: Mac, to: Mac, freq: u32, cookie: u64) {
        let mut buf = vec![0u8; 2000];
        let p = DataParams::new(to, from, from, 0x0800);
        let n = write_data_frame(&mut buf, &p, &[0u8; 1500], false).unwrap();
        let f = KernelFrame {
            transmitter: hw_addr_of(from),
            frame: &buf[..n],
            no_ack: false,
            freq,
            rates: vec![(Rate::Dsss1, 3)].into(),
            cookie,
            echo: StatusEcho::default(),
        };
        let t = crate::syscall_count::monotonic_ns() - d.shared.origin;
        d.on_frame(t, f);
    }

    #[test]
    fn a_worker_that_panics_leaves_no_frame_unanswered_and_stops_the_daemon() {
        let rec = Arc::new(Recorder::default());
        let setup = Setup { interfaces: vec![A, B, C, D], ..Setup::default() };
        let mut d = Dispatcher::new(
            setup,
            rec.clone(),
            0x1d,
            None,
            false,
            crate::syscall_count::monotonic_ns(),
            0,
        )
        .unwrap();
        // 1500 bytes at 1 Mb/s: 12 ms each, so most are in flight when it panics.
        for k in 0..10 {
            send(&mut d, A, B, 2412, k);
            send(&mut d, C, D, 2437, 100 + k);
        }
        d.wake_workers().unwrap();
        let w = d.workers().iter().position(|k| *k == (0, 2412)).unwrap();
        d.push(w, Msg::Panic);
        for k in 10..15 {
            send(&mut d, A, B, 2412, k);
        }
        d.wake_workers().unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        while d.failure().is_none() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(2));
        }
        let failure = d.failure().expect("the failure is reported");
        assert!(
            failure.contains("medium 0 on 2412 MHz") && failure.contains("a test asked for it"),
            "{failure}"
        );
        while !d.workers[w].thread.is_finished() {
            std::thread::sleep(Duration::from_millis(1));
        }
        // Its thread is gone: frames for it are answered by the dispatcher.
        for k in 15..18 {
            send(&mut d, A, B, 2412, k);
        }
        d.wake_workers().unwrap();
        let fin = d.stop().unwrap();
        assert!(fin.failed.is_some());
        let mut want: Vec<(Mac, u64)> = (0..18)
            .map(|k| (hw_addr_of(A), k))
            .chain((0..10).map(|k| (hw_addr_of(C), 100 + k)))
            .collect();
        want.sort();
        assert_eq!(answered(&rec), want, "every frame answered exactly once");
        assert_eq!((fin.counters.frames_in, fin.counters.statuses), (28, 28));
    }
}
