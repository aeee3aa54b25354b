//! Tests of radiotap parsing and emission.

use super::*;
use crate::Error;

#[test]
fn fixed_header_checks() {
    assert!(matches!(
        Header::new_checked(&[0u8; 7][..]),
        Err(Error::Truncated { need: 8, have: 7, .. })
    ));
    assert!(matches!(
        Header::new_checked(&[1, 0, 8, 0, 0, 0, 0, 0][..]),
        Err(Error::Malformed { what: "radiotap version", .. })
    ));
    assert!(matches!(
        Header::new_checked(&[0, 0, 4, 0, 0, 0, 0, 0][..]),
        Err(Error::Malformed { what: "radiotap length", .. })
    ));
    assert!(matches!(
        Header::new_checked(&[0, 0, 9, 0, 0, 0, 0, 0][..]),
        Err(Error::Truncated { need: 9, have: 8, .. })
    ));
    // EXT bit set but header length 8: the next word is outside the header.
    assert!(matches!(
        Header::new_checked(&[0, 0, 8, 0, 0, 0, 0, 0x80, 0, 0, 0, 0][..]),
        Err(Error::Malformed { what: "radiotap presence bitmap", offset: 8, .. })
    ));
}

#[test]
fn unknown_field_stops_parsing() {
    // Flags (bit 1) then bit 18 (not known here) then antenna (bit 11 is before 18;
    // use data retries bit 17 before and nothing after is readable).
    let b = [0, 0, 11, 0, 0x02, 0x00, 0x06, 0x00, 0x10, 0x03, 0xAA];
    let h = Header::new_checked(&b[..]).unwrap();
    let mut it = h.fields();
    assert_eq!(it.next().unwrap().unwrap().bit, 1);
    assert_eq!(it.next().unwrap().unwrap().bit, 17);
    assert_eq!(
        it.next().unwrap().unwrap_err(),
        Error::UnknownField { what: "radiotap field", offset: 10, bit: 18 }
    );
    assert!(it.next().is_none());
    let r = Repr::parse(&h).unwrap();
    assert_eq!(r.flags, Some(0x10));
    assert_eq!(r.data_retries, Some(3));
    assert_eq!(r.unknown_field, Some(18));
    assert!(r.fcs_at_end());
}

#[test]
fn truncated_field_named() {
    // TSFT present but header length only 12: TSFT at 8 needs 16.
    let b = [0, 0, 12, 0, 0x01, 0, 0, 0, 1, 2, 3, 4];
    let h = Header::new_checked(&b[..]).unwrap();
    assert_eq!(
        Repr::parse(&h).unwrap_err(),
        Error::Truncated { what: "radiotap TSFT", offset: 8, need: 16, have: 12 }
    );
}

#[test]
fn vendor_namespace_skipped() {
    // word0: flags + vendor ns + ext; word1 (vendor): bit 0 + radiotap ns + ext;
    // word2 (radiotap ns 1): antenna signal.
    let mut b = vec![0u8, 0, 0, 0];
    b.extend_from_slice(&(1u32 << 1 | 1 << 30 | 1 << 31).to_le_bytes());
    b.extend_from_slice(&(1u32 | 1 << 29 | 1 << 31).to_le_bytes());
    b.extend_from_slice(&(1u32 << 5).to_le_bytes());
    // offset 16: flags
    b.push(0x10);
    // offset 17: pad to 18; vendor header OUI 00:11:22 sub 1 skip 3
    b.push(0);
    b.extend_from_slice(&[0x00, 0x11, 0x22, 0x01, 3, 0]);
    b.extend_from_slice(&[9, 9, 9]);
    // offset 27: antenna signal of namespace 1
    b.push(0xC4);
    let len = b.len() as u16;
    b[2..4].copy_from_slice(&len.to_le_bytes());
    let h = Header::new_checked(&b[..]).unwrap();
    let fields: Vec<_> = h.fields().map(|f| f.unwrap()).collect();
    assert_eq!(fields.len(), 3);
    assert_eq!((fields[0].namespace, fields[0].bit, fields[0].offset), (0, 1, 16));
    assert_eq!((fields[1].bit, fields[1].offset, fields[1].data.len()), (30, 18, 9));
    assert_eq!((fields[2].namespace, fields[2].bit, fields[2].offset), (1, 5, 27));
    let r = Repr::parse(&h).unwrap();
    assert_eq!(r.flags, Some(0x10));
    assert_eq!(r.antenna_signal, None);
}
