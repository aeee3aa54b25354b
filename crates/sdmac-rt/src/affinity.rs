//! Where and how a thread is scheduled: pinning a thread to one CPU, so a polling
//! thread is not migrated, and the real-time policy of a data path.

use std::io;

/// Pins the calling thread to `cpu`.
pub fn pin_current(cpu: usize) -> io::Result<()> {
    // SAFETY: a zeroed cpu_set_t is a valid empty set; CPU_SET writes inside it, and
    // sched_setaffinity reads it for the calling thread (pid 0).
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if cpu >= libc::CPU_SETSIZE as usize {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("cpu {cpu} is out of range"),
            ));
        }
        libc::CPU_SET(cpu, &mut set);
        if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Puts the calling thread under `SCHED_FIFO` at `priority` (1..=99), as a
/// real-time data path runs: it then runs whenever it is ready, before every thread of
/// the normal policy. Needs CAP_SYS_NICE (or an RLIMIT_RTPRIO that allows it).
pub fn realtime_current(priority: i32) -> io::Result<()> {
    if !(1..=99).contains(&priority) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("real-time priority {priority} is not within 1..=99"),
        ));
    }
    let param = libc::sched_param { sched_priority: priority };
    // SAFETY: a valid sched_param for the calling thread (pid 0).
    if unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// CPUs this process may run on.
pub fn available_cpus() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn realtime_refuses_a_priority_out_of_range() {
        std::thread::spawn(|| {
            for p in [0, 100, -1] {
                let e = realtime_current(p).unwrap_err();
                assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{p}");
                assert!(e.to_string().contains("1..=99"), "{e}");
            }
            // With the privilege (root here, normally) the policy is set; without,
            // the error is the kernel's (EPERM).
            match realtime_current(1) {
                // SAFETY: reads the calling thread's policy.
                Ok(()) => assert_eq!(unsafe { libc::sched_getscheduler(0) }, libc::SCHED_FIFO),
                Err(e) => assert_eq!(e.raw_os_error(), Some(libc::EPERM), "{e}"),
            }
        })
        .join()
        .unwrap();
    }

    #[test]
    fn pin_to_cpu_0_and_refuse_nonsense() {
        std::thread::spawn(|| {
            pin_current(0).unwrap();
            assert!(pin_current(1 << 20).is_err());
        })
        .join()
        .unwrap();
    }
}
