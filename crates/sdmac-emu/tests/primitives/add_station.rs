//! `EmuSession::add_station`: a station put on the medium while it runs, with its own
//! interface, sends, receives and contends like the others; bad additions are refused
//! with the reason.

use crate::common::*;

const NEW: [u8; 6] = [0x02, 0, 0, 0, 0, 0x33];

fn near_ap() -> StationConfig {
    StationConfig::new(&Phy::new(Standard::Dot11a), NEW, [0.0, 5.0, 0.0])
}

#[test]
fn a_station_added_while_the_medium_runs_sends_and_receives() {
    let (m, ap, sta) = paper_medium(&PaperSetup::default()).unwrap();
    let mut s = EmuSession::start(m, &[(AP, ap), (STA, sta)], opts()).unwrap();
    let mut ap = s.take(AP).unwrap();
    let mut sta = s.take(STA).unwrap();
    // The old station keeps the medium busy: a long frame nobody acknowledges.
    sta.data_req(1, Body::Payload(LONG), Ac::Be, &long_attrs()).unwrap();
    std::thread::sleep(Duration::from_millis(2));
    let mut new = s.add_station("new", near_ap()).unwrap();
    assert_eq!(new.get("address", Scope::Adapter).unwrap(), Value::Mac(MacAddress(NEW)));
    assert_eq!(new.get("bssid", Scope::Adapter).unwrap(), Value::Mac(AP_MAC), "the AP's BSS");
    assert!(s.names().iter().any(|n| n == "new"));
    // It contends with the old station's attempts and gets its frame through.
    let attrs = TxAttrs {
        dst: Some(AP_MAC),
        rates: Some(RateSeries::single(Rate::Ofdm54, 7)),
        ..TxAttrs::default()
    };
    new.data_req(9, Body::Payload(&[0x77; 50]), Ac::Be, &attrs).unwrap();
    let c = con(&mut new);
    assert_eq!((c.id, c.status), (9, Status::Acked), "{c:?}");
    let mut buf = Vec::new();
    let ind = loop {
        let i = ap.data_ind(&mut buf, W).unwrap().expect("the AP hears the new station");
        if i.src == MacAddress(NEW) {
            break i;
        }
    };
    assert_eq!(&buf[ind.payload_offset..], &[0x77; 50][..]);
    // And it hears what is sent to it (with retries: the old station's attempts go
    // on, and one of them can end its backoff in the same slot).
    let to_new = TxAttrs {
        dst: Some(MacAddress(NEW)),
        rates: Some(RateSeries::single(Rate::Ofdm24, 7)),
        ..TxAttrs::default()
    };
    ap.data_req(3, Body::Payload(&[0x55; 20]), Ac::Be, &to_new).unwrap();
    assert_eq!(con(&mut ap).status, Status::Acked);
    let got = new.data_ind(&mut buf, W).unwrap().expect("the new station receives");
    assert_eq!((got.src, &buf[got.payload_offset..]), (AP_MAC, &[0x55; 20][..]));
    // The old station's frame is unaffected: all its tries, then AckTimeout.
    let c = con(&mut sta);
    assert_eq!((c.id, c.status, c.attempts), (1, Status::AckTimeout, 15));
}

#[test]
fn bad_additions_are_refused_with_the_reason() {
    let (mut s, _ap, _sta) = quiet(PaperSetup::default(), opts());
    let _new = s.add_station("new", near_ap()).unwrap();
    let e = s.add_station("new", StationConfig { address: [2, 0, 0, 0, 0, 0x44], ..near_ap() });
    assert!(e.unwrap_err().to_string().contains("\"new\""), "a name in use");
    let e = s.add_station("other", near_ap()).unwrap_err().to_string();
    assert!(e.contains("02:00:00:00:00:33"), "an address in use: {e}");
    let e = s.add_station("ap-twin", StationConfig { address: AP_ADDR, ..near_ap() });
    assert!(e.is_err());
    s.close();
    let e = s.add_station("late", StationConfig { address: [2, 0, 0, 0, 0, 0x45], ..near_ap() });
    assert!(e.unwrap_err().to_string().contains("ended"));
}
