//! A pcapng capture of the medium (`-p FILE`): every frame on air with radiotap
//! (time, channel, rate) — the kernel's frames byte for byte plus their FCS, and the
//! ACKs the medium sends for them.

use sdmac_frame::fcs::write_fcs;
use sdmac_frame::pcapng::{PcapngWriter, LINKTYPE_IEEE802_11_RADIOTAP};
use sdmac_frame::radiotap::{self, Channel, Mcs, Vht};
use sdmac_phy::Rate;
use std::fs::File;
use std::io::{self, BufWriter};
use std::path::Path;

/// A capture being written.
pub struct Capture {
    writer: PcapngWriter<BufWriter<File>>,
    buf: Vec<u8>,
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
    Vht { known: 0x0004 | 0x0040, flags: if sgi { 0x04 } else { 0 }, bandwidth, mcs_nss: [(mcs << 4) | (nss & 0x0f), 0, 0, 0], ..Vht::default() }
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
        self.writer.write_packet(t_ns, &self.buf[..rt_len + n])
    }

    /// Flushes the file.
    pub fn flush(&mut self) -> io::Result<()> {
        self.writer.flush()
    }
}
