//! Software overhead of a confirmed one-shot on emu, measured from Rust, beside a
//! baseline: a bare ping-pong between two threads over the same kind of rings (the
//! floor of any hand-off between an application and a device thread).
//!
//! `cargo run --release -p sdmac-emu --example overhead -- [COUNT] [--json FILE]`

use sdmac_api::oneshot::{run, Mode, OneshotParams};
use sdmac_api::{Ac, Span, COMPONENT_NAMES};
use sdmac_emu::setup::{paper_medium, PaperSetup, AP, AP_ADDR, STA};
use sdmac_emu::{DeviceWait, EmuOptions, EmuSession};
use sdmac_frame::MacAddress;
use sdmac_measure::Summary;
use sdmac_phy::Rate;
use std::time::Duration;

/// Round trips of a 64-byte message between two spinning threads over a ring pair,
/// one every `gap_ns` (the pace of the emu run), the peer holding each message for
/// `hold_ns` (the air time) before answering; returns round trip minus hold. The
/// floor of a hand-off between an application thread and a device thread across the
/// same interval on this machine, its hiccups included.
fn ping_pong(count: usize, gap_ns: u64, hold_ns: u64) -> Vec<f64> {
    let (mut to_p, mut from_a) = rtrb::RingBuffer::<[u64; 8]>::new(64);
    let (mut to_a, mut from_p) = rtrb::RingBuffer::<[u64; 8]>::new(64);
    let peer = std::thread::spawn(move || {
        for _ in 0..count {
            let m = loop {
                if let Ok(m) = from_a.pop() {
                    break m;
                }
                std::hint::spin_loop();
            };
            let until = sdmac_rt::monotonic_ns() + hold_ns;
            while sdmac_rt::monotonic_ns() < until {
                std::hint::spin_loop();
            }
            while to_a.push(m).is_err() {}
        }
    });
    let mut out = Vec::with_capacity(count);
    let mut next = sdmac_rt::monotonic_ns();
    for i in 0..count {
        while sdmac_rt::monotonic_ns() < next {
            std::hint::spin_loop();
        }
        let t0 = sdmac_rt::monotonic_ns();
        to_p.push([i as u64; 8]).unwrap();
        loop {
            if from_p.pop().is_ok() {
                break;
            }
            std::hint::spin_loop();
        }
        let t1 = sdmac_rt::monotonic_ns();
        out.push((t1 - t0 - hold_ns) as f64);
        next = t1 + gap_ns;
    }
    peer.join().unwrap();
    out
}

/// The median (nearest rank) of `v`.
fn p50(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s[(s.len() - 1) / 2]
}

/// A summary and its median.
struct Stat {
    s: Summary,
    p50: f64,
}

impl Stat {
    fn of(v: &[f64]) -> Stat {
        Stat { s: Summary::of(v).unwrap().expect("samples"), p50: p50(v) }
    }

    fn json(&self) -> String {
        let o = self.s.to_json_object();
        format!("{{\"p50\": {}, {}", self.p50, &o[1..])
    }
}

fn row(name: &str, st: &Stat) -> String {
    let s = &st.s;
    format!(
        "{name:<26} {:>8.3} {:>8.3} {:>8.3} {:>8.3} {:>8.3} {:>8.3} {:>8.3} {:>9.3}",
        s.mean, st.p50, s.sd, s.min, s.p99, s.p999, s.p9999, s.max
    )
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let count: u64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let json = args.iter().position(|a| a == "--json").and_then(|k| args.get(k + 1)).cloned();

    let (m, ap, sta) = paper_medium(&PaperSetup::default()).expect("testbed");
    let opts =
        EmuOptions { wait: DeviceWait::Spin, app_spin_ns: 10_000_000, ..EmuOptions::default() };
    let mut s = EmuSession::start(m, &[(AP, ap), (STA, sta)], opts).expect("session");
    let mut iface = s.take(STA).expect("station interface");
    let p = OneshotParams {
        mode: Mode::BackToBack { gap: Span::from_us(200) },
        count,
        payload: 50,
        rate: Rate::Ofdm54,
        dst: MacAddress(AP_ADDR),
        ac: Ac::Be,
        timeout: Duration::from_secs(2),
    };
    // Warm-up, then the run.
    run(&mut iface, &OneshotParams { count: 2_000, ..p }, |_, _| true).expect("warm-up");
    let samples = run(&mut iface, &p, |_, _| true).expect("run");
    drop(iface);
    s.close();

    let us = |f: &dyn Fn(&sdmac_api::oneshot::Sample) -> i64| -> Stat {
        let v: Vec<f64> =
            samples.iter().filter(|x| x.set == "A").map(|x| f(x) as f64 / 1000.0).collect();
        Stat::of(&v)
    };
    let overhead = us(&|x| x.c.tsdmac - x.c.thw - x.c.tca);
    let api_req = us(&|x| x.ts.t2.signed_ns_since(x.ts.t1));
    let backend_req = us(&|x| x.ts.t3.signed_ns_since(x.ts.t2));
    let publish = us(&|x| x.ts.t8.signed_ns_since(x.ts.t7));
    let wake = us(&|x| x.ts.t9.signed_ns_since(x.ts.t8));
    let pp: Vec<f64> =
        ping_pong(count as usize, 200_000, 96_000).into_iter().map(|v| v / 1000.0).collect();
    let base = Stat::of(&pp);

    println!("confirmed one-shot on emu, {} acked samples (µs)", overhead.s.count);
    println!(
        "{:<26} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>9}",
        "component", "mean", "p50", "sd", "min", "p99", "p99.9", "p99.99", "max"
    );
    for (k, name) in COMPONENT_NAMES.iter().enumerate() {
        println!("{}", row(name, &us(&|x| x.c.as_array()[k])));
    }
    println!("{}", row("overhead TSDMAC-Thw-Tca", &overhead));
    println!("where the time goes:");
    println!("{}", row("  t2-t1 API call", &api_req));
    println!("{}", row("  t3-t2 ring hand-off", &backend_req));
    println!("{}", row("  t8-t7 device publish", &publish));
    println!("{}", row("  t9-t8 caller wake-up", &wake));
    println!("{}", row("baseline ping-pong", &base));
    println!("  (two threads handing a message over and back across 96 µs, at the same pace)");
    println!(
        "ratio overhead/baseline: mean {:.2}, p50 {:.2}, p99.99 {:.2}",
        overhead.s.mean / base.s.mean,
        overhead.p50 / base.p50,
        overhead.s.p9999 / base.s.p9999
    );
    if let Some(path) = json {
        let out = format!(
            "{{\"count\": {}, \"overhead\": {}, \"baseline_ping_pong\": {}, \"api\": {}, \"hand_off\": {}, \"publish\": {}, \"wake\": {}}}\n",
            overhead.s.count,
            overhead.json(),
            base.json(),
            api_req.json(),
            backend_req.json(),
            publish.json(),
            wake.json()
        );
        std::fs::write(&path, out).expect("write --json");
    }
}
