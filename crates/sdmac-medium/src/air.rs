//! The air: the frames on air and the recent ones that can still overlap them, with
//! who heard each when it started. It owns the transmission slots that events and
//! receivers refer to (`Event::TxEnd`, a station's `rx_lock`).

use crate::config::{Dest, StationId};
use crate::report::{Cause, FrameKind};
use crate::time::Time;
use sdmac_phy::Rate;

/// A frame on air.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Transmission {
    /// The sender.
    pub src: StationId,
    /// DATA, beacon or ACK.
    pub kind: FrameKind,
    /// The sender's queue (for an ACK: the DATA frame's, for airtime accounting).
    pub queue: u8,
    /// The destination.
    pub dst: Dest,
    /// The request's handle (for an ACK: the DATA frame's).
    pub handle: u64,
    /// MPDU length in bytes.
    pub len: u32,
    /// PHY rate.
    pub rate: Rate,
    /// When its preamble starts.
    pub start: Time,
    /// When its last symbol ends.
    pub end: Time,
    /// The Duration field (µs): the NAV it sets at third parties that decode it.
    pub nav_us: u16,
    /// The sender waits for an ACK.
    pub needs_ack: bool,
    /// Sequence number.
    pub seq: u16,
    /// The Retry bit.
    pub retry: bool,
    /// It has ended (it stays while it can still overlap a frame on air).
    pub ended: bool,
    /// Why the destination cannot receive it, when known before it ends.
    pub dst_fail: Option<Cause>,
    /// Result at the destination (unicast) or anyone (broadcast).
    pub received: bool,
}

/// One receiver of a transmission as it was when the transmission started: the
/// station, whether it sensed it (counted in its `cs_count`), and at what power (dBm).
pub(crate) type Heard = (StationId, bool, f64);

/// The frames on air.
#[derive(Debug, Default)]
pub(crate) struct Air {
    /// Transmission slots, indexed by slot number; a slot is reused once its frame can
    /// overlap nothing on air any more.
    pub txs: Vec<Transmission>,
    /// Slots free for reuse.
    pub free_slots: Vec<u32>,
    /// Per slot: the receivers linked to the sender when it started, sorted by
    /// station, recorded only when links change while it is on air
    /// (`Medium::record_receivers`). Its end undoes exactly what its start did, even
    /// if links changed or stations joined while it was on air.
    pub slot_rx: Vec<Vec<Heard>>,
    /// Per slot: the link generation (`LinkTable::gen`) when its frame started. If it
    /// is still current when the frame ends, the sender's links are the very list
    /// `slot_rx` was made from, receiver for receiver.
    pub slot_links_gen: Vec<u64>,
    /// Slots on air, or ended but overlapping a frame still on air.
    pub on_air: Vec<u32>,
    /// Frames on air now (not ended).
    pub active_count: u32,
    /// When the current busy period of the medium (some frame on air) began.
    pub busy_start: Time,
    /// The power each station receives from the frames on air, kept as they start.
    pub heard: HeardPower,
}

/// The power (mW) each station receives from the frames on air (not ended), summed in
/// the order they started, which is `on_air` order: the same additions, in the same
/// order, as summing over `on_air` at each start, without walking every interferer's
/// links again. A frame that ends, or a link that changes, cannot be subtracted
/// exactly, so either makes the sums stale; the next start rebuilds them.
#[derive(Debug, Default)]
pub(crate) struct HeardPower {
    /// Per station: the sum, valid when its `stamp` is `epoch` (else 0).
    pub sum_mw: Vec<f64>,
    /// Per station: the epoch `sum_mw` was last written in.
    pub stamp: Vec<u32>,
    /// The current epoch; bumped at each rebuild, so stale sums read as 0.
    pub epoch: u32,
    /// The sums cover every frame on air, with the links as they are.
    pub valid: bool,
    /// The link generation (`LinkTable::gen`) the sums were made with.
    pub links_gen: u64,
}

impl HeardPower {
    /// Starts a new epoch of empty sums for `stations` stations (sized here, at a
    /// medium's first transmission and after stations join, so that a station that
    /// never hears a frame on air costs nothing).
    pub fn clear(&mut self, stations: usize) {
        if self.sum_mw.len() < stations {
            self.sum_mw.resize(stations, 0.0);
            self.stamp.resize(stations, 0);
        }
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            // Wrapped: no stamp may equal the new epoch by accident.
            self.stamp.iter_mut().for_each(|s| *s = 0);
            self.epoch = 1;
        }
    }

    /// The sum at station `j` (0 if nothing on air reaches it).
    pub fn at(&self, j: StationId) -> f64 {
        if self.stamp[j as usize] == self.epoch {
            self.sum_mw[j as usize]
        } else {
            0.0
        }
    }

    /// Adds `mw` to the sum at station `j`.
    pub fn add(&mut self, j: StationId, mw: f64) {
        let j = j as usize;
        if self.stamp[j] != self.epoch {
            self.stamp[j] = self.epoch;
            self.sum_mw[j] = 0.0;
        }
        self.sum_mw[j] += mw;
    }
}

impl Air {
    /// Makes room for `slots` transmissions at once, each heard by up to `receivers`
    /// stations, so that the first overlaps of a run allocate nothing.
    pub fn reserve(&mut self, slots: usize, receivers: usize) {
        self.txs.reserve(slots.saturating_sub(self.txs.len()));
        self.on_air.reserve(slots.saturating_sub(self.on_air.len()));
        self.free_slots.reserve(slots.saturating_sub(self.free_slots.len()));
        while self.slot_rx.len() < slots {
            self.slot_rx.push(Vec::new());
        }
        for heard in &mut self.slot_rx {
            heard.reserve(receivers.saturating_sub(heard.len()));
        }
    }

    /// Puts `tx` in a slot (a free one first) and on air, with the link generation
    /// `links_gen`; returns the slot.
    pub fn alloc_slot(&mut self, tx: Transmission, links_gen: u64) -> u32 {
        let slot = if let Some(s) = self.free_slots.pop() {
            self.txs[s as usize] = tx;
            s
        } else {
            self.txs.push(tx);
            (self.txs.len() - 1) as u32
        };
        self.on_air.push(slot);
        if self.slot_rx.len() <= slot as usize {
            self.slot_rx.resize_with(slot as usize + 1, Vec::new);
        }
        if self.slot_links_gen.len() <= slot as usize {
            self.slot_links_gen.resize(slot as usize + 1, 0);
        }
        self.slot_rx[slot as usize].clear();
        self.slot_links_gen[slot as usize] = links_gen;
        slot
    }

    /// Forgets transmissions that can no longer overlap anything on air.
    pub fn prune(&mut self) {
        let earliest_active = self
            .on_air
            .iter()
            .map(|&s| &self.txs[s as usize])
            .filter(|t| !t.ended)
            .map(|t| t.start)
            .min();
        let txs = &self.txs;
        let free = &mut self.free_slots;
        self.on_air.retain(|&s| {
            let tx = &txs[s as usize];
            let keep = !tx.ended || earliest_active.is_some_and(|e| tx.end > e);
            if !keep {
                free.push(s);
            }
            keep
        });
    }
}
