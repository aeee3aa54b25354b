//! Creating mac80211_hwsim radios at run time (`HWSIM_CMD_NEW_RADIO`): the module's
//! `radios=` parameter stops at 100, a test bed of 200 stations needs the rest made
//! this way. Any process with CAP_NET_ADMIN may ask, while a medium daemon runs or not.

use crate::error::{io_err, DaemonError};
use crate::netlink::NlSocket;
use crate::startup::resolve_family;
use sdmac_netlink::hwsim::{HwsimMsg, RadioInfo};
use sdmac_netlink::nl::{self, ErrorMsg, NlHeader};

/// Asks the kernel for one new radio (one channel, default name and address); returns
/// its index (the N of `phyN`'s hwsim radio, as the kernel numbers them).
pub fn new_radio(sock: &NlSocket, family: u16, seq: u32) -> Result<u32, DaemonError> {
    let mut buf = [0u8; 128];
    let hdr = NlHeader::request(family, nl::flags::REQUEST | nl::flags::ACK, seq, sock.pid());
    let msg = HwsimMsg::NewRadio(RadioInfo { channels: Some(1), ..RadioInfo::default() });
    let n = msg.emit(&hdr, &mut buf).map_err(|e| DaemonError::Protocol(e.to_string()))?;
    sock.send(&buf[..n]).map_err(io_err("netlink send"))?;
    let mut rx = vec![0u8; 8192];
    loop {
        let n = sock.recv(&mut rx, true).map_err(io_err("netlink recv"))?.unwrap_or(0);
        for m in nl::messages(&rx[..n]) {
            let m = m.map_err(|e| DaemonError::Protocol(e.to_string()))?;
            if m.header().seq != seq || m.header().ty != nl::NLMSG_ERROR {
                continue;
            }
            // The acknowledgement carries the new radio's index (≥ 0) or -errno.
            let e = ErrorMsg::parse(&m).map_err(|e| DaemonError::Protocol(e.to_string()))?;
            return if e.error >= 0 {
                Ok(e.error as u32)
            } else {
                Err(DaemonError::Protocol(format!("NEW_RADIO refused: errno {}", -e.error)))
            };
        }
    }
}

/// Creates `count` radios; returns their indices.
pub fn new_radios(count: u32) -> Result<Vec<u32>, DaemonError> {
    let sock = NlSocket::open(1 << 20).map_err(io_err("netlink socket"))?;
    let family = resolve_family(&sock)?;
    (0..count).map(|k| new_radio(&sock, family, 100 + k)).collect()
}
