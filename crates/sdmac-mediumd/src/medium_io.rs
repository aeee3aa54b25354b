//! What crosses the edge of the medium model: frames the kernel hands over
//! ([`KernelFrame`]), what the model hands back ([`Output`]), the record it keeps of
//! a frame on its way (`InFlight`) and its counters. Below the model and everything
//! it is built of, so that they share these types without importing each other.

use crate::address::Mac;
pub use crate::frame_pool::SharedFrame;
use crate::refusal::Refusals;
use sdmac_frame::ieee80211::{Frame, FrameType};
use sdmac_medium::{Ac, Time};
use sdmac_phy::Rate;

/// What a frame's status must repeat of the kernel's request: its rate indices and
/// flags. Opaque to the medium, carried with the frame so nothing else has to look
/// the frame up again when its status is written.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct StatusEcho {
    /// The rate index of each entry of the frame's rate series (−1 ends it).
    pub rate_idx: [i8; 4],
    /// The frame's flags.
    pub flags: u32,
}

/// The most rate entries a frame has (the kernel's `IEEE80211_TX_MAX_RATES`).
pub const MAX_RATES: usize = 4;

/// Up to [`MAX_RATES`] items kept in place (no allocation), used as a slice.
#[derive(Copy, Clone)]
pub struct Fixed4<T: Copy + Fill> {
    items: [T; MAX_RATES],
    len: u8,
}

impl<T: Copy + Fill> Fixed4<T> {
    /// The first [`MAX_RATES`] items of `items` (the rest are dropped).
    pub fn from_iter_capped(items: impl IntoIterator<Item = T>) -> Fixed4<T> {
        let mut f = Fixed4 { items: [T::FILL; MAX_RATES], len: 0 };
        for (slot, x) in f.items.iter_mut().zip(items) {
            *slot = x;
            f.len += 1;
        }
        f
    }

    /// `n` (at most [`MAX_RATES`]) filler items ([`Fill::FILL`]: no rate, 0 attempts).
    pub fn defaults(n: usize) -> Fixed4<T> {
        Fixed4 { items: [T::FILL; MAX_RATES], len: n.min(MAX_RATES) as u8 }
    }
}

impl<T: Copy + Fill> std::ops::Deref for Fixed4<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        &self.items[..self.len as usize]
    }
}

impl<T: Copy + Fill> std::ops::DerefMut for Fixed4<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        &mut self.items[..self.len as usize]
    }
}

impl<T: Copy + Fill> From<Vec<T>> for Fixed4<T> {
    fn from(v: Vec<T>) -> Fixed4<T> {
        Fixed4::from_iter_capped(v)
    }
}

impl<T: Copy + Fill> From<&[T]> for Fixed4<T> {
    fn from(v: &[T]) -> Fixed4<T> {
        Fixed4::from_iter_capped(v.iter().copied())
    }
}

/// Printed as the slice it holds.
impl<T: Copy + Fill + std::fmt::Debug> std::fmt::Debug for Fixed4<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (**self).fmt(f)
    }
}

impl<T: Copy + Fill + PartialEq> PartialEq for Fixed4<T> {
    fn eq(&self, other: &Fixed4<T>) -> bool {
        **self == **other
    }
}

impl<T: Copy + Fill + Eq> Eq for Fixed4<T> {}

impl<T: Copy + Fill + PartialEq> PartialEq<Vec<T>> for Fixed4<T> {
    fn eq(&self, other: &Vec<T>) -> bool {
        **self == other[..]
    }
}

impl<T: Copy + Fill + PartialEq, const N: usize> PartialEq<[T; N]> for Fixed4<T> {
    fn eq(&self, other: &[T; N]) -> bool {
        **self == other[..]
    }
}

/// What an unused slot of a [`Fixed4`] holds.
pub trait Fill {
    /// The filler.
    const FILL: Self;
}

impl Fill for u8 {
    const FILL: u8 = 0;
}

impl Fill for (Rate, u8) {
    const FILL: (Rate, u8) = (Rate::Ofdm6, 0);
}

impl<T: Copy + Fill> Default for Fixed4<T> {
    fn default() -> Self {
        Fixed4::defaults(0)
    }
}

/// A frame's rate series: (rate, tries) per entry.
pub type RateEntries = Fixed4<(Rate, u8)>;

/// Attempts made per entry of a frame's rate series.
pub type AttemptCounts = Fixed4<u8>;

/// A frame the kernel asks the medium to send.
#[derive(Clone, Debug)]
pub struct KernelFrame<'a> {
    /// The transmitting radio (hwsim address).
    pub transmitter: Mac,
    /// The 802.11 frame (no FCS).
    pub frame: &'a [u8],
    /// The kernel asked for no ACK.
    pub no_ack: bool,
    /// Channel (MHz).
    pub freq: u32,
    /// The frame's rate series (rate, tries), as many entries as the kernel gave (at
    /// most [`MAX_RATES`]).
    pub rates: RateEntries,
    /// The kernel's cookie, echoed in the status.
    pub cookie: u64,
    /// Repeated in the status.
    pub echo: StatusEcho,
}

/// The signal (dBm) a TX status reports when no receiver's signal is known: the
/// frame was refused, never carried, or not received by its destination. It is
/// -91 dBm, the default noise floor (wmediumd's fixed noise level), whatever noise
/// floor the medium is configured with.
pub const UNHEARD_SIGNAL_DBM: i32 = -91;

/// What the medium tells the kernel.
#[derive(Clone, Debug, PartialEq)]
pub enum Output {
    /// The outcome of a frame (TX_INFO_FRAME).
    TxStatus {
        /// The transmitting radio.
        transmitter: Mac,
        /// The kernel's cookie.
        cookie: u64,
        /// Acknowledged (or, for no-ack frames, sent).
        acked: bool,
        /// Signal at the destination (dBm), or [`UNHEARD_SIGNAL_DBM`] when unknown.
        signal_dbm: i32,
        /// Attempts made per entry of the frame's rate series.
        attempts: AttemptCounts,
        /// What the kernel's frame asked, repeated.
        echo: StatusEcho,
        /// When the outcome is known on the medium (ns on the daemon's clock): the
        /// ACK's end, the ACK timeout, the DATA end of a no-ack frame, or the time a
        /// refused frame came.
        due: Time,
    },
    /// A frame on air, for a capture (only when capturing).
    Air {
        /// Start on air (ns on the daemon's clock).
        t_start: Time,
        /// Channel (MHz).
        freq: u32,
        /// Rate.
        rate: Rate,
        /// The frame (no FCS).
        frame: Vec<u8>,
    },
    /// A copy of a frame received by a radio (FRAME to the kernel).
    Deliver {
        /// The receiving radio (hwsim address).
        receiver: Mac,
        /// The frame (no FCS), shared with its other deliveries.
        frame: SharedFrame,
        /// Rate it was sent at.
        rate: Rate,
        /// Received power (dBm).
        signal_dbm: i32,
        /// Channel (MHz).
        freq: u32,
        /// When it is received (ns on the daemon's clock): the DATA frame's end.
        due: Time,
    },
    /// A message the kernel refused, sent again as it was (a TX status that came
    /// too early: see the `status_retry` module).
    Resend {
        /// The whole netlink message.
        msg: Vec<u8>,
        /// When it is due (ns on the daemon's clock).
        due: Time,
    },
}

impl Output {
    /// When an output for the kernel is due; None for a frame on air (for a capture).
    pub fn due(&self) -> Option<Time> {
        match self {
            Output::TxStatus { due, .. }
            | Output::Deliver { due, .. }
            | Output::Resend { due, .. } => Some(*due),
            Output::Air { .. } => None,
        }
    }
}

/// A frame on its way through a medium.
pub(crate) struct InFlight {
    pub transmitter: Mac,
    pub cookie: u64,
    pub bytes: SharedFrame,
    pub n_rates: usize,
    /// Tries the medium may make at each entry of the kernel's rate series: the
    /// kernel's count, 0 for an entry skipped.
    pub tries: [u8; 4],
    pub echo: StatusEcho,
    /// Signal at its destination (dBm) of its last attempt that arrived, for the
    /// status; None until one did.
    pub signal_dbm: Option<i32>,
    /// When it came from the kernel (for the truth stream).
    pub arrived: Time,
    /// Sent without acknowledgement (asked for, or group addressed).
    pub no_ack: bool,
    /// The rate of each of the kernel's entries (kb/s; 0 where skipped).
    pub kbps: [u32; 4],
}

/// Counters.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Frames from the kernel.
    pub frames_in: u64,
    /// Statuses sent.
    pub statuses: u64,
    /// Statuses that said acked.
    pub acked: u64,
    /// Deliveries.
    pub deliveries: u64,
    /// Frames refused (malformed, or no rate the channel carries) and answered as not
    /// acknowledged.
    pub refused: u64,
    /// Refusals per cause, and rate entries skipped.
    pub refusals: Refusals,
    /// TX statuses the kernel refused as too early, sent again.
    pub status_retries: u64,
    /// TX statuses given up after their last retry was refused too.
    pub statuses_refused: u64,
}

/// The access category of a frame: QoS data by its TID, management → VO, other → BE.
pub fn ac_of(frame: &[u8]) -> Ac {
    let Ok(f) = Frame::new_checked(frame) else { return Ac::Be };
    match f.frame_control().frame_type() {
        FrameType::Management => Ac::Vo,
        FrameType::Data => f.qos_control().map_or(Ac::Be, |q| Ac::from_tid(q.tid)),
        _ => Ac::Be,
    }
}
