//! Every primitive, attribute and error of the emu backend, through the public API.
//!
//! Times asserted are medium times (exact); wall-clock durations never are. Every
//! blocking call waits at most [`common::T`], so a bug cannot hang the suite.
//!
//! One module per primitive (or group of them); what they share is in `common`.

mod common;

mod add_station;
mod attributes;
mod cancel;
mod close;
mod data;
mod device_profile;
mod edges;
mod queues;
mod raw_frames;
mod request_errors;
mod timed;
