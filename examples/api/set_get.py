"""DATA_set / DATA_get: attributes of the adapter, of an AC queue (ac=) and of a
packet still queued (id=), and the typed errors for wrong names, scopes and values.

Expect: ack_timeout 45.0 -> 25.0 us
"""

from collections.abc import Callable

from sdmac.emu import InvalidValue, ReadOnly, Session, UnknownAttribute, WrongScope

with Session.paper(loss_data=1.0, beacon_interval_tu=1000) as s:
    sta = s.interface("sta")
    for name in ("address", "bssid", "channel", "frequency", "tx_power", "retry_limit", "default_rates",
                 "basic_rates", "queue_limit", "rx_management"):
        print(f"adapter {name} = {sta.get(name)!r}")
    print("queue BE: " + ", ".join(f"{n}={sta.get(n, ac='BE')}" for n in ("aifsn", "cw_min", "cw_max", "txop_limit")))

    before = sta.get("ack_timeout")
    sta.set("ack_timeout", 25.0)
    after = sta.get("ack_timeout")
    assert (before, after) == (45.0, 25.0)
    print(f"ack_timeout {before} -> {after} us")
    sta.set("cw_min", 31, ac="BE")
    assert sta.get("cw_min", ac="BE") == 31

    # Packet attributes: packet 1 waits behind packet 0, whose DATA frames are all lost.
    sta.set("ack_timeout", 3000)  # each lost try of packet 0 lasts 3 ms
    sta.data_req(0, b"head", rates="54x15")
    sta.data_req(1, b"waiting", rates="54x15")
    print("packet 1: " + ", ".join(f"{n}={sta.get(n, id=1)!r}" for n in ("rates", "tries", "attempts", "state")))
    sta.set("rates", "24x1", id=1)
    assert sta.get("rates", id=1) == "24x1"
    c0, c1 = sta.data_con(timeout=2.0), sta.data_con(timeout=2.0)
    assert c1 is not None and c1.rates == [("24", 1)], c1
    print(f"packet 1 confirmed: {c1.status}, rates {c1.rates}")

    bad: list[tuple[Callable[[], object], type[Exception]]] = [
        (lambda: sta.get("nope"), UnknownAttribute),
        (lambda: sta.get("aifsn"), WrongScope),
        (lambda: sta.set("address", "02:00:00:00:00:09"), ReadOnly),
        (lambda: sta.set("cw_min", 10, ac="BE"), InvalidValue),
    ]
    for call, exc in bad:
        try:
            call()
        except exc as e:
            print(f"{type(e).__name__}: {e}")
        else:
            raise AssertionError(f"{exc.__name__} not raised")
    stats = sta.get("stats")
    assert stats["tx_requests"] == 2
    print(f"stats: tx_requests={stats['tx_requests']} tx_attempts={stats['tx_attempts']} tx_failed={stats['tx_failed']}")
