//! What every section shares: the imports, the media (the paper's quiet testbed and
//! one built by hand), attributes of requests and helpers that read values and wait.

pub(crate) use sdmac_api::attribute::Kind;
pub(crate) use sdmac_api::{
    Ac, ApiError, Body, Confirmation, DropReason, FrameClass, Interface, RateSeries, Scope, Span,
    Status, TxAttrs, Value, Wait, ATTRIBUTES, MAX_ID, MAX_PAYLOAD,
};
pub(crate) use sdmac_emu::setup::{paper_medium, Loss, PaperSetup, AP, AP_ADDR, STA, STA_ADDR};
pub(crate) use sdmac_emu::{DeviceProfile, DeviceWait, EmuIface, EmuOptions, EmuSession, Latency};
pub(crate) use sdmac_frame::ieee80211::{write_data_frame, DataParams};
pub(crate) use sdmac_frame::MacAddress;
pub(crate) use sdmac_medium::{
    LinkOverride, Medium, MediumConfig, Outcome, StationConfig, StationId, SECONDS,
};
pub(crate) use sdmac_phy::{Phy, Rate, Standard};
pub(crate) use std::time::{Duration, Instant};

pub(crate) type Iface = Interface<EmuIface>;

/// The longest any blocking call waits.
pub(crate) const T: Duration = Duration::from_secs(2);
pub(crate) const W: Wait = Wait::For(T);

pub(crate) const AP_MAC: MacAddress = MacAddress(AP_ADDR);
pub(crate) const STA_MAC: MacAddress = MacAddress(STA_ADDR);
/// A unicast address no station has: never acknowledged.
pub(crate) const NOBODY: MacAddress = MacAddress([0x02, 0, 0, 0, 0, 0x99]);

/// 50 B payload, non-QoS: 86 B on air. DATA at 54 Mb/s 36 µs + SIFS 16 + ACK at 6 Mb/s 44.
pub(crate) const TTOA_ACKED: i64 = 96_000;
pub(crate) const DATA_54: i64 = 36_000;
pub(crate) const ACK_TIMEOUT: i64 = 45_000;

pub(crate) fn opts() -> EmuOptions {
    EmuOptions { wait: DeviceWait::Park { spin_ns: 100_000 }, ..EmuOptions::default() }
}

/// Options whose device holds every request 50 ms (its request latency) before it
/// reaches a queue.
pub(crate) fn holding_device() -> EmuOptions {
    EmuOptions {
        profile: DeviceProfile { req: Latency::Fixed(50_000_000), con: Latency::Fixed(0) },
        ..opts()
    }
}

/// The quiet testbed on a [`holding_device`], with packet 1 (10 B, a one-shot at
/// 54 Mb/s) requested by the station and held by the device.
pub(crate) fn one_packet_held() -> (EmuSession, Iface, Iface) {
    let (s, ap, mut sta) = quiet(PaperSetup::default(), holding_device());
    sta.data_req(1, Body::Payload(&[0; 10]), Ac::Be, &one_shot(Rate::Ofdm54)).unwrap();
    assert_eq!(sta.queue_len(Ac::Be), 1);
    (s, ap, sta)
}

/// The paper's testbed with a 10 s beacon interval, after its first beacon (at 1 ms)
/// and 300 µs of idle medium: nothing else is on air for 10 s, so channel access is
/// immediate and medium times are exact.
pub(crate) fn quiet(p: PaperSetup, o: EmuOptions) -> (EmuSession, Iface, Iface) {
    let (m, ap, sta) = paper_medium(&PaperSetup { beacon_interval_ns: 10 * SECONDS, ..p }).unwrap();
    let mut s = EmuSession::start(m, &[(AP, ap), (STA, sta)], o).unwrap();
    let mut sta = s.take(STA).unwrap();
    let ap = s.take(AP).unwrap();
    let b = sta.beacon_ind(W).unwrap().expect("the first beacon");
    assert_eq!(b.bssid, AP_MAC);
    std::thread::sleep(Duration::from_micros(300));
    (s, ap, sta)
}

/// A medium built by hand: an AP (no beacons) and a station 10 m away with `queue_limit`
/// packets per queue, QoS or not, whose DATA frames the AP loses with `loss`.
pub(crate) fn hand_medium(
    qos: bool,
    queue_limit: usize,
    loss: f64,
    seed: u64,
) -> (Medium, StationId, StationId) {
    let phy = Phy::new(Standard::Dot11a);
    let mut cfg = MediumConfig::new(phy.clone());
    cfg.seed = seed;
    let mut m = Medium::new(cfg);
    let ap = m.add_station(StationConfig::new(&phy, AP_ADDR, [0.0, 0.0, 0.0]));
    let mut sc = StationConfig::new(&phy, STA_ADDR, [10.0, 0.0, 0.0]);
    if qos {
        sc = sc.with_qos(&phy);
    }
    sc.queue_limit = queue_limit;
    let sta = m.add_station(sc);
    if loss > 0.0 {
        m.set_link(sta, ap, LinkOverride { error_prob: Some(loss), ..LinkOverride::default() });
    }
    (m, ap, sta)
}

pub(crate) fn hand(qos: bool, queue_limit: usize) -> (EmuSession, Iface, Iface) {
    let (m, ap, sta) = hand_medium(qos, queue_limit, 0.0, 1);
    let mut s = EmuSession::start(m, &[(AP, ap), (STA, sta)], opts()).unwrap();
    let sta = s.take(STA).unwrap();
    let ap = s.take(AP).unwrap();
    (s, ap, sta)
}

pub(crate) fn con(i: &mut Iface) -> Confirmation {
    i.data_con(W).unwrap().expect("a confirmation within 2 s")
}

pub(crate) fn one_shot(rate: Rate) -> TxAttrs {
    TxAttrs::one_shot(AP_MAC, rate)
}

pub(crate) fn series(e: &[(Rate, u8)]) -> RateSeries {
    RateSeries::new(e).unwrap()
}

/// A packet that stays in the adapter for tens of ms: 2304 B at 6 Mb/s (3.1 ms each
/// attempt), 15 tries, to an address nobody acknowledges.
pub(crate) fn long_attrs() -> TxAttrs {
    TxAttrs {
        dst: Some(NOBODY),
        rates: Some(RateSeries::single(Rate::Ofdm6, 15)),
        no_ack: false,
        timestamps: true,
        not_before: None,
        not_after: None,
    }
}
pub(crate) const LONG: &[u8] = &[0x11; MAX_PAYLOAD];

/// Makes the queue of `ac` back off for ~150 ms on average between attempts (AIFSN
/// 15, CW 32767), so a long packet stays for seconds.
pub(crate) fn make_slow(i: &mut Iface, ac: Ac) {
    let q = Scope::Queue(ac);
    i.set("aifsn", q, 15i64).unwrap();
    i.set("cw_max", q, 32767i64).unwrap();
    i.set("cw_min", q, 32767i64).unwrap();
}

pub(crate) fn int(v: Value) -> i64 {
    match v {
        Value::Int(i) => i,
        v => panic!("expected an integer, got {v:?}"),
    }
}

pub(crate) fn float(v: Value) -> f64 {
    match v {
        Value::Float(f) => f,
        v => panic!("expected a float, got {v:?}"),
    }
}

pub(crate) fn kind_of(v: &Value) -> Kind {
    match v {
        Value::Int(_) => Kind::Int,
        Value::Float(_) => Kind::Float,
        Value::Bool(_) => Kind::Bool,
        Value::Mac(_) => Kind::Mac,
        Value::Rates(_) => Kind::Rates,
        Value::Text(_) => Kind::Text,
        Value::Map(_) => Kind::Map,
    }
}

pub(crate) fn map_get<'a>(v: &'a Value, key: &str) -> &'a Value {
    match v {
        Value::Map(m) => {
            &m.iter().find(|(k, _)| k == key).unwrap_or_else(|| panic!("no {key:?} in {v}")).1
        }
        v => panic!("expected a map, got {v:?}"),
    }
}

/// Waits (at most 2 s) until `queue_len(ac)` is 0.
pub(crate) fn wait_empty(i: &Iface, ac: Ac) {
    let t0 = Instant::now();
    while i.queue_len(ac) != 0 {
        assert!(t0.elapsed() < T, "queue {} did not drain", ac.name());
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// Asserts that no confirmation is waiting.
pub(crate) fn no_more_cons(i: &mut Iface) {
    assert_eq!(i.data_con(Wait::NoWait).unwrap(), None);
    assert_eq!(i.unconfirmed(), 0);
}
