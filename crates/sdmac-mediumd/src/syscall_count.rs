//! The number of system calls the daemon has made: every wrapper that enters the
//! kernel adds to it, so the statistics can report system calls per frame (the cost
//! that dominates a medium daemon inside a VM).
//!
//! Clock reads are counted apart ([`clock_reads`]): a read of CLOCK_MONOTONIC is a
//! system call where the process has no vDSO, and in User-Mode Linux, whose vDSO
//! makes the system call (strace sees every one there); a kernel on hardware or in
//! QEMU maps a vDSO that reads the clock in user space. [`total`] adds them where they
//! enter the kernel, so it agrees with what strace -c counts in either setting.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

static COUNT: AtomicU64 = AtomicU64::new(0);
static CLOCK_READS: AtomicU64 = AtomicU64::new(0);
static CLOCK_IS_SYSCALL: OnceLock<bool> = OnceLock::new();

/// Counts `n` system calls.
pub fn add(n: u64) {
    COUNT.fetch_add(n, Ordering::Relaxed);
}

/// Whether reading the clock enters the kernel: no vDSO mapped (the kernel passed no
/// AT_SYSINFO_EHDR), or User-Mode Linux (its vDSO's clock_gettime is the system call).
pub fn clock_is_syscall() -> bool {
    *CLOCK_IS_SYSCALL.get_or_init(|| {
        // SAFETY: getauxval only reads the process's auxiliary vector.
        let no_vdso = unsafe { libc::getauxval(libc::AT_SYSINFO_EHDR) } == 0;
        no_vdso || is_user_mode_linux(&std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default())
    })
}

/// Whether /proc/cpuinfo's text is User-Mode Linux's ("vendor_id : User Mode Linux").
fn is_user_mode_linux(cpuinfo: &str) -> bool {
    cpuinfo.lines().any(|l| l.starts_with("vendor_id") && l.ends_with("User Mode Linux"))
}

/// CLOCK_MONOTONIC in ns, counted: the daemon's clock reads all go through this.
pub fn monotonic_ns() -> u64 {
    CLOCK_READS.fetch_add(1, Ordering::Relaxed);
    sdmac_rt::monotonic_ns()
}

/// Clock reads so far (system calls or not).
pub fn clock_reads() -> u64 {
    CLOCK_READS.load(Ordering::Relaxed)
}

/// System calls made so far: the counted wrappers, and the clock reads where they are
/// system calls.
pub fn total() -> u64 {
    let clock = if clock_is_syscall() { clock_reads() } else { 0 };
    COUNT.load(Ordering::Relaxed) + clock
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_reads_are_counted_and_in_the_total_only_without_a_vdso() {
        let (c0, t0) = (clock_reads(), total());
        let a = monotonic_ns();
        let b = monotonic_ns();
        assert!(b >= a);
        // Other tests may read the clock at the same time: at least these two.
        assert!(clock_reads() >= c0 + 2);
        let vdso = unsafe { libc::getauxval(libc::AT_SYSINFO_EHDR) } != 0;
        let uml = is_user_mode_linux(&std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default());
        assert_eq!(clock_is_syscall(), !vdso || uml);
        if clock_is_syscall() {
            assert!(total() >= t0 + 2);
        }
    }

    #[test]
    fn user_mode_linux_is_told_by_its_cpuinfo() {
        let uml =
            "processor\t: 0\nvendor_id\t: User Mode Linux\nmodel name\t: UML\nmode\t\t: skas\n";
        assert!(is_user_mode_linux(uml));
        assert!(!is_user_mode_linux(
            "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC\n"
        ));
        assert!(!is_user_mode_linux(""));
    }
}
