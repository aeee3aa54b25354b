//! A blocking generic netlink socket that talks nl80211: the family id resolved
//! through the controller, requests answered by an ACK or a dump, every answer
//! waited for at most [`ANSWER_TIMEOUT`].
//!
//! (The same socket calls as `sdmac-mediumd`'s `netlink.rs`, without its batching;
//! both could share a small socket crate over `sdmac-netlink`.)

use super::error::ControlError;
use sdmac_netlink::genl::ctrl::{FamilyInfo, GetFamily};
use sdmac_netlink::nl::{self, flags, ErrorMsg, NlHeader, NlPacket, NLMSG_DONE, NLMSG_ERROR};
use sdmac_netlink::nl80211::{self, Nl80211Message};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::time::Duration;

/// How long a request waits for the kernel's answer.
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(5);

/// What a request ended with, before the caller puts it in context.
#[derive(Debug)]
pub enum NlError {
    /// The kernel's errno and extended ACK message.
    Errno(i32, Option<String>),
    /// A socket call failed.
    Io(io::Error),
    /// An answer did not decode.
    Codec(sdmac_netlink::Error),
}

impl NlError {
    /// The error in context: `op` (the request) for `name` (interface or phy).
    pub fn context(self, op: &'static str, name: &str) -> ControlError {
        match self {
            NlError::Errno(errno, msg) => {
                ControlError::Kernel { op, name: name.into(), errno, msg }
            }
            NlError::Io(err) => ControlError::Io { op: format!("{name}: {op}"), err },
            NlError::Codec(err) => ControlError::Protocol { op, err },
        }
    }
}

impl From<sdmac_netlink::Error> for NlError {
    fn from(e: sdmac_netlink::Error) -> Self {
        NlError::Codec(e)
    }
}

/// A NETLINK_GENERIC socket bound to the nl80211 family.
pub struct Nl80211Socket {
    fd: OwnedFd,
    family: u16,
    seq: u32,
    buf: Vec<u8>,
}

impl std::fmt::Debug for Nl80211Socket {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Nl80211Socket")
            .field("fd", &self.fd)
            .field("family", &self.family)
            .field("seq", &self.seq)
            .finish()
    }
}

fn last() -> NlError {
    NlError::Io(io::Error::last_os_error())
}

impl Nl80211Socket {
    /// Opens the socket and resolves the `nl80211` family (no privilege needed).
    pub fn open() -> std::result::Result<Nl80211Socket, NlError> {
        // SAFETY: plain syscall; the result is checked.
        let fd = unsafe {
            libc::socket(
                libc::AF_NETLINK,
                libc::SOCK_RAW | libc::SOCK_CLOEXEC,
                libc::NETLINK_GENERIC,
            )
        };
        if fd < 0 {
            return Err(last());
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
            return Err(last());
        }
        let tv = libc::timeval { tv_sec: ANSWER_TIMEOUT.as_secs() as libc::time_t, tv_usec: 0 };
        // SAFETY: a valid timeval of the size given.
        let r = unsafe {
            libc::setsockopt(
                fd.as_raw_fd(),
                libc::SOL_SOCKET,
                libc::SO_RCVTIMEO,
                &tv as *const _ as *const libc::c_void,
                std::mem::size_of::<libc::timeval>() as u32,
            )
        };
        if r < 0 {
            return Err(last());
        }
        let mut s = Nl80211Socket { fd, family: 0, seq: 0, buf: vec![0; 64 * 1024] };
        s.family = s.resolve_family()?;
        Ok(s)
    }

    fn next_seq(&mut self) -> u32 {
        self.seq = self.seq.wrapping_add(1).max(1);
        self.seq
    }

    fn send(&self, bytes: &[u8]) -> std::result::Result<(), NlError> {
        // SAFETY: a zeroed sockaddr_nl addresses the kernel.
        let mut sa: libc::sockaddr_nl = unsafe { std::mem::zeroed() };
        sa.nl_family = libc::AF_NETLINK as u16;
        loop {
            // SAFETY: bytes and sa are valid for the lengths given.
            let r = unsafe {
                libc::sendto(
                    self.fd.as_raw_fd(),
                    bytes.as_ptr() as *const libc::c_void,
                    bytes.len(),
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
                return Err(NlError::Io(e));
            }
        }
    }

    fn recv(&mut self) -> std::result::Result<usize, NlError> {
        loop {
            // SAFETY: buf is valid for writing buf.len() bytes.
            let r = unsafe {
                libc::recv(
                    self.fd.as_raw_fd(),
                    self.buf.as_mut_ptr() as *mut libc::c_void,
                    self.buf.len(),
                    0,
                )
            };
            if r >= 0 {
                return Ok(r as usize);
            }
            let e = io::Error::last_os_error();
            match e.kind() {
                io::ErrorKind::Interrupted => continue,
                io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => {
                    return Err(NlError::Io(io::Error::new(
                        io::ErrorKind::TimedOut,
                        format!("no answer from the kernel within {} s", ANSWER_TIMEOUT.as_secs()),
                    )))
                }
                _ => return Err(NlError::Io(e)),
            }
        }
    }

    /// Sends `bytes` (a request with sequence number `seq`) and hands every answer
    /// message of that sequence to `each` until the request ends: an ACK or error
    /// (`NLMSG_ERROR`), or `NLMSG_DONE` for a dump.
    fn exchange(
        &mut self,
        bytes: &[u8],
        seq: u32,
        mut each: impl FnMut(&NlPacket<'_>) -> std::result::Result<(), NlError>,
    ) -> std::result::Result<(), NlError> {
        self.send(bytes)?;
        loop {
            let n = self.recv()?;
            let data = std::mem::take(&mut self.buf);
            let r = (|| {
                for p in nl::messages(&data[..n]) {
                    let p = p?;
                    let h = p.header();
                    if h.seq != seq {
                        continue;
                    }
                    match h.ty {
                        NLMSG_ERROR => {
                            let e = ErrorMsg::parse(&p)?;
                            return Ok(Some(match e.errno() {
                                None => Ok(()),
                                Some(errno) => {
                                    Err(NlError::Errno(errno, e.ext_msg.map(str::to_owned)))
                                }
                            }));
                        }
                        NLMSG_DONE => {
                            let status = nl::parse_done(&p)?;
                            return Ok(Some(if status < 0 {
                                Err(NlError::Errno(-status, None))
                            } else {
                                Ok(())
                            }));
                        }
                        _ => each(&p)?,
                    }
                }
                Ok::<_, NlError>(None)
            })();
            self.buf = data;
            match r? {
                Some(end) => return end,
                None => continue,
            }
        }
    }

    fn resolve_family(&mut self) -> std::result::Result<u16, NlError> {
        let seq = self.next_seq();
        let mut req = [0u8; 64];
        let n = GetFamily { name: nl80211::FAMILY_NAME }.emit(
            flags::REQUEST | flags::ACK,
            seq,
            0,
            &mut req,
        )?;
        let mut id = None;
        self.exchange(&req[..n], seq, |p| {
            if let Ok(info) = FamilyInfo::parse(p) {
                id = Some(info.id);
            }
            Ok(())
        })?;
        id.ok_or_else(|| {
            NlError::Io(io::Error::new(
                io::ErrorKind::NotFound,
                "the kernel has no nl80211 family (cfg80211 not loaded)",
            ))
        })
    }

    /// Sends a request with `ACK` and waits for the answer; `each` gets the messages
    /// sent before the ACK (e.g. the new interface of `NEW_INTERFACE`).
    pub fn request(
        &mut self,
        m: &dyn Nl80211Message,
        each: impl FnMut(&NlPacket<'_>) -> std::result::Result<(), NlError>,
    ) -> std::result::Result<(), NlError> {
        self.send_with(m, flags::REQUEST | flags::ACK, each)
    }

    /// Sends a dump request; `each` gets every message of the dump.
    pub fn dump(
        &mut self,
        m: &dyn Nl80211Message,
        each: impl FnMut(&NlPacket<'_>) -> std::result::Result<(), NlError>,
    ) -> std::result::Result<(), NlError> {
        self.send_with(m, flags::REQUEST | flags::DUMP, each)
    }

    fn send_with(
        &mut self,
        m: &dyn Nl80211Message,
        fl: u16,
        each: impl FnMut(&NlPacket<'_>) -> std::result::Result<(), NlError>,
    ) -> std::result::Result<(), NlError> {
        let seq = self.next_seq();
        let bytes = m.to_vec(&NlHeader::request(self.family, fl, seq, 0))?;
        self.exchange(&bytes, seq, each)
    }
}
