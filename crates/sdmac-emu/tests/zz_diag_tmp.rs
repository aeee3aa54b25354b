use sdmac_api::*;
use sdmac_emu::{EmuOptions, EmuSession};
use sdmac_medium::{Medium, MediumConfig, StationConfig};
use sdmac_phy::{Phy, Standard};
use std::time::Duration;
#[test]
fn diag() {
    let phy = Phy::new(Standard::Dot11a);
    let mut m = Medium::new(MediumConfig::new(phy.clone()));
    let _ap = m.add_station(StationConfig::new(&phy, [2,0,0,0,0,1], [0.0;3]));
    let st = m.add_station(StationConfig::new(&phy, [2,0,0,0,0,2], [10.0,0.0,0.0]));
    let mut s = EmuSession::start(m, &[("sta", st)], EmuOptions::default()).unwrap();
    let mut sta = s.take("sta").unwrap();
    let q = Scope::Queue(Ac::Be);
    sta.set("aifsn", q, 1i64).unwrap(); sta.set("cw_min", q, 0i64).unwrap(); sta.set("cw_max", q, 0i64).unwrap();
    let r = RateSeries::new(&[(Rate::Ofdm54, 255), (Rate::Ofdm48, 1)]).unwrap();
    sta.data_req(1, Body::Payload(&[0; 10]), Ac::Be, &TxAttrs { dst: Some(MacAddress([2,0,0,0,0,0x99])), rates: Some(r), ..TxAttrs::default() }).unwrap();
    for _ in 0..10 {
        std::thread::sleep(Duration::from_millis(10));
        eprintln!("attempts {:?} stats tx_attempts {:?}", sta.get("attempts", Scope::Packet(1)), match sta.get("stats", Scope::Adapter).unwrap() { Value::Map(m) => m[1].1.clone(), _ => unreachable!() });
    }
}
