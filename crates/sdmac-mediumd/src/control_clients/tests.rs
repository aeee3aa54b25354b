//! The control clients served on a real control socket: requests and replies,
//! subscriptions and the truth stream, slow and misbehaving clients.

use super::*;
use crate::control::{encode_request, UpdateResult};
use crate::control_socket::Access;
use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;

/// Polls and serves until `done` holds (at most 5 s); every request succeeds.
fn serve_until(
    c: &mut Clients,
    poller: &mut Poller,
    stop: &AtomicBool,
    mut done: impl FnMut(&Clients) -> bool,
) {
    let t0 = std::time::Instant::now();
    while !done(c) {
        assert!(t0.elapsed().as_secs() < 5, "timed out");
        let ready = poller.wait(None, 50).unwrap().to_vec();
        c.accept(&ready, poller, 6);
        c.serve(&ready, poller, stop, 6, |_| Applied {
            result: UpdateResult::Success,
            id: 0,
            stop: false,
            note: None,
        });
    }
}

/// A client whose credentials are refused, and one that sends bytes that are no
/// request, are closed; a client connected before and after them is served.
#[test]
fn refused_and_garbage_clients_do_not_affect_others() {
    assert!(
        unsafe { libc::geteuid() } == 0,
        "this test needs root, to run a client under uid 65534"
    );
    let dir = std::env::temp_dir().join(format!("sdmac-clients-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = dir.join("ctl.sock");
    let socket = ControlSocket::open(&path, Access::default()).unwrap();
    // Let the kernel pass every user, so that the credentials check decides.
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o666)).unwrap();
    let mut poller = Poller::new().unwrap();
    let mut c = Clients::new(Some(socket), &poller).unwrap();
    let stop = AtomicBool::new(false);
    let mut good = UnixStream::connect(&path).unwrap();
    serve_until(&mut c, &mut poller, &stop, |c| !c.clients.is_empty());
    // uid 65534 connects, sends a valid request and waits for a reply: it gets EOF.
    let script = "import socket,sys\ns=socket.socket(socket.AF_UNIX)\ns.connect(sys.argv[1])\ntry:\n  s.sendall(bytes([5,0,0,0,1]))\n  r=s.recv(64)\nexcept OSError:\n  r=b''\nsys.stdout.write(repr(r))";
    let mut child = std::process::Command::new("python3")
        .args(["-c", script, path.to_str().unwrap()])
        .uid(65534)
        .gid(65534)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut garbage = UnixStream::connect(&path).unwrap();
    garbage.write_all(&[42, 1, 2, 3]).unwrap();
    serve_until(&mut c, &mut poller, &stop, |c| {
        c.next >= FIRST_CLIENT + 2 && c.clients.len() == 1 && child.try_wait().unwrap().is_some()
    });
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "b''",
        "the refused client got no reply ({})",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut b = [0u8; 8];
    assert_eq!(garbage.read(&mut b).unwrap(), 0, "the garbage client was closed");
    // The first client is still served.
    let req = encode_request(&Request::DelById(7));
    good.write_all(&req).unwrap();
    good.set_nonblocking(true).unwrap();
    let mut reply = Vec::new();
    serve_until(&mut c, &mut poller, &stop, |_| {
        let mut b = [0u8; 64];
        if let Ok(n) = good.read(&mut b) {
            reply.extend_from_slice(&b[..n]);
        }
        reply.len() >= req.len() + 2
    });
    assert_eq!(reply, encode_reply(&req, UpdateResult::Success, 0).unwrap());
    drop(c);
    assert!(!path.exists(), "the socket file goes with the daemon");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A medium with two radios whose link A → B loses 30 % of frames.
fn lossy_medium() -> crate::hwsim_medium::HwsimMedium {
    use crate::hwsim_medium::{HwsimMedium, LinkModel, Setup};
    HwsimMedium::new(Setup {
        interfaces: vec![A, B],
        model: LinkModel::Prob { default_prob: 0.0, links: vec![(A, B, 0.3)] },
        ..Setup::default()
    })
}

const A: sdmac_types::MacAddress = sdmac_types::MacAddress::new([2, 0, 0, 0, 0, 1]);
const B: sdmac_types::MacAddress = sdmac_types::MacAddress::new([2, 0, 0, 0, 0, 2]);

/// A data frame A → B as the kernel hands it over.
fn frame_a_to_b(seq: u16) -> Vec<u8> {
    let mut f = vec![0x08, 0, 0, 0];
    f.extend_from_slice(B.as_bytes());
    f.extend_from_slice(A.as_bytes());
    f.extend_from_slice(A.as_bytes());
    f.extend_from_slice(&(seq << 4).to_le_bytes());
    f.extend_from_slice(&[0xaa; 100]);
    f
}

fn temp_socket(name: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("sdmac-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir(&dir).unwrap();
    let path = dir.join("ctl.sock");
    (dir, path)
}

/// The blocking client against the daemon's socket handling and medium: set and
/// get come back, and the subscriber gets one record per frame answered, each
/// agreeing with the status the kernel got.
#[test]
fn the_client_sets_gets_and_reads_one_record_per_frame() {
    use crate::hwsim_medium::{hw_addr_of, KernelFrame, Output, StatusEcho};
    use sdmac_control::client::Client;
    use sdmac_control::ext::{Edca, TruthOutcome};
    let (dir, path) = temp_socket("truth-client");
    let mut poller = Poller::new().unwrap();
    let mut c = Clients::new(Some(ControlSocket::open(&path, Access::default()).unwrap()), &poller)
        .unwrap();
    c.truth_available = true;
    let stop = AtomicBool::new(false);
    let mut m = lossy_medium();
    let n = 300u64;
    let p2 = path.clone();
    let client = std::thread::spawn(move || {
        let mut cl = Client::connect(&p2).unwrap();
        let p = Edca { aifsn: 4, cw_min: 63, cw_max: 1023, txop_limit_us: 0 };
        cl.set_edca(A, 1, p).unwrap();
        assert_eq!(cl.get_edca(A, 1).unwrap(), p);
        let bad = cl.set_edca(A, 7, p).unwrap_err();
        assert!(
            matches!(
                bad,
                sdmac_control::client::ClientError::Refused(sdmac_control::ext::ExtResult::BadAc)
            ),
            "{bad}"
        );
        cl.set_error_prob(A, B, 0.3).unwrap();
        assert!((cl.get_link(A, B).unwrap().error_prob - 0.3).abs() < 1e-9);
        cl.set_ack_timeout(A, 60_000).unwrap();
        assert_eq!(cl.get_ack_timeout(A).unwrap(), 60_000);
        cl.set_ack_timeout(A, 0).unwrap();
        cl.subscribe(&[A]).unwrap();
        let mut got = Vec::new();
        while (got.len() as u64) < n {
            let r = cl
                .next_record(Some(std::time::Duration::from_secs(10)))
                .unwrap()
                .expect("a record in time");
            got.push(r);
        }
        cl.unsubscribe().unwrap();
        got
    });
    let origin = crate::syscall_count::monotonic_ns();
    let mut statuses = std::collections::HashMap::new();
    let mut records = Vec::new();
    let mut sent = 0u64;
    let mut t = 0u64;
    let t0 = std::time::Instant::now();
    while !client.is_finished() {
        assert!(t0.elapsed().as_secs() < 30, "timed out");
        let ready = poller.wait(None, 5).unwrap().to_vec();
        c.accept(&ready, &poller, 6);
        c.serve_with(&ready, &poller, &stop, 6, &mut m);
        m.set_truth(c.wants_truth());
        if c.wants_truth() && sent < n {
            // One frame at a time, each answered before the next.
            let f = frame_a_to_b(sent as u16);
            let mut out = Vec::new();
            let kf = KernelFrame {
                transmitter: hw_addr_of(A),
                frame: &f,
                no_ack: false,
                freq: 2412,
                rates: vec![(sdmac_phy::Rate::Ofdm54, 1)].into(),
                cookie: sent,
                echo: StatusEcho { rate_idx: [0, -1, -1, -1], flags: 0 },
            };
            m.on_frame(t, kf, &mut out);
            t += 5_000_000;
            m.advance(t, &mut out);
            for o in out {
                if let Output::TxStatus { cookie, acked, .. } = o {
                    statuses.insert(cookie, acked);
                }
            }
            sent += 1;
        }
        m.take_truth(&mut records);
        c.publish(&mut records, origin, &poller);
    }
    let got = client.join().unwrap();
    assert_eq!(got.len() as u64, n);
    assert_eq!(statuses.len() as u64, n);
    for (k, r) in got.iter().enumerate() {
        assert_eq!(r.cookie, k as u64, "in order, none twice, none missing");
        assert_eq!(r.lost, 0);
        assert_eq!(statuses[&r.cookie], r.outcome == TruthOutcome::Acked);
        assert!(matches!(r.outcome, TruthOutcome::Acked | TruthOutcome::DataLost));
        assert_eq!(r.seq_ctrl, (k as u16) << 4);
        assert!(r.t_arrival_ns >= origin, "times on CLOCK_MONOTONIC");
    }
    assert_eq!(c.truth_lost(), 0);
    drop(c);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A subscriber that never reads holds nobody up: records past its backlog are
/// dropped and counted, a Mininet-WiFi client is answered meanwhile, and what the
/// subscriber finally reads says how many it lost.
#[test]
fn a_subscriber_that_never_reads_stops_nothing() {
    use sdmac_control::ext::{
        encode_ext_request, Attempts, ExtRequest, TruthCause, TruthOutcome, TruthRecord,
    };
    use sdmac_control::stream::{Incoming, IncomingDecoder};
    let (dir, path) = temp_socket("truth-stuck");
    let mut poller = Poller::new().unwrap();
    let mut c = Clients::new(Some(ControlSocket::open(&path, Access::default()).unwrap()), &poller)
        .unwrap();
    c.truth_available = true;
    c.outbox_limit = 16 << 10;
    let stop = AtomicBool::new(false);
    let mut m = lossy_medium();
    let mut stuck = UnixStream::connect(&path).unwrap();
    let mut mininet = UnixStream::connect(&path).unwrap();
    serve_until_with(&mut c, &mut poller, &stop, &mut m, |c| c.clients.len() == 2);
    stuck
        .write_all(&encode_ext_request(&ExtRequest::Subscribe { tag: 1, transmitters: vec![] }))
        .unwrap();
    serve_until_with(&mut c, &mut poller, &stop, &mut m, |c| c.wants_truth());
    let rec = |cookie| TruthRecord {
        lost: 0,
        transmitter: A,
        ta: A,
        ra: B,
        seq_ctrl: 0,
        cookie,
        ac: 1,
        no_ack: false,
        delivered: true,
        outcome: TruthOutcome::Acked,
        cause: TruthCause::None,
        n_entries: 1,
        attempts: [Attempts::default(); 4],
        t_arrival_ns: 0,
        t_first_start_ns: 0,
        t_end_ns: 0,
        signal_dbm: -40,
    };
    let total = 50_000u64;
    let t0 = std::time::Instant::now();
    for k in 0..total {
        let mut batch = vec![rec(k)];
        c.publish(&mut batch, 0, &poller);
    }
    // Publishing into a stuck subscriber drops (counted) rather than waits: the loop
    // ends, and well within a minute (a guard far beyond any stall of this host).
    assert!(t0.elapsed().as_secs() < 60, "publishing waited for the subscriber");
    assert!(c.truth_lost() > 0);
    // The Mininet-WiFi client is served as ever.
    let req = encode_request(&Request::DelById(1));
    mininet.write_all(&req).unwrap();
    mininet.set_nonblocking(true).unwrap();
    let want = encode_reply(&req, UpdateResult::Success, 0).unwrap();
    let mut reply = Vec::new();
    serve_until_with(&mut c, &mut poller, &stop, &mut m, |_| {
        let mut b = [0u8; 64];
        if let Ok(n) = mininet.read(&mut b) {
            reply.extend_from_slice(&b[..n]);
        }
        reply.len() >= want.len()
    });
    assert_eq!(reply, want);
    // Now the subscriber reads: its reply, then records; a last one after the
    // loss says how many were lost; delivered + lost = published.
    let lost_so_far = c.truth_lost();
    stuck.set_nonblocking(true).unwrap();
    let mut d = IncomingDecoder::new();
    let mut delivered = 0u64;
    let mut lost = 0u64;
    let mut last = None;
    let mut published_after = false;
    let t1 = std::time::Instant::now();
    while last != Some(total) {
        assert!(t1.elapsed().as_secs() < 10, "records delivered {delivered}, lost {lost}");
        let ready = poller.wait(None, 5).unwrap().to_vec();
        c.serve_with(&ready, &poller, &stop, 6, &mut m);
        if !published_after && c.clients.values().all(|x| x.outbox.pending() == 0) {
            let mut batch = vec![rec(total)];
            c.publish(&mut batch, 0, &poller);
            published_after = true;
        }
        let mut b = [0u8; 8192];
        if let Ok(n) = stuck.read(&mut b) {
            d.push(&b[..n]);
        }
        while let Some(m) = d.next_message().unwrap() {
            if let Incoming::Truth(r) = m {
                delivered += 1;
                lost += r.lost as u64;
                last = Some(r.cookie);
            }
        }
    }
    assert_eq!(lost, lost_so_far, "every loss is told");
    assert_eq!(delivered + lost, total + 1);
    drop(c);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Where no truth is made (the threaded loop, which serves with `serve`), a
/// subscription and every extension set/get are answered "not supported", and
/// Mininet-WiFi requests as ever.
#[test]
fn without_truth_the_extension_is_refused_as_not_supported() {
    use sdmac_control::ext::{encode_ext_request, ExtRequest, ExtResult};
    use sdmac_control::stream::{Incoming, IncomingDecoder};
    let (dir, path) = temp_socket("truth-none");
    let mut poller = Poller::new().unwrap();
    let mut c = Clients::new(Some(ControlSocket::open(&path, Access::default()).unwrap()), &poller)
        .unwrap();
    let stop = AtomicBool::new(false);
    let mut s = UnixStream::connect(&path).unwrap();
    serve_until(&mut c, &mut poller, &stop, |c| c.clients.len() == 1);
    s.write_all(&encode_ext_request(&ExtRequest::Subscribe { tag: 1, transmitters: vec![] }))
        .unwrap();
    s.write_all(&encode_ext_request(&ExtRequest::GetEdca { tag: 2, station: A, ac: 1 })).unwrap();
    let req = encode_request(&Request::Add(A));
    s.write_all(&req).unwrap();
    s.set_nonblocking(true).unwrap();
    let mut d = IncomingDecoder::new();
    let mut got = Vec::new();
    serve_until(&mut c, &mut poller, &stop, |_| {
        let mut b = [0u8; 256];
        if let Ok(n) = s.read(&mut b) {
            d.push(&b[..n]);
        }
        loop {
            match d.next_message() {
                Ok(Some(m)) => got.push(m),
                Ok(None) => break,
                Err(e) => panic!("{e} after {got:?}"),
            }
        }
        got.len() == 3
    });
    assert!(!c.wants_truth());
    match (&got[0], &got[1], &got[2]) {
        (Incoming::Reply(a), Incoming::Reply(b), Incoming::Mininet(m)) => {
            assert_eq!((a.tag, a.result), (1, ExtResult::NotSupported));
            assert_eq!((b.tag, b.result), (2, ExtResult::NotSupported));
            assert_eq!(m, &encode_reply(&req, UpdateResult::Success, 0).unwrap());
        }
        other => panic!("{other:?}"),
    }
    drop(c);
    let _ = std::fs::remove_dir_all(&dir);
}

/// As `serve_until`, with the medium as handler.
fn serve_until_with(
    c: &mut Clients,
    poller: &mut Poller,
    stop: &AtomicBool,
    m: &mut crate::hwsim_medium::HwsimMedium,
    mut done: impl FnMut(&Clients) -> bool,
) {
    let t0 = std::time::Instant::now();
    while !done(c) {
        assert!(t0.elapsed().as_secs() < 5, "timed out");
        let ready = poller.wait(None, 50).unwrap().to_vec();
        c.accept(&ready, poller, 6);
        c.serve_with(&ready, poller, stop, 6, m);
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 48, ..Default::default() })]

    /// Whatever bytes one client sends, another client's request is answered.
    #[test]
    fn any_bytes_from_one_client_leave_the_others_served(junk in proptest::collection::vec(proptest::prelude::any::<u8>(), 1..600)) {
        let dir = std::env::temp_dir().join(format!("sdmac-clients-prop-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir(&dir).unwrap();
        let path = dir.join("ctl.sock");
        let mut poller = Poller::new().unwrap();
        let mut c = Clients::new(Some(ControlSocket::open(&path, Access::default()).unwrap()), &poller).unwrap();
        let stop = AtomicBool::new(false);
        let mut good = UnixStream::connect(&path).unwrap();
        let mut bad = UnixStream::connect(&path).unwrap();
        serve_until(&mut c, &mut poller, &stop, |c| c.clients.len() == 2);
        let _ = bad.write_all(&junk);
        let req = encode_request(&Request::Add(sdmac_types::MacAddress([2, 0, 0, 0, 0, 9])));
        good.write_all(&req).unwrap();
        good.set_nonblocking(true).unwrap();
        let mut reply = Vec::new();
        let want = encode_reply(&req, UpdateResult::Success, 0).unwrap();
        serve_until(&mut c, &mut poller, &stop, |_| {
            let mut b = [0u8; 64];
            if let Ok(n) = good.read(&mut b) {
                reply.extend_from_slice(&b[..n]);
            }
            reply.len() >= want.len()
        });
        proptest::prop_assert_eq!(reply, want);
        drop(c);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
