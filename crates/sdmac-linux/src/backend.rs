//! [`LinuxBackend`]: the SDMAC primitives on a mac80211 monitor interface.
//!
//! `data_req` injects the frame at once (AF_PACKET, radiotap TX header); a receive
//! thread reads the monitor socket, turns TX-status echoes into confirmations
//! (through the pure [`Matcher`]), sends the frame again at the next entry of a
//! multi-entry rate series when an entry failed, confirms `NoReport` what the driver
//! never reports, and queues received frames and beacons as indications.
//!
//! # Timestamps on Linux
//!
//! | plane | linux backend |
//! |---|---|
//! | t1 | the application ([`sdmac_api::Interface`]) |
//! | t2 | first instruction of `data_req` |
//! | t3 | just before `send()` on the packet socket: the request reaches the kernel |
//! | t4 | `send()` has returned: mac80211 has the frame (PACKET_QDISC_BYPASS: no qdisc) |
//! | t_start, t_last_start, t_data_end, t5 | 0: Linux reports no time on air for an injected frame |
//! | t7 | the kernel's software receive stamp (SO_TIMESTAMPING) of the TX-status echo of the last entry, carried from CLOCK_REALTIME onto CLOCK_MONOTONIC: the outcome is back on the host. Never before the frame's (re)send nor after t8: a carried stamp outside that span is clamped into it and counted (`Stats::matcher.clamped_stamps`) |
//! | t8 | the receive thread queued the confirmation |
//! | t9 | `data_con` returned ([`sdmac_api::Interface`]) |
//!
//! `Timestamps::components` needs t_start and t5, so it is `None` here; t7 − t4 is
//! the driver's share (queueing, air, ACK, status report), t9 − t7 the host's.
//! Indications: `t_end` is the software receive stamp of the frame, `t_start` 0,
//! `tsft_us` the radiotap TSFT where the driver gives one.
//!
//! # Faults
//! When the interface goes down or away (ENETDOWN on the socket: `ip link del`,
//! `ip link set down`, the module removed), every waiting request is confirmed
//! `Dropped(Closed)`, blocked calls return, and later calls answer `Closed` once the
//! queued confirmations and indications have been read.

mod receiver;

use receiver::receive_loop;

use crate::frames::{check_raw_frame, injected, payload_frame, set_seq, MAX_PSDU_NON_HT};
use crate::matcher::{Key, Matcher, Request};
use crate::rates::{to_tx_rate, Band};
use crate::socket::PacketSocket;
use sdmac_api::attribute::lookup;
use sdmac_api::{
    Ac, ApiError, Backend, BeaconInd, Body, Confirmation, Indication, MacAddress, Scope, Time,
    Timestamps, TxAttrs, Value, Wait, MAX_ID, MAX_PAYLOAD,
};
use sdmac_frame::radiotap::TxParams;
use sdmac_rt::{monotonic_ns, EventFd};
use std::collections::{HashMap, VecDeque};
use std::os::fd::{AsRawFd, RawFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

/// Where `set`/`get` of adapter attributes go (nl80211, provided by the control
/// half). Without one they answer [`ApiError::Unsupported`].
pub trait Control: Send {
    /// Sets an attribute.
    fn set(&mut self, name: &str, scope: Scope, value: &Value) -> Result<(), ApiError>;
    /// Reads an attribute.
    fn get(&mut self, name: &str, scope: Scope) -> Result<Value, ApiError>;
}

/// How a [`LinuxBackend`] is opened.
#[derive(Clone, Debug)]
pub struct LinuxConfig {
    /// The monitor interface's channel (MHz): its band decides which rates are
    /// accepted.
    pub freq_mhz: u32,
    /// A frame whose TX-status echo has not come this long after it was (re)sent is
    /// confirmed [`sdmac_api::Status::NoReport`]. Default 1 s.
    pub report_timeout: Duration,
    /// Address 3 of payload frames, and their receiver when `dst` is not given.
    /// None: address 3 is the receiver, and `dst` is required.
    pub bssid: Option<MacAddress>,
    /// Most requests waiting for their echo at once (more: `QueueFull`). Default 1024.
    pub max_pending: usize,
    /// Most confirmations left unread (more: `ConfirmationBacklog`). Default 4096.
    pub con_capacity: usize,
    /// Most indications (and, separately, beacons) kept unread; older ones are
    /// dropped and counted. Default 4096.
    pub ind_capacity: usize,
}

impl LinuxConfig {
    /// Defaults for a monitor on `freq_mhz`.
    pub fn new(freq_mhz: u32) -> LinuxConfig {
        LinuxConfig {
            freq_mhz,
            report_timeout: Duration::from_secs(1),
            bssid: None,
            max_pending: 1024,
            con_capacity: 4096,
            ind_capacity: 4096,
        }
    }
}

/// Counters of a backend (for tests and diagnostics).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// The matcher's counters.
    pub matcher: crate::matcher::Counters,
    /// Echoes of frames sent by other interfaces of the radio.
    pub foreign_echoes: u64,
    /// Frames received and indicated (data_ind).
    pub indicated: u64,
    /// Beacons indicated.
    pub beacons: u64,
    /// Indications or beacons dropped because nobody read them.
    pub ind_dropped: u64,
    /// Frames read but not indicated (control frames, bad FCS, malformed).
    pub skipped: u64,
    /// Resends that the kernel refused (the request then ends `NoReport`).
    pub resend_failed: u64,
    /// Frames the kernel dropped because the socket's receive buffer was full (an
    /// echo lost so ends its request `NoReport`).
    pub socket_drops: u64,
    /// The packet types (sockaddr_ll `sll_pkttype`, as bits `1 << type`) TX-status
    /// echoes arrived with.
    pub echo_pkttypes: u8,
    /// The packet types received frames arrived with.
    pub rx_pkttypes: u8,
    /// Receive stamps of indications that, carried onto CLOCK_MONOTONIC, came out
    /// after the frame was read, and were set to when it was read (echo stamps
    /// clamped are in [`crate::matcher::Counters::clamped_stamps`]).
    pub rx_stamps_clamped: u64,
}

struct State {
    matcher: Matcher,
    cons: VecDeque<Confirmation>,
    inds: VecDeque<(Indication, Vec<u8>)>,
    beacons: VecDeque<BeaconInd>,
    /// MPDUs of waiting multi-entry requests, to send again.
    frames: HashMap<Key, (Vec<u8>, bool)>,
    closed: Option<String>,
    stats: Stats,
    ind_id: u64,
    beacon_seq: u64,
    last_seq: HashMap<MacAddress, u16>,
    submitted: u64,
    read: u64,
}

struct Shared {
    state: Mutex<State>,
    cond: Condvar,
    efd: EventFd,
    efd_on: AtomicBool,
    stop: AtomicBool,
    sock: PacketSocket,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn wake(&self) {
        self.cond.notify_all();
        if self.efd_on.load(Ordering::SeqCst) {
            self.efd.signal();
        }
    }
}

/// The linux backend on one monitor interface. Implements [`Backend`].
pub struct LinuxBackend {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
    cfg: LinuxConfig,
    band: Band,
    addr: MacAddress,
    seq: u16,
    mpdu: Vec<u8>,
    out: Vec<u8>,
    control: Option<Box<dyn Control>>,
    last_sent: Option<Key>,
}

impl std::fmt::Debug for LinuxBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LinuxBackend")
            .field("iface", &self.shared.sock.info().name)
            .field("addr", &self.addr)
            .finish()
    }
}

impl LinuxBackend {
    /// Opens the backend on the monitor interface `iface` (which must exist and be
    /// up, on channel `cfg.freq_mhz`). Needs CAP_NET_RAW.
    pub fn open(iface: &str, cfg: LinuxConfig) -> Result<LinuxBackend, String> {
        let band = Band::of(cfg.freq_mhz).ok_or_else(|| {
            format!("{iface}: {} MHz is not a Wi-Fi channel frequency", cfg.freq_mhz)
        })?;
        let sock = PacketSocket::open(iface)?;
        let addr = MacAddress(sock.info().addr);
        let state = State {
            matcher: Matcher::new(cfg.report_timeout.as_nanos().min(u64::MAX as u128) as u64),
            cons: VecDeque::new(),
            inds: VecDeque::new(),
            beacons: VecDeque::new(),
            frames: HashMap::new(),
            closed: None,
            stats: Stats::default(),
            ind_id: 0,
            beacon_seq: 0,
            last_seq: HashMap::new(),
            submitted: 0,
            read: 0,
        };
        let efd = EventFd::new().map_err(|e| format!("{iface}: eventfd: {e}"))?;
        let shared = Arc::new(Shared {
            state: Mutex::new(state),
            cond: Condvar::new(),
            efd,
            efd_on: AtomicBool::new(false),
            stop: AtomicBool::new(false),
            sock,
        });
        let s2 = shared.clone();
        let cap = cfg.ind_capacity;
        let thread = std::thread::Builder::new()
            .name(format!("sdmac-linux-{iface}"))
            .spawn(move || receive_loop(&s2, addr, cap))
            .map_err(|e| format!("{iface}: starting the receive thread: {e}"))?;
        Ok(LinuxBackend {
            shared,
            thread: Some(thread),
            cfg,
            band,
            addr,
            seq: 0,
            mpdu: vec![0; MAX_PSDU_NON_HT + 64],
            out: Vec::new(),
            control: None,
            last_sent: None,
        })
    }

    /// Routes `set`/`get` of adapter attributes to `control` (nl80211).
    pub fn set_control(&mut self, control: Box<dyn Control>) {
        self.control = Some(control);
    }

    /// The monitor interface's address (address 2 of payload frames).
    pub fn address(&self) -> MacAddress {
        self.addr
    }

    /// The key (receiver address, sequence control) of the frame the last
    /// successful `data_req` handed to the kernel; None when that request sent no
    /// frame (it was confirmed at once, or refused).
    pub fn last_sent(&self) -> Option<Key> {
        self.last_sent
    }

    /// The interface's name.
    pub fn iface(&self) -> &str {
        &self.shared.sock.info().name
    }

    /// The counters.
    pub fn stats(&self) -> Stats {
        let mut st = self.shared.lock();
        st.stats.socket_drops += self.shared.sock.take_drops();
        Stats { matcher: st.matcher.counters(), ..st.stats }
    }

    /// Why the backend closed, if it did.
    pub fn closed_reason(&self) -> Option<String> {
        self.shared.lock().closed.clone()
    }

    fn validate(&self, attrs: &TxAttrs) -> Result<(), ApiError> {
        if let Some(r) = &attrs.rates {
            sdmac_api::check_tries(r)
                .map_err(|reason| ApiError::InvalidRequest { what: "rates", reason })?;
            if r.entries().len() > 4 {
                return Err(ApiError::InvalidRequest {
                    what: "rates",
                    reason: format!("{} entries (at most 4)", r.entries().len()),
                });
            }
            if let Some((bad, _)) =
                r.entries().iter().find(|(r, _)| !self.band.has(*r) || to_tx_rate(*r).is_none())
            {
                return Err(ApiError::InvalidRequest {
                    what: "rates",
                    reason: format!(
                        "rate {bad} is not a rate of the {} band (channel {} MHz)",
                        self.band.name(),
                        self.cfg.freq_mhz
                    ),
                });
            }
        }
        Ok(())
    }

    /// The longest MPDU (no FCS) that may be injected: the PHY's limit (non-HT PSDU)
    /// and what the interface's MTU lets AF_PACKET send.
    fn max_mpdu(&self, radiotap_len: usize) -> usize {
        let phy = MAX_PSDU_NON_HT - 4;
        // AF_PACKET refuses more than MTU + the link header (14 on a monitor).
        let mtu = (self.shared.sock.info().mtu + 14).saturating_sub(radiotap_len);
        phy.min(mtu)
    }

    fn wait_for<T>(
        &mut self,
        wait: Wait,
        mut take: impl FnMut(&mut State) -> Option<T>,
    ) -> Result<Option<T>, ApiError> {
        let deadline = wait.deadline(Time::from_ns(monotonic_ns())).as_ns();
        let mut st = self.shared.lock();
        loop {
            if let Some(v) = take(&mut st) {
                return Ok(Some(v));
            }
            if st.closed.is_some() {
                return Err(ApiError::Closed);
            }
            if self.shared.efd_on.load(Ordering::SeqCst)
                && st.cons.is_empty()
                && st.inds.is_empty()
                && st.beacons.is_empty()
            {
                self.shared.efd.clear();
            }
            let now = monotonic_ns();
            if now >= deadline {
                return Ok(None);
            }
            let d = Duration::from_nanos((deadline - now).min(3_600_000_000_000));
            st = self.shared.cond.wait_timeout(st, d).unwrap_or_else(|e| e.into_inner()).0;
        }
    }
}

impl Drop for LinuxBackend {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Backend for LinuxBackend {
    fn data_req(
        &mut self,
        id: u64,
        body: Body<'_>,
        ac: Ac,
        attrs: &TxAttrs,
        t1: Time,
    ) -> Result<(), ApiError> {
        let t2 = if !t1.is_zero() { Time::from_ns(monotonic_ns()) } else { Time::ZERO };
        self.last_sent = None;
        if id > MAX_ID {
            return Err(ApiError::InvalidId { id });
        }
        self.validate(attrs)?;
        let first = attrs.rates.map(|r| r.entries()[0]);
        let tx = TxParams {
            rate: first.and_then(|e| to_tx_rate(e.0)),
            retries: first.map_or(0, |e| e.1.saturating_sub(1)),
            no_ack: attrs.no_ack,
            keep_seq: true,
        };
        let rt_len = tx.repr().buffer_len();
        let max = self.max_mpdu(rt_len);
        let (len, dst) = match body {
            Body::Payload(p) => {
                if p.len() > MAX_PAYLOAD {
                    return Err(ApiError::TooLong { len: p.len(), max: MAX_PAYLOAD });
                }
                let dst = attrs.dst.or(self.cfg.bssid).ok_or(ApiError::InvalidRequest {
                    what: "dst",
                    reason: "no destination given and no BSSID configured".into(),
                })?;
                let bssid = self.cfg.bssid.unwrap_or(dst);
                let n = payload_frame(&mut self.mpdu, dst, self.addr, bssid, ac, attrs.no_ack, p)?;
                if n > max {
                    return Err(ApiError::TooLong {
                        len: p.len(),
                        max: p.len().saturating_sub(n - max),
                    });
                }
                (n, dst)
            }
            Body::Frame(f) => {
                if f.len() > max {
                    return Err(ApiError::TooLong { len: f.len(), max });
                }
                let addr1 = check_raw_frame(f)?;
                self.mpdu[..f.len()].copy_from_slice(f);
                (f.len(), addr1)
            }
        };
        if attrs.dst.is_some_and(|d| d != dst) {
            return Err(ApiError::InvalidRequest {
                what: "dst",
                reason: format!(
                    "{} differs from the frame's address 1 {dst}",
                    attrs.dst.unwrap_or(dst)
                ),
            });
        }
        let mut st = self.shared.lock();
        if st.closed.is_some() {
            return Err(ApiError::Closed);
        }
        if st.matcher.len() >= self.cfg.max_pending {
            return Err(ApiError::QueueFull { ac, limit: self.cfg.max_pending });
        }
        if st.submitted - st.read >= self.cfg.con_capacity as u64 {
            return Err(ApiError::ConfirmationBacklog { limit: self.cfg.con_capacity });
        }
        // The next sequence number whose key is free.
        let mut key = Key { addr1: dst, seq_ctrl: self.seq << 4 };
        while st.matcher.has_key(&key) {
            self.seq = (self.seq + 1) & 0x0fff;
            key.seq_ctrl = self.seq << 4;
        }
        set_seq(&mut self.mpdu[..len], self.seq, false);
        self.seq = (self.seq + 1) & 0x0fff;
        injected(&tx, &self.mpdu[..len], &mut self.out);
        let want_ts = attrs.timestamps;
        let t3 = if want_ts { Time::from_ns(monotonic_ns()) } else { Time::ZERO };
        let req = Request {
            id,
            ac,
            no_ack: attrs.no_ack || dst.0[0] & 1 != 0,
            rates: attrs.rates,
            len: len as u32 + 4,
            ts: Timestamps { t1, t2, t3, ..Timestamps::default() },
            want_ts,
        };
        if let Some(c) = st.matcher.submit(monotonic_ns(), key, req) {
            st.cons.push_back(c);
            st.submitted += 1;
            drop(st);
            self.shared.wake();
            return Ok(());
        }
        match self.shared.sock.send(&self.out) {
            Ok(()) => {}
            Err(e) => {
                st.matcher.withdraw(&key);
                return Err(match e.raw_os_error() {
                    Some(libc::EAGAIN) | Some(libc::ENOBUFS) => {
                        ApiError::QueueFull { ac, limit: st.matcher.len() }
                    }
                    Some(libc::EMSGSIZE) => {
                        ApiError::TooLong { len, max: self.shared.sock.info().mtu }
                    }
                    Some(libc::ENETDOWN) | Some(libc::ENXIO) | Some(libc::ENODEV) => {
                        ApiError::Closed
                    }
                    _ => ApiError::InvalidRequest {
                        what: "frame",
                        reason: format!("the kernel refused it: {e}"),
                    },
                });
            }
        }
        if want_ts {
            // t4: the frame is with mac80211; kept with the request.
            let t4 = monotonic_ns();
            st.matcher.set_t4(&key, t4);
        }
        if attrs.rates.is_some_and(|r| r.entries().len() > 1) {
            st.frames.insert(key, (self.mpdu[..len].to_vec(), attrs.no_ack));
        }
        st.submitted += 1;
        self.last_sent = Some(key);
        Ok(())
    }

    fn data_con(&mut self, wait: Wait) -> Result<Option<Confirmation>, ApiError> {
        self.wait_for(wait, |st| {
            let c = st.cons.pop_front()?;
            st.read += 1;
            Some(c)
        })
    }

    fn data_ind(&mut self, buf: &mut Vec<u8>, wait: Wait) -> Result<Option<Indication>, ApiError> {
        let r = self.wait_for(wait, |st| st.inds.pop_front())?;
        Ok(r.map(|(mut ind, bytes)| {
            buf.clear();
            buf.extend_from_slice(&bytes);
            ind.rx.t_returned = Time::from_ns(monotonic_ns());
            ind
        }))
    }

    fn beacon_ind(&mut self, wait: Wait) -> Result<Option<BeaconInd>, ApiError> {
        self.wait_for(wait, |st| st.beacons.pop_front())
    }

    fn set(&mut self, name: &str, scope: Scope, value: &Value) -> Result<(), ApiError> {
        let spec = lookup(name, &scope, true)?;
        match &mut self.control {
            Some(c) => c.set(spec.name, scope, value),
            None => Err(ApiError::Unsupported {
                what: format!(
                    "setting {:?} (the linux backend was opened without its nl80211 control)",
                    spec.name
                ),
            }),
        }
    }

    fn get(&mut self, name: &str, scope: Scope) -> Result<Value, ApiError> {
        let spec = lookup(name, &scope, false)?;
        if spec.name == "queue_len" {
            if let Scope::Queue(ac) = scope {
                return Ok(Value::Int(self.queue_len(ac) as i64));
            }
        }
        match &mut self.control {
            Some(c) => c.get(spec.name, scope),
            None => Err(ApiError::Unsupported {
                what: format!(
                    "reading {:?} (the linux backend was opened without its nl80211 control)",
                    spec.name
                ),
            }),
        }
    }

    fn cancel(&mut self, id: u64) -> Result<bool, ApiError> {
        if id > MAX_ID {
            return Err(ApiError::InvalidId { id });
        }
        // data_req hands every frame to the kernel at once: nothing is ever still
        // queued here to take back.
        Ok(false)
    }

    fn queue_len(&self, ac: Ac) -> usize {
        self.shared.lock().matcher.len_ac(ac)
    }

    fn unconfirmed(&self) -> usize {
        let st = self.shared.lock();
        (st.submitted - st.read) as usize
    }

    fn event_fd(&mut self) -> Option<RawFd> {
        self.shared.efd_on.store(true, Ordering::SeqCst);
        let st = self.shared.lock();
        if !st.cons.is_empty()
            || !st.inds.is_empty()
            || !st.beacons.is_empty()
            || st.closed.is_some()
        {
            self.shared.efd.signal();
        }
        Some(self.shared.efd.as_raw_fd())
    }

    fn timed_sends(&self) -> bool {
        // The driver sends a frame when it arrives; nothing here holds it for a time.
        false
    }
}
