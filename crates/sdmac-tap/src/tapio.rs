//! Batched TAP I/O on io_uring: many reads and writes of the TAP device per system
//! call.
//!
//! A TAP device hands over one frame per `read(2)` and takes one per `write(2)`
//! (`readv`/`writev` gather one frame from several pieces, not several frames), so
//! batching is done by keeping many single-frame operations queued on a ring:
//!
//! - up to [`READS`] reads are kept armed, each into a free pool buffer at the
//!   headroom offset; the kernel completes them as frames arrive (a read that finds
//!   no frame waits inside the kernel, not in a thread);
//! - every frame for the TAP device becomes a write of its own receive buffer
//!   ([`WRITES`] of them, so a pass can queue as many writes), submitted together;
//! - the interface's event descriptor is watched by a poll on the same ring, so an
//!   idle path waits in one `io_uring_enter` for a frame, a write's end, a
//!   confirmation or an indication.
//!
//! The pool buffers and the write buffers are registered with the ring once, and
//! used with `READ_FIXED`/`WRITE_FIXED` (no page pinning per operation); where the
//! kernel refuses the registration, plain `READ`/`WRITE` are used. All the
//! operations a pass queues go in with one `io_uring_enter`, and completions are
//! read from the shared completion queue without a system call, so in busy-poll
//! mode a pass with nothing new to submit makes no system call at all.
//!
//! The ring owns the buffers of its operations in flight, and on drop cancels them
//! and waits for their completions before the buffers can be freed (a buffer whose
//! operation it cannot get back is leaked, never freed under the kernel).

use crate::queue::{FrameBuf, BUF_LEN};
use io_uring::{cqueue, opcode, squeue, types, IoUring};
use std::io;
use std::os::fd::RawFd;

/// Reads kept armed on the TAP device.
pub const READS: usize = 32;
/// Write buffers: frames written to the TAP device in flight at once.
pub const WRITES: usize = 32;
/// Capacity of a write buffer: a received MPDU (an MSDU, its header, slack).
pub const WRITE_BUF_LEN: usize = BUF_LEN + 64;

const TAG_SHIFT: u32 = 32;
const TAG_READ: u64 = 1 << TAG_SHIFT;
const TAG_WRITE: u64 = 2 << TAG_SHIFT;
const TAG_POLL: u64 = 3 << TAG_SHIFT;
const TAG_CANCEL: u64 = 4 << TAG_SHIFT;
const SLOT_MASK: u64 = (1 << TAG_SHIFT) - 1;

/// One completion, as the data path sees it.
#[derive(Debug)]
pub enum Done {
    /// A read ended: its buffer, and the frame's length or the error.
    Read(FrameBuf, io::Result<usize>),
    /// A write ended: its buffer and slot (give them back with
    /// [`TapRing::put_write_buf`]), the bytes it was to write, and what it wrote
    /// or the error.
    Write(u16, Vec<u8>, usize, io::Result<usize>),
    /// The interface's event descriptor became readable (it has been drained).
    Wake,
}

/// The io_uring side of one station's TAP device.
pub struct TapRing {
    ring: IoUring,
    fd: RawFd,
    efd: Option<RawFd>,
    /// Registered buffers as (start address, end address), indexed by buffer index;
    /// empty when not registered.
    regions: Vec<(usize, usize)>,
    /// Registered pool buffers sorted by start address: (start, index).
    by_addr: Vec<(usize, u16)>,
    /// First index of the write buffers among the registered ones.
    write_base: u16,
    reads: Vec<Option<FrameBuf>>,
    read_free: Vec<u16>,
    write_bufs: Vec<Option<Vec<u8>>>,
    write_len: [usize; WRITES],
    write_free: Vec<u16>,
    poll_armed: bool,
    queued: usize,
    /// `io_uring_enter` calls made.
    pub enters: u64,
}

impl std::fmt::Debug for TapRing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TapRing")
            .field("fd", &self.fd)
            .field("registered", &!self.regions.is_empty())
            .field("reads_in_flight", &self.reads_in_flight())
            .finish()
    }
}

fn set_blocking(fd: RawFd) -> io::Result<()> {
    // SAFETY: fcntl on a descriptor the caller keeps open; no pointers.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 {
        return Err(io::Error::last_os_error());
    }
    // A read on a non-blocking descriptor would come back EAGAIN at once instead
    // of waiting in the ring for a frame.
    // SAFETY: as above.
    if unsafe { libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

impl TapRing {
    /// A ring for the packet descriptor `fd` (made blocking: reads wait in the
    /// ring) and the interface's event descriptor `efd`; `pool` are the addresses
    /// of the path's frame buffers (each [`BUF_LEN`] bytes), registered with the
    /// ring with the write buffers. Fails where the kernel has no io_uring, or one
    /// without the features used (a wait with a timeout, Linux 5.11).
    ///
    /// # Safety
    ///
    /// The buffers at `pool` must stay allocated, and not move, for the ring's
    /// life (the path's pool buffers are boxes allocated once).
    pub unsafe fn new(fd: RawFd, efd: Option<RawFd>, pool: &[*const u8]) -> io::Result<TapRing> {
        let ring = IoUring::builder().build(((READS + WRITES) * 2) as u32)?;
        if !ring.params().is_feature_ext_arg() {
            return Err(io::Error::other("this kernel's io_uring cannot wait with a timeout"));
        }
        set_blocking(fd)?;
        let write_bufs: Vec<Option<Vec<u8>>> =
            (0..WRITES).map(|_| Some(Vec::with_capacity(WRITE_BUF_LEN))).collect();
        let mut t = TapRing {
            ring,
            fd,
            efd,
            regions: Vec::new(),
            by_addr: Vec::new(),
            write_base: pool.len() as u16,
            reads: (0..READS).map(|_| None).collect(),
            read_free: (0..READS as u16).rev().collect(),
            write_bufs,
            write_len: [0; WRITES],
            write_free: (0..WRITES as u16).rev().collect(),
            poll_armed: false,
            queued: 0,
            enters: 0,
        };
        let mut iov: Vec<libc::iovec> =
            pool.iter().map(|&p| libc::iovec { iov_base: p as *mut _, iov_len: BUF_LEN }).collect();
        for b in t.write_bufs.iter_mut().flatten() {
            iov.push(libc::iovec { iov_base: b.as_mut_ptr().cast(), iov_len: b.capacity() });
        }
        // SAFETY: the pool buffers live as long as the ring (the caller's promise);
        // the write buffers are owned by it and never grown beyond their capacity.
        if unsafe { t.ring.submitter().register_buffers(&iov) }.is_ok() {
            t.regions = iov
                .iter()
                .map(|v| (v.iov_base as usize, v.iov_base as usize + v.iov_len))
                .collect();
            t.by_addr = pool.iter().enumerate().map(|(k, &p)| (p as usize, k as u16)).collect();
            t.by_addr.sort_unstable();
        }
        Ok(t)
    }

    /// Whether the buffers are registered (fixed reads and writes).
    pub fn registered(&self) -> bool {
        !self.regions.is_empty()
    }

    /// Reads armed and not yet completed.
    pub fn reads_in_flight(&self) -> usize {
        READS - self.read_free.len()
    }

    /// Whether another read can be armed.
    pub fn can_arm_read(&self) -> bool {
        !self.read_free.is_empty()
    }

    fn push(&mut self, e: squeue::Entry) -> io::Result<()> {
        // SAFETY: every entry's buffers are owned by the ring (or registered) until
        // its completion is seen.
        while unsafe { self.ring.submission().push(&e) }.is_err() {
            self.submit()?;
        }
        self.queued += 1;
        Ok(())
    }

    fn pool_index(&self, p: usize) -> Option<u16> {
        let k = self.by_addr.partition_point(|&(a, _)| a <= p);
        let (a, idx) = *self.by_addr.get(k.checked_sub(1)?)?;
        (p >= a && p < a + BUF_LEN).then_some(idx)
    }

    /// Arms a read of one frame into `buf` at `offset`; the buffer comes back with
    /// its completion. Hands the buffer back when no read slot is free.
    pub fn arm_read(&mut self, mut buf: FrameBuf, offset: usize) -> Result<(), FrameBuf> {
        let Some(slot) = self.read_free.pop() else { return Err(buf) };
        let ptr = buf[offset..].as_mut_ptr();
        let len = (BUF_LEN - offset) as u32;
        let e = match self.pool_index(buf.as_ptr() as usize) {
            Some(idx) => opcode::ReadFixed::new(types::Fd(self.fd), ptr, len, idx).build(),
            None => opcode::Read::new(types::Fd(self.fd), ptr, len).build(),
        };
        self.reads[slot as usize] = Some(buf);
        if self.push(e.user_data(TAG_READ | slot as u64)).is_err() {
            self.read_free.push(slot);
            return Err(self.reads[slot as usize].take().expect("just put"));
        }
        Ok(())
    }

    /// A free write buffer and its slot, if any.
    pub fn get_write_buf(&mut self) -> Option<(u16, Vec<u8>)> {
        let slot = self.write_free.pop()?;
        Some((slot, self.write_bufs[slot as usize].take().expect("a free slot has its buffer")))
    }

    /// Gives back a write buffer that was not written.
    pub fn put_write_buf(&mut self, slot: u16, buf: Vec<u8>) {
        self.write_bufs[slot as usize] = Some(buf);
        self.write_free.push(slot);
    }

    /// Queues a write of `buf[start..start + len]` to the TAP device; the buffer
    /// stays with the ring until its completion.
    pub fn write(&mut self, slot: u16, buf: Vec<u8>, start: usize, len: usize) -> io::Result<()> {
        let ptr = buf[start..start + len].as_ptr();
        let idx = self.write_base + slot;
        let e = match self.regions.get(idx as usize) {
            Some(&(a, b)) if ptr as usize >= a && ptr as usize + len <= b => {
                opcode::WriteFixed::new(types::Fd(self.fd), ptr, len as u32, idx).build()
            }
            _ => opcode::Write::new(types::Fd(self.fd), ptr, len as u32).build(),
        };
        self.write_bufs[slot as usize] = Some(buf);
        self.write_len[slot as usize] = len;
        if let Err(e) = self.push(e.user_data(TAG_WRITE | slot as u64)) {
            self.write_free.push(slot);
            return Err(e);
        }
        Ok(())
    }

    /// Arms the poll of the interface's event descriptor, if it is not armed.
    pub fn arm_wake(&mut self) -> io::Result<()> {
        if let (Some(efd), false) = (self.efd, self.poll_armed) {
            let e = opcode::PollAdd::new(types::Fd(efd), libc::POLLIN as u32).build();
            self.push(e.user_data(TAG_POLL))?;
            self.poll_armed = true;
        }
        Ok(())
    }

    /// Submits what is queued (one `io_uring_enter`; none when nothing is).
    pub fn submit(&mut self) -> io::Result<()> {
        if self.queued == 0 {
            return Ok(());
        }
        self.enters += 1;
        self.ring.submit()?;
        self.queued = 0;
        Ok(())
    }

    /// Submits what is queued and waits up to `timeout_ms` for one completion
    /// (returns at once if one is there).
    pub fn wait(&mut self, timeout_ms: u32) -> io::Result<()> {
        self.arm_wake()?;
        let ts = types::Timespec::new()
            .sec(u64::from(timeout_ms / 1000))
            .nsec((timeout_ms % 1000) * 1_000_000);
        let args = types::SubmitArgs::new().timespec(&ts);
        self.enters += 1;
        match self.ring.submitter().submit_with_args(1, &args) {
            Ok(_) => {}
            Err(e) if matches!(e.raw_os_error(), Some(libc::ETIME) | Some(libc::EINTR)) => {}
            Err(e) => return Err(e),
        }
        self.queued = 0;
        Ok(())
    }

    /// The next completion, read from the shared queue (no system call).
    pub fn next_done(&mut self) -> Option<Done> {
        loop {
            let c: cqueue::Entry = self.ring.completion().next()?;
            let res = c.result();
            let slot = (c.user_data() & SLOT_MASK) as usize;
            let out = |res: i32| {
                if res >= 0 {
                    Ok(res as usize)
                } else {
                    Err(io::Error::from_raw_os_error(-res))
                }
            };
            match c.user_data() & !SLOT_MASK {
                TAG_READ => {
                    let buf = self.reads[slot].take().expect("a read in flight has its buffer");
                    self.read_free.push(slot as u16);
                    return Some(Done::Read(buf, out(res)));
                }
                TAG_WRITE => {
                    let buf =
                        self.write_bufs[slot].take().expect("a write in flight has its buffer");
                    return Some(Done::Write(slot as u16, buf, self.write_len[slot], out(res)));
                }
                TAG_POLL => {
                    self.poll_armed = false;
                    if let Some(efd) = self.efd {
                        let mut v = [0u8; 8];
                        // SAFETY: reads 8 bytes into a local buffer; the eventfd is
                        // non-blocking.
                        unsafe { libc::read(efd, v.as_mut_ptr().cast(), 8) };
                    }
                    return Some(Done::Wake);
                }
                _ => continue,
            }
        }
    }

    fn in_flight(&self) -> usize {
        self.reads_in_flight() + self.write_bufs.iter().filter(|b| b.is_some()).count()
            - self.write_free.len()
            + usize::from(self.poll_armed)
    }
}

impl Drop for TapRing {
    fn drop(&mut self) {
        // The kernel may still write into the buffers of armed reads: cancel
        // everything and wait for the completions before any buffer is freed.
        // (No poll is armed again while waiting.)
        self.efd = None;
        let cancel =
            opcode::AsyncCancel2::new(types::CancelBuilder::any()).build().user_data(TAG_CANCEL);
        let _ = self.push(cancel);
        for _ in 0..100 {
            while let Some(d) = self.next_done() {
                if let Done::Write(slot, b, _, _) = d {
                    self.put_write_buf(slot, b);
                }
            }
            if self.in_flight() == 0 {
                return;
            }
            let _ = self.wait(10);
        }
        // Operations that did not come back: leak their buffers rather than free
        // memory the kernel may still use.
        for b in self.reads.drain(..).flatten() {
            std::mem::forget(b);
        }
        for b in self.write_bufs.drain(..).flatten() {
            std::mem::forget(b);
        }
    }
}
