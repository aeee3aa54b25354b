//! The 802.11 MAC header: a zero-copy view ([`Frame`]), the field layout that
//! follows from Frame Control ([`HeaderLayout`]) and a parsed representation ([`Repr`]).
//!
//! ```text
//!  0      2        4      10     16     22        24     30     30/32   +4
//! +------+--------+------+------+------+---------+------+------+-------+------+
//! |  FC  |dur/ID  |addr1 |addr2 |addr3 |seq ctrl |addr4 | QoS  |  HTC  | body |
//! +------+--------+------+------+------+---------+------+------+-------+------+
//! ```
//! Which fields exist depends on type, subtype and flags: ACK and CTS stop after
//! addr1 (10 bytes), RTS after addr2 (16), management frames have 24 bytes, data
//! frames 24, QoS data 26, four-address data 30 / 32, and an HT Control field
//! follows in management and QoS data frames whose +HTC/Order flag is set.

use super::frame_control::{FrameControl, FrameKind, FrameType};
use super::qos::QosControl;
use crate::{need, Error, MacAddress, Result};

/// Offset of the Frame Control field.
pub const FC_OFFSET: usize = 0;
/// Offset of the Duration/ID field.
pub const DURATION_OFFSET: usize = 2;
/// Offset of Address 1 (receiver address).
pub const ADDR1_OFFSET: usize = 4;
/// Offset of Address 2 (transmitter address), when present.
pub const ADDR2_OFFSET: usize = 10;
/// Offset of Address 3, when present.
pub const ADDR3_OFFSET: usize = 16;
/// Offset of Sequence Control, when present.
pub const SEQ_CTRL_OFFSET: usize = 22;
/// Offset of Address 4, when present.
pub const ADDR4_OFFSET: usize = 24;
/// Shortest 802.11 header (ACK, CTS): frame control, duration, addr1.
pub const MIN_HEADER_LEN: usize = 10;
/// Longest 802.11 header this crate knows: 4-address QoS data with HT Control.
pub const MAX_HEADER_LEN: usize = 36;

/// Where each header field sits, for one Frame Control value.
/// Offsets are from the start of the frame; `None` means the field is absent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HeaderLayout {
    /// Offset of Address 2.
    pub addr2: Option<usize>,
    /// Offset of Address 3.
    pub addr3: Option<usize>,
    /// Offset of Sequence Control.
    pub seq_ctrl: Option<usize>,
    /// Offset of Address 4.
    pub addr4: Option<usize>,
    /// Offset of QoS Control.
    pub qos: Option<usize>,
    /// Offset of HT Control.
    pub ht_control: Option<usize>,
    /// Total header length in bytes.
    pub len: usize,
}

impl HeaderLayout {
    /// The layout of the header that `fc` announces.
    ///
    /// Control frames carry a transmitter address (16-byte header) for subtypes
    /// Trigger (2), Beamforming Report Poll (4), VHT NDP Announcement (5),
    /// BlockAckReq (8), BlockAck (9), PS-Poll (10), RTS (11), CF-End (14) and
    /// CF-End+CF-Ack (15); the others (ACK, CTS, Control Wrapper, ...) end after
    /// addr1 and the rest is body. Extension frames (type 3) are likewise taken as
    /// frame control, duration and addr1 followed by body.
    pub const fn for_frame_control(fc: FrameControl) -> Self {
        let none = HeaderLayout {
            addr2: None,
            addr3: None,
            seq_ctrl: None,
            addr4: None,
            qos: None,
            ht_control: None,
            len: MIN_HEADER_LEN,
        };
        match fc.frame_type() {
            FrameType::Control => match fc.subtype() {
                2 | 4 | 5 | 8 | 9 | 10 | 11 | 14 | 15 => {
                    HeaderLayout { addr2: Some(ADDR2_OFFSET), len: 16, ..none }
                }
                _ => none,
            },
            FrameType::Extension => none,
            FrameType::Management => {
                let mut l = HeaderLayout {
                    addr2: Some(ADDR2_OFFSET),
                    addr3: Some(ADDR3_OFFSET),
                    seq_ctrl: Some(SEQ_CTRL_OFFSET),
                    len: 24,
                    ..none
                };
                if fc.order() {
                    l.ht_control = Some(24);
                    l.len = 28;
                }
                l
            }
            FrameType::Data => {
                let mut l = HeaderLayout {
                    addr2: Some(ADDR2_OFFSET),
                    addr3: Some(ADDR3_OFFSET),
                    seq_ctrl: Some(SEQ_CTRL_OFFSET),
                    len: 24,
                    ..none
                };
                if fc.to_ds() && fc.from_ds() {
                    l.addr4 = Some(ADDR4_OFFSET);
                    l.len = 30;
                }
                if fc.subtype() & 0x8 != 0 {
                    l.qos = Some(l.len);
                    l.len += 2;
                    if fc.order() {
                        l.ht_control = Some(l.len);
                        l.len += 4;
                    }
                }
                l
            }
        }
    }
}

/// The header length that `fc` announces (see [`HeaderLayout::for_frame_control`]).
pub const fn header_len(fc: FrameControl) -> usize {
    HeaderLayout::for_frame_control(fc).len
}

/// A zero-copy view of an 802.11 frame (MAC header followed by the frame body;
/// whether the buffer also holds the FCS is up to the caller).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame<T: AsRef<[u8]>> {
    buffer: T,
}

fn mac_at(b: &[u8], off: usize) -> MacAddress {
    let mut a = [0u8; 6];
    a.copy_from_slice(&b[off..off + 6]);
    MacAddress(a)
}

fn u16_at(b: &[u8], off: usize) -> u16 {
    u16::from_le_bytes([b[off], b[off + 1]])
}

impl<T: AsRef<[u8]>> Frame<T> {
    /// Wraps a buffer without checking it. Field accessors may panic if the buffer
    /// is shorter than the header it announces; use [`Frame::new_checked`] for input.
    pub const fn new_unchecked(buffer: T) -> Self {
        Frame { buffer }
    }

    /// Wraps a buffer after [`Frame::check_len`]: every accessor of the result is
    /// then safe to call.
    pub fn new_checked(buffer: T) -> Result<Self> {
        let f = Self::new_unchecked(buffer);
        f.check_len()?;
        Ok(f)
    }

    /// Checks that the buffer holds the whole header that its Frame Control field
    /// announces, and that the protocol version is 0. Truncation errors name the
    /// first field that does not fit.
    pub fn check_len(&self) -> Result<()> {
        let b = self.buffer.as_ref();
        need("802.11 header frame control", b, FC_OFFSET, 2)?;
        let fc = FrameControl::from_le_bytes([b[0], b[1]]);
        if fc.protocol_version() != 0 {
            return Err(Error::Malformed {
                what: "802.11 header frame control",
                offset: FC_OFFSET,
                reason: "protocol version is not 0",
            });
        }
        need("802.11 header duration", b, DURATION_OFFSET, 2)?;
        need("802.11 header addr1", b, ADDR1_OFFSET, 6)?;
        let l = HeaderLayout::for_frame_control(fc);
        let fields: [(&'static str, Option<usize>, usize); 6] = [
            ("802.11 header addr2", l.addr2, 6),
            ("802.11 header addr3", l.addr3, 6),
            ("802.11 header sequence control", l.seq_ctrl, 2),
            ("802.11 header addr4", l.addr4, 6),
            ("802.11 header QoS control", l.qos, 2),
            ("802.11 header HT control", l.ht_control, 4),
        ];
        for (what, off, len) in fields {
            if let Some(off) = off {
                need(what, b, off, len)?;
            }
        }
        Ok(())
    }

    /// The underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// The whole buffer, header included.
    pub fn as_bytes(&self) -> &[u8] {
        self.buffer.as_ref()
    }

    /// The Frame Control field.
    pub fn frame_control(&self) -> FrameControl {
        let b = self.buffer.as_ref();
        FrameControl::from_le_bytes([b[0], b[1]])
    }

    /// The frame kind (from type and subtype).
    pub fn kind(&self) -> FrameKind {
        self.frame_control().kind()
    }

    /// The field layout announced by Frame Control.
    pub fn layout(&self) -> HeaderLayout {
        HeaderLayout::for_frame_control(self.frame_control())
    }

    /// The header length announced by Frame Control.
    pub fn header_len(&self) -> usize {
        self.layout().len
    }

    /// The Duration/ID field (microseconds, or an AID in PS-Poll).
    pub fn duration(&self) -> u16 {
        u16_at(self.buffer.as_ref(), DURATION_OFFSET)
    }

    /// Address 1 (receiver address).
    pub fn addr1(&self) -> MacAddress {
        mac_at(self.buffer.as_ref(), ADDR1_OFFSET)
    }

    /// Address 2 (transmitter address), if this kind of frame has it.
    pub fn addr2(&self) -> Option<MacAddress> {
        self.layout().addr2.map(|o| mac_at(self.buffer.as_ref(), o))
    }

    /// Address 3, if this kind of frame has it.
    pub fn addr3(&self) -> Option<MacAddress> {
        self.layout().addr3.map(|o| mac_at(self.buffer.as_ref(), o))
    }

    /// Address 4 (data frames with both To DS and From DS), if present.
    pub fn addr4(&self) -> Option<MacAddress> {
        self.layout().addr4.map(|o| mac_at(self.buffer.as_ref(), o))
    }

    /// The raw Sequence Control field, if present.
    pub fn seq_ctrl(&self) -> Option<u16> {
        self.layout().seq_ctrl.map(|o| u16_at(self.buffer.as_ref(), o))
    }

    /// The 12-bit sequence number, if present.
    pub fn seq_number(&self) -> Option<u16> {
        self.seq_ctrl().map(|s| s >> 4)
    }

    /// The 4-bit fragment number, if present.
    pub fn frag_number(&self) -> Option<u8> {
        self.seq_ctrl().map(|s| (s & 0xF) as u8)
    }

    /// The QoS Control field (QoS data subtypes), if present.
    pub fn qos_control(&self) -> Option<QosControl> {
        self.layout().qos.map(|o| QosControl::from_u16(u16_at(self.buffer.as_ref(), o)))
    }

    /// The HT Control field (management and QoS data frames with +HTC/Order), if present.
    pub fn ht_control(&self) -> Option<u32> {
        self.layout().ht_control.map(|o| {
            let b = self.buffer.as_ref();
            u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]])
        })
    }

    /// The bytes after the header: the frame body, plus the FCS if the buffer holds it.
    pub fn payload(&self) -> &[u8] {
        let b = self.buffer.as_ref();
        b.get(self.header_len()..).unwrap_or(&[])
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Frame<T> {
    fn set_optional(&mut self, what: &'static str, off: Option<usize>, bytes: &[u8]) -> Result<()> {
        match off {
            Some(o) => {
                let buf = self.buffer.as_mut();
                need(what, buf, o, bytes.len())?;
                buf[o..o + bytes.len()].copy_from_slice(bytes);
                Ok(())
            }
            None => Err(Error::InvalidInput { what, reason: "this frame has no such field" }),
        }
    }

    /// Writes the Frame Control field (which decides the layout of the rest).
    pub fn set_frame_control(&mut self, fc: FrameControl) {
        self.buffer.as_mut()[0..2].copy_from_slice(&fc.to_le_bytes());
    }

    /// Writes the Duration/ID field.
    pub fn set_duration(&mut self, d: u16) {
        self.buffer.as_mut()[2..4].copy_from_slice(&d.to_le_bytes());
    }

    /// Writes Address 1.
    pub fn set_addr1(&mut self, a: MacAddress) {
        self.buffer.as_mut()[4..10].copy_from_slice(&a.0);
    }

    /// Writes Address 2; an error if this kind of frame has none.
    pub fn set_addr2(&mut self, a: MacAddress) -> Result<()> {
        let off = self.layout().addr2;
        self.set_optional("802.11 header addr2", off, &a.0)
    }

    /// Writes Address 3; an error if this kind of frame has none.
    pub fn set_addr3(&mut self, a: MacAddress) -> Result<()> {
        let off = self.layout().addr3;
        self.set_optional("802.11 header addr3", off, &a.0)
    }

    /// Writes Address 4; an error unless both To DS and From DS are set in a data frame.
    pub fn set_addr4(&mut self, a: MacAddress) -> Result<()> {
        let off = self.layout().addr4;
        self.set_optional("802.11 header addr4", off, &a.0)
    }

    /// Writes the raw Sequence Control field; an error if this kind of frame has none.
    pub fn set_seq_ctrl(&mut self, v: u16) -> Result<()> {
        let off = self.layout().seq_ctrl;
        self.set_optional("802.11 header sequence control", off, &v.to_le_bytes())
    }

    /// Writes sequence number (12 bits) and fragment number (4 bits).
    pub fn set_seq_frag(&mut self, seq: u16, frag: u8) -> Result<()> {
        if seq > 0x0FFF || frag > 0xF {
            return Err(Error::InvalidInput {
                what: "802.11 header sequence control",
                reason: "sequence number must be < 4096 and fragment number < 16",
            });
        }
        self.set_seq_ctrl(seq << 4 | frag as u16)
    }

    /// Writes the QoS Control field; an error unless this is a QoS data subtype.
    pub fn set_qos_control(&mut self, q: QosControl) -> Result<()> {
        let off = self.layout().qos;
        self.set_optional("802.11 header QoS control", off, &q.to_u16().to_le_bytes())
    }

    /// Writes the HT Control field; an error unless the layout has one.
    pub fn set_ht_control(&mut self, v: u32) -> Result<()> {
        let off = self.layout().ht_control;
        self.set_optional("802.11 header HT control", off, &v.to_le_bytes())
    }

    /// The bytes after the header, writable.
    pub fn payload_mut(&mut self) -> &mut [u8] {
        let h = self.header_len();
        self.buffer.as_mut().get_mut(h..).unwrap_or(&mut [])
    }
}

/// A parsed 802.11 MAC header.
///
/// The optional fields are `Some` exactly when the layout that follows from `kind`,
/// `to_ds`, `from_ds` and `order` has them (see [`HeaderLayout`]); [`Repr::emit`]
/// refuses a `Repr` that breaks this rule. `seq` and `frag` are 0 in frames without
/// Sequence Control (control and extension frames) and are then not written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Repr {
    /// Frame kind (type and subtype).
    pub kind: FrameKind,
    /// To DS flag.
    pub to_ds: bool,
    /// From DS flag.
    pub from_ds: bool,
    /// More Fragments flag.
    pub more_frag: bool,
    /// Retry flag.
    pub retry: bool,
    /// Power Management flag.
    pub pwr_mgmt: bool,
    /// More Data flag.
    pub more_data: bool,
    /// Protected Frame flag.
    pub protected: bool,
    /// +HTC/Order flag.
    pub order: bool,
    /// Duration/ID.
    pub duration: u16,
    /// Address 1 (receiver address, RA).
    pub addr1: MacAddress,
    /// Address 2 (transmitter address, TA).
    pub addr2: Option<MacAddress>,
    /// Address 3.
    pub addr3: Option<MacAddress>,
    /// Sequence number, 0..=4095.
    pub seq: u16,
    /// Fragment number, 0..=15.
    pub frag: u8,
    /// Address 4.
    pub addr4: Option<MacAddress>,
    /// QoS Control.
    pub qos: Option<QosControl>,
    /// HT Control.
    pub ht_control: Option<u32>,
}

impl Repr {
    /// A header of `kind` addressed to `addr1` with every flag clear, duration 0,
    /// sequence 0 and every optional field that the layout needs set to zero /
    /// default (addresses `00:..:00`, QoS TID 0 normal ack).
    pub fn new(kind: FrameKind, addr1: MacAddress) -> Self {
        let mut r = Repr {
            kind,
            to_ds: false,
            from_ds: false,
            more_frag: false,
            retry: false,
            pwr_mgmt: false,
            more_data: false,
            protected: false,
            order: false,
            duration: 0,
            addr1,
            addr2: None,
            addr3: None,
            seq: 0,
            frag: 0,
            addr4: None,
            qos: None,
            ht_control: None,
        };
        r.fill_layout();
        r
    }

    /// Makes the optional fields agree with the layout: fields the layout lacks become
    /// `None` (and `seq`/`frag` 0 without Sequence Control); fields it needs but that are
    /// `None` become zero/default. Useful after changing `kind`, `to_ds`, `from_ds` or `order`.
    pub fn fill_layout(&mut self) {
        let l = self.layout();
        fn fit<X: Default>(want: bool, v: Option<X>) -> Option<X> {
            if want {
                Some(v.unwrap_or_default())
            } else {
                None
            }
        }
        self.addr2 = fit(l.addr2.is_some(), self.addr2);
        self.addr3 = fit(l.addr3.is_some(), self.addr3);
        self.addr4 = fit(l.addr4.is_some(), self.addr4);
        self.qos = fit(l.qos.is_some(), self.qos);
        self.ht_control = fit(l.ht_control.is_some(), self.ht_control);
        if l.seq_ctrl.is_none() {
            self.seq = 0;
            self.frag = 0;
        }
    }

    /// The Frame Control value this header has.
    pub fn frame_control(&self) -> FrameControl {
        let mut fc = FrameControl::new(self.kind);
        fc.set_to_ds(self.to_ds);
        fc.set_from_ds(self.from_ds);
        fc.set_more_frag(self.more_frag);
        fc.set_retry(self.retry);
        fc.set_pwr_mgmt(self.pwr_mgmt);
        fc.set_more_data(self.more_data);
        fc.set_protected(self.protected);
        fc.set_order(self.order);
        fc
    }

    /// The field layout of this header.
    pub fn layout(&self) -> HeaderLayout {
        HeaderLayout::for_frame_control(self.frame_control())
    }

    /// Parses the header of a frame view (checking its length first).
    pub fn parse<T: AsRef<[u8]>>(frame: &Frame<T>) -> Result<Repr> {
        frame.check_len()?;
        let fc = frame.frame_control();
        Ok(Repr {
            kind: fc.kind(),
            to_ds: fc.to_ds(),
            from_ds: fc.from_ds(),
            more_frag: fc.more_frag(),
            retry: fc.retry(),
            pwr_mgmt: fc.pwr_mgmt(),
            more_data: fc.more_data(),
            protected: fc.protected(),
            order: fc.order(),
            duration: frame.duration(),
            addr1: frame.addr1(),
            addr2: frame.addr2(),
            addr3: frame.addr3(),
            seq: frame.seq_number().unwrap_or(0),
            frag: frame.frag_number().unwrap_or(0),
            addr4: frame.addr4(),
            qos: frame.qos_control(),
            ht_control: frame.ht_control(),
        })
    }

    /// Length of the header on the wire.
    pub fn buffer_len(&self) -> usize {
        self.layout().len
    }

    /// Checks that the optional fields agree with the layout and values fit their bits.
    pub fn validate(&self) -> Result<()> {
        let l = self.layout();
        let checks: [(&'static str, bool, bool); 5] = [
            ("802.11 header addr2", l.addr2.is_some(), self.addr2.is_some()),
            ("802.11 header addr3", l.addr3.is_some(), self.addr3.is_some()),
            ("802.11 header addr4", l.addr4.is_some(), self.addr4.is_some()),
            ("802.11 header QoS control", l.qos.is_some(), self.qos.is_some()),
            ("802.11 header HT control", l.ht_control.is_some(), self.ht_control.is_some()),
        ];
        for (what, want, have) in checks {
            if want && !have {
                return Err(Error::InvalidInput {
                    what,
                    reason: "this frame needs the field but it is None",
                });
            }
            if have && !want {
                return Err(Error::InvalidInput {
                    what,
                    reason: "this frame has no such field but it is Some",
                });
            }
        }
        if self.seq > 0x0FFF {
            return Err(Error::InvalidInput {
                what: "802.11 header sequence number",
                reason: "must be < 4096",
            });
        }
        if self.frag > 0xF {
            return Err(Error::InvalidInput {
                what: "802.11 header fragment number",
                reason: "must be < 16",
            });
        }
        if let Some(q) = self.qos {
            if q.tid > 0xF {
                return Err(Error::InvalidInput {
                    what: "802.11 header QoS TID",
                    reason: "must be < 16",
                });
            }
        }
        Ok(())
    }

    /// Writes the header at the start of `frame`'s buffer. Fails, writing nothing,
    /// if the `Repr` does not [`validate`](Repr::validate) or the buffer is shorter
    /// than [`buffer_len`](Repr::buffer_len).
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, frame: &mut Frame<T>) -> Result<()> {
        self.validate()?;
        let len = self.buffer_len();
        crate::room("802.11 header", len, frame.buffer.as_ref().len())?;
        frame.set_frame_control(self.frame_control());
        frame.set_duration(self.duration);
        frame.set_addr1(self.addr1);
        let l = self.layout();
        let b = frame.buffer.as_mut();
        if let (Some(o), Some(a)) = (l.addr2, self.addr2) {
            b[o..o + 6].copy_from_slice(&a.0);
        }
        if let (Some(o), Some(a)) = (l.addr3, self.addr3) {
            b[o..o + 6].copy_from_slice(&a.0);
        }
        if let Some(o) = l.seq_ctrl {
            b[o..o + 2].copy_from_slice(&(self.seq << 4 | self.frag as u16).to_le_bytes());
        }
        if let (Some(o), Some(a)) = (l.addr4, self.addr4) {
            b[o..o + 6].copy_from_slice(&a.0);
        }
        if let (Some(o), Some(q)) = (l.qos, self.qos) {
            b[o..o + 2].copy_from_slice(&q.to_u16().to_le_bytes());
        }
        if let (Some(o), Some(h)) = (l.ht_control, self.ht_control) {
            b[o..o + 4].copy_from_slice(&h.to_le_bytes());
        }
        Ok(())
    }

    /// Writes the header into the start of a byte slice and returns its length.
    pub fn emit_into(&self, buf: &mut [u8]) -> Result<usize> {
        self.emit(&mut Frame::new_unchecked(&mut *buf))?;
        Ok(self.buffer_len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_lengths() {
        let len = |k: FrameKind, to: bool, from: bool, order: bool| {
            let mut fc = FrameControl::new(k);
            fc.set_to_ds(to);
            fc.set_from_ds(from);
            fc.set_order(order);
            header_len(fc)
        };
        assert_eq!(len(FrameKind::Ack, false, false, false), 10);
        assert_eq!(len(FrameKind::Cts, false, false, false), 10);
        assert_eq!(len(FrameKind::Rts, false, false, false), 16);
        assert_eq!(len(FrameKind::Data, true, false, false), 24);
        assert_eq!(len(FrameKind::Data, false, false, true), 24);
        assert_eq!(len(FrameKind::QosData, false, true, false), 26);
        assert_eq!(len(FrameKind::Data, true, true, false), 30);
        assert_eq!(len(FrameKind::QosData, true, true, false), 32);
        assert_eq!(len(FrameKind::QosData, true, true, true), 36);
        assert_eq!(len(FrameKind::Beacon, false, false, false), 24);
        assert_eq!(len(FrameKind::Action, false, false, true), 28);
        assert_eq!(len(FrameKind::Null, false, false, false), 24);
        assert_eq!(len(FrameKind::QosNull, false, false, false), 26);
    }

    #[test]
    fn truncation_names_field() {
        // Data frame header cut inside addr3.
        let mut b = [0u8; 18];
        b[0] = 0x08;
        assert_eq!(
            Frame::new_checked(&b[..]).unwrap_err(),
            Error::Truncated { what: "802.11 header addr3", offset: 16, need: 22, have: 18 }
        );
        assert_eq!(
            Frame::new_checked(&b[..1]).unwrap_err(),
            Error::Truncated { what: "802.11 header frame control", offset: 0, need: 2, have: 1 }
        );
        b[0] = 0x09; // protocol version 1
        assert!(matches!(Frame::new_checked(&b[..]), Err(Error::Malformed { offset: 0, .. })));
    }

    #[test]
    fn emit_rejects_inconsistent_repr() {
        let mut r = Repr::new(FrameKind::Ack, MacAddress::BROADCAST);
        r.addr2 = Some(MacAddress::ZERO);
        let mut buf = [0u8; 32];
        assert!(matches!(
            r.emit_into(&mut buf),
            Err(Error::InvalidInput { what: "802.11 header addr2", .. })
        ));
        let mut r = Repr::new(FrameKind::Data, MacAddress::BROADCAST);
        r.seq = 4096;
        assert!(r.emit_into(&mut buf).is_err());
        let r = Repr::new(FrameKind::Data, MacAddress::BROADCAST);
        assert!(matches!(
            r.emit_into(&mut buf[..23]),
            Err(Error::BufferTooSmall { need: 24, have: 23, .. })
        ));
    }

    #[test]
    fn setters_refuse_absent_fields() {
        let mut b = [0u8; 10];
        b[0] = 0xd4; // ACK
        let mut f = Frame::new_checked(&mut b[..]).unwrap();
        assert!(f.set_addr2(MacAddress::BROADCAST).is_err());
        assert!(f.set_seq_frag(1, 0).is_err());
        f.set_duration(44);
        assert_eq!(f.duration(), 44);
        assert_eq!(f.payload(), &[] as &[u8]);
    }
}
