//! What the kernel sends the medium, read from its datagrams: frames to carry and
//! the addresses radios take on.

use crate::hwsim_medium::{HwsimMedium, KernelFrame, Mac, Output, StatusEcho};
use sdmac_netlink::hwsim::HwsimMsg;
use sdmac_netlink::nl;

/// One message of the kernel that the medium acts on.
pub enum KernelMsg<'a> {
    /// A frame to carry (FRAME with a transmitter).
    Frame(KernelFrame<'a>),
    /// ADD_MAC_ADDR: radio `0` (hwsim address) has interface address `1`.
    AddMacAddr(Mac, Mac),
}

/// Calls `f` with every hwsim message of datagram `d` the medium acts on, in order.
/// Messages of other families and other commands are skipped; a malformed one is
/// reported (at `log` ≥ 4) and skipped; a malformed netlink header ends the datagram.
pub fn each_message(d: &[u8], family: u16, log: u8, mut f: impl FnMut(KernelMsg<'_>)) {
    for m in nl::messages(d) {
        let Ok(m) = m else { break };
        if m.header().ty != family {
            continue;
        }
        match HwsimMsg::parse(&m) {
            Ok(HwsimMsg::Frame(fr)) => {
                // One entry per kernel entry, in place: one that does not decode is
                // kept as a rate no channel carries (skipped, reported 0 attempts).
                let rates: Vec<(sdmac_phy::Rate, u8)> = fr
                    .attempts()
                    .zip(fr.rate_series().map(Some).chain(std::iter::repeat(None)))
                    .map(|((tx, _), d)| match d {
                        Some(Ok((r, c))) => (r.to_phy().unwrap_or_else(|_| r.nearest_phy()), c),
                        _ => (crate::refusal::UNDECODABLE, tx.count),
                    })
                    .collect();
                f(KernelMsg::Frame(KernelFrame {
                    transmitter: fr.transmitter.into(),
                    frame: fr.frame,
                    no_ack: !fr.wants_ack(),
                    freq: fr.freq.unwrap_or(2412),
                    rates,
                    cookie: fr.cookie,
                    echo: StatusEcho { rate_idx: fr.tx_info.map(|r| r.idx), flags: fr.flags.bits() },
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

impl HwsimMedium {
    /// Takes every message of datagram `d` from the kernel, received at `t` (ns on the
    /// daemon's clock): frames to carry (outputs due at once go to `out`) and the
    /// addresses radios take on.
    pub fn on_datagram(&mut self, t: u64, d: &[u8], family: u16, log: u8, out: &mut Vec<Output>) {
        each_message(d, family, log, |m| match m {
            KernelMsg::Frame(f) => self.on_frame(t, f, out),
            KernelMsg::AddMacAddr(radio, addr) => self.add_address(radio, addr),
        })
    }
}
