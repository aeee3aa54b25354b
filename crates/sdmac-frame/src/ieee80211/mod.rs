//! IEEE 802.11 MAC frames: Frame Control, the MAC header view and representation,
//! QoS Control, information elements, beacon bodies and MPDU builders.

pub mod beacon;
pub mod builders;
pub mod frame_control;
pub mod header;
pub mod ie;
pub mod qos;

pub use beacon::{BeaconBody, SupportedRate};
pub use builders::{
    ack_frame_len, beacon_frame_len, cts_frame_len, data_frame_len, mpdu_len, rts_frame_len,
    write_ack_frame, write_beacon_frame, write_cts_frame, write_data_frame, write_mpdu,
    write_rts_frame, BeaconParams, DataParams, LLC_SNAP_LEN, LLC_SNAP_PREFIX,
};
pub use frame_control::{FrameControl, FrameKind, FrameType};
pub use header::{header_len, Frame, HeaderLayout, Repr};
pub use qos::{AckPolicy, QosControl};
