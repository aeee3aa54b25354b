"""A confirmed one-shot: DATA_req of a 50-byte payload at 54 Mb/s with one try,
then DATA_con, printing the outcome, the timestamps and the latency components.

On the quiet channel of the paper's testbed the time on air is exactly
DATA (36 µs) + SIFS (16 µs) + ACK at 6 Mb/s (44 µs) = 96 µs.

Expect: Ttoa = 96.0 us
"""

import time

from sdmac.emu import Session

with Session.paper(beacon_interval_tu=1000) as s:
    sta = s.interface("sta")
    time.sleep(0.005)  # let the AP's first beacon (1 ms after start) go by
    sta.data_req(1, b"x" * 50, rates="54x1")
    c = sta.data_con(timeout=2.0)
    assert c is not None, "no confirmation"
    print(f"confirmation {c.id}: status={c.status} set={c.set} attempts={c.attempts} rates={c.rates} length={c.length} B")
    ts = c.timestamps
    t1 = ts["t1"]
    assert t1 is not None, ts  # t1 is taken on every request
    print("timestamps (µs after t1): " + ", ".join(f"{k}={(v - t1) / 1000:.1f}" for k, v in ts.items() if v is not None))
    comp = c.components
    assert comp is not None, c  # None only for a request dropped before the air
    print("components (µs): " + ", ".join(f"{k}={v:.1f}" for k, v in comp.items()))
    assert (c.status, c.set, c.attempts, c.length) == ("acked", "A", 1, 86), c
    assert comp["Ttoa"] == 96.0, comp
    print(f"Ttoa = {comp['Ttoa']} us (36 DATA + 16 SIFS + 44 ACK)")
