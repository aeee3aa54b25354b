//! What the ring promises, on a UNIX datagram socket pair in place of the netlink
//! socket: order, bounds, deadlines, timed sends and the bells, failures.

use super::*;
use crate::poller::Poller;
use std::os::fd::AsRawFd;
use std::os::unix::net::{UnixDatagram, UnixStream};

/// A time far beyond any stall of this host's threads: a wait still running then
/// was not ended by what the test expects to end it. Nothing is due before it
/// unless the test says so, so the test never waits for it.
const FAR: u64 = 60_000_000_000;

fn ring_on(sock: &UnixDatagram, poller: &Poller, count: u16, size: usize) -> Ring {
    Ring::new(sock.as_raw_fd(), poller.as_raw_fd(), count, size)
        .expect("io_uring with multishot recvmsg (Linux 6.0)")
}

#[test]
fn datagrams_come_in_order_through_every_buffer_many_times() {
    let (a, b) = UnixDatagram::pair().unwrap();
    b.set_nonblocking(true).unwrap();
    let poller = Poller::new().unwrap();
    let mut r = ring_on(&a, &poller, 8, 256);
    let mut got: Vec<u32> = Vec::new();
    let mut sent = 0u32;
    // Bursts larger than the 8 buffers: the receive runs out, is re-armed, and
    // nothing is lost or reordered.
    for burst in [1u32, 5, 8, 20, 3, 50] {
        for _ in 0..burst {
            while b.send(&sent.to_le_bytes()).is_err() {
                r.wait(Some(0), 100, usize::MAX, |d| {
                    got.push(u32::from_le_bytes(d.try_into().unwrap()))
                })
                .unwrap();
            }
            sent += 1;
        }
        let deadline = crate::syscall_count::monotonic_ns() + 2_000_000_000;
        while (got.len() as u32) < sent && crate::syscall_count::monotonic_ns() < deadline {
            r.wait(None, 50, usize::MAX, |d| got.push(u32::from_le_bytes(d.try_into().unwrap())))
                .unwrap();
        }
    }
    assert_eq!(got, (0..sent).collect::<Vec<_>>());
    assert_eq!(r.truncated, 0);
}

#[test]
fn at_most_max_per_wait_and_the_rest_at_once() {
    let (a, b) = UnixDatagram::pair().unwrap();
    let poller = Poller::new().unwrap();
    let mut r = ring_on(&a, &poller, 16, 256);
    for k in 0u8..10 {
        b.send(&[k]).unwrap();
    }
    let mut got = Vec::new();
    let w = r.wait(None, 1000, 4, |d| got.push(d[0])).unwrap();
    assert_eq!(w.datagrams, 4);
    let t0 = crate::syscall_count::monotonic_ns();
    // A far deadline: the six left are there already, so no waiting.
    let w = r.wait(Some(t0 + 2 * FAR), 60_000, 100, |d| got.push(d[0])).unwrap();
    assert_eq!(w.datagrams, 6);
    assert!(crate::syscall_count::monotonic_ns() < t0 + FAR, "waited for the deadline");
    assert_eq!(got, (0..10).collect::<Vec<_>>());
}

#[test]
fn one_wait_takes_more_frames_than_there_are_buffers() {
    let (a, b) = UnixDatagram::pair().unwrap();
    let poller = Poller::new().unwrap();
    // 4 buffers, 9 datagrams queued (the socket holds up to 10).
    let mut r = ring_on(&a, &poller, 4, 256);
    for k in 0u8..9 {
        b.send(&[k]).unwrap();
    }
    let mut got = Vec::new();
    let w = r.wait(None, 1000, 100, |d| got.push(d[0])).unwrap();
    assert_eq!(w.datagrams, 9, "{got:?}");
    assert_eq!(got, (0..9).collect::<Vec<_>>());
}

#[test]
fn waits_until_the_deadline() {
    let (a, _b) = UnixDatagram::pair().unwrap();
    let poller = Poller::new().unwrap();
    let mut r = ring_on(&a, &poller, 8, 256);
    let t0 = crate::syscall_count::monotonic_ns();
    let w = r.wait(Some(t0 + 3_000_000), 1000, 64, |_| panic!("nothing was sent")).unwrap();
    assert_eq!(w, Woken::default());
    assert!(crate::syscall_count::monotonic_ns() - t0 >= 3_000_000, "woke before the deadline");
}

#[test]
fn sends_go_out_in_order_with_the_next_wait() {
    let (a, b) = UnixDatagram::pair().unwrap();
    b.set_nonblocking(true).unwrap();
    let poller = Poller::new().unwrap();
    let mut r = ring_on(&a, &poller, 8, 256);
    r.queue_send(b"one").unwrap();
    r.queue_send(b"two").unwrap();
    let mut buf = [0u8; 16];
    assert!(b.recv(&mut buf).is_err(), "queued, not sent yet");
    r.wait(Some(0), 10, 64, |_| {}).unwrap();
    assert_eq!(b.recv(&mut buf).unwrap(), 3);
    assert_eq!(&buf[..3], b"one");
    assert_eq!(b.recv(&mut buf).unwrap(), 3);
    assert_eq!(&buf[..3], b"two");
    r.queue_send(b"three").unwrap();
    r.flush().unwrap();
    assert_eq!(b.recv(&mut buf).unwrap(), 5);
}

#[test]
fn a_timed_send_leaves_at_its_time_within_one_wait() {
    let (a, b) = UnixDatagram::pair().unwrap();
    let poller = Poller::new().unwrap();
    let mut r = ring_on(&a, &poller, 8, 256);
    assert!(r.can_time_sends(), "Linux 5.17 or later");
    let receiver = std::thread::spawn(move || {
        let mut buf = [0u8; 16];
        let n = b.recv(&mut buf).unwrap();
        (crate::syscall_count::monotonic_ns(), buf[..n].to_vec())
    });
    let t0 = crate::syscall_count::monotonic_ns();
    let due = t0 + 20_000_000;
    r.queue_send_at(b"later", due).unwrap();
    r.timed_may_hold_until(due);
    assert_eq!(r.timed_pending(), 1);
    // One wait until 50 ms: the send goes out at 20 ms inside it, and does not end it.
    let w = r.wait(Some(t0 + 50_000_000), 1000, 64, |_| panic!("nothing comes")).unwrap();
    assert_eq!(w, Woken::default());
    assert!(
        crate::syscall_count::monotonic_ns() >= t0 + 50_000_000,
        "the timed send ended the wait"
    );
    let (got_at, got) = receiver.join().unwrap();
    assert_eq!(got, b"later");
    assert!(got_at >= due, "sent {} µs early", (due - got_at) / 1000);
    assert_eq!(r.timed_pending(), 0);
}

/// A thread that sends `d` on `b` at `at` (CLOCK_MONOTONIC).
fn send_at(b: UnixDatagram, at: u64, d: &'static [u8]) -> std::thread::JoinHandle<UnixDatagram> {
    std::thread::spawn(move || {
        let now = crate::syscall_count::monotonic_ns();
        std::thread::sleep(std::time::Duration::from_nanos(at.saturating_sub(now)));
        b.send(d).unwrap();
        b
    })
}

#[test]
fn timed_sends_due_after_the_hold_do_not_end_a_wait() {
    let (a, b) = UnixDatagram::pair().unwrap();
    let poller = Poller::new().unwrap();
    let mut r = ring_on(&a, &poller, 8, 256);
    let t0 = crate::syscall_count::monotonic_ns();
    for k in 1..=5u8 {
        r.queue_send_at(&[k], t0 + k as u64 * 4_000_000).unwrap();
    }
    // No hold: a datagram would end the wait at once; the five sends (ten
    // completions) must not.
    r.timed_may_hold_until(0);
    let w = r.wait(Some(t0 + 40_000_000), 1000, 64, |_| panic!("nothing comes")).unwrap();
    assert_eq!(w, Woken::default());
    assert!(crate::syscall_count::monotonic_ns() >= t0 + 40_000_000, "a timed send ended the wait");
    assert_eq!(r.timed_pending(), 0);
    let mut buf = [0u8; 4];
    for k in 1..=5u8 {
        assert_eq!(b.recv(&mut buf).unwrap(), 1);
        assert_eq!(buf[0], k);
    }
}

#[test]
fn a_datagram_ends_a_wait_at_once_while_timed_sends_due_later_are_pending() {
    let (a, b) = UnixDatagram::pair().unwrap();
    let poller = Poller::new().unwrap();
    let mut r = ring_on(&a, &poller, 8, 256);
    let t0 = crate::syscall_count::monotonic_ns();
    r.queue_send_at(b"t1", t0 + 5_000_000).unwrap();
    r.queue_send_at(b"t2", t0 + FAR).unwrap();
    r.timed_may_hold_until(0);
    let sender = send_at(b, t0 + 20_000_000, b"frame");
    let mut got = Vec::new();
    let w = r.wait(Some(t0 + 2 * FAR), 60_000, 64, |d| got.push(d.to_vec())).unwrap();
    let woke = crate::syscall_count::monotonic_ns();
    assert_eq!((w.datagrams, got), (1, vec![b"frame".to_vec()]));
    // Not ended by t1's completion (before the datagram), nor by t2 or the deadline.
    assert!(woke >= t0 + 20_000_000, "woke {} ms after the start", (woke - t0) / 1_000_000);
    assert!(woke < t0 + FAR, "the datagram did not end the wait");
    assert_eq!(r.timed_pending(), 1, "t1 went out, t2 is still to go");
    // The bells were rung; the next wait, with t2 pending, is again ended by a
    // datagram only.
    let b = sender.join().unwrap();
    let sender = send_at(b, t0 + 60_000_000, b"again");
    let w = r.wait(Some(t0 + 2 * FAR), 60_000, 64, |_| {}).unwrap();
    assert_eq!(w.datagrams, 1);
    assert!(crate::syscall_count::monotonic_ns() < t0 + FAR, "the datagram did not end the wait");
    let b = sender.join().unwrap();
    let mut buf = [0u8; 8];
    let n = b.recv(&mut buf).unwrap();
    assert_eq!(&buf[..n], b"t1");
    // t2 is still due (dropping the ring cancels it).
    b.set_nonblocking(true).unwrap();
    assert!(b.recv(&mut buf).is_err(), "t2 went out before it was due");
}

#[test]
fn a_datagram_waits_for_the_timed_sends_due_by_the_hold_only() {
    let (a, b) = UnixDatagram::pair().unwrap();
    let poller = Poller::new().unwrap();
    let mut r = ring_on(&a, &poller, 8, 256);
    let t0 = crate::syscall_count::monotonic_ns();
    r.queue_send_at(b"held", t0 + 30_000_000).unwrap();
    r.queue_send_at(b"later", t0 + FAR).unwrap();
    r.timed_may_hold_until(t0 + 30_000_000);
    let sender = send_at(b, t0 + 5_000_000, b"frame");
    let w = r.wait(Some(t0 + 2 * FAR), 60_000, 64, |_| {}).unwrap();
    let woke = crate::syscall_count::monotonic_ns() - t0;
    assert_eq!(w.datagrams, 1);
    assert!(
        woke >= 30_000_000,
        "the datagram ended the wait before the held send was out ({} ms)",
        woke / 1_000_000
    );
    assert!(woke < FAR, "the send due after the hold held the datagram back");
    assert_eq!(r.timed_pending(), 1);
    drop(sender.join().unwrap());
}

#[test]
fn a_control_client_ends_a_wait_while_timed_sends_due_later_are_pending() {
    let (a, _b) = UnixDatagram::pair().unwrap();
    let poller = Poller::new().unwrap();
    let (c, mut d) = UnixStream::pair().unwrap();
    poller.add(c.as_raw_fd(), 9).unwrap();
    let mut r = ring_on(&a, &poller, 8, 256);
    let t0 = crate::syscall_count::monotonic_ns();
    r.queue_send_at(b"later", t0 + FAR).unwrap();
    let writer = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(20));
        use std::io::Write;
        d.write_all(b"x").unwrap();
        d
    });
    let w = r.wait(Some(t0 + 2 * FAR), 60_000, 64, |_| {}).unwrap();
    assert!(w.control);
    assert!(
        crate::syscall_count::monotonic_ns() < t0 + FAR,
        "the control socket did not end the wait"
    );
    assert_eq!(r.timed_pending(), 1);
    drop(writer.join().unwrap());
}

#[test]
fn timed_sends_go_out_on_flush_and_their_slots_are_reused() {
    let (a, b) = UnixDatagram::pair().unwrap();
    let poller = Poller::new().unwrap();
    let mut r = ring_on(&a, &poller, 8, 256);
    for round in 0..3u8 {
        let t0 = crate::syscall_count::monotonic_ns();
        r.queue_send_at(&[round, 1], t0 + 2_000_000).unwrap();
        r.queue_send_at(&[round, 0], t0 + 1_000_000).unwrap();
        r.flush().unwrap();
        assert!(crate::syscall_count::monotonic_ns() >= t0 + 2_000_000);
        let mut buf = [0u8; 4];
        assert_eq!(b.recv(&mut buf).unwrap(), 2);
        assert_eq!(buf[..2], [round, 0], "the earlier one first");
        assert_eq!(b.recv(&mut buf).unwrap(), 2);
        assert_eq!(buf[..2], [round, 1]);
    }
    assert_eq!(r.timed.len(), 2, "two slots, reused");
}

#[test]
fn a_failed_send_is_reported() {
    let (a, b) = UnixDatagram::pair().unwrap();
    drop(b);
    let poller = Poller::new().unwrap();
    let mut r = ring_on(&a, &poller, 8, 256);
    r.queue_send(b"lost").unwrap();
    assert!(r.flush().is_err(), "the peer is gone");
}

#[test]
fn control_sockets_wake_it() {
    let (a, _b) = UnixDatagram::pair().unwrap();
    let poller = Poller::new().unwrap();
    let (c, mut d) = UnixStream::pair().unwrap();
    poller.add(c.as_raw_fd(), 9).unwrap();
    let mut r = ring_on(&a, &poller, 8, 256);
    use std::io::Write;
    d.write_all(b"x").unwrap();
    let w = r.wait(None, 1000, 64, |_| {}).unwrap();
    assert!(w.control);
    // Level: still unread, so the re-armed poll fires again.
    let w = r.wait(None, 1000, 64, |_| {}).unwrap();
    assert!(w.control);
}

#[test]
fn a_datagram_longer_than_a_buffer_is_counted_and_dropped() {
    let (a, b) = UnixDatagram::pair().unwrap();
    let poller = Poller::new().unwrap();
    let mut r = ring_on(&a, &poller, 8, 64);
    b.send(&[7u8; 200]).unwrap();
    b.send(&[8u8; 10]).unwrap();
    let mut got = Vec::new();
    let deadline = crate::syscall_count::monotonic_ns() + 2_000_000_000;
    while got.is_empty() && crate::syscall_count::monotonic_ns() < deadline {
        r.wait(None, 100, 64, |d| got.push(d.to_vec())).unwrap();
    }
    assert_eq!(got, vec![vec![8u8; 10]]);
    assert_eq!(r.truncated, 1);
}
