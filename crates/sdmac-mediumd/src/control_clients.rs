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
mod tests;
