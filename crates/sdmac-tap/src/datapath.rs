//! The per-station data path: Ethernet frames from a packet descriptor (a TAP
//! device) to 802.11 `data_req`s, and `data_ind`s back to Ethernet frames.
//!
//! Why this file is longer than the ~700 lines a file here aims for: it is one
//! station's per-frame path, and its steps (confirmations, the backlog, reads,
//! conversion, writes, the AP's relaying, management frames) all work on the one
//! `StationPath`; split into files, each would reach into the same struct from
//! elsewhere, and the order of a pass would no longer be read in one place.
//!
//! One loop per station, in poll mode: it drains confirmations, retries frames the
//! MAC had no room for, reads a batch of frames from the TAP device and writes a
//! batch of received ones; only when a pass found nothing to do does it wait in
//! `poll(2)` on the TAP descriptor and the interface's event descriptor (or, in
//! busy-poll mode, go round again at once).
//!
//! With [`StationPath::use_io_uring`] the TAP device is served by a ring
//! ([`crate::tapio`]) instead: reads stay armed on it, writes are queued on it,
//! and all a pass queued goes to the kernel with one system call; the idle wait is
//! on the ring too.

use crate::capture::CaptureEnd;
use crate::convert::{eth_to_wlan, wlan_to_eth, DropReason, Ds, TxParams, HEADROOM, MAX_ETH_FRAME};
use crate::mgmt::MgmtFrame;
use crate::qos::classify;
use crate::queue::{Bounded, FrameBuf, Pool, BUF_LEN};
use crate::stations::StationTable;
use crate::tapio::{Done, TapRing};
use crate::txid::TxIds;
use sdmac_api::{ApiError, Backend, Body, FrameClass, Interface, Status, TxAttrs, Wait, MAX_ID};
use sdmac_types::{Ac, MacAddress};
use serde_json::{json, Value};
use std::io;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TryRecvError, TrySendError};
use std::sync::Arc;

/// Frames read from (or written to) the TAP device per pass.
pub const BATCH: usize = 32;
/// TX ids (frames handed to the MAC and not yet confirmed): 16 words of 64.
pub const TX_ID_WORDS: usize = 16;
/// Bits of a request id that hold the TX id (`64 * TX_ID_WORDS` = 2^10).
const ID_SLOT_BITS: u32 = 10;
const _: () = assert!(1 << ID_SLOT_BITS == 64 * TX_ID_WORDS);
/// Frames waiting for room in the MAC's queue.
pub const BACKLOG: usize = 64;

/// Counters of one station's data path.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stats {
    /// Frames read from the TAP device.
    pub tap_rx_frames: u64,
    /// Their bytes (Ethernet header included).
    pub tap_rx_bytes: u64,
    /// `data_req`s accepted by the MAC.
    pub tx_submitted: u64,
    /// Confirmations: acknowledged.
    pub tx_acked: u64,
    /// Confirmations: no ACK after the last attempt.
    pub tx_ack_timeout: u64,
    /// Confirmations: sent without an ACK expected (group addressed).
    pub tx_sent: u64,
    /// Confirmations: dropped by the MAC, or no report.
    pub tx_dropped: u64,
    /// Retransmissions: attempts beyond the first, summed over confirmations.
    pub tx_retries: u64,
    /// Indications read.
    pub rx_indications: u64,
    /// Ethernet frames written to the TAP device.
    pub tap_tx_frames: u64,
    /// Their bytes.
    pub tap_tx_bytes: u64,
    /// Frames an AP relayed from one station to others.
    pub relayed: u64,
    /// System calls made on the TAP device and for waiting: `read`, `write` and
    /// `poll`, or with io_uring `io_uring_enter` (each carries many operations).
    pub io_syscalls: u64,
    /// Frames handed to the MAC, by access category (indexed by `Ac as usize`).
    pub tx_by_ac: [u64; 4],
    /// Data frames received, by the access category they were sent on.
    pub rx_by_ac: [u64; 4],
    /// Frames dropped, by reason (indexed by [`DropReason::index`]).
    pub drops: [u64; DropReason::ALL.len()],
}

impl Stats {
    /// Counts one drop.
    #[inline]
    pub fn drop(&mut self, why: DropReason) {
        self.drops[why.index()] += 1;
    }

    /// Drops for `why`.
    pub fn drops_for(&self, why: DropReason) -> u64 {
        self.drops[why.index()]
    }

    /// The counters as JSON (drops by reason name, zero ones left out).
    pub fn to_json(&self) -> Value {
        let drops: serde_json::Map<String, Value> = DropReason::ALL
            .iter()
            .filter(|r| self.drops[r.index()] > 0)
            .map(|r| (r.name().to_string(), json!(self.drops[r.index()])))
            .collect();
        json!({
            "tap_rx": {"frames": self.tap_rx_frames, "bytes": self.tap_rx_bytes},
            "tx": {
                "submitted": self.tx_submitted,
                "acked": self.tx_acked,
                "ack_timeout": self.tx_ack_timeout,
                "sent": self.tx_sent,
                "dropped": self.tx_dropped,
                "retries": self.tx_retries,
            },
            "rx": {"indications": self.rx_indications},
            "tap_tx": {"frames": self.tap_tx_frames, "bytes": self.tap_tx_bytes},
            "relayed": self.relayed,
            "io_syscalls": self.io_syscalls,
            "by_ac": {
                "tx": {"BK": self.tx_by_ac[0], "BE": self.tx_by_ac[1], "VI": self.tx_by_ac[2], "VO": self.tx_by_ac[3]},
                "rx": {"BK": self.rx_by_ac[0], "BE": self.rx_by_ac[1], "VI": self.rx_by_ac[2], "VO": self.rx_by_ac[3]},
            },
            "drops": drops,
        })
    }
}

/// The role of a station's data path.
#[derive(Clone, Debug)]
pub enum PathRole {
    /// IBSS: frames go straight to their destination.
    Ibss,
    /// The AP: carries frames of the stations its station table marks associated,
    /// and relays those between them.
    Ap,
    /// A station of an AP's BSS: all its frames go through the AP, once associated.
    Sta {
        /// Set once it has associated.
        associated: Arc<AtomicBool>,
    },
}

/// The data path's ends of the channels to its management thread.
#[derive(Debug)]
pub struct MgmtLink {
    /// Management frames received, to the management thread.
    pub to_mgmt: SyncSender<MgmtFrame>,
    /// Management frames to send, from the management thread.
    pub from_mgmt: Receiver<MgmtFrame>,
}

/// What a TX id remembers until its confirmation.
#[derive(Copy, Clone, Debug, Default)]
pub struct TxMeta {
    /// MPDU length (bytes, no FCS).
    pub len: u16,
}

/// A frame converted and waiting for room in the MAC.
#[derive(Debug)]
struct Waiting {
    buf: FrameBuf,
    start: usize,
    len: usize,
    multicast: bool,
    ac: Ac,
}

/// Why a data path stopped before it was asked to.
#[derive(Debug)]
pub enum PathError {
    /// The packet descriptor failed (the TAP device disappeared?).
    Device(io::Error),
    /// The MAC interface failed (closed, or an error that is not about one frame).
    Mac(ApiError),
}

impl std::fmt::Display for PathError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PathError::Device(e) => write!(f, "the TAP device failed: {e}"),
            PathError::Mac(e) => write!(f, "the MAC interface failed: {e}"),
        }
    }
}

impl std::error::Error for PathError {}

/// One station's data path between a packet descriptor and an SDMAC interface.
pub struct StationPath<B: Backend> {
    iface: Interface<B>,
    fd: RawFd,
    /// The ring serving the TAP device, if io_uring is used (dropped first: it
    /// cancels what is in flight before the buffers go).
    ring: Option<TapRing>,
    event_fd: Option<RawFd>,
    params: TxParams,
    stations: Arc<StationTable>,
    pool: Pool,
    backlog: Bounded<Waiting>,
    ids: TxIds<TxMeta, TX_ID_WORDS>,
    rx: Vec<u8>,
    unicast: TxAttrs,
    group: TxAttrs,
    busy_poll: bool,
    role: PathRole,
    mgmt: Option<MgmtLink>,
    mgmt_pending: Option<MgmtFrame>,
    /// Parameters of frames an AP relays (From DS).
    relay: TxParams,
    capture: Option<CaptureEnd>,
    /// A fault injected for tests: panic once this many frames went through.
    panic_after: Option<u64>,
    /// QoS station: frames go on the access category of their priority, as QoS
    /// data frames.
    qos: bool,
    /// Beacons come through `beacon_ind` (radio backends), not `data_ind`: hand
    /// each to the management thread as a beacon frame while not associated.
    beacons_from_ind: bool,
    /// The counters.
    pub stats: Stats,
}

impl<B: Backend> std::fmt::Debug for StationPath<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StationPath").field("own", &self.params.own).finish()
    }
}

impl<B: Backend> StationPath<B> {
    /// A data path for `iface`, reading and writing Ethernet frames on `fd` (a
    /// non-blocking packet descriptor the caller keeps open while this runs);
    /// `stations` are the addresses unicast frames may go to (a table that may grow
    /// while the path runs; for an AP, also which stations are associated).
    pub fn new(
        iface: Interface<B>,
        fd: RawFd,
        params: TxParams,
        stations: Arc<StationTable>,
        busy_poll: bool,
    ) -> StationPath<B> {
        StationPath::with_signalling(iface, fd, params, stations, busy_poll, true)
    }

    /// As [`StationPath::new`]; `signalled` false leaves the interface's event
    /// descriptor off, for a path whose medium runs on its own thread between its
    /// passes ([`crate::runner`]): nothing then needs waking, and the medium makes no
    /// system call per frame to say so.
    pub fn with_signalling(
        mut iface: Interface<B>,
        fd: RawFd,
        params: TxParams,
        stations: Arc<StationTable>,
        busy_poll: bool,
        signalled: bool,
    ) -> StationPath<B> {
        let event_fd = if signalled { iface.event_fd() } else { None };
        StationPath {
            iface,
            fd,
            ring: None,
            event_fd,
            params,
            stations,
            pool: Pool::new(BATCH + BACKLOG),
            backlog: Bounded::new(BACKLOG),
            ids: TxIds::new(),
            rx: Vec::with_capacity(BUF_LEN + 64),
            unicast: TxAttrs { timestamps: false, ..TxAttrs::default() },
            group: TxAttrs { timestamps: false, no_ack: true, ..TxAttrs::default() },
            busy_poll,
            role: PathRole::Ibss,
            mgmt: None,
            mgmt_pending: None,
            relay: TxParams { ds: Ds::FromAp, ..params },
            capture: None,
            panic_after: None,
            qos: false,
            beacons_from_ind: false,
            stats: Stats::default(),
        }
    }

    /// Gives the path a role other than IBSS, and the channels to its management
    /// thread (management frames received go there; what it returns is sent). A
    /// station's or AP's frames are addressed as `params.ds` says, which the
    /// caller sets to match (`ToAp` for a station, `FromAp` for the AP).
    pub fn with_role(mut self, role: PathRole, mgmt: MgmtLink) -> StationPath<B> {
        self.role = role;
        self.mgmt = Some(mgmt);
        self
    }

    /// Serves the TAP device with io_uring ([`crate::tapio`]): reads kept armed,
    /// writes queued, one system call per pass for all of them. Fails where the
    /// kernel has no usable io_uring (the path is then as it was).
    pub fn use_io_uring(&mut self) -> io::Result<()> {
        // SAFETY: the pool's buffers are boxes allocated once, kept (and not
        // moved: a box's contents stay put) as long as the path, which drops the
        // ring first.
        self.ring = Some(unsafe { TapRing::new(self.fd, self.event_fd, &self.pool.addresses()) }?);
        Ok(())
    }

    /// Makes the path a QoS station's: every frame goes on the access category of
    /// its user priority (its VLAN tag's PCP, else its DSCP: [`crate::qos`]) as a
    /// QoS data frame with that TID. Without it everything is AC_BE, plain data.
    pub fn with_qos(mut self, on: bool) -> StationPath<B> {
        self.qos = on;
        self
    }

    /// Reads beacons from `beacon_ind` (where a radio backend puts them, rather
    /// than in `data_ind`) and hands each to the management thread as a beacon of
    /// its BSSID, while the station is not associated (it needs one to start);
    /// later ones are read and let go.
    pub fn with_beacons_from_ind(mut self, on: bool) -> StationPath<B> {
        self.beacons_from_ind = on;
        self
    }

    /// Makes the loop panic once `frames` frames went through it (read from the TAP
    /// device and written to it): a fault injected to test the clean-up after a
    /// station thread crashes.
    pub fn panic_after(&mut self, frames: u64) {
        self.panic_after = Some(frames);
    }

    /// Whether the TAP device is served by io_uring, and with registered buffers.
    pub fn io_uring(&self) -> Option<bool> {
        self.ring.as_ref().map(TapRing::registered)
    }

    /// Records what the path sends, the ACKs of what the MAC confirms as
    /// acknowledged, and (if the end says so) beacons heard, for `--pcap`.
    pub fn with_capture(mut self, capture: CaptureEnd) -> StationPath<B> {
        self.capture = Some(capture);
        self
    }

    /// Capture records dropped because the writer was behind.
    pub fn capture_dropped(&self) -> u64 {
        self.capture.as_ref().map_or(0, |c| c.tap.dropped)
    }

    /// The interface.
    pub fn interface(&mut self) -> &mut Interface<B> {
        &mut self.iface
    }

    /// Runs until `stop` is set or something fails; returns why it stopped early.
    pub fn run(&mut self, stop: &AtomicBool) -> Result<(), PathError> {
        self.run_with(stop, |_| {})
    }

    /// As [`StationPath::run`], calling `between` with the interface after every
    /// pass (for requests the station's owner has for its MAC, such as its transmit
    /// power).
    pub fn run_with(
        &mut self,
        stop: &AtomicBool,
        mut between: impl FnMut(&mut Interface<B>),
    ) -> Result<(), PathError> {
        while !stop.load(Ordering::Relaxed) {
            let work = self.pass()?;
            between(&mut self.iface);
            if work == 0 && !self.busy_poll {
                // Frames from the management thread do not wake the poll: with one,
                // the wait is short, so that an exchange takes milliseconds.
                self.wait(if self.mgmt.is_some() { 5 } else { 50 })?;
            }
        }
        Ok(())
    }

    /// One pass of the loop; returns how many frames and confirmations it handled.
    pub fn pass(&mut self) -> Result<usize, PathError> {
        if let Some(n) = self.panic_after {
            let frames = self.stats.tap_rx_frames + self.stats.tap_tx_frames;
            assert!(frames < n, "injected fault: panic after {n} frames (SDMAC_TAP_PANIC_AFTER)");
        }
        let mut work = self.reap()?;
        work += self.confirmations()?;
        work += self.beacons_in()?;
        work += self.management_out()?;
        work += self.retry_backlog()?;
        if self.ring.is_some() {
            self.arm_reads()?;
        } else {
            work += self.tap_to_mac()?;
        }
        work += self.mac_to_tap()?;
        if let Some(r) = &mut self.ring {
            let before = r.enters;
            r.submit().map_err(PathError::Device)?;
            self.stats.io_syscalls += r.enters - before;
        }
        Ok(work)
    }

    /// With io_uring: takes the completions (frames read, writes ended, wake-ups).
    fn reap(&mut self) -> Result<usize, PathError> {
        let mut n = 0;
        while let Some(d) = self.ring.as_mut().and_then(TapRing::next_done) {
            n += 1;
            match d {
                Done::Read(buf, Ok(0)) => {
                    self.pool.put(buf);
                    return Err(PathError::Device(io::Error::other("end of file")));
                }
                Done::Read(buf, Ok(len)) => self.take_frame(buf, len)?,
                Done::Read(buf, Err(e)) => {
                    self.pool.put(buf);
                    match e.kind() {
                        io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted => {}
                        _ if e.raw_os_error() == Some(libc::ECANCELED) => {}
                        _ => return Err(PathError::Device(e)),
                    }
                }
                Done::Write(slot, buf, want, res) => {
                    if let Some(r) = &mut self.ring {
                        r.put_write_buf(slot, buf);
                    }
                    self.wrote(want, res.map_err(|e| e.raw_os_error().unwrap_or(0)))?;
                }
                Done::Wake => {}
            }
        }
        Ok(n)
    }

    /// Counts a write to the TAP device of `want` bytes that gave `res` (bytes,
    /// or the error number).
    fn wrote(&mut self, want: usize, res: Result<usize, i32>) -> Result<(), PathError> {
        match res {
            Ok(_) => {
                self.stats.tap_tx_frames += 1;
                self.stats.tap_tx_bytes += want as u64;
            }
            Err(libc::EAGAIN | libc::ENOBUFS | libc::EINTR | libc::EINVAL | libc::ECANCELED) => {
                self.stats.drop(DropReason::TapWrite);
            }
            Err(e) => return Err(PathError::Device(io::Error::from_raw_os_error(e))),
        }
        Ok(())
    }

    /// With io_uring: arms reads while the path has room for what they bring.
    fn arm_reads(&mut self) -> Result<(), PathError> {
        let Some(r) = &mut self.ring else { return Ok(()) };
        while r.can_arm_read() {
            let flight = r.reads_in_flight();
            let room = self.backlog.len() + flight < BACKLOG
                && self.ids.used() + flight < TxIds::<TxMeta, TX_ID_WORDS>::CAPACITY;
            if !room {
                break;
            }
            let Some(buf) = self.pool.get() else { break };
            if let Err(buf) = r.arm_read(buf, HEADROOM) {
                self.pool.put(buf);
                break;
            }
        }
        Ok(())
    }

    /// Waits up to `timeout_ms` for the TAP device or the interface.
    pub fn wait(&mut self, timeout_ms: i32) -> Result<(), PathError> {
        if let Some(r) = &mut self.ring {
            let before = r.enters;
            let t = if self.event_fd.is_some() { timeout_ms } else { timeout_ms.min(1) };
            r.wait(t.max(0) as u32).map_err(PathError::Device)?;
            self.stats.io_syscalls += r.enters - before;
            return Ok(());
        }
        self.stats.io_syscalls += 1;
        let mut fds = self.poll_fds().expect("no ring: the path polls its descriptors");
        let timeout = if self.event_fd.is_some() { timeout_ms } else { timeout_ms.min(1) };
        // SAFETY: two valid pollfd structs; negative descriptors are ignored by poll.
        let n = unsafe { libc::poll(fds.as_mut_ptr(), 2, timeout) };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() != io::ErrorKind::Interrupted {
                return Err(PathError::Device(e));
            }
        }
        self.polled(&fds)
    }

    /// What a loop serving several paths polls for this one: the TAP device
    /// (readable, while the path can take more frames) and the interface's event
    /// descriptor, if it has one. `None` with io_uring, whose ring is waited on
    /// instead ([`StationPath::wait`]).
    pub fn poll_fds(&self) -> Option<[libc::pollfd; 2]> {
        if self.ring.is_some() {
            return None;
        }
        let tap_events = if self.can_take_more() { libc::POLLIN } else { 0 };
        Some([
            libc::pollfd { fd: self.fd, events: tap_events, revents: 0 },
            libc::pollfd { fd: self.event_fd.unwrap_or(-1), events: libc::POLLIN, revents: 0 },
        ])
    }

    /// After a poll of [`StationPath::poll_fds`]: an error if the TAP device reports
    /// one (was it removed?); the event descriptor's count is read, if it fired.
    pub fn polled(&mut self, fds: &[libc::pollfd; 2]) -> Result<(), PathError> {
        if fds[0].revents & (libc::POLLERR | libc::POLLHUP | libc::POLLNVAL) != 0 {
            return Err(PathError::Device(io::Error::other(
                "poll reports an error or hang-up (was the device removed?)",
            )));
        }
        if let Some(efd) = self.event_fd {
            if fds[1].revents & libc::POLLIN != 0 {
                let mut v = [0u8; 8];
                // SAFETY: reads 8 bytes into a local buffer; the eventfd is non-blocking.
                unsafe { libc::read(efd, v.as_mut_ptr().cast(), 8) };
            }
        }
        Ok(())
    }

    /// Whether the path has a management thread (whose frames wake no poll: a loop
    /// waiting for this path keeps its waits short).
    pub fn has_management(&self) -> bool {
        self.mgmt.is_some()
    }

    /// Counts `n` system calls made for this path by a loop serving several.
    pub fn count_syscalls(&mut self, n: u64) {
        self.stats.io_syscalls += n;
    }

    fn can_take_more(&self) -> bool {
        self.pool.available() > 0
            && !self.backlog.is_full()
            && self.ids.used() < TxIds::<TxMeta, TX_ID_WORDS>::CAPACITY
    }

    fn confirmations(&mut self) -> Result<usize, PathError> {
        let mut n = 0;
        while let Some(c) = self.iface.data_con(Wait::NoWait).map_err(PathError::Mac)? {
            n += 1;
            if c.id <= MAX_ID {
                self.ids.free((c.id & ((1 << ID_SLOT_BITS) - 1)) as u32);
            }
            self.stats.tx_retries += c.attempts.saturating_sub(1) as u64;
            match c.status {
                Status::Acked => {
                    self.stats.tx_acked += 1;
                    if let Some(cap) = &mut self.capture {
                        cap.tap.record_ack(&self.params.own.0);
                    }
                }
                Status::AckTimeout => self.stats.tx_ack_timeout += 1,
                Status::Sent => self.stats.tx_sent += 1,
                Status::NoReport | Status::Dropped(_) => self.stats.tx_dropped += 1,
            }
        }
        Ok(n)
    }

    /// Hands one converted frame to the MAC. `Ok(false)`: no room, keep it.
    /// The request id is the TX id's slot in its low bits and a count of
    /// submissions above, so that no two frames in a row from a station carry the
    /// same id (a receiver takes a repeated id for a retransmission); the count
    /// also numbers the frame's 802.11 sequence control.
    fn submit(&mut self, buf: &mut [u8], multicast: bool, ac: Ac) -> Result<bool, PathError> {
        let Some(slot) = self.ids.alloc(TxMeta { len: buf.len() as u16 }) else {
            return Ok(false);
        };
        let count = self.stats.tx_submitted + 1;
        let id = (count << ID_SLOT_BITS | slot as u64) & MAX_ID;
        let seq = ((count & 0x0fff) << 4) as u16;
        buf[22..24].copy_from_slice(&seq.to_le_bytes());
        let attrs = if multicast { &self.group } else { &self.unicast };
        match self.iface.data_req(id, Body::Frame(buf), ac, attrs) {
            Ok(()) => {
                self.stats.tx_submitted += 1;
                self.stats.tx_by_ac[ac as usize] += 1;
                if let Some(cap) = &mut self.capture {
                    cap.tap.refill(&cap.back);
                    cap.tap.record(buf);
                }
                Ok(true)
            }
            Err(ApiError::QueueFull { .. } | ApiError::ConfirmationBacklog { .. }) => {
                self.ids.free(slot);
                Ok(false)
            }
            Err(ApiError::Closed) => Err(PathError::Mac(ApiError::Closed)),
            Err(_) => {
                self.ids.free(slot);
                self.stats.drop(DropReason::Refused);
                Ok(true)
            }
        }
    }

    /// Beacons from `beacon_ind` to the management thread (see
    /// [`StationPath::with_beacons_from_ind`]).
    /// Beacons heard later (or by the AP) are read and let go, so that the
    /// backend's queue of them does not overflow.
    fn beacons_in(&mut self) -> Result<usize, PathError> {
        if !self.beacons_from_ind {
            return Ok(0);
        }
        let waiting = match &self.role {
            PathRole::Sta { associated } => !associated.load(Ordering::Acquire),
            _ => false,
        };
        let mut n = 0;
        while let Some(b) = self.iface.beacon_ind(Wait::NoWait).map_err(PathError::Mac)? {
            n += 1;
            if !waiting {
                continue;
            }
            let f = crate::mgmt::beacon(b.bssid, 0, 100, b.tsf_us.unwrap_or(0), 0);
            if let Some(m) = &self.mgmt {
                if let Err(TrySendError::Full(_)) = m.to_mgmt.try_send(f) {
                    self.stats.drop(DropReason::QueueFull);
                }
            }
        }
        Ok(n)
    }

    fn management_out(&mut self) -> Result<usize, PathError> {
        let mut n = 0;
        loop {
            let mut f = match self.mgmt_pending.take() {
                Some(f) => f,
                None => match self.mgmt.as_ref().map(|m| m.from_mgmt.try_recv()) {
                    Some(Ok(f)) => f,
                    Some(Err(TryRecvError::Empty | TryRecvError::Disconnected)) | None => {
                        return Ok(n)
                    }
                },
            };
            let group = f.bytes[4] & 1 != 0;
            let len = f.len;
            if !self.submit(&mut f.bytes[..len], group, Ac::Be)? {
                self.mgmt_pending = Some(f);
                return Ok(n);
            }
            n += 1;
        }
    }

    /// The access category of the Ethernet frame `eth`, and `params` with its TID
    /// (QoS station); AC_BE and `params` unchanged otherwise.
    fn classify(&self, eth: &[u8], params: TxParams) -> (Ac, TxParams) {
        if !self.qos || eth.len() < 14 {
            return (Ac::Be, params);
        }
        let (ac, up) = classify(eth);
        (ac, TxParams { qos_tid: Some(up), ..params })
    }

    fn is_associated(&self, a: MacAddress) -> bool {
        match &self.role {
            PathRole::Ap => self.stations.is_associated_addr(a),
            _ => true,
        }
    }

    fn retry_backlog(&mut self) -> Result<usize, PathError> {
        let mut n = 0;
        while let Some(mut w) = self.backlog.pop() {
            if self.submit(&mut w.buf[w.start..w.start + w.len], w.multicast, w.ac)? {
                self.pool.put(w.buf);
                n += 1;
            } else {
                // Still no room: it stays first in line.
                let _ = self.backlog.push_front(w);
                break;
            }
        }
        Ok(n)
    }

    fn tap_to_mac(&mut self) -> Result<usize, PathError> {
        let mut n = 0;
        while n < BATCH && self.can_take_more() {
            let Some(mut buf) = self.pool.get() else { break };
            self.stats.io_syscalls += 1;
            // SAFETY: reads at most BUF_LEN - HEADROOM bytes into the buffer's tail.
            let r = unsafe {
                libc::read(self.fd, buf[HEADROOM..].as_mut_ptr().cast(), BUF_LEN - HEADROOM)
            };
            if r < 0 {
                self.pool.put(buf);
                let e = io::Error::last_os_error();
                return match e.kind() {
                    io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted => Ok(n),
                    _ => Err(PathError::Device(e)),
                };
            }
            if r == 0 {
                self.pool.put(buf);
                return Err(PathError::Device(io::Error::other("end of file")));
            }
            n += 1;
            self.take_frame(buf, r as usize)?;
        }
        Ok(n)
    }

    /// Converts the Ethernet frame of `len` bytes read at the headroom of `buf` and
    /// hands it to the MAC (or the backlog, or drops it with its reason).
    fn take_frame(&mut self, mut buf: FrameBuf, len: usize) -> Result<(), PathError> {
        self.stats.tap_rx_frames += 1;
        self.stats.tap_rx_bytes += len as u64;
        {
            if len > MAX_ETH_FRAME {
                self.stats.drop(DropReason::Oversized);
                self.pool.put(buf);
                return Ok(());
            }
            let (ac, params) = self.classify(&buf[HEADROOM..HEADROOM + len], self.params);
            let c = match eth_to_wlan(&mut buf[..], HEADROOM, len, &params) {
                Ok(c) => c,
                Err(why) => {
                    self.stats.drop(why);
                    self.pool.put(buf);
                    return Ok(());
                }
            };
            let multicast = c.dst.is_multicast();
            if !multicast && !self.stations.contains(c.dst) {
                self.stats.drop(DropReason::UnknownDestination);
                self.pool.put(buf);
                return Ok(());
            }
            let allowed = match &self.role {
                PathRole::Ibss => true,
                PathRole::Sta { associated } => associated.load(Ordering::Acquire),
                PathRole::Ap => multicast || self.is_associated(c.dst),
            };
            // Acknowledged or not goes by the receiver: a station's group frame goes
            // to its AP as unicast (To DS), acknowledged.
            let group = c.receiver.is_multicast();
            if !allowed {
                self.stats.drop(DropReason::NotAssociated);
                self.pool.put(buf);
                return Ok(());
            }
            if self.backlog.is_empty()
                && self.submit(&mut buf[c.start..c.start + c.len], group, ac)?
            {
                self.pool.put(buf);
                return Ok(());
            }
            let w = Waiting { buf, start: c.start, len: c.len, multicast: group, ac };
            if let Err(w) = self.backlog.push(w) {
                self.stats.drop(DropReason::QueueFull);
                self.pool.put(w.buf);
            }
        }
        Ok(())
    }

    fn mac_to_tap(&mut self) -> Result<usize, PathError> {
        if self.ring.is_none() {
            // The receive buffer is taken out of `self` for the pass, so that a
            // frame the AP relays can be submitted from it (an empty Vec allocates
            // nothing).
            let mut rx = std::mem::take(&mut self.rx);
            let r = self.mac_to_tap_with(&mut rx);
            self.rx = rx;
            return r;
        }
        // With io_uring every frame is received into a write buffer of the ring,
        // which stays with the ring while its write is in flight.
        let mut n = 0;
        while n < BATCH {
            let Some((slot, mut rx)) = self.ring.as_mut().and_then(TapRing::get_write_buf) else {
                break;
            };
            let got = self.one_indication(&mut rx);
            let ring = self.ring.as_mut().expect("io_uring");
            match got {
                Ok(Some(Some((start, len)))) => {
                    n += 1;
                    if let Err(e) = ring.write(slot, rx, start, len) {
                        return Err(PathError::Device(e));
                    }
                }
                Ok(Some(None)) => {
                    n += 1;
                    ring.put_write_buf(slot, rx);
                }
                Ok(None) => {
                    ring.put_write_buf(slot, rx);
                    break;
                }
                Err(e) => {
                    ring.put_write_buf(slot, rx);
                    return Err(e);
                }
            }
        }
        Ok(n)
    }

    fn mac_to_tap_with(&mut self, rx: &mut Vec<u8>) -> Result<usize, PathError> {
        let mut n = 0;
        while n < BATCH {
            match self.one_indication(rx)? {
                None => break,
                Some(None) => {}
                Some(Some((start, len))) => {
                    let frame = &rx[start..start + len];
                    self.stats.io_syscalls += 1;
                    // SAFETY: writes `frame`, a valid slice, to the descriptor.
                    let w = unsafe { libc::write(self.fd, frame.as_ptr().cast(), frame.len()) };
                    let res = if w < 0 {
                        Err(io::Error::last_os_error().raw_os_error().unwrap_or(0))
                    } else {
                        Ok(w as usize)
                    };
                    self.wrote(len, res)?;
                }
            }
            n += 1;
        }
        Ok(n)
    }

    /// Takes one indication into `rx`: `None` when there is none; otherwise the
    /// Ethernet frame to write to the TAP device (start and length in `rx`), if
    /// there is one left to write (a frame the AP also relays is written here, before
    /// the relay converts it again).
    #[allow(clippy::type_complexity)]
    fn one_indication(
        &mut self,
        rx: &mut Vec<u8>,
    ) -> Result<Option<Option<(usize, usize)>>, PathError> {
        {
            let Some(ind) = self.iface.data_ind(rx, Wait::NoWait).map_err(PathError::Mac)? else {
                return Ok(None);
            };
            self.stats.rx_indications += 1;
            if ind.duplicate {
                self.stats.drop(DropReason::Duplicate);
                return Ok(Some(None));
            }
            let len = ind.len.min(rx.len());
            if ind.class == FrameClass::Management {
                if let Some(cap) = &mut self.capture {
                    if cap.tap.beacons && rx.first() == Some(&0x80) {
                        cap.tap.refill(&cap.back);
                        cap.tap.record(&rx[..len]);
                    }
                }
                match &self.mgmt {
                    Some(m) => {
                        if let Err(TrySendError::Full(_)) =
                            m.to_mgmt.try_send(MgmtFrame::from_slice(&rx[..len]))
                        {
                            self.stats.drop(DropReason::QueueFull);
                        }
                    }
                    None => self.stats.drop(DropReason::NotData),
                }
                return Ok(Some(None));
            }
            self.stats.rx_by_ac[ind.ac as usize] += 1;
            let e = match wlan_to_eth(rx, len) {
                Ok(e) => e,
                Err(why) => {
                    self.stats.drop(why);
                    return Ok(Some(None));
                }
            };
            let own = self.params.own;
            let group = e.dst.is_multicast();
            let relay = match &self.role {
                PathRole::Ap => {
                    if !self.is_associated(e.src) {
                        self.stats.drop(DropReason::NotAssociated);
                        return Ok(Some(None));
                    }
                    group || (e.dst != own && self.is_associated(e.dst))
                }
                PathRole::Sta { .. } if e.src == own => {
                    // Its own group frame, relayed back by the AP.
                    self.stats.drop(DropReason::NotForUs);
                    return Ok(Some(None));
                }
                _ => false,
            };
            if e.dst != own && !group {
                if relay {
                    self.relay(rx, e.start, e.len)?;
                } else {
                    self.stats.drop(DropReason::NotForUs);
                }
                return Ok(Some(None));
            }
            if !relay {
                return Ok(Some(Some((e.start, e.len))));
            }
            // Written now: the relay converts the frame in place again.
            let frame = &rx[e.start..e.start + e.len];
            self.stats.io_syscalls += 1;
            // SAFETY: writes `frame`, a valid slice, to the descriptor.
            let w = unsafe { libc::write(self.fd, frame.as_ptr().cast(), frame.len()) };
            let res = if w < 0 {
                Err(io::Error::last_os_error().raw_os_error().unwrap_or(0))
            } else {
                Ok(w as usize)
            };
            self.wrote(e.len, res)?;
            self.relay(rx, e.start, e.len)?;
            Ok(Some(None))
        }
    }

    /// The AP sends the Ethernet frame at `rx[start..start + len]` on to its
    /// destination (From DS), converting it in place again.
    fn relay(&mut self, rx: &mut [u8], start: usize, len: usize) -> Result<(), PathError> {
        let (ac, params) = self.classify(&rx[start..start + len], self.relay);
        match eth_to_wlan(rx, start, len, &params) {
            Ok(c) => {
                let group = c.receiver.is_multicast();
                if self.submit(&mut rx[c.start..c.start + c.len], group, ac)? {
                    self.stats.relayed += 1;
                } else {
                    self.stats.drop(DropReason::QueueFull);
                }
            }
            Err(why) => self.stats.drop(why),
        }
        Ok(())
    }
}
