//! Sends one frame on the monitor and waits for its TX-status echo.
//!
//! Each frame is a QoS Data frame (TID 0, LLC/SNAP, EtherType 0x88b5) from the radio's
//! address, with a sequence number of the probe's own kept by the kernel (radiotap
//! NOSEQNO); the echo is the frame read back with a radiotap TX flags field, the same
//! receiver address and that sequence number.

use crate::judge::Heard;
use sdmac_frame::ieee80211::{write_data_frame, AckPolicy, DataParams, QosControl};
use sdmac_frame::radiotap::TxParams;
use sdmac_frame::MacAddress;
use sdmac_linux::frames::{injected, read, set_seq, Read, ETHERTYPE};
use sdmac_linux::socket::{PacketSocket, RxBatch};
use std::time::{Duration, Instant};

/// The packet socket on the monitor, and what one shot needs.
pub struct Injector {
    sock: PacketSocket,
    src: MacAddress,
    seq: u16,
    wait: Duration,
    out: Vec<u8>,
    batch: Box<RxBatch>,
}

impl Injector {
    /// Opens the packet socket on monitor `name`; frames go out from `src`, and each
    /// echo is waited for up to `wait`.
    pub fn open(name: &str, src: MacAddress, wait: Duration) -> Result<Injector, String> {
        let sock = PacketSocket::open(name)?;
        // a start that differs from run to run, so stale echoes of an earlier run
        // are not taken for this run's
        let seq = (std::process::id() as u16).wrapping_mul(7) & 0x0fff;
        Ok(Injector { sock, src, seq, wait, out: Vec::with_capacity(512), batch: Box::default() })
    }

    /// Sends one frame to `dst` as `tx` says (its TX flags get NOSEQNO) and waits for
    /// its echo. `what` goes into the payload (it shows in a capture).
    pub fn shot(&mut self, dst: MacAddress, tx: TxParams, what: &str) -> Heard {
        self.seq = (self.seq + 1) & 0x0fff;
        let mut p = DataParams::new(dst, self.src, self.src, ETHERTYPE);
        let ack_policy = if tx.no_ack { AckPolicy::NoAck } else { AckPolicy::Normal };
        p.qos = Some(QosControl { tid: 0, ack_policy, ..QosControl::default() });
        let payload = format!("sdmac probe: {what}");
        let mut mpdu = [0u8; 256];
        let n = match write_data_frame(
            &mut mpdu,
            &p,
            &payload.as_bytes()[..payload.len().min(200)],
            false,
        ) {
            Ok(n) => n,
            Err(e) => return Heard::SendFailed(format!("building the frame: {e}")),
        };
        set_seq(&mut mpdu[..n], self.seq, false);
        let tx = TxParams { keep_seq: true, ..tx };
        injected(&tx, &mpdu[..n], &mut self.out);
        // drop what was read before (echoes of earlier shots, received frames)
        while let Ok(k) = self.sock.recv_batch(&mut self.batch) {
            if k == 0 {
                break;
            }
        }
        if let Err(e) = self.sock.send(&self.out) {
            return Heard::SendFailed(e.to_string());
        }
        let start = Instant::now();
        let want_sc = self.seq << 4;
        loop {
            let left = self.wait.saturating_sub(start.elapsed());
            if left.is_zero() {
                return Heard::Silent { waited_ms: self.wait.as_millis() as u64 };
            }
            match self.sock.poll(left.as_millis().max(1) as i32) {
                Ok(0) => continue,
                Ok(_) => {}
                Err(e) => return Heard::SendFailed(format!("waiting for the echo: {e}")),
            }
            let k = match self.sock.recv_batch(&mut self.batch) {
                Ok(k) => k,
                Err(e) => return Heard::SendFailed(format!("reading the echo: {e}")),
            };
            for i in 0..k {
                if let Read::Echo { status, addr1, seq_ctrl, .. } = read(self.batch.frame(i)) {
                    if addr1 == dst && seq_ctrl.map(|s| s & 0xfff0) == Some(want_sc) {
                        return Heard::Echo(status);
                    }
                }
            }
        }
    }
}
