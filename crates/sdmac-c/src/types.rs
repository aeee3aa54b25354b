//! The plain C structs and enums of the ABI.

use std::ffi::c_char;

/// Access categories, numbered as 802.11 numbers them (ACI): a zeroed field is best effort.
#[repr(C)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum sdmac_ac {
    /// Best effort.
    SDMAC_AC_BE = 0,
    /// Background.
    SDMAC_AC_BK = 1,
    /// Video.
    SDMAC_AC_VI = 2,
    /// Voice.
    SDMAC_AC_VO = 3,
}

/// What an attribute belongs to (sdmac_set, sdmac_get).
#[repr(C)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum sdmac_scope {
    /// The adapter (`which` is ignored).
    SDMAC_SCOPE_ADAPTER = 0,
    /// One access category's queue (`which` is an sdmac_ac).
    SDMAC_SCOPE_QUEUE = 1,
    /// One packet still in the adapter (`which` is its request id).
    SDMAC_SCOPE_PACKET = 2,
}

/// The outcome a confirmation reports.
#[repr(C)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum sdmac_status {
    /// An ACK was received.
    SDMAC_STATUS_ACKED = 0,
    /// No ACK after the last attempt.
    SDMAC_STATUS_ACK_TIMEOUT = 1,
    /// Sent without expecting an ACK.
    SDMAC_STATUS_SENT = 2,
    /// Never sent, or not completely (see drop_reason).
    SDMAC_STATUS_DROPPED = 3,
    /// Sent, but the driver never reported its status within the backend's timeout
    /// (linux and hwsim backends).
    SDMAC_STATUS_NO_REPORT = 4,
}

/// Why a request was dropped.
#[repr(C)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum sdmac_drop_reason {
    /// Not dropped.
    SDMAC_DROP_NONE = 0,
    /// Cancelled by the caller while queued.
    SDMAC_DROP_CANCELLED = 1,
    /// Another packet with the same id was still queued.
    SDMAC_DROP_DUPLICATE_ID = 2,
    /// The device refused it.
    SDMAC_DROP_REFUSED = 3,
    /// The session closed before it was sent.
    SDMAC_DROP_CLOSED = 4,
    /// It could not be handed to channel access by its `not_after` time.
    SDMAC_DROP_LATE = 5,
}

/// Class of a received frame.
#[repr(C)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum sdmac_frame_kind {
    /// A data frame.
    SDMAC_FRAME_DATA = 0,
    /// A management frame (delivered when the adapter's rx_management attribute is on).
    SDMAC_FRAME_MANAGEMENT = 1,
}

/// The clock an emulated medium runs on (sdmac_open_options.clock).
#[repr(C)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum sdmac_clock {
    /// Paced to CLOCK_MONOTONIC: medium time 0 is the session's start (the default).
    SDMAC_CLOCK_WALL = 0,
    /// As fast as possible: medium time moves only while the handle waits in
    /// sdmac_data_con, sdmac_data_ind or sdmac_beacon_ind (timeouts on the medium's
    /// clock), so one seed gives one run, times included (emu only).
    SDMAC_CLOCK_VIRTUAL = 1,
}

/// Options of sdmac_open_with. Start from sdmac_open_options_init().
#[repr(C)]
#[derive(Copy, Clone, Debug)]
pub struct sdmac_open_options {
    /// The clock of an emulated medium (an sdmac_clock value; 0 is the wall clock).
    /// The virtual clock is refused for backends other than emu.
    pub clock: i32,
}

/// Per-packet attributes of sdmac_data_req. Start from sdmac_tx_attrs_init().
#[repr(C)]
#[derive(Copy, Clone, Debug)]
pub struct sdmac_tx_attrs {
    /// Access category (an sdmac_ac value).
    pub ac: i32,
    /// Nonzero: send to `dst`; zero: to the BSSID (a payload) or the frame's address 1 (a raw frame).
    pub has_dst: u8,
    /// Destination (receiver) address.
    pub dst: [u8; 6],
    /// Nonzero: send without expecting an ACK.
    pub no_ack: u8,
    /// Nonzero: record the timestamps t1..t9.
    pub timestamps: u8,
    /// Nonzero: the body is a whole 802.11 MPDU without FCS, sent as given; zero: an
    /// MSDU payload (the backend builds the header and LLC/SNAP).
    pub raw_frame: u8,
    /// Rate series as text, up to four RATExTRIES entries, e.g. "54x1" (a confirmed
    /// one-shot) or "54x2,24x2"; NULL: the adapter's default series.
    pub rates: *const c_char,
    /// Nonzero: hand the packet to channel access at this CLOCK_MONOTONIC time (ns),
    /// not before (backends with timed sends only: emu).
    pub not_before_ns: u64,
    /// Nonzero: drop the packet unsent (SDMAC_DROP_LATE) if it would be handed to
    /// channel access after this CLOCK_MONOTONIC time (ns) (backends with timed sends
    /// only: emu).
    pub not_after_ns: u64,
}

/// Timestamps of a confirmed transmission: ns on CLOCK_MONOTONIC, 0 = not recorded.
/// t1: the caller, before data_req; t2: the backend's first instruction; t3: the
/// request reaches the device; t4: queued on the AC queue; t_start / t_last_start:
/// the first / last attempt starts on air; t_data_end: the last DATA frame ends;
/// t5: the MAC knows the outcome; t7: the outcome is back at the host; t8: the
/// confirmation is published; t9: sdmac_data_con returns it.
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct sdmac_timestamps {
    /// The caller, just before sdmac_data_req.
    pub t1: u64,
    /// The backend's first instruction.
    pub t2: u64,
    /// The request reached the device.
    pub t3: u64,
    /// Queued on the station's AC queue.
    pub t4: u64,
    /// First attempt starts on air.
    pub t_start: u64,
    /// Last attempt starts on air.
    pub t_last_start: u64,
    /// Last DATA frame ends on air.
    pub t_data_end: u64,
    /// Outcome known at the MAC.
    pub t5: u64,
    /// Outcome back at the host.
    pub t7: u64,
    /// Confirmation published.
    pub t8: u64,
    /// sdmac_data_con returned.
    pub t9: u64,
}

/// Longest rate name, with its NUL.
pub const SDMAC_RATE_NAME_LEN: usize = 32;

/// A rate, and the attempts made at it.
#[repr(C)]
#[derive(Copy, Clone, Debug)]
pub struct sdmac_rate {
    /// Data rate (kb/s).
    pub kbps: u32,
    /// Attempts made at this rate (in a confirmation; 0 in an indication).
    pub attempts: u8,
    /// Its name as rate series use it, NUL-terminated: "54", "mcs7-40-sgi", ...
    pub name: [c_char; SDMAC_RATE_NAME_LEN],
}

/// The confirmation of one sdmac_data_req.
#[repr(C)]
#[derive(Copy, Clone, Debug)]
pub struct sdmac_confirmation {
    /// The caller's id.
    pub id: u64,
    /// The outcome as the adapter knows it.
    pub status: sdmac_status,
    /// Why it was dropped (SDMAC_DROP_NONE unless status is SDMAC_STATUS_DROPPED).
    pub drop_reason: sdmac_drop_reason,
    /// Access category it was sent on.
    pub ac: sdmac_ac,
    /// Attempts made.
    pub attempts: u8,
    /// Valid entries in `rates`.
    pub n_rates: u8,
    /// The rates actually used, in order, with their attempts.
    pub rates: [sdmac_rate; 4],
    /// MPDU length on air (bytes, with FCS).
    pub len: u32,
    /// Nonzero when the backend knows what happened on air (emu): then `set`,
    /// `cause`, `delivered` and `collisions` are that truth.
    pub has_truth: u8,
    /// Did the destination receive the DATA frame in any attempt?
    pub delivered: u8,
    /// Attempts lost to collisions.
    pub collisions: u8,
    /// The paper's outcome set, NUL-terminated: "A", "LD", "LA", "NOACK" or "DROP"
    /// from the truth; without it "A", "L", "NOACK" or "DROP" from the status.
    pub set: [c_char; 8],
    /// Why the last attempt failed (from the truth; "none" when acked or unknown).
    pub cause: [c_char; 32],
    /// Timestamps (all 0 when the request asked for none).
    pub ts: sdmac_timestamps,
}

/// A received frame; its bytes (the MPDU without FCS) are in the caller's buffer.
#[repr(C)]
#[derive(Copy, Clone, Debug)]
pub struct sdmac_indication {
    /// Unique on this receiver, increasing.
    pub id: u64,
    /// Data or management.
    pub kind: sdmac_frame_kind,
    /// Transmitter address.
    pub src: [u8; 6],
    /// Receiver address.
    pub dst: [u8; 6],
    /// Access category it was sent on.
    pub ac: sdmac_ac,
    /// Frame length (bytes, no FCS).
    pub len: usize,
    /// Where the payload starts in the frame (after the header and LLC/SNAP).
    pub payload_offset: usize,
    /// Nonzero: a retransmission of a frame already received.
    pub duplicate: u8,
    /// Received power (dBm).
    pub signal_dbm: f64,
    /// Signal to noise ratio (dB).
    pub snr_db: f64,
    /// Rate it was sent at.
    pub rate: sdmac_rate,
    /// Start on air (ns, CLOCK_MONOTONIC).
    pub t_start: u64,
    /// End on air (ns).
    pub t_end: u64,
    /// Published by the device (ns).
    pub t_published: u64,
    /// Returned by sdmac_data_ind (ns).
    pub t_returned: u64,
}

/// A beacon heard.
#[repr(C)]
#[derive(Copy, Clone, Debug)]
pub struct sdmac_beacon {
    /// The beaconing BSS.
    pub bssid: [u8; 6],
    /// Counts beacons heard on this handle, from 1.
    pub seq: u64,
    /// Start on air (ns, CLOCK_MONOTONIC).
    pub t_start: u64,
    /// End on air: received (ns).
    pub t_end: u64,
    /// Published by the device (ns).
    pub t_published: u64,
    /// Received power (dBm).
    pub signal_dbm: f64,
}
