//! `sdmac-mediumd`: the wireless medium for mac80211_hwsim radios, with wmediumd's
//! command line.

#![warn(missing_docs)]

use sdmac_mediumd::daemon::{run, Options};
use std::process::ExitCode;

const USAGE: &str = "usage: sdmac-mediumd [-h] [-V] [-l LEVEL] [-c CONFIG] [-x PER_FILE] [-s [SOCKET]] [--socket-group GROUP] [--socket-allow-uid UID] [-d] [-p PCAP] [-t] [--coalesce-us US] [--epoll] [--no-run-ahead] [--phy FILE]

  -h          print this help and exit
  -V          print the version and exit
  -l LEVEL    log level, 0 (quiet) .. 7 (debug); default 6
  -c CONFIG   wmediumd/yawmd configuration (libconfig)
  -x FILE     PER table (signal dBm + PER per legacy rate); FILE if it exists, else
              FILE with \"ax\" appended (Mininet-WiFi passes signal_table_ieee80211
              and its wmediumd reads signal_table_ieee80211ax)
  -s [PATH]   Mininet-WiFi control socket (default /var/run/wmediumd.sock), mode 0660;
              a path that is not a socket, or a socket another daemon answers on, is
              refused (exit 2); a stale socket is replaced
  --socket-group GROUP
              the control socket's group (name or gid; default the daemon's group):
              its members may use the socket
  --socket-allow-uid UID
              also admit this uid (repeatable); root and the daemon's uid always are
  -d          accepted for compatibility (debug output with -l 7)
  -p PCAP     capture the medium (pcapng, radiotap), ACKs included
  --stats F   per-second statistics per medium and AC as JSON lines (- for stdout)
  -t, --threads
              run each medium (configured medium id and channel) on its own thread,
              so that media on different channels run in parallel; the main thread
              receives from the kernel and serves the control socket
  --coalesce-us US
              send outputs up to US microseconds after their time on the medium:
              the daemon sleeps through a frame's DATA end and sends its delivery
              with its TX status (one wake-up and one system call where there
              were two; receivers get frames up to US later). SIFS + ACK is 44 us
              at 54 Mb/s, 60 us at 6 Mb/s. Default 0, every output at its time
  --epoll     wait with epoll and receive and send with a system call each, even
              where io_uring is available (by default a round is one io_uring_enter)
  --no-run-ahead
              wake for every output. By default, when every station is busy until
              a frame exchange ends (a DATA frame's end: the ACK follows), the
              daemon works out the exchange at once and the kernel sends its TX
              status at the ACK's end (io_uring; not with --coalesce-us)
  --phy FILE  time every frame on every channel with the [phy] table of FILE (an
              sdmac scenario's PHY: standard, rate, control_rate or basic_rates,
              slot_us, sifs_us, difs_us, eifs_us, ack_timeout_us, phy_header_us,
              cw_min, cw_max, short_preamble) instead of the band's standard PHY.
              Every rate entry of a frame keeps its attempts but goes at the
              table's rate; every access category contends with its DIFS and CW";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut opts = Options { log_level: 6, ..Options::default() };
    let mut i = 0;
    // Which -x table was read, said once every option is known (-l may come later).
    let mut per_read: Option<String> = None;
    // Applied once every option is read (-c replaces the whole set-up).
    let mut phy = None;
    while i < args.len() {
        let a = args[i].as_str();
        let value = |i: &mut usize| -> Result<String, String> {
            *i += 1;
            args.get(*i).cloned().ok_or_else(|| format!("option {a} needs a value"))
        };
        let r: Result<(), String> = match a {
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            "-V" | "--version" => {
                // hostap's hwsim tests read the second word as a wmediumd version.
                println!("sdmac-mediumd v0.3.1 (sdmac {}, wmediumd-compatible)", env!("CARGO_PKG_VERSION"));
                return ExitCode::SUCCESS;
            }
            "-l" => value(&mut i).and_then(|v| v.parse::<u8>().map(|l| opts.log_level = l).map_err(|_| format!("-l: {v:?} is not a log level"))),
            "-c" => value(&mut i).and_then(|v| {
                let cfg = sdmac_wmconfig::wmediumd::load_file(&v).map_err(|e| e.to_string())?;
                let (setup, notes) = sdmac_mediumd::config::setup_from(&cfg, 1);
                for n in notes {
                    eprintln!("sdmac-mediumd: warning: {n}");
                }
                let per = opts.setup.per_table.take();
                opts.setup = setup;
                opts.setup.per_table = per;
                Ok(())
            }),
            "-x" => value(&mut i).and_then(|v| {
                let (table, path) = sdmac_mediumd::per_file::load(&v)?;
                per_read = Some(sdmac_mediumd::per_file::describe(&table, &path));
                opts.setup.per_table = Some(std::sync::Arc::new(table));
                Ok(())
            }),
            "-p" => value(&mut i).map(|v| opts.capture = Some(v.into())),
            "--phy" => value(&mut i).and_then(|v| sdmac_mediumd::custom_phy::CustomPhy::load(&v).map(|c| phy = Some(c))),
            "--stats" => value(&mut i).map(|v| opts.stats = Some(v.into())),
            "-s" => {
                let mut path = "/var/run/wmediumd.sock".to_string();
                if args.get(i + 1).is_some_and(|n| !n.starts_with('-')) {
                    i += 1;
                    path = args[i].clone();
                }
                opts.control_socket = Some(path.into());
                Ok(())
            }
            "--socket-group" => value(&mut i).and_then(|v| sdmac_mediumd::control_socket::parse_group(&v).map(|g| opts.socket_access.group = Some(g))),
            "--socket-allow-uid" => value(&mut i).and_then(|v| sdmac_mediumd::control_socket::parse_uid(&v).map(|u| opts.socket_access.allow_uids.push(u))),
            "-d" => Ok(()),
            "--no-run-ahead" => {
                opts.no_run_ahead = true;
                Ok(())
            }
            "--epoll" => {
                opts.epoll = true;
                Ok(())
            }
            "--coalesce-us" => value(&mut i).and_then(|v| match v.parse::<u64>() {
                Ok(us) if us <= 1_000_000 => {
                    opts.coalesce_ns = us * 1000;
                    Ok(())
                }
                _ => Err(format!("--coalesce-us: {v:?} is not a number of microseconds from 0 to 1000000")),
            }),
            // wmediumd's -t takes a socket (its time control); here it is a flag.
            "-t" | "--threads" if args.get(i + 1).is_some_and(|n| !n.starts_with('-')) => {
                Err(format!("{a} takes no value ({:?} given): it runs a thread per medium; wmediumd's -t SOCKET (time control) is not supported", args[i + 1]))
            }
            "-t" | "--threads" => {
                opts.threads = true;
                Ok(())
            }
            other => Err(format!("unknown option {other:?}\n{USAGE}")),
        };
        if let Err(e) = r {
            eprintln!("sdmac-mediumd: {e}");
            return ExitCode::from(2);
        }
        i += 1;
    }
    opts.setup.custom_phy = phy;
    sdmac_mediumd::refusal::set_log_level(opts.log_level);
    if let Some(line) = per_read.filter(|_| opts.log_level >= 6) {
        eprintln!("sdmac-mediumd: {line}");
    }
    match run(opts) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e @ sdmac_mediumd::daemon::DaemonError::ControlSocket(_)) => {
            eprintln!("sdmac-mediumd: {e}");
            ExitCode::from(2)
        }
        Err(e) => {
            eprintln!("sdmac-mediumd: {e}");
            ExitCode::FAILURE
        }
    }
}
