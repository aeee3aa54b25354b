//! The packet socket on a monitor interface: AF_PACKET, SOCK_RAW, every protocol,
//! bound to one interface, non-blocking, past the qdisc (PACKET_QDISC_BYPASS), with
//! software receive timestamps (SO_TIMESTAMPING) on every frame read, the TX-status
//! echo included.

use std::ffi::CString;
use std::io;
use std::mem::{size_of, zeroed};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// `ARPHRD_IEEE80211_RADIOTAP`: the link type of a monitor interface.
pub const ARPHRD_IEEE80211_RADIOTAP: u16 = 803;
const PACKET_QDISC_BYPASS: libc::c_int = 20;
const SOF_TIMESTAMPING_RX_SOFTWARE: libc::c_int = 1 << 3;
const SOF_TIMESTAMPING_SOFTWARE: libc::c_int = 1 << 4;
/// Frames read per `recvmmsg`.
pub const BATCH: usize = 16;
/// Largest frame read (radiotap + MPDU); longer ones are skipped.
pub const RX_BUF: usize = 4608;

/// What is known of the interface at open.
#[derive(Clone, Debug)]
pub struct IfaceInfo {
    /// Its name.
    pub name: String,
    /// Its index.
    pub ifindex: i32,
    /// Its MAC address.
    pub addr: [u8; 6],
    /// Its MTU (bounds what AF_PACKET lets through).
    pub mtu: usize,
}

/// One frame read.
#[derive(Clone, Copy, Debug, Default)]
pub struct RxMeta {
    /// Bytes in the buffer.
    pub len: usize,
    /// The frame was longer than the buffer.
    pub truncated: bool,
    /// The kernel's software receive stamp (ns, CLOCK_REALTIME; 0 none).
    pub stamp_realtime_ns: u64,
    /// sockaddr_ll's packet type (PACKET_HOST, PACKET_OTHERHOST, ...).
    pub pkttype: u8,
}

/// Buffers for one `recvmmsg`.
pub struct RxBatch {
    bufs: Vec<[u8; RX_BUF]>,
    ctrl: Vec<[u64; 16]>,
    addrs: Vec<libc::sockaddr_ll>,
    iov: Vec<libc::iovec>,
    hdrs: Vec<libc::mmsghdr>,
    /// Per frame read.
    pub meta: [RxMeta; BATCH],
}

impl Default for RxBatch {
    fn default() -> Self {
        // SAFETY: sockaddr_ll and mmsghdr are plain C structs; all-zero is valid.
        let (addrs, hdrs) = unsafe {
            (vec![zeroed::<libc::sockaddr_ll>(); BATCH], vec![zeroed::<libc::mmsghdr>(); BATCH])
        };
        RxBatch {
            bufs: vec![[0u8; RX_BUF]; BATCH],
            ctrl: vec![[0u64; 16]; BATCH],
            addrs,
            iov: Vec::with_capacity(BATCH),
            hdrs,
            meta: [RxMeta::default(); BATCH],
        }
    }
}

impl RxBatch {
    /// Frame `i` of the last read.
    pub fn frame(&self, i: usize) -> &[u8] {
        &self.bufs[i][..self.meta[i].len]
    }
}

/// The socket.
#[derive(Debug)]
pub struct PacketSocket {
    fd: OwnedFd,
    info: IfaceInfo,
}

fn ifreq(name: &str) -> io::Result<libc::ifreq> {
    let c = CString::new(name).map_err(|_| {
        io::Error::new(io::ErrorKind::InvalidInput, "interface name contains a NUL byte")
    })?;
    let b = c.as_bytes_with_nul();
    if b.len() > libc::IFNAMSIZ {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("interface name {name:?} is longer than {} bytes", libc::IFNAMSIZ - 1),
        ));
    }
    // SAFETY: ifreq is a plain C struct; all-zero is valid.
    let mut r: libc::ifreq = unsafe { zeroed() };
    for (d, s) in r.ifr_name.iter_mut().zip(b) {
        *d = *s as libc::c_char;
    }
    Ok(r)
}

fn cvt(r: libc::c_int) -> io::Result<libc::c_int> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

impl PacketSocket {
    /// Opens the socket on monitor interface `name`. Errors name the interface and,
    /// for a missing right, the capability (CAP_NET_RAW) and how to grant it.
    pub fn open(name: &str) -> Result<PacketSocket, String> {
        let ctx = |what: &str, e: io::Error| -> String {
            if e.raw_os_error() == Some(libc::EPERM) || e.raw_os_error() == Some(libc::EACCES) {
                format!("{name}: {what}: {e}: a packet socket needs CAP_NET_RAW (run as root, or grant it: `sudo setcap cap_net_raw,cap_net_admin+ep PROGRAM`)")
            } else {
                format!("{name}: {what}: {e}")
            }
        };
        let proto = (libc::ETH_P_ALL as u16).to_be() as libc::c_int;
        // SAFETY: plain syscall; the result is checked.
        let fd = cvt(unsafe {
            libc::socket(
                libc::AF_PACKET,
                libc::SOCK_RAW | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC,
                proto,
            )
        })
        .map_err(|e| ctx("opening an AF_PACKET socket", e))?;
        // SAFETY: a fresh descriptor nobody else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        let raw = fd.as_raw_fd();
        let mut r = ifreq(name).map_err(|e| format!("{name}: {e}"))?;
        // SAFETY: ioctls on our socket with a valid ifreq.
        unsafe {
            cvt(libc::ioctl(raw, libc::SIOCGIFINDEX, &mut r))
                .map_err(|e| ctx("no such interface", e))?;
        }
        // SAFETY: the union member the ioctl just wrote.
        let ifindex = unsafe { r.ifr_ifru.ifru_ifindex };
        // SAFETY: as above.
        unsafe {
            cvt(libc::ioctl(raw, libc::SIOCGIFHWADDR, &mut r))
                .map_err(|e| ctx("reading its address", e))?
        };
        // SAFETY: the union member the ioctl just wrote.
        let hw = unsafe { r.ifr_ifru.ifru_hwaddr };
        if hw.sa_family != ARPHRD_IEEE80211_RADIOTAP {
            return Err(format!(
                "{name}: not a monitor interface (link type {}, a monitor's is {ARPHRD_IEEE80211_RADIOTAP}); create one with `iw phy PHY interface add mon0 type monitor`",
                hw.sa_family
            ));
        }
        let mut addr = [0u8; 6];
        for (d, s) in addr.iter_mut().zip(hw.sa_data.iter()) {
            *d = *s as u8;
        }
        // SAFETY: as above.
        unsafe {
            cvt(libc::ioctl(raw, libc::SIOCGIFMTU, &mut r))
                .map_err(|e| ctx("reading its MTU", e))?
        };
        // SAFETY: the union member the ioctl just wrote.
        let mtu = unsafe { r.ifr_ifru.ifru_mtu } as usize;
        // SAFETY: sockaddr_ll is plain C; fields set below.
        let mut sll: libc::sockaddr_ll = unsafe { zeroed() };
        sll.sll_family = libc::AF_PACKET as u16;
        sll.sll_protocol = (libc::ETH_P_ALL as u16).to_be();
        sll.sll_ifindex = ifindex;
        // SAFETY: bind with a valid sockaddr_ll of the right size.
        unsafe {
            cvt(libc::bind(
                raw,
                &sll as *const _ as *const libc::sockaddr,
                size_of::<libc::sockaddr_ll>() as u32,
            ))
            .map_err(|e| ctx("binding the packet socket", e))?;
        }
        let set = |level, opt, v: libc::c_int, what: &str| -> Result<(), String> {
            // SAFETY: setsockopt with a valid int.
            cvt(unsafe {
                libc::setsockopt(
                    raw,
                    level,
                    opt,
                    &v as *const _ as *const libc::c_void,
                    size_of::<libc::c_int>() as u32,
                )
            })
            .map(|_| ())
            .map_err(|e| ctx(what, e))
        };
        set(libc::SOL_PACKET, PACKET_QDISC_BYPASS, 1, "PACKET_QDISC_BYPASS")?;
        set(
            libc::SOL_SOCKET,
            libc::SO_TIMESTAMPING,
            SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE,
            "SO_TIMESTAMPING",
        )?;
        Ok(PacketSocket { fd, info: IfaceInfo { name: name.to_string(), ifindex, addr, mtu } })
    }

    /// The interface.
    pub fn info(&self) -> &IfaceInfo {
        &self.info
    }

    /// Sends one frame (radiotap + MPDU). `WouldBlock` when the kernel has no room.
    pub fn send(&self, frame: &[u8]) -> io::Result<()> {
        // SAFETY: send from a valid slice on our socket.
        let n = unsafe {
            libc::send(
                self.fd.as_raw_fd(),
                frame.as_ptr() as *const libc::c_void,
                frame.len(),
                libc::MSG_DONTWAIT,
            )
        };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        if n as usize != frame.len() {
            return Err(io::Error::new(
                io::ErrorKind::WriteZero,
                format!("sent {n} of {} bytes", frame.len()),
            ));
        }
        Ok(())
    }

    /// Reads up to [`BATCH`] frames without blocking; returns how many (0: none
    /// waiting). An error such as ENETDOWN means the interface went down or away.
    pub fn recv_batch(&self, b: &mut RxBatch) -> io::Result<usize> {
        b.iov.clear();
        for i in 0..BATCH {
            b.iov.push(libc::iovec {
                iov_base: b.bufs[i].as_mut_ptr() as *mut libc::c_void,
                iov_len: RX_BUF,
            });
        }
        for i in 0..BATCH {
            let h = &mut b.hdrs[i];
            h.msg_len = 0;
            h.msg_hdr.msg_name = &mut b.addrs[i] as *mut _ as *mut libc::c_void;
            h.msg_hdr.msg_namelen = size_of::<libc::sockaddr_ll>() as u32;
            h.msg_hdr.msg_iov = &mut b.iov[i];
            h.msg_hdr.msg_iovlen = 1;
            h.msg_hdr.msg_control = b.ctrl[i].as_mut_ptr() as *mut libc::c_void;
            h.msg_hdr.msg_controllen = size_of::<[u64; 16]>();
            h.msg_hdr.msg_flags = 0;
        }
        // SAFETY: every header points into buffers owned by `b` that outlive the call.
        let n = unsafe {
            libc::recvmmsg(
                self.fd.as_raw_fd(),
                b.hdrs.as_mut_ptr(),
                BATCH as u32,
                libc::MSG_DONTWAIT,
                std::ptr::null_mut(),
            )
        };
        if n < 0 {
            let e = io::Error::last_os_error();
            if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted) {
                return Ok(0);
            }
            return Err(e);
        }
        let n = n as usize;
        for i in 0..n {
            let h = &b.hdrs[i];
            let len = (h.msg_len as usize).min(RX_BUF);
            let truncated = h.msg_hdr.msg_flags & libc::MSG_TRUNC != 0;
            b.meta[i] = RxMeta {
                len,
                truncated,
                stamp_realtime_ns: stamp(&h.msg_hdr),
                pkttype: b.addrs[i].sll_pkttype,
            };
        }
        Ok(n)
    }

    /// Waits until the socket is readable, has an error, or `timeout_ms` passes.
    /// Returns the poll revents (0 on timeout).
    pub fn poll(&self, timeout_ms: i32) -> io::Result<i16> {
        let mut p = libc::pollfd { fd: self.fd.as_raw_fd(), events: libc::POLLIN, revents: 0 };
        // SAFETY: one valid pollfd.
        let r = unsafe { libc::poll(&mut p, 1, timeout_ms) };
        if r < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                return Ok(0);
            }
            return Err(e);
        }
        Ok(if r == 0 { 0 } else { p.revents })
    }

    /// Frames the kernel dropped for want of room in the socket's receive buffer
    /// since the last call (PACKET_STATISTICS).
    pub fn take_drops(&self) -> u64 {
        let mut st = [0u32; 2];
        let mut l = size_of::<[u32; 2]>() as u32;
        // SAFETY: getsockopt into a valid tpacket_stats (two u32: packets, drops).
        let r = unsafe {
            libc::getsockopt(
                self.fd.as_raw_fd(),
                libc::SOL_PACKET,
                libc::PACKET_STATISTICS,
                st.as_mut_ptr() as *mut libc::c_void,
                &mut l,
            )
        };
        if r == 0 {
            st[1] as u64
        } else {
            0
        }
    }

    /// The socket's pending error (SO_ERROR), cleared by reading it.
    pub fn take_error(&self) -> Option<io::Error> {
        let mut v: libc::c_int = 0;
        let mut l = size_of::<libc::c_int>() as u32;
        // SAFETY: getsockopt into a valid int.
        let r = unsafe {
            libc::getsockopt(
                self.fd.as_raw_fd(),
                libc::SOL_SOCKET,
                libc::SO_ERROR,
                &mut v as *mut _ as *mut libc::c_void,
                &mut l,
            )
        };
        if r == 0 && v != 0 {
            Some(io::Error::from_raw_os_error(v))
        } else {
            None
        }
    }
}

impl AsRawFd for PacketSocket {
    fn as_raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}

/// The software stamp of SCM_TIMESTAMPING in a received message (ns, realtime).
fn stamp(m: &libc::msghdr) -> u64 {
    // SAFETY: walks the control buffer the kernel filled, with the CMSG macros.
    unsafe {
        let mut c = libc::CMSG_FIRSTHDR(m);
        while !c.is_null() {
            if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == libc::SO_TIMESTAMPING {
                let ts = std::ptr::read_unaligned(libc::CMSG_DATA(c) as *const libc::timespec);
                return ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64;
            }
            c = libc::CMSG_NXTHDR(m, c);
        }
    }
    0
}

/// How many monotonic–realtime–monotonic brackets [`realtime_offset_ns`] reads at
/// most, keeping the narrowest.
const OFFSET_TRIES: usize = 4;
/// A bracket at most this wide (ns) is taken at once.
const OFFSET_GOOD_NS: i128 = 20_000;

/// CLOCK_REALTIME − CLOCK_MONOTONIC now (ns), to carry realtime stamps onto the
/// monotonic clock every sdmac timestamp uses.
///
/// The realtime reading is bracketed by two monotonic ones and set against their
/// midpoint, so the answer is off by at most half the bracket's width. A thread
/// stalled inside the bracket (a preempted vCPU stalls it for milliseconds) would
/// shift every stamp of the batch by half the stall, so the narrowest of a few
/// brackets is used.
pub fn realtime_offset_ns() -> i128 {
    let get = |clk| {
        // SAFETY: clock_gettime into a valid timespec.
        let mut t: libc::timespec = unsafe { zeroed() };
        unsafe { libc::clock_gettime(clk, &mut t) };
        t.tv_sec as i128 * 1_000_000_000 + t.tv_nsec as i128
    };
    let mut best = (i128::MAX, 0i128);
    for _ in 0..OFFSET_TRIES {
        let m0 = get(libc::CLOCK_MONOTONIC);
        let r = get(libc::CLOCK_REALTIME);
        let m1 = get(libc::CLOCK_MONOTONIC);
        let width = m1 - m0;
        if width < best.0 {
            best = (width, r - (m0 + m1) / 2);
        }
        if width <= OFFSET_GOOD_NS {
            break;
        }
    }
    best.1
}
