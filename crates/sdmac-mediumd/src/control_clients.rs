//! The clients of Mininet-WiFi's control socket (`-s`): accepted if their
//! credentials admit them ([`ControlSocket::admits`]), read without blocking, every
//! whole request applied (by whoever owns the medium) and answered.
//!
//! Clients may also speak sdmac's extension (`sdmac_control::ext`): their replies and
//! the truth records they subscribe to go through an [`Outbox`] each, written without
//! blocking. A Mininet-WiFi client that never sends an extension message is served
//! exactly as before.

use crate::control::{encode_reply, Decoder, Request};
use crate::control_socket::{peer_cred, ControlSocket};
use crate::error::{io_err, DaemonError};
use crate::mininet_requests::Applied;
use crate::outbox::{Outbox, DEFAULT_LIMIT};
use crate::poller::Poller;
use crate::syscall_count;
use sdmac_control::ext::{
    encode_ext_reply, ExtReply, ExtRequest, ExtResult, ReplyBody, TruthRecord,
};
use sdmac_control::stream::Message;
use std::collections::HashMap;
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, Ordering};

/// Whoever owns the medium: applies what clients ask.
pub(crate) trait Handler {
    /// A Mininet-WiFi request.
    fn apply(&mut self, r: &Request) -> Applied;
    /// An extension request other than subscribe / unsubscribe.
    fn apply_ext(&mut self, r: &ExtRequest) -> ExtReply;
}

/// A handler of Mininet-WiFi requests only: extension requests are not supported.
struct MininetOnly<F>(F);

impl<F: FnMut(&Request) -> Applied> Handler for MininetOnly<F> {
    fn apply(&mut self, r: &Request) -> Applied {
        (self.0)(r)
    }

    fn apply_ext(&mut self, r: &ExtRequest) -> ExtReply {
        ExtReply::done(r, ExtResult::NotSupported)
    }
}

/// The poller token of the listening socket.
pub(crate) const LISTENER: u64 = 2;
/// Clients get tokens from here up; lower tokens are the daemon's own.
pub(crate) const FIRST_CLIENT: u64 = 16;

/// A client of the control socket.
struct Client {
    stream: UnixStream,
    decoder: Decoder,
    outbox: Outbox,
}

/// The control socket and its clients.
pub(crate) struct Clients {
    socket: Option<ControlSocket>,
    clients: HashMap<u64, Client>,
    next: u64,
    /// The medium makes truth records (the one-thread loop): subscriptions are taken.
    pub truth_available: bool,
    /// Bytes a client's backlog may hold before its records are dropped.
    pub outbox_limit: usize,
    /// Records dropped for clients that no longer are.
    lost_gone: u64,
}

impl Clients {
    /// Serves `socket` (opened by the daemon's `open_control`), watched by
    /// `poller`; no socket when None.
    pub fn new(socket: Option<ControlSocket>, poller: &Poller) -> Result<Clients, DaemonError> {
        if let Some(s) = &socket {
            s.listener().set_nonblocking(true).map_err(io_err("control socket"))?;
            poller.add(s.listener().as_raw_fd(), LISTENER).map_err(io_err("epoll add"))?;
        }
        Ok(Clients {
            socket,
            clients: HashMap::new(),
            next: FIRST_CLIENT,
            truth_available: false,
            outbox_limit: DEFAULT_LIMIT,
            lost_gone: 0,
        })
    }

    /// Accepts every waiting connection if the listener is among `ready`.
    /// Clients whose credentials the socket does not admit are closed at once and
    /// logged (uid, pid) from log level 4 (warnings; the default is 6).
    pub fn accept(&mut self, ready: &[u64], poller: &Poller, log: u8) {
        let Some(s) = self.socket.as_ref() else { return };
        if !ready.contains(&LISTENER) {
            return;
        }
        while let Ok((stream, _)) = {
            syscall_count::add(1);
            s.listener().accept()
        } {
            match peer_cred(&stream) {
                Ok(c) if s.admits(&c) => {}
                Ok(c) => {
                    if log >= 4 {
                        eprintln!(
                            "sdmac-mediumd: control: refused a client (uid {}, gid {}, pid {}): not root, the daemon's uid, a member of the socket's group or an allowed uid",
                            c.uid, c.gid, c.pid
                        );
                    }
                    continue;
                }
                Err(e) => {
                    if log >= 4 {
                        eprintln!("sdmac-mediumd: control: refused a client whose credentials cannot be read: {e}");
                    }
                    continue;
                }
            }
            let t = self.next;
            self.next += 1;
            if stream.set_nonblocking(true).is_ok() && poller.add(stream.as_raw_fd(), t).is_ok() {
                self.clients.insert(
                    t,
                    Client { stream, decoder: Decoder::new(), outbox: Outbox::default() },
                );
            }
        }
    }

    /// Is some client among `ready`?
    pub fn any_ready(ready: &[u64]) -> bool {
        ready.iter().any(|&t| t >= FIRST_CLIENT)
    }

    /// Serves every client among `ready`: each whole request goes to `apply` and is
    /// answered; a request to stop sets `stop`. Clients that left, or sent a type that
    /// cannot be parsed, are closed.
    /// Extension requests other than subscriptions are refused (not supported).
    pub fn serve(
        &mut self,
        ready: &[u64],
        poller: &Poller,
        stop: &AtomicBool,
        log: u8,
        apply: impl FnMut(&Request) -> Applied,
    ) {
        self.serve_with(ready, poller, stop, log, &mut MininetOnly(apply))
    }

    /// As [`serve`](Self::serve), with `h` applying extension requests too (other
    /// than subscribe / unsubscribe, which are taken here).
    pub fn serve_with(
        &mut self,
        ready: &[u64],
        poller: &Poller,
        stop: &AtomicBool,
        log: u8,
        h: &mut impl Handler,
    ) {
        let (truth, limit) = (self.truth_available, self.outbox_limit);
        for &t in ready.iter().filter(|&&t| t >= FIRST_CLIENT) {
            let keep = match self.clients.get_mut(&t) {
                Some(c) => {
                    serve_client(c, h, truth, limit, stop, log) && flush(c, t, poller).is_ok()
                }
                None => continue,
            };
            if !keep {
                self.close(t, poller);
            }
        }
    }

    fn close(&mut self, t: u64, poller: &Poller) {
        if let Some(c) = self.clients.remove(&t) {
            self.lost_gone += c.outbox.lost_total;
            poller.remove(c.stream.as_raw_fd());
        }
    }

    /// Does some client subscribe to the truth stream?
    pub fn wants_truth(&self) -> bool {
        self.clients.values().any(|c| c.outbox.subscription.is_some())
    }

    /// Truth records dropped because a subscriber's backlog was full, in all.
    pub fn truth_lost(&self) -> u64 {
        self.lost_gone + self.clients.values().map(|c| c.outbox.lost_total).sum::<u64>()
    }

    /// Hands `records` (times on the daemon's clock, which starts at `origin` on
    /// CLOCK_MONOTONIC) to every subscriber that wants them, and writes what each
    /// socket takes now. Never blocks; `records` is emptied.
    pub fn publish(&mut self, records: &mut Vec<TruthRecord>, origin: u64, poller: &Poller) {
        if records.is_empty() {
            return;
        }
        let limit = self.outbox_limit;
        let mut gone = Vec::new();
        for (&t, c) in self.clients.iter_mut().filter(|(_, c)| c.outbox.subscription.is_some()) {
            for r in records.iter() {
                if c.outbox.wants(r) {
                    let mut r = *r;
                    r.t_arrival_ns += origin;
                    r.t_first_start_ns += origin;
                    r.t_end_ns += origin;
                    c.outbox.offer(&r, limit);
                }
            }
            if flush(c, t, poller).is_err() {
                gone.push(t);
            }
        }
        for t in gone {
            self.close(t, poller);
        }
        records.clear();
    }

    /// On exit: gives every client's backlog up to `within` to reach its socket
    /// (then what is left is lost with the connection).
    pub fn drain(&mut self, within: std::time::Duration) {
        let deadline = std::time::Instant::now() + within;
        loop {
            let mut left = false;
            for c in self.clients.values_mut() {
                if c.outbox.pending() > 0 && c.outbox.write_to(&mut c.stream).is_ok() {
                    left |= c.outbox.pending() > 0;
                }
            }
            if !left || std::time::Instant::now() >= deadline {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }

    /// Removes the socket file (on exit; dropping does it too).
    pub fn remove_socket_file(&mut self) {
        self.socket = None;
    }
}

/// Reads what a control client sent, applies every whole request and answers it.
/// False when the client is gone or sent a request type that cannot be parsed (the
/// stream cannot be resynchronised, so it is closed; the daemon goes on).
fn serve_client(
    c: &mut Client,
    h: &mut impl Handler,
    truth: bool,
    limit: usize,
    stop: &AtomicBool,
    log: u8,
) -> bool {
    use std::io::Read;
    let mut buf = [0u8; 4096];
    loop {
        syscall_count::add(1);
        match c.stream.read(&mut buf) {
            Ok(0) => return false,
            Ok(n) => c.decoder.push(&buf[..n]),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => return false,
        }
    }
    loop {
        let reply = match c.decoder.next_message() {
            Ok(Some(Message::Mininet(req, raw))) => {
                let a = h.apply(&req);
                if let (Some(note), true) = (a.note, log >= 6) {
                    eprintln!("sdmac-mediumd: control: {note}");
                }
                if a.stop {
                    stop.store(true, Ordering::Relaxed);
                }
                match encode_reply(&raw, a.result, a.id) {
                    // A Mininet-WiFi client is answered as it always was.
                    Some(reply) if !c.outbox.ext => {
                        if write_all(&mut c.stream, &reply).is_err() {
                            return false;
                        }
                        continue;
                    }
                    Some(reply) => reply,
                    None => continue,
                }
            }
            Ok(Some(Message::Ext(req))) => {
                c.outbox.ext = true;
                let r = match &req {
                    ExtRequest::Subscribe { transmitters, .. } if truth => {
                        c.outbox.subscription = Some(transmitters.clone());
                        ExtReply::done(&req, ExtResult::Ok)
                    }
                    ExtRequest::Subscribe { .. } => ExtReply::done(&req, ExtResult::NotSupported),
                    ExtRequest::Unsubscribe { .. } => {
                        c.outbox.subscription = None;
                        ExtReply::done(&req, ExtResult::Ok)
                    }
                    _ => h.apply_ext(&req),
                };
                encode_ext_reply(&r)
            }
            Ok(Some(Message::BadExt { kind, tag, error })) => {
                c.outbox.ext = true;
                if log >= 4 {
                    eprintln!("sdmac-mediumd: {error}; refused");
                }
                encode_ext_reply(&ExtReply {
                    kind: sdmac_control::ext::types::REFUSED,
                    tag,
                    result: error.result(),
                    body: ReplyBody::Refused(kind),
                })
            }
            Ok(None) => return true,
            Err(e) => {
                if log >= 3 {
                    eprintln!("sdmac-mediumd: {e}; closing that client");
                }
                return false;
            }
        };
        if !c.outbox.push_reply(&reply, limit) {
            if log >= 4 {
                eprintln!("sdmac-mediumd: control: a client does not read its replies; closing it");
            }
            return false;
        }
    }
}

/// Writes what `c`'s socket takes of its backlog, and has the poller watch for room
/// while some is left. An error: the client is gone.
fn flush(c: &mut Client, token: u64, poller: &Poller) -> io::Result<()> {
    if c.outbox.pending() == 0 && !c.outbox.watching_write {
        return Ok(());
    }
    c.outbox.write_to(&mut c.stream)?;
    let want = c.outbox.pending() > 0;
    if want != c.outbox.watching_write {
        poller.modify(c.stream.as_raw_fd(), token, want)?;
        c.outbox.watching_write = want;
    }
    Ok(())
}

fn write_all(s: &mut UnixStream, mut b: &[u8]) -> io::Result<()> {
    use std::io::Write as _;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(1);
    while !b.is_empty() {
        syscall_count::add(1);
        match s.write(b) {
            Ok(n) => b = &b[n..],
            Err(e)
                if e.kind() == io::ErrorKind::WouldBlock
                    && std::time::Instant::now() < deadline =>
            {
                std::thread::yield_now()
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::{encode_request, UpdateResult};
    use crate::control_socket::Access;
    use std::io::{Read, Write};
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;

    /// Polls and serves until `done` holds (at most 5 s); every request succeeds.
    fn serve_until(
        c: &mut Clients,
        poller: &mut Poller,
        stop: &AtomicBool,
        mut done: impl FnMut(&Clients) -> bool,
    ) {
        let t0 = std::time::Instant::now();
        while !done(c) {
            assert!(t0.elapsed().as_secs() < 5, "timed out");
            let ready = poller.wait(None, 50).unwrap().to_vec();
            c.accept(&ready, poller, 6);
            c.serve(&ready, poller, stop, 6, |_| Applied {
                result: UpdateResult::Success,
                id: 0,
                stop: false,
                note: None,
            });
        }
    }

    /// A client whose credentials are refused, and one that sends bytes that are no
    /// request, are closed; a client connected before and after them is served.
    #[test]
    fn refused_and_garbage_clients_do_not_affect_others() {
        assert!(
            unsafe { libc::geteuid() } == 0,
            "this test needs root, to run a client under uid 65534"
        );
        let dir = std::env::temp_dir().join(format!("sdmac-clients-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        let path = dir.join("ctl.sock");
        let socket = ControlSocket::open(&path, Access::default()).unwrap();
        // Let the kernel pass every user, so that the credentials check decides.
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o666)).unwrap();
        let mut poller = Poller::new().unwrap();
        let mut c = Clients::new(Some(socket), &poller).unwrap();
        let stop = AtomicBool::new(false);
        let mut good = UnixStream::connect(&path).unwrap();
        serve_until(&mut c, &mut poller, &stop, |c| !c.clients.is_empty());
        // uid 65534 connects, sends a valid request and waits for a reply: it gets EOF.
        let script = "import socket,sys\ns=socket.socket(socket.AF_UNIX)\ns.connect(sys.argv[1])\ntry:\n  s.sendall(bytes([5,0,0,0,1]))\n  r=s.recv(64)\nexcept OSError:\n  r=b''\nsys.stdout.write(repr(r))";
        let mut child = std::process::Command::new("python3")
            .args(["-c", script, path.to_str().unwrap()])
            .uid(65534)
            .gid(65534)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut garbage = UnixStream::connect(&path).unwrap();
        garbage.write_all(&[42, 1, 2, 3]).unwrap();
        serve_until(&mut c, &mut poller, &stop, |c| {
            c.next >= FIRST_CLIENT + 2
                && c.clients.len() == 1
                && child.try_wait().unwrap().is_some()
        });
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "b''",
            "the refused client got no reply ({})",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut b = [0u8; 8];
        assert_eq!(garbage.read(&mut b).unwrap(), 0, "the garbage client was closed");
        // The first client is still served.
        let req = encode_request(&Request::DelById(7));
        good.write_all(&req).unwrap();
        good.set_nonblocking(true).unwrap();
        let mut reply = Vec::new();
        serve_until(&mut c, &mut poller, &stop, |_| {
            let mut b = [0u8; 64];
            if let Ok(n) = good.read(&mut b) {
                reply.extend_from_slice(&b[..n]);
            }
            reply.len() >= req.len() + 2
        });
        assert_eq!(reply, encode_reply(&req, UpdateResult::Success, 0).unwrap());
        drop(c);
        assert!(!path.exists(), "the socket file goes with the daemon");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A medium with two radios whose link A → B loses 30 % of frames.
    fn lossy_medium() -> crate::hwsim_medium::HwsimMedium {
        use crate::hwsim_medium::{HwsimMedium, LinkModel, Setup};
        HwsimMedium::new(Setup {
            interfaces: vec![A, B],
            model: LinkModel::Prob { default_prob: 0.0, links: vec![(A, B, 0.3)] },
            ..Setup::default()
        })
    }

    const A: sdmac_types::MacAddress = sdmac_types::MacAddress::new([2, 0, 0, 0, 0, 1]);
    const B: sdmac_types::MacAddress = sdmac_types::MacAddress::new([2, 0, 0, 0, 0, 2]);

    /// A data frame A → B as the kernel hands it over.
    fn frame_a_to_b(seq: u16) -> Vec<u8> {
        let mut f = vec![0x08, 0, 0, 0];
        f.extend_from_slice(B.as_bytes());
        f.extend_from_slice(A.as_bytes());
        f.extend_from_slice(A.as_bytes());
        f.extend_from_slice(&(seq << 4).to_le_bytes());
        f.extend_from_slice(&[0xaa; 100]);
        f
    }

    fn temp_socket(name: &str) -> (std::path::PathBuf, std::path::PathBuf) {
        let dir = std::env::temp_dir().join(format!("sdmac-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir(&dir).unwrap();
        let path = dir.join("ctl.sock");
        (dir, path)
    }

    /// The blocking client against the daemon's socket handling and medium: set and
    /// get come back, and the subscriber gets one record per frame answered, each
    /// agreeing with the status the kernel got.
    #[test]
    fn the_client_sets_gets_and_reads_one_record_per_frame() {
        use crate::hwsim_medium::{hw_addr_of, KernelFrame, Output, StatusEcho};
        use sdmac_control::client::Client;
        use sdmac_control::ext::{Edca, TruthOutcome};
        let (dir, path) = temp_socket("truth-client");
        let mut poller = Poller::new().unwrap();
        let mut c =
            Clients::new(Some(ControlSocket::open(&path, Access::default()).unwrap()), &poller)
                .unwrap();
        c.truth_available = true;
        let stop = AtomicBool::new(false);
        let mut m = lossy_medium();
        let n = 300u64;
        let p2 = path.clone();
        let client = std::thread::spawn(move || {
            let mut cl = Client::connect(&p2).unwrap();
            let p = Edca { aifsn: 4, cw_min: 63, cw_max: 1023, txop_limit_us: 0 };
            cl.set_edca(A, 1, p).unwrap();
            assert_eq!(cl.get_edca(A, 1).unwrap(), p);
            let bad = cl.set_edca(A, 7, p).unwrap_err();
            assert!(
                matches!(
                    bad,
                    sdmac_control::client::ClientError::Refused(
                        sdmac_control::ext::ExtResult::BadAc
                    )
                ),
                "{bad}"
            );
            cl.set_error_prob(A, B, 0.3).unwrap();
            assert!((cl.get_link(A, B).unwrap().error_prob - 0.3).abs() < 1e-9);
            cl.set_ack_timeout(A, 60_000).unwrap();
            assert_eq!(cl.get_ack_timeout(A).unwrap(), 60_000);
            cl.set_ack_timeout(A, 0).unwrap();
            cl.subscribe(&[A]).unwrap();
            let mut got = Vec::new();
            while (got.len() as u64) < n {
                let r = cl
                    .next_record(Some(std::time::Duration::from_secs(10)))
                    .unwrap()
                    .expect("a record in time");
                got.push(r);
            }
            cl.unsubscribe().unwrap();
            got
        });
        let origin = crate::syscall_count::monotonic_ns();
        let mut statuses = std::collections::HashMap::new();
        let mut records = Vec::new();
        let mut sent = 0u64;
        let mut t = 0u64;
        let t0 = std::time::Instant::now();
        while !client.is_finished() {
            assert!(t0.elapsed().as_secs() < 30, "timed out");
            let ready = poller.wait(None, 5).unwrap().to_vec();
            c.accept(&ready, &poller, 6);
            c.serve_with(&ready, &poller, &stop, 6, &mut m);
            m.set_truth(c.wants_truth());
            if c.wants_truth() && sent < n {
                // One frame at a time, each answered before the next.
                let f = frame_a_to_b(sent as u16);
                let mut out = Vec::new();
                let kf = KernelFrame {
                    transmitter: hw_addr_of(A),
                    frame: &f,
                    no_ack: false,
                    freq: 2412,
                    rates: vec![(sdmac_phy::Rate::Ofdm54, 1)].into(),
                    cookie: sent,
                    echo: StatusEcho { rate_idx: [0, -1, -1, -1], flags: 0 },
                };
                m.on_frame(t, kf, &mut out);
                t += 5_000_000;
                m.advance(t, &mut out);
                for o in out {
                    if let Output::TxStatus { cookie, acked, .. } = o {
                        statuses.insert(cookie, acked);
                    }
                }
                sent += 1;
            }
            m.take_truth(&mut records);
            c.publish(&mut records, origin, &poller);
        }
        let got = client.join().unwrap();
        assert_eq!(got.len() as u64, n);
        assert_eq!(statuses.len() as u64, n);
        for (k, r) in got.iter().enumerate() {
            assert_eq!(r.cookie, k as u64, "in order, none twice, none missing");
            assert_eq!(r.lost, 0);
            assert_eq!(statuses[&r.cookie], r.outcome == TruthOutcome::Acked);
            assert!(matches!(r.outcome, TruthOutcome::Acked | TruthOutcome::DataLost));
            assert_eq!(r.seq_ctrl, (k as u16) << 4);
            assert!(r.t_arrival_ns >= origin, "times on CLOCK_MONOTONIC");
        }
        assert_eq!(c.truth_lost(), 0);
        drop(c);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A subscriber that never reads holds nobody up: records past its backlog are
    /// dropped and counted, a Mininet-WiFi client is answered meanwhile, and what the
    /// subscriber finally reads says how many it lost.
    #[test]
    fn a_subscriber_that_never_reads_stops_nothing() {
        use sdmac_control::ext::{
            encode_ext_request, Attempts, ExtRequest, TruthCause, TruthOutcome, TruthRecord,
        };
        use sdmac_control::stream::{Incoming, IncomingDecoder};
        let (dir, path) = temp_socket("truth-stuck");
        let mut poller = Poller::new().unwrap();
        let mut c =
            Clients::new(Some(ControlSocket::open(&path, Access::default()).unwrap()), &poller)
                .unwrap();
        c.truth_available = true;
        c.outbox_limit = 16 << 10;
        let stop = AtomicBool::new(false);
        let mut m = lossy_medium();
        let mut stuck = UnixStream::connect(&path).unwrap();
        let mut mininet = UnixStream::connect(&path).unwrap();
        serve_until_with(&mut c, &mut poller, &stop, &mut m, |c| c.clients.len() == 2);
        stuck
            .write_all(&encode_ext_request(&ExtRequest::Subscribe { tag: 1, transmitters: vec![] }))
            .unwrap();
        serve_until_with(&mut c, &mut poller, &stop, &mut m, |c| c.wants_truth());
        let rec = |cookie| TruthRecord {
            lost: 0,
            transmitter: A,
            ta: A,
            ra: B,
            seq_ctrl: 0,
            cookie,
            ac: 1,
            no_ack: false,
            delivered: true,
            outcome: TruthOutcome::Acked,
            cause: TruthCause::None,
            n_entries: 1,
            attempts: [Attempts::default(); 4],
            t_arrival_ns: 0,
            t_first_start_ns: 0,
            t_end_ns: 0,
            signal_dbm: -40,
        };
        let total = 50_000u64;
        let t0 = std::time::Instant::now();
        for k in 0..total {
            let mut batch = vec![rec(k)];
            c.publish(&mut batch, 0, &poller);
        }
        assert!(t0.elapsed().as_secs() < 5, "publishing never waits for the subscriber");
        assert!(c.truth_lost() > 0);
        // The Mininet-WiFi client is served as ever.
        let req = encode_request(&Request::DelById(1));
        mininet.write_all(&req).unwrap();
        mininet.set_nonblocking(true).unwrap();
        let want = encode_reply(&req, UpdateResult::Success, 0).unwrap();
        let mut reply = Vec::new();
        serve_until_with(&mut c, &mut poller, &stop, &mut m, |_| {
            let mut b = [0u8; 64];
            if let Ok(n) = mininet.read(&mut b) {
                reply.extend_from_slice(&b[..n]);
            }
            reply.len() >= want.len()
        });
        assert_eq!(reply, want);
        // Now the subscriber reads: its reply, then records; a last one after the
        // loss says how many were lost; delivered + lost = published.
        let lost_so_far = c.truth_lost();
        stuck.set_nonblocking(true).unwrap();
        let mut d = IncomingDecoder::new();
        let mut delivered = 0u64;
        let mut lost = 0u64;
        let mut last = None;
        let mut published_after = false;
        let t1 = std::time::Instant::now();
        while last != Some(total) {
            assert!(t1.elapsed().as_secs() < 10, "records delivered {delivered}, lost {lost}");
            let ready = poller.wait(None, 5).unwrap().to_vec();
            c.serve_with(&ready, &poller, &stop, 6, &mut m);
            if !published_after && c.clients.values().all(|x| x.outbox.pending() == 0) {
                let mut batch = vec![rec(total)];
                c.publish(&mut batch, 0, &poller);
                published_after = true;
            }
            let mut b = [0u8; 8192];
            if let Ok(n) = stuck.read(&mut b) {
                d.push(&b[..n]);
            }
            while let Some(m) = d.next_message().unwrap() {
                if let Incoming::Truth(r) = m {
                    delivered += 1;
                    lost += r.lost as u64;
                    last = Some(r.cookie);
                }
            }
        }
        assert_eq!(lost, lost_so_far, "every loss is told");
        assert_eq!(delivered + lost, total + 1);
        drop(c);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Where no truth is made (the threaded loop, which serves with `serve`), a
    /// subscription and every extension set/get are answered "not supported", and
    /// Mininet-WiFi requests as ever.
    #[test]
    fn without_truth_the_extension_is_refused_as_not_supported() {
        use sdmac_control::ext::{encode_ext_request, ExtRequest, ExtResult};
        use sdmac_control::stream::{Incoming, IncomingDecoder};
        let (dir, path) = temp_socket("truth-none");
        let mut poller = Poller::new().unwrap();
        let mut c =
            Clients::new(Some(ControlSocket::open(&path, Access::default()).unwrap()), &poller)
                .unwrap();
        let stop = AtomicBool::new(false);
        let mut s = UnixStream::connect(&path).unwrap();
        serve_until(&mut c, &mut poller, &stop, |c| c.clients.len() == 1);
        s.write_all(&encode_ext_request(&ExtRequest::Subscribe { tag: 1, transmitters: vec![] }))
            .unwrap();
        s.write_all(&encode_ext_request(&ExtRequest::GetEdca { tag: 2, station: A, ac: 1 }))
            .unwrap();
        let req = encode_request(&Request::Add(A));
        s.write_all(&req).unwrap();
        s.set_nonblocking(true).unwrap();
        let mut d = IncomingDecoder::new();
        let mut got = Vec::new();
        serve_until(&mut c, &mut poller, &stop, |_| {
            let mut b = [0u8; 256];
            if let Ok(n) = s.read(&mut b) {
                d.push(&b[..n]);
            }
            loop {
                match d.next_message() {
                    Ok(Some(m)) => got.push(m),
                    Ok(None) => break,
                    Err(e) => panic!("{e} after {got:?}"),
                }
            }
            got.len() == 3
        });
        assert!(!c.wants_truth());
        match (&got[0], &got[1], &got[2]) {
            (Incoming::Reply(a), Incoming::Reply(b), Incoming::Mininet(m)) => {
                assert_eq!((a.tag, a.result), (1, ExtResult::NotSupported));
                assert_eq!((b.tag, b.result), (2, ExtResult::NotSupported));
                assert_eq!(m, &encode_reply(&req, UpdateResult::Success, 0).unwrap());
            }
            other => panic!("{other:?}"),
        }
        drop(c);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// As `serve_until`, with the medium as handler.
    fn serve_until_with(
        c: &mut Clients,
        poller: &mut Poller,
        stop: &AtomicBool,
        m: &mut crate::hwsim_medium::HwsimMedium,
        mut done: impl FnMut(&Clients) -> bool,
    ) {
        let t0 = std::time::Instant::now();
        while !done(c) {
            assert!(t0.elapsed().as_secs() < 5, "timed out");
            let ready = poller.wait(None, 50).unwrap().to_vec();
            c.accept(&ready, poller, 6);
            c.serve_with(&ready, poller, stop, 6, m);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 48, ..Default::default() })]

        /// Whatever bytes one client sends, another client's request is answered.
        #[test]
        fn any_bytes_from_one_client_leave_the_others_served(junk in proptest::collection::vec(proptest::prelude::any::<u8>(), 1..600)) {
            let dir = std::env::temp_dir().join(format!("sdmac-clients-prop-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir(&dir).unwrap();
            let path = dir.join("ctl.sock");
            let mut poller = Poller::new().unwrap();
            let mut c = Clients::new(Some(ControlSocket::open(&path, Access::default()).unwrap()), &poller).unwrap();
            let stop = AtomicBool::new(false);
            let mut good = UnixStream::connect(&path).unwrap();
            let mut bad = UnixStream::connect(&path).unwrap();
            serve_until(&mut c, &mut poller, &stop, |c| c.clients.len() == 2);
            let _ = bad.write_all(&junk);
            let req = encode_request(&Request::Add(sdmac_types::MacAddress([2, 0, 0, 0, 0, 9])));
            good.write_all(&req).unwrap();
            good.set_nonblocking(true).unwrap();
            let mut reply = Vec::new();
            let want = encode_reply(&req, UpdateResult::Success, 0).unwrap();
            serve_until(&mut c, &mut poller, &stop, |_| {
                let mut b = [0u8; 64];
                if let Ok(n) = good.read(&mut b) {
                    reply.extend_from_slice(&b[..n]);
                }
                reply.len() >= want.len()
            });
            proptest::prop_assert_eq!(reply, want);
            drop(c);
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}
