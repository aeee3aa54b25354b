//! Drives the linux backend on a monitor interface and prints one JSON line per
//! confirmation, indication or beacon (used by the VM tests).
//!
//! ```text
//! linux_drive send    IFACE FREQ DST COUNT RATES [no-ack] [ac=BE] [payload=TEXT] [timeout-ms=N] [window=N]
//! linux_drive recv    IFACE FREQ SECONDS
//! linux_drive beacons IFACE FREQ COUNT
//! linux_drive refuse  IFACE FREQ DST        (bad requests: each refused, nothing sent)
//! ```
//! RATES is a rate series (`54x1`, `54x2,24x2`) or `auto`. `send` keeps up to
//! `window` requests outstanding (default 1: one at a time), and after COUNT
//! confirmations (or when the interface goes away) waits `linger-ms` (default 0;
//! echoes that come then are counted) and prints a summary line.

use sdmac_api::{
    parse_rate_series, Ac, ApiError, Backend, Body, Confirmation, Interface, MacAddress, Status,
    TxAttrs, Wait,
};
use sdmac_linux::{LinuxBackend, LinuxConfig};
use std::process::exit;
use std::time::{Duration, Instant};

fn die(msg: &str) -> ! {
    eprintln!("linux_drive: {msg}");
    exit(2)
}

fn mac(s: &str) -> MacAddress {
    s.parse().unwrap_or_else(|_| die(&format!("{s:?} is not a MAC address")))
}

fn con_json(c: &Confirmation) -> String {
    let rates: Vec<String> = c.rates_used().iter().map(|(r, n)| format!("[\"{r}\",{n}]")).collect();
    let reason = match c.status {
        Status::Dropped(r) => format!("\"{}\"", r.name()),
        _ => "null".into(),
    };
    format!(
        "{{\"con\":{},\"status\":\"{}\",\"reason\":{},\"ac\":\"{}\",\"attempts\":{},\"rates\":[{}],\"len\":{},\"t1\":{},\"t3\":{},\"t4\":{},\"t7\":{},\"t8\":{},\"t9\":{}}}",
        c.id,
        c.status.name(),
        reason,
        c.ac.name(),
        c.attempts,
        rates.join(","),
        c.len,
        c.ts.t1.as_ns(),
        c.ts.t3.as_ns(),
        c.ts.t4.as_ns(),
        c.ts.t7.as_ns(),
        c.ts.t8.as_ns(),
        c.ts.t9.as_ns()
    )
}

fn num(x: f64) -> String {
    if x.is_finite() {
        format!("{x}")
    } else {
        "null".into()
    }
}

fn opt<T: std::fmt::Display>(x: Option<T>) -> String {
    x.map_or("null".into(), |v| v.to_string())
}

fn open(iface: &str, freq: &str, timeout_ms: u64) -> LinuxBackend {
    let freq: u32 =
        freq.parse().unwrap_or_else(|_| die(&format!("{freq:?} is not a frequency in MHz")));
    let mut cfg = LinuxConfig::new(freq);
    cfg.report_timeout = Duration::from_millis(timeout_ms);
    LinuxBackend::open(iface, cfg).unwrap_or_else(|e| die(&e))
}

fn send(args: &[String]) {
    if args.len() < 5 {
        die("send IFACE FREQ DST COUNT RATES [no-ack] [ac=BE] [payload=TEXT] [timeout-ms=N] [window=N]");
    }
    let (mut no_ack, mut ac, mut payload, mut timeout_ms, mut window, mut linger_ms) =
        (false, Ac::Be, "sdmac".to_string(), 1000u64, 1usize, 0u64);
    for a in &args[5..] {
        match a.split_once('=') {
            None if a == "no-ack" => no_ack = true,
            Some(("ac", v)) => {
                ac = Ac::parse(v).unwrap_or_else(|| die(&format!("unknown AC {v:?}")))
            }
            Some(("payload", v)) => payload = v.to_string(),
            Some(("timeout-ms", v)) => timeout_ms = v.parse().unwrap_or_else(|_| die("timeout-ms")),
            Some(("window", v)) => window = v.parse().unwrap_or_else(|_| die("window")),
            Some(("linger-ms", v)) => linger_ms = v.parse().unwrap_or_else(|_| die("linger-ms")),
            _ => die(&format!("unknown option {a:?}")),
        }
    }
    // Through the application's interface, which takes t1 and t9.
    let mut b = Interface::new(open(&args[0], &args[1], timeout_ms));
    let dst = mac(&args[2]);
    let count: u64 = args[3].parse().unwrap_or_else(|_| die("COUNT"));
    let rates = if args[4] == "auto" {
        None
    } else {
        Some(parse_rate_series(&args[4]).unwrap_or_else(|e| die(&e)))
    };
    let attrs = TxAttrs {
        dst: Some(dst),
        rates,
        no_ack,
        timestamps: true,
        not_before: None,
        not_after: None,
    };
    let (mut next, mut confirmed) = (0u64, 0u64);
    let mut by_status = std::collections::BTreeMap::<&'static str, u64>::new();
    let mut closed = None;
    while confirmed < count {
        while next < count && (next - confirmed) < window as u64 {
            let p = format!("{payload} {next}");
            match b.data_req(next, Body::Payload(p.as_bytes()), ac, &attrs) {
                Ok(()) => next += 1,
                Err(ApiError::QueueFull { .. }) => break,
                Err(ApiError::Closed) => {
                    closed = Some("closed at data_req".to_string());
                    break;
                }
                Err(e) => die(&format!("data_req {next}: {e}")),
            }
        }
        match b.data_con(Wait::For(Duration::from_secs(30))) {
            Ok(Some(c)) => {
                println!("{}", con_json(&c));
                *by_status.entry(c.status.name()).or_default() += 1;
                if let Status::Dropped(r) = c.status {
                    *by_status.entry(r.name()).or_default() += 1;
                }
                confirmed += 1;
            }
            Ok(None) => die("no confirmation within 30 s"),
            Err(ApiError::Closed) => {
                closed = Some(b.backend().closed_reason().unwrap_or_default());
                break;
            }
            Err(e) => die(&format!("data_con: {e}")),
        }
    }
    std::thread::sleep(Duration::from_millis(linger_ms));
    let s = b.backend().stats();
    let st: Vec<String> = by_status.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
    println!(
        "{{\"summary\":true,\"requested\":{next},\"confirmed\":{confirmed},\"unconfirmed\":{},\"by_status\":{{{}}},\"closed\":{},\"late_echoes\":{},\"unknown_echoes\":{},\"foreign_echoes\":{},\"resends\":{},\"no_report\":{},\"echo_pkttypes\":{},\"rx_pkttypes\":{},\"socket_drops\":{},\"skipped\":{},\"indicated\":{},\"clamped_stamps\":{}}}",
        b.unconfirmed(),
        st.join(","),
        closed.map_or("null".into(), |r| format!("{r:?}")),
        s.matcher.late_echoes,
        s.matcher.unknown_echoes,
        s.foreign_echoes,
        s.matcher.resends,
        s.matcher.no_report,
        s.echo_pkttypes,
        s.rx_pkttypes,
        s.socket_drops,
        s.skipped,
        s.indicated,
        s.matcher.clamped_stamps
    );
}

fn recv(args: &[String]) {
    if args.len() < 3 {
        die("recv IFACE FREQ SECONDS");
    }
    let mut b = open(&args[0], &args[1], 1000);
    let secs: u64 = args[2].parse().unwrap_or_else(|_| die("SECONDS"));
    let end = Instant::now() + Duration::from_secs(secs);
    let mut buf = Vec::new();
    println!("{{\"ready\":true,\"addr\":\"{}\"}}", b.address());
    while Instant::now() < end {
        match b.data_ind(&mut buf, Wait::For(Duration::from_millis(200))) {
            Ok(Some(i)) => {
                let p = &buf[i.payload_offset.min(buf.len())..];
                let text: String = p
                    .iter()
                    .map(|&c| {
                        if (0x20..0x7f).contains(&c) && c != b'"' && c != b'\\' {
                            c as char
                        } else {
                            '.'
                        }
                    })
                    .collect();
                println!(
                    "{{\"ind\":{},\"class\":\"{:?}\",\"src\":\"{}\",\"dst\":\"{}\",\"ac\":\"{}\",\"len\":{},\"payload\":\"{}\",\"dup\":{},\"signal\":{},\"rate\":\"{}\",\"tsft\":{},\"t_end\":{}}}",
                    i.id, i.class, i.src, i.dst, i.ac.name(), i.len, text, i.duplicate, num(i.rx.signal_dbm), i.rx.rate, opt(i.rx.tsft_us), i.rx.t_end.as_ns()
                );
            }
            Ok(None) => {}
            Err(ApiError::Closed) => break,
            Err(e) => die(&format!("data_ind: {e}")),
        }
    }
    let s = b.stats();
    println!(
        "{{\"recv_summary\":true,\"indicated\":{},\"rx_pkttypes\":{},\"echo_pkttypes\":{}}}",
        s.indicated, s.rx_pkttypes, s.echo_pkttypes
    );
}

fn beacons(args: &[String]) {
    if args.len() < 3 {
        die("beacons IFACE FREQ COUNT");
    }
    let mut b = open(&args[0], &args[1], 1000);
    let n: u64 = args[2].parse().unwrap_or_else(|_| die("COUNT"));
    for _ in 0..n {
        match b.beacon_ind(Wait::For(Duration::from_secs(10))) {
            Ok(Some(x)) => println!(
                "{{\"beacon\":{},\"bssid\":\"{}\",\"tsf\":{},\"signal\":{},\"t_end\":{}}}",
                x.seq,
                x.bssid,
                opt(x.tsf_us),
                num(x.signal_dbm),
                x.t_end.as_ns()
            ),
            Ok(None) => die("no beacon within 10 s"),
            Err(e) => die(&format!("beacon_ind: {e}")),
        }
    }
}

fn refuse(args: &[String]) {
    if args.len() < 3 {
        die("refuse IFACE FREQ DST");
    }
    let mut b = open(&args[0], &args[1], 1000);
    let dst = mac(&args[2]);
    let one = |r: &str| TxAttrs {
        dst: Some(dst),
        rates: Some(parse_rate_series(r).unwrap_or_else(|e| die(&e))),
        no_ack: false,
        timestamps: true,
        not_before: None,
        not_after: None,
    };
    let cases: Vec<(&str, Result<(), ApiError>)> = vec![
        (
            "payload_too_long",
            b.data_req(1, Body::Payload(&[0u8; 2305]), Ac::Be, &one("54"), sdmac_api::Time::ZERO),
        ),
        (
            "frame_too_long_for_phy",
            b.data_req(2, Body::Frame(&[0x08u8; 4100]), Ac::Be, &one("54"), sdmac_api::Time::ZERO),
        ),
        (
            "rate_not_in_band",
            b.data_req(
                3,
                Body::Payload(b"x"),
                Ac::Be,
                &one(if args[1].starts_with('2') { "vht0-1ss-20" } else { "1" }),
                sdmac_api::Time::ZERO,
            ),
        ),
        (
            "series_too_long",
            Err(ApiError::InvalidRequest {
                what: "rates",
                reason: parse_rate_series("54,48,36,24,12").err().unwrap_or_default(),
            }),
        ),
    ];
    for (what, r) in cases {
        match r {
            Ok(()) => println!("{{\"refuse\":\"{what}\",\"refused\":false}}"),
            Err(e) => println!(
                "{{\"refuse\":\"{what}\",\"refused\":true,\"kind\":\"{}\",\"error\":{:?}}}",
                e.kind(),
                e.to_string()
            ),
        }
    }
    // Nothing was sent: nothing to confirm.
    let c = b.data_con(Wait::For(Duration::from_millis(500)));
    println!(
        "{{\"unconfirmed\":{},\"confirmation\":{}}}",
        b.unconfirmed(),
        matches!(c, Ok(Some(_)))
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("send") => send(&args[1..]),
        Some("recv") => recv(&args[1..]),
        Some("beacons") => beacons(&args[1..]),
        Some("refuse") => refuse(&args[1..]),
        _ => die("usage: linux_drive send|recv|beacons|refuse ..."),
    }
}
