//! The daemon's wait, receive and send in one system call per round, over io_uring.
//!
//! A round of the epoll loop makes up to three system calls: the wait, a recvmmsg when
//! the netlink socket is readable, a sendto when there are outputs. Here the kernel
//! keeps one multishot receive armed on the netlink socket (each datagram lands in a
//! buffer of a registered buffer ring, in arrival order), the round's datagrams to
//! the kernel are submitted as linked sends, and one `io_uring_enter` submits them and
//! waits — with the medium's next output as its timeout — for a datagram, the control
//! sockets (a poll on the epoll descriptor that holds them) or the deadline.
//!
//! Needs Linux 6.0 (multishot recvmsg, buffer rings, EXT_ARG timeouts); `Ring::new`
//! fails where any of it is missing and the daemon keeps its epoll loop. On 6.1 the
//! kernel's completion work is deferred to the daemon's own `io_uring_enter`.

use crate::poller::timeout_ns;
use crate::syscall_count;
use buf_ring::BufRing;
use io_uring::types::{Fd, RecvMsgOut, SubmitArgs, TimeoutFlags, Timespec};
use io_uring::{cqueue, opcode, squeue, IoUring};
use std::collections::VecDeque;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

const RECV: u64 = 1;
const POLL: u64 = 2;
const SEND: u64 = 3;
/// A timed send: this plus its index in `timed`.
const TIMED: u64 = 1 << 32;
/// The wait that holds a timed send back (cancelled at its time): this plus the index.
const HOLD: u64 = 2 << 32;
/// The linked timeout that cancels it (reports only if it fails): this plus the index.
const TIMER: u64 = 3 << 32;
/// A bell's poll or one of the no-ops linked behind it (see [`Bell`]): this plus the
/// bell's index.
const BELL: u64 = 4 << 32;
/// A bell's chain posts at most this many completions; a longer one is several.
const BELL_CHAIN_MAX: usize = 64;
/// A bell is not armed to post more than this: with more timed completions due after
/// the hold, they may end a wait (one wake-up more, nothing lost).
const BELL_MAX: usize = 192;
/// A timed send not done this long after its time is no longer waited for.
const OVERDUE_NS: u64 = 2_000_000;
const GROUP: u16 = 0;

/// A bell: polls on a descriptor (the netlink socket, the control sockets' epoll set),
/// each with no-ops linked behind it, so that the descriptor's becoming readable
/// posts as many completions as its chains hold, at once. A wait counts those on top of the timed sends'
/// that are due meanwhile: then a datagram (or a control client) ends it, and the
/// timed sends alone do not, however many there are. The kernel ends a wait on a
/// count of completions or on a timeout request firing, and the latter cannot be tied
/// to an arrival without a race.
#[derive(Debug)]
struct Bell {
    fd: RawFd,
    /// Completions the chains armed and not rung yet will post when the descriptor
    /// becomes readable.
    unrung: usize,
    /// Completions of rung chains still to come. Once one completion of a bell has
    /// come, every chain armed before has rung: the descriptor was readable.
    ringing: usize,
    /// One of its completions was taken since the last wait began.
    rang: bool,
}

impl Bell {
    fn new(fd: RawFd) -> Bell {
        Bell { fd, unrung: 0, ringing: 0, rang: false }
    }

    /// One of its completions came.
    fn took(&mut self) {
        self.ringing += std::mem::take(&mut self.unrung);
        self.ringing = self.ringing.saturating_sub(1);
        self.rang = true;
    }
}

/// What a wait brought.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Woken {
    /// Datagrams handed over.
    pub datagrams: usize,
    /// The control sockets have something (serve them through their epoll set).
    pub control: bool,
}

/// The netlink socket and the control sockets' epoll set on an io_uring.
pub struct Ring {
    // Dropped first: the kernel lets go of the buffer ring with the io_uring.
    ring: IoUring,
    nl: RawFd,
    control: RawFd,
    bufs: BufRing,
    msghdr: Box<libc::msghdr>,
    recv_armed: bool,
    poll_armed: bool,
    /// Completions taken from the kernel and not yet handled (receives, polls).
    pending: VecDeque<cqueue::Entry>,
    /// Datagrams queued for the next submission, back to back.
    send_buf: Vec<u8>,
    send_spans: Vec<(usize, usize)>,
    /// Sends submitted whose completion has not been seen: `send_buf` is theirs.
    in_flight: usize,
    /// The first send that failed (reported by the next call).
    send_error: Option<io::Error>,
    /// Timed sends not yet completed: when each is due, its datagram and its timer's
    /// time (the kernel reads them until the send completes).
    timed: Vec<Option<Timed>>,
    /// The memory of each slot of `timed` — its datagram and its timer's time — kept
    /// when the slot is free, so that a timed send allocates nothing once the slots
    /// have grown.
    timed_mem: Vec<TimedMem>,
    free_timed: Vec<usize>,
    /// An eventfd nobody writes: what a timed send's hold polls.
    never: OwnedFd,
    timed_ok: bool,
    /// Timed sends due by then may complete before a datagram ends the next wait.
    hold_until_ns: u64,
    /// On the netlink socket and on the control sockets' epoll set.
    bells: [Bell; 2],
    /// Datagrams longer than a buffer (dropped, as recvmmsg's MSG_TRUNC).
    pub truncated: u64,
    /// Timed sends found not done `OVERDUE_NS` after their time.
    pub timed_overdue: u64,
}

/// A datagram the kernel sends at its time.
struct Timed {
    due_ns: u64,
    /// Its hold's completion (the first of its two) was taken.
    held: bool,
    /// Found not done `OVERDUE_NS` after its time.
    overdue: bool,
}

/// What the kernel reads of a timed send until it completes.
struct TimedMem {
    datagram: Vec<u8>,
    at: Box<Timespec>,
}

// SAFETY: the raw ring pointer is owned by the Ring and only used through it.
unsafe impl Send for Ring {}

impl Ring {
    /// A ring on netlink socket `nl` and epoll descriptor `control`, with `count`
    /// receive buffers of `size` bytes.
    pub fn new(nl: RawFd, control: RawFd, count: u16, size: usize) -> io::Result<Ring> {
        // Completion work runs only when this thread asks for events (6.1: deferred
        // task work) — or at least without an interrupt (5.19: cooperative) — rather
        // than through an inter-processor interrupt per datagram while the daemon runs
        // on another CPU, which is dear in a VM.
        let build = |b: &mut io_uring::Builder| {
            syscall_count::add(1);
            b.build(512)
        };
        let ring = build(IoUring::builder().setup_single_issuer().setup_defer_taskrun())
            .or_else(|_| build(IoUring::builder().setup_coop_taskrun().setup_taskrun_flag()))
            .or_else(|_| build(&mut IoUring::builder()))?;
        if !ring.params().is_feature_ext_arg() {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "io_uring without EXT_ARG (Linux < 5.11)",
            ));
        }
        let mut bufs = BufRing::new(count, size);
        syscall_count::add(1);
        // SAFETY: the ring memory lives in `bufs`, which the Ring owns and drops after
        // the IoUring (field order); the kernel lets go of it with the io_uring.
        unsafe {
            ring.submitter().register_buf_ring_with_flags(bufs.ring as u64, count, GROUP, 0)?
        };
        for bid in 0..count {
            bufs.provide(bid);
        }
        bufs.publish();
        syscall_count::add(1);
        // SAFETY: eventfd returns a new descriptor or -1.
        let fd = unsafe { libc::eventfd(0, libc::EFD_CLOEXEC | libc::EFD_NONBLOCK) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: a descriptor just opened and owned by nothing else.
        let never = unsafe { OwnedFd::from_raw_fd(fd) };
        // SAFETY: a zeroed msghdr asks for no name and no control data.
        let msghdr: Box<libc::msghdr> = Box::new(unsafe { std::mem::zeroed() });
        let mut r = Ring {
            ring,
            nl,
            control,
            bufs,
            msghdr,
            recv_armed: false,
            poll_armed: false,
            pending: VecDeque::new(),
            send_buf: Vec::with_capacity(1 << 16),
            send_spans: Vec::new(),
            in_flight: 0,
            send_error: None,
            timed: Vec::new(),
            timed_mem: Vec::new(),
            free_timed: Vec::new(),
            never,
            timed_ok: false,
            hold_until_ns: 0,
            bells: [Bell::new(nl), Bell::new(control)],
            truncated: 0,
            timed_overdue: 0,
        };
        // Arm now: a kernel without multishot recvmsg (< 6.0) refuses it at once.
        r.arm();
        syscall_count::add(1);
        r.ring.submit()?;
        r.drain();
        if let Some(e) = r.pending.iter().find(|c| c.user_data() == RECV && c.result() < 0) {
            return Err(io::Error::from_raw_os_error(-e.result()));
        }
        r.timed_ok = r.probe_timed();
        Ok(r)
    }

    /// Whether this kernel runs a timed send as `queue_send_at` builds it: a no-op in
    /// its place must run, after its hold was cancelled at its time.
    fn probe_timed(&mut self) -> bool {
        const PROBE: u64 = 5;
        let at = Timespec::new();
        let [hold, timer] = self.hold_until(&at, PROBE, PROBE);
        let nop = opcode::Nop::new().build().user_data(PROBE + 1);
        {
            let mut sq = self.ring.submission();
            // SAFETY: `at` outlives the submission below (the kernel copies it then).
            if unsafe { sq.push_multiple(&[hold, timer, nop]) }.is_err() {
                return false;
            }
        }
        let mut results = Vec::new();
        for _ in 0..4 {
            syscall_count::add(1);
            if self.ring.submit_and_wait(1).is_err() {
                return false;
            }
            for cqe in self.ring.completion() {
                match cqe.user_data() {
                    u if u == PROBE || u == PROBE + 1 => results.push((u, cqe.result())),
                    _ => self.pending.push_back(cqe),
                }
            }
            if results.iter().any(|&(u, _)| u == PROBE + 1) {
                break;
            }
        }
        results.iter().any(|&(u, r)| u == PROBE + 1 && r == 0)
    }

    /// What holds the request linked after them back until `at` (CLOCK_MONOTONIC): a
    /// poll that never fires (on an eventfd nobody writes), hard-linked, and a linked
    /// timeout that cancels it then. `at` must stay put until they are submitted.
    fn hold_until(&self, at: *const Timespec, hold: u64, timer: u64) -> [squeue::Entry; 2] {
        [
            opcode::PollAdd::new(Fd(self.never.as_raw_fd()), libc::POLLIN as u32)
                .build()
                .flags(squeue::Flags::IO_HARDLINK)
                .user_data(hold),
            opcode::LinkTimeout::new(at)
                .flags(TimeoutFlags::ABS)
                .build()
                .flags(squeue::Flags::IO_HARDLINK | squeue::Flags::SKIP_SUCCESS)
                .user_data(timer),
        ]
    }

    /// Whether [`queue_send_at`](Self::queue_send_at) works here (Linux 5.17).
    pub fn can_time_sends(&self) -> bool {
        self.timed_ok
    }

    fn arm(&mut self) {
        let mut sq = self.ring.submission();
        if !self.recv_armed {
            let e =
                opcode::RecvMsgMulti::new(Fd(self.nl), &*self.msghdr as *const libc::msghdr, GROUP)
                    .build()
                    .user_data(RECV);
            // SAFETY: the msghdr and the buffer ring outlive the request (owned by self).
            if unsafe { sq.push(&e) }.is_ok() {
                self.recv_armed = true;
            }
        }
        if !self.poll_armed {
            let e =
                opcode::PollAdd::new(Fd(self.control), libc::POLLIN as u32).build().user_data(POLL);
            // SAFETY: no buffer involved.
            if unsafe { sq.push(&e) }.is_ok() {
                self.poll_armed = true;
            }
        }
    }

    /// Moves the kernel's completions to `pending`; sends are settled here.
    fn drain(&mut self) {
        for cqe in self.ring.completion() {
            let ud = cqe.user_data();
            if ud >= BELL {
                // Rung (or failed: the no-ops then fail too, and post as many). Each
                // completion is counted as it comes: a wait may end before the rest.
                if let Some(bell) = self.bells.get_mut((ud - BELL) as usize) {
                    bell.took();
                }
            } else if ud >= TIMER {
                // Its send fails too (cancelled), and reports that.
            } else if ud >= HOLD {
                // Cancelled at its time (or failed, and then its send fails too).
                if let Some(Some(t)) = self.timed.get_mut((ud - HOLD) as usize) {
                    t.held = true;
                }
            } else if ud >= TIMED {
                let k = (ud - TIMED) as usize;
                if self.timed.get_mut(k).and_then(Option::take).is_some() {
                    self.free_timed.push(k);
                }
                if cqe.result() < 0 && self.send_error.is_none() {
                    self.send_error = Some(io::Error::from_raw_os_error(-cqe.result()));
                }
            } else if ud == SEND {
                self.in_flight -= 1;
                if cqe.result() < 0 && self.send_error.is_none() {
                    self.send_error = Some(io::Error::from_raw_os_error(-cqe.result()));
                }
            } else {
                self.pending.push_back(cqe);
            }
        }
        if self.in_flight == 0 {
            self.send_buf.clear();
        }
    }

    /// Queues a datagram for the kernel; it goes out with the next `wait` (or
    /// `flush`), after those queued before it.
    pub fn queue_send(&mut self, d: &[u8]) -> io::Result<()> {
        if self.in_flight > 0 {
            // Earlier sends are not complete (the kernel punted them): their buffer is
            // still theirs.
            self.reap_sends()?;
        }
        let at = self.send_buf.len();
        self.send_buf.extend_from_slice(d);
        self.send_spans.push((at, d.len()));
        Ok(())
    }

    /// Queues a datagram that the kernel sends at `due_ns` (CLOCK_MONOTONIC),
    /// submitted with the next `wait`; the kernel sends it while the daemon waits (on
    /// 6.1, inside its own `io_uring_enter`). Several due at one time may go in any
    /// order.
    ///
    /// The send is hard-linked behind a poll that never fires (on an eventfd nobody
    /// writes), which a linked timeout cancels at `due_ns`. A plain timeout request
    /// would do too, but the kernel ends every wait when one fires.
    pub fn queue_send_at(&mut self, d: &[u8], due_ns: u64) -> io::Result<()> {
        let k = self.free_timed.pop().unwrap_or_else(|| {
            self.timed.push(None);
            self.timed_mem.push(TimedMem { datagram: Vec::new(), at: Box::new(Timespec::new()) });
            self.timed.len() - 1
        });
        let mem = &mut self.timed_mem[k];
        *mem.at = Timespec::new().sec(due_ns / 1_000_000_000).nsec((due_ns % 1_000_000_000) as u32);
        mem.datagram.clear();
        mem.datagram.extend_from_slice(d);
        let (at, ptr, len): (*const Timespec, *const u8, u32) =
            (&*mem.at, mem.datagram.as_ptr(), mem.datagram.len() as u32);
        let [hold, timer] = self.hold_until(at, HOLD + k as u64, TIMER + k as u64);
        let send = opcode::Send::new(Fd(self.nl), ptr, len).build().user_data(TIMED + k as u64);
        self.timed[k] = Some(Timed { due_ns, held: false, overdue: false });
        // The three go in together: a link must not be cut by a full queue.
        self.make_room(3)?;
        let mut sq = self.ring.submission();
        // SAFETY: the timespec and the datagram live in `timed_mem[k]`, untouched until the send's
        // completion is taken (`drain`).
        unsafe {
            sq.push(&hold).expect("room for a hold");
            sq.push(&timer).expect("room for its timer");
            sq.push(&send).expect("room for its send");
        }
        Ok(())
    }

    /// Submits what is queued if fewer than `n` entries are free: a linked chain of
    /// `n` must go in whole.
    fn make_room(&mut self, n: usize) -> io::Result<()> {
        let room = {
            let sq = self.ring.submission();
            sq.capacity() - sq.len()
        };
        if room < n {
            syscall_count::add(1);
            self.ring.submit()?;
        }
        Ok(())
    }

    /// Completions still to come from the timed sends due by `held_ns` and by
    /// `all_ns` (not before it): two each (its hold, cancelled at its time, and its
    /// send), one once the hold's was taken. One more than `OVERDUE_NS` late is not
    /// counted (a wait must not hang on it), and is counted in `timed_overdue` once.
    fn timed_completions_by(&mut self, held_ns: u64, all_ns: u64) -> (usize, usize) {
        if self.timed.iter().all(Option::is_none) {
            return (0, 0);
        }
        let now = crate::syscall_count::monotonic_ns();
        let (mut held, mut all) = (0, 0);
        for t in self.timed.iter_mut().flatten() {
            if t.due_ns > all_ns {
                continue;
            }
            if t.due_ns.saturating_add(OVERDUE_NS) < now {
                if !t.overdue {
                    t.overdue = true;
                    self.timed_overdue += 1;
                }
                continue;
            }
            let n = if t.held { 1 } else { 2 };
            all += n;
            if t.due_ns <= held_ns {
                held += n;
            }
        }
        (held, all)
    }

    /// Lets the next wait count the timed sends due by `t_ns` (CLOCK_MONOTONIC): a
    /// datagram that comes before they are out ends it once they are. Those due later
    /// do not end it, and do not hold a datagram back (see `Bell`, private to this
    /// module). 0 (the default) holds none: a datagram ends the wait at once.
    pub fn timed_may_hold_until(&mut self, t_ns: u64) {
        self.hold_until_ns = t_ns;
    }

    /// Timed sends not completed yet.
    pub fn timed_pending(&self) -> usize {
        self.timed.iter().flatten().count()
    }

    fn push_sends(&mut self) {
        let n = self.send_spans.len();
        let base = self.send_buf.as_ptr();
        let mut sq = self.ring.submission();
        for (k, &(at, len)) in self.send_spans.iter().enumerate() {
            // SAFETY: inside send_buf, which stays untouched until every send completed.
            let mut e = opcode::Send::new(Fd(self.nl), unsafe { base.add(at) }, len as u32)
                .build()
                .user_data(SEND);
            if k + 1 < n {
                // In order: a punted send must not be overtaken by the next.
                e = e.flags(squeue::Flags::IO_LINK);
            }
            // SAFETY: as above.
            if unsafe { sq.push(&e) }.is_err() {
                // Full (more than ~250 datagrams in one round): submit what is there.
                drop(sq);
                syscall_count::add(1);
                let _ = self.ring.submit();
                sq = self.ring.submission();
                // SAFETY: as above.
                unsafe { sq.push(&e) }.expect("an empty submission queue takes a send");
            }
            self.in_flight += 1;
        }
        self.send_spans.clear();
    }

    fn take_send_error(&mut self) -> io::Result<()> {
        match self.send_error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Submits the queued sends and waits until all have completed, the timed ones
    /// too.
    pub fn flush(&mut self) -> io::Result<()> {
        self.push_sends();
        self.reap_sends()?;
        while self.timed_pending() > 0 {
            self.wait_one()?;
        }
        self.take_send_error()
    }

    /// Submits what is queued and takes the completions once one has come.
    fn wait_one(&mut self) -> io::Result<()> {
        syscall_count::add(1);
        match self.ring.submit_and_wait(1) {
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
        self.drain();
        Ok(())
    }

    fn reap_sends(&mut self) -> io::Result<()> {
        while self.in_flight > 0 {
            self.wait_one()?;
        }
        self.take_send_error()
    }

    /// Submits the queued sends and waits until a datagram arrives, the control
    /// sockets are readable, `deadline_ns` (CLOCK_MONOTONIC) passes or `max_ms`
    /// elapse; then hands `each` up to `max` datagrams, in arrival order (the rest
    /// stay for the next call, which then does not block). When the receive ran out
    /// of buffers, they are handed back and what the socket still holds is taken in
    /// the same call (one more enter, not waiting), up to `max`. Timed sends complete
    /// within the wait without ending it; a datagram ends it once those due by
    /// [`timed_may_hold_until`](Self::timed_may_hold_until) are out.
    pub fn wait(
        &mut self,
        deadline_ns: Option<u64>,
        max_ms: u64,
        max: usize,
        mut each: impl FnMut(&[u8]),
    ) -> io::Result<Woken> {
        let mut woken = Woken::default();
        let mut first = true;
        loop {
            self.arm();
            self.push_sends();
            // Completions already taken (sends never stay there) mean: do not block.
            let timeout = if !self.pending.is_empty() || !first {
                0
            } else {
                timeout_ns(deadline_ns, max_ms)
            };
            first = false;
            self.bells[0].rang = false;
            self.enter(timeout, deadline_ns)?;
            let ran_out = self.take(&mut woken, max, &mut each)?;
            // The netlink socket's bell may end the wait before the receive has
            // taken the datagram that rang it: take it now, not a round later.
            let early_bell = self.bells[0].rang && woken.datagrams == 0 && timeout != 0;
            if (!ran_out && !early_bell) || woken.datagrams >= max {
                return Ok(woken);
            }
        }
    }

    /// Submits and waits for every send's completion — the timed sends' that are due
    /// meanwhile too — and one more event, or `timeout_ns`; takes the completions.
    /// `deadline_ns`: the timed sends due by then count.
    ///
    /// The count: the timed sends due by the hold ([`timed_may_hold_until`]) and one
    /// datagram, plus what the bells post. Timed sends due after the hold post fewer
    /// than the bells do (they are armed to that), so they never end the wait alone;
    /// a datagram rings the bells and ends it once the held ones are out.
    ///
    /// [`timed_may_hold_until`]: Self::timed_may_hold_until
    fn enter(&mut self, timeout_ns: u64, deadline_ns: Option<u64>) -> io::Result<()> {
        let ts = Timespec::new()
            .sec(timeout_ns / 1_000_000_000)
            .nsec((timeout_ns % 1_000_000_000) as u32);
        let args = SubmitArgs::new().timespec(&ts);
        let mut want = self.in_flight + 1;
        if timeout_ns != 0 {
            let by = deadline_ns.unwrap_or(u64::MAX);
            let (held, all) = self.timed_completions_by(by.min(self.hold_until_ns), by);
            // Completions of bells rung before are still to come: they count, and
            // so do the bells armed now, which only a datagram rings.
            let armed = self.ring_bells(all - held)?;
            want += held + armed + self.bells.iter().map(|b| b.ringing).sum::<usize>();
        }
        syscall_count::add(1);
        match self.ring.submitter().submit_with_args(want, &args) {
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.raw_os_error(),
                    Some(libc::ETIME) | Some(libc::EINTR) | Some(libc::EBUSY)
                ) => {}
            Err(e) => return Err(e),
        }
        self.drain();
        self.take_send_error()
    }

    /// Arms the bells so that each, not rung yet, posts at least `n` completions
    /// when it rings (the control sockets' at least as many as the netlink socket's);
    /// returns what the netlink socket's will post.
    fn ring_bells(&mut self, n: usize) -> io::Result<usize> {
        let n = n.min(BELL_MAX);
        let want = [n, n.max(self.bells[0].unrung).min(BELL_MAX)];
        for (b, want) in want.into_iter().enumerate() {
            while self.bells[b].unrung < want {
                let k = (want - self.bells[b].unrung).min(BELL_CHAIN_MAX);
                self.make_room(k)?;
                let ud = BELL + b as u64;
                let poll = opcode::PollAdd::new(Fd(self.bells[b].fd), libc::POLLIN as u32)
                    .build()
                    .user_data(ud);
                let mut sq = self.ring.submission();
                // SAFETY: no buffers; the descriptors outlive the ring (owned by the daemon).
                unsafe {
                    sq.push(&if k > 1 { poll.flags(squeue::Flags::IO_LINK) } else { poll })
                        .expect("room for a bell");
                    for j in 1..k {
                        let nop = opcode::Nop::new().build().user_data(ud);
                        sq.push(&if j + 1 < k { nop.flags(squeue::Flags::IO_LINK) } else { nop })
                            .expect("room for a bell's no-op");
                    }
                }
                self.bells[b].unrung += k;
            }
        }
        Ok(self.bells[0].unrung)
    }

    /// Handles pending completions until `woken` has `max` datagrams; true if the
    /// receive stopped for want of buffers (they are handed back by then).
    fn take(
        &mut self,
        woken: &mut Woken,
        max: usize,
        each: &mut impl FnMut(&[u8]),
    ) -> io::Result<bool> {
        let mut provided = false;
        let mut ran_out = false;
        while woken.datagrams < max {
            let Some(cqe) = self.pending.pop_front() else { break };
            match cqe.user_data() {
                POLL => {
                    self.poll_armed = false;
                    woken.control = true;
                }
                RECV => {
                    if !cqueue::more(cqe.flags()) {
                        self.recv_armed = false;
                    }
                    let r = cqe.result();
                    if r < 0 {
                        // ENOBUFS: every buffer was in use; the receive is armed again.
                        if r != -libc::ENOBUFS {
                            return Err(io::Error::from_raw_os_error(-r));
                        }
                        ran_out = true;
                        continue;
                    }
                    let Some(bid) = cqueue::buffer_select(cqe.flags()) else { continue };
                    let buf = &self.bufs.buffer(bid)[..r as usize];
                    match RecvMsgOut::parse(buf, &self.msghdr) {
                        Ok(m) if !m.is_payload_truncated() => {
                            woken.datagrams += 1;
                            each(m.payload_data());
                        }
                        _ => self.truncated += 1,
                    }
                    self.bufs.provide(bid);
                    provided = true;
                }
                _ => {}
            }
        }
        if provided {
            self.bufs.publish();
        }
        Ok(ran_out)
    }
}

mod buf_ring;
#[cfg(test)]
mod tests;
