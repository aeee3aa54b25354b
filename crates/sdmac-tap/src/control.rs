//! `--control PATH`: the control socket of `sdmac tap`, speaking the protocol of
//! `sdmac-mediumd`'s `-s` socket (Mininet-WiFi's requests, crate `sdmac-control`),
//! served without blocking from the thread that owns the stations.
//!
//! The server only moves bytes: it accepts clients, reassembles their requests,
//! hands each to the caller's handler and writes the reply the handler's result
//! makes (byte for byte as `sdmac-mediumd` answers). What a request does is the
//! caller's.

use sdmac_control::mininet::{encode_reply, Decoder, Request, UpdateResult};
use std::io::{self, Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};

/// A listening control socket and its clients.
#[derive(Debug)]
pub struct ControlServer {
    listener: UnixListener,
    path: PathBuf,
    clients: Vec<(UnixStream, Decoder)>,
}

impl ControlServer {
    /// Listens at `path` (a stale socket file there is replaced; any other file is
    /// refused).
    pub fn bind(path: &Path) -> Result<ControlServer, String> {
        use std::os::unix::fs::FileTypeExt;
        if let Ok(m) = std::fs::symlink_metadata(path) {
            if !m.file_type().is_socket() {
                return Err(format!(
                    "--control {}: exists and is not a socket; not replacing it",
                    path.display()
                ));
            }
            let _ = std::fs::remove_file(path);
        }
        let listener = UnixListener::bind(path)
            .map_err(|e| format!("--control {}: cannot listen: {e}", path.display()))?;
        listener.set_nonblocking(true).map_err(|e| format!("--control {}: {e}", path.display()))?;
        Ok(ControlServer { listener, path: path.to_path_buf(), clients: Vec::new() })
    }

    /// Accepts new clients, reads what they sent and answers every whole request
    /// with `handle` (its result, and for an `add` the new station's id). Returns
    /// whether a client asked for shutdown. A client that sends what is no request
    /// is disconnected.
    pub fn serve(
        &mut self,
        mut handle: impl FnMut(&Request) -> (UpdateResult, i32),
    ) -> io::Result<bool> {
        loop {
            match self.listener.accept() {
                Ok((s, _)) => {
                    s.set_nonblocking(true)?;
                    self.clients.push((s, Decoder::new()));
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) => return Err(e),
            }
        }
        let mut shutdown = false;
        let mut buf = [0u8; 4096];
        self.clients.retain_mut(|(s, dec)| {
            let mut open = true;
            loop {
                match s.read(&mut buf) {
                    Ok(0) => {
                        open = false;
                        break;
                    }
                    Ok(n) => dec.push(&buf[..n]),
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(_) => {
                        open = false;
                        break;
                    }
                }
            }
            loop {
                match dec.next_request() {
                    Ok(Some((req, raw))) => {
                        if req == Request::Shutdown {
                            shutdown = true;
                            continue;
                        }
                        let (result, id) = handle(&req);
                        if let Some(reply) = encode_reply(&raw, result, id) {
                            // Replies are small; a client that does not read them
                            // loses its connection rather than stalling the stations.
                            let _ = s.set_nonblocking(false);
                            let _ = s.set_write_timeout(Some(std::time::Duration::from_secs(1)));
                            if s.write_all(&reply).is_err() {
                                return false;
                            }
                            let _ = s.set_nonblocking(true);
                        }
                    }
                    Ok(None) => break,
                    Err(e) => {
                        eprintln!("sdmac-tap: control socket: {e}; client disconnected");
                        return false;
                    }
                }
            }
            open
        });
        Ok(shutdown)
    }
}

impl Drop for ControlServer {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}
