//! Information elements: the `id, length, data` items in management frame bodies.

use crate::{Error, Result};

/// Element ID: SSID.
pub const SSID: u8 = 0;
/// Element ID: Supported Rates (up to 8 rates).
pub const SUPPORTED_RATES: u8 = 1;
/// Element ID: DSSS Parameter Set (current channel).
pub const DS_PARAMETER_SET: u8 = 3;
/// Element ID: Traffic Indication Map.
pub const TIM: u8 = 5;
/// Element ID: Extended Supported Rates (rates beyond the first 8).
pub const EXTENDED_SUPPORTED_RATES: u8 = 50;

/// One information element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Element<'a> {
    /// Element ID.
    pub id: u8,
    /// Offset of the element's ID byte, relative to what the iterator was told.
    pub offset: usize,
    /// The element's data (without ID and length bytes).
    pub data: &'a [u8],
}

/// An iterator over the information elements in a byte slice. After an error
/// (an element whose length runs past the end) it yields nothing more.
#[derive(Debug, Clone)]
pub struct Elements<'a> {
    buf: &'a [u8],
    pos: usize,
    base: usize,
    done: bool,
}

/// Iterates over the elements in `buf`. `base` is added to the offsets reported in
/// elements and errors (pass the offset of `buf` within the frame).
pub fn elements(buf: &[u8], base: usize) -> Elements<'_> {
    Elements { buf, pos: 0, base, done: false }
}

impl<'a> Iterator for Elements<'a> {
    type Item = Result<Element<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done || self.pos >= self.buf.len() {
            return None;
        }
        let rest = &self.buf[self.pos..];
        let offset = self.base + self.pos;
        if rest.len() < 2 {
            self.done = true;
            return Some(Err(Error::Truncated {
                what: "information element header",
                offset,
                need: offset + 2,
                have: self.base + self.buf.len(),
            }));
        }
        let (id, len) = (rest[0], rest[1] as usize);
        if rest.len() < 2 + len {
            self.done = true;
            return Some(Err(Error::Truncated {
                what: "information element data",
                offset: offset + 2,
                need: offset + 2 + len,
                have: self.base + self.buf.len(),
            }));
        }
        self.pos += 2 + len;
        Some(Ok(Element { id, offset, data: &rest[2..2 + len] }))
    }
}

/// Wire length of an element with `data_len` bytes of data.
pub const fn element_len(data_len: usize) -> usize {
    2 + data_len
}

/// Writes one element at the start of `buf` and returns its length.
pub fn write_element(buf: &mut [u8], id: u8, data: &[u8]) -> Result<usize> {
    let len = u8::try_from(data.len()).map_err(|_| Error::InvalidInput {
        what: "information element",
        reason: "data longer than 255 bytes",
    })?;
    let total = element_len(data.len());
    crate::room("information element", total, buf.len())?;
    buf[0] = id;
    buf[1] = len;
    buf[2..total].copy_from_slice(data);
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iterate_and_truncate() {
        let buf = [0, 3, b'a', b'b', b'c', 3, 1, 6, 1, 5, 1];
        let mut it = elements(&buf, 36);
        assert_eq!(it.next().unwrap().unwrap(), Element { id: 0, offset: 36, data: b"abc" });
        assert_eq!(it.next().unwrap().unwrap(), Element { id: 3, offset: 41, data: &[6] });
        assert_eq!(
            it.next().unwrap().unwrap_err(),
            Error::Truncated { what: "information element data", offset: 46, need: 51, have: 47 }
        );
        assert!(it.next().is_none());
    }

    #[test]
    fn write() {
        let mut b = [0u8; 5];
        assert_eq!(write_element(&mut b, 0, b"abc").unwrap(), 5);
        assert_eq!(b, [0, 3, b'a', b'b', b'c']);
        assert!(write_element(&mut b, 0, b"abcd").is_err());
        assert!(write_element(&mut [0u8; 300], 0, &[0u8; 256]).is_err());
    }
}
