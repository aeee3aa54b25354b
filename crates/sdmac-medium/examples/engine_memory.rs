//! The engine's memory per station: a medium of N stations on a square grid (150 m
//! apart, 802.11a), measured by a counting global allocator, so that the figure is the
//! engine's own heap and nothing of a simulator around it.
//!
//! ```text
//! cargo run --release -p sdmac-medium --example engine_memory -- [STATIONS] [idle|poisson]
//! ```
//!
//! `idle`: no traffic. `poisson`: every station broadcasts 100 B frames, 1 per second
//! on average, for one simulated second. Prints one JSON line: the stations, the live
//! heap after setup, after the run, and its peak, in bytes and per station (capacity
//! reserved by growing vectors included), and the growth of the resident set per
//! station (the memory actually touched).

use sdmac_medium::{Dest, Flow, Medium, MediumConfig, StationConfig, TrafficPattern};
use sdmac_phy::{Phy, Standard};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Counts live and peak heap bytes.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(live, Ordering::Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: `ptr` came from `alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Counts what the medium reports, keeping nothing.
#[derive(Default)]
struct Count {
    sent: u64,
    received: u64,
}

impl sdmac_medium::Sink for Count {
    fn tx_done(&mut self, _: &sdmac_medium::TxReport) {
        self.sent += 1;
    }

    fn rx(&mut self, _: &sdmac_medium::RxIndication) {
        self.received += 1;
    }
}

/// The process's resident set (VmRSS), in bytes; 0 where /proc is not available.
fn resident_bytes() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<usize>().ok())
        .map_or(0, |kib| kib * 1024)
}

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n: u32 = match args.first() {
        Some(a) => a.parse().map_err(|_| format!("STATIONS: not a number: {a:?}"))?,
        None => 10_000,
    };
    let traffic = args.get(1).map_or("idle", |s| s.as_str());
    if traffic != "idle" && traffic != "poisson" {
        return Err(format!("traffic must be idle or poisson, not {traffic:?}"));
    }
    let phy = Phy::new(Standard::Dot11a);
    let base = LIVE.load(Ordering::Relaxed);
    let rss_base = resident_bytes();
    let mut m = Medium::new(MediumConfig::new(phy.clone()));
    let side = (n as f64).sqrt().ceil() as u32;
    for i in 0..n {
        let pos = [150.0 * (i % side) as f64, 150.0 * (i / side) as f64, 0.0];
        let b = i.to_be_bytes();
        let mut c = StationConfig::new(&phy, [2, 0, b[0], b[1], b[2], b[3]], pos);
        if traffic == "poisson" {
            c.flows.push(Flow {
                pattern: TrafficPattern::Poisson { mean_interval_ns: sdmac_medium::SECONDS },
                dst: Dest::Broadcast,
                payload: 100,
                mpdu_len: 136,
                ac: sdmac_medium::Ac::Be,
                rates: None,
                start_ns: 0,
                stop_ns: sdmac_medium::NEVER,
            });
        }
        m.add_station(c);
    }
    let setup = LIVE.load(Ordering::Relaxed) - base;
    let rss_setup = resident_bytes().saturating_sub(rss_base);
    let mut sink = Count::default();
    let events = m.advance(sdmac_medium::SECONDS, &mut sink);
    let after = LIVE.load(Ordering::Relaxed) - base;
    let rss_after = resident_bytes().saturating_sub(rss_base);
    let peak = PEAK.load(Ordering::Relaxed) - base;
    let per = |b: usize| b as f64 / n as f64;
    println!(
        "{{\"stations\": {n}, \"traffic\": \"{traffic}\", \"events\": {events}, \
         \"sent\": {}, \"received\": {}, \
         \"setup_bytes\": {setup}, \"after_run_bytes\": {after}, \"peak_bytes\": {peak}, \
         \"setup_bytes_per_station\": {:.1}, \"after_run_bytes_per_station\": {:.1}, \
         \"peak_bytes_per_station\": {:.1}, \"resident_setup_bytes_per_station\": {:.1}, \
         \"resident_after_run_bytes_per_station\": {:.1}}}",
        sink.sent,
        sink.received,
        per(setup),
        per(after),
        per(peak),
        per(rss_setup),
        per(rss_after)
    );
    Ok(())
}
