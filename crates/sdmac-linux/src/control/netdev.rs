//! Network interfaces by name and index, and their up/down flag (ioctls
//! `SIOCGIFFLAGS` / `SIOCSIFFLAGS` on a datagram socket).

use std::ffi::{CStr, CString};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

/// The index of interface `name`, or `None` when there is none.
pub fn index_of(name: &str) -> Option<u32> {
    let c = CString::new(name).ok()?;
    // SAFETY: a valid NUL-terminated string.
    let i = unsafe { libc::if_nametoindex(c.as_ptr()) };
    (i != 0).then_some(i)
}

/// The name of interface `index`, or `None` when there is none.
pub fn name_of(index: u32) -> Option<String> {
    let mut buf = [0 as libc::c_char; libc::IF_NAMESIZE];
    // SAFETY: buf holds IF_NAMESIZE bytes, as if_indextoname needs.
    let p = unsafe { libc::if_indextoname(index, buf.as_mut_ptr()) };
    if p.is_null() {
        return None;
    }
    // SAFETY: if_indextoname wrote a NUL-terminated name into buf.
    Some(unsafe { CStr::from_ptr(buf.as_ptr()) }.to_string_lossy().into_owned())
}

fn ctl_socket() -> io::Result<OwnedFd> {
    // SAFETY: plain syscall; the result is checked.
    let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a fresh descriptor nobody else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

fn ifreq(name: &str) -> io::Result<libc::ifreq> {
    if name.is_empty() || name.len() >= libc::IF_NAMESIZE || name.contains('\0') {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{name:?} is not an interface name (1 to 15 bytes)"),
        ));
    }
    // SAFETY: an all-zero ifreq is valid.
    let mut r: libc::ifreq = unsafe { std::mem::zeroed() };
    for (d, s) in r.ifr_name.iter_mut().zip(name.bytes()) {
        *d = s as libc::c_char;
    }
    Ok(r)
}

/// The interface flags (`IFF_*`) of `name`.
pub fn flags(name: &str) -> io::Result<u32> {
    let s = ctl_socket()?;
    let mut r = ifreq(name)?;
    // SAFETY: SIOCGIFFLAGS reads and writes an ifreq.
    if unsafe { libc::ioctl(s.as_raw_fd(), libc::SIOCGIFFLAGS, &mut r) } < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: SIOCGIFFLAGS filled the flags member of the union.
    Ok(unsafe { r.ifr_ifru.ifru_flags } as u16 as u32)
}

/// Is interface `name` up (administratively)?
pub fn is_up(name: &str) -> bool {
    flags(name).map(|f| f & libc::IFF_UP as u32 != 0).unwrap_or(false)
}

/// Sets interface `name`'s MTU.
pub fn set_mtu(name: &str, mtu: u32) -> io::Result<()> {
    let s = ctl_socket()?;
    let mut r = ifreq(name)?;
    r.ifr_ifru.ifru_mtu = libc::c_int::try_from(mtu)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "MTU out of range"))?;
    // SAFETY: SIOCSIFMTU reads an ifreq whose mtu member is set.
    if unsafe { libc::ioctl(s.as_raw_fd(), libc::SIOCSIFMTU, &r) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Brings interface `name` up or down.
pub fn set_up(name: &str, up: bool) -> io::Result<()> {
    let s = ctl_socket()?;
    let mut r = ifreq(name)?;
    // SAFETY: SIOCGIFFLAGS reads and writes an ifreq.
    if unsafe { libc::ioctl(s.as_raw_fd(), libc::SIOCGIFFLAGS, &mut r) } < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: SIOCGIFFLAGS filled the flags member of the union.
    let mut f = unsafe { r.ifr_ifru.ifru_flags };
    if up {
        f |= libc::IFF_UP as libc::c_short;
    } else {
        f &= !(libc::IFF_UP as libc::c_short);
    }
    r.ifr_ifru.ifru_flags = f;
    // SAFETY: SIOCSIFFLAGS reads an ifreq.
    if unsafe { libc::ioctl(s.as_raw_fd(), libc::SIOCSIFFLAGS, &r) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_by_name_and_index() {
        let i = index_of("lo").expect("every Linux system has lo");
        assert_eq!(name_of(i).as_deref(), Some("lo"));
        assert!(is_up("lo"));
        assert_eq!(index_of("sdmac-no-such0"), None);
        assert!(flags("this-name-is-far-too-long").is_err());
    }
}
