//! `sdmac-mediumctl`: a client of the control socket, speaking Mininet-WiFi's protocol
//! (for scripts and tests; works with sdmac-mediumd and with wmediumd -s).
//!
//! sdmac-mediumctl [-s SOCKET] add MAC | del MAC | del-id ID | snr MAC MAC DB |
//!                 errprob MAC MAC P | pos MAC X Y Z | txpower MAC DBM | gain MAC DBI |
//!                 height MAC M | medium MAC ID | shutdown
//! sdmac-mediumctl new-radios COUNT
//! Prints the result (success, not_found, duplicate, wrong_mode; and the id for add);
//! exits 0 on success, 1 otherwise. `new-radios` does not use the control socket: it
//! asks mac80211_hwsim itself (generic netlink, root) for COUNT more radios — its
//! `radios=` module parameter stops at 100 — and prints their indices.

#![warn(missing_docs)]

use sdmac_mediumd::control::{encode_request, request_len, types, Request};
use sdmac_types::MacAddress;
use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::process::ExitCode;

fn mac(s: &str) -> Result<MacAddress, String> {
    let parts: Vec<&str> = s.split(':').collect();
    if parts.len() != 6 {
        return Err(format!("{s:?} is not a MAC address"));
    }
    let mut m = [0u8; 6];
    for (k, p) in parts.iter().enumerate() {
        m[k] = u8::from_str_radix(p, 16).map_err(|_| format!("{s:?} is not a MAC address"))?;
    }
    Ok(MacAddress(m))
}

fn num<T: std::str::FromStr>(s: &str) -> Result<T, String> {
    s.parse().map_err(|_| format!("{s:?} is not a number"))
}

fn parse(args: &[String]) -> Result<Request, String> {
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    Ok(match a.as_slice() {
        ["add", m] => Request::Add(mac(m)?),
        ["del", m] => Request::DelByMac(mac(m)?),
        ["del-id", id] => Request::DelById(num(id)?),
        ["snr", f, t, v] => Request::Snr { from: mac(f)?, to: mac(t)?, snr_db: num(v)? },
        ["errprob", f, t, p] => Request::ErrProb { from: mac(f)?, to: mac(t)?, prob: num(p)? },
        ["pos", m, x, y, z] => {
            Request::Position { mac: mac(m)?, x: num(x)?, y: num(y)?, z: num(z)? }
        }
        ["txpower", m, v] => Request::TxPower { mac: mac(m)?, dbm: num(v)? },
        ["gain", m, v] => Request::Gain { mac: mac(m)?, dbi: num(v)? },
        ["height", m, v] => Request::Height { mac: mac(m)?, m: num(v)? },
        ["medium", m, v] => Request::Medium { mac: mac(m)?, id: num(v)? },
        ["shutdown"] => Request::Shutdown,
        _ => return Err(format!("cannot read the command {a:?}")),
    })
}

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut path = "/var/run/wmediumd.sock".to_string();
    if args.first().map(String::as_str) == Some("-s") && args.len() > 1 {
        path = args[1].clone();
        args.drain(..2);
    }
    if let ["new-radios", count] = args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        let Ok(count) = count.parse::<u32>() else {
            eprintln!("sdmac-mediumctl: new-radios: {count:?} is not a count");
            return ExitCode::from(2);
        };
        return match sdmac_mediumd::radio_creation::new_radios(count) {
            Ok(ids) => {
                println!("{}", ids.iter().map(u32::to_string).collect::<Vec<_>>().join(" "));
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("sdmac-mediumctl: new-radios: {e}");
                ExitCode::FAILURE
            }
        };
    }
    let req = match parse(&args) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("sdmac-mediumctl: {e}");
            return ExitCode::from(2);
        }
    };
    let raw = encode_request(&req);
    let mut s = match UnixStream::connect(&path) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("sdmac-mediumctl: {path}: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Err(e) = s.write_all(&raw) {
        eprintln!("sdmac-mediumctl: write: {e}");
        return ExitCode::FAILURE;
    }
    if raw[0] == types::SHUTDOWN {
        println!("sent");
        return ExitCode::SUCCESS;
    }
    let want = match raw[0] {
        types::SPECPROB => 1 + 12 + 1,
        types::ADD => 1 + request_len(types::ADD).unwrap_or(7) + 4 + 1,
        t => 1 + request_len(t).unwrap_or(0) + 1,
    };
    let mut reply = vec![0u8; want];
    let _ = s.set_read_timeout(Some(std::time::Duration::from_secs(5)));
    if let Err(e) = s.read_exact(&mut reply) {
        eprintln!("sdmac-mediumctl: no reply: {e}");
        return ExitCode::FAILURE;
    }
    let result = reply[want - 1];
    let name = ["success", "not_found", "duplicate", "wrong_mode"]
        .get(result as usize)
        .copied()
        .unwrap_or("unknown");
    if raw[0] == types::ADD {
        let id = i32::from_be_bytes([
            reply[want - 5],
            reply[want - 4],
            reply[want - 3],
            reply[want - 2],
        ]);
        println!("{name} id={id}");
    } else {
        println!("{name}");
    }
    if result == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
