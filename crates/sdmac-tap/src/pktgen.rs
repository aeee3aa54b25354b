//! The packet format and receiver statistics of `sdmac-pktgen`, the UDP generator
//! of `sdmac bench tap`.
//!
//! Every packet starts with a 24-byte stamp, little-endian: the magic `SDPG`, a
//! run id (u32, so packets of an earlier run are told apart), a sequence number
//! (u64, from 0) and the sender's `CLOCK_MONOTONIC` time in nanoseconds (u64);
//! the rest of the UDP payload is zeros. Sender and receiver on one host (or in
//! one VM) share the clock, so the receiver's clock minus the stamp is the
//! one-way delay.

use std::fmt;

/// The four bytes every packet starts with.
pub const MAGIC: [u8; 4] = *b"SDPG";
/// Bytes of the stamp, and so the smallest UDP payload the generator sends.
pub const STAMP_LEN: usize = 24;

/// The stamp carried at the start of every packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    /// Which run sent it.
    pub run: u32,
    /// Its sequence number within the run, from 0.
    pub seq: u64,
    /// The sender's CLOCK_MONOTONIC time when it was sent, nanoseconds.
    pub sent_ns: u64,
}

/// Why received bytes are not a stamp.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StampError {
    /// Fewer than [`STAMP_LEN`] bytes; the length is given.
    TooShort(usize),
    /// The first four bytes are not [`MAGIC`].
    BadMagic,
}

impl fmt::Display for StampError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StampError::TooShort(n) => {
                write!(f, "packet of {n} bytes, shorter than the {STAMP_LEN}-byte stamp")
            }
            StampError::BadMagic => write!(f, "packet does not start with the magic SDPG"),
        }
    }
}

impl Stamp {
    /// Writes the stamp into the first [`STAMP_LEN`] bytes of `buf` (which must be
    /// at least that long).
    pub fn write(&self, buf: &mut [u8]) {
        buf[0..4].copy_from_slice(&MAGIC);
        buf[4..8].copy_from_slice(&self.run.to_le_bytes());
        buf[8..16].copy_from_slice(&self.seq.to_le_bytes());
        buf[16..24].copy_from_slice(&self.sent_ns.to_le_bytes());
    }

    /// Reads the stamp at the start of a received payload.
    pub fn read(buf: &[u8]) -> Result<Stamp, StampError> {
        if buf.len() < STAMP_LEN {
            return Err(StampError::TooShort(buf.len()));
        }
        if buf[0..4] != MAGIC {
            return Err(StampError::BadMagic);
        }
        let u32_at = |i: usize| u32::from_le_bytes(buf[i..i + 4].try_into().expect("4 bytes"));
        let u64_at = |i: usize| u64::from_le_bytes(buf[i..i + 8].try_into().expect("8 bytes"));
        Ok(Stamp { run: u32_at(4), seq: u64_at(8), sent_ns: u64_at(16) })
    }
}

/// The current CLOCK_MONOTONIC time in nanoseconds.
pub fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// What a receiver has seen of one run.
#[derive(Debug, Clone, Default)]
pub struct RecvStats {
    /// One-way delay of every packet counted, nanoseconds.
    pub delays_ns: Vec<u64>,
    /// Packets of the run counted (first copies).
    pub received: u64,
    /// Copies of a sequence number already seen.
    pub duplicates: u64,
    /// Packets whose sequence number is below the highest seen before them.
    pub reordered: u64,
    /// Packets dropped as not ours (too short, wrong magic, another run).
    pub foreign: u64,
    /// The highest sequence number seen, if any.
    pub max_seq: Option<u64>,
    /// Receiver clock of the first and the last packet counted, nanoseconds.
    pub first_last_ns: Option<(u64, u64)>,
    /// UDP payload bytes counted.
    pub bytes: u64,
    seen: Vec<u64>,
}

impl RecvStats {
    /// Counts one received payload at receiver time `now_ns`, for run `run`.
    pub fn record(&mut self, payload: &[u8], run: u32, now_ns: u64) {
        let stamp = match Stamp::read(payload) {
            Ok(s) if s.run == run => s,
            _ => {
                self.foreign += 1;
                return;
            }
        };
        let (word, bit) = ((stamp.seq / 64) as usize, stamp.seq % 64);
        if word >= self.seen.len() {
            // Bounded: a sequence number far beyond the packets sent is a foreign packet.
            if word > (1 << 26) {
                self.foreign += 1;
                return;
            }
            self.seen.resize(word + 1, 0);
        }
        if self.seen[word] & (1 << bit) != 0 {
            self.duplicates += 1;
            return;
        }
        self.seen[word] |= 1 << bit;
        if matches!(self.max_seq, Some(m) if stamp.seq < m) {
            self.reordered += 1;
        }
        self.max_seq = Some(self.max_seq.map_or(stamp.seq, |m| m.max(stamp.seq)));
        self.received += 1;
        self.bytes += payload.len() as u64;
        self.delays_ns.push(now_ns.saturating_sub(stamp.sent_ns));
        self.first_last_ns = Some(match self.first_last_ns {
            None => (now_ns, now_ns),
            Some((f, _)) => (f, now_ns),
        });
    }

    /// Packets missing below the highest sequence number seen (a receiver alone
    /// cannot know of packets lost after the last it got; the sender's count can).
    pub fn lost_below_max(&self) -> u64 {
        self.max_seq.map_or(0, |m| m + 1 - self.received)
    }

    /// Packets per second received, between the first and the last counted.
    pub fn rate_pps(&self) -> f64 {
        match self.first_last_ns {
            Some((f, l)) if l > f && self.received > 1 => {
                (self.received - 1) as f64 * 1e9 / (l - f) as f64
            }
            _ => 0.0,
        }
    }

    /// The delay percentiles `ps` (each in 0..=100), nanoseconds, nearest rank;
    /// `None` without samples. Sorts the samples.
    pub fn percentiles(&mut self, ps: &[f64]) -> Option<Vec<u64>> {
        if self.delays_ns.is_empty() {
            return None;
        }
        self.delays_ns.sort_unstable();
        Some(ps.iter().map(|&p| nearest_rank(&self.delays_ns, p)).collect())
    }
}

/// The nearest-rank percentile `p` (0..=100) of sorted, non-empty `sorted`.
pub fn nearest_rank(sorted: &[u64], p: f64) -> u64 {
    let n = sorted.len();
    let rank = ((p / 100.0) * n as f64).ceil() as usize;
    sorted[rank.clamp(1, n) - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamp_golden_bytes_and_round_trip() {
        let s = Stamp { run: 0x0102_0304, seq: 5, sent_ns: 0x1122_3344_5566_7788 };
        let mut buf = [0xffu8; 60];
        s.write(&mut buf);
        assert_eq!(
            &buf[..24],
            &[
                b'S', b'D', b'P', b'G', 4, 3, 2, 1, 5, 0, 0, 0, 0, 0, 0, 0, 0x88, 0x77, 0x66, 0x55,
                0x44, 0x33, 0x22, 0x11
            ]
        );
        assert_eq!(Stamp::read(&buf), Ok(s));
    }

    #[test]
    fn stamp_errors_name_the_fault() {
        assert_eq!(Stamp::read(&[0; 10]), Err(StampError::TooShort(10)));
        assert_eq!(Stamp::read(&[0; 24]), Err(StampError::BadMagic));
        assert!(StampError::TooShort(10).to_string().contains("10 bytes"));
    }

    fn packet(run: u32, seq: u64, sent_ns: u64) -> Vec<u8> {
        let mut b = vec![0u8; 60];
        Stamp { run, seq, sent_ns }.write(&mut b);
        b
    }

    #[test]
    fn stats_count_loss_duplicates_reordering_and_foreign() {
        let mut st = RecvStats::default();
        // Sent at 1000 ns apart, each arriving 100 + 10*seq ns after it was sent.
        for seq in [0u64, 1, 3, 2, 2, 6] {
            st.record(&packet(7, seq, seq * 1000), 7, seq * 1000 + 100 + 10 * seq);
        }
        st.record(&packet(8, 4, 0), 7, 9000); // another run
        st.record(b"short", 7, 9000);
        assert_eq!(st.received, 5);
        assert_eq!(st.duplicates, 1);
        assert_eq!(st.reordered, 1); // 2 after 3
        assert_eq!(st.foreign, 2);
        assert_eq!(st.max_seq, Some(6));
        assert_eq!(st.lost_below_max(), 2); // 4 and 5
        assert_eq!(st.bytes, 5 * 60);
        let mut delays = st.delays_ns.clone();
        delays.sort_unstable();
        assert_eq!(delays, vec![100, 110, 120, 130, 160]);
        // First counted at 100 ns, last at 6160 ns: 4 intervals.
        let pps = st.rate_pps();
        assert!((pps - 4.0 * 1e9 / 6060.0).abs() < 1e-6, "{pps}");
    }

    #[test]
    fn percentiles_nearest_rank() {
        let mut st = RecvStats { delays_ns: (1..=100).rev().collect(), ..Default::default() };
        assert_eq!(st.percentiles(&[0.0, 50.0, 99.0, 100.0]), Some(vec![1, 50, 99, 100]));
        assert_eq!(nearest_rank(&[7], 50.0), 7);
        assert_eq!(RecvStats::default().percentiles(&[50.0]), None);
        assert_eq!(RecvStats::default().rate_pps(), 0.0);
    }
}
