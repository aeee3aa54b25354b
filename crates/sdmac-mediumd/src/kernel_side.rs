//! The kernel side of the daemon's loop, one interface ([`KernelSide`]) over the two
//! ways it waits and moves datagrams: io_uring ([`UringSide`]: one system call a
//! round, sends at a set time) and epoll ([`EpollSide`]: a wait, then recvmmsg and
//! sendmmsg batches). The loop is written once, on the interface.

use crate::error::{io_err, DaemonError};
use crate::netlink::{NlSocket, RecvBatch};
use crate::poller::Poller;
use crate::uring::Ring;
use std::io;

/// The key of the netlink socket in the epoll set (when epoll waits on it).
pub const NL: u64 = 0;

/// Frames taken from the kernel per round at most, so that outputs go out while it
/// floods (the epoll side's 4 batches of 64).
pub const MAX_FRAMES_PER_ROUND: usize = 256;

/// How the loop waits, receives from the kernel and sends to it.
pub trait KernelSide {
    /// Its name in the log: "io_uring" or "epoll".
    fn name(&self) -> &'static str;

    /// Waits (io_uring: sending what is queued first) until
    /// `deadline_ns` (CLOCK_MONOTONIC), at most 500 ms, or until the kernel or a
    /// control socket has something; the keys of the control sockets that have are
    /// added to `ready`. Datagrams that came with the wake-up go to `feed`, with the
    /// time it woke (ns on the daemon's clock, from `now`).
    fn wait(
        &mut self,
        deadline_ns: Option<u64>,
        poller: &mut Poller,
        ready: &mut Vec<u64>,
        now: &dyn Fn() -> u64,
        feed: &mut dyn FnMut(&[u8], u64),
    ) -> Result<(), DaemonError>;

    /// Receives a bounded round of the datagrams the wait did not hand over, batch by
    /// batch, each with the time it was taken.
    fn receive(
        &mut self,
        now: &dyn Fn() -> u64,
        each: &mut dyn FnMut(&RecvBatch, u64) -> Result<(), DaemonError>,
    ) -> Result<(), DaemonError>;

    /// Takes one batch of what the kernel still holds, without waiting; returns how
    /// many datagrams it took.
    fn receive_now(&mut self, feed: &mut dyn FnMut(&[u8])) -> Result<usize, DaemonError>;

    /// Queues a datagram for the kernel.
    fn queue(&mut self, d: &[u8]) -> io::Result<()>;

    /// Sends the queued datagrams now, or leaves them to go with the next wait.
    fn send_queued(&mut self) -> io::Result<()>;

    /// Sends everything queued, before the daemon exits.
    fn flush(&mut self) -> io::Result<()>;

    /// Takes datagrams to send at a set time ([`KernelSide::queue_at`]).
    fn queues_timed(&self) -> bool;

    /// The kernel itself sends those at their time (else they leave on queueing).
    fn can_time_sends(&self) -> bool;

    /// Queues a datagram for the kernel to send at `due_ns` (CLOCK_MONOTONIC).
    fn queue_at(&mut self, d: &[u8], due_ns: u64) -> io::Result<()>;

    /// Lets the next wait hold a datagram back until the timed sends due by `t_ns`
    /// (CLOCK_MONOTONIC) are out.
    fn hold_until(&mut self, t_ns: u64);

    /// Timed sends found not done 2 ms after their time.
    fn timed_overdue(&self) -> u64;
}

/// The io_uring side: the netlink socket and the control sockets' epoll set on a
/// [`Ring`].
pub struct UringSide {
    ring: Ring,
}

impl UringSide {
    /// The side on `ring`.
    pub fn new(ring: Ring) -> UringSide {
        UringSide { ring }
    }
}

impl KernelSide for UringSide {
    fn name(&self) -> &'static str {
        "io_uring"
    }

    fn wait(
        &mut self,
        deadline_ns: Option<u64>,
        poller: &mut Poller,
        ready: &mut Vec<u64>,
        now: &dyn Fn() -> u64,
        feed: &mut dyn FnMut(&[u8], u64),
    ) -> Result<(), DaemonError> {
        // Sends this round's outputs, waits, and takes what the kernel sent
        // (bounded, as the epoll side's receive). Frames that came together carry
        // one time, the wake-up's — not the times the daemon got round to each,
        // which would depend on how fast it parses them.
        let mut woke_at = None;
        let woken = self
            .ring
            .wait(deadline_ns, 500, MAX_FRAMES_PER_ROUND, |d| {
                let t = *woke_at.get_or_insert_with(now);
                feed(d, t)
            })
            .map_err(io_err("io_uring"))?;
        if woken.control {
            ready.extend_from_slice(poller.wait(Some(0), 0).map_err(io_err("epoll"))?);
        }
        Ok(())
    }

    fn receive(
        &mut self,
        _now: &dyn Fn() -> u64,
        _each: &mut dyn FnMut(&RecvBatch, u64) -> Result<(), DaemonError>,
    ) -> Result<(), DaemonError> {
        // The wait took them.
        Ok(())
    }

    fn receive_now(&mut self, feed: &mut dyn FnMut(&[u8])) -> Result<usize, DaemonError> {
        Ok(self
            .ring
            .wait(Some(0), 0, MAX_FRAMES_PER_ROUND, feed)
            .map_err(io_err("io_uring"))?
            .datagrams)
    }

    fn queue(&mut self, d: &[u8]) -> io::Result<()> {
        self.ring.queue_send(d)
    }

    fn send_queued(&mut self) -> io::Result<()> {
        // They go with the next wait.
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.ring.flush()
    }

    fn queues_timed(&self) -> bool {
        true
    }

    fn can_time_sends(&self) -> bool {
        self.ring.can_time_sends()
    }

    fn queue_at(&mut self, d: &[u8], due_ns: u64) -> io::Result<()> {
        self.ring.queue_send_at(d, due_ns)
    }

    fn hold_until(&mut self, t_ns: u64) {
        self.ring.timed_may_hold_until(t_ns);
    }

    fn timed_overdue(&self) -> u64 {
        self.ring.timed_overdue
    }
}

/// The epoll side: the netlink socket in the epoll set, received from with recvmmsg
/// after the wait, sent to with one sendmmsg a round.
pub struct EpollSide<'a> {
    sock: &'a NlSocket,
    rx: RecvBatch,
    /// The socket may hold more than the last round took.
    more: bool,
    batch: crate::encode::Batch,
}

impl<'a> EpollSide<'a> {
    /// The side of `sock`, which must be in the epoll set under [`NL`].
    pub fn new(sock: &'a NlSocket) -> EpollSide<'a> {
        EpollSide {
            sock,
            rx: RecvBatch::new(64, 16 << 10),
            more: true,
            batch: crate::encode::Batch::default(),
        }
    }
}

impl KernelSide for EpollSide<'_> {
    fn name(&self) -> &'static str {
        "epoll"
    }

    fn wait(
        &mut self,
        deadline_ns: Option<u64>,
        poller: &mut Poller,
        ready: &mut Vec<u64>,
        _now: &dyn Fn() -> u64,
        _feed: &mut dyn FnMut(&[u8], u64),
    ) -> Result<(), DaemonError> {
        ready.extend_from_slice(poller.wait(deadline_ns, 500).map_err(io_err("epoll"))?);
        self.more |= ready.contains(&NL);
        Ok(())
    }

    fn receive(
        &mut self,
        now: &dyn Fn() -> u64,
        each: &mut dyn FnMut(&RecvBatch, u64) -> Result<(), DaemonError>,
    ) -> Result<(), DaemonError> {
        self.sock.recv_round(&mut self.rx, &mut self.more, now, each)
    }

    fn receive_now(&mut self, feed: &mut dyn FnMut(&[u8])) -> Result<usize, DaemonError> {
        let n = self.sock.recv_batch(&mut self.rx).map_err(io_err("netlink recv"))?;
        self.rx.datagrams().for_each(feed);
        Ok(n)
    }

    fn queue(&mut self, d: &[u8]) -> io::Result<()> {
        self.batch.push(d);
        Ok(())
    }

    fn send_queued(&mut self) -> io::Result<()> {
        self.batch.send_on(self.sock)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.batch.send_on(self.sock)
    }

    fn queues_timed(&self) -> bool {
        false
    }

    fn can_time_sends(&self) -> bool {
        false
    }

    fn queue_at(&mut self, d: &[u8], _due_ns: u64) -> io::Result<()> {
        // Nothing runs ahead without timed sends: it is due now.
        self.queue(d)
    }

    fn hold_until(&mut self, _t_ns: u64) {}

    fn timed_overdue(&self) -> u64 {
        0
    }
}
