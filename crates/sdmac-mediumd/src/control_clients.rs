//! The clients of Mininet-WiFi's control socket (`-s`): accepted, read without
//! blocking, every whole request applied (by whoever owns the medium) and answered.

use crate::control::{encode_reply, Decoder, Request};
use crate::control_apply::Applied;
use crate::error::{io_err, DaemonError};
use crate::poller::Poller;
use crate::syscall_count;
use std::collections::HashMap;
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// The poller token of the listening socket.
pub(crate) const LISTENER: u64 = 2;
/// Clients get tokens from here up; lower tokens are the daemon's own.
pub(crate) const FIRST_CLIENT: u64 = 16;

/// A client of the control socket.
struct Client {
    stream: UnixStream,
    decoder: Decoder,
}

/// The control socket and its clients.
pub(crate) struct Clients {
    listener: Option<UnixListener>,
    path: Option<PathBuf>,
    clients: HashMap<u64, Client>,
    next: u64,
}

impl Clients {
    /// Listens on `path` (replacing a stale socket file), watched by `poller`; no
    /// socket when `path` is None.
    pub fn bind(path: Option<&Path>, poller: &Poller) -> Result<Clients, DaemonError> {
        let listener = match path {
            Some(path) => {
                let _ = std::fs::remove_file(path);
                let l = UnixListener::bind(path).map_err(io_err("control socket"))?;
                l.set_nonblocking(true).map_err(io_err("control socket"))?;
                poller.add(l.as_raw_fd(), LISTENER).map_err(io_err("epoll add"))?;
                Some(l)
            }
            None => None,
        };
        Ok(Clients { listener, path: path.map(Path::to_path_buf), clients: HashMap::new(), next: FIRST_CLIENT })
    }

    /// Accepts every waiting connection if the listener is among `ready`.
    pub fn accept(&mut self, ready: &[u64], poller: &Poller) {
        let Some(l) = self.listener.as_ref() else { return };
        if !ready.contains(&LISTENER) {
            return;
        }
        while let Ok((stream, _)) = {
            syscall_count::add(1);
            l.accept()
        } {
            let t = self.next;
            self.next += 1;
            if stream.set_nonblocking(true).is_ok() && poller.add(stream.as_raw_fd(), t).is_ok() {
                self.clients.insert(t, Client { stream, decoder: Decoder::new() });
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
    pub fn serve(&mut self, ready: &[u64], poller: &Poller, stop: &AtomicBool, log: u8, mut apply: impl FnMut(&Request) -> Applied) {
        for &t in ready.iter().filter(|&&t| t >= FIRST_CLIENT) {
            let keep = match self.clients.get_mut(&t) {
                Some(c) => serve_client(c, &mut apply, stop, log),
                None => continue,
            };
            if !keep {
                if let Some(c) = self.clients.remove(&t) {
                    poller.remove(c.stream.as_raw_fd());
                }
            }
        }
    }

    /// Removes the socket file (on exit).
    pub fn remove_socket_file(&self) {
        if let Some(path) = &self.path {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Reads what a control client sent, applies every whole request and answers it.
/// False when the client is gone or sent a request type that cannot be parsed (the
/// stream cannot be resynchronised, so it is closed; the daemon goes on).
fn serve_client(c: &mut Client, apply: &mut impl FnMut(&Request) -> Applied, stop: &AtomicBool, log: u8) -> bool {
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
        match c.decoder.next_request() {
            Ok(Some((req, raw))) => {
                let a = apply(&req);
                if let (Some(note), true) = (a.note, log >= 6) {
                    eprintln!("sdmac-mediumd: control: {note}");
                }
                if a.stop {
                    stop.store(true, Ordering::Relaxed);
                }
                if let Some(reply) = encode_reply(&raw, a.result, a.id) {
                    if write_all(&mut c.stream, &reply).is_err() {
                        return false;
                    }
                }
            }
            Ok(None) => return true,
            Err(e) => {
                if log >= 3 {
                    eprintln!("sdmac-mediumd: {e}; closing that client");
                }
                return false;
            }
        }
    }
}

fn write_all(s: &mut UnixStream, mut b: &[u8]) -> io::Result<()> {
    use std::io::Write as _;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(1);
    while !b.is_empty() {
        syscall_count::add(1);
        match s.write(b) {
            Ok(n) => b = &b[n..],
            Err(e) if e.kind() == io::ErrorKind::WouldBlock && std::time::Instant::now() < deadline => std::thread::yield_now(),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}
