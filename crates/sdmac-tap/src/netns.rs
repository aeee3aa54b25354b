//! Network namespaces and the TAP devices inside them.
//!
//! A namespace is made and removed with iproute2 (`ip netns add` / `del`, which
//! keep the bind mounts under /run/netns that other tools read). The TAP device is
//! created inside it by a short-lived thread that enters the namespace (`setns`
//! applies to the calling thread only), opens /dev/net/tun, and configures the
//! device's MAC address, IPv4 address and flags with ioctls on a socket of that
//! namespace. The descriptor it returns works from any thread.

use sdmac_types::MacAddress;
use std::ffi::CString;
use std::fmt;
use std::io;
use std::net::Ipv4Addr;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::Path;
use std::process::Command;

/// The TUN/TAP clone device.
pub const TUN_PATH: &str = "/dev/net/tun";

const TUNSETIFF: libc::c_ulong = 0x4004_54ca; // _IOW('T', 202, int)
const IFF_TAP: libc::c_short = 0x0002;
const IFF_NO_PI: libc::c_short = 0x1000;
const ARPHRD_ETHER: u16 = 1;

/// Why the namespaces or TAP devices could not be set up.
#[derive(Debug)]
pub enum SetupError {
    /// Not running as root (CAP_NET_ADMIN is needed for namespaces and TAP devices).
    NotRoot,
    /// /dev/net/tun is missing or cannot be opened.
    NoTun(io::Error),
    /// The `ip` command of iproute2 is not installed.
    NoIp,
    /// A namespace of that name exists already (left by an earlier run?).
    NamespaceExists(String),
    /// A name too long for the kernel (interface names hold 15 bytes).
    NameTooLong(String),
    /// A command failed.
    Command {
        /// The command line.
        cmd: String,
        /// What it printed on stderr.
        stderr: String,
    },
    /// A system call failed.
    Os {
        /// What was being done.
        what: String,
        /// The error.
        err: io::Error,
    },
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetupError::NotRoot => write!(
                f,
                "sdmac tap must run as root: creating network namespaces and TAP devices needs CAP_NET_ADMIN"
            ),
            SetupError::NoTun(e) => write!(
                f,
                "cannot open {TUN_PATH} ({e}): the TUN/TAP driver is missing (load the tun module, or give a container the device)"
            ),
            SetupError::NoIp => {
                write!(f, "the `ip` command (iproute2) is not installed: it creates the namespaces")
            }
            SetupError::NamespaceExists(n) => write!(
                f,
                "network namespace {n} exists already (left by an earlier run?): remove it with `ip netns del {n}`"
            ),
            SetupError::NameTooLong(n) => write!(f, "name {n:?} is too long for the kernel"),
            SetupError::Command { cmd, stderr } => write!(f, "`{cmd}` failed: {}", stderr.trim()),
            SetupError::Os { what, err } => write!(f, "{what}: {err}"),
        }
    }
}

impl std::error::Error for SetupError {}

fn os(what: impl Into<String>) -> impl FnOnce(io::Error) -> SetupError {
    let what = what.into();
    move |err| SetupError::Os { what, err }
}

/// Checks what `sdmac tap` needs from the system, naming the first thing missing.
pub fn check_prerequisites() -> Result<(), SetupError> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Err(SetupError::NotRoot);
    }
    std::fs::OpenOptions::new().read(true).write(true).open(TUN_PATH).map_err(SetupError::NoTun)?;
    match Command::new("ip").arg("-V").output() {
        Ok(o) if o.status.success() => Ok(()),
        _ => Err(SetupError::NoIp),
    }
}

fn ip(args: &[&str]) -> Result<(), SetupError> {
    let out = Command::new("ip").args(args).output().map_err(|_| SetupError::NoIp)?;
    if out.status.success() {
        Ok(())
    } else {
        Err(SetupError::Command {
            cmd: format!("ip {}", args.join(" ")),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        })
    }
}

/// Whether a namespace `name` exists (is bound under /run/netns).
pub fn namespace_exists(name: &str) -> bool {
    Path::new("/run/netns").join(name).exists()
}

/// The namespaces made by one run: each is deleted when this is dropped, which the
/// caller arranges to happen on every way out (normal exit, a signal, a station
/// thread's panic).
#[derive(Debug, Default)]
pub struct Namespaces {
    names: Vec<String>,
}

impl Namespaces {
    /// None yet.
    pub fn new() -> Namespaces {
        Namespaces::default()
    }

    /// Creates namespace `name`; refuses one that exists already.
    pub fn create(&mut self, name: &str) -> Result<(), SetupError> {
        if namespace_exists(name) {
            return Err(SetupError::NamespaceExists(name.to_string()));
        }
        ip(&["netns", "add", name])?;
        self.names.push(name.to_string());
        Ok(())
    }

    /// The namespaces made, in order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Deletes namespace `name` now (one of those made).
    pub fn remove(&mut self, name: &str) -> Result<(), String> {
        let k = self
            .names
            .iter()
            .position(|n| n == name)
            .ok_or_else(|| format!("namespace {name} was not made here"))?;
        self.names.remove(k);
        ip(&["netns", "del", name]).map_err(|e| e.to_string())
    }

    /// Deletes them all now; returns the errors met (a namespace already gone is
    /// one).
    pub fn remove_all(&mut self) -> Vec<String> {
        let mut errors = Vec::new();
        for n in self.names.drain(..).rev() {
            if let Err(e) = ip(&["netns", "del", &n]) {
                errors.push(e.to_string());
            }
        }
        errors
    }
}

impl Drop for Namespaces {
    fn drop(&mut self) {
        for e in self.remove_all() {
            eprintln!("sdmac-tap: cleanup: {e}");
        }
    }
}

/// How to configure a TAP device.
#[derive(Clone, Debug)]
pub struct TapConfig {
    /// Namespace it lives in.
    pub netns: String,
    /// Interface name inside the namespace.
    pub ifname: String,
    /// Its MAC address.
    pub mac: MacAddress,
    /// Its IPv4 address and prefix length.
    pub ipv4: Option<(Ipv4Addr, u8)>,
    /// Its MTU.
    pub mtu: u32,
}

/// An open TAP device (non-blocking). Closing it removes the device.
#[derive(Debug)]
pub struct TapDevice {
    fd: OwnedFd,
    /// How it was configured.
    pub config: TapConfig,
}

impl AsRawFd for TapDevice {
    fn as_raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}

#[repr(C)]
struct IfReq {
    name: [u8; 16],
    data: [u8; 24],
}

impl IfReq {
    fn new(name: &str) -> Result<IfReq, SetupError> {
        let b = name.as_bytes();
        if b.len() > 15 || b.is_empty() {
            return Err(SetupError::NameTooLong(name.to_string()));
        }
        let mut r = IfReq { name: [0; 16], data: [0; 24] };
        r.name[..b.len()].copy_from_slice(b);
        Ok(r)
    }
}

fn ioctl(fd: RawFd, req: libc::c_ulong, r: &mut IfReq, what: &str) -> Result<(), SetupError> {
    // SAFETY: `r` is a valid ifreq-sized buffer for the duration of the call.
    if unsafe { libc::ioctl(fd, req as _, r as *mut IfReq) } < 0 {
        return Err(SetupError::Os { what: what.to_string(), err: io::Error::last_os_error() });
    }
    Ok(())
}

fn set_up(sock: RawFd, name: &str) -> Result<(), SetupError> {
    let mut r = IfReq::new(name)?;
    ioctl(sock, libc::SIOCGIFFLAGS, &mut r, &format!("reading the flags of {name}"))?;
    let flags = i16::from_ne_bytes([r.data[0], r.data[1]]) | libc::IFF_UP as i16;
    r.data[..2].copy_from_slice(&flags.to_ne_bytes());
    ioctl(sock, libc::SIOCSIFFLAGS, &mut r, &format!("bringing {name} up"))
}

fn sockaddr_in(a: Ipv4Addr) -> [u8; 24] {
    let mut d = [0u8; 24];
    d[..2].copy_from_slice(&(libc::AF_INET as u16).to_ne_bytes());
    d[4..8].copy_from_slice(&a.octets());
    d
}

/// Runs in a thread that has entered the namespace.
fn create_here(c: &TapConfig) -> Result<OwnedFd, SetupError> {
    let path = CString::new(TUN_PATH).expect("no NUL");
    // SAFETY: plain open of a NUL-terminated path; the result is checked.
    let raw =
        unsafe { libc::open(path.as_ptr(), libc::O_RDWR | libc::O_NONBLOCK | libc::O_CLOEXEC) };
    if raw < 0 {
        return Err(SetupError::NoTun(io::Error::last_os_error()));
    }
    // SAFETY: `raw` is a fresh descriptor we own.
    let fd = unsafe { OwnedFd::from_raw_fd(raw) };
    let mut r = IfReq::new(&c.ifname)?;
    r.data[..2].copy_from_slice(&(IFF_TAP | IFF_NO_PI).to_ne_bytes());
    ioctl(fd.as_raw_fd(), TUNSETIFF, &mut r, &format!("creating TAP device {}", c.ifname))?;
    // SAFETY: plain socket(2); checked.
    let s = unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) };
    if s < 0 {
        return Err(os("opening a configuration socket")(io::Error::last_os_error()));
    }
    // SAFETY: `s` is a fresh descriptor we own.
    let sock = unsafe { OwnedFd::from_raw_fd(s) };
    let sfd = sock.as_raw_fd();
    let mut r = IfReq::new(&c.ifname)?;
    r.data[..2].copy_from_slice(&ARPHRD_ETHER.to_ne_bytes());
    r.data[2..8].copy_from_slice(&c.mac.0);
    ioctl(sfd, libc::SIOCSIFHWADDR, &mut r, &format!("setting the MAC address of {}", c.ifname))?;
    let mut r = IfReq::new(&c.ifname)?;
    r.data[..4].copy_from_slice(&(c.mtu as i32).to_ne_bytes());
    ioctl(sfd, libc::SIOCSIFMTU, &mut r, &format!("setting the MTU of {}", c.ifname))?;
    if let Some((addr, prefix)) = c.ipv4 {
        let mut r = IfReq::new(&c.ifname)?;
        r.data = sockaddr_in(addr);
        ioctl(sfd, libc::SIOCSIFADDR, &mut r, &format!("setting the address of {}", c.ifname))?;
        let mask = if prefix == 0 { 0 } else { u32::MAX << (32 - prefix as u32) };
        let mut r = IfReq::new(&c.ifname)?;
        r.data = sockaddr_in(Ipv4Addr::from(mask));
        ioctl(sfd, libc::SIOCSIFNETMASK, &mut r, &format!("setting the netmask of {}", c.ifname))?;
    }
    set_up(sfd, "lo")?;
    set_up(sfd, &c.ifname)?;
    Ok(fd)
}

/// Creates and configures a TAP device inside namespace `c.netns`.
pub fn create_tap(c: &TapConfig) -> Result<TapDevice, SetupError> {
    let ns_path = Path::new("/run/netns").join(&c.netns);
    let ns = std::fs::File::open(&ns_path)
        .map_err(os(format!("opening namespace {}", ns_path.display())))?;
    let cfg = c.clone();
    let fd = std::thread::Builder::new()
        .name("sdmac-tap-setns".into())
        .spawn(move || {
            // SAFETY: setns on this thread only, with a namespace descriptor we hold.
            if unsafe { libc::setns(ns.as_raw_fd(), libc::CLONE_NEWNET) } < 0 {
                return Err(os(format!("entering namespace {}", cfg.netns))(
                    io::Error::last_os_error(),
                ));
            }
            create_here(&cfg)
        })
        .map_err(os("starting a thread"))?
        .join()
        .map_err(|_| SetupError::Os {
            what: "creating the TAP device".into(),
            err: io::Error::other("its thread panicked"),
        })??;
    Ok(TapDevice { fd, config: c.clone() })
}

/// Parses `a.b.c.d/len`.
pub fn parse_cidr(s: &str) -> Result<(Ipv4Addr, u8), String> {
    let (a, p) = s.split_once('/').ok_or_else(|| format!("{s:?}: expected a.b.c.d/len"))?;
    let addr: Ipv4Addr = a.parse().map_err(|_| format!("{s:?}: {a:?} is not an IPv4 address"))?;
    let len: u8 = p.parse().map_err(|_| format!("{s:?}: {p:?} is not a prefix length"))?;
    if len > 30 {
        return Err(format!("{s:?}: a /{len} has no room for stations (at most /30)"));
    }
    Ok((addr, len))
}

/// The address of host number `k` (from 1) in `subnet`, if it fits (the network
/// and broadcast addresses excluded).
pub fn host_address(subnet: (Ipv4Addr, u8), k: u32) -> Option<Ipv4Addr> {
    let (a, len) = subnet;
    let size = 1u64 << (32 - len as u32);
    if k == 0 || k as u64 >= size - 1 {
        return None;
    }
    let net = u32::from(a) & if len == 0 { 0 } else { u32::MAX << (32 - len as u32) };
    Some(Ipv4Addr::from(net + k))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subnets_give_host_addresses() {
        let s = parse_cidr("10.0.0.0/24").unwrap();
        assert_eq!(host_address(s, 1), Some(Ipv4Addr::new(10, 0, 0, 1)));
        assert_eq!(host_address(s, 254), Some(Ipv4Addr::new(10, 0, 0, 254)));
        assert_eq!(host_address(s, 255), None, "the broadcast address");
        assert_eq!(
            host_address(parse_cidr("192.168.7.9/30").unwrap(), 2),
            Some(Ipv4Addr::new(192, 168, 7, 10))
        );
        assert!(parse_cidr("10.0.0.0").is_err());
        assert!(parse_cidr("10.0.0.0/31").is_err());
        assert!(parse_cidr("10.0.0/24").is_err());
    }

    #[test]
    fn interface_names_are_bounded() {
        assert!(IfReq::new("sdmac0").is_ok());
        assert!(matches!(IfReq::new("a-very-long-name"), Err(SetupError::NameTooLong(_))));
    }
}
