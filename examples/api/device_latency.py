"""A device latency profile: device_req_us / device_con_us add the latency of a
real adapter on the request path (t3 -> t4) and the confirmation path (t5 -> t7);
the components show it as Thw, while the time on air stays 96 µs.

Expect: Thw = 12.0 us
"""

import time

from sdmac.emu import Session

with Session.paper(device_req_us="5", device_con_us="7", beacon_interval_tu=1000) as s:
    sta = s.interface("sta")
    time.sleep(0.005)
    sta.data_req(1, b"x" * 50, rates="54x1")
    c = sta.data_con(timeout=2.0)
    assert c is not None and c.status == "acked", c
    comp, ts = c.components, c.timestamps
    t3, t4, t5, t7 = ts["t3"], ts["t4"], ts["t5"], ts["t7"]
    assert comp is not None and t3 is not None and t4 is not None, c  # set for an acked frame
    assert t5 is not None and t7 is not None, c
    print(f"request path t4-t3 = {(t4 - t3) / 1000} µs, confirmation path t7-t5 = {(t7 - t5) / 1000} µs")
    print("components (µs): " + ", ".join(f"{k}={v:.1f}" for k, v in comp.items()))
    assert comp["Thw"] == 12.0 and comp["Ttoa"] == 96.0, comp
    print(f"Thw = {comp['Thw']} us, Ttoa = {comp['Ttoa']} us")
