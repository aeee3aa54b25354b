//! What `data_ind` and `beacon_ind` return.

use sdmac_phy::Rate;
use sdmac_types::Ac;
use sdmac_types::MacAddress;
use sdmac_types::Time;

/// Class of a received frame.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum FrameClass {
    /// A data frame.
    Data,
    /// A management frame (beacons included), delivered only when the adapter's
    /// `rx_management` attribute is on.
    Management,
}

/// Reception details.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct RxInfo {
    /// Received power (dBm).
    pub signal_dbm: f64,
    /// Signal to noise ratio (dB).
    pub snr_db: f64,
    /// Rate it was sent at.
    pub rate: Rate,
    /// Start on air (ns, `CLOCK_MONOTONIC`).
    pub t_start: Time,
    /// End on air: the receiver has it (ns).
    pub t_end: Time,
    /// Published on the indication channel (ns).
    pub t_published: Time,
    /// Returned by `data_ind` (ns).
    pub t_returned: Time,
    /// The receiving adapter's TSF when the frame was received (µs; radiotap TSFT),
    /// where the adapter reports it.
    pub tsft_us: Option<u64>,
}

/// A received frame. Its bytes (the whole MPDU without FCS) are written into the
/// buffer given to `data_ind`; `payload_offset` says where the MSDU payload starts.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Indication {
    /// Unique on this receiver, increasing.
    pub id: u64,
    /// Data or management.
    pub class: FrameClass,
    /// Transmitter address.
    pub src: MacAddress,
    /// Receiver address.
    pub dst: MacAddress,
    /// Access category it was sent on.
    pub ac: Ac,
    /// Frame length in the buffer (bytes, no FCS).
    pub len: usize,
    /// Offset of the payload in the buffer (after the MAC header and LLC/SNAP).
    pub payload_offset: usize,
    /// A retransmission of a frame already received.
    pub duplicate: bool,
    /// Reception details.
    pub rx: RxInfo,
}

/// A beacon heard by the interface.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct BeaconInd {
    /// The beaconing BSS.
    pub bssid: MacAddress,
    /// Counts beacons heard on this interface, from 1.
    pub seq: u64,
    /// Start on air (ns, `CLOCK_MONOTONIC`).
    pub t_start: Time,
    /// End on air (ns): the moment the beacon was received.
    pub t_end: Time,
    /// Published on the beacon channel (ns).
    pub t_published: Time,
    /// Received power (dBm).
    pub signal_dbm: f64,
    /// The beacon's own timestamp field (the AP's TSF, µs), where the backend reads it.
    pub tsf_us: Option<u64>,
}
