//! The clients of Mininet-WiFi's control socket (`-s`): accepted if their
//! credentials admit them ([`ControlSocket::admits`]), read without blocking, every
//! whole request applied (by whoever owns the medium) and answered.

use crate::control::{encode_reply, Decoder, Request};
use crate::control_apply::Applied;
use crate::control_socket::{peer_cred, ControlSocket};
use crate::error::{io_err, DaemonError};
use crate::poller::Poller;
use crate::syscall_count;
use std::collections::HashMap;
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
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
    socket: Option<ControlSocket>,
    clients: HashMap<u64, Client>,
    next: u64,
}

impl Clients {
    /// Serves `socket` (opened by [`crate::daemon::open_control`]), watched by
    /// `poller`; no socket when None.
    pub fn new(socket: Option<ControlSocket>, poller: &Poller) -> Result<Clients, DaemonError> {
        if let Some(s) = &socket {
            s.listener().set_nonblocking(true).map_err(io_err("control socket"))?;
            poller.add(s.listener().as_raw_fd(), LISTENER).map_err(io_err("epoll add"))?;
        }
        Ok(Clients { socket, clients: HashMap::new(), next: FIRST_CLIENT })
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

    /// Removes the socket file (on exit; dropping does it too).
    pub fn remove_socket_file(&mut self) {
        self.socket = None;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::{encode_request, UpdateResult};
    use crate::control_socket::Access;
    use std::io::{Read, Write};
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;

    /// Polls and serves until `done` holds (at most 5 s); every request succeeds.
    fn serve_until(c: &mut Clients, poller: &mut Poller, stop: &AtomicBool, mut done: impl FnMut(&Clients) -> bool) {
        let t0 = std::time::Instant::now();
        while !done(c) {
            assert!(t0.elapsed().as_secs() < 5, "timed out");
            let ready = poller.wait(None, 50).unwrap().to_vec();
            c.accept(&ready, poller, 6);
            c.serve(&ready, poller, stop, 6, |_| Applied { result: UpdateResult::Success, id: 0, stop: false, note: None });
        }
    }

    /// A client whose credentials are refused, and one that sends bytes that are no
    /// request, are closed; a client connected before and after them is served.
    #[test]
    fn refused_and_garbage_clients_do_not_affect_others() {
        assert!(unsafe { libc::geteuid() } == 0, "this test needs root, to run a client under uid 65534");
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
        serve_until(&mut c, &mut poller, &stop, |c| c.next >= FIRST_CLIENT + 2 && c.clients.len() == 1 && child.try_wait().unwrap().is_some());
        let out = child.wait_with_output().unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "b''", "the refused client got no reply ({})", String::from_utf8_lossy(&out.stderr));
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
