//! Radio addresses, shared by every part of the medium: the type, and the hwsim
//! (wire) address that belongs to an interface address.

/// A MAC address.
pub type Mac = sdmac_types::MacAddress;

/// The hwsim (wire) address of a radio whose interface address is `a`.
pub fn hw_addr_of(a: Mac) -> Mac {
    let mut h = a;
    h.0[0] |= 0x40;
    h
}
