//! What every run of the daemon does first: registers with mac80211_hwsim over
//! generic netlink, catches SIGTERM/SIGINT, opens the capture and statistics files.

use crate::capture::Capture;
use crate::error::{io_err, DaemonError};
use crate::netlink::NlSocket;
use crate::options::Options;
use crate::stats::StatsWriter;
use sdmac_netlink::genl::ctrl::{FamilyInfo, GetFamily};
use sdmac_netlink::hwsim::{HwsimMsg, FAMILY_NAME};
use sdmac_netlink::nl::{self, ErrorMsg, NlHeader, NlPacket};
use std::io::{self, Write};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// Waits for the reply to request `seq`: returns its bytes (NLMSG_ERROR handled).
fn request(sock: &NlSocket, msg: &[u8], seq: u32) -> Result<Vec<u8>, DaemonError> {
    sock.send(msg).map_err(io_err("netlink send"))?;
    let mut buf = vec![0u8; 65536];
    loop {
        let n = sock.recv(&mut buf, true).map_err(io_err("netlink recv"))?.unwrap_or(0);
        for m in nl::messages(&buf[..n]) {
            let m = m.map_err(|e| DaemonError::Protocol(e.to_string()))?;
            if m.header().seq != seq {
                continue;
            }
            if m.header().ty == nl::NLMSG_ERROR {
                let e = ErrorMsg::parse(&m).map_err(|e| DaemonError::Protocol(e.to_string()))?;
                return match e.errno() {
                    None | Some(0) => Ok(Vec::new()),
                    Some(errno) => Err(DaemonError::Register(errno)),
                };
            }
            return Ok(m.bytes().to_vec());
        }
    }
}

/// The generic netlink family id of MAC80211_HWSIM.
pub(crate) fn resolve_family(sock: &NlSocket) -> Result<u16, DaemonError> {
    let mut buf = [0u8; 128];
    let req = GetFamily { name: FAMILY_NAME };
    let n = req
        .emit(nl::flags::REQUEST, 1, sock.pid(), &mut buf)
        .map_err(|e| DaemonError::Protocol(e.to_string()))?;
    let reply = request(sock, &buf[..n], 1).map_err(|e| match e {
        DaemonError::Register(_) => DaemonError::NoFamily,
        other => other,
    })?;
    if reply.is_empty() {
        return Err(DaemonError::NoFamily);
    }
    let p = NlPacket::new_checked(&reply[..]).map_err(|e| DaemonError::Protocol(e.to_string()))?;
    let info = FamilyInfo::parse(&p).map_err(|e| DaemonError::Protocol(e.to_string()))?;
    Ok(info.id)
}

fn register(sock: &NlSocket, family: u16) -> Result<(), DaemonError> {
    let mut buf = [0u8; 64];
    let hdr = NlHeader::request(family, nl::flags::REQUEST | nl::flags::ACK, 2, sock.pid());
    let n = HwsimMsg::Register
        .emit(&hdr, &mut buf)
        .map_err(|e| DaemonError::Protocol(e.to_string()))?;
    request(sock, &buf[..n], 2).map(|_| ())
}

/// Opens the netlink socket, registers as the medium and says so on stdout
/// (`REGISTER SENT!`, which hostap's tests wait for). Returns the socket and the
/// hwsim family id. Sequence numbers up to 2 are used.
pub(crate) fn connect() -> Result<(NlSocket, u16), DaemonError> {
    let sock = NlSocket::open(8 << 20).map_err(io_err("netlink socket"))?;
    let family = resolve_family(&sock)?;
    register(&sock, family)?;
    let mut out = io::stdout().lock();
    let _ = writeln!(out, "REGISTER SENT!");
    let _ = out.flush();
    Ok((sock, family))
}

/// A flag SIGTERM and SIGINT set.
pub(crate) fn stop_flag() -> Result<Arc<AtomicBool>, DaemonError> {
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGTERM, signal_hook::consts::SIGINT] {
        signal_hook::flag::register(sig, stop.clone()).map_err(io_err("signal handler"))?;
    }
    Ok(stop)
}

/// The capture file of `-p`, created.
pub(crate) fn open_capture(opts: &Options) -> Result<Option<Capture>, DaemonError> {
    match &opts.capture {
        Some(p) => Ok(Some(Capture::create(p).map_err(io_err("capture file"))?)),
        None => Ok(None),
    }
}

/// The statistics writer of `--stats`.
pub(crate) fn open_stats(
    opts: &Options,
) -> Result<Option<StatsWriter<Box<dyn Write>>>, DaemonError> {
    Ok(match &opts.stats {
        // Buffered: a write system call per interval, not per field.
        Some(p) if p.as_os_str() == "-" => {
            Some(StatsWriter::new(Box::new(io::BufWriter::new(io::stdout())) as Box<dyn Write>))
        }
        Some(p) => Some(StatsWriter::new(Box::new(io::BufWriter::new(
            std::fs::File::create(p).map_err(io_err("stats file"))?,
        )) as Box<dyn Write>)),
        None => None,
    })
}
