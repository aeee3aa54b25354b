//! The generic netlink socket of the daemon (one syscall per batch, a big receive
//! buffer, no ENOBUFS storms).

use crate::error::{io_err, DaemonError};
use crate::syscall_count;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

const SOL_NETLINK: libc::c_int = 270;
const NETLINK_NO_ENOBUFS: libc::c_int = 5;

/// A NETLINK_GENERIC socket.
#[derive(Debug)]
pub struct NlSocket {
    fd: OwnedFd,
    pid: u32,
}

fn setsockopt_int(
    fd: RawFd,
    level: libc::c_int,
    name: libc::c_int,
    v: libc::c_int,
) -> io::Result<()> {
    // SAFETY: passes a valid pointer to an int of the right size.
    let r = unsafe {
        libc::setsockopt(fd, level, name, &v as *const libc::c_int as *const libc::c_void, 4)
    };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

impl NlSocket {
    /// Opens and binds a generic netlink socket with a receive buffer of `rcvbuf`
    /// bytes (forced past the system limit when running as root).
    pub fn open(rcvbuf: usize) -> io::Result<NlSocket> {
        // SAFETY: plain syscall; the result is checked.
        let fd = unsafe {
            libc::socket(
                libc::AF_NETLINK,
                libc::SOCK_RAW | libc::SOCK_CLOEXEC,
                libc::NETLINK_GENERIC,
            )
        };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: a fresh descriptor nobody else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        // SAFETY: a zeroed sockaddr_nl is valid; family set below.
        let mut sa: libc::sockaddr_nl = unsafe { std::mem::zeroed() };
        sa.nl_family = libc::AF_NETLINK as u16;
        // SAFETY: sa is a valid sockaddr_nl of the given size.
        let r = unsafe {
            libc::bind(
                fd.as_raw_fd(),
                &sa as *const _ as *const libc::sockaddr,
                std::mem::size_of::<libc::sockaddr_nl>() as u32,
            )
        };
        if r < 0 {
            return Err(io::Error::last_os_error());
        }
        let size = rcvbuf.min(i32::MAX as usize) as libc::c_int;
        if setsockopt_int(fd.as_raw_fd(), libc::SOL_SOCKET, libc::SO_RCVBUFFORCE, size).is_err() {
            setsockopt_int(fd.as_raw_fd(), libc::SOL_SOCKET, libc::SO_RCVBUF, size)?;
        }
        let _ = setsockopt_int(fd.as_raw_fd(), libc::SOL_SOCKET, libc::SO_SNDBUFFORCE, size);
        let _ = setsockopt_int(fd.as_raw_fd(), SOL_NETLINK, NETLINK_NO_ENOBUFS, 1);
        let mut len = std::mem::size_of::<libc::sockaddr_nl>() as u32;
        // SAFETY: sa and len are valid for writing.
        unsafe {
            libc::getsockname(fd.as_raw_fd(), &mut sa as *mut _ as *mut libc::sockaddr, &mut len)
        };
        Ok(NlSocket { fd, pid: sa.nl_pid })
    }

    /// The port id the kernel gave the socket.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// Sends one datagram (one or more netlink messages) to the kernel.
    pub fn send(&self, buf: &[u8]) -> io::Result<()> {
        // SAFETY: a zeroed sockaddr_nl addresses the kernel (pid 0).
        let mut sa: libc::sockaddr_nl = unsafe { std::mem::zeroed() };
        sa.nl_family = libc::AF_NETLINK as u16;
        loop {
            syscall_count::add(1);
            // SAFETY: buf and sa are valid for the lengths given.
            let r = unsafe {
                libc::sendto(
                    self.fd.as_raw_fd(),
                    buf.as_ptr() as *const libc::c_void,
                    buf.len(),
                    0,
                    &sa as *const _ as *const libc::sockaddr,
                    std::mem::size_of::<libc::sockaddr_nl>() as u32,
                )
            };
            if r >= 0 {
                return Ok(());
            }
            let e = io::Error::last_os_error();
            if e.kind() != io::ErrorKind::Interrupted {
                return Err(e);
            }
        }
    }

    /// Sends several datagrams (`spans` of `buf`: offset, length), in order, with one
    /// sendmmsg per [`MMSG_MAX`] of them (more only when the kernel takes part of
    /// them). The message headers live on the stack: nothing is allocated.
    pub fn send_many(&self, buf: &[u8], spans: &[(usize, usize)]) -> io::Result<()> {
        // SAFETY: a zeroed sockaddr_nl addresses the kernel (pid 0).
        let mut sa: libc::sockaddr_nl = unsafe { std::mem::zeroed() };
        sa.nl_family = libc::AF_NETLINK as u16;
        let mut iov = [libc::iovec { iov_base: std::ptr::null_mut(), iov_len: 0 }; MMSG_MAX];
        // SAFETY: an all-zero mmsghdr is valid (null name, iovec and control).
        let mut hdrs: [libc::mmsghdr; MMSG_MAX] = unsafe { std::mem::zeroed() };
        for chunk in spans.chunks(MMSG_MAX) {
            for (k, &(at, len)) in chunk.iter().enumerate() {
                iov[k] = libc::iovec {
                    iov_base: buf[at..at + len].as_ptr() as *mut libc::c_void,
                    iov_len: len,
                };
                let h = &mut hdrs[k].msg_hdr;
                h.msg_name = &mut sa as *mut _ as *mut libc::c_void;
                h.msg_namelen = std::mem::size_of::<libc::sockaddr_nl>() as u32;
                h.msg_iov = &mut iov[k] as *mut libc::iovec;
                h.msg_iovlen = 1;
            }
            let mut done = 0;
            while done < chunk.len() {
                syscall_count::add(1);
                let rest = &mut hdrs[done..chunk.len()];
                // SAFETY: every header points at a live iovec, buffer and address.
                let r = unsafe {
                    libc::sendmmsg(
                        self.fd.as_raw_fd(),
                        rest.as_mut_ptr(),
                        rest.len() as libc::c_uint,
                        0,
                    )
                };
                if r < 0 {
                    let e = io::Error::last_os_error();
                    if e.kind() != io::ErrorKind::Interrupted {
                        return Err(e);
                    }
                    continue;
                }
                done += r as usize;
            }
        }
        Ok(())
    }

    /// Receives one datagram; `Ok(None)` when nothing is waiting (non-blocking) .
    pub fn recv(&self, buf: &mut [u8], block: bool) -> io::Result<Option<usize>> {
        let flags = if block { 0 } else { libc::MSG_DONTWAIT };
        loop {
            syscall_count::add(1);
            // SAFETY: buf is valid for writing buf.len() bytes.
            let r = unsafe {
                libc::recv(
                    self.fd.as_raw_fd(),
                    buf.as_mut_ptr() as *mut libc::c_void,
                    buf.len(),
                    flags,
                )
            };
            if r >= 0 {
                return Ok(Some(r as usize));
            }
            let e = io::Error::last_os_error();
            match e.kind() {
                io::ErrorKind::Interrupted => continue,
                io::ErrorKind::WouldBlock => return Ok(None),
                _ => return Err(e),
            }
        }
    }
}

/// Datagrams one sendmmsg or recvmmsg takes at most (their headers are on the stack).
pub const MMSG_MAX: usize = 64;

/// Receive batches a loop takes per round at most, so that its outputs go out even
/// while the kernel sends faster than it reads.
const MAX_BATCHES_PER_ROUND: usize = 4;

/// Room for a batch of datagrams received with one system call.
#[derive(Debug)]
pub struct RecvBatch {
    data: Vec<u8>,
    slot: usize,
    lens: Vec<usize>,
    truncated: u64,
}

impl RecvBatch {
    /// `slots` datagrams (at most [`MMSG_MAX`]: more are not taken) of up to `slot`
    /// bytes each.
    pub fn new(slots: usize, slot: usize) -> RecvBatch {
        let slots = slots.min(MMSG_MAX);
        RecvBatch {
            data: vec![0; slots * slot],
            slot,
            lens: Vec::with_capacity(slots),
            truncated: 0,
        }
    }

    /// How many datagrams one call can take.
    pub fn capacity(&self) -> usize {
        self.data.len() / self.slot
    }

    /// The datagrams of the last call, in arrival order.
    pub fn datagrams(&self) -> impl Iterator<Item = &[u8]> + '_ {
        self.lens.iter().enumerate().map(|(i, &n)| &self.data[i * self.slot..i * self.slot + n])
    }

    /// Datagrams cut short since the batch was made (bigger than a slot; dropped).
    pub fn truncated(&self) -> u64 {
        self.truncated
    }
}

impl NlSocket {
    /// Receives every datagram waiting, up to the batch's capacity, with one system
    /// call (recvmmsg, non-blocking). Returns how many arrived: fewer than the
    /// capacity means the socket was empty.
    pub fn recv_batch(&self, b: &mut RecvBatch) -> io::Result<usize> {
        let slots = b.capacity();
        b.lens.clear();
        let base = b.data.as_mut_ptr();
        // On the stack (a batch has at most MMSG_MAX slots): nothing is allocated.
        let mut iov = [libc::iovec { iov_base: std::ptr::null_mut(), iov_len: 0 }; MMSG_MAX];
        // SAFETY: a zeroed mmsghdr is valid (null name and control).
        let mut hdrs: [libc::mmsghdr; MMSG_MAX] = unsafe { std::mem::zeroed() };
        for (i, (h, v)) in hdrs.iter_mut().zip(iov.iter_mut()).take(slots).enumerate() {
            // SAFETY: every slot lies inside `data`.
            *v = libc::iovec {
                iov_base: unsafe { base.add(i * b.slot) } as *mut libc::c_void,
                iov_len: b.slot,
            };
            h.msg_hdr.msg_iov = v;
            h.msg_hdr.msg_iovlen = 1;
        }
        loop {
            syscall_count::add(1);
            // SAFETY: hdrs and the buffers they point to live across the call.
            let r = unsafe {
                libc::recvmmsg(
                    self.fd.as_raw_fd(),
                    hdrs.as_mut_ptr(),
                    slots as libc::c_uint,
                    libc::MSG_DONTWAIT,
                    std::ptr::null_mut(),
                )
            };
            if r >= 0 {
                for h in &hdrs[..r as usize] {
                    if h.msg_hdr.msg_flags & libc::MSG_TRUNC != 0 {
                        b.truncated += 1;
                        b.lens.push(0);
                    } else {
                        b.lens.push(h.msg_len as usize);
                    }
                }
                return Ok(r as usize);
            }
            let e = io::Error::last_os_error();
            match e.kind() {
                io::ErrorKind::Interrupted => continue,
                io::ErrorKind::WouldBlock => return Ok(0),
                _ => return Err(e),
            }
        }
    }
}

impl NlSocket {
    /// One round's receive: batches until one comes back short (the socket is then
    /// empty) or MAX_BATCHES_PER_ROUND were read — the socket stays readable and the
    /// next wait returns at once. `more` says whether the socket may still hold
    /// datagrams (set it when epoll reports it readable; a round cut short leaves it
    /// set). `each` gets every batch with the time it was read (`now()`).
    pub fn recv_round(
        &self,
        b: &mut RecvBatch,
        more: &mut bool,
        now: impl Fn() -> u64,
        mut each: impl FnMut(&RecvBatch, u64) -> Result<(), DaemonError>,
    ) -> Result<(), DaemonError> {
        let mut batches = 0;
        while *more && batches < MAX_BATCHES_PER_ROUND {
            batches += 1;
            let n = self.recv_batch(b).map_err(io_err("netlink recv"))?;
            *more = n == b.capacity();
            each(b, now())?;
        }
        Ok(())
    }
}

impl AsRawFd for NlSocket {
    fn as_raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}
