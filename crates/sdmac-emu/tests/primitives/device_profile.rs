//! The device latency profile's exact latencies.

use crate::common::*;

#[test]
fn device_profile_adds_exactly_its_latencies() {
    let o = EmuOptions {
        profile: DeviceProfile { req: Latency::Fixed(5_000), con: Latency::Fixed(7_000) },
        ..opts()
    };
    let (_s, _ap, mut sta) = quiet(PaperSetup::default(), o);
    for id in 0..5u64 {
        sta.data_req(id, Body::Payload(&[0; 50]), Ac::Be, &one_shot(Rate::Ofdm54)).unwrap();
        let c = con(&mut sta);
        assert_eq!((c.id, c.status), (id, Status::Acked));
        assert_eq!(c.ts.t4 - c.ts.t3, Span::from_ns(5_000));
        assert_eq!(c.ts.t7 - c.ts.t5, Span::from_ns(7_000));
        assert!(c.ts.t8 >= c.ts.t7);
        let k = c.ts.components().unwrap();
        assert_eq!(k.thw, 12_000, "Thw = 5 + 7 µs exactly");
        assert_eq!(k.ttoa, TTOA_ACKED);
        assert_eq!(k.tca, 0);
        assert_eq!(k.tsw_req + k.thw + k.tca + k.ttoa + k.tsw_con, k.tpath);
        std::thread::sleep(Duration::from_micros(300));
    }
}
