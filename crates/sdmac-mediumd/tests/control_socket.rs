//! The control socket's file and its clients' credentials, on the host (no hwsim:
//! the daemon opens its control socket before it registers with the kernel).
//!
//! Tests that run a client under another uid need root (to drop to that uid); run as
//! another user they fail with a message saying so.

use sdmac_mediumd::control_socket::{peer_cred, Access, ControlSocket, SocketError, SOCKET_MODE};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const DAEMON: &str = env!("CARGO_BIN_EXE_sdmac-mediumd");
const CTL: &str = env!("CARGO_BIN_EXE_sdmac-mediumctl");
/// `nobody` on Debian; any uid other than root and ours will do.
const OTHER_UID: u32 = 65534;

/// A fresh directory others may enter (mode 0755), removed at the end.
struct Dir(PathBuf);

impl Dir {
    fn new(name: &str) -> Dir {
        let p = std::env::temp_dir().join(format!("sdmac-ctlsock-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir(&p).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        Dir(p)
    }
    fn path(&self, f: &str) -> PathBuf {
        self.0.join(f)
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn daemon(args: &[&str]) -> Output {
    Command::new(DAEMON).args(args).output().unwrap()
}

fn is_root() -> bool {
    unsafe { libc::geteuid() == 0 }
}

fn require_root(what: &str) {
    assert!(is_root(), "{what} needs root, to run a client under uid {OTHER_UID}: run this test as root (the VM test bed and CI do)");
}

#[test]
fn the_socket_is_created_with_mode_0660() {
    let d = Dir::new("mode");
    let path = d.path("ctl.sock");
    let s = ControlSocket::open(&path, Access::default()).unwrap();
    let m = std::fs::symlink_metadata(&path).unwrap();
    assert_eq!(m.mode() & 0o7777, SOCKET_MODE, "mode {:o}", m.mode() & 0o7777);
    assert_eq!(m.uid(), unsafe { libc::geteuid() });
    assert_eq!(m.gid(), unsafe { libc::getegid() });
    drop(s);
    assert!(!path.exists(), "the socket file is removed when the daemon closes it");
}

#[test]
fn the_socket_group_is_set() {
    require_root("changing the socket's group");
    let d = Dir::new("group");
    let path = d.path("ctl.sock");
    let _s = ControlSocket::open(&path, Access { group: Some(4242), allow_uids: vec![] }).unwrap();
    let m = std::fs::symlink_metadata(&path).unwrap();
    assert_eq!((m.gid(), m.mode() & 0o7777), (4242, SOCKET_MODE));
}

#[test]
fn a_regular_file_is_refused_and_left_intact() {
    let d = Dir::new("file");
    let path = d.path("ctl.sock");
    std::fs::write(&path, b"precious\n").unwrap();
    match ControlSocket::open(&path, Access::default()) {
        Err(SocketError::NotASocket(p, what)) => {
            assert_eq!((p, what), (path.clone(), "a regular file"))
        }
        other => panic!("expected NotASocket, got {other:?}"),
    }
    assert_eq!(std::fs::read(&path).unwrap(), b"precious\n");
    // The daemon says so and exits 2, before it looks for mac80211_hwsim.
    let out = daemon(&["-s", path.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    assert!(
        err.contains(path.to_str().unwrap())
            && err.contains("a regular file is there, not a socket"),
        "stderr: {err}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), b"precious\n");
    let dir = d.path("a-dir");
    std::fs::create_dir(&dir).unwrap();
    let out = daemon(&["-s", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("a directory is there"));
    assert!(dir.is_dir());
}

#[test]
fn a_socket_another_daemon_answers_on_is_refused_while_it_lives() {
    let d = Dir::new("live");
    let path = d.path("ctl.sock");
    let first = ControlSocket::open(&path, Access::default()).unwrap();
    let ino = std::fs::symlink_metadata(&path).unwrap().ino();
    match ControlSocket::open(&path, Access::default()) {
        Err(SocketError::InUse(p)) => assert_eq!(p, path),
        other => panic!("expected InUse, got {other:?}"),
    }
    let out = daemon(&["-s", path.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    assert!(
        err.contains(path.to_str().unwrap()) && err.contains("accepts connections on it"),
        "stderr: {err}"
    );
    // The first one's socket is untouched and still answers.
    assert_eq!(std::fs::symlink_metadata(&path).unwrap().ino(), ino);
    assert!(UnixStream::connect(&path).is_ok());
    drop(first);
    // Once it is gone, the path is free again.
    let _again = ControlSocket::open(&path, Access::default()).unwrap();
}

#[test]
fn a_stale_socket_is_replaced() {
    let d = Dir::new("stale");
    let path = d.path("ctl.sock");
    // A socket file nobody listens on (a daemon that was killed).
    drop(UnixListener::bind(&path).unwrap());
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o700)).unwrap();
    assert!(UnixStream::connect(&path).is_err());
    let s = ControlSocket::open(&path, Access::default()).unwrap();
    let m = std::fs::symlink_metadata(&path).unwrap();
    assert_eq!(m.mode() & 0o7777, SOCKET_MODE, "a new socket, mode {:o}", m.mode() & 0o7777);
    assert!(UnixStream::connect(s.path()).is_ok());
}

/// Connects to `path` as `uid`/`gid` (a separate process: the client
/// `sdmac-mediumctl`) and asks to delete station id 99; returns its output.
fn client_as(uid: u32, gid: u32, path: &Path) -> std::process::Child {
    Command::new(CTL)
        .args(["-s", path.to_str().unwrap(), "del-id", "99"])
        .uid(uid)
        .gid(gid)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn the_mode_keeps_other_users_out() {
    require_root("connecting as another uid");
    let d = Dir::new("mode-other");
    let path = d.path("ctl.sock");
    let _s = ControlSocket::open(&path, Access::default()).unwrap();
    let out = client_as(OTHER_UID, OTHER_UID, &path).wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        err.contains("ermission denied"),
        "the kernel refuses the connection (mode 0660): {err}"
    );
}

/// The credentials check stands even where the mode would let a client in (here
/// the file is made 0666 by hand): a client of another uid is refused, a member of
/// the socket's group and an allowed uid are admitted.
#[test]
fn peer_credentials_decide_who_is_served() {
    require_root("connecting as another uid");
    let d = Dir::new("cred");
    let path = d.path("ctl.sock");
    let group = 4343;
    let s =
        ControlSocket::open(&path, Access { group: Some(group), allow_uids: vec![4444] }).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o666)).unwrap();
    for (uid, gid, admitted) in
        [(OTHER_UID, OTHER_UID, false), (OTHER_UID, group, true), (4444, 4444, true), (0, 0, true)]
    {
        let child = client_as(uid, gid, &path);
        let (stream, _) = s.listener().accept().unwrap();
        let c = peer_cred(&stream).unwrap();
        assert_eq!((c.uid, c.gid, c.pid as u32), (uid, gid, child.id()));
        assert_eq!(s.admits(&c), admitted, "uid {uid} gid {gid}");
        drop(stream);
        let _ = child.wait_with_output();
    }
}

#[test]
fn socket_options_are_checked() {
    let out = daemon(&["--socket-group", "no-such-group-here", "-s", "/nonexistent/x.sock"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no group named \"no-such-group-here\""));
    let out = daemon(&["--socket-allow-uid", "bob"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a numeric uid"));
}
