//! Preallocated frame buffers and a bounded queue.

use crate::convert::{HEADROOM, MAX_ETH_FRAME};
use std::collections::VecDeque;

/// Bytes of one buffer: headroom, the largest Ethernet frame accepted, and one
/// byte more, so that a frame longer than that is seen (as filling the buffer)
/// rather than silently cut.
pub const BUF_LEN: usize = HEADROOM + MAX_ETH_FRAME + 1;

/// One frame buffer with headroom.
pub type FrameBuf = Box<[u8; BUF_LEN]>;

fn new_buf() -> FrameBuf {
    vec![0u8; BUF_LEN].into_boxed_slice().try_into().expect("BUF_LEN bytes")
}

/// A fixed number of frame buffers, allocated once.
#[derive(Debug)]
pub struct Pool {
    free: Vec<FrameBuf>,
    capacity: usize,
}

impl Pool {
    /// `n` buffers.
    pub fn new(n: usize) -> Pool {
        Pool { free: (0..n).map(|_| new_buf()).collect(), capacity: n }
    }

    /// A free buffer, if any is left.
    #[inline]
    pub fn get(&mut self) -> Option<FrameBuf> {
        self.free.pop()
    }

    /// Gives a buffer back. (Never beyond the pool's size: the vector was made
    /// with room for all of them, so this does not allocate.)
    #[inline]
    pub fn put(&mut self, b: FrameBuf) {
        debug_assert!(self.free.len() < self.capacity, "a buffer given back twice");
        self.free.push(b);
    }

    /// The start addresses of the free buffers (all of them, before any is taken):
    /// what an io_uring registers. A buffer keeps its address wherever it goes.
    pub fn addresses(&self) -> Vec<*const u8> {
        self.free.iter().map(|b| b.as_ptr()).collect()
    }

    /// Buffers free.
    pub fn available(&self) -> usize {
        self.free.len()
    }
}

/// A FIFO of at most `capacity` items, whose storage is allocated once.
#[derive(Debug)]
pub struct Bounded<T> {
    items: VecDeque<T>,
    capacity: usize,
}

impl<T> Bounded<T> {
    /// An empty queue holding up to `capacity` items.
    pub fn new(capacity: usize) -> Bounded<T> {
        Bounded { items: VecDeque::with_capacity(capacity), capacity }
    }

    /// Appends `x`, or hands it back when the queue is full.
    #[inline]
    pub fn push(&mut self, x: T) -> Result<(), T> {
        if self.items.len() >= self.capacity {
            return Err(x);
        }
        self.items.push_back(x);
        Ok(())
    }

    /// Puts `x` back at the head (after a `pop` whose item could not be used); hands
    /// it back when the queue is full.
    #[inline]
    pub fn push_front(&mut self, x: T) -> Result<(), T> {
        if self.items.len() >= self.capacity {
            return Err(x);
        }
        self.items.push_front(x);
        Ok(())
    }

    /// Takes the oldest item.
    #[inline]
    pub fn pop(&mut self) -> Option<T> {
        self.items.pop_front()
    }

    /// Items queued.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Whether another item would be refused.
    pub fn is_full(&self) -> bool {
        self.items.len() >= self.capacity
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_refuses_beyond_capacity_and_keeps_order() {
        let mut q = Bounded::new(3);
        for k in 0..3 {
            q.push(k).unwrap();
        }
        assert_eq!(q.push(9), Err(9));
        assert!(q.is_full());
        assert_eq!(q.pop(), Some(0));
        q.push_front(0).unwrap();
        assert_eq!(q.push_front(8), Err(8));
        assert_eq!((q.pop(), q.pop(), q.pop(), q.pop()), (Some(0), Some(1), Some(2), None));
    }

    #[test]
    fn pool_hands_out_each_buffer_once() {
        let mut p = Pool::new(2);
        let a = p.get().unwrap();
        let b = p.get().unwrap();
        assert!(p.get().is_none());
        assert_ne!(a.as_ptr(), b.as_ptr());
        p.put(a);
        assert_eq!(p.available(), 1);
    }
}
