"""cancel, queue_len and unconfirmed: packets wait behind one that ties up the
medium (all its DATA frames are lost); a waiting packet can be cancelled (its
confirmation says dropped/cancelled); one already confirmed, or never requested,
cannot. Closing the session confirms whatever is left as dropped/closed.

Expect: cancel(2) -> True
"""

from sdmac.emu import Closed, Session

with Session.paper(loss_data=1.0, ack_timeout_us=10_000, beacon_interval_tu=1000) as s:
    sta = s.interface("sta")
    for k in range(4):
        sta.data_req(k, b"queued", rates="54x15")
    print(f"after 4 requests: queue_len={sta.queue_len()} unconfirmed={sta.unconfirmed()}")
    assert (sta.queue_len(), sta.unconfirmed()) == (4, 4)
    ok = sta.cancel(2)
    print(f"cancel(2) -> {ok}")
    assert ok is True
    c = sta.data_con(timeout=2.0)
    assert c is not None and (c.id, c.status, c.reason) == (2, "dropped", "cancelled"), c
    print(f"confirmation {c.id}: {c.status} ({c.reason}); queue_len={sta.queue_len()} unconfirmed={sta.unconfirmed()}")
    assert (sta.queue_len(), sta.unconfirmed()) == (3, 3)
    print(f"cancel(2) again -> {sta.cancel(2)}, cancel(99) -> {sta.cancel(99)}")
    assert sta.cancel(2) is False and sta.cancel(99) is False
    s.close()
    left = []
    try:
        while True:
            c = sta.data_con(timeout=0)
            assert c is not None
            left.append(c)
    except Closed:
        pass
    print("after close: " + ", ".join(f"{c.id}:{c.status}/{c.reason}" for c in sorted(left, key=lambda c: c.id)))
    assert sorted(c.id for c in left) == [0, 1, 3] and all(c.reason == "closed" for c in left)
