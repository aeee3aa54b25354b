//! Builders that write a whole MPDU (header, body and, when asked, FCS) into a
//! caller's buffer and return its length, with a matching `*_len` function for each
//! so callers can size buffers without allocating.
//!
//! | frame | length |
//! |---|---|
//! | data, 3 addresses, LLC/SNAP, `n` payload bytes | 24 + 8 + n (+ 4 FCS) |
//! | QoS data | 26 + 8 + n (+ 4) |
//! | ACK, CTS | 10 (+ 4) |
//! | RTS | 16 (+ 4) |
//! | beacon | 24 + 12 + elements (+ 4) |

use super::beacon::{SupportedRate, FIXED_LEN};
use super::frame_control::FrameKind;
use super::header::Repr;
use super::ie;
use super::qos::QosControl;
use crate::fcs::{write_fcs, FCS_LEN};
use crate::{room, Error, MacAddress, Result};

/// Length of the LLC/SNAP header that precedes the payload of a data frame.
pub const LLC_SNAP_LEN: usize = 8;
/// The LLC/SNAP header up to the EtherType: DSAP 0xAA, SSAP 0xAA, control 0x03
/// (UI), OUI 00-00-00 (RFC 1042 encapsulation).
pub const LLC_SNAP_PREFIX: [u8; 6] = [0xAA, 0xAA, 0x03, 0x00, 0x00, 0x00];

/// Length of an MPDU with this header and `body_len` body bytes.
pub fn mpdu_len(header: &Repr, body_len: usize, with_fcs: bool) -> usize {
    header.buffer_len() + body_len + if with_fcs { FCS_LEN } else { 0 }
}

/// Writes `header`, then `body`, then (if `with_fcs`) the FCS; returns the length.
pub fn write_mpdu(buf: &mut [u8], header: &Repr, body: &[u8], with_fcs: bool) -> Result<usize> {
    let total = mpdu_len(header, body.len(), with_fcs);
    room("802.11 MPDU", total, buf.len())?;
    let h = header.emit_into(buf)?;
    buf[h..h + body.len()].copy_from_slice(body);
    finish(buf, h + body.len(), with_fcs)
}

fn finish(buf: &mut [u8], len: usize, with_fcs: bool) -> Result<usize> {
    if with_fcs {
        write_fcs(buf, len)
    } else {
        Ok(len)
    }
}

/// What goes into a data or QoS data frame's header, plus the payload's EtherType.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DataParams {
    /// Address 1: receiver address.
    pub addr1: MacAddress,
    /// Address 2: transmitter address.
    pub addr2: MacAddress,
    /// Address 3 (BSSID, DA or SA depending on To DS / From DS).
    pub addr3: MacAddress,
    /// Address 4; `Some` makes a four-address frame (To DS and From DS both set,
    /// regardless of the two flags below).
    pub addr4: Option<MacAddress>,
    /// To DS flag (three-address frames). Setting both `to_ds` and `from_ds` without
    /// `addr4` makes the builders fail with [`Error::InvalidInput`].
    pub to_ds: bool,
    /// From DS flag (three-address frames).
    pub from_ds: bool,
    /// Duration in microseconds.
    pub duration: u16,
    /// Sequence number, 0..=4095.
    pub seq: u16,
    /// Fragment number, 0..=15.
    pub frag: u8,
    /// Retry flag.
    pub retry: bool,
    /// `Some` makes a QoS Data frame with this QoS Control field.
    pub qos: Option<QosControl>,
    /// EtherType written after the LLC/SNAP prefix.
    pub ethertype: u16,
}

impl DataParams {
    /// A non-QoS, three-address frame with no DS flags, duration 0, sequence 0.
    pub const fn new(
        addr1: MacAddress,
        addr2: MacAddress,
        addr3: MacAddress,
        ethertype: u16,
    ) -> Self {
        DataParams {
            addr1,
            addr2,
            addr3,
            addr4: None,
            to_ds: false,
            from_ds: false,
            duration: 0,
            seq: 0,
            frag: 0,
            retry: false,
            qos: None,
            ethertype,
        }
    }

    /// The MAC header these parameters describe.
    pub fn header(&self) -> Repr {
        let kind = if self.qos.is_some() { FrameKind::QosData } else { FrameKind::Data };
        let four = self.addr4.is_some();
        let mut r = Repr::new(kind, self.addr1);
        r.to_ds = self.to_ds || four;
        r.from_ds = self.from_ds || four;
        r.duration = self.duration;
        r.addr2 = Some(self.addr2);
        r.addr3 = Some(self.addr3);
        r.addr4 = self.addr4;
        r.seq = self.seq;
        r.frag = self.frag;
        r.retry = self.retry;
        r.qos = self.qos;
        r
    }
}

/// Length of a data frame: header + 8 (LLC/SNAP) + payload (+ 4 FCS).
/// A non-QoS three-address frame with 50 payload bytes and FCS is 86 bytes.
pub fn data_frame_len(params: &DataParams, payload_len: usize, with_fcs: bool) -> usize {
    mpdu_len(&params.header(), LLC_SNAP_LEN + payload_len, with_fcs)
}

/// Writes a data frame: header, LLC/SNAP (`AA AA 03 00 00 00` + EtherType, big-endian),
/// payload and optionally FCS. Returns the length.
pub fn write_data_frame(
    buf: &mut [u8],
    params: &DataParams,
    payload: &[u8],
    with_fcs: bool,
) -> Result<usize> {
    let header = params.header();
    let total = mpdu_len(&header, LLC_SNAP_LEN + payload.len(), with_fcs);
    room("802.11 data frame", total, buf.len())?;
    let mut at = header.emit_into(buf)?;
    buf[at..at + 6].copy_from_slice(&LLC_SNAP_PREFIX);
    buf[at + 6..at + 8].copy_from_slice(&params.ethertype.to_be_bytes());
    at += LLC_SNAP_LEN;
    buf[at..at + payload.len()].copy_from_slice(payload);
    finish(buf, at + payload.len(), with_fcs)
}

/// Length of an ACK frame: 10 bytes, 14 with FCS.
pub const fn ack_frame_len(with_fcs: bool) -> usize {
    10 + if with_fcs { FCS_LEN } else { 0 }
}

/// Writes an ACK to receiver `ra` with `duration` µs. Returns the length.
pub fn write_ack_frame(
    buf: &mut [u8],
    ra: MacAddress,
    duration: u16,
    with_fcs: bool,
) -> Result<usize> {
    let mut r = Repr::new(FrameKind::Ack, ra);
    r.duration = duration;
    write_mpdu(buf, &r, &[], with_fcs)
}

/// Length of a CTS frame: 10 bytes, 14 with FCS.
pub const fn cts_frame_len(with_fcs: bool) -> usize {
    ack_frame_len(with_fcs)
}

/// Writes a CTS to receiver `ra` with `duration` µs. Returns the length.
pub fn write_cts_frame(
    buf: &mut [u8],
    ra: MacAddress,
    duration: u16,
    with_fcs: bool,
) -> Result<usize> {
    let mut r = Repr::new(FrameKind::Cts, ra);
    r.duration = duration;
    write_mpdu(buf, &r, &[], with_fcs)
}

/// Length of an RTS frame: 16 bytes, 20 with FCS.
pub const fn rts_frame_len(with_fcs: bool) -> usize {
    16 + if with_fcs { FCS_LEN } else { 0 }
}

/// Writes an RTS from `ta` to `ra` with `duration` µs. Returns the length.
pub fn write_rts_frame(
    buf: &mut [u8],
    ra: MacAddress,
    ta: MacAddress,
    duration: u16,
    with_fcs: bool,
) -> Result<usize> {
    let mut r = Repr::new(FrameKind::Rts, ra);
    r.duration = duration;
    r.addr2 = Some(ta);
    write_mpdu(buf, &r, &[], with_fcs)
}

/// What goes into a beacon.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BeaconParams<'a> {
    /// Destination (addr1); normally [`MacAddress::BROADCAST`].
    pub da: MacAddress,
    /// BSSID; written as addr2 (SA) and addr3.
    pub bssid: MacAddress,
    /// Sequence number, 0..=4095.
    pub seq: u16,
    /// TSF timestamp in microseconds (the transmitter fills the real value on air).
    pub timestamp: u64,
    /// Beacon interval in TU (1 TU = 1024 µs); 100 is usual.
    pub beacon_interval_tu: u16,
    /// Capability Information (see `beacon::CAP_*`).
    pub capability: u16,
    /// SSID, at most 32 bytes.
    pub ssid: &'a [u8],
    /// Supported rates, 1..=263 of them: the first 8 go into the Supported Rates
    /// element, the rest into an Extended Supported Rates element.
    pub rates: &'a [SupportedRate],
    /// Channel number for the DSSS Parameter Set element.
    pub channel: u8,
    /// Further elements, already encoded, written after the DSSS Parameter Set
    /// (and the Extended Supported Rates element, if any).
    pub extra_elements: &'a [u8],
}

impl<'a> BeaconParams<'a> {
    /// A broadcast beacon with interval 100 TU, ESS capability, no extra elements.
    pub const fn new(
        bssid: MacAddress,
        ssid: &'a [u8],
        rates: &'a [SupportedRate],
        channel: u8,
    ) -> Self {
        BeaconParams {
            da: MacAddress::BROADCAST,
            bssid,
            seq: 0,
            timestamp: 0,
            beacon_interval_tu: 100,
            capability: super::beacon::CAP_ESS,
            ssid,
            rates,
            channel,
            extra_elements: &[],
        }
    }

    /// The MAC header.
    pub fn header(&self) -> Repr {
        let mut r = Repr::new(FrameKind::Beacon, self.da);
        r.addr2 = Some(self.bssid);
        r.addr3 = Some(self.bssid);
        r.seq = self.seq;
        r
    }

    fn check(&self) -> Result<()> {
        if self.ssid.len() > 32 {
            return Err(Error::InvalidInput {
                what: "beacon SSID",
                reason: "longer than 32 bytes",
            });
        }
        if self.rates.is_empty() || self.rates.len() > 8 + 255 {
            return Err(Error::InvalidInput {
                what: "beacon supported rates",
                reason: "need 1 to 263 rates",
            });
        }
        Ok(())
    }

    /// Length of the body (fixed fields and elements), without header or FCS.
    pub fn body_len(&self) -> usize {
        let n = self.rates.len();
        let ext = if n > 8 { ie::element_len(n - 8) } else { 0 };
        FIXED_LEN
            + ie::element_len(self.ssid.len())
            + ie::element_len(n.min(8))
            + ie::element_len(1)
            + ext
            + self.extra_elements.len()
    }
}

/// Length of a beacon frame with these parameters.
pub fn beacon_frame_len(params: &BeaconParams<'_>, with_fcs: bool) -> usize {
    mpdu_len(&params.header(), params.body_len(), with_fcs)
}

/// Writes a beacon: header, timestamp (u64 LE), beacon interval (TU), capability,
/// SSID, Supported Rates (basic rates with bit 0x80), DSSS Parameter Set, Extended
/// Supported Rates if more than 8 rates, the extra elements, and optionally the FCS.
pub fn write_beacon_frame(
    buf: &mut [u8],
    params: &BeaconParams<'_>,
    with_fcs: bool,
) -> Result<usize> {
    params.check()?;
    let header = params.header();
    let total = mpdu_len(&header, params.body_len(), with_fcs);
    room("802.11 beacon", total, buf.len())?;
    let mut at = header.emit_into(buf)?;
    buf[at..at + 8].copy_from_slice(&params.timestamp.to_le_bytes());
    buf[at + 8..at + 10].copy_from_slice(&params.beacon_interval_tu.to_le_bytes());
    buf[at + 10..at + 12].copy_from_slice(&params.capability.to_le_bytes());
    at += FIXED_LEN;
    at += ie::write_element(&mut buf[at..], ie::SSID, params.ssid)?;
    let mut octets = [0u8; 8];
    let first = params.rates.len().min(8);
    for (o, r) in octets.iter_mut().zip(params.rates) {
        *o = r.octet();
    }
    at += ie::write_element(&mut buf[at..], ie::SUPPORTED_RATES, &octets[..first])?;
    at += ie::write_element(&mut buf[at..], ie::DS_PARAMETER_SET, &[params.channel])?;
    if params.rates.len() > 8 {
        let rest = &params.rates[8..];
        buf[at] = ie::EXTENDED_SUPPORTED_RATES;
        buf[at + 1] = rest.len() as u8; // <= 255, checked above
        for (i, r) in rest.iter().enumerate() {
            buf[at + 2 + i] = r.octet();
        }
        at += ie::element_len(rest.len());
    }
    buf[at..at + params.extra_elements.len()].copy_from_slice(params.extra_elements);
    at += params.extra_elements.len();
    finish(buf, at, with_fcs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_match_the_standard() {
        let a = MacAddress([2, 0, 0, 0, 1, 0]);
        let p = DataParams::new(a, a, a, 0x0800);
        assert_eq!(data_frame_len(&p, 50, true), 86);
        assert_eq!(data_frame_len(&p, 50, false), 82);
        let q = DataParams { qos: Some(QosControl::default()), ..p };
        assert_eq!(data_frame_len(&q, 50, true), 88);
        let four = DataParams { addr4: Some(a), ..q };
        assert_eq!(data_frame_len(&four, 0, false), 32 + 8);
        assert_eq!(ack_frame_len(true), 14);
        assert_eq!(rts_frame_len(true), 20);
        let mut buf = [0u8; 86];
        assert_eq!(write_data_frame(&mut buf, &p, &[0u8; 50], true).unwrap(), 86);
        assert!(crate::fcs::check_fcs(&buf));
        assert!(matches!(
            write_data_frame(&mut buf[..85], &p, &[0u8; 50], true),
            Err(Error::BufferTooSmall { need: 86, have: 85, .. })
        ));
    }

    #[test]
    fn beacon_input_checks() {
        let rates = [SupportedRate::new(2, true)];
        let b = MacAddress([2, 0, 0, 0, 0, 0]);
        let mut buf = [0u8; 200];
        let p = BeaconParams::new(b, &[b'x'; 33], &rates, 1);
        assert!(matches!(write_beacon_frame(&mut buf, &p, false), Err(Error::InvalidInput { .. })));
        let p = BeaconParams::new(b, b"x", &[], 1);
        assert!(matches!(write_beacon_frame(&mut buf, &p, false), Err(Error::InvalidInput { .. })));
    }
}
