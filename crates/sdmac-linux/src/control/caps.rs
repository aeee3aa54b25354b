//! Linux capabilities: checked before a radio is opened, lowered after.
//!
//! Opening needs `CAP_NET_ADMIN` (create, configure and delete the monitor
//! interface; every nl80211 set request) and `CAP_NET_RAW` (the data half's
//! AF_PACKET socket). [`require`] checks them with `capget` before anything is tried
//! and raises them into the effective set when they are only permitted.
//!
//! [`drop_after_open`] then keeps only what later operations need: the effective set
//! becomes empty, the permitted set `CAP_NET_ADMIN` alone, the inheritable set empty.
//! So `CAP_NET_RAW` (the packet socket is open) and, when running as root, every other
//! capability (`CAP_SYS_ADMIN`, `CAP_DAC_OVERRIDE`, ...) are gone for good; each later
//! nl80211 set request and the deletion of the monitor raise `CAP_NET_ADMIN` for the
//! call only ([`AdminGuard`]). Linux capabilities belong to a thread: the drop applies
//! to the calling thread and to the threads it creates afterwards, not to threads
//! that already exist.

use super::error::{ControlError, Result};
use std::io;

/// `CAP_NET_ADMIN`.
pub const CAP_NET_ADMIN: u32 = 12;
/// `CAP_NET_RAW`.
pub const CAP_NET_RAW: u32 = 13;

const VERSION_3: u32 = 0x2008_0522;

#[repr(C)]
struct Header {
    version: u32,
    pid: i32,
}

#[repr(C)]
#[derive(Clone, Copy, Default)]
struct Data {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

/// The capability sets of the calling thread (64 bits each).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CapSets {
    /// Effective.
    pub effective: u64,
    /// Permitted.
    pub permitted: u64,
    /// Inheritable.
    pub inheritable: u64,
}

impl CapSets {
    /// The calling thread's sets (`capget`).
    pub fn current() -> io::Result<CapSets> {
        let mut h = Header { version: VERSION_3, pid: 0 };
        let mut d = [Data::default(); 2];
        // SAFETY: header and two data structs, as capget with version 3 expects.
        let r = unsafe { libc::syscall(libc::SYS_capget, &mut h as *mut Header, d.as_mut_ptr()) };
        if r != 0 {
            return Err(io::Error::last_os_error());
        }
        let join = |lo: u32, hi: u32| (lo as u64) | ((hi as u64) << 32);
        Ok(CapSets {
            effective: join(d[0].effective, d[1].effective),
            permitted: join(d[0].permitted, d[1].permitted),
            inheritable: join(d[0].inheritable, d[1].inheritable),
        })
    }

    /// Makes these the calling thread's sets (`capset`).
    pub fn apply(&self) -> io::Result<()> {
        let mut h = Header { version: VERSION_3, pid: 0 };
        let split = |v: u64| (v as u32, (v >> 32) as u32);
        let (e0, e1) = split(self.effective);
        let (p0, p1) = split(self.permitted);
        let (i0, i1) = split(self.inheritable);
        let d = [
            Data { effective: e0, permitted: p0, inheritable: i0 },
            Data { effective: e1, permitted: p1, inheritable: i1 },
        ];
        // SAFETY: header and two data structs, as capset with version 3 expects.
        let r = unsafe { libc::syscall(libc::SYS_capset, &mut h as *mut Header, d.as_ptr()) };
        if r != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// Is `cap` effective?
    pub fn has_effective(&self, cap: u32) -> bool {
        self.effective & (1 << cap) != 0
    }

    /// Is `cap` permitted?
    pub fn has_permitted(&self, cap: u32) -> bool {
        self.permitted & (1 << cap) != 0
    }
}

/// The name of a capability this module deals with.
pub fn cap_name(cap: u32) -> &'static str {
    match cap {
        CAP_NET_ADMIN => "CAP_NET_ADMIN",
        CAP_NET_RAW => "CAP_NET_RAW",
        _ => "a capability",
    }
}

fn binary() -> String {
    std::env::current_exe().map(|p| p.display().to_string()).unwrap_or_else(|_| "BINARY".into())
}

/// The capabilities of `needed` that `sets` does not permit (the decision of
/// [`require`], on given sets).
pub fn missing(sets: &CapSets, needed: &[u32]) -> Vec<&'static str> {
    needed.iter().filter(|&&c| !sets.has_permitted(c)).map(|&c| cap_name(c)).collect()
}

/// Checks that the calling thread may use every capability of `needed` and makes
/// them effective; else [`ControlError::MissingCapability`] naming `name`, what they
/// are for, the missing ones and the command that grants them.
pub fn require(name: &str, what: &'static str, needed: &[u32]) -> Result<()> {
    let io = |err| ControlError::Io { op: "capget".into(), err };
    let mut sets = CapSets::current().map_err(io)?;
    let caps = missing(&sets, needed);
    if !caps.is_empty() {
        return Err(ControlError::MissingCapability {
            name: name.into(),
            what,
            caps,
            binary: binary(),
        });
    }
    let want = needed.iter().fold(0u64, |m, &c| m | (1 << c));
    if sets.effective & want != want {
        sets.effective |= want;
        sets.apply().map_err(|err| ControlError::Io {
            op: "capset (raising the effective set)".into(),
            err,
        })?;
    }
    Ok(())
}

/// Lowers the calling thread's capabilities once the radio is open (see the module
/// documentation): effective none, permitted `CAP_NET_ADMIN` only, inheritable none.
/// Returns the sets before and after.
pub fn drop_after_open() -> io::Result<(CapSets, CapSets)> {
    let before = CapSets::current()?;
    let after = CapSets {
        effective: 0,
        permitted: before.permitted & (1 << CAP_NET_ADMIN),
        inheritable: 0,
    };
    after.apply()?;
    Ok((before, CapSets::current()?))
}

/// Clears every capability of the calling thread (for tests and the example's
/// `--no-caps`: what an unprivileged run looks like).
pub fn drop_all() -> io::Result<()> {
    CapSets::default().apply()
}

/// `CAP_NET_ADMIN` raised into the effective set for as long as the guard lives (when
/// it is permitted and was not already effective).
#[derive(Debug)]
pub struct AdminGuard {
    lower: bool,
}

impl AdminGuard {
    /// Raises `CAP_NET_ADMIN` if it is permitted but not effective. Never fails: when
    /// it cannot be raised, the kernel's EPERM says so on the request that follows.
    pub fn raise() -> AdminGuard {
        match CapSets::current() {
            Ok(mut s) if s.has_permitted(CAP_NET_ADMIN) && !s.has_effective(CAP_NET_ADMIN) => {
                s.effective |= 1 << CAP_NET_ADMIN;
                AdminGuard { lower: s.apply().is_ok() }
            }
            _ => AdminGuard { lower: false },
        }
    }
}

impl Drop for AdminGuard {
    fn drop(&mut self) {
        if self.lower {
            if let Ok(mut s) = CapSets::current() {
                s.effective &= !(1 << CAP_NET_ADMIN);
                let _ = s.apply();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_names_each_capability() {
        let none = CapSets::default();
        assert_eq!(missing(&none, &[CAP_NET_ADMIN, CAP_NET_RAW]), ["CAP_NET_ADMIN", "CAP_NET_RAW"]);
        let admin = CapSets { permitted: 1 << CAP_NET_ADMIN, ..Default::default() };
        assert_eq!(missing(&admin, &[CAP_NET_ADMIN, CAP_NET_RAW]), ["CAP_NET_RAW"]);
        let e = ControlError::MissingCapability {
            name: "wlan0".into(),
            what: "opening a radio",
            caps: missing(&none, &[CAP_NET_ADMIN, CAP_NET_RAW]),
            binary: "/usr/bin/x".into(),
        };
        assert_eq!(
            e.to_string(),
            "wlan0: opening a radio needs CAP_NET_ADMIN and CAP_NET_RAW, which this process lacks: run as root, or: sudo setcap cap_net_admin,cap_net_raw+ep /usr/bin/x"
        );
    }

    #[test]
    fn capget_reads_this_thread() {
        let s = CapSets::current().unwrap();
        // the effective set is always within the permitted set
        assert_eq!(s.effective & !s.permitted, 0);
    }

    #[test]
    fn require_fails_without_rights_in_a_thread_that_dropped_them() {
        // capabilities are per thread: dropping them here leaves the test runner alone
        std::thread::spawn(|| {
            drop_all().unwrap();
            match require("wlan9", "opening a radio", &[CAP_NET_ADMIN, CAP_NET_RAW]) {
                Err(ControlError::MissingCapability { name, caps, .. }) => {
                    assert_eq!(name, "wlan9");
                    assert_eq!(caps, ["CAP_NET_ADMIN", "CAP_NET_RAW"]);
                }
                other => panic!("{other:?}"),
            }
        })
        .join()
        .unwrap();
    }
}
