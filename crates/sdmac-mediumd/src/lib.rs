//! # sdmac-mediumd
//!
//! The medium daemon for Linux `mac80211_hwsim` radios, a drop-in for wmediumd, on
//! sdmac's medium engine.
//! - [`hwsim_medium`]: the medium without sockets — kernel frames in, TX statuses and
//!   deliveries out, one engine medium per configured medium and channel
//!   ([`media`]), with movement ([`movement`]) and fading. What crosses its edge
//!   (kernel frames, outputs, counters) is in [`medium_io`], radio addresses in
//!   [`address`], both below every part of the model; [`kernel_msg`] reads the
//!   kernel's datagrams into it (netlink family and log level stay on that side).
//!   Its set-up is `medium_setup`, the rates a channel carries `channel_rates`; a
//!   frame's bytes live in a pooled buffer ([`frame_pool`]): the hot path allocates
//!   nothing per frame (tests/zero_alloc.rs).
//! - [`daemon`]: the run — one loop for both modes (`event_loop`), driving the
//!   medium on one thread (`one_thread`) or the per-medium threads; generic netlink
//!   ([`netlink`], batched), a wait
//!   ([`poller`]) until the medium's next output, on io_uring or epoll behind one
//!   interface ([`kernel_side`]), the control socket ([`control`]
//!   for its messages, [`control_socket`] for its file; what its requests do:
//!   [`mininet_requests`], [`ext_requests`]), capture ([`capture`]) and statistics
//!   ([`stats`]). [`radio_creation`] makes hwsim radios at run time.
//!   With `--threads` ([`threaded`]) each engine medium runs on its own thread
//!   (`worker`), fed by a [`dispatch`]er that keeps every thread's radio table the
//!   same. [`coalesce`] lets the outputs due within a short window leave together,
//!   at its end;
//!   [`lateness`] counts how long after its time on the medium each output left.
//! - [`config`]: wmediumd / yawmd configurations to a medium set-up; [`custom_phy`]:
//!   a scenario's `[phy]` table timing every channel instead (`--phy`).

#![warn(missing_docs)]

pub mod address;
pub mod capture;
mod channel_rates;
pub mod coalesce;
mod collector;
pub mod config;
pub mod control;
mod control_clients;
pub mod control_socket;
pub mod custom_phy;
pub mod daemon;
pub mod dispatch;
pub mod encode;
pub mod error;
mod event_loop;
pub mod ext_requests;
mod frame_intake;
pub mod frame_pool;
pub mod hwsim_medium;
pub mod kernel_msg;
pub mod kernel_side;
pub mod lateness;
pub mod link_model;
pub mod media;
pub mod medium_io;
mod medium_setup;
pub mod mininet_requests;
pub mod movement;
pub mod netlink;
mod one_thread;
pub mod options;
mod outbox;
pub mod per_file;
pub mod poller;
mod radio_binding;
pub mod radio_creation;
mod radio_table;
pub mod refusal;
mod startup;
mod station_changes;
mod station_tuning;
pub mod stats;
pub mod status_retry;
mod stopping;
pub mod syscall_count;
pub mod threaded;
pub mod timed;
pub mod timer;
mod truth;
pub mod uring;
mod worker;
