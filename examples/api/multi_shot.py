"""Multi-shot transmissions: one DATA_req with a rate series ("54x2,24x2": two tries
at 54 Mb/s, then two at 24 Mb/s). With every DATA frame lost the MAC uses the whole
series and reports which rates it used; on a clean link the first try succeeds.

Expect: lossy link: status=ack_timeout set=LD attempts=4 rates=54x2,24x2
"""

from sdmac.emu import Session


def fmt(rates: list[tuple[str, int]]) -> str:
    return ",".join(f"{r}x{n}" for r, n in rates)


for label, loss in (("clean link", None), ("lossy link", 1.0)):
    with Session.paper(loss_data=loss, beacon_interval_tu=1000) as s:
        sta = s.interface("sta")
        sta.data_req(1, b"x" * 50, rates="54x2,24x2")  # 86 B on air
        c = sta.data_con(timeout=2.0)
        assert c is not None, "no confirmation"
        t5, t_last = c.timestamps["t5"], c.timestamps["t_last_start"]
        assert t5 is not None and t_last is not None and c.components is not None, c
        last = (t5 - t_last) / 1000
        print(f"{label}: status={c.status} set={c.set} attempts={c.attempts} rates={fmt(c.rates)} "
              f"(Ttoa {c.components['Ttoa']:.0f} µs, last attempt {last:.0f} µs)")
        if loss:
            assert (c.status, c.attempts, c.rates) == ("ack_timeout", 4, [("54", 2), ("24", 2)]), c
            assert last == 52 + 45, last  # 86 B at 24 Mb/s (52 µs), then the 45 µs ACKTimeout
        else:
            assert (c.status, c.attempts) == ("acked", 1), c
