//! The options of a run of the daemon.

use crate::hwsim_medium::Setup;

/// Options of a run.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The medium.
    pub setup: Setup,
    /// Log level (0 quiet … 7 debug).
    pub log_level: u8,
    /// Mininet-WiFi's control socket (UNIX stream) to listen on.
    pub control_socket: Option<std::path::PathBuf>,
    /// Who may use the control socket, and its group (`--socket-group`,
    /// `--socket-allow-uid`).
    pub socket_access: crate::control_socket::Access,
    /// Capture every frame on air here (pcapng, radiotap).
    pub capture: Option<std::path::PathBuf>,
    /// Write per-second statistics here (JSON lines; "-" for stdout).
    pub stats: Option<std::path::PathBuf>,
    /// Run each engine medium (configured medium id, channel) on its own thread
    /// (`--threads`); the main thread receives from the kernel and dispatches.
    pub threads: bool,
    /// Send outputs up to this long (ns) after their time on the medium, together
    /// (`--coalesce-us`; see [`crate::coalesce`]); 0 sends each at its time.
    pub coalesce_ns: u64,
    /// Wait with epoll (a system call each for the wait, the receive and the send)
    /// even where io_uring is available (`--epoll`).
    pub epoll: bool,
    /// Do not run the medium ahead (`--no-run-ahead`): the daemon wakes and sends each
    /// output at its time, where by default (io_uring, no `--coalesce-us`) it has the
    /// kernel send at their times the outputs it already knows (see
    /// `sdmac_medium::Medium::advance_quiet`).
    pub no_run_ahead: bool,
}
