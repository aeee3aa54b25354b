use super::*;
use crate::hwsim::join::FrameKey;
use sdmac_api::{Ac, Confirmation, Rate, Status, Time, Timestamps};

/// Longest a test waits for a descriptor: only a guard against hanging, never the
/// figure judged.
const GUARD_MS: i32 = 30_000;

fn acked(id: u64) -> Confirmation {
    Confirmation {
        id,
        status: Status::Acked,
        ac: Ac::Be,
        attempts: 1,
        rates: [(Rate::Ofdm54, 1); 4],
        n_rates: 1,
        len: 100,
        truth: None,
        ts: Timestamps { t3: Time::from_ns(3), ..Timestamps::default() },
    }
}

fn key(n: u16) -> FrameKey {
    FrameKey { ra: MacAddress([2, 0, 0, 0, 1, 0]), seq_ctrl: n << 4 }
}

/// Waits up to `ms` for any of `fds` to be readable; true when one is.
fn readable(fds: &[RawFd], ms: i32) -> bool {
    let mut p: Vec<libc::pollfd> =
        fds.iter().map(|&fd| libc::pollfd { fd, events: libc::POLLIN, revents: 0 }).collect();
    // SAFETY: p is a valid array of pollfd.
    let n = unsafe { libc::poll(p.as_mut_ptr(), p.len() as libc::nfds_t, ms) };
    n > 0
}

#[test]
fn a_held_confirmation_whose_bound_passes_makes_the_descriptors_readable() {
    // No truth thread runs: the descriptors alone must tell a station loop that the
    // confirmation can be taken once its record has not come in time.
    let sh = Shared::new(Joiner::new(5_000_000)).unwrap();
    let deadline = {
        let mut j = sh.lock();
        j.confirm(monotonic_ns(), acked(7), Some(key(1)));
        sh.settle(&j);
        assert_eq!((j.held(), j.ready()), (1, 0));
        j.next_deadline().expect("held")
    };
    assert!(readable(&sh.fds(), GUARD_MS), "the bound passed and nothing became readable");
    let now = monotonic_ns();
    assert!(now >= deadline, "readable at {now}, before the bound {deadline}");
    let mut j = sh.lock();
    j.expire(now);
    assert_eq!(j.pop().map(|c| (c.id, c.truth)), Some((7, None)));
    assert_eq!(j.counters().missing, 1);
    // Taken and nothing else held: not readable any more.
    sh.efd.clear();
    sh.settle(&j);
    assert!(!readable(&sh.fds(), 0), "still readable with nothing ready or held");
}

#[test]
fn a_confirmation_ready_at_once_makes_the_descriptors_readable() {
    // One with no frame on the medium waits for no record.
    let sh = Shared::new(Joiner::new(3_600_000_000_000)).unwrap();
    let mut j = sh.lock();
    j.confirm(monotonic_ns(), acked(1), None);
    j.confirm(monotonic_ns(), acked(2), Some(key(2)));
    sh.settle(&j);
    assert!(readable(&sh.fds(), 0));
    assert_eq!(j.pop().map(|c| c.id), Some(1));
    sh.efd.clear();
    sh.settle(&j);
    // The other is held an hour: nothing to take now.
    assert!(!readable(&sh.fds(), 0));
}
