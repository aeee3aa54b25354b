//! The per-frame paths allocate nothing: a counting global allocator watches the
//! conversion both ways, TX-id allocation and release, the bounded queue and the
//! buffer pool over many frames, after their set-up.

use sdmac_tap::convert::{eth_to_wlan, wlan_to_eth, Ds, TxParams, HEADROOM};
use sdmac_tap::queue::{Bounded, Pool};
use sdmac_tap::txid::TxIds;
use sdmac_types::MacAddress;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static COUNT: Cell<u64> = const { Cell::new(0) };
}

fn note() {
    // try_with: the thread-locals may be gone while a thread shuts down.
    let _ = COUNTING.try_with(|on| {
        if on.get() {
            let _ = COUNT.try_with(|c| c.set(c.get() + 1));
        }
    });
}

// SAFETY: forwards to the system allocator; only counts on the side.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        note();
        System.alloc(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        note();
        System.realloc(p, l, n)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn counted<R>(f: impl FnOnce() -> R) -> (R, u64) {
    COUNT.with(|c| c.set(0));
    COUNTING.with(|c| c.set(true));
    let r = f();
    COUNTING.with(|c| c.set(false));
    (r, COUNT.with(|c| c.get()))
}

#[test]
fn the_per_frame_paths_allocate_nothing() {
    let a = MacAddress([2, 0, 0, 0, 0, 1]);
    let b = MacAddress([2, 0, 0, 0, 0, 2]);
    let p = TxParams { own: b, bssid: a, ds: Ds::Ibss, qos_tid: None };
    let mut pool = Pool::new(8);
    let mut queue: Bounded<sdmac_tap::queue::FrameBuf> = Bounded::new(4);
    let mut ids: TxIds<u32, 4> = TxIds::new();
    let mut rx: Vec<u8> = Vec::with_capacity(4096);
    // The check that counting works at all: a Vec grown from nothing allocates.
    let (_, n) = counted(|| vec![1u8; 10]);
    assert!(n >= 1, "the counting allocator saw no allocation");
    let (delivered, n) = counted(|| {
        let mut delivered = 0usize;
        let mut held = [0u32; 100];
        for k in 0..20_000usize {
            let mut buf = pool.get().expect("a buffer");
            let len = 60 + k % 1400;
            buf[HEADROOM..HEADROOM + 6].copy_from_slice(&a.0);
            buf[HEADROOM + 6..HEADROOM + 12].copy_from_slice(&b.0);
            buf[HEADROOM + 12..HEADROOM + 14].copy_from_slice(&[0x08, 0x00]);
            let c = eth_to_wlan(&mut buf[..], HEADROOM, len, &p).expect("converts");
            let id = ids.alloc(k as u32).expect("an id");
            held[k % 100] = id;
            if k % 100 == 99 {
                for &i in &held {
                    ids.free(i).expect("in use");
                }
            }
            rx.clear();
            rx.extend_from_slice(&buf[c.start..c.start + c.len]);
            let n = rx.len();
            let r = wlan_to_eth(&mut rx, n).expect("converts back");
            delivered += r.len;
            if queue.push(buf).is_err() {
                unreachable!("the queue is drained below");
            }
            if queue.len() == 4 {
                while let Some(b) = queue.pop() {
                    pool.put(b);
                }
            }
        }
        delivered
    });
    assert!(delivered > 20_000 * 60);
    assert_eq!(n, 0, "{n} allocations over 20000 frames");
}
