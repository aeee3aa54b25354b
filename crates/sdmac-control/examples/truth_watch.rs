//! `truth_watch SOCKET A B P`: a client of sdmac-mediumd's control extension, for the
//! VM test (testbed/control_truth.sh).
//!
//! 1. Sets the error probability of the link A → B to P (Mininet-WiFi's request) and
//!    reads it back (sdmac's), sets and reads back A's EDCA parameters of BE and its
//!    ACK timeout (then back to the PHY's), and checks that bad values are refused.
//! 2. Subscribes to every frame's truth and prints `READY`.
//! 3. Reads records until the daemon closes the socket, then prints counts: records,
//!    records lost, duplicates (same transmitter and cookie), outcomes, and for the
//!    unicast frames A → B their attempts and how many were acknowledged.
//!
//! Prints `CHECK OK: …` per check passed, `CHECK FAIL: …` and exits 1 otherwise.
//!
//! `truth_watch --stall SOCKET`: subscribes to every frame, prints `STALLED`, and
//! never reads again (a subscriber that is stuck), until killed.

use sdmac_control::client::{Client, ClientError};
use sdmac_control::ext::{Edca, ExtResult, TruthOutcome};
use std::collections::{BTreeMap, HashSet};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

fn mac(s: &str) -> Result<sdmac_types::MacAddress, String> {
    s.parse().map_err(|e| format!("{s:?} is not a MAC address: {e}"))
}

fn check(what: &str, ok: bool) -> Result<(), String> {
    if ok {
        println!("CHECK OK: {what}");
        Ok(())
    } else {
        Err(what.to_string())
    }
}

fn stall(sock: &str) -> Result<(), String> {
    let mut c = Client::connect(Path::new(sock)).map_err(|x| format!("{sock}: {x}"))?;
    c.subscribe(&[]).map_err(|e| e.to_string())?;
    println!("STALLED");
    std::io::stdout().flush().ok();
    loop {
        std::thread::sleep(std::time::Duration::from_secs(3600));
    }
}

fn run(args: &[String]) -> Result<(), String> {
    if let [flag, sock] = args {
        if flag == "--stall" {
            return stall(sock);
        }
    }
    let [sock, a, b, p] = args else { return Err("usage: truth_watch SOCKET A B P".into()) };
    let (a, b) = (mac(a)?, mac(b)?);
    let p: f64 = p.parse().map_err(|_| format!("{p:?} is not a probability"))?;
    let e = |e: ClientError| e.to_string();
    let mut c = Client::connect(Path::new(sock)).map_err(|x| format!("{sock}: {x}"))?;
    c.set_error_prob(a, b, p).map_err(e)?;
    let link = c.get_link(a, b).map_err(e)?;
    check(
        &format!("get link returns the error probability set ({:.6} for {p})", link.error_prob),
        (link.error_prob - p).abs() < 1e-6,
    )?;
    let edca = Edca { aifsn: 3, cw_min: 15, cw_max: 1023, txop_limit_us: 0 };
    c.set_edca(a, 1, edca).map_err(e)?;
    let got = c.get_edca(a, 1).map_err(e)?;
    check(&format!("get EDCA returns what set wrote ({got:?})"), got == edca)?;
    let bad = c.set_edca(a, 1, Edca { cw_min: 16, ..edca });
    check(
        "a CWmin that is no 2^k-1 is refused (out of range)",
        matches!(bad, Err(ClientError::Refused(ExtResult::OutOfRange))),
    )?;
    let bad = c.get_edca(sdmac_types::MacAddress::new([2, 0x99, 0, 0, 0, 0]), 1);
    check(
        "an unknown station is refused",
        matches!(bad, Err(ClientError::Refused(ExtResult::UnknownStation))),
    )?;
    c.set_ack_timeout(a, 80_000).map_err(e)?;
    let t = c.get_ack_timeout(a).map_err(e)?;
    check(&format!("get ACK timeout returns what set wrote ({t} ns)"), t == 80_000)?;
    c.set_ack_timeout(a, 0).map_err(e)?;
    c.subscribe(&[]).map_err(e)?;
    println!("READY");
    std::io::stdout().flush().ok();

    let mut records = 0u64;
    let mut lost = 0u64;
    let mut seen = HashSet::new();
    let mut duplicates = 0u64;
    let mut outcomes: BTreeMap<&'static str, u64> = BTreeMap::new();
    let mut causes: BTreeMap<&'static str, u64> = BTreeMap::new();
    let (mut ab_frames, mut ab_attempts, mut ab_acked, mut ab_ld, mut ab_la) =
        (0u64, 0u64, 0u64, 0u64, 0u64);
    loop {
        let r = match c.next_record(None) {
            Ok(Some(r)) => r,
            Ok(None) => continue,
            Err(ClientError::Io(x)) if x.kind() == std::io::ErrorKind::UnexpectedEof => break,
            Err(x) => return Err(x.to_string()),
        };
        records += 1;
        lost += r.lost as u64;
        if !seen.insert((r.transmitter, r.cookie)) {
            duplicates += 1;
        }
        *outcomes.entry(r.outcome.name()).or_default() += 1;
        if r.ta == a && r.ra == b && !r.no_ack {
            ab_frames += 1;
            ab_attempts += r.total_attempts() as u64;
            match r.outcome {
                TruthOutcome::Acked => ab_acked += 1,
                TruthOutcome::DataLost => ab_ld += 1,
                TruthOutcome::AckLost => ab_la += 1,
                _ => {}
            }
            if r.outcome != TruthOutcome::Acked {
                *causes.entry(r.cause.name()).or_default() += 1;
            }
        }
    }
    println!("RECORDS {records}");
    println!("LOST {lost}");
    println!("DUPLICATES {duplicates}");
    for (o, n) in &outcomes {
        println!("OUTCOME {o} {n}");
    }
    println!("AB frames {ab_frames} attempts {ab_attempts} acked {ab_acked} ld {ab_ld} la {ab_la}");
    for (k, n) in &causes {
        println!("AB_CAUSE {k} {n}");
    }
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(what) => {
            println!("CHECK FAIL: {what}");
            ExitCode::FAILURE
        }
    }
}
