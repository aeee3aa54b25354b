//! Capture of a simulation: every frame on air (DATA, ACK, beacons) as 802.11 with
//! radiotap in a pcapng file that Wireshark and tshark read.
//!
//! The engine models frames by length, not content: the capture synthesizes each
//! frame's header (addresses, duration, sequence number, retry flag) and fills the
//! body with zeros to the simulated MPDU length, so airtime and the frame on disk agree.
//! Beacons are written as real beacons (SSID "sdmac") and may differ in length from
//! the simulated beacon length.

use crate::scenario::Scenario;
use sdmac_frame::ieee80211::{
    self, AckPolicy, BeaconParams, DataParams, QosControl, SupportedRate,
};
use sdmac_frame::pcapng::{PcapngWriter, LINKTYPE_IEEE802_11_RADIOTAP};
use sdmac_frame::radiotap::{self, Channel, Mcs};
use sdmac_frame::MacAddress;
use sdmac_medium::{AirRecord, Dest, FrameKind};
use sdmac_phy::Rate;
use std::fs::File;
use std::io::{self, BufWriter};
use std::path::Path;

/// Per medium: the address and QoS flag of each station (engine order), and the
/// frequency (MHz).
type MediumInfo = (Vec<([u8; 6], bool)>, u32);

/// A pcapng capture being written.
pub struct Capture {
    writer: PcapngWriter<BufWriter<File>>,
    /// Per medium: addresses and QoS flag of its stations (engine order), frequency.
    mediums: Vec<MediumInfo>,
    buf: Vec<u8>,
    error: Option<io::Error>,
}

impl Capture {
    /// Creates `path` for the mediums of `s`.
    pub fn create(path: &Path, s: &Scenario) -> io::Result<Capture> {
        let file = BufWriter::new(File::create(path)?);
        let writer = PcapngWriter::new(file, LINKTYPE_IEEE802_11_RADIOTAP, "sdmac-medium")?;
        let mediums = s
            .mediums
            .iter()
            .enumerate()
            .map(|(mi, (_, freq))| {
                let st = s
                    .stations
                    .iter()
                    .filter(|x| x.medium == mi)
                    .map(|x| (x.address, x.raw.qos.unwrap_or(false)))
                    .collect();
                (st, *freq)
            })
            .collect();
        Ok(Capture { writer, mediums, buf: vec![0; 9000], error: None })
    }

    /// Writes one frame of medium `mi`.
    pub fn record(&mut self, mi: usize, r: &AirRecord) {
        if self.error.is_some() {
            return;
        }
        if let Err(e) = self.write(mi, r) {
            self.error = Some(e);
        }
    }

    fn write(&mut self, mi: usize, r: &AirRecord) -> io::Result<()> {
        let (stations, freq) = &self.mediums[mi];
        let addr = |s: u32| MacAddress(stations[s as usize].0);
        let src = addr(r.station);
        let dst = match r.dst {
            Dest::Station(d) => addr(d),
            Dest::Unknown => MacAddress([0x02, 0xff, 0xff, 0xff, 0xff, 0xfe]),
            Dest::Broadcast => MacAddress::BROADCAST,
        };
        let mut rt = radiotap::Repr {
            tsft: Some(r.t_start.as_ns() / 1000),
            flags: Some(radiotap::flags::FCS_AT_END),
            channel: Some(Channel::new(*freq as u16, radiotap_channel_flags(*freq, r.rate))),
            ..Default::default()
        };
        match r.rate {
            Rate::Ht { mcs, bw40, sgi } => rt.mcs = Some(Mcs::new(mcs, bw40, sgi)),
            other => rt.rate = other.units_500k(),
        }
        let rt_len = rt.buffer_len();
        let err = |e: sdmac_frame::Error| io::Error::new(io::ErrorKind::InvalidData, e.to_string());
        rt.emit_into(&mut self.buf[..rt_len]).map_err(err)?;
        let body = &mut self.buf[rt_len..];
        let n = match r.kind {
            FrameKind::Ack => {
                ieee80211::write_ack_frame(body, dst, r.duration_us, true).map_err(err)?
            }
            FrameKind::Beacon => {
                let rates = [
                    SupportedRate::new(12, true),
                    SupportedRate::new(24, true),
                    SupportedRate::new(48, true),
                    SupportedRate::new(108, false),
                ];
                let mut p =
                    BeaconParams::new(src, b"sdmac", &rates, sdmac_frame::channel::number(*freq));
                p.timestamp = r.t_start.as_ns() / 1000;
                p.seq = r.seq;
                ieee80211::write_beacon_frame(body, &p, true).map_err(err)?
            }
            FrameKind::Data => {
                // EtherType 0x88B5 (local experimental): the zero-filled body is not IPv4.
                let mut p = DataParams::new(dst, src, dst, 0x88B5);
                p.duration = r.duration_us;
                p.seq = r.seq;
                p.retry = r.retry;
                if stations[r.station as usize].1 {
                    p.qos = Some(QosControl::new(ac_tid(r.ac), AckPolicy::Normal));
                }
                let empty = ieee80211::data_frame_len(&p, 0, true);
                let payload_len = (r.len as usize).saturating_sub(empty);
                let payload = vec![0u8; payload_len];
                ieee80211::write_data_frame(body, &p, &payload, true).map_err(err)?
            }
        };
        self.writer.write_packet(r.t_start.as_ns(), &self.buf[..rt_len + n])
    }

    /// Flushes the file; reports the first write error, if any.
    pub fn finish(mut self) -> io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.writer.flush()
    }
}

fn ac_tid(ac: sdmac_medium::Ac) -> u8 {
    match ac {
        sdmac_medium::Ac::Bk => 1,
        sdmac_medium::Ac::Be => 0,
        sdmac_medium::Ac::Vi => 5,
        sdmac_medium::Ac::Vo => 6,
    }
}

fn radiotap_channel_flags(freq: u32, rate: Rate) -> u16 {
    sdmac_frame::channel::radiotap_flags(freq, rate.class() == sdmac_phy::ModulationClass::Dsss)
}
