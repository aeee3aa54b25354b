//! What the kernel sends the medium, read from its datagrams: frames to carry and
//! the addresses radios take on.

use crate::hwsim_medium::{HwsimMedium, KernelFrame, Mac, Output, StatusEcho};
use crate::medium_io::RateEntries;
use crate::status_retry::RefusedStatus;
use sdmac_netlink::hwsim::HwsimMsg;
use sdmac_netlink::nl;

/// One message of the kernel that the medium acts on.
pub enum KernelMsg<'a> {
    /// A frame to carry (FRAME with a transmitter).
    Frame(KernelFrame<'a>),
    /// ADD_MAC_ADDR: radio `0` (hwsim address) has interface address `1`.
    AddMacAddr(Mac, Mac),
    /// The kernel refused a TX_INFO_FRAME of the daemon with EINVAL: the status of
    /// `transmitter`'s frame `cookie`, whose whole message is `msg`
    /// (see [`crate::status_retry`]).
    StatusRefused {
        /// The transmitting radio.
        transmitter: Mac,
        /// The frame's cookie.
        cookie: u64,
        /// The refused message, as it was sent.
        msg: &'a [u8],
    },
}

/// EINVAL: what mac80211_hwsim answers a status whose frame it does not hold.
const EINVAL: i32 = 22;

/// The TX_INFO_FRAME (of family `family`) an `NLMSG_ERROR` with EINVAL carries
/// whole; None for any other error, an acknowledgement, or a copy capped to its
/// header.
fn refused_status<'a>(m: &nl::NlPacket<'a>, family: u16) -> Option<KernelMsg<'a>> {
    let e = nl::ErrorMsg::parse(m).ok()?;
    let req = e.request?;
    if e.errno() != Some(EINVAL) || req.ty != family || m.header().flags & nl::flags::CAPPED != 0 {
        return None;
    }
    // nlmsgerr: the error (4 bytes), then the original message.
    let msg = m.payload().get(4..4usize.checked_add(req.len as usize)?)?;
    match HwsimMsg::parse(&nl::NlPacket::new_checked(msg).ok()?) {
        Ok(HwsimMsg::TxInfo(s)) => Some(KernelMsg::StatusRefused {
            transmitter: Mac::new(s.transmitter),
            cookie: s.cookie,
            msg,
        }),
        _ => None,
    }
}

/// Calls `f` with every hwsim message of datagram `d` the medium acts on, in order.
/// Messages of other families and other commands are skipped; a malformed one is
/// reported (at `log` ≥ 4) and skipped; a malformed netlink header ends the datagram.
/// Of the errors the kernel answers the daemon's messages with, only a TX status
/// refused with EINVAL is passed on ([`KernelMsg::StatusRefused`]).
pub fn each_message(d: &[u8], family: u16, log: u8, mut f: impl FnMut(KernelMsg<'_>)) {
    for m in nl::messages(d) {
        let Ok(m) = m else { break };
        if m.header().ty == nl::NLMSG_ERROR {
            if let Some(r) = refused_status(&m, family) {
                f(r);
            }
            continue;
        }
        if m.header().ty != family {
            continue;
        }
        match HwsimMsg::parse(&m) {
            Ok(HwsimMsg::Frame(fr)) => {
                // One entry per kernel entry, in place: one that does not decode is
                // kept as a rate no channel carries (skipped, reported 0 attempts).
                // At most the kernel's four entries, kept in place (no allocation).
                let rates = RateEntries::from_iter_capped(
                    fr.attempts()
                        .zip(fr.rate_series().map(Some).chain(std::iter::repeat(None)))
                        .map(|((tx, _), d)| match d {
                            Some(Ok((r, c))) => (r.to_phy().unwrap_or_else(|_| r.nearest_phy()), c),
                            _ => (crate::refusal::UNDECODABLE, tx.count),
                        }),
                );
                f(KernelMsg::Frame(KernelFrame {
                    transmitter: fr.transmitter.into(),
                    frame: fr.frame,
                    no_ack: !fr.wants_ack(),
                    freq: fr.freq.unwrap_or(2412),
                    rates,
                    cookie: fr.cookie,
                    echo: StatusEcho {
                        rate_idx: fr.tx_info.map(|r| r.idx),
                        flags: fr.flags.bits(),
                    },
                }));
            }
            Ok(HwsimMsg::AddMacAddr(e)) => f(KernelMsg::AddMacAddr(e.radio.into(), e.addr.into())),
            // DEL_MAC_ADDR is not acted on: mac80211_hwsim sends it at the end of every
            // software scan for the address the scan used — the interface's own, which it
            // keeps. An address that moves is taken by the radio it moves to
            // (ADD_MAC_ADDR, or a frame sent from it).
            Ok(_) => {}
            Err(e) => {
                if log >= 4 {
                    eprintln!("sdmac-mediumd: ignoring a malformed message: {e}");
                }
            }
        }
    }
}

/// Hands `medium` every message of datagram `d` from the kernel, received at `t` (ns
/// on the daemon's clock): frames to carry (outputs due at once go to `out`), the
/// addresses radios take on, and TX statuses the kernel refused. Messages are read
/// as [`each_message`] does (hwsim family `family`); what becomes of a refused status
/// is reported at log level `log` ([`report_refused_status`]).
pub fn on_datagram(
    medium: &mut HwsimMedium,
    t: u64,
    d: &[u8],
    family: u16,
    log: u8,
    out: &mut Vec<Output>,
) {
    each_message(d, family, log, |m| match m {
        KernelMsg::Frame(f) => medium.on_frame(t, f, out),
        KernelMsg::AddMacAddr(radio, addr) => medium.add_address(radio, addr),
        KernelMsg::StatusRefused { transmitter, cookie, msg } => {
            report_refused_status(&medium.status_refused(t, transmitter, cookie, msg), log)
        }
    })
}

/// Reports on stderr what became of a TX status the kernel refused: each retry at
/// log level `log` ≥ 7, the first status given up at `log` ≥ 4.
pub fn report_refused_status(r: &RefusedStatus, log: u8) {
    match *r {
        RefusedStatus::Retried { transmitter, cookie, delay_ns, retry } => {
            if log >= 7 {
                eprintln!("sdmac-mediumd: the kernel refused the TX status of frame {cookie} of {}; sent again in {} µs (retry {})", transmitter, delay_ns / 1000, retry);
            }
        }
        RefusedStatus::GivenUp { transmitter, cookie, refusals, first } => {
            if first && log >= 4 {
                eprintln!(
                    "sdmac-mediumd: the kernel refused the TX status of frame {cookie} of {} {} times; given up (counted as statuses_refused; reported once)",
                    transmitter, refusals
                );
            }
        }
    }
}
