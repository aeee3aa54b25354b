//! An emu session in steady state allocates nothing, on the application thread or on
//! the device thread: over confirmed one-shots (`data_req` → device → medium →
//! `data_con`) and over indications received (data frames, and beacons handed up as
//! management frames).
//!
//! A counting global allocator counts every allocation while the steady state runs.
//! The binary has no test harness (`harness = false`), so its only threads are this
//! one (the application) and the session's device thread: allocations on this thread
//! are counted as the application's, all others as the device's.

use sdmac_api::{Ac, Body, FrameClass, Scope, Status, TxAttrs, Wait};
use sdmac_emu::setup::{paper_medium, PaperSetup, AP, AP_ADDR, STA};
use sdmac_emu::{EmuIface, EmuOptions, EmuSession};
use sdmac_frame::MacAddress;
use sdmac_phy::Rate;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

/// The system allocator, counting allocations while `COUNTING` is set.
struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static APP_ALLOCS: AtomicU64 = AtomicU64::new(0);
static DEVICE_ALLOCS: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// Set on the application thread.
    static IS_APP: Cell<bool> = const { Cell::new(false) };
}

fn count() {
    if COUNTING.load(Ordering::Relaxed) {
        let app = IS_APP.try_with(|c| c.get()).unwrap_or(false);
        let counter = if app { &APP_ALLOCS } else { &DEVICE_ALLOCS };
        counter.fetch_add(1, Ordering::Relaxed);
    }
}

// SAFETY: every call is passed on unchanged to the system allocator.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        System.alloc(layout)
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        System.alloc_zeroed(layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        System.realloc(ptr, layout, new_size)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// What one run of rounds saw.
#[derive(Default)]
struct Seen {
    acked: u64,
    data_inds: u64,
    management_inds: u64,
    beacons: u64,
}

/// One round per id: the station sends a confirmed one-shot to the AP and reads its
/// confirmation; the AP reads the frame as an indication; the station reads what it
/// heard (beacons, as beacons and as management frames).
fn rounds(
    sta: &mut sdmac_api::Interface<EmuIface>,
    ap: &mut sdmac_api::Interface<EmuIface>,
    ids: std::ops::Range<u64>,
    buf: &mut Vec<u8>,
    seen: &mut Seen,
) {
    let attrs = TxAttrs::one_shot(MacAddress(AP_ADDR), Rate::Ofdm54);
    let payload = [0x5au8; 100];
    let wait = Wait::For(Duration::from_secs(2));
    for id in ids {
        sta.data_req(id, Body::Payload(&payload), Ac::Be, &attrs).expect("request accepted");
        let c = sta.data_con(wait).expect("session open").expect("a confirmation");
        assert_eq!(c.id, id);
        if c.status == Status::Acked {
            seen.acked += 1;
        }
        if c.truth.is_some_and(|t| t.delivered) {
            let ind = ap.data_ind(buf, wait).expect("session open").expect("the AP receives it");
            assert_eq!(ind.class, FrameClass::Data);
            assert_eq!(&buf[ind.payload_offset..], &payload[..]);
            seen.data_inds += 1;
        }
        while let Some(ind) = sta.data_ind(buf, Wait::NoWait).expect("session open") {
            assert_eq!(ind.class, FrameClass::Management);
            seen.management_inds += 1;
        }
        while sta.beacon_ind(Wait::NoWait).expect("session open").is_some() {
            seen.beacons += 1;
        }
    }
}

fn main() {
    IS_APP.with(|c| c.set(true));
    let (medium, ap_station, sta_station) =
        paper_medium(&PaperSetup::default()).expect("the paper's medium");
    let mut session =
        EmuSession::start(medium, &[(AP, ap_station), (STA, sta_station)], EmuOptions::default())
            .expect("session starts");
    let mut sta = session.take(STA).expect("station interface");
    let mut ap = session.take(AP).expect("AP interface");
    sta.set("rx_management", Scope::Adapter, true).expect("rx_management on");
    let mut buf = Vec::with_capacity(4096);

    // Warm-up: rings, pools, maps and queues reach their working sizes.
    let mut warm = Seen::default();
    rounds(&mut sta, &mut ap, 0..2_000, &mut buf, &mut warm);
    assert!(warm.acked > 0 && warm.data_inds > 0, "the warm-up delivers frames");

    let n = 5_000;
    let mut seen = Seen::default();
    COUNTING.store(true, Ordering::SeqCst);
    rounds(&mut sta, &mut ap, 2_000..2_000 + n, &mut buf, &mut seen);
    COUNTING.store(false, Ordering::SeqCst);
    let app = APP_ALLOCS.load(Ordering::SeqCst);
    let device = DEVICE_ALLOCS.load(Ordering::SeqCst);

    // The steady state did what it is meant to measure.
    // A one-shot that meets a beacon on air may be lost; nearly all are not.
    assert!(seen.acked > n / 2, "a quiet channel acks one-shots ({} of {n})", seen.acked);
    assert!(seen.data_inds >= seen.acked, "the AP receives every acked frame");
    assert!(
        seen.beacons > 0 && seen.management_inds > 0,
        "beacons were heard during the steady state ({} beacons, {} management indications)",
        seen.beacons,
        seen.management_inds
    );
    assert_eq!(
        (app, device),
        (0, 0),
        "allocations in steady state over {n} one-shots and {} indications: \
         (application thread, device thread)",
        seen.data_inds + seen.management_inds
    );
    drop((sta, ap));
    session.close();
    println!(
        "zero_alloc: {n} confirmed one-shots, {} data and {} management indications, \
         {} beacons: 0 allocations on the application and device threads",
        seen.data_inds, seen.management_inds, seen.beacons
    );
}
