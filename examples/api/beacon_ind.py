"""beacon_ind: the station hears the AP's beacons; consecutive beacons are exactly
one beacon interval apart on air (here 10 TU = 10.24 ms). With rx_management on,
beacons also come through DATA_ind as management frames.

Expect: beacon interval 10240 us
"""

from sdmac.emu import Session

with Session.paper(beacon_interval_tu=10) as s:
    sta = s.interface("sta")
    b1 = sta.beacon_ind(timeout=2.0)
    b2 = sta.beacon_ind(timeout=2.0)
    assert b1 is not None and b2 is not None, "no beacons"
    for b in (b1, b2):
        print(f"beacon #{b.seq} from {b.bssid}: {(b.t_end - b.t_start) / 1000:.0f} µs on air, {b.signal_dbm:.1f} dBm")
    assert b2.seq == b1.seq + 1 and b1.bssid == "02:00:00:00:00:01"
    gap_us = (b2.t_start - b1.t_start) / 1000
    assert gap_us == 10 * 1024, gap_us
    print(f"beacon interval {gap_us:.0f} us")
    sta.set("rx_management", True)
    m = sta.data_ind(timeout=2.0)
    assert m is not None and m.kind == "management" and m.frame[0] == 0x80, m
    print(f"with rx_management: data_ind gave a {m.kind} frame of {len(m.frame)} B from {m.src}")
