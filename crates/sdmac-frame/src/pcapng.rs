//! pcapng: a writer (one section, one interface, nanosecond timestamps) and a minimal
//! reader for tests and tools.
//!
//! Blocks written (all little-endian):
//! - Section Header Block: type `0x0A0D0D0A`, byte-order magic `0x1A2B3C4D`,
//!   version 1.0, section length -1 (unknown).
//! - Interface Description Block: link type, snaplen 0 (no limit), options
//!   `if_name` (2) and `if_tsresol` (9) = 9, i.e. timestamps in nanoseconds.
//! - Enhanced Packet Block per packet: interface 0, 64-bit timestamp split into high
//!   and low 32 bits, captured and original length, data padded to 4 bytes.

use crate::{Error, Result};
use std::io::{self, Write};

/// Link type: raw IEEE 802.11 frames.
pub const LINKTYPE_IEEE802_11: u16 = 105;
/// Link type: IEEE 802.11 frames preceded by a radiotap header.
pub const LINKTYPE_IEEE802_11_RADIOTAP: u16 = 127;

/// Block type: Section Header Block.
pub const BLOCK_SHB: u32 = 0x0A0D_0D0A;
/// Block type: Interface Description Block.
pub const BLOCK_IDB: u32 = 0x0000_0001;
/// Block type: Enhanced Packet Block.
pub const BLOCK_EPB: u32 = 0x0000_0006;
/// Block type: Simple Packet Block.
pub const BLOCK_SPB: u32 = 0x0000_0003;
/// Byte-order magic of the Section Header Block.
pub const BYTE_ORDER_MAGIC: u32 = 0x1A2B_3C4D;

const OPT_ENDOFOPT: u16 = 0;
const OPT_IF_NAME: u16 = 2;
const OPT_IF_TSRESOL: u16 = 9;

const fn pad4(n: usize) -> usize {
    (n + 3) & !3
}

/// Writes a pcapng stream with one interface whose timestamps are nanoseconds.
#[derive(Debug)]
pub struct PcapngWriter<W: Write> {
    w: W,
    packets: u64,
}

impl<W: Write> PcapngWriter<W> {
    /// Writes the Section Header Block and an Interface Description Block for
    /// `linktype` (e.g. [`LINKTYPE_IEEE802_11_RADIOTAP`]) named `if_name`.
    pub fn new(mut w: W, linktype: u16, if_name: &str) -> io::Result<Self> {
        // Section Header Block, no options.
        let mut shb = [0u8; 28];
        shb[0..4].copy_from_slice(&BLOCK_SHB.to_le_bytes());
        shb[4..8].copy_from_slice(&28u32.to_le_bytes());
        shb[8..12].copy_from_slice(&BYTE_ORDER_MAGIC.to_le_bytes());
        shb[12..14].copy_from_slice(&1u16.to_le_bytes());
        shb[14..16].copy_from_slice(&0u16.to_le_bytes());
        shb[16..24].copy_from_slice(&(-1i64).to_le_bytes());
        shb[24..28].copy_from_slice(&28u32.to_le_bytes());
        w.write_all(&shb)?;

        let name = if_name.as_bytes();
        let name_len = u16::try_from(name.len()).ok().filter(|&n| n < 0xFFF0).ok_or_else(|| {
            io::Error::new(io::ErrorKind::InvalidInput, "pcapng if_name too long")
        })?;
        let opts_len = if name.is_empty() { 0 } else { 4 + pad4(name.len()) } + 8 + 4;
        let total = 16 + opts_len + 4;
        let mut idb = Vec::with_capacity(total);
        idb.extend_from_slice(&BLOCK_IDB.to_le_bytes());
        idb.extend_from_slice(&(total as u32).to_le_bytes());
        idb.extend_from_slice(&linktype.to_le_bytes());
        idb.extend_from_slice(&0u16.to_le_bytes()); // reserved
        idb.extend_from_slice(&0u32.to_le_bytes()); // snaplen: 0 = no limit
        if !name.is_empty() {
            idb.extend_from_slice(&OPT_IF_NAME.to_le_bytes());
            idb.extend_from_slice(&name_len.to_le_bytes());
            idb.extend_from_slice(name);
            idb.resize(idb.len() + pad4(name.len()) - name.len(), 0);
        }
        idb.extend_from_slice(&OPT_IF_TSRESOL.to_le_bytes());
        idb.extend_from_slice(&1u16.to_le_bytes());
        idb.extend_from_slice(&[9, 0, 0, 0]);
        idb.extend_from_slice(&OPT_ENDOFOPT.to_le_bytes());
        idb.extend_from_slice(&0u16.to_le_bytes());
        idb.extend_from_slice(&(total as u32).to_le_bytes());
        debug_assert_eq!(idb.len(), total);
        w.write_all(&idb)?;
        Ok(PcapngWriter { w, packets: 0 })
    }

    /// Writes one Enhanced Packet Block (no allocation).
    pub fn write_packet(&mut self, timestamp_ns: u64, data: &[u8]) -> io::Result<()> {
        let padded = pad4(data.len());
        let total = u32::try_from(32 + padded)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "pcapng packet too long"))?;
        let mut head = [0u8; 28];
        head[0..4].copy_from_slice(&BLOCK_EPB.to_le_bytes());
        head[4..8].copy_from_slice(&total.to_le_bytes());
        head[8..12].copy_from_slice(&0u32.to_le_bytes()); // interface 0
        head[12..16].copy_from_slice(&((timestamp_ns >> 32) as u32).to_le_bytes());
        head[16..20].copy_from_slice(&(timestamp_ns as u32).to_le_bytes());
        head[20..24].copy_from_slice(&(data.len() as u32).to_le_bytes());
        head[24..28].copy_from_slice(&(data.len() as u32).to_le_bytes());
        self.w.write_all(&head)?;
        self.w.write_all(data)?;
        self.w.write_all(&[0u8; 3][..padded - data.len()])?;
        self.w.write_all(&total.to_le_bytes())?;
        self.packets += 1;
        Ok(())
    }

    /// Number of packets written so far.
    pub fn packets(&self) -> u64 {
        self.packets
    }

    /// Flushes the underlying writer.
    pub fn flush(&mut self) -> io::Result<()> {
        self.w.flush()
    }

    /// A reference to the underlying writer.
    pub fn get_ref(&self) -> &W {
        &self.w
    }

    /// Returns the underlying writer (not flushed).
    pub fn into_inner(self) -> W {
        self.w
    }
}

#[derive(Clone, Copy)]
struct Endian {
    big: bool,
}

impl Endian {
    fn u16(self, b: &[u8], o: usize) -> u16 {
        let x = [b[o], b[o + 1]];
        if self.big {
            u16::from_be_bytes(x)
        } else {
            u16::from_le_bytes(x)
        }
    }
    fn u32(self, b: &[u8], o: usize) -> u32 {
        let x = [b[o], b[o + 1], b[o + 2], b[o + 3]];
        if self.big {
            u32::from_be_bytes(x)
        } else {
            u32::from_le_bytes(x)
        }
    }
}

/// Timestamp units per second for an `if_tsresol` value.
fn units_per_second(tsresol: u8) -> Option<u128> {
    let e = (tsresol & 0x7F) as u32;
    if tsresol & 0x80 != 0 {
        1u128.checked_shl(e)
    } else {
        10u128.checked_pow(e)
    }
}

/// Reads the `if_tsresol` option of an IDB body's options (default 6: microseconds).
fn idb_tsresol(e: Endian, opts: &[u8]) -> u8 {
    let mut p = 0;
    while p + 4 <= opts.len() {
        let code = e.u16(opts, p);
        let len = e.u16(opts, p + 2) as usize;
        if code == OPT_ENDOFOPT {
            break;
        }
        if code == OPT_IF_TSRESOL && len >= 1 && p + 4 < opts.len() {
            return opts[p + 4];
        }
        p += 4 + pad4(len);
    }
    6
}

/// Reads every packet of a pcapng stream: `(timestamp in ns, captured bytes)` from
/// Enhanced (and Simple) Packet Blocks, in order. Handles both byte orders and several
/// sections and interfaces; skips other block types. Errors name the offset of the
/// block at fault.
pub fn read_packets(data: &[u8]) -> Result<Vec<(u64, Vec<u8>)>> {
    let mut out = Vec::new();
    let mut pos = 0usize;
    let mut endian: Option<Endian> = None;
    // Per interface of the current section: units per second of timestamps.
    let mut ifaces: Vec<Option<u128>> = Vec::new();
    while pos < data.len() {
        let rest = &data[pos..];
        if rest.len() < 12 {
            return Err(Error::Truncated {
                what: "pcapng block header",
                offset: pos,
                need: pos + 12,
                have: data.len(),
            });
        }
        let le_type = u32::from_le_bytes([rest[0], rest[1], rest[2], rest[3]]);
        let e = if le_type == BLOCK_SHB {
            let magic = [rest[8], rest[9], rest[10], rest[11]];
            let big = if u32::from_le_bytes(magic) == BYTE_ORDER_MAGIC {
                false
            } else if u32::from_be_bytes(magic) == BYTE_ORDER_MAGIC {
                true
            } else {
                return Err(Error::Malformed {
                    what: "pcapng section header block",
                    offset: pos + 8,
                    reason: "bad byte-order magic",
                });
            };
            ifaces.clear();
            Endian { big }
        } else {
            match endian {
                Some(e) => e,
                None => {
                    return Err(Error::Malformed {
                        what: "pcapng stream",
                        offset: pos,
                        reason: "does not start with a section header block",
                    })
                }
            }
        };
        endian = Some(e);
        let btype = e.u32(rest, 0);
        let total = e.u32(rest, 4) as usize;
        if total < 12 || total & 3 != 0 {
            return Err(Error::Malformed {
                what: "pcapng block",
                offset: pos,
                reason: "total length is below 12 or not a multiple of 4",
            });
        }
        if rest.len() < total {
            return Err(Error::Truncated {
                what: "pcapng block",
                offset: pos,
                need: pos + total,
                have: data.len(),
            });
        }
        let block = &rest[..total];
        if e.u32(block, total - 4) as usize != total {
            return Err(Error::Malformed {
                what: "pcapng block",
                offset: pos,
                reason: "trailing total length differs from the leading one",
            });
        }
        let body = &block[8..total - 4];
        match btype {
            BLOCK_SHB => {
                if body.len() < 16 {
                    return Err(Error::Malformed {
                        what: "pcapng section header block",
                        offset: pos,
                        reason: "shorter than 28 bytes",
                    });
                }
                if e.u16(body, 4) != 1 {
                    return Err(Error::Malformed {
                        what: "pcapng section header block",
                        offset: pos + 12,
                        reason: "major version is not 1",
                    });
                }
            }
            BLOCK_IDB => {
                if body.len() < 8 {
                    return Err(Error::Malformed {
                        what: "pcapng interface description block",
                        offset: pos,
                        reason: "shorter than 20 bytes",
                    });
                }
                let res = idb_tsresol(e, &body[8..]);
                ifaces.push(units_per_second(res));
            }
            BLOCK_EPB => {
                if body.len() < 20 {
                    return Err(Error::Malformed {
                        what: "pcapng enhanced packet block",
                        offset: pos,
                        reason: "shorter than 32 bytes",
                    });
                }
                let iface = e.u32(body, 0) as usize;
                let units = match ifaces.get(iface) {
                    Some(Some(u)) => *u,
                    Some(None) => {
                        return Err(Error::Malformed {
                            what: "pcapng interface description block",
                            offset: pos,
                            reason: "unusable if_tsresol for this packet's interface",
                        })
                    }
                    None => {
                        return Err(Error::Malformed {
                            what: "pcapng enhanced packet block",
                            offset: pos + 8,
                            reason: "interface id has no interface description block",
                        })
                    }
                };
                let ts = (e.u32(body, 4) as u64) << 32 | e.u32(body, 8) as u64;
                let caplen = e.u32(body, 12) as usize;
                if caplen > body.len() - 20 {
                    return Err(Error::Malformed {
                        what: "pcapng enhanced packet block",
                        offset: pos + 20,
                        reason: "captured length runs past the block",
                    });
                }
                let ns = (ts as u128 * 1_000_000_000 / units).min(u64::MAX as u128) as u64;
                out.push((ns, body[20..20 + caplen].to_vec()));
            }
            BLOCK_SPB => {
                if body.len() < 4 {
                    return Err(Error::Malformed {
                        what: "pcapng simple packet block",
                        offset: pos,
                        reason: "shorter than 16 bytes",
                    });
                }
                let len = (e.u32(body, 0) as usize).min(body.len() - 4);
                out.push((0, body[4..4 + len].to_vec()));
            }
            _ => {}
        }
        pos += total;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn golden_shb_idb_epb() {
        let mut w = PcapngWriter::new(Vec::new(), LINKTYPE_IEEE802_11, "wlan0").unwrap();
        w.write_packet(0x0000_0001_0000_0002, &[0xd4, 0, 0, 0, 1]).unwrap();
        let b = w.into_inner();
        #[rustfmt::skip]
        let want: Vec<u8> = [
            // SHB
            &[0x0A, 0x0D, 0x0D, 0x0A, 28, 0, 0, 0, 0x4D, 0x3C, 0x2B, 0x1A, 1, 0, 0, 0,
              0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 28, 0, 0, 0][..],
            // IDB: type, len 44, linktype 105, reserved, snaplen 0
            &[1, 0, 0, 0, 44, 0, 0, 0, 105, 0, 0, 0, 0, 0, 0, 0,
              // if_name "wlan0" padded to 8
              2, 0, 5, 0, b'w', b'l', b'a', b'n', b'0', 0, 0, 0,
              // if_tsresol 9
              9, 0, 1, 0, 9, 0, 0, 0,
              // end of options, total length
              0, 0, 0, 0, 44, 0, 0, 0][..],
            // EPB: len 40, iface 0, ts high 1, ts low 2, caplen 5, origlen 5
            &[6, 0, 0, 0, 40, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 5, 0, 0, 0, 5, 0, 0, 0,
              0xd4, 0, 0, 0, 1, 0, 0, 0, 40, 0, 0, 0][..],
        ]
        .concat();
        assert_eq!(b, want);
        assert_eq!(read_packets(&b).unwrap(), vec![(0x1_0000_0002, vec![0xd4, 0, 0, 0, 1])]);
    }

    #[test]
    fn reader_errors_name_block_offset() {
        let mut w = PcapngWriter::new(Vec::new(), LINKTYPE_IEEE802_11, "x").unwrap();
        w.write_packet(5, &[1, 2, 3, 4]).unwrap();
        let mut b = w.into_inner();
        let epb = b.len() - 36;
        // Cut the last block short.
        assert_eq!(
            read_packets(&b[..b.len() - 1]).unwrap_err(),
            Error::Truncated {
                what: "pcapng block",
                offset: epb,
                need: b.len(),
                have: b.len() - 1
            }
        );
        // Captured length too large.
        b[epb + 20] = 200;
        assert!(
            matches!(read_packets(&b), Err(Error::Malformed { offset, .. }) if offset == epb + 20)
        );
        // Not starting with an SHB.
        assert!(matches!(read_packets(&b[28..]), Err(Error::Malformed { offset: 0, .. })));
    }

    #[test]
    fn microsecond_default_and_big_endian() {
        // Big-endian SHB, IDB without options (microseconds), EPB ts = 3 us.
        let mut b = Vec::new();
        b.extend_from_slice(&[
            0x0A, 0x0D, 0x0D, 0x0A, 0, 0, 0, 28, 0x1A, 0x2B, 0x3C, 0x4D, 0, 1, 0, 0,
        ]);
        b.extend_from_slice(&[0xff; 8]);
        b.extend_from_slice(&[0, 0, 0, 28]);
        b.extend_from_slice(&[0, 0, 0, 1, 0, 0, 0, 20, 0, 105, 0, 0, 0, 0, 0, 0, 0, 0, 0, 20]);
        b.extend_from_slice(&[
            0, 0, 0, 6, 0, 0, 0, 36, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 2,
        ]);
        b.extend_from_slice(&[0xAB, 0xCD, 0, 0, 0, 0, 0, 36]);
        assert_eq!(read_packets(&b).unwrap(), vec![(3000, vec![0xAB, 0xCD])]);
    }
}
