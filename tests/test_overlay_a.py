"""The part-A overlays (software retransmission, TDMA, EDF) through the Python
bindings, on the emu backend: each call runs the Rust overlay on a real interface.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Dict, List

import pytest

from sdmac._core import (
    Session,
    TdmaPlan,
    TsfSync,
    edf_run,
    retransmit,
    tdma_coordinator,
    tdma_measure_jitter,
    tdma_periodic,
    tdma_station,
)

AP = "02:00:00:00:00:01"

THREE = """
name = "tdma"
duration = 1
seed = 2
[phy]
standard = "802.11a"
rate = 24
[[station]]
name = "ap"
address = "02:00:00:00:00:01"
position = [0, 0]
[[station]]
name = "a"
address = "02:00:00:00:00:02"
position = [5, 0]
[[station]]
name = "b"
address = "02:00:00:00:00:03"
position = [0, 5]
"""


def test_retransmit_delivers_on_a_clean_link() -> None:
    with Session.paper(beacon_interval_tu=1000) as s:
        sta = s.interface("sta")
        r = retransmit(sta, b"x" * 100, dst=AP, deadline_us=20_000, policy="beyond_burst",
                       rates="24x1", requests=3, burst_us=2_000)
        assert r["fate"] == "delivered" and r["delivered"]
        assert r["requests"] == 1 and r["statuses"] == ["acked"]
        assert r["created_ns"] <= r["acked_at_ns"] <= r["deadline_ns"]


def test_retransmit_spends_its_requests_on_a_dead_link() -> None:
    with Session.paper(loss_data=1.0, beacon_interval_tu=1000) as s:
        sta = s.interface("sta")
        r = retransmit(sta, b"x" * 100, dst=AP, deadline_us=200_000, policy="fixed_spacing",
                       rates="24x2", requests=3, spacing_us=5_000)
        assert r["fate"] == "gave_up"
        assert r["requests"] == 3 and r["attempts"] == 6
        assert r["statuses"] == ["ack_timeout"] * 3


def test_retransmit_refusals_name_the_problem() -> None:
    with Session.paper(beacon_interval_tu=1000) as s:
        sta = s.interface("sta")
        with pytest.raises(ValueError, match="deadline"):
            retransmit(sta, b"x" * 1500, dst=AP, deadline_us=10, rates="6x7")
        with pytest.raises(ValueError, match="needs burst_us"):
            retransmit(sta, b"x", dst=AP, deadline_us=10_000, policy="beyond_burst")
        with pytest.raises(ValueError, match="unknown policy"):
            retransmit(sta, b"x", dst=AP, deadline_us=10_000, policy="eager")
        assert sta.unconfirmed() == 0


def _plan(slots: int, epoch_ns: int, **kw: Any) -> TdmaPlan:
    args: Dict[str, Any] = dict(slots=slots, slot_us=2_000, round_us=slots * 2_000 + 3_000,
                                contention_us=3_000, jitter_us=100, epoch_ns=epoch_ns)
    args.update(kw)
    return TdmaPlan(**args)


def test_tdma_plan_prints_its_guard_and_refuses_what_cannot_work() -> None:
    p = _plan(2, 10**9, sync_error_us=5)
    text = str(p)
    assert "guard 105.0 µs = request-path jitter 100.0 µs + synchronisation error 5.0 µs" in text
    assert p.guard_us == pytest.approx(105.0)
    assert p.slot_window_ns(1, 1) == (10**9 + 7_000_000 + 2_000_000 + 105_000,
                                      10**9 + 7_000_000 + 4_000_000 - 105_000)
    with pytest.raises(ValueError, match="do not fit a round"):
        _plan(3, 0, round_us=7_000)
    with pytest.raises(ValueError, match="leaves no time"):
        _plan(2, 0, jitter_us=1_000)
    with pytest.raises(ValueError, match="needs .* per exchange"):
        _plan(2, 0, payload=2304, rate="6")
    with pytest.raises(ValueError, match="zero slots"):
        _plan(0, 0, round_us=3_000)


def test_tdma_two_stations_never_collide() -> None:
    with Session.from_scenario(THREE, ["ap", "a"]) as probe:
        j = tdma_measure_jitter(probe.interface("a"), AP, probes=20)
    assert 0 <= j["min_ns"] <= j["max_ns"] and j["spread_ns"] == j["max_ns"] - j["min_ns"]
    jitter_us = j["spread_ns"] / 1000
    ex = TdmaPlan.exchange_for_us(200)
    slot = 2 * jitter_us + 3 * ex
    contention = 2 * jitter_us + 6 * ex
    with Session.from_scenario(THREE, ["ap", "a", "b"]) as s:
        ifs = [s.interface(n) for n in ("ap", "a", "b")]
        # The emu clock is CLOCK_MONOTONIC, the clock of time.monotonic_ns().
        now = time.monotonic_ns()
        plan = TdmaPlan(slots=2, slot_us=slot, round_us=2 * slot + contention,
                        contention_us=contention, jitter_us=jitter_us, epoch_ns=now + 5_000_000)
        print(plan)
        end = plan.round_start_ns(30)
        out: List[Dict[str, Any]] = [{}, {}, {}]

        def coord() -> None:
            out[0] = tdma_coordinator(ifs[0], plan, end + 5_000_000)

        def station(k: int) -> None:
            out[k] = tdma_station(ifs[k], plan, AP, b"\x5a" * 200, end)

        ts = [threading.Thread(target=coord)] + [
            threading.Thread(target=station, args=(k,)) for k in (1, 2)]
        for t in ts:
            t.start()
        for t in ts:
            t.join(timeout=30)
    assert sorted(o["slot"] for o in out[1:]) == [0, 1]
    for o in out[1:]:
        assert o["sent"] > 0 and o["collisions"] == 0, o
    assert all(k > 0 for k in out[0]["received"]), out[0]


def test_edf_counts_every_frame_and_refuses_a_hopeless_flow() -> None:
    flows = [{"name": "urgent", "period_us": 5_000, "deadline_us": 3_000, "payload": 100},
             {"name": "bulk", "period_us": 20_000, "deadline_us": 40_000, "payload": 1500,
              "burst": 4}]
    for fifo in (False, True):
        with Session.paper(beacon_interval_tu=1000) as s:
            sta = s.interface("sta")
            start = time.monotonic_ns() + 2_000_000
            r = edf_run(sta, flows, dst=AP, start_ns=start, end_ns=start + 100_000_000,
                        fifo=fifo)
        assert [f["name"] for f in r["flows"]] == ["urgent", "bulk"]
        for f in r["flows"]:
            assert f["released"] > 0
            assert f["met"] + f["late"] + f["dropped"] + f["unfinished"] == f["released"], f
            assert f["met"] > 0, f
        assert 0.0 <= r["miss_ratio"] <= 1.0
        # One record per frame, whose fates add up to the counts.
        assert len(r["frames"]) == sum(f["released"] for f in r["flows"])
        assert sum(x["met"] for x in r["frames"]) == sum(f["met"] for f in r["flows"])
        for x in r["frames"]:
            assert x["met"] == (x["fate"] == "met")
            if x["acked_ns"] is not None:
                assert x["first_tx_ns"] is not None and x["first_tx_ns"] < x["acked_ns"]
    with Session.paper(beacon_interval_tu=1000) as s:
        sta = s.interface("sta")
        with pytest.raises(ValueError, match="shorter than one exchange"):
            edf_run(sta, [{"period_us": 1000, "deadline_us": 5, "payload": 100}], dst=AP,
                    start_ns=0, end_ns=10)
        with pytest.raises(ValueError, match='has no "period_us"'):
            edf_run(sta, [{"deadline_us": 5, "payload": 100}], dst=AP, start_ns=0, end_ns=10)


def test_tsf_sync_fits_offset_and_drift() -> None:
    s = TsfSync(window=6)
    assert s.error_us is None and s.to_local_ns(0) is None
    # local = tsf + 3 s + 50 ppm of drift, exact: the fit is exact to rounding.
    for k in range(6):
        tsf_us = 1_000 + k * 102_400
        s.observe(tsf_us, int(tsf_us * 1000 + 3e9 + 50e-6 * (tsf_us - 1_000) * 1000))
    assert s.samples == 6
    err = s.error_us
    assert err is not None and err < 2.0
    t = 2_000_000_000
    want = t + 3e9 + 50e-6 * (t - 1_000_000)
    got = s.to_local_ns(t)
    assert got is not None and abs(got - want) <= err * 1000


def test_tdma_periodic_records_every_frame_and_refuses_what_cannot_work() -> None:
    with Session.from_scenario(THREE, ["ap", "a"]) as s:
        a = s.interface("a")
        start = time.monotonic_ns() + 20_000_000
        plan = _plan(1, start, jitter_us=50)
        end = plan.round_start_ns(10)
        with pytest.raises(ValueError, match="exactly one of period_us"):
            tdma_periodic(a, plan=plan, slot=0, dst=AP, deadline_us=2_000, end_ns=end)
        with pytest.raises(ValueError, match="slot 1 is not a slot of the plan"):
            tdma_periodic(a, plan=plan, slot=1, dst=AP, deadline_us=2_000, end_ns=end, period_us=5_000)
        with pytest.raises(ValueError, match="shorter than one exchange"):
            tdma_periodic(a, plan=plan, slot=0, dst=AP, deadline_us=10, end_ns=end, period_us=5_000)
        with pytest.raises(ValueError, match="does not fit the window"):
            tdma_periodic(a, epoch_ns=start, round_us=5_000, open_us=100, close_us=200, exchange_us=318,
                          dst=AP, deadline_us=2_000, end_ns=end, period_us=5_000)
        r = tdma_periodic(a, plan=plan, slot=0, dst=AP, deadline_us=2_000, end_ns=end,
                          period_us=plan.round_us, payload=bytes(200), number_at=0, lead_us=300)
    assert r["released"] == len(r["frames"]) == 10
    assert [f["number"] for f in r["frames"]] == list(range(1, 11))
    assert r["collisions"] == 0 and r["met"] == sum(f["met"] for f in r["frames"])
    for f in r["frames"]:
        assert f["deadline_ns"] == f["release_ns"] + 2_000_000
        if f["status"] == "acked":
            ts = f["timestamps"]
            assert ts["t1"] == f["t1_ns"] and f["t1_ns"] <= ts["t_start"] == f["t_start_ns"] < f["t5_ns"]
