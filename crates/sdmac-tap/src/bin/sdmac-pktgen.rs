//! `sdmac-pktgen`: the UDP generator of `sdmac bench tap`.
//!
//! `sdmac-pktgen send --to IP:PORT [--size BYTES] [--pps N|max] [--duration S]
//! [--run ID]` sends UDP payloads of `--size` bytes, each stamped with a run id, a
//! sequence number and CLOCK_MONOTONIC (see `sdmac_tap::pktgen`), at a constant
//! packet rate (the schedule is absolute: a late wake-up sends the packets that
//! are due, so the average rate holds) or, with `--pps max`, as fast as the socket
//! takes them. `sdmac-pktgen recv --bind IP:PORT [--timeout S] [--idle S] [--run
//! ID]` counts them until `--idle` seconds pass without one (after the first) or
//! `--timeout` seconds in all. Each prints one JSON object on stdout.

use sdmac_tap::pktgen::{monotonic_ns, RecvStats, Stamp, STAMP_LEN};
use serde_json::json;
use std::net::{SocketAddr, UdpSocket};
use std::process::ExitCode;
use std::time::Duration;

const USAGE: &str = "usage: sdmac-pktgen send --to IP:PORT [--size BYTES] [--pps N|max] [--duration S] [--run ID]\n       \
sdmac-pktgen recv --bind IP:PORT [--timeout S] [--idle S] [--run ID]";

/// The largest UDP payload in one IPv4 datagram.
const MAX_SIZE: usize = 65_507;

fn value<T: std::str::FromStr>(
    it: &mut impl Iterator<Item = String>,
    flag: &str,
) -> Result<T, String> {
    let v = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
    v.parse().map_err(|_| format!("{flag}: cannot read {v:?}"))
}

fn set_timer_slack() {
    // 1 ns timer slack, so that sleeping to the next packet's time wakes on time.
    // SAFETY: PR_SET_TIMERSLACK takes one integer argument.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0) };
}

fn sleep_until(ns: u64) {
    let ts = libc::timespec {
        tv_sec: (ns / 1_000_000_000) as libc::time_t,
        tv_nsec: (ns % 1_000_000_000) as libc::c_long,
    };
    // SAFETY: an absolute sleep on CLOCK_MONOTONIC with a valid timespec.
    unsafe {
        libc::clock_nanosleep(libc::CLOCK_MONOTONIC, libc::TIMER_ABSTIME, &ts, std::ptr::null_mut())
    };
}

fn send(mut args: impl Iterator<Item = String>) -> Result<serde_json::Value, String> {
    let (mut to, mut size, mut pps, mut duration, mut run) =
        (None::<SocketAddr>, 60usize, Some(50_000u64), 5.0f64, 1u32);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--to" => to = Some(value(&mut args, "--to")?),
            "--size" => size = value(&mut args, "--size")?,
            "--pps" => {
                let v: String = value(&mut args, "--pps")?;
                pps = if v == "max" {
                    None
                } else {
                    Some(v.parse().map_err(|_| format!("--pps: cannot read {v:?}"))?)
                };
            }
            "--duration" => duration = value(&mut args, "--duration")?,
            "--run" => run = value(&mut args, "--run")?,
            _ => return Err(format!("unknown argument {a:?}")),
        }
    }
    let to = to.ok_or("send needs --to IP:PORT")?;
    if !(STAMP_LEN..=MAX_SIZE).contains(&size) {
        return Err(format!(
            "--size {size}: must be from {STAMP_LEN} (the stamp) to {MAX_SIZE} bytes"
        ));
    }
    if pps == Some(0) {
        return Err("--pps 0: give a positive rate or max".into());
    }
    if !(duration > 0.0 && duration.is_finite()) {
        return Err(format!("--duration {duration}: must be a positive number of seconds"));
    }
    let sock = UdpSocket::bind(if to.is_ipv4() { "0.0.0.0:0" } else { "[::]:0" })
        .map_err(|e| format!("bind: {e}"))?;
    sock.connect(to).map_err(|e| format!("connect {to}: {e}"))?;
    set_timer_slack();
    let mut buf = vec![0u8; size];
    let start = monotonic_ns();
    let end = start + (duration * 1e9) as u64;
    let interval = pps.map(|p| 1e9 / p as f64);
    let (mut seq, mut errors, mut last_error) = (0u64, 0u64, None::<String>);
    loop {
        let now = monotonic_ns();
        if now >= end {
            break;
        }
        if let Some(iv) = interval {
            let due = start + (seq as f64 * iv) as u64;
            if due > now {
                sleep_until(due.min(end));
                continue;
            }
        }
        Stamp { run, seq, sent_ns: monotonic_ns() }.write(&mut buf);
        match sock.send(&buf) {
            Ok(_) => {}
            Err(e) => {
                // ENOBUFS/ECONNREFUSED: the packet is not sent; the sequence number
                // still advances, so the receiver sees it as lost.
                errors += 1;
                last_error = Some(e.to_string());
            }
        }
        seq += 1;
    }
    let elapsed = (monotonic_ns() - start) as f64 / 1e9;
    Ok(json!({
        "role": "send", "run": run, "to": to.to_string(), "size": size,
        "pps_target": pps, "duration_s": elapsed, "sent": seq - errors, "attempted": seq,
        "send_errors": errors, "last_error": last_error,
        "pps_sent": (seq - errors) as f64 / elapsed,
    }))
}

fn recv(mut args: impl Iterator<Item = String>) -> Result<serde_json::Value, String> {
    let (mut bind, mut timeout, mut idle, mut run) = (None::<SocketAddr>, 30.0f64, 1.0f64, 1u32);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--bind" => bind = Some(value(&mut args, "--bind")?),
            "--timeout" => timeout = value(&mut args, "--timeout")?,
            "--idle" => idle = value(&mut args, "--idle")?,
            "--run" => run = value(&mut args, "--run")?,
            _ => return Err(format!("unknown argument {a:?}")),
        }
    }
    let bind = bind.ok_or("recv needs --bind IP:PORT")?;
    if !(timeout > 0.0 && idle > 0.0 && timeout.is_finite() && idle.is_finite()) {
        return Err("--timeout and --idle must be positive numbers of seconds".into());
    }
    let sock = UdpSocket::bind(bind).map_err(|e| format!("bind {bind}: {e}"))?;
    // A large receive buffer, so a burst is not lost in the socket.
    let rcvbuf: libc::c_int = 8 << 20;
    // SAFETY: setsockopt with a pointer to an int of the size given.
    unsafe {
        use std::os::fd::AsRawFd;
        libc::setsockopt(
            sock.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_RCVBUFFORCE,
            &rcvbuf as *const libc::c_int as *const libc::c_void,
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        );
    }
    sock.set_read_timeout(Some(Duration::from_millis(50)))
        .map_err(|e| format!("read timeout: {e}"))?;
    println!("{}", json!({"role": "recv", "ready": bind.to_string()}));
    let mut st = RecvStats::default();
    st.delays_ns.reserve(1 << 20);
    let mut buf = vec![0u8; MAX_SIZE + 1];
    let start = monotonic_ns();
    let mut last = start;
    loop {
        let now = monotonic_ns();
        if now - start >= (timeout * 1e9) as u64
            || (st.received > 0 && now - last >= (idle * 1e9) as u64)
        {
            break;
        }
        match sock.recv(&mut buf) {
            Ok(n) => {
                let t = monotonic_ns();
                st.record(&buf[..n], run, t);
                last = t;
            }
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(e) => return Err(format!("recv: {e}")),
        }
    }
    let ps = [50.0, 90.0, 99.0, 99.9, 100.0];
    let pct = st.percentiles(&ps);
    let us = |i: usize| pct.as_ref().map(|v| v[i] as f64 / 1e3);
    let mean_us = if st.delays_ns.is_empty() {
        None
    } else {
        Some(st.delays_ns.iter().map(|&d| d as f64).sum::<f64>() / st.delays_ns.len() as f64 / 1e3)
    };
    let span = st.first_last_ns.map_or(0.0, |(f, l)| (l - f) as f64 / 1e9);
    Ok(json!({
        "role": "recv", "run": run, "received": st.received, "bytes": st.bytes,
        "max_seq": st.max_seq, "lost_below_max": st.lost_below_max(),
        "duplicates": st.duplicates, "reordered": st.reordered, "foreign": st.foreign,
        "span_s": span, "pps": st.rate_pps(),
        "mbps": if span > 0.0 { st.bytes as f64 * 8.0 / span / 1e6 } else { 0.0 },
        "delay_us": {"p50": us(0), "p90": us(1), "p99": us(2), "p99_9": us(3), "max": us(4), "mean": mean_us},
    }))
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let out = match args.next().as_deref() {
        Some("send") => send(args),
        Some("recv") => recv(args),
        Some("-h" | "--help") => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        _ => Err(USAGE.to_string()),
    };
    match out {
        Ok(v) => {
            println!("{v}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("sdmac-pktgen: {e}");
            ExitCode::from(2)
        }
    }
}
