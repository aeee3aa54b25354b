//! What the daemon has still to write to one control client that speaks sdmac's
//! extension: its replies and the truth records it subscribed to, in order, written
//! without blocking whenever the socket takes them.
//!
//! A client that reads slowly or not at all never holds the daemon up: records that
//! would take its backlog over the limit are dropped and counted, and the next record
//! it does get says how many it lost. Replies are never dropped; a client whose
//! backlog of replies alone runs over the limit (it asks but never reads) is closed.

use crate::hwsim_medium::{hw_addr_of, Mac};
use crate::syscall_count;
use sdmac_control::ext::{encode_truth, TruthRecord};
use std::io::{self, Write};
use std::os::unix::net::UnixStream;

/// Bytes a client's backlog may hold before records are dropped (about 2900
/// records, on top of what the socket itself buffers).
pub(crate) const DEFAULT_LIMIT: usize = 256 << 10;
/// How far replies may take the backlog past the limit before the client is closed.
const REPLY_SLACK: usize = 64 << 10;

/// One client's backlog and subscription.
#[derive(Debug, Default)]
pub(crate) struct Outbox {
    bytes: Vec<u8>,
    sent: usize,
    /// Records dropped since the last one queued.
    lost: u32,
    /// Records dropped in all.
    pub lost_total: u64,
    /// Records queued in all.
    pub queued_total: u64,
    /// The transmitters it subscribed to (empty: all); None: not subscribed.
    pub subscription: Option<Vec<Mac>>,
    /// The client sent an extension request: its replies go through here.
    pub ext: bool,
    /// The poller watches its socket for room to write.
    pub watching_write: bool,
}

impl Outbox {
    /// Bytes not written yet.
    pub fn pending(&self) -> usize {
        self.bytes.len() - self.sent
    }

    /// Does the subscription take this record? A transmitter is named by its hwsim
    /// address, the frame's TA, or the interface address whose hwsim address it is.
    pub fn wants(&self, r: &TruthRecord) -> bool {
        match &self.subscription {
            None => false,
            Some(list) if list.is_empty() => true,
            Some(list) => list
                .iter()
                .any(|a| *a == r.transmitter || *a == r.ta || hw_addr_of(*a) == r.transmitter),
        }
    }

    /// Queues a record, or drops and counts it when the backlog is at `limit`.
    pub fn offer(&mut self, r: &TruthRecord, limit: usize) {
        let size = sdmac_control::ext::HEADER_LEN + sdmac_control::ext::TRUTH_BODY_LEN;
        if self.pending() + size > limit {
            self.lost = self.lost.saturating_add(1);
            self.lost_total += 1;
            return;
        }
        let mut r = *r;
        r.lost = self.lost;
        self.lost = 0;
        self.queued_total += 1;
        self.bytes.extend_from_slice(&encode_truth(&r));
    }

    /// Queues a reply; false when the backlog is then past `limit` and the slack for
    /// replies (the client should be closed).
    pub fn push_reply(&mut self, b: &[u8], limit: usize) -> bool {
        self.bytes.extend_from_slice(b);
        self.pending() <= limit + REPLY_SLACK
    }

    /// Writes what the socket takes now; an error only when the client is gone.
    pub fn write_to(&mut self, s: &mut UnixStream) -> io::Result<()> {
        while self.pending() > 0 {
            syscall_count::add(1);
            match s.write(&self.bytes[self.sent..]) {
                Ok(0) => return Err(io::Error::from(io::ErrorKind::WriteZero)),
                Ok(n) => self.sent += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        if self.sent == self.bytes.len() {
            self.bytes.clear();
            self.sent = 0;
        } else if self.sent > self.bytes.len() / 2 {
            self.bytes.drain(..self.sent);
            self.sent = 0;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sdmac_control::ext::{Attempts, TruthCause, TruthOutcome};

    fn rec(transmitter: Mac, cookie: u64) -> TruthRecord {
        TruthRecord {
            lost: 0,
            transmitter,
            ta: sdmac_types::MacAddress::new([2, 0, 0, 0, 0, 9]),
            ra: sdmac_types::MacAddress::BROADCAST,
            seq_ctrl: 0,
            cookie,
            ac: 1,
            no_ack: true,
            delivered: false,
            outcome: TruthOutcome::NoAck,
            cause: TruthCause::None,
            n_entries: 1,
            attempts: [Attempts::default(); 4],
            t_arrival_ns: 0,
            t_first_start_ns: 0,
            t_end_ns: 0,
            signal_dbm: -50,
        }
    }

    #[test]
    fn records_past_the_limit_are_counted_and_the_next_says_so() {
        let size = sdmac_control::ext::HEADER_LEN + sdmac_control::ext::TRUTH_BODY_LEN;
        let mut o = Outbox { subscription: Some(vec![]), ..Outbox::default() };
        for k in 0..5 {
            o.offer(&rec(sdmac_types::MacAddress::new([0x42, 0, 0, 0, 0, 1]), k), 2 * size);
        }
        assert_eq!((o.queued_total, o.lost_total), (2, 3));
        let (a, b) = std::os::unix::net::UnixStream::pair().unwrap();
        let mut a = a;
        a.set_nonblocking(true).unwrap();
        o.write_to(&mut a).unwrap();
        assert_eq!(o.pending(), 0);
        o.offer(&rec(sdmac_types::MacAddress::new([0x42, 0, 0, 0, 0, 1]), 9), 2 * size);
        o.write_to(&mut a).unwrap();
        let mut d = sdmac_control::stream::IncomingDecoder::new();
        let mut buf = vec![0u8; 4096];
        let n = std::io::Read::read(&mut &b, &mut buf).unwrap();
        d.push(&buf[..n]);
        let mut got = Vec::new();
        while let Some(sdmac_control::stream::Incoming::Truth(r)) = d.next_message().unwrap() {
            got.push((r.cookie, r.lost));
        }
        assert_eq!(got, [(0, 0), (1, 0), (9, 3)]);
    }

    #[test]
    fn subscriptions_name_transmitters_by_any_address() {
        let hw = sdmac_types::MacAddress::new([0x42, 0, 0, 0, 0, 1]);
        let mut o = Outbox::default();
        assert!(!o.wants(&rec(hw, 0)), "not subscribed");
        o.subscription = Some(vec![sdmac_types::MacAddress::new([2, 0, 0, 0, 0, 1])]);
        assert!(o.wants(&rec(hw, 0)), "the interface address whose hwsim address it is");
        o.subscription = Some(vec![sdmac_types::MacAddress::new([2, 0, 0, 0, 0, 9])]);
        assert!(
            o.wants(&rec(sdmac_types::MacAddress::new([0x42, 0, 0, 0, 0, 7]), 0)),
            "the frame's TA"
        );
        o.subscription = Some(vec![sdmac_types::MacAddress::new([2, 0, 0, 0, 0, 3])]);
        assert!(!o.wants(&rec(hw, 0)));
    }
}
