//! The generic netlink socket of the daemon (one syscall per batch, a big receive
//! buffer, no ENOBUFS storms).

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

fn setsockopt_int(fd: RawFd, level: libc::c_int, name: libc::c_int, v: libc::c_int) -> io::Result<()> {
    // SAFETY: passes a valid pointer to an int of the right size.
    let r = unsafe { libc::setsockopt(fd, level, name, &v as *const libc::c_int as *const libc::c_void, 4) };
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
        let fd = unsafe { libc::socket(libc::AF_NETLINK, libc::SOCK_RAW | libc::SOCK_CLOEXEC, libc::NETLINK_GENERIC) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: a fresh descriptor nobody else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        // SAFETY: a zeroed sockaddr_nl is valid; family set below.
        let mut sa: libc::sockaddr_nl = unsafe { std::mem::zeroed() };
        sa.nl_family = libc::AF_NETLINK as u16;
        // SAFETY: sa is a valid sockaddr_nl of the given size.
        let r = unsafe { libc::bind(fd.as_raw_fd(), &sa as *const _ as *const libc::sockaddr, std::mem::size_of::<libc::sockaddr_nl>() as u32) };
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
        unsafe { libc::getsockname(fd.as_raw_fd(), &mut sa as *mut _ as *mut libc::sockaddr, &mut len) };
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

    /// Receives one datagram; `Ok(None)` when nothing is waiting (non-blocking) .
    pub fn recv(&self, buf: &mut [u8], block: bool) -> io::Result<Option<usize>> {
        let flags = if block { 0 } else { libc::MSG_DONTWAIT };
        loop {
            // SAFETY: buf is valid for writing buf.len() bytes.
            let r = unsafe { libc::recv(self.fd.as_raw_fd(), buf.as_mut_ptr() as *mut libc::c_void, buf.len(), flags) };
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

impl AsRawFd for NlSocket {
    fn as_raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}
