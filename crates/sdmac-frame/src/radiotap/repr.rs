//! [`Repr`]: the first radiotap namespace's fields, parsed into one struct and
//! emitted back.

use super::{
    align_up, bit, field_layout, flags, AmpduStatus, Channel, Field, Header, Mcs, Timestamp, Vht,
    MIN_HEADER_LEN, VERSION,
};
use crate::{room, Error, Result};

/// The fields of a radiotap header's first radiotap namespace, parsed.
///
/// Fields in further namespaces (per-antenna in Linux captures) and vendor
/// namespaces are skipped by [`Repr::parse`]; iterate [`Header::fields`] for them.
/// [`Repr::emit`] writes one presence word with the fields that are `Some`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Repr {
    /// TSFT (bit 0), microseconds.
    pub tsft: Option<u64>,
    /// Flags (bit 1), see [`flags`].
    pub flags: Option<u8>,
    /// Legacy rate (bit 2) in 500 kb/s units.
    pub rate: Option<u8>,
    /// Channel (bit 3).
    pub channel: Option<Channel>,
    /// FHSS hop set and hop pattern (bit 4).
    pub fhss: Option<(u8, u8)>,
    /// Antenna signal in dBm (bit 5).
    pub antenna_signal: Option<i8>,
    /// Antenna noise in dBm (bit 6).
    pub antenna_noise: Option<i8>,
    /// Lock quality (bit 7).
    pub lock_quality: Option<u16>,
    /// TX attenuation (bit 8).
    pub tx_attenuation: Option<u16>,
    /// dB TX attenuation (bit 9).
    pub db_tx_attenuation: Option<u16>,
    /// TX power in dBm (bit 10).
    pub tx_power: Option<i8>,
    /// Antenna index (bit 11).
    pub antenna: Option<u8>,
    /// Antenna signal in dB (bit 12).
    pub db_antenna_signal: Option<u8>,
    /// Antenna noise in dB (bit 13).
    pub db_antenna_noise: Option<u8>,
    /// RX flags (bit 14), see [`rx_flags`](super::rx_flags).
    pub rx_flags: Option<u16>,
    /// TX flags (bit 15), see [`tx_flags`](super::tx_flags).
    pub tx_flags: Option<u16>,
    /// RTS retries (bit 16).
    pub rts_retries: Option<u8>,
    /// Data retries (bit 17).
    pub data_retries: Option<u8>,
    /// MCS (bit 19).
    pub mcs: Option<Mcs>,
    /// A-MPDU status (bit 20).
    pub ampdu: Option<AmpduStatus>,
    /// VHT (bit 21).
    pub vht: Option<Vht>,
    /// Timestamp (bit 22).
    pub timestamp: Option<Timestamp>,
    /// HE data1..data6 (bit 23).
    pub he: Option<[u16; 6]>,
    /// HE-MU, raw little-endian bytes (bit 24).
    pub he_mu: Option<[u8; 12]>,
    /// HE-MU-other-user, raw little-endian bytes (bit 25).
    pub he_mu_other_user: Option<[u8; 6]>,
    /// 0-length PSDU type (bit 26).
    pub zero_len_psdu: Option<u8>,
    /// L-SIG data1, data2 (bit 27).
    pub lsig: Option<[u16; 2]>,
    /// Set by [`Repr::parse`] when it stopped at a field of unknown size: that field's
    /// bit number (fields after it were not read). Ignored by [`Repr::emit`].
    pub unknown_field: Option<u32>,
}

impl Repr {
    /// True when the Flags field says the frame ends with its FCS.
    pub fn fcs_at_end(&self) -> bool {
        self.flags.unwrap_or(0) & flags::FCS_AT_END != 0
    }

    /// True when the Flags field says the FCS check failed.
    pub fn bad_fcs(&self) -> bool {
        self.flags.unwrap_or(0) & flags::BAD_FCS != 0
    }

    /// Parses a header view (checking it first). Stops without error at a field of
    /// unknown size, recording its bit in `unknown_field`.
    pub fn parse<T: AsRef<[u8]>>(header: &Header<T>) -> Result<Repr> {
        header.check_len()?;
        let mut r = Repr::default();
        for f in header.fields() {
            let f = match f {
                Ok(f) => f,
                Err(Error::UnknownField { bit, .. }) => {
                    r.unknown_field = Some(bit);
                    break;
                }
                Err(e) => return Err(e),
            };
            if f.namespace != 0 {
                continue;
            }
            r.set_from_field(&f);
        }
        Ok(r)
    }

    fn set_from_field(&mut self, f: &Field<'_>) {
        let d = f.data;
        match f.bit {
            bit::TSFT => self.tsft = Some(f.u64_at(0)),
            bit::FLAGS => self.flags = Some(f.u8_at(0)),
            bit::RATE => self.rate = Some(f.u8_at(0)),
            bit::CHANNEL => self.channel = Some(Channel::new(f.u16_at(0), f.u16_at(2))),
            bit::FHSS => self.fhss = Some((f.u8_at(0), f.u8_at(1))),
            bit::DBM_ANTSIGNAL => self.antenna_signal = Some(f.u8_at(0) as i8),
            bit::DBM_ANTNOISE => self.antenna_noise = Some(f.u8_at(0) as i8),
            bit::LOCK_QUALITY => self.lock_quality = Some(f.u16_at(0)),
            bit::TX_ATTENUATION => self.tx_attenuation = Some(f.u16_at(0)),
            bit::DB_TX_ATTENUATION => self.db_tx_attenuation = Some(f.u16_at(0)),
            bit::DBM_TX_POWER => self.tx_power = Some(f.u8_at(0) as i8),
            bit::ANTENNA => self.antenna = Some(f.u8_at(0)),
            bit::DB_ANTSIGNAL => self.db_antenna_signal = Some(f.u8_at(0)),
            bit::DB_ANTNOISE => self.db_antenna_noise = Some(f.u8_at(0)),
            bit::RX_FLAGS => self.rx_flags = Some(f.u16_at(0)),
            bit::TX_FLAGS => self.tx_flags = Some(f.u16_at(0)),
            bit::RTS_RETRIES => self.rts_retries = Some(f.u8_at(0)),
            bit::DATA_RETRIES => self.data_retries = Some(f.u8_at(0)),
            bit::MCS => {
                self.mcs = Some(Mcs { known: f.u8_at(0), flags: f.u8_at(1), index: f.u8_at(2) })
            }
            bit::AMPDU_STATUS => {
                self.ampdu = Some(AmpduStatus {
                    reference: f.u32_at(0),
                    flags: f.u16_at(4),
                    delimiter_crc: f.u8_at(6),
                    reserved: f.u8_at(7),
                })
            }
            bit::VHT => {
                self.vht = Some(Vht {
                    known: f.u16_at(0),
                    flags: f.u8_at(2),
                    bandwidth: f.u8_at(3),
                    mcs_nss: [f.u8_at(4), f.u8_at(5), f.u8_at(6), f.u8_at(7)],
                    coding: f.u8_at(8),
                    group_id: f.u8_at(9),
                    partial_aid: f.u16_at(10),
                })
            }
            bit::TIMESTAMP => {
                self.timestamp = Some(Timestamp {
                    timestamp: f.u64_at(0),
                    accuracy: f.u16_at(8),
                    unit_position: f.u8_at(10),
                    flags: f.u8_at(11),
                })
            }
            bit::HE => {
                let mut v = [0u16; 6];
                for (i, x) in v.iter_mut().enumerate() {
                    *x = f.u16_at(2 * i);
                }
                self.he = Some(v)
            }
            bit::HE_MU => {
                let mut v = [0u8; 12];
                v.copy_from_slice(&d[..12.min(d.len())]);
                self.he_mu = Some(v)
            }
            bit::HE_MU_OTHER_USER => {
                let mut v = [0u8; 6];
                v.copy_from_slice(&d[..6.min(d.len())]);
                self.he_mu_other_user = Some(v)
            }
            bit::ZERO_LEN_PSDU => self.zero_len_psdu = Some(f.u8_at(0)),
            bit::LSIG => self.lsig = Some([f.u16_at(0), f.u16_at(2)]),
            _ => {}
        }
    }

    /// The presence word `emit` writes.
    pub fn present(&self) -> u32 {
        let mut p = 0u32;
        let mut set = |b: u32, on: bool| {
            if on {
                p |= 1 << b
            }
        };
        set(bit::TSFT, self.tsft.is_some());
        set(bit::FLAGS, self.flags.is_some());
        set(bit::RATE, self.rate.is_some());
        set(bit::CHANNEL, self.channel.is_some());
        set(bit::FHSS, self.fhss.is_some());
        set(bit::DBM_ANTSIGNAL, self.antenna_signal.is_some());
        set(bit::DBM_ANTNOISE, self.antenna_noise.is_some());
        set(bit::LOCK_QUALITY, self.lock_quality.is_some());
        set(bit::TX_ATTENUATION, self.tx_attenuation.is_some());
        set(bit::DB_TX_ATTENUATION, self.db_tx_attenuation.is_some());
        set(bit::DBM_TX_POWER, self.tx_power.is_some());
        set(bit::ANTENNA, self.antenna.is_some());
        set(bit::DB_ANTSIGNAL, self.db_antenna_signal.is_some());
        set(bit::DB_ANTNOISE, self.db_antenna_noise.is_some());
        set(bit::RX_FLAGS, self.rx_flags.is_some());
        set(bit::TX_FLAGS, self.tx_flags.is_some());
        set(bit::RTS_RETRIES, self.rts_retries.is_some());
        set(bit::DATA_RETRIES, self.data_retries.is_some());
        set(bit::MCS, self.mcs.is_some());
        set(bit::AMPDU_STATUS, self.ampdu.is_some());
        set(bit::VHT, self.vht.is_some());
        set(bit::TIMESTAMP, self.timestamp.is_some());
        set(bit::HE, self.he.is_some());
        set(bit::HE_MU, self.he_mu.is_some());
        set(bit::HE_MU_OTHER_USER, self.he_mu_other_user.is_some());
        set(bit::ZERO_LEN_PSDU, self.zero_len_psdu.is_some());
        set(bit::LSIG, self.lsig.is_some());
        p
    }

    /// Writes field `b`'s bytes into `out` (which has the field's size).
    fn field_bytes(&self, b: u32, out: &mut [u8]) {
        fn put(out: &mut [u8], at: usize, bytes: &[u8]) {
            out[at..at + bytes.len()].copy_from_slice(bytes);
        }
        match b {
            bit::TSFT => put(out, 0, &self.tsft.unwrap_or(0).to_le_bytes()),
            bit::FLAGS => out[0] = self.flags.unwrap_or(0),
            bit::RATE => out[0] = self.rate.unwrap_or(0),
            bit::CHANNEL => {
                let c = self.channel.unwrap_or_default();
                put(out, 0, &c.freq_mhz.to_le_bytes());
                put(out, 2, &c.flags.to_le_bytes());
            }
            bit::FHSS => {
                let (a, c) = self.fhss.unwrap_or((0, 0));
                out[0] = a;
                out[1] = c;
            }
            bit::DBM_ANTSIGNAL => out[0] = self.antenna_signal.unwrap_or(0) as u8,
            bit::DBM_ANTNOISE => out[0] = self.antenna_noise.unwrap_or(0) as u8,
            bit::LOCK_QUALITY => put(out, 0, &self.lock_quality.unwrap_or(0).to_le_bytes()),
            bit::TX_ATTENUATION => put(out, 0, &self.tx_attenuation.unwrap_or(0).to_le_bytes()),
            bit::DB_TX_ATTENUATION => {
                put(out, 0, &self.db_tx_attenuation.unwrap_or(0).to_le_bytes())
            }
            bit::DBM_TX_POWER => out[0] = self.tx_power.unwrap_or(0) as u8,
            bit::ANTENNA => out[0] = self.antenna.unwrap_or(0),
            bit::DB_ANTSIGNAL => out[0] = self.db_antenna_signal.unwrap_or(0),
            bit::DB_ANTNOISE => out[0] = self.db_antenna_noise.unwrap_or(0),
            bit::RX_FLAGS => put(out, 0, &self.rx_flags.unwrap_or(0).to_le_bytes()),
            bit::TX_FLAGS => put(out, 0, &self.tx_flags.unwrap_or(0).to_le_bytes()),
            bit::RTS_RETRIES => out[0] = self.rts_retries.unwrap_or(0),
            bit::DATA_RETRIES => out[0] = self.data_retries.unwrap_or(0),
            bit::MCS => {
                let m = self.mcs.unwrap_or_default();
                put(out, 0, &[m.known, m.flags, m.index]);
            }
            bit::AMPDU_STATUS => {
                let a = self.ampdu.unwrap_or_default();
                put(out, 0, &a.reference.to_le_bytes());
                put(out, 4, &a.flags.to_le_bytes());
                put(out, 6, &[a.delimiter_crc, a.reserved]);
            }
            bit::VHT => {
                let v = self.vht.unwrap_or_default();
                put(out, 0, &v.known.to_le_bytes());
                put(out, 2, &[v.flags, v.bandwidth]);
                put(out, 4, &v.mcs_nss);
                put(out, 8, &[v.coding, v.group_id]);
                put(out, 10, &v.partial_aid.to_le_bytes());
            }
            bit::TIMESTAMP => {
                let t = self.timestamp.unwrap_or_default();
                put(out, 0, &t.timestamp.to_le_bytes());
                put(out, 8, &t.accuracy.to_le_bytes());
                put(out, 10, &[t.unit_position, t.flags]);
            }
            bit::HE => {
                for (i, x) in self.he.unwrap_or_default().iter().enumerate() {
                    put(out, 2 * i, &x.to_le_bytes());
                }
            }
            bit::HE_MU => put(out, 0, &self.he_mu.unwrap_or_default()),
            bit::HE_MU_OTHER_USER => put(out, 0, &self.he_mu_other_user.unwrap_or_default()),
            bit::ZERO_LEN_PSDU => out[0] = self.zero_len_psdu.unwrap_or(0),
            bit::LSIG => {
                let l = self.lsig.unwrap_or_default();
                put(out, 0, &l[0].to_le_bytes());
                put(out, 2, &l[1].to_le_bytes());
            }
            _ => {}
        }
    }

    /// Walks the present fields in order, calling `f(bit, offset, size)`; returns the
    /// total header length.
    fn walk(&self, mut f: impl FnMut(u32, usize, usize)) -> usize {
        let p = self.present();
        let mut pos = MIN_HEADER_LEN;
        for b in 0..bit::TLV {
            if p & (1 << b) == 0 {
                continue;
            }
            if let Some((align, size)) = field_layout(b) {
                let off = align_up(pos, align);
                f(b, off, size);
                pos = off + size;
            }
        }
        pos
    }

    /// Length of the radiotap header `emit` writes.
    pub fn buffer_len(&self) -> usize {
        self.walk(|_, _, _| {})
    }

    /// Writes the header (version 0, one presence word, fields aligned with zero
    /// padding) at the start of `header`'s buffer.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, header: &mut Header<T>) -> Result<()> {
        let len = self.buffer_len();
        room("radiotap header", len, header.buffer.as_ref().len())?;
        let buf = header.buffer.as_mut();
        buf[..len].fill(0);
        buf[0] = VERSION;
        buf[2..4].copy_from_slice(&(len as u16).to_le_bytes());
        buf[4..8].copy_from_slice(&self.present().to_le_bytes());
        self.walk(|b, off, size| self.field_bytes(b, &mut buf[off..off + size]));
        Ok(())
    }

    /// Writes the header into the start of a byte slice and returns its length.
    pub fn emit_into(&self, buf: &mut [u8]) -> Result<usize> {
        self.emit(&mut Header::new_unchecked(&mut *buf))?;
        Ok(self.buffer_len())
    }
}
