//! The receive buffers of the ring: a buffer ring the kernel picks a buffer from for
//! each datagram of the multishot receive, handed back once the datagram was read.

use io_uring::types::BufRingEntry;
use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::sync::atomic::{AtomicU16, Ordering};

/// Receive buffers: a ring of `count` buffers of `size` bytes the kernel picks from.
pub(super) struct BufRing {
    pub(super) ring: *mut BufRingEntry,
    layout: Layout,
    count: u16,
    size: usize,
    data: Vec<u8>,
    tail: u16,
}

impl BufRing {
    pub(super) fn new(count: u16, size: usize) -> BufRing {
        assert!(count.is_power_of_two());
        let layout =
            Layout::from_size_align(count as usize * std::mem::size_of::<BufRingEntry>(), 4096)
                .expect("buffer ring layout");
        // SAFETY: a non-zero size; freed in Drop with the same layout.
        let ring = unsafe { alloc_zeroed(layout) } as *mut BufRingEntry;
        assert!(!ring.is_null(), "out of memory for the buffer ring");
        BufRing { ring, layout, count, size, data: vec![0; count as usize * size], tail: 0 }
    }

    /// Hands buffer `bid` (back) to the kernel.
    pub(super) fn provide(&mut self, bid: u16) {
        let mask = self.count - 1;
        // SAFETY: the index is masked into the ring; the kernel reads an entry only
        // once the tail (published below) covers it.
        let e = unsafe { &mut *self.ring.add((self.tail & mask) as usize) };
        e.set_addr(self.data[bid as usize * self.size..].as_ptr() as u64);
        e.set_len(self.size as u32);
        e.set_bid(bid);
        self.tail = self.tail.wrapping_add(1);
    }

    /// Publishes the buffers provided since the last call.
    pub(super) fn publish(&self) {
        // SAFETY: the tail field of the first entry, which the kernel reads atomically.
        let tail = unsafe { &*(BufRingEntry::tail(self.ring) as *const AtomicU16) };
        tail.store(self.tail, Ordering::Release);
    }

    /// Buffer `bid`, whole.
    pub(super) fn buffer(&self, bid: u16) -> &[u8] {
        &self.data[bid as usize * self.size..(bid as usize + 1) * self.size]
    }
}

impl Drop for BufRing {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout.
        unsafe { dealloc(self.ring as *mut u8, self.layout) };
    }
}
