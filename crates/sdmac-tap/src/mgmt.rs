//! Management: open-system authentication and association, as real 802.11
//! management frames, between an AP and its stations.
//!
//! The [`Manager`] is a state machine without threads or clocks of its own: it is
//! given the management frames a station receives and the time, and says what to
//! send. `sdmac-tap` runs one per station on a management thread, apart from the
//! data path, which hands it management frames and sends what it returns.
//!
//! A station waits for a beacon of its BSS, then sends Authentication (open system,
//! transaction 1), waits for the AP's Authentication (transaction 2, status 0),
//! sends an Association Request and waits for the Association Response with its AID;
//! without an answer it starts again after [`RETRY_NS`]. The AP answers both, gives
//! AIDs from 1, and marks the station associated, which lets the data path carry its
//! frames.
//!
//! Where nothing else beacons for the AP (its station is on a radio, not on the
//! emulated medium, whose engine sends an AP's beacons), the AP's manager sends its
//! own ([`Manager::with_beacons`]): one every beacon interval, from [`Manager::tick`].

use crate::stations::StationTable;
use sdmac_frame::ieee80211::{write_beacon_frame, BeaconParams, SupportedRate};
use sdmac_types::MacAddress;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// How long a station waits for an answer before it starts over.
pub const RETRY_NS: u64 = 200_000_000;

/// Largest management frame built or kept here.
pub const MGMT_MAX: usize = 256;

/// Supported rates advertised (500 kb/s units, basic rates flagged): the OFDM set.
pub const RATES: [u8; 8] = [0x8c, 0x12, 0x98, 0x24, 0xb0, 0x48, 0x60, 0x6c];

const SUBTYPE_ASSOC_REQ: u8 = 0;
const SUBTYPE_ASSOC_RESP: u8 = 1;
const SUBTYPE_BEACON: u8 = 8;
const SUBTYPE_AUTH: u8 = 11;

/// A management frame in a fixed buffer.
#[derive(Copy, Clone)]
pub struct MgmtFrame {
    /// The bytes (no FCS).
    pub bytes: [u8; MGMT_MAX],
    /// How many are used.
    pub len: usize,
}

impl std::fmt::Debug for MgmtFrame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MgmtFrame").field("bytes", &&self.bytes[..self.len]).finish()
    }
}

impl PartialEq for MgmtFrame {
    fn eq(&self, other: &MgmtFrame) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl MgmtFrame {
    /// A copy of `b` (cut at [`MGMT_MAX`]).
    pub fn from_slice(b: &[u8]) -> MgmtFrame {
        let len = b.len().min(MGMT_MAX);
        let mut bytes = [0u8; MGMT_MAX];
        bytes[..len].copy_from_slice(&b[..len]);
        MgmtFrame { bytes, len }
    }

    /// The frame's bytes.
    pub fn as_slice(&self) -> &[u8] {
        &self.bytes[..self.len]
    }

    fn header(subtype: u8, da: MacAddress, sa: MacAddress, bssid: MacAddress) -> MgmtFrame {
        let mut f = MgmtFrame { bytes: [0; MGMT_MAX], len: 24 };
        f.bytes[0] = subtype << 4;
        f.bytes[4..10].copy_from_slice(&da.0);
        f.bytes[10..16].copy_from_slice(&sa.0);
        f.bytes[16..22].copy_from_slice(&bssid.0);
        f
    }

    fn put(&mut self, b: &[u8]) {
        self.bytes[self.len..self.len + b.len()].copy_from_slice(b);
        self.len += b.len();
    }

    fn element(&mut self, id: u8, data: &[u8]) {
        self.put(&[id, data.len() as u8]);
        self.put(data);
    }
}

/// An Authentication frame, open system, transaction `seq`, `status`.
pub fn auth(da: MacAddress, sa: MacAddress, bssid: MacAddress, seq: u16, status: u16) -> MgmtFrame {
    let mut f = MgmtFrame::header(SUBTYPE_AUTH, da, sa, bssid);
    f.put(&0u16.to_le_bytes());
    f.put(&seq.to_le_bytes());
    f.put(&status.to_le_bytes());
    f
}

/// An Association Request for SSID `ssid`.
pub fn assoc_req(da: MacAddress, sa: MacAddress, bssid: MacAddress, ssid: &[u8]) -> MgmtFrame {
    let mut f = MgmtFrame::header(SUBTYPE_ASSOC_REQ, da, sa, bssid);
    f.put(&0x0001u16.to_le_bytes()); // capability: ESS
    f.put(&10u16.to_le_bytes()); // listen interval (beacon intervals)
    f.element(0, &ssid[..ssid.len().min(32)]);
    f.element(1, &RATES);
    f
}

/// An Association Response with `status` and association id `aid`.
pub fn assoc_resp(
    da: MacAddress,
    sa: MacAddress,
    bssid: MacAddress,
    status: u16,
    aid: u16,
) -> MgmtFrame {
    let mut f = MgmtFrame::header(SUBTYPE_ASSOC_RESP, da, sa, bssid);
    f.put(&0x0001u16.to_le_bytes());
    f.put(&status.to_le_bytes());
    f.put(&(aid | 0xc000).to_le_bytes()); // the two top bits are set in the field
    f.element(1, &RATES);
    f
}

/// The SSID of the BSS `sdmac tap` runs (the emulated medium's beacons carry it too).
pub const SSID: &[u8] = b"sdmac";

/// The length of a time unit (TU, IEEE 802.11: 1024 µs), in ns.
const TU_NS: u64 = 1_024_000;

/// The TIM element of the AP's own beacons (IEEE 802.11-2016 9.4.2.6): DTIM count 0
/// and DTIM period 1 (every beacon is a DTIM), bitmap control 0 and one octet of
/// partial virtual bitmap, 0: no station is in power save (none is: the AP keeps no
/// power-save state), and no group traffic is buffered.
pub const TIM_ELEMENT: [u8; 6] = [5, 4, 0, 1, 0, 0];

/// A beacon of `bssid` for SSID [`SSID`]: the OFDM rates of [`RATES`], the DS
/// Parameter Set on `channel`, the TIM ([`TIM_ELEMENT`]), beacon interval
/// `interval_tu`, timestamp `tsf_us`, sequence number `seq`. Built by `sdmac-frame`'s
/// beacon writer; the TIM goes after the DS Parameter Set, its place in a beacon.
pub fn beacon(
    bssid: MacAddress,
    channel: u8,
    interval_tu: u16,
    tsf_us: u64,
    seq: u16,
) -> MgmtFrame {
    let rates = RATES.map(SupportedRate::from_octet);
    let mut p = BeaconParams::new(bssid, SSID, &rates, channel);
    p.beacon_interval_tu = interval_tu;
    p.timestamp = tsf_us;
    p.seq = seq;
    p.extra_elements = &TIM_ELEMENT;
    let mut f = MgmtFrame { bytes: [0; MGMT_MAX], len: 0 };
    // Fits: header 24, fixed fields 12, SSID 7, rates 10, DS parameter set 3, TIM 6.
    f.len = write_beacon_frame(&mut f.bytes, &p, false).expect("a beacon fits MGMT_MAX");
    f
}

/// An AP's own beaconing: its channel and interval, and when the next is due.
#[derive(Clone, Debug)]
pub struct Beaconing {
    /// The DS Parameter Set's channel.
    pub channel: u8,
    /// Beacon interval (TU).
    pub interval_tu: u16,
    /// When the next beacon is due (ns, the manager's clock).
    next_ns: u64,
    /// Beacons sent.
    pub sent: u64,
}

/// What a received management frame is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A beacon.
    Beacon,
    /// Authentication: algorithm, transaction number, status.
    Auth {
        /// Authentication algorithm (0: open system).
        algorithm: u16,
        /// Transaction sequence number.
        seq: u16,
        /// Status code (0: success).
        status: u16,
    },
    /// Association Request.
    AssocReq,
    /// Association Response: status and AID.
    AssocResp {
        /// Status code (0: success).
        status: u16,
        /// Association id.
        aid: u16,
    },
    /// Another subtype (its number).
    Other(u8),
}

/// A received management frame's kind and addresses.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Parsed {
    /// What it is.
    pub kind: Kind,
    /// Address 1.
    pub da: MacAddress,
    /// Address 2.
    pub sa: MacAddress,
    /// Address 3.
    pub bssid: MacAddress,
}

fn mac(b: &[u8], at: usize) -> MacAddress {
    let mut a = [0u8; 6];
    a.copy_from_slice(&b[at..at + 6]);
    MacAddress(a)
}

fn le(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes([*b.get(at)?, *b.get(at + 1)?]))
}

/// Reads a management frame (no FCS); `None` if it is not one or too short.
pub fn parse(b: &[u8]) -> Option<Parsed> {
    if b.len() < 24 || (b[0] >> 2) & 0x03 != 0 || b[0] & 0x03 != 0 {
        return None;
    }
    let subtype = b[0] >> 4;
    let kind = match subtype {
        SUBTYPE_BEACON => Kind::Beacon,
        SUBTYPE_AUTH => Kind::Auth { algorithm: le(b, 24)?, seq: le(b, 26)?, status: le(b, 28)? },
        SUBTYPE_ASSOC_REQ => {
            le(b, 26)?;
            Kind::AssocReq
        }
        SUBTYPE_ASSOC_RESP => Kind::AssocResp { status: le(b, 26)?, aid: le(b, 28)? & 0x3fff },
        s => Kind::Other(s),
    };
    Some(Parsed { kind, da: mac(b, 4), sa: mac(b, 10), bssid: mac(b, 16) })
}

/// A station's progress towards association.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum StaState {
    /// Waiting for a beacon of the BSS.
    Scanning,
    /// Authentication sent at this time (ns).
    Authenticating(u64),
    /// Association Request sent at this time (ns).
    Associating(u64),
    /// Associated with this AID.
    Associated(u16),
}

/// The role of a station.
#[derive(Clone, Debug)]
pub enum Role {
    /// The AP: answers authentication and association from the stations of
    /// `stations` (which may grow while it runs) and marks each associated there.
    Ap {
        /// The medium's stations, shared with the data paths.
        stations: Arc<StationTable>,
        /// AIDs given, per station index (0: none); as long as the table's capacity.
        aids: Vec<u16>,
    },
    /// A station of the AP's BSS; `associated` is set once it has associated.
    Sta {
        /// Its state.
        state: StaState,
        /// Set once associated.
        associated: Arc<AtomicBool>,
    },
}

/// Authentication and association for one station.
#[derive(Debug)]
pub struct Manager {
    /// Its address.
    pub own: MacAddress,
    /// The BSSID (the AP's address).
    pub bssid: MacAddress,
    /// The SSID asked for.
    pub ssid: Vec<u8>,
    /// Its role and state.
    pub role: Role,
    /// Management frames handled (received).
    pub received: u64,
    /// Management frames asked to be sent.
    pub sent: u64,
    /// The AP's own beacons (an AP on a radio); `None`: someone else beacons.
    pub beaconing: Option<Beaconing>,
}

impl Manager {
    /// A manager for station `own` in the BSS `bssid` (SSID [`SSID`]), in `role`.
    pub fn new(own: MacAddress, bssid: MacAddress, role: Role) -> Manager {
        Manager { own, bssid, ssid: SSID.to_vec(), role, received: 0, sent: 0, beaconing: None }
    }

    /// Makes an AP send its own beacons on `channel`, one every `interval_tu` TU,
    /// the first at the first [`Manager::tick`]. Ignored for a station.
    pub fn with_beacons(mut self, channel: u8, interval_tu: u16) -> Manager {
        if matches!(self.role, Role::Ap { .. }) {
            self.beaconing = Some(Beaconing { channel, interval_tu, next_ns: 0, sent: 0 });
        }
        self
    }

    /// When [`Manager::tick`] next has something to do at the latest (ns): the next
    /// beacon; `None` without beaconing.
    pub fn next_due(&self) -> Option<u64> {
        self.beaconing.as_ref().map(|b| b.next_ns)
    }

    /// Handles one received management frame at `now_ns`; returns a frame to send.
    pub fn handle(&mut self, frame: &[u8], now_ns: u64) -> Option<MgmtFrame> {
        let p = parse(frame)?;
        self.received += 1;
        let out = match &mut self.role {
            Role::Ap { stations, aids } => {
                if p.da != self.own || p.bssid != self.bssid {
                    return None;
                }
                let k = stations.index(p.sa).filter(|&k| k < aids.len())?;
                match p.kind {
                    Kind::Auth { algorithm: 0, seq: 1, .. } => {
                        Some(auth(p.sa, self.own, self.bssid, 2, 0))
                    }
                    Kind::Auth { seq: 1, .. } => {
                        // Only open system here: status 13, algorithm not supported.
                        Some(auth(p.sa, self.own, self.bssid, 2, 13))
                    }
                    Kind::AssocReq => {
                        if aids[k] == 0 {
                            aids[k] = aids.iter().copied().max().unwrap_or(0) + 1;
                        }
                        stations.set_associated(k, true);
                        Some(assoc_resp(p.sa, self.own, self.bssid, 0, aids[k]))
                    }
                    _ => None,
                }
            }
            Role::Sta { state, associated } => match (p.kind, *state) {
                (Kind::Beacon, StaState::Scanning) if p.bssid == self.bssid => {
                    *state = StaState::Authenticating(now_ns);
                    Some(auth(self.bssid, self.own, self.bssid, 1, 0))
                }
                (Kind::Auth { seq: 2, status: 0, .. }, StaState::Authenticating(_))
                    if p.da == self.own && p.sa == self.bssid =>
                {
                    *state = StaState::Associating(now_ns);
                    Some(assoc_req(self.bssid, self.own, self.bssid, &self.ssid))
                }
                (Kind::AssocResp { status: 0, aid }, StaState::Associating(_))
                    if p.da == self.own && p.sa == self.bssid =>
                {
                    *state = StaState::Associated(aid);
                    associated.store(true, Ordering::Release);
                    None
                }
                _ => None,
            },
        };
        self.sent += u64::from(out.is_some());
        out
    }

    /// Lets time pass: a station whose request went unanswered starts over; a
    /// beaconing AP sends its beacon when it is due (its timestamp is `now_ns` in
    /// µs, the manager's clock standing in for a TSF). Late by more than an
    /// interval, the beacons missed are skipped, not sent in a burst.
    pub fn tick(&mut self, now_ns: u64) -> Option<MgmtFrame> {
        if let Some(b) = &mut self.beaconing {
            if now_ns >= b.next_ns {
                let interval = u64::from(b.interval_tu) * TU_NS;
                b.next_ns = if b.next_ns == 0 || now_ns - b.next_ns >= interval {
                    now_ns + interval
                } else {
                    b.next_ns + interval
                };
                b.sent += 1;
                self.sent += 1;
                let seq = (b.sent & 0x0fff) as u16;
                return Some(beacon(self.bssid, b.channel, b.interval_tu, now_ns / 1000, seq));
            }
        }
        if let Role::Sta { state, .. } = &mut self.role {
            match *state {
                StaState::Authenticating(t) | StaState::Associating(t)
                    if now_ns.saturating_sub(t) >= RETRY_NS =>
                {
                    *state = StaState::Authenticating(now_ns);
                    self.sent += 1;
                    return Some(auth(self.bssid, self.own, self.bssid, 1, 0));
                }
                _ => {}
            }
        }
        None
    }

    /// The station's state (`None` for the AP).
    pub fn sta_state(&self) -> Option<StaState> {
        match &self.role {
            Role::Sta { state, .. } => Some(*state),
            Role::Ap { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const AP: MacAddress = MacAddress([2, 0, 0, 0, 0, 1]);
    const S1: MacAddress = MacAddress([2, 0, 0, 0, 1, 1]);
    const S2: MacAddress = MacAddress([2, 0, 0, 0, 1, 2]);

    fn beacon() -> MgmtFrame {
        super::beacon(AP, 1, 100, 0, 0)
    }

    #[test]
    fn golden_beacon() {
        let b = super::beacon(AP, 6, 100, 0x0102_0304_0506_0708, 0x40);
        let want: Vec<u8> = [
            &[0x80, 0, 0, 0][..],
            &[0xff; 6],
            &AP.0,
            &AP.0,
            &[0x00, 0x04], // sequence number 0x40, fragment 0
            &[8, 7, 6, 5, 4, 3, 2, 1],
            &[100, 0, 0x01, 0],
            &[0, 5, b's', b'd', b'm', b'a', b'c'],
            &[1, 8],
            &RATES,
            &[3, 1, 6],
            &[5, 4, 0, 1, 0, 0], // TIM: DTIM count 0, period 1, nothing buffered
        ]
        .concat();
        assert_eq!(b.as_slice(), &want[..]);
        assert_eq!(parse(b.as_slice()).unwrap().kind, Kind::Beacon);
    }

    #[test]
    fn a_beaconing_ap_beacons_once_an_interval() {
        let table = Arc::new(StationTable::with_stations(&[AP, S1], 2));
        let ap = Manager::new(AP, AP, Role::Ap { stations: table.clone(), aids: vec![0; 2] });
        let mut ap = ap.with_beacons(1, 100);
        let tu100 = 100 * TU_NS;
        let first = ap.tick(5).expect("the first beacon at once");
        assert_eq!(parse(first.as_slice()).unwrap().kind, Kind::Beacon);
        assert_eq!(ap.tick(5 + tu100 - 1), None, "not before an interval");
        assert!(ap.tick(5 + tu100).is_some());
        assert_eq!(ap.next_due(), Some(5 + 2 * tu100));
        // Late by three intervals: one beacon, and the next an interval later.
        assert!(ap.tick(5 + 5 * tu100).is_some());
        assert_eq!(ap.tick(5 + 5 * tu100 + 1), None);
        assert_eq!(ap.next_due(), Some(5 + 6 * tu100));
        assert_eq!(ap.beaconing.as_ref().unwrap().sent, 3);
        // A station's manager has no beacons to send.
        let sta = Manager::new(
            S1,
            AP,
            Role::Sta { state: StaState::Scanning, associated: Arc::new(AtomicBool::new(false)) },
        )
        .with_beacons(1, 100);
        assert!(sta.beaconing.is_none());
    }

    #[test]
    fn golden_auth_and_assoc_frames() {
        let a = auth(AP, S1, AP, 1, 0);
        let want: Vec<u8> =
            [&[0xb0, 0, 0, 0][..], &AP.0, &S1.0, &AP.0, &[0, 0], &[0, 0, 1, 0, 0, 0]].concat();
        assert_eq!(a.as_slice(), &want[..]);
        let r = assoc_resp(S1, AP, AP, 0, 3);
        assert_eq!(&r.as_slice()[..2], &[0x10, 0]);
        assert_eq!(&r.as_slice()[24..30], &[1, 0, 0, 0, 3, 0xc0]);
        assert_eq!(parse(r.as_slice()).unwrap().kind, Kind::AssocResp { status: 0, aid: 3 });
        let q = assoc_req(AP, S1, AP, b"sdmac");
        assert_eq!(&q.as_slice()[24..35], &[1, 0, 10, 0, 0, 5, b's', b'd', b'm', b'a', b'c']);
        assert_eq!(parse(q.as_slice()).unwrap().kind, Kind::AssocReq);
        assert_eq!(parse(&[0x08; 30]), None, "a data frame is not management");
        assert_eq!(parse(&[0xb0; 20]), None, "too short");
    }

    #[test]
    fn two_stations_associate_and_a_lost_answer_is_retried() {
        let table = Arc::new(StationTable::with_stations(&[AP, S1, S2], 4));
        let mut ap = Manager {
            own: AP,
            bssid: AP,
            ssid: b"sdmac".to_vec(),
            role: Role::Ap { stations: table.clone(), aids: vec![0; 4] },
            received: 0,
            sent: 0,
            beaconing: None,
        };
        let sta = |own| Manager {
            own,
            bssid: AP,
            ssid: b"sdmac".to_vec(),
            role: Role::Sta {
                state: StaState::Scanning,
                associated: Arc::new(AtomicBool::new(false)),
            },
            received: 0,
            sent: 0,
            beaconing: None,
        };
        let (mut s1, mut s2) = (sta(S1), sta(S2));
        // s1: the whole exchange.
        let a1 = s1.handle(beacon().as_slice(), 0).expect("auth after a beacon");
        let a2 = ap.handle(a1.as_slice(), 1).expect("auth answer");
        let q = s1.handle(a2.as_slice(), 2).expect("association request");
        let r = ap.handle(q.as_slice(), 3).expect("association response");
        assert_eq!(s1.handle(r.as_slice(), 4), None);
        assert_eq!(s1.sta_state(), Some(StaState::Associated(1)));
        assert!(table.is_associated(1) && !table.is_associated(2));
        // s2: the AP's authentication answer is lost; s2 starts over after RETRY_NS.
        let a1 = s2.handle(beacon().as_slice(), 10).unwrap();
        let _lost = ap.handle(a1.as_slice(), 11).unwrap();
        assert_eq!(s2.tick(10 + RETRY_NS - 1), None);
        let again = s2.tick(10 + RETRY_NS).expect("a new authentication");
        let a2 = ap.handle(again.as_slice(), 12).unwrap();
        let q = s2.handle(a2.as_slice(), 13).unwrap();
        let r = ap.handle(q.as_slice(), 14).unwrap();
        s2.handle(r.as_slice(), 15);
        assert_eq!(s2.sta_state(), Some(StaState::Associated(2)));
        assert!(table.is_associated(2));
        // Frames for another BSS or from an unknown station get no answer.
        let other = MacAddress([2, 9, 9, 9, 9, 9]);
        assert_eq!(ap.handle(auth(AP, other, AP, 1, 0).as_slice(), 20), None);
        // A station added to the table while the AP runs is answered, and associates.
        let k = table.push(other).unwrap();
        let mut s3 = sta(other);
        let a1 = s3.handle(beacon().as_slice(), 30).unwrap();
        let a2 = ap.handle(a1.as_slice(), 31).expect("the new station is answered");
        let q = s3.handle(a2.as_slice(), 32).unwrap();
        let r = ap.handle(q.as_slice(), 33).unwrap();
        s3.handle(r.as_slice(), 34);
        assert_eq!(s3.sta_state(), Some(StaState::Associated(3)));
        assert!(table.is_associated(k));
        assert_eq!(ap.handle(auth(AP, S1, other, 1, 0).as_slice(), 20), None);
        // Shared-key authentication is refused with status 13.
        let mut sk = auth(AP, S1, AP, 1, 0);
        sk.bytes[24] = 1;
        let no = ap.handle(sk.as_slice(), 21).unwrap();
        assert_eq!(
            parse(no.as_slice()).unwrap().kind,
            Kind::Auth { algorithm: 0, seq: 2, status: 13 }
        );
    }
}
