//! The control socket's file and who may use it.
//!
//! Anyone who can connect to the control socket can stop the daemon or move its
//! stations, so:
//! - the socket is created with mode 0660 (owner: the daemon's user; group: the
//!   daemon's group, or `--socket-group`). The mode is set race-free: the file is
//!   created under a umask that leaves 0660, its group is changed, and only then
//!   does the socket listen (a connection before `listen` is refused);
//! - an existing path is replaced only when it is a stale socket: a path that is not
//!   a socket, or a socket on which something still accepts connections (another
//!   daemon), is refused ([`SocketError`]); a socket that refuses connections
//!   (ECONNREFUSED: nobody listens) is removed first;
//! - every client's credentials (SO_PEERCRED, and SO_PEERGROUPS for its
//!   supplementary groups) are checked against [`Access`]: root, the daemon's own
//!   uid, members of the socket's group, and uids given with `--socket-allow-uid`.
//!   Others are closed at once (the caller logs uid and pid).
//!
//! The socket file is removed when the [`ControlSocket`] is dropped, if it is still
//! the one this daemon created.

use std::ffi::CString;
use std::fmt;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};

/// The mode of the socket file.
pub const SOCKET_MODE: u32 = 0o660;

/// Who may use the control socket.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Access {
    /// The socket file's group (`--socket-group`); None: the daemon's group.
    pub group: Option<u32>,
    /// More uids admitted (`--socket-allow-uid`).
    pub allow_uids: Vec<u32>,
}

/// A connected client's credentials.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PeerCred {
    /// Process id.
    pub pid: i32,
    /// User id.
    pub uid: u32,
    /// Primary group id.
    pub gid: u32,
    /// Supplementary groups (empty where the kernel cannot say: before Linux 4.13).
    pub groups: Vec<u32>,
}

/// Why the socket could not be set up: the path and what is there.
#[derive(Debug)]
pub enum SocketError {
    /// Something other than a socket is at the path.
    NotASocket(PathBuf, &'static str),
    /// A process accepts connections on the socket at the path.
    InUse(PathBuf),
    /// The path could not be examined, bound or given its mode and group.
    Io(PathBuf, &'static str, io::Error),
}

impl fmt::Display for SocketError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SocketError::NotASocket(p, what) => {
                write!(f, "control socket {}: {what} is there, not a socket; not replacing it (remove it or choose another path with -s)", p.display())
            }
            SocketError::InUse(p) => write!(
                f,
                "control socket {}: another process (a medium daemon?) accepts connections on it; not replacing it (stop that daemon or choose another path with -s)",
                p.display()
            ),
            SocketError::Io(p, what, e) => write!(f, "control socket {}: {what}: {e}", p.display()),
        }
    }
}

impl std::error::Error for SocketError {}

fn what_is(ft: std::fs::FileType) -> &'static str {
    if ft.is_file() {
        "a regular file"
    } else if ft.is_dir() {
        "a directory"
    } else if ft.is_symlink() {
        "a symbolic link"
    } else if ft.is_fifo() {
        "a FIFO"
    } else if ft.is_char_device() || ft.is_block_device() {
        "a device"
    } else {
        "a file"
    }
}

/// Removes a stale socket at `path`; refuses anything else (see the module doc).
fn clear_path(path: &Path) -> Result<(), SocketError> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(SocketError::Io(path.into(), "cannot examine the path", e)),
    };
    if !meta.file_type().is_socket() {
        return Err(SocketError::NotASocket(path.into(), what_is(meta.file_type())));
    }
    match UnixStream::connect(path) {
        Ok(_) => Err(SocketError::InUse(path.into())),
        Err(e) if e.raw_os_error() == Some(libc::ECONNREFUSED) => std::fs::remove_file(path)
            .map_err(|e| SocketError::Io(path.into(), "cannot remove the stale socket", e)),
        Err(e) => Err(SocketError::Io(
            path.into(),
            "cannot tell whether the socket there is in use (connecting failed)",
            e,
        )),
    }
}

fn cstr(path: &Path) -> Result<CString, SocketError> {
    CString::new(path.as_os_str().as_bytes()).map_err(|_| {
        SocketError::Io(path.into(), "path", io::Error::from(io::ErrorKind::InvalidInput))
    })
}

/// Binds a socket at `path` (a file of mode [`SOCKET_MODE`]), gives it `group`, then
/// listens.
fn bind_locked(path: &Path, group: Option<u32>) -> Result<UnixListener, SocketError> {
    let io_err = |what: &'static str| move |e: io::Error| SocketError::Io(path.into(), what, e);
    let bytes = path.as_os_str().as_bytes();
    let mut addr: libc::sockaddr_un = unsafe { std::mem::zeroed() };
    addr.sun_family = libc::AF_UNIX as libc::sa_family_t;
    if bytes.len() >= addr.sun_path.len() {
        return Err(SocketError::Io(
            path.into(),
            "path too long for a UNIX socket",
            io::Error::from(io::ErrorKind::InvalidInput),
        ));
    }
    for (d, s) in addr.sun_path.iter_mut().zip(bytes) {
        *d = *s as libc::c_char;
    }
    // SAFETY: plain system calls on a descriptor this function owns.
    let fd = unsafe { libc::socket(libc::AF_UNIX, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(io_err("socket")(io::Error::last_os_error()));
    }
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    let len = (std::mem::size_of::<libc::sa_family_t>() + bytes.len() + 1) as libc::socklen_t;
    // bind creates the file with mode 0777 & ~umask: under umask 0117 that is 0660.
    // The umask is the process's; the daemon binds before it starts any thread.
    let old = unsafe { libc::umask(0o777 & !SOCKET_MODE as libc::mode_t) };
    let r = unsafe {
        libc::bind(fd.as_raw_fd(), &addr as *const libc::sockaddr_un as *const libc::sockaddr, len)
    };
    let bind_error = io::Error::last_os_error();
    unsafe { libc::umask(old) };
    if r != 0 {
        return Err(io_err("bind")(bind_error));
    }
    let c = cstr(path)?;
    let undo = |e: SocketError| {
        let _ = std::fs::remove_file(path);
        e
    };
    if let Some(gid) = group {
        if unsafe { libc::chown(c.as_ptr(), u32::MAX, gid) } != 0 {
            return Err(undo(io_err("cannot give the socket its group (--socket-group)")(
                io::Error::last_os_error(),
            )));
        }
    }
    // The mode again, explicitly (a default ACL on the directory may have widened it).
    if unsafe { libc::chmod(c.as_ptr(), SOCKET_MODE as libc::mode_t) } != 0 {
        return Err(undo(io_err("chmod")(io::Error::last_os_error())));
    }
    if unsafe { libc::listen(fd.as_raw_fd(), 64) } != 0 {
        return Err(undo(io_err("listen")(io::Error::last_os_error())));
    }
    Ok(UnixListener::from(fd))
}

/// The listening control socket; its file is removed on drop if it is still ours.
#[derive(Debug)]
pub struct ControlSocket {
    listener: UnixListener,
    path: PathBuf,
    /// (device, inode) of the file this daemon created.
    file: (u64, u64),
    access: Access,
    /// The socket file's group.
    gid: u32,
    /// The daemon's effective uid.
    uid: u32,
}

impl ControlSocket {
    /// Creates the socket at `path` (see the module doc).
    pub fn open(path: &Path, access: Access) -> Result<ControlSocket, SocketError> {
        clear_path(path)?;
        let listener = bind_locked(path, access.group)?;
        let meta =
            std::fs::symlink_metadata(path).map_err(|e| SocketError::Io(path.into(), "stat", e))?;
        Ok(ControlSocket {
            listener,
            path: path.into(),
            file: (meta.dev(), meta.ino()),
            gid: meta.gid(),
            uid: unsafe { libc::geteuid() },
            access,
        })
    }

    /// The listener.
    pub fn listener(&self) -> &UnixListener {
        &self.listener
    }

    /// The socket's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// May this client use the socket? Root, the daemon's uid, the `--socket-allow-uid`
    /// uids and members (primary or supplementary) of the socket file's group may.
    pub fn admits(&self, c: &PeerCred) -> bool {
        c.uid == 0
            || c.uid == self.uid
            || self.access.allow_uids.contains(&c.uid)
            || c.gid == self.gid
            || c.groups.contains(&self.gid)
    }
}

impl Drop for ControlSocket {
    fn drop(&mut self) {
        if let Ok(m) = std::fs::symlink_metadata(&self.path) {
            if (m.dev(), m.ino()) == self.file {
                let _ = std::fs::remove_file(&self.path);
            }
        }
    }
}

/// SO_PEERGROUPS (Linux 4.13) on the architectures where it is 59.
#[cfg(any(
    target_arch = "x86_64",
    target_arch = "x86",
    target_arch = "aarch64",
    target_arch = "arm",
    target_arch = "riscv64"
))]
const SO_PEERGROUPS: libc::c_int = 59;

/// The credentials of the process at the other end of `s`.
pub fn peer_cred(s: &UnixStream) -> io::Result<PeerCred> {
    let mut cred: libc::ucred = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: the buffer is a ucred of the length given.
    let r = unsafe {
        libc::getsockopt(
            s.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            &mut cred as *mut libc::ucred as *mut libc::c_void,
            &mut len,
        )
    };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(PeerCred { pid: cred.pid, uid: cred.uid, gid: cred.gid, groups: peer_groups(s) })
}

#[cfg(any(
    target_arch = "x86_64",
    target_arch = "x86",
    target_arch = "aarch64",
    target_arch = "arm",
    target_arch = "riscv64"
))]
fn peer_groups(s: &UnixStream) -> Vec<u32> {
    let mut groups = vec![0 as libc::gid_t; 256];
    let mut len = (groups.len() * std::mem::size_of::<libc::gid_t>()) as libc::socklen_t;
    // SAFETY: the buffer holds `len` bytes.
    let r = unsafe {
        libc::getsockopt(
            s.as_raw_fd(),
            libc::SOL_SOCKET,
            SO_PEERGROUPS,
            groups.as_mut_ptr() as *mut libc::c_void,
            &mut len,
        )
    };
    if r != 0 {
        return Vec::new();
    }
    groups.truncate(len as usize / std::mem::size_of::<libc::gid_t>());
    groups
}

#[cfg(not(any(
    target_arch = "x86_64",
    target_arch = "x86",
    target_arch = "aarch64",
    target_arch = "arm",
    target_arch = "riscv64"
)))]
fn peer_groups(_: &UnixStream) -> Vec<u32> {
    Vec::new()
}

/// A group given as a number or a name (`--socket-group`).
pub fn parse_group(s: &str) -> Result<u32, String> {
    if let Ok(gid) = s.parse::<u32>() {
        return Ok(gid);
    }
    let name = CString::new(s).map_err(|_| format!("--socket-group: {s:?} is not a group name"))?;
    let mut grp: libc::group = unsafe { std::mem::zeroed() };
    let mut buf = vec![0 as libc::c_char; 16 << 10];
    let mut out: *mut libc::group = std::ptr::null_mut();
    // SAFETY: getgrnam_r writes into `grp` and `buf` only.
    let r =
        unsafe { libc::getgrnam_r(name.as_ptr(), &mut grp, buf.as_mut_ptr(), buf.len(), &mut out) };
    if r != 0 || out.is_null() {
        return Err(format!("--socket-group: no group named {s:?}"));
    }
    Ok(grp.gr_gid)
}

/// A uid given as a number (`--socket-allow-uid`).
pub fn parse_uid(s: &str) -> Result<u32, String> {
    s.parse::<u32>().map_err(|_| format!("--socket-allow-uid: {s:?} is not a numeric uid"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_by_name_or_number() {
        assert_eq!(parse_group("0"), Ok(0));
        assert_eq!(parse_group("4242"), Ok(4242));
        assert_eq!(parse_group("root"), Ok(0), "root is group 0 in /etc/group");
        assert!(parse_group("no-such-group-here").unwrap_err().contains("no group named"));
        assert_eq!(parse_uid("1000"), Ok(1000));
        assert!(parse_uid("-1").is_err());
    }

    #[test]
    fn who_is_admitted() {
        let s = ControlSocket {
            listener: UnixListener::bind(
                std::env::temp_dir().join(format!("sdmac-admit-{}", std::process::id())),
            )
            .unwrap(),
            path: PathBuf::new(),
            file: (0, 0),
            access: Access { group: Some(50), allow_uids: vec![7] },
            gid: 50,
            uid: 1234,
        };
        let _ = std::fs::remove_file(
            std::env::temp_dir().join(format!("sdmac-admit-{}", std::process::id())),
        );
        let c = |uid, gid, groups: &[u32]| PeerCred { pid: 1, uid, gid, groups: groups.to_vec() };
        assert!(s.admits(&c(0, 0, &[])), "root");
        assert!(s.admits(&c(1234, 99, &[])), "the daemon's uid");
        assert!(s.admits(&c(7, 99, &[])), "an allowed uid");
        assert!(s.admits(&c(1000, 50, &[])), "primary group");
        assert!(s.admits(&c(1000, 100, &[3, 50])), "supplementary group");
        assert!(!s.admits(&c(1000, 100, &[3, 4])), "anyone else");
    }
}
