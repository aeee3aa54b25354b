//! What crosses between an interface (application thread) and the device thread:
//! messages, rings, and the shared counters and wake-ups.

use sdmac_api::{ApiError, BeaconInd, Confirmation, Indication, Scope, Timestamps, Value};
use sdmac_frame::MacAddress;
use sdmac_medium::{Ac, RateSeries};
use sdmac_rt::{EventFd, Wake};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Longest a parked thread (the device, or an interface waiting for a control reply)
/// sleeps before it looks again for work it might not have been woken for. Wake-ups
/// are never missed by design; this bounds the cost of one that were to a delay.
pub(crate) const RECHECK: std::time::Duration = std::time::Duration::from_millis(100);

/// Largest frame an interface sends (header, LLC/SNAP, payload; no FCS).
pub(crate) const MAX_FRAME: usize = 2400;

/// A frame buffer, recycled between the interface and the device.
pub(crate) type FrameBuf = Box<[u8; MAX_FRAME]>;

pub(crate) fn new_buf() -> FrameBuf {
    vec![0u8; MAX_FRAME].into_boxed_slice().try_into().expect("MAX_FRAME bytes")
}

/// One `data_req` on its way to the device.
#[derive(Debug)]
pub(crate) struct DataMsg {
    pub id: u64,
    pub ac: Ac,
    pub dst: MacAddress,
    pub rates: Option<RateSeries>,
    pub no_ack: bool,
    pub buf: FrameBuf,
    /// Frame length in `buf` (no FCS).
    pub len: u32,
    /// t1 and t2 (zero when not recorded).
    pub ts: Timestamps,
    /// Handed to the medium no earlier than this (`CLOCK_MONOTONIC` ns; 0: at once).
    pub not_before: u64,
    /// Dropped as late if it would reach the medium after this (`u64::MAX`: never).
    pub not_after: u64,
}

/// Application → device.
#[derive(Debug)]
pub(crate) enum Cmd {
    Data(DataMsg),
    Cancel(u64),
    Set(&'static str, Scope, Value),
    Get(&'static str, Scope),
}

/// Device → application answers to `Cancel`, `Set`, `Get`.
#[derive(Debug)]
pub(crate) enum Reply {
    Cancel(bool),
    Set(Result<(), ApiError>),
    Get(Result<Value, ApiError>),
}

/// A confirmation, carrying the request's buffer back for reuse.
#[derive(Debug)]
pub(crate) struct ConMsg {
    pub con: Confirmation,
    pub buf: Option<FrameBuf>,
}

/// A received frame with its bytes. The application copies the bytes out and hands
/// the buffer back on the interface's `ind_free` ring, so that buffers circulate
/// between the two threads and steady reception allocates nothing.
#[derive(Debug)]
pub(crate) struct IndMsg {
    pub ind: Indication,
    pub bytes: Vec<u8>,
}

/// Indication buffers put on an interface's `ind_free` ring when it starts (more are
/// made only if more indications than this wait unread at once). 64 frames of
/// `MAX_FRAME` (150 KiB an interface) cover an application held off its CPU for about
/// three seconds while beacons arrive every 50 TU; 16 were outgrown on a loaded host.
pub(crate) const IND_BUFFERS_AT_START: usize = 64;

/// State shared by one interface and the device thread.
#[derive(Debug)]
pub(crate) struct IfaceShared {
    /// Requests finished (confirmation published), per queue index.
    pub completed: [AtomicU64; 4],
    /// The application waits on this for confirmations, indications, beacons, replies.
    pub app_wake: Wake,
    /// Readable when something arrives, once an event loop asked for it.
    pub efd: EventFd,
    pub efd_on: AtomicBool,
    /// Indications lost because the application did not read them.
    pub ind_overflow: AtomicU64,
    /// Beacons lost because the application did not read them.
    pub beacon_overflow: AtomicU64,
    /// On the virtual clock: whether the application takes part, is busy or waits
    /// (and for what, until when); see [`crate::clock`].
    pub vstate: AtomicU64,
}

impl IfaceShared {
    pub fn new() -> std::io::Result<IfaceShared> {
        Ok(IfaceShared {
            completed: Default::default(),
            app_wake: Wake::new(),
            efd: EventFd::new()?,
            efd_on: AtomicBool::new(false),
            ind_overflow: AtomicU64::new(0),
            beacon_overflow: AtomicU64::new(0),
            vstate: AtomicU64::new(crate::clock::V_DETACHED),
        })
    }

    /// Tells the application something arrived.
    #[inline]
    pub fn signal(&self) {
        self.app_wake.notify();
        if self.efd_on.load(Ordering::Relaxed) {
            self.efd.signal();
        }
    }
}

/// State shared by the whole session.
#[derive(Debug, Default)]
pub(crate) struct SessionShared {
    /// The device waits on this for commands.
    pub device_wake: Wake,
    /// Set when the session ends; interfaces then refuse requests.
    pub closed: AtomicBool,
    /// Counts the changes of the interfaces' virtual-time states, so that the device
    /// parks only while none changes.
    pub vtick: AtomicU64,
    /// The watchdog's reports of virtual time standing still.
    pub stalls: std::sync::Mutex<Vec<String>>,
    /// On a caller-driven medium ([`crate::driver`]): one pass of it, for an interface
    /// that waits for the device's answer (perhaps on the very thread that drives it).
    pub help: DrivenHelp,
}

/// One pass of a caller-driven medium, if the session is one.
#[derive(Default)]
pub(crate) struct DrivenHelp(pub std::sync::OnceLock<Box<dyn Fn() + Send + Sync>>);

impl std::fmt::Debug for DrivenHelp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.get().is_some() {
            "DrivenHelp(driven)"
        } else {
            "DrivenHelp(thread)"
        })
    }
}

impl SessionShared {
    /// An interface's virtual-time state changed: tells the device.
    pub fn vstate_changed(&self) {
        self.vtick.fetch_add(1, Ordering::SeqCst);
        self.device_wake.notify();
    }
}

/// The device's ends of one interface's rings.
pub(crate) struct DeviceEnds {
    pub cmd: rtrb::Consumer<Cmd>,
    pub reply: rtrb::Producer<Reply>,
    pub con: rtrb::Producer<ConMsg>,
    pub ind: rtrb::Producer<IndMsg>,
    /// Indication buffers the application has emptied, for reuse.
    pub ind_free: rtrb::Consumer<Vec<u8>>,
    pub beacon: rtrb::Producer<BeaconInd>,
}

/// The application's ends of one interface's rings.
pub(crate) struct AppEnds {
    pub cmd: rtrb::Producer<Cmd>,
    pub reply: rtrb::Consumer<Reply>,
    pub con: rtrb::Consumer<ConMsg>,
    pub ind: rtrb::Consumer<IndMsg>,
    /// Where emptied indication buffers go back to the device.
    pub ind_free: rtrb::Producer<Vec<u8>>,
    pub beacon: rtrb::Consumer<BeaconInd>,
}

/// Ring capacities of one interface.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Capacities {
    pub cmd: usize,
    pub con: usize,
    pub ind: usize,
    pub beacon: usize,
}

pub(crate) fn rings(c: Capacities) -> (AppEnds, DeviceEnds) {
    let (cmd_p, cmd_c) = rtrb::RingBuffer::new(c.cmd);
    let (reply_p, reply_c) = rtrb::RingBuffer::new(4);
    let (con_p, con_c) = rtrb::RingBuffer::new(c.con);
    let (ind_p, ind_c) = rtrb::RingBuffer::new(c.ind);
    // Every indication buffer is in the indication ring, on the free ring, or held
    // by one side for a moment: the free ring holds them all.
    let (free_p, free_c) = rtrb::RingBuffer::new(c.ind + 4);
    let (b_p, b_c) = rtrb::RingBuffer::new(c.beacon);
    let mut app = AppEnds {
        cmd: cmd_p,
        reply: reply_c,
        con: con_c,
        ind: ind_c,
        ind_free: free_p,
        beacon: b_c,
    };
    for _ in 0..c.ind.min(IND_BUFFERS_AT_START) {
        let _ = app.ind_free.push(Vec::with_capacity(MAX_FRAME));
    }
    let dev = DeviceEnds {
        cmd: cmd_c,
        reply: reply_p,
        con: con_p,
        ind: ind_p,
        ind_free: free_c,
        beacon: b_p,
    };
    (app, dev)
}
