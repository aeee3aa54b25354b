//! Reading a message from its attributes and writing it back (`HwsimMsg::parse`
//! and `HwsimMsg::emit`).

use super::{
    attr, attr_name, cmd, cmd_name, decode_tx_info, decode_tx_info_flags, encode_tx_info,
    encode_tx_info_flags, HwsimFlags, HwsimMsg, MacAddrEvent, RadioInfo, RxFrame, TxFrame,
    TxInfoFrame, MIN_RX_FRAME_LEN, VERSION,
};
use crate::attr::{attr_space, Attr, AttrWriter, RawAttr};
use crate::genl::{emit_message, GenlHeader, GenlMsg, GENL_HDRLEN};
use crate::nl::{NlHeader, NlPacket, NLMSG_HDRLEN};
use crate::{room, Error, Result};

/// Known attributes of a message, by type (last one wins, as in the kernel), plus the
/// unknown ones in order.
struct Slots<'a> {
    pub(super) known: [Option<Attr<'a>>; attr::MAX_KNOWN as usize + 1],
    pub(super) extra: Vec<RawAttr<'a>>,
    pub(super) msg: &'static str,
}

impl<'a> Slots<'a> {
    fn collect(m: &GenlMsg<'a>, keep_extra: bool) -> Result<Slots<'a>> {
        let mut s = Slots {
            known: [None; attr::MAX_KNOWN as usize + 1],
            extra: Vec::new(),
            msg: cmd_name(m.genl.cmd),
        };
        for a in m.attrs(attr_name) {
            let a = a?;
            match a.kind() {
                attr::PAD => {}
                k @ 1..=attr::MAX_KNOWN => s.known[k as usize] = Some(a),
                _ if keep_extra => s.extra.push(a.into()),
                _ => {}
            }
        }
        Ok(s)
    }

    fn take(&mut self, ty: u16) -> Option<Attr<'a>> {
        self.known[ty as usize].take()
    }

    pub(super) fn has(&self, ty: u16) -> bool {
        self.known[ty as usize].is_some()
    }

    fn req(&mut self, ty: u16) -> Result<Attr<'a>> {
        self.take(ty).ok_or(Error::MissingAttribute {
            msg: self.msg,
            attr: ty,
            name: attr_name(ty),
        })
    }

    pub(super) fn flag(&mut self, ty: u16) -> bool {
        self.take(ty).is_some()
    }

    /// Unknown attributes, then the known ones no field took (in type order).
    fn leftovers(mut self) -> Vec<RawAttr<'a>> {
        for a in self.known.iter_mut().filter_map(Option::take) {
            self.extra.push(a.into());
        }
        self.extra
    }
}

fn parse_radio<'a>(mut s: Slots<'a>) -> Result<RadioInfo<'a>> {
    let mut r = RadioInfo {
        radio_id: s.take(attr::RADIO_ID).map(|a| a.u32()).transpose()?,
        name: s.take(attr::RADIO_NAME).map(|a| a.str()).transpose()?,
        channels: s.take(attr::CHANNELS).map(|a| a.u32()).transpose()?,
        perm_addr: s.take(attr::PERM_ADDR).map(|a| a.mac()).transpose()?,
        reg_alpha2: None,
        reg_custom_reg: s.take(attr::REG_CUSTOM_REG).map(|a| a.u32()).transpose()?,
        reg_strict: s.flag(attr::REG_STRICT_REG),
        p2p_device: s.flag(attr::SUPPORT_P2P_DEVICE),
        use_chanctx: s.flag(attr::USE_CHANCTX),
        destroy_on_close: s.flag(attr::DESTROY_RADIO_ON_CLOSE),
        no_vif: s.flag(attr::NO_VIF),
        extra: Vec::new(),
    };
    if let Some(a) = s.take(attr::REG_HINT_ALPHA2) {
        // Two letters, optionally NUL-terminated.
        r.reg_alpha2 = match a.payload() {
            [x, y] | [x, y, 0] => Some([*x, *y]),
            _ => return Err(a.error("expected 2 letters")),
        };
    }
    r.extra = s.leftovers();
    Ok(r)
}

/// Where [`HwsimMsg::write_attrs`] puts attributes: a writer, or a byte counter.
trait Sink {
    fn put(&mut self, ty: u16, payload: &[u8]) -> Result<()>;
}

impl Sink for AttrWriter<'_> {
    fn put(&mut self, ty: u16, payload: &[u8]) -> Result<()> {
        AttrWriter::put(self, ty, payload)
    }
}

struct Count(usize);

impl Sink for Count {
    fn put(&mut self, _ty: u16, payload: &[u8]) -> Result<()> {
        self.0 += attr_space(payload.len());
        Ok(())
    }
}

impl<'a> HwsimMsg<'a> {
    /// The command number.
    pub fn cmd(&self) -> u8 {
        match self {
            HwsimMsg::Register => cmd::REGISTER,
            HwsimMsg::Frame(_) | HwsimMsg::Delivery(_) => cmd::FRAME,
            HwsimMsg::TxInfo(_) => cmd::TX_INFO_FRAME,
            HwsimMsg::NewRadio(_) => cmd::NEW_RADIO,
            HwsimMsg::DelRadio(_) => cmd::DEL_RADIO,
            HwsimMsg::GetRadio(_) => cmd::GET_RADIO,
            HwsimMsg::AddMacAddr(_) => cmd::ADD_MAC_ADDR,
            HwsimMsg::DelMacAddr(_) => cmd::DEL_MAC_ADDR,
            HwsimMsg::Unknown { cmd, .. } => *cmd,
        }
    }

    /// Parses a netlink message of the hwsim family (the caller checks that
    /// `packet.header().ty` is the family id). The genl version is not checked.
    pub fn parse(packet: &NlPacket<'a>) -> Result<HwsimMsg<'a>> {
        Self::parse_genl(&GenlMsg::parse(packet)?)
    }

    /// Parses the generic netlink part of a hwsim message.
    ///
    /// Unknown attributes are skipped (or kept in `extra` for frames from the kernel
    /// and radio descriptions); a known attribute of the wrong size is an
    /// [`Error::Attribute`], a required one missing an [`Error::MissingAttribute`].
    pub fn parse_genl(m: &GenlMsg<'a>) -> Result<HwsimMsg<'a>> {
        let c = m.genl.cmd;
        Ok(match c {
            cmd::REGISTER => HwsimMsg::Register,
            cmd::FRAME => {
                let mut s = Slots::collect(m, true)?;
                if s.has(attr::ADDR_TRANSMITTER) {
                    HwsimMsg::Frame(TxFrame {
                        transmitter: s.req(attr::ADDR_TRANSMITTER)?.mac()?,
                        frame: s.req(attr::FRAME)?.payload(),
                        flags: HwsimFlags(s.req(attr::FLAGS)?.u32()?),
                        freq: s.take(attr::FREQ).map(|a| a.u32()).transpose()?,
                        tx_info: decode_tx_info(&s.req(attr::TX_INFO)?)?,
                        tx_info_flags: s
                            .take(attr::TX_INFO_FLAGS)
                            .map(|a| decode_tx_info_flags(&a))
                            .transpose()?,
                        cookie: s.req(attr::COOKIE)?.u64()?,
                        extra: s.leftovers(),
                    })
                } else {
                    HwsimMsg::Delivery(RxFrame {
                        receiver: s.req(attr::ADDR_RECEIVER)?.mac()?,
                        frame: s.req(attr::FRAME)?.payload(),
                        rx_rate: s.req(attr::RX_RATE)?.u32()?,
                        signal: s.req(attr::SIGNAL)?.i32()?,
                        freq: s.req(attr::FREQ)?.u32()?,
                    })
                }
            }
            cmd::TX_INFO_FRAME => {
                let mut s = Slots::collect(m, false)?;
                HwsimMsg::TxInfo(TxInfoFrame {
                    transmitter: s.req(attr::ADDR_TRANSMITTER)?.mac()?,
                    flags: HwsimFlags(s.req(attr::FLAGS)?.u32()?),
                    cookie: s.req(attr::COOKIE)?.u64()?,
                    signal: s.req(attr::SIGNAL)?.i32()?,
                    tx_info: decode_tx_info(&s.req(attr::TX_INFO)?)?,
                })
            }
            cmd::NEW_RADIO => HwsimMsg::NewRadio(parse_radio(Slots::collect(m, true)?)?),
            cmd::DEL_RADIO => HwsimMsg::DelRadio(parse_radio(Slots::collect(m, true)?)?),
            cmd::GET_RADIO => HwsimMsg::GetRadio(parse_radio(Slots::collect(m, true)?)?),
            cmd::ADD_MAC_ADDR | cmd::DEL_MAC_ADDR => {
                let mut s = Slots::collect(m, false)?;
                let ev = MacAddrEvent {
                    radio: s.req(attr::ADDR_TRANSMITTER)?.mac()?,
                    addr: s.req(attr::ADDR_RECEIVER)?.mac()?,
                };
                if c == cmd::ADD_MAC_ADDR {
                    HwsimMsg::AddMacAddr(ev)
                } else {
                    HwsimMsg::DelMacAddr(ev)
                }
            }
            cmd => HwsimMsg::Unknown { cmd, attrs: m.attrs },
        })
    }

    fn write_attrs<S: Sink>(&self, s: &mut S) -> Result<()> {
        match self {
            HwsimMsg::Register => {}
            HwsimMsg::Frame(f) => {
                s.put(attr::ADDR_TRANSMITTER, &f.transmitter)?;
                s.put(attr::FRAME, f.frame)?;
                s.put(attr::FLAGS, &f.flags.0.to_ne_bytes())?;
                if let Some(freq) = f.freq {
                    s.put(attr::FREQ, &freq.to_ne_bytes())?;
                }
                s.put(attr::TX_INFO, &encode_tx_info(&f.tx_info))?;
                if let Some(fl) = &f.tx_info_flags {
                    s.put(attr::TX_INFO_FLAGS, &encode_tx_info_flags(fl))?;
                }
                s.put(attr::COOKIE, &f.cookie.to_ne_bytes())?;
                for x in &f.extra {
                    s.put(x.raw_type, x.payload)?;
                }
            }
            HwsimMsg::Delivery(d) => {
                if d.frame.len() < MIN_RX_FRAME_LEN {
                    return Err(Error::InvalidInput {
                        what: "HWSIM_ATTR_FRAME of a delivery",
                        reason: "shorter than 24 bytes (the kernel rejects it with EINVAL)",
                    });
                }
                s.put(attr::ADDR_RECEIVER, &d.receiver)?;
                s.put(attr::FRAME, d.frame)?;
                s.put(attr::RX_RATE, &d.rx_rate.to_ne_bytes())?;
                s.put(attr::SIGNAL, &d.signal.to_ne_bytes())?;
                s.put(attr::FREQ, &d.freq.to_ne_bytes())?;
            }
            HwsimMsg::TxInfo(t) => {
                s.put(attr::ADDR_TRANSMITTER, &t.transmitter)?;
                s.put(attr::FLAGS, &t.flags.0.to_ne_bytes())?;
                s.put(attr::COOKIE, &t.cookie.to_ne_bytes())?;
                s.put(attr::SIGNAL, &t.signal.to_ne_bytes())?;
                s.put(attr::TX_INFO, &encode_tx_info(&t.tx_info))?;
            }
            HwsimMsg::NewRadio(r) | HwsimMsg::DelRadio(r) | HwsimMsg::GetRadio(r) => {
                if let Some(id) = r.radio_id {
                    s.put(attr::RADIO_ID, &id.to_ne_bytes())?;
                }
                if let Some(a) = &r.reg_alpha2 {
                    s.put(attr::REG_HINT_ALPHA2, a)?;
                }
                if let Some(c) = r.reg_custom_reg {
                    s.put(attr::REG_CUSTOM_REG, &c.to_ne_bytes())?;
                }
                for (on, ty) in [
                    (r.reg_strict, attr::REG_STRICT_REG),
                    (r.destroy_on_close, attr::DESTROY_RADIO_ON_CLOSE),
                    (r.p2p_device, attr::SUPPORT_P2P_DEVICE),
                    (r.use_chanctx, attr::USE_CHANCTX),
                    (r.no_vif, attr::NO_VIF),
                ] {
                    if on {
                        s.put(ty, &[])?;
                    }
                }
                if let Some(c) = r.channels {
                    s.put(attr::CHANNELS, &c.to_ne_bytes())?;
                }
                if let Some(n) = r.name {
                    if n.contains('\0') {
                        return Err(Error::InvalidInput {
                            what: "HWSIM_ATTR_RADIO_NAME",
                            reason: "contains a NUL byte",
                        });
                    }
                    // Written without a NUL, as the kernel does.
                    s.put(attr::RADIO_NAME, n.as_bytes())?;
                }
                if let Some(p) = &r.perm_addr {
                    s.put(attr::PERM_ADDR, p)?;
                }
                for x in &r.extra {
                    s.put(x.raw_type, x.payload)?;
                }
            }
            HwsimMsg::AddMacAddr(e) | HwsimMsg::DelMacAddr(e) => {
                s.put(attr::ADDR_TRANSMITTER, &e.radio)?;
                s.put(attr::ADDR_RECEIVER, &e.addr)?;
            }
            HwsimMsg::Unknown { .. } => {}
        }
        Ok(())
    }

    fn count_attrs(&self) -> Result<usize> {
        if let HwsimMsg::Unknown { attrs, .. } = self {
            return Ok(attrs.len());
        }
        let mut c = Count(0);
        self.write_attrs(&mut c)?;
        Ok(c.0)
    }

    /// Bytes of attributes [`HwsimMsg::emit`] writes (0 if the message cannot be
    /// emitted: `emit` then reports why).
    pub fn attrs_len(&self) -> usize {
        self.count_attrs().unwrap_or(0)
    }

    /// Bytes [`HwsimMsg::emit`] writes: netlink and genl headers plus attributes.
    pub fn buffer_len(&self) -> usize {
        NLMSG_HDRLEN + GENL_HDRLEN + self.attrs_len()
    }

    /// Writes the whole netlink message into `buf`: `hdr` gives type (the family id),
    /// flags, seq and pid (its `len` is computed); the genl header carries
    /// [`HwsimMsg::cmd`] and version [`VERSION`]. Returns the length written.
    ///
    /// Fails with [`Error::BufferTooSmall`] if `buf` is shorter than
    /// [`HwsimMsg::buffer_len`], and with [`Error::InvalidInput`] for a value the
    /// kernel would reject or the wire cannot carry (a delivery shorter than 24 bytes,
    /// a radio name with a NUL, a payload over 65531 bytes). `Unknown` messages are
    /// written with their attribute bytes as they are.
    pub fn emit(&self, hdr: &NlHeader, buf: &mut [u8]) -> Result<usize> {
        let len = NLMSG_HDRLEN + GENL_HDRLEN + self.count_attrs()?;
        room(cmd_name(self.cmd()), len, buf.len())?;
        let genl = GenlHeader { cmd: self.cmd(), version: VERSION };
        emit_message(hdr, genl, &mut buf[..len], |w| match self {
            HwsimMsg::Unknown { attrs, .. } => w.put_bytes(attrs),
            m => m.write_attrs(w),
        })
    }

    /// [`HwsimMsg::emit`] into a new vector.
    pub fn to_vec(&self, hdr: &NlHeader) -> Result<Vec<u8>> {
        let mut v = vec![0u8; self.buffer_len()];
        let n = self.emit(hdr, &mut v)?;
        v.truncate(n);
        Ok(v)
    }
}
