//! How the device thread waits for work: shared by the session, which takes it as an
//! option, and the device thread, which waits that way.

/// How the device thread waits for work.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DeviceWait {
    /// Poll mode: never sleeps (one core busy); the lowest, steadiest latency.
    Spin,
    /// Spins `spin_ns` after its last work, then parks until the next event or a
    /// request (a request that finds it parked costs a `futex` wake-up).
    Park {
        /// Spin budget (ns).
        spin_ns: u64,
    },
}
