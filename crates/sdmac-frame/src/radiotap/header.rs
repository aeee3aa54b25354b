//! The zero-copy view of a radiotap header, and the iterator over its fields across
//! presence words and namespaces.

use super::{align_up, bit, field_layout, field_name, MIN_HEADER_LEN, VERSION};
use crate::{need, Error, Result};

/// A zero-copy view of a radiotap header followed by the frame it describes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header<T: AsRef<[u8]>> {
    pub(super) buffer: T,
}

impl<T: AsRef<[u8]>> Header<T> {
    /// Wraps a buffer without checking it. Accessors may panic on a short or
    /// inconsistent buffer; use [`Header::new_checked`] for input.
    pub const fn new_unchecked(buffer: T) -> Self {
        Header { buffer }
    }

    /// Wraps a buffer after [`Header::check_len`].
    pub fn new_checked(buffer: T) -> Result<Self> {
        let h = Self::new_unchecked(buffer);
        h.check_len()?;
        Ok(h)
    }

    /// Checks version 0, that the length field is at least 8 and within the buffer,
    /// and that the chain of presence words ends inside the header.
    pub fn check_len(&self) -> Result<()> {
        let b = self.buffer.as_ref();
        need("radiotap header", b, 0, MIN_HEADER_LEN)?;
        if b[0] != VERSION {
            return Err(Error::Malformed {
                what: "radiotap version",
                offset: 0,
                reason: "version is not 0",
            });
        }
        let len = u16::from_le_bytes([b[2], b[3]]) as usize;
        if len < MIN_HEADER_LEN {
            return Err(Error::Malformed {
                what: "radiotap length",
                offset: 2,
                reason: "shorter than the 8-byte fixed header",
            });
        }
        need("radiotap header", b, 0, len)?;
        let mut off = 4;
        while u32::from_le_bytes([b[off], b[off + 1], b[off + 2], b[off + 3]]) & (1 << bit::EXT)
            != 0
        {
            off += 4;
            if off + 4 > len {
                return Err(Error::Malformed {
                    what: "radiotap presence bitmap",
                    offset: off,
                    reason: "extension word runs past the header length",
                });
            }
        }
        Ok(())
    }

    /// The underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// The version field (always 0 in a checked header).
    pub fn version(&self) -> u8 {
        self.buffer.as_ref()[0]
    }

    /// The pad byte.
    pub fn pad(&self) -> u8 {
        self.buffer.as_ref()[1]
    }

    /// The header length field: where the 802.11 frame starts.
    pub fn header_len(&self) -> usize {
        let b = self.buffer.as_ref();
        u16::from_le_bytes([b[2], b[3]]) as usize
    }

    /// Number of presence words (1 + the number of extension words).
    pub fn present_count(&self) -> usize {
        let b = self.buffer.as_ref();
        let mut n = 1;
        let mut off = 4;
        while off + 4 <= b.len()
            && u32::from_le_bytes([b[off], b[off + 1], b[off + 2], b[off + 3]]) & (1 << bit::EXT)
                != 0
            && off + 8 <= b.len()
        {
            n += 1;
            off += 4;
        }
        n
    }

    /// Presence word `i` (0 is the first), or `None` past the last.
    pub fn present_word(&self, i: usize) -> Option<u32> {
        if i >= self.present_count() {
            return None;
        }
        let b = self.buffer.as_ref();
        let o = 4 + 4 * i;
        Some(u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]))
    }

    /// The first presence word.
    pub fn present(&self) -> u32 {
        self.present_word(0).unwrap_or(0)
    }

    /// Iterates over the fields present.
    pub fn fields(&self) -> Fields<'_> {
        let b = self.buffer.as_ref();
        let len = self.header_len().min(b.len());
        let words = self.present_count();
        Fields {
            buf: &b[..len],
            words,
            word_idx: 0,
            bit: 0,
            radiotap_ns: true,
            ns_index: 0,
            base: 0,
            pos: 4 + 4 * words,
            done: false,
        }
    }

    /// The bytes after the radiotap header (the 802.11 frame).
    pub fn payload(&self) -> &[u8] {
        let b = self.buffer.as_ref();
        b.get(self.header_len()..).unwrap_or(&[])
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Header<T> {
    /// Sets the version byte.
    pub fn set_version(&mut self, v: u8) {
        self.buffer.as_mut()[0] = v;
    }

    /// Sets the pad byte.
    pub fn set_pad(&mut self, v: u8) {
        self.buffer.as_mut()[1] = v;
    }

    /// Sets the header length field.
    pub fn set_header_len(&mut self, len: u16) {
        self.buffer.as_mut()[2..4].copy_from_slice(&len.to_le_bytes());
    }

    /// Sets the first presence word.
    pub fn set_present(&mut self, present: u32) {
        self.buffer.as_mut()[4..8].copy_from_slice(&present.to_le_bytes());
    }

    /// The bytes after the radiotap header, writable.
    pub fn payload_mut(&mut self) -> &mut [u8] {
        let h = self.header_len();
        self.buffer.as_mut().get_mut(h..).unwrap_or(&mut [])
    }
}

/// One field found by [`Fields`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field<'a> {
    /// Which radiotap namespace the field is in: 0 for the first, 1 for the one
    /// after the first bit-29 switch, and so on (Linux: one per antenna).
    pub namespace: usize,
    /// Bit number within the namespace (32 and up for extension words); 30 for a
    /// vendor namespace, whose `data` is then the 6-byte vendor header followed by
    /// the skipped vendor data.
    pub bit: u32,
    /// Offset of the field's data from the start of the radiotap header.
    pub offset: usize,
    /// The field's data.
    pub data: &'a [u8],
}

impl Field<'_> {
    /// Byte `i` of the data, or 0.
    pub fn u8_at(&self, i: usize) -> u8 {
        self.data.get(i).copied().unwrap_or(0)
    }

    /// Little-endian u16 at byte `i`, or 0.
    pub fn u16_at(&self, i: usize) -> u16 {
        u16::from_le_bytes([self.u8_at(i), self.u8_at(i + 1)])
    }

    /// Little-endian u32 at byte `i`, or 0.
    pub fn u32_at(&self, i: usize) -> u32 {
        u32::from_le_bytes([self.u8_at(i), self.u8_at(i + 1), self.u8_at(i + 2), self.u8_at(i + 3)])
    }

    /// Little-endian u64 at byte `i`, or 0.
    pub fn u64_at(&self, i: usize) -> u64 {
        self.u32_at(i) as u64 | (self.u32_at(i + 4) as u64) << 32
    }
}

/// Iterator over the fields of a radiotap header, in wire order. It ends after the
/// first error (truncated field, unknown field, bad namespace bits).
#[derive(Debug, Clone)]
pub struct Fields<'a> {
    buf: &'a [u8],
    words: usize,
    word_idx: usize,
    bit: u32,
    radiotap_ns: bool,
    ns_index: usize,
    base: u32,
    pos: usize,
    done: bool,
}

impl<'a> Fields<'a> {
    pub(super) fn word(&self, i: usize) -> u32 {
        let o = 4 + 4 * i;
        match self.buf.get(o..o + 4) {
            Some(w) => u32::from_le_bytes([w[0], w[1], w[2], w[3]]),
            None => 0,
        }
    }

    fn fail(&mut self, e: Error) -> Option<Result<Field<'a>>> {
        self.done = true;
        Some(Err(e))
    }

    fn take(&mut self, what: &'static str, align: usize, size: usize) -> Result<(usize, &'a [u8])> {
        let off = align_up(self.pos, align);
        need(what, self.buf, off, size)?;
        self.pos = off + size;
        Ok((off, &self.buf[off..off + size]))
    }
}

impl<'a> Iterator for Fields<'a> {
    type Item = Result<Field<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.done || self.word_idx >= self.words {
                self.done = true;
                return None;
            }
            let word = self.word(self.word_idx);
            // Ordinary fields, bits 0..=28.
            while self.bit <= bit::TLV {
                let b = self.bit;
                self.bit += 1;
                if word & (1 << b) == 0 || !self.radiotap_ns {
                    continue;
                }
                let num = self.base + b;
                let Some((align, size)) = field_layout(num) else {
                    return self.fail(Error::UnknownField {
                        what: "radiotap field",
                        offset: self.pos,
                        bit: num,
                    });
                };
                if num == bit::TLV {
                    let off = align_up(self.pos, align).min(self.buf.len());
                    self.done = true;
                    return Some(Ok(Field {
                        namespace: self.ns_index,
                        bit: num,
                        offset: off,
                        data: &self.buf[off..],
                    }));
                }
                return match self.take(field_name(num), align, size) {
                    Ok((offset, data)) => {
                        Some(Ok(Field { namespace: self.ns_index, bit: num, offset, data }))
                    }
                    Err(e) => self.fail(e),
                };
            }
            let ns_bits = word & (1 << bit::RADIOTAP_NAMESPACE | 1 << bit::VENDOR_NAMESPACE);
            if ns_bits == (1 << bit::RADIOTAP_NAMESPACE | 1 << bit::VENDOR_NAMESPACE) {
                return self.fail(Error::Malformed {
                    what: "radiotap presence bitmap",
                    offset: 4 + 4 * self.word_idx,
                    reason: "both the radiotap and vendor namespace bits are set",
                });
            }
            // Vendor namespace header (bit 30), then its skipped data.
            if self.bit == bit::RADIOTAP_NAMESPACE {
                self.bit = bit::VENDOR_NAMESPACE;
                if ns_bits == 1 << bit::VENDOR_NAMESPACE {
                    let (off, hdr) = match self.take("radiotap vendor namespace", 2, 6) {
                        Ok(x) => x,
                        Err(e) => return self.fail(e),
                    };
                    let skip = u16::from_le_bytes([hdr[4], hdr[5]]) as usize;
                    if let Err(e) = self.take("radiotap vendor namespace data", 1, skip) {
                        return self.fail(e);
                    }
                    return Some(Ok(Field {
                        namespace: self.ns_index,
                        bit: bit::VENDOR_NAMESPACE,
                        offset: off,
                        data: &self.buf[off..off + 6 + skip],
                    }));
                }
            }
            // Move to the next presence word.
            if ns_bits == 1 << bit::VENDOR_NAMESPACE {
                self.radiotap_ns = false;
            } else if ns_bits == 1 << bit::RADIOTAP_NAMESPACE {
                self.radiotap_ns = true;
                self.ns_index += 1;
                self.base = 0;
            } else {
                self.base = self.base.saturating_add(32);
            }
            self.word_idx += 1;
            self.bit = 0;
        }
    }
}
