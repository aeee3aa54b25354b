//! A pcapng capture of the medium (`-p FILE`): every frame on air with radiotap
//! (time, channel, rate) — the kernel's frames byte for byte plus their FCS, and the
//! ACKs the medium sends for them.

use sdmac_frame::fcs::write_fcs;
use sdmac_frame::pcapng::{PcapngWriter, LINKTYPE_IEEE802_11_RADIOTAP};
use sdmac_frame::radiotap::{self, Channel, Mcs, Vht};
use sdmac_phy::Rate;
use std::fs::File;
use std::io::{self, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};

/// A capture being written.
pub struct Capture {
    writer: PcapngWriter<Staged>,
    buf: Vec<u8>,
}

/// What the capture has recorded and not yet written, written to the file only at
/// block boundaries: the file holds whole blocks at every moment, so it is valid
/// whenever it is read and however the daemon ends (SIGKILL included: what was
/// staged is lost, what is on disk reads). A `BufWriter` would write whenever its
/// buffer fills, in the middle of a block.
struct Staged {
    file: File,
    buf: Vec<u8>,
}

/// Staged bytes that make the capture write them out (a write system call per this
/// much, not per frame).
const STAGE_BYTES: usize = 64 << 10;

impl Write for Staged {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        self.buf.extend_from_slice(b);
        Ok(b.len())
    }

    /// Writes what is staged to the file (called between blocks only).
    fn flush(&mut self) -> io::Result<()> {
        if !self.buf.is_empty() {
            let r = self.file.write_all(&self.buf);
            self.buf.clear();
            r?;
        }
        Ok(())
    }
}

fn channel_flags(freq: u32, rate: Rate) -> u16 {
    sdmac_frame::channel::radiotap_flags(freq, rate.class() == sdmac_phy::ModulationClass::Dsss)
}

/// The radiotap VHT field of a single-user VHT PPDU: guard interval and bandwidth
/// known (known bits 0x0004, 0x0040), short GI flag 0x04, bandwidth code 0 / 1 / 4 /
/// 11 for 20 / 40 / 80 / 160 MHz, user 0's MCS in the high nibble and NSS in the low.
pub fn vht_field(mcs: u8, nss: u8, width: sdmac_phy::Width, sgi: bool) -> Vht {
    let bandwidth = match width {
        sdmac_phy::Width::Mhz20 => 0,
        sdmac_phy::Width::Mhz40 => 1,
        sdmac_phy::Width::Mhz80 => 4,
        sdmac_phy::Width::Mhz160 => 11,
    };
    Vht {
        known: 0x0004 | 0x0040,
        flags: if sgi { 0x04 } else { 0 },
        bandwidth,
        mcs_nss: [(mcs << 4) | (nss & 0x0f), 0, 0, 0],
        ..Vht::default()
    }
}

impl Capture {
    /// Creates `path`.
    pub fn create(path: &Path) -> io::Result<Capture> {
        let staged =
            Staged { file: File::create(path)?, buf: Vec::with_capacity(STAGE_BYTES + 4096) };
        let mut writer = PcapngWriter::new(staged, LINKTYPE_IEEE802_11_RADIOTAP, "sdmac-mediumd")?;
        // The header blocks at once: even a capture of nothing is a valid file.
        writer.flush()?;
        Ok(Capture { writer, buf: vec![0; 16384] })
    }

    /// Writes one frame (no FCS in `frame`; it is added) that started on air at
    /// `t_ns` (CLOCK_MONOTONIC) on `freq` at `rate`.
    pub fn record(&mut self, t_ns: u64, freq: u32, rate: Rate, frame: &[u8]) -> io::Result<()> {
        let mut rt = radiotap::Repr {
            tsft: Some(t_ns / 1000),
            flags: Some(radiotap::flags::FCS_AT_END),
            channel: Some(Channel::new(freq as u16, channel_flags(freq, rate))),
            ..Default::default()
        };
        match rate {
            Rate::Ht { mcs, bw40, sgi } => rt.mcs = Some(Mcs::new(mcs, bw40, sgi)),
            Rate::Vht { mcs, nss, width, sgi } => rt.vht = Some(vht_field(mcs, nss, width, sgi)),
            other => rt.rate = other.units_500k(),
        }
        let rt_len = rt.buffer_len();
        let need = rt_len + frame.len() + 4;
        if self.buf.len() < need {
            self.buf.resize(need, 0);
        }
        let err = |e: sdmac_frame::Error| io::Error::new(io::ErrorKind::InvalidData, e.to_string());
        rt.emit_into(&mut self.buf[..rt_len]).map_err(err)?;
        self.buf[rt_len..rt_len + frame.len()].copy_from_slice(frame);
        let n = write_fcs(&mut self.buf[rt_len..], frame.len()).map_err(err)?;
        self.writer.write_packet(t_ns, &self.buf[..rt_len + n])?;
        if self.writer.get_ref().buf.len() >= STAGE_BYTES {
            self.writer.flush()?;
        }
        Ok(())
    }

    /// Flushes the file.
    pub fn flush(&mut self) -> io::Result<()> {
        self.writer.flush()
    }
}

impl Drop for Capture {
    /// Whatever way the daemon ends (an error, a panic unwinding), what was recorded
    /// reaches the file: every block whole.
    fn drop(&mut self) {
        let _ = self.writer.flush();
    }
}

/// Flushes a capture shared with other threads when dropped: the threads may still
/// hold it when the daemon returns (an error stops it without waiting for them).
pub struct FlushOnDrop(pub Arc<Mutex<Capture>>);

impl Drop for FlushOnDrop {
    fn drop(&mut self) {
        let _ = self.0.lock().unwrap_or_else(|e| e.into_inner()).flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> std::path::PathBuf {
        std::env::temp_dir().join(format!("sdmac-capture-{name}-{}.pcapng", std::process::id()))
    }

    #[test]
    fn a_dropped_capture_is_whole_on_disk() {
        let p = temp("drop");
        let mut c = Capture::create(&p).unwrap();
        for k in 0..50u64 {
            c.record(
                k * 1000,
                2412,
                Rate::Ofdm6,
                &[
                    0x08, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 0, 0, 2, 0, 0,
                    0, 0, 0, 0, 0,
                ],
            )
            .unwrap();
        }
        drop(c);
        let bytes = std::fs::read(&p).unwrap();
        let packets = sdmac_frame::pcapng::read_packets(&bytes).unwrap();
        assert_eq!(packets.len(), 50);
        let _ = std::fs::remove_file(&p);
    }

    #[test]
    fn the_file_holds_whole_blocks_at_every_moment() {
        let p = temp("whole");
        let mut c = Capture::create(&p).unwrap();
        assert_eq!(
            sdmac_frame::pcapng::read_packets(&std::fs::read(&p).unwrap()).unwrap().len(),
            0,
            "a valid empty capture at once"
        );
        let frame = vec![0x08u8; 1501];
        let mut written_out = 0;
        for k in 0..200u64 {
            c.record(k * 1000, 2412, Rate::Ofdm6, &frame).unwrap();
            // Whatever is on disk now (nothing flushed by hand) reads whole.
            let n = sdmac_frame::pcapng::read_packets(&std::fs::read(&p).unwrap()).unwrap().len();
            assert!(n <= k as usize + 1);
            written_out = n;
        }
        assert!(written_out > 100, "written out as it went: {written_out}");
        std::mem::forget(c); // as if killed: what was staged is lost, the file still reads
        assert_eq!(
            sdmac_frame::pcapng::read_packets(&std::fs::read(&p).unwrap()).unwrap().len(),
            written_out
        );
        let _ = std::fs::remove_file(&p);
    }

    #[test]
    fn a_shared_capture_is_flushed_by_its_guard_while_another_holder_lives() {
        let p = temp("shared");
        let shared = Arc::new(Mutex::new(Capture::create(&p).unwrap()));
        let other = shared.clone();
        other
            .lock()
            .unwrap()
            .record(1000, 2412, Rate::Ofdm6, &[0xd4, 0, 0, 0, 2, 0, 0, 0, 0, 0])
            .unwrap();
        drop(FlushOnDrop(shared));
        let packets = sdmac_frame::pcapng::read_packets(&std::fs::read(&p).unwrap()).unwrap();
        assert_eq!(packets.len(), 1, "flushed though a holder is alive");
        drop(other);
        let _ = std::fs::remove_file(&p);
    }
}
