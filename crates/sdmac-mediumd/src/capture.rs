//! A pcapng capture of the medium (`-p FILE`): every frame on air with radiotap
//! (time, channel, rate) — the kernel's frames byte for byte plus their FCS, and the
//! ACKs the medium sends for them.

use sdmac_frame::fcs::write_fcs;
use sdmac_frame::pcapng::{PcapngWriter, LINKTYPE_IEEE802_11_RADIOTAP};
use sdmac_frame::radiotap::{self, Channel, Mcs};
use sdmac_phy::Rate;
use std::fs::File;
use std::io::{self, BufWriter};
use std::path::Path;
use std::sync::{Arc, Mutex};

/// A capture being written.
pub struct Capture {
    writer: PcapngWriter<BufWriter<File>>,
    buf: Vec<u8>,
}

fn channel_flags(freq: u32, rate: Rate) -> u16 {
    sdmac_frame::channel::radiotap_flags(freq, rate.class() == sdmac_phy::ModulationClass::Dsss)
}

impl Capture {
    /// Creates `path`.
    pub fn create(path: &Path) -> io::Result<Capture> {
        let file = BufWriter::new(File::create(path)?);
        let writer = PcapngWriter::new(file, LINKTYPE_IEEE802_11_RADIOTAP, "sdmac-mediumd")?;
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
        self.writer.write_packet(t_ns, &self.buf[..rt_len + n])
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
            c.record(k * 1000, 2412, Rate::Ofdm6, &[0x08, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0]).unwrap();
        }
        drop(c);
        let bytes = std::fs::read(&p).unwrap();
        let packets = sdmac_frame::pcapng::read_packets(&bytes).unwrap();
        assert_eq!(packets.len(), 50);
        let _ = std::fs::remove_file(&p);
    }

    #[test]
    fn a_shared_capture_is_flushed_by_its_guard_while_another_holder_lives() {
        let p = temp("shared");
        let shared = Arc::new(Mutex::new(Capture::create(&p).unwrap()));
        let other = shared.clone();
        other.lock().unwrap().record(1000, 2412, Rate::Ofdm6, &[0xd4, 0, 0, 0, 2, 0, 0, 0, 0, 0]).unwrap();
        drop(FlushOnDrop(shared));
        let packets = sdmac_frame::pcapng::read_packets(&std::fs::read(&p).unwrap()).unwrap();
        assert_eq!(packets.len(), 1, "flushed though a holder is alive");
        drop(other);
        let _ = std::fs::remove_file(&p);
    }
}
