//! The daemon's `-x` on the command line, as Mininet-WiFi passes it: a name whose
//! file has `ax` appended.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const DAEMON: &str = env!("CARGO_BIN_EXE_sdmac-mediumd");

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("sdmac-per-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn table() -> String {
    let mut t = String::from("# bitrate\t1Mbps\t2Mbps\n# RSSI [dBm]\t0\t1\n");
    for s in -95..=-90 {
        t.push_str(&format!("{s}"));
        for _ in 0..12 {
            t.push_str("\t0.5");
        }
        t.push('\n');
    }
    t
}

#[test]
fn neither_file_stops_the_daemon_before_it_starts_naming_both() {
    let d = dir("none");
    let given = d.join("signal_table_ieee80211");
    let out = Command::new(DAEMON).arg("-x").arg(&given).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("no PER table at {}", given.display())), "{err}");
    assert!(err.contains(&format!("{}ax", given.display())), "{err}");
}

/// Runs the daemon with `args` until it prints a line containing `until` or 10 s
/// pass (it goes on to register with mac80211_hwsim, which fails where there is none
/// and waits for frames where there is); its stderr lines.
fn stderr_of(args: &[&std::ffi::OsStr], until: &str) -> Vec<String> {
    let mut child = Command::new(DAEMON)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut seen = Vec::new();
    while Instant::now() < deadline {
        match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(line) => {
                let done = line.contains(until);
                seen.push(line);
                if done {
                    break;
                }
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => continue,
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    seen
}

#[test]
fn the_ax_file_is_read_and_named_at_start() {
    let d = dir("ax");
    std::fs::write(d.join("signal_table_ieee80211ax"), table()).unwrap();
    let given = d.join("signal_table_ieee80211");
    let seen = stderr_of(&["-x".as_ref(), given.as_os_str()], "PER table");
    let want = format!(
        "sdmac-mediumd: PER table {}ax: 6 rows (-95 to -90 dBm) x 12 columns",
        given.display()
    );
    assert!(seen.iter().any(|l| l.starts_with(&want)), "{seen:?}");
    assert!(!seen.iter().any(|l| l.contains("no PER table")), "no -x error: {seen:?}");
}

#[test]
fn at_log_level_0_the_table_is_read_silently() {
    let d = dir("quiet");
    std::fs::write(d.join("tableax"), table()).unwrap();
    let given = d.join("table");
    // Waits until it ends (or 10 s): nothing about the table, and no -x error.
    let seen =
        stderr_of(&["-l".as_ref(), "0".as_ref(), "-x".as_ref(), given.as_os_str()], "\u{0}never");
    assert!(!seen.iter().any(|l| l.contains("PER table")), "{seen:?}");
}
