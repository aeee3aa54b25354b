//! Frames the medium keeps without allocating per frame: a pool of buffers, each
//! handed out as a [`SharedFrame`] — one copy of a frame the kernel sent, held by its
//! record in flight and by every delivery of it until they are encoded — and taken
//! again once nothing holds it any more.
//!
//! The pool keeps a handle to every buffer it made; a buffer is free when the pool's
//! handle is the only one. Buffers keep their capacity, so after the first frames of
//! each size a frame costs a copy and no allocation.

use std::sync::Arc;

/// A frame's bytes, shared by its record in flight and its deliveries; cloning it
/// allocates nothing. Made by a [`FramePool`] (or from a `Vec`, in tests).
#[derive(Clone, PartialEq, Eq, Default)]
pub struct SharedFrame(Arc<Vec<u8>>);

impl SharedFrame {
    /// The frame's bytes.
    pub fn as_slice(&self) -> &[u8] {
        self.0.as_slice()
    }
}

impl std::ops::Deref for SharedFrame {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        self.0.as_slice()
    }
}

impl std::fmt::Debug for SharedFrame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.as_slice().fmt(f)
    }
}

impl From<Vec<u8>> for SharedFrame {
    fn from(v: Vec<u8>) -> SharedFrame {
        SharedFrame(Arc::new(v))
    }
}

impl PartialEq<Vec<u8>> for SharedFrame {
    fn eq(&self, other: &Vec<u8>) -> bool {
        self.0.as_slice() == other.as_slice()
    }
}

impl PartialEq<[u8]> for SharedFrame {
    fn eq(&self, other: &[u8]) -> bool {
        self.0.as_slice() == other
    }
}

/// Buffers for [`SharedFrame`]s, reused once every holder let go.
#[derive(Debug, Default)]
pub struct FramePool {
    /// Every buffer made; the pool's handle is the only one of a free buffer.
    all: Vec<Arc<Vec<u8>>>,
    /// Where the next search for a free buffer starts (buffers come free in about
    /// the order they were taken).
    next: usize,
}

impl FramePool {
    /// An empty pool.
    pub fn new() -> FramePool {
        FramePool::default()
    }

    /// A copy of `bytes` in a free buffer (a new one when none is free).
    pub fn copy_of(&mut self, bytes: &[u8]) -> SharedFrame {
        let n = self.all.len();
        for k in 0..n {
            let i = (self.next + k) % n;
            if let Some(b) = Arc::get_mut(&mut self.all[i]) {
                b.clear();
                b.extend_from_slice(bytes);
                self.next = (i + 1) % n;
                return SharedFrame(self.all[i].clone());
            }
        }
        let b = Arc::new(bytes.to_vec());
        self.all.push(b.clone());
        self.next = 0;
        SharedFrame(b)
    }

    /// Buffers made so far.
    pub fn buffers(&self) -> usize {
        self.all.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_buffer_is_reused_once_every_holder_let_go() {
        let mut p = FramePool::new();
        let a = p.copy_of(b"one");
        let a2 = a.clone();
        let b = p.copy_of(b"two");
        assert_eq!((&*a, &*b), (&b"one"[..], &b"two"[..]));
        assert_eq!(p.buffers(), 2);
        drop(a);
        // Still held by its copy: a third buffer.
        let c = p.copy_of(b"three");
        assert_eq!(p.buffers(), 3);
        drop((a2, b, c));
        for _ in 0..10 {
            let f = p.copy_of(b"again");
            assert_eq!(&*f, b"again");
        }
        assert_eq!(p.buffers(), 3);
    }
}
