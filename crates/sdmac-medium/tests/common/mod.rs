//! Helpers of the engine's tests: requests at given times, and their rates.
#![allow(dead_code)]

use proptest::prelude::*;
use sdmac_medium::*;
use sdmac_phy::Rate;

pub const US: u64 = 1_000;

/// A frame handed to `station` at `at` (broadcast when `dst` is None).
#[derive(Clone, Debug)]
pub struct Req {
    pub at: u64,
    pub station: u32,
    pub dst: Option<u32>,
    pub len: u32,
    pub rate: Rate,
}

/// The request for `r` with handle `h`: two tries at its rate, two at 6 Mb/s.
pub fn request(h: u64, r: &Req) -> TxRequest {
    TxRequest {
        handle: h,
        dst: r.dst.map_or(Dest::Broadcast, Dest::Station),
        len: r.len,
        ac: Ac::Be,
        rates: Some(RateSeries::new(&[(r.rate, 2), (Rate::Ofdm6, 2)]).unwrap()),
        no_ack: false,
    }
}

pub fn rate() -> impl Strategy<Value = Rate> {
    prop_oneof![Just(Rate::Ofdm6), Just(Rate::Ofdm24), Just(Rate::Ofdm54)]
}

/// Up to 40 requests among `n` stations in the first 3 ms.
pub fn requests(n: u32) -> impl Strategy<Value = Vec<Req>> {
    let req = (0u64..3_000, 0..n, prop::option::weighted(0.85, 0..n), 14u32..1600, rate())
        .prop_map(|(at, station, dst, len, rate)| Req { at: at * US, station, dst, len, rate });
    prop::collection::vec(req, 1..40)
}

/// Gives each request at its time, `step` running the medium up to it first (and
/// after the last, to the end of all traffic).
pub fn drive(
    m: &mut Medium,
    reqs: &[Req],
    c: &mut Collect,
    mut step: impl FnMut(&mut Medium, u64, &mut Collect),
) {
    for (h, r) in reqs.iter().enumerate() {
        step(m, r.at, c);
        let _ = m.enqueue(r.at, r.station, request(h as u64, r));
    }
    step(m, u64::MAX / 4, c);
}

/// 2 to 5 stations, up to two pairs of them that cannot hear each other, and their
/// requests in time order (one addressed to its own sender goes to the next station).
pub fn traffic() -> impl Strategy<Value = (u32, Vec<(u32, u32)>, Vec<Req>)> {
    (2u32..6)
        .prop_flat_map(|n| (Just(n), prop::collection::vec((0..n, 0..n), 0..3), requests(n)))
        .prop_map(|(n, hidden, mut reqs)| {
            reqs.sort_by_key(|r| r.at);
            for r in reqs.iter_mut() {
                if r.dst == Some(r.station) {
                    r.dst = Some((r.station + 1) % n);
                }
            }
            (n, hidden, reqs)
        })
}
